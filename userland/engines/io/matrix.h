/*
 * matrix.h - the disk steps' measuring points (CrystalDiskMark's matrix:
 * sequential and random, block size, queue depth), written once for
 * disk_read and disk_write: the quick and full matrices, how a point is
 * named, where a run of it starts on the drive, and the latency
 * percentiles of a point's requests as a typed row. Pure.
 */
#ifndef PS_ENGINES_IO_MATRIX_H
#define PS_ENGINES_IO_MATRIX_H

#include "lib/fields.h"
#include "lib/stats.h"
#include "report/view.h"

#include <stddef.h>
#include <stdint.h>

#define PS_KIB 1024U
#define PS_MIB (1024U * 1024U)

enum ps_io_pattern { PS_IO_SEQ, PS_IO_RAND };

struct ps_io_point {
	enum ps_io_pattern pattern;
	unsigned int bs, qd;
};

/* The first point of each is a drive's headline (seq 1M QD8), random 4K QD32 its IOPS. */
extern const struct ps_io_point ps_io_quick_matrix[2];
extern const struct ps_io_point ps_io_full_matrix[8];

/* "seq", "rand" and NULL: the JSON names of enum ps_io_pattern. */
extern const char *const ps_io_pattern_names[];

/* "1M", "256K", "4K": a block size as a person reads it. */
void ps_io_bs_text(unsigned int bs, char *buf, size_t len);

/* True for the headline points: seq 1M QD8 and random 4K QD32. */
bool ps_io_point_is_seq_headline(int pattern, unsigned int bs, unsigned int qd);
bool ps_io_point_is_rand_headline(int pattern, unsigned int bs, unsigned int qd);

/*
 * Where run i of runs starts on a drive of size bytes, aligned to bs: the
 * runs spread over the drive, each in the middle of its own slice, so that
 * the drive's cache (and a hypervisor's page cache) does not serve a later
 * run what an earlier one touched. Extra runs of the noise rule (i >= runs)
 * start a quarter into slice i - runs (modulo runs), a region no other run
 * starts at; the warm-up run (PS_MEASURE_WARMUP) at the start of the drive.
 */
uint64_t ps_io_run_offset(uint64_t size, unsigned int i, unsigned int runs, unsigned int bs);

/* Latency percentiles of a point's requests, in microseconds. */
struct ps_io_lat_us {
	double p50, p90, p99, p99_9, max;
};
extern const struct ps_fields ps_io_lat_us_fields;
void ps_io_lat_us_of(const struct ps_lat_hist *lat, struct ps_io_lat_us *out);

/*
 * The view columns of a drive's headline (its rows: data.drives[]) and of
 * a matrix row (nested in a drive: results[]), one set for disk_read and
 * disk_write, so that text, HTML and compare show both alike.
 */
#define PS_IO_HEADLINE_COLS                                                                        \
	{.path = "/name", .title = "drive", .flags = PS_COL_KEY},                                  \
	    {.path = "/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},           \
	    {.path = "/seq_mbps",                                                                  \
	     .title = "seq 1M QD8",                                                                \
	     .unit = "MB/s",                                                                       \
	     .better = PS_BETTER_HIGHER,                                                           \
	     .flags = PS_COL_HEADLINE},                                                            \
	{                                                                                          \
		.path = "/rand_iops", .title = "rand 4K QD32", .unit = "IOPS",                     \
		.better = PS_BETTER_HIGHER, .flags = PS_COL_HEADLINE                               \
	}
#define PS_IO_MATRIX_COLS                                                                          \
	{.path = "^/name", .title = "drive", .flags = PS_COL_KEY},                                 \
	    {.path = "^/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},          \
	    {.path = "/pattern", .title = "io", .flags = PS_COL_KEY},                              \
	    {.path = "/bs", .title = "bs", .fmt = PS_FMT_BLOCK, .flags = PS_COL_KEY},              \
	    {.path = "/qd", .title = "qd", .flags = PS_COL_KEY},                                   \
	    PS_COL_FIGURE("mbps", "MB/s", "MB/s", 0, PS_BETTER_HIGHER, 0),                         \
	    PS_COL_FIGURE_RANGE("mbps", 0),                                                        \
	    PS_COL_FIGURE_CV, /* IOPS and MB/s are one measurement at one block size: the runs' CV \
				 is both's */                                                      \
	    {.path = "/median_iops",                                                               \
	     .title = "IOPS",                                                                      \
	     .better = PS_BETTER_HIGHER,                                                           \
	     .spread = "/" PS_FIGURE_CV},                                                          \
	    {.path = "/lat_us/p50", .title = "p50", .fmt = PS_FMT_US, .better = PS_BETTER_LOWER},  \
	{                                                                                          \
		.path = "/lat_us/p99", .title = "p99", .fmt = PS_FMT_US, .better = PS_BETTER_LOWER \
	}

/* The two tables over those columns: a drive's headline, and its matrix. */
#define PS_IO_SUMMARY_BLOCK(ttl, table, none)                                                      \
	{                                                                                          \
		.kind = PS_BLOCK_TABLE, .id = "summary", .title = (ttl), .rows = "/drives",        \
		.when = "/results", .cols = PS_COLS(table), .empty = (none)                        \
	}
#define PS_IO_MATRIX_BLOCK(ttl, table)                                                             \
	{                                                                                          \
		.kind = PS_BLOCK_TABLE, .id = "matrix", .title = (ttl), .rows = "/drives",         \
		.nested = "/results", .cols = PS_COLS(table), .note = PS_FIGURE_NOTE               \
	}

#endif
