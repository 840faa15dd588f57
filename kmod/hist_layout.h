/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The log-linear bucket layout of probestick's histograms,
 * plain C shared by probestick.ko (which fills buckets) and the userland
 * (which turns them back into values and percentiles).
 */
#ifndef PROBESTICK_HIST_LAYOUT_H
#define PROBESTICK_HIST_LAYOUT_H

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/types.h>
#else
#include <stdint.h>
#endif

/*
 * Values below 2^PS_HIST_SUB_BITS have a bucket each; above, every power of
 * two is split into 2^PS_HIST_SUB_BITS linear buckets, so a bucket is at
 * most 1/16 = 6.25% wide relative to its lower bound (HDR-like). The last
 * power of two is [2^35, 2^36) ns = 34..69 s; larger values land in the
 * last bucket (the exact maximum is kept beside the buckets).
 */
#define PS_HIST_SUB_BITS 4
#define PS_HIST_SUB (1U << PS_HIST_SUB_BITS)
#define PS_HIST_MAX_BITS 36
#define PS_HIST_BUCKETS ((PS_HIST_MAX_BITS - PS_HIST_SUB_BITS + 1) * PS_HIST_SUB)

static inline unsigned int ps_hist_index(uint64_t v)
{
	unsigned int k, idx;

	if (v < PS_HIST_SUB)
		return (unsigned int)v;
	k = 63 - (unsigned int)__builtin_clzll(v);
	if (k >= PS_HIST_MAX_BITS)
		return PS_HIST_BUCKETS - 1;
	idx = (k - PS_HIST_SUB_BITS + 1) * PS_HIST_SUB;
	return idx + (unsigned int)((v >> (k - PS_HIST_SUB_BITS)) & (PS_HIST_SUB - 1));
}

/* Smallest value that falls in bucket idx. */
static inline uint64_t ps_hist_lower(unsigned int idx)
{
	unsigned int k;

	if (idx < PS_HIST_SUB)
		return idx;
	k = idx / PS_HIST_SUB + PS_HIST_SUB_BITS - 1;
	return (uint64_t)(PS_HIST_SUB + idx % PS_HIST_SUB) << (k - PS_HIST_SUB_BITS);
}

/* Largest value that falls in bucket idx (the last bucket is open-ended). */
static inline uint64_t ps_hist_highest(unsigned int idx)
{
	if (idx + 1 >= PS_HIST_BUCKETS)
		return ~(uint64_t)0;
	return ps_hist_lower(idx + 1) - 1;
}

/* A bucket may be incremented on its CPU while another CPU merges it. */
#ifdef __KERNEL__
#define ps_hist_load(p) READ_ONCE(*(p))
#else
#define ps_hist_load(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#endif

/*
 * Adds one CPU's 32-bit buckets into 64-bit totals (the merge on read);
 * returns how many values they held.
 */
static inline uint64_t ps_hist_merge(uint64_t *dst, const uint32_t *src, unsigned int nr)
{
	uint64_t count = 0;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		uint64_t v = ps_hist_load(&src[i]);

		dst[i] += v;
		count += v;
	}
	return count;
}

/*
 * Bucket holding the value of rank ceil(total * ppm / 10^6) (nearest-rank
 * percentile, ppm = parts per million: 500000 is the median); -1 when
 * the histogram is empty. total * ppm is split so it cannot overflow.
 */
static inline int ps_hist_percentile_index(const uint64_t *buckets, unsigned int nr,
					   uint64_t total, uint32_t ppm)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (!total || !nr)
		return -1;
	if (ppm > 1000000)
		ppm = 1000000;
	rank = total / 1000000 * ppm + ((total % 1000000) * ppm + 999999) / 1000000;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < nr; i++) {
		seen += buckets[i];
		if (seen >= rank)
			return (int)i;
	}
	return (int)nr - 1;
}

/*
 * The value reported for a percentile: the highest value of its bucket
 * (never understating a latency), but never above the exact maximum.
 */
static inline uint64_t ps_hist_percentile(const uint64_t *buckets, unsigned int nr, uint64_t total,
					  uint64_t max, uint32_t ppm)
{
	int idx = ps_hist_percentile_index(buckets, nr, total, ppm);
	uint64_t v;

	if (idx < 0)
		return 0;
	v = ps_hist_highest((unsigned int)idx);
	return v < max ? v : max;
}

#endif /* PROBESTICK_HIST_LAYOUT_H */
