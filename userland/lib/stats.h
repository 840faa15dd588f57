/* stats.h - pure arithmetic for measurements: summaries of repeated runs
 * (min/median/max/CV), throughput, and a log-linear latency histogram. */
#ifndef PS_IO_STATS_H
#define PS_IO_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h" /* ps_round */

/* Summary of n repeated measurements of the same thing. */
struct ps_run_summary {
	size_t n;
	double min, median, max, mean;
	double cv_pct; /* sample standard deviation / mean * 100; 0 for n == 1 or mean 0 */
};

/* Fills *s from v[0..n); the input is not modified. -EINVAL when n is 0. */
int ps_run_summary(const double *v, size_t n, struct ps_run_summary *s);

/*
 * Repeat a figure until it is steady, as the Phoronix Test Suite does: the
 * plan's runs first; while the runs' CV stays above the limit, more runs up
 * to a cap; a figure still above it then is "noisy" (reported, not hidden).
 */
struct ps_noise_rule {
	unsigned int runs;     /* the plan's runs */
	unsigned int max_runs; /* the cap, >= runs */
	double cv_limit_pct;   /* sample CV above this is noise */
};

/* After the runs v[0..n): is another one due? */
bool ps_noise_more_runs(const struct ps_noise_rule *r, const double *v, size_t n);
/* After the last run: is the figure noisy (two runs or more, CV above the limit)? */
bool ps_noise_noisy(const struct ps_noise_rule *r, const double *v, size_t n);

/* Decimal megabytes per second (10^6 B/s, as fio's MB/s and the seed scripts); 0 for t <= 0. */
double ps_mbps(uint64_t bytes, double seconds);

/* Operations per second; 0 for t <= 0. */
double ps_iops(uint64_t ops, double seconds);

/*
 * Latency histogram in nanoseconds, the same layout as the module's
 * (kmod's hist layout: values below 16 ns get a bucket each, every power
 * of two above is cut into 16 linear buckets, so a bucket is at most 6.25%
 * wide; the last power of two is [2^35, 2^36) ns, larger values land in the
 * last bucket). The exact minimum, maximum and sum are kept beside it.
 */
#define PS_LAT_SUB_BITS 4
#define PS_LAT_SUB	(1U << PS_LAT_SUB_BITS)
#define PS_LAT_MAX_BITS 36
#define PS_LAT_BUCKETS	((PS_LAT_MAX_BITS - PS_LAT_SUB_BITS + 1) * PS_LAT_SUB)

struct ps_lat_hist {
	uint64_t count, sum_ns, min_ns, max_ns;
	uint64_t buckets[PS_LAT_BUCKETS];
};

void ps_lat_init(struct ps_lat_hist *h);
unsigned int ps_lat_index(uint64_t ns);
uint64_t ps_lat_lower(unsigned int idx);   /* smallest value of bucket idx */
uint64_t ps_lat_highest(unsigned int idx); /* largest value of bucket idx */
void ps_lat_add(struct ps_lat_hist *h, uint64_t ns);
void ps_lat_merge(struct ps_lat_hist *dst, const struct ps_lat_hist *src);

/*
 * Nearest-rank percentile (pct in (0, 100]): the value of rank
 * ceil(count * pct / 100), given as the highest value of its bucket, clamped
 * to the exact [min, max] seen, so it never under-states a latency by more
 * than the bucket width and never exceeds the maximum. 0 when empty.
 */
uint64_t ps_lat_percentile(const struct ps_lat_hist *h, double pct);

#endif
