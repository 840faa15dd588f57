/* stats.c - summaries of repeated runs and latency histograms; no I/O here,
 * so tests/unit/test_io_stats.c checks every figure on tables. */
#include "lib/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Newton's method: the userland links no libm, and this runs a few times per step. */
static double sqrt_pos(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++) {
		double next = (r + x / r) / 2;

		if (next >= r)
			break;
		r = next;
	}
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int ps_run_summary(const double *v, size_t n, struct ps_run_summary *s)
{
	double *sorted, sum = 0, sq = 0;

	memset(s, 0, sizeof(*s));
	if (n == 0)
		return -EINVAL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	s->n = n;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	for (size_t i = 0; i < n; i++)
		sum += sorted[i];
	s->mean = sum / (double)n;
	/* Sample deviation (n - 1): a handful of runs estimates a drive's spread. */
	if (n > 1 && s->mean != 0) {
		for (size_t i = 0; i < n; i++)
			sq += (sorted[i] - s->mean) * (sorted[i] - s->mean);
		s->cv_pct =
		    sqrt_pos(sq / (double)(n - 1)) / (s->mean < 0 ? -s->mean : s->mean) * 100.0;
	}
	free(sorted);
	return 0;
}

static double cv_of(const double *v, size_t n)
{
	struct ps_run_summary s;

	return n > 1 && ps_run_summary(v, n, &s) == 0 ? s.cv_pct : 0;
}

bool ps_noise_more_runs(const struct ps_noise_rule *r, const double *v, size_t n)
{
	unsigned int cap = r->max_runs > r->runs ? r->max_runs : r->runs;

	if (n < r->runs)
		return true;
	return n < cap && cv_of(v, n) > r->cv_limit_pct;
}

bool ps_noise_noisy(const struct ps_noise_rule *r, const double *v, size_t n)
{
	return n > 1 && cv_of(v, n) > r->cv_limit_pct;
}

void ps_figure_init(struct ps_figure *f)
{
	memset(f, 0, sizeof(*f));
	f->min = f->median = f->max = f->cv_pct = f->warmup = NAN;
}

void ps_figure_add(struct ps_figure *f, double v)
{
	if (f->n < PS_FIGURE_MAX_RUNS)
		f->v[f->n++] = v;
}

void ps_figure_finish(struct ps_figure *f, const struct ps_noise_rule *rule)
{
	struct ps_run_summary s;

	f->min = f->median = f->max = f->cv_pct = NAN;
	f->extra_runs = 0;
	f->noisy = false;
	if (ps_run_summary(f->v, f->n, &s) < 0)
		return;
	f->min = s.min;
	f->median = s.median;
	f->max = s.max;
	if (f->n > 1)
		f->cv_pct = s.cv_pct;
	if (rule) {
		f->extra_runs = f->n > rule->runs ? f->n - rule->runs : 0;
		f->noisy = ps_noise_noisy(rule, f->v, f->n);
	}
}

double ps_mbps(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes / seconds / 1e6 : 0;
}

double ps_iops(uint64_t ops, double seconds)
{
	return seconds > 0 ? (double)ops / seconds : 0;
}

void ps_lat_init(struct ps_lat_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

unsigned int ps_lat_index(uint64_t ns)
{
	unsigned int k;

	if (ns < PS_LAT_SUB)
		return (unsigned int)ns;
	k = 63 - (unsigned int)__builtin_clzll(ns);
	if (k >= PS_LAT_MAX_BITS)
		return PS_LAT_BUCKETS - 1;
	return (k - PS_LAT_SUB_BITS + 1) * PS_LAT_SUB +
	       (unsigned int)((ns >> (k - PS_LAT_SUB_BITS)) & (PS_LAT_SUB - 1));
}

uint64_t ps_lat_lower(unsigned int idx)
{
	unsigned int k;

	if (idx < PS_LAT_SUB)
		return idx;
	k = idx / PS_LAT_SUB + PS_LAT_SUB_BITS - 1;
	return (uint64_t)(PS_LAT_SUB + idx % PS_LAT_SUB) << (k - PS_LAT_SUB_BITS);
}

uint64_t ps_lat_highest(unsigned int idx)
{
	if (idx + 1 >= PS_LAT_BUCKETS)
		return UINT64_MAX;
	return ps_lat_lower(idx + 1) - 1;
}

void ps_lat_add(struct ps_lat_hist *h, uint64_t ns)
{
	h->buckets[ps_lat_index(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void ps_lat_merge(struct ps_lat_hist *dst, const struct ps_lat_hist *src)
{
	if (!src->count)
		return;
	for (unsigned int i = 0; i < PS_LAT_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t ps_lat_percentile(const struct ps_lat_hist *h, double pct)
{
	uint64_t rank, seen = 0, v, ppm;

	if (!h->count)
		return 0;
	if (pct >= 100)
		return h->max_ns;
	/* In parts per million, integer ceil: 50% of 10 is rank 5 exactly, not 6. */
	ppm = pct <= 0 ? 0 : (uint64_t)(pct * 10000 + 0.5);
	rank = (h->count * ppm + 999999) / 1000000;
	if (rank < 1)
		rank = 1;
	for (unsigned int i = 0; i < PS_LAT_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			v = ps_lat_highest(i);
			if (v > h->max_ns)
				v = h->max_ns;
			if (v < h->min_ns)
				v = h->min_ns;
			return v;
		}
	}
	return h->max_ns;
}
