/*
 * matrix.c - the disk steps' measuring points, their names and where their
 * runs start (matrix.h).
 */
#include "engines/io/matrix.h"

#include "engines/measure.h"

#include <stdio.h>

const struct ps_io_point ps_io_quick_matrix[2] = {{PS_IO_SEQ, 1 * PS_MIB, 8},
						  {PS_IO_RAND, 4 * PS_KIB, 32}};
const struct ps_io_point ps_io_full_matrix[8] = {
    {PS_IO_SEQ, 1 * PS_MIB, 8},	  {PS_IO_SEQ, 1 * PS_MIB, 1},  {PS_IO_SEQ, 256 * PS_KIB, 1},
    {PS_IO_SEQ, 64 * PS_KIB, 1},  {PS_IO_SEQ, 16 * PS_KIB, 1}, {PS_IO_SEQ, 4 * PS_KIB, 1},
    {PS_IO_RAND, 4 * PS_KIB, 32}, {PS_IO_RAND, 4 * PS_KIB, 1},
};

const char *const ps_io_pattern_names[] = {"seq", "rand", NULL};

void ps_io_bs_text(unsigned int bs, char *buf, size_t len)
{
	if (bs % PS_MIB == 0)
		snprintf(buf, len, "%uM", bs / PS_MIB);
	else
		snprintf(buf, len, "%uK", bs / PS_KIB);
}

bool ps_io_point_is_seq_headline(int pattern, unsigned int bs, unsigned int qd)
{
	return pattern == PS_IO_SEQ && bs == PS_MIB && qd == 8;
}

bool ps_io_point_is_rand_headline(int pattern, unsigned int bs, unsigned int qd)
{
	return pattern == PS_IO_RAND && bs == 4 * PS_KIB && qd == 32;
}

uint64_t ps_io_run_offset(uint64_t size, unsigned int i, unsigned int runs, unsigned int bs)
{
	uint64_t off;

	if (i == PS_MEASURE_WARMUP || runs == 0)
		off = 0;
	else if (i < runs)
		off = size * (2 * (uint64_t)i + 1) / (2 * (uint64_t)runs);
	else
		off = size * (4 * (uint64_t)((i - runs) % runs) + 1) / (4 * (uint64_t)runs);
	return off / bs * bs;
}

/* p90 and p99.9 came to disk_write's rows with the kit: older ones lack them. */
static const struct ps_field lat_f[] = {
    PS_FIELD(struct ps_io_lat_us, p50, "p50", .unit = "us", .decimals = 1),
    PS_FIELD(struct ps_io_lat_us, p90, "p90", .unit = "us", .decimals = 1, .flags = PS_FLD_NEWER),
    PS_FIELD(struct ps_io_lat_us, p99, "p99", .unit = "us", .decimals = 1),
    PS_FIELD(struct ps_io_lat_us, p99_9, "p99_9", .unit = "us", .decimals = 1,
	     .flags = PS_FLD_NEWER),
    PS_FIELD(struct ps_io_lat_us, max, "max", .unit = "us", .decimals = 1),
};
const struct ps_fields ps_io_lat_us_fields = PS_FIELDS(struct ps_io_lat_us, lat_f);

void ps_io_lat_us_of(const struct ps_lat_hist *lat, struct ps_io_lat_us *out)
{
	out->p50 = (double)ps_lat_percentile(lat, 50) / 1e3;
	out->p90 = (double)ps_lat_percentile(lat, 90) / 1e3;
	out->p99 = (double)ps_lat_percentile(lat, 99) / 1e3;
	out->p99_9 = (double)ps_lat_percentile(lat, 99.9) / 1e3;
	out->max = (double)lat->max_ns / 1e3;
}
