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

#endif
