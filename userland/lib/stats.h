/* stats.h - pure arithmetic for measurements: summaries of repeated runs
 * (min/median/max/CV), the noise rule and the figure every measuring step
 * reports, throughput, and a log-linear latency histogram. */
#ifndef PS_IO_STATS_H
#define PS_IO_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Summary of n repeated measurements of the same thing. */
struct ps_run_summary {
	size_t n;
	double min, median, max, mean;
	double cv_pct; /* sample standard deviation / mean * 100; 0 for n == 1 or mean 0 */
};

/* Fills *s from v[0..n); the input is not modified. -EINVAL when n is 0. */
int ps_run_summary(const double *v, size_t n, struct ps_run_summary *s);

/*
 * Repeat a figure until it is steady, as the Phoronix Test Suite does: a
 * warm-up run whose figure is kept but not counted, the plan's runs; while
 * the runs' CV stays above the limit, more runs up to a cap; a figure still
 * above it then is "noisy" (reported, not hidden). engines/measure.c runs
 * the loop; these are its pure decisions.
 */
struct ps_noise_rule {
	unsigned int warmup;   /* runs first, not counted (0 or 1) */
	unsigned int runs;     /* the plan's runs */
	unsigned int max_runs; /* the cap, >= runs */
	double cv_limit_pct;   /* sample CV above this is noise */
	double budget_s;       /* 0, or: no run starts past this (after at least min_runs) */
	unsigned int min_runs; /* what the budget leaves at least (0: runs) */
};

/* After the runs v[0..n): is another one due? */
bool ps_noise_more_runs(const struct ps_noise_rule *r, const double *v, size_t n);
/* After the last run: is the figure noisy (two runs or more, CV above the limit)? */
bool ps_noise_noisy(const struct ps_noise_rule *r, const double *v, size_t n);

/*
 * A figure whose runs vary by more than this much (CV, %) is worth a word
 * in the report even when it is not noisy by the plan's own limit: another
 * load, or a device that is not steady (core/findings.c, ps_find_unstable).
 */
#define PS_UNSTABLE_CV_PCT 20.0

/*
 * One measured figure over repeated runs, the one type every step that
 * repeats a measurement reports (its JSON form: lib/fields.h, PS_FT_FIGURE;
 * its view columns: report/view.h, PS_COLS_FIGURE).
 */
#define PS_FIGURE_MAX_RUNS 64
struct ps_figure {
	unsigned int n;		      /* runs counted */
	double v[PS_FIGURE_MAX_RUNS]; /* each run's figure, in order */
	double min, median, max;      /* NAN when n is 0 */
	double cv_pct;		 /* sample CV in %; NAN under two runs: one run has no spread */
	unsigned int extra_runs; /* runs the noise rule added past the plan's */
	bool noisy;		 /* still above the rule's limit after them */
	double warmup;		 /* the warm-up run's figure, NAN without one */
};

/* An empty figure: no runs, every summary NAN. */
void ps_figure_init(struct ps_figure *f);
/* Add one run's figure (beyond PS_FIGURE_MAX_RUNS: dropped). */
void ps_figure_add(struct ps_figure *f, double v);
/* Summarise the runs: min, median, max, CV, and under rule (NULL: none) extra runs and noisy. */
void ps_figure_finish(struct ps_figure *f, const struct ps_noise_rule *rule);

/* The JSON members of a figure named NAME ("mbps"): runs_mbps, min_mbps, ... */
#define PS_FIGURE_RUNS(name)   "runs_" name
#define PS_FIGURE_MIN(name)    "min_" name
#define PS_FIGURE_MEDIAN(name) "median_" name
#define PS_FIGURE_MAX(name)    "max_" name
#define PS_FIGURE_WARMUP(name) "warmup_" name
#define PS_FIGURE_CV	       "cv_pct"
#define PS_FIGURE_EXTRA	       "extra_runs"
#define PS_FIGURE_NOISY	       "noisy"

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
