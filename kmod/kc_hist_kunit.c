// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite probestick_hist: the log-linear bucket layout shared with the
 * userland (hist_layout.h), the per-CPU merge and percentile extraction.
 */
#include <kunit/test.h>

#include "hist_layout.h"
#include "uapi/probestick.h"

static void ps_hist_index_small_values_exact(struct kunit *test)
{
	u64 v;

	for (v = 0; v < 32; v++) {
		KUNIT_EXPECT_EQ(test, ps_hist_index(v), (unsigned int)v);
		KUNIT_EXPECT_EQ(test, ps_hist_lower(ps_hist_index(v)), v);
	}
}

struct ps_hist_case {
	u64 value;
	unsigned int index;
	u64 lower;
	u64 highest;
};

/* Hand-computed: 1000 = 0b1111101000, k = 9, sub = 1000 >> 5 & 15 = 15. */
static const struct ps_hist_case ps_hist_cases[] = {
	{ 16, 16, 16, 16 },
	{ 33, 32, 32, 33 },
	{ 1000, 111, 992, 1023 },
	{ 1024, 112, 1024, 1087 },
	{ 1000000, 270, 983040, 1015807 },	/* 1 ms */
	{ 60000000000ULL, 523, 57982058496ULL, 60129542143ULL },	/* 60 s */
	{ ~0ULL, 527, 0, 0 },			/* beyond range: clamped */
};

static void ps_hist_case_desc(const struct ps_hist_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "value %llu", c->value);
}

KUNIT_ARRAY_PARAM(ps_hist, ps_hist_cases, ps_hist_case_desc);

static void ps_hist_index_known_values(struct kunit *test)
{
	const struct ps_hist_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ps_hist_index(c->value), c->index);
	if (c->index == PS_HIST_BUCKETS - 1)
		return;
	KUNIT_EXPECT_EQ(test, ps_hist_lower(c->index), c->lower);
	KUNIT_EXPECT_EQ(test, ps_hist_highest(c->index), c->highest);
}

/* Every bucket holds exactly [lower, highest], contiguous, at most 6.25% wide. */
static void ps_hist_layout_contiguous_bounded_error(struct kunit *test)
{
	unsigned int i;
	u64 lo, hi;

	KUNIT_EXPECT_EQ(test, PS_HIST_BUCKETS, PROBESTICK_KC_BUCKETS);
	for (i = 0; i + 1 < PS_HIST_BUCKETS; i++) {
		lo = ps_hist_lower(i);
		hi = ps_hist_highest(i);
		KUNIT_EXPECT_EQ(test, ps_hist_index(lo), i);
		KUNIT_EXPECT_EQ(test, ps_hist_index(hi), i);
		KUNIT_EXPECT_EQ(test, ps_hist_lower(i + 1), hi + 1);
		if (lo >= 16)
			KUNIT_EXPECT_LE(test, (hi - lo + 1) * 16, lo);
	}
	/* 1 ns .. ~60 s: 60 s still fits below the open last bucket's start. */
	KUNIT_EXPECT_LE(test, ps_hist_lower(PS_HIST_BUCKETS - 1), 68719476736ULL);
	KUNIT_EXPECT_GT(test, ps_hist_lower(PS_HIST_BUCKETS - 1), 60000000000ULL);
}

static void ps_hist_merge_sums_cpus(struct kunit *test)
{
	u32 cpu0[PS_HIST_BUCKETS] = { 0 }, cpu1[PS_HIST_BUCKETS] = { 0 };
	u64 total[PS_HIST_BUCKETS] = { 0 };

	cpu0[ps_hist_index(100)] = 3;
	cpu0[ps_hist_index(5000)] = 0xffffffffU;	/* full 32-bit bucket */
	cpu1[ps_hist_index(100)] = 4;
	cpu1[PS_HIST_BUCKETS - 1] = 1;
	KUNIT_EXPECT_EQ(test, ps_hist_merge(total, cpu0, PS_HIST_BUCKETS), 3ULL + 0xffffffffULL);
	KUNIT_EXPECT_EQ(test, ps_hist_merge(total, cpu1, PS_HIST_BUCKETS), 5ULL);
	KUNIT_EXPECT_EQ(test, total[ps_hist_index(100)], 7ULL);
	KUNIT_EXPECT_EQ(test, total[ps_hist_index(5000)], 0xffffffffULL);
	KUNIT_EXPECT_EQ(test, total[PS_HIST_BUCKETS - 1], 1ULL);
}

static void ps_hist_percentile_nearest_rank(struct kunit *test)
{
	u64 b[PS_HIST_BUCKETS] = { 0 };
	u64 v;

	/* 1..100 ns, one each: exact below 16, bucketed above. */
	for (v = 1; v <= 100; v++)
		b[ps_hist_index(v)]++;
	KUNIT_EXPECT_EQ(test, ps_hist_percentile(b, PS_HIST_BUCKETS, 100, 100, 100000), 10ULL);
	/* rank 50 lands in [48, 51]: reported as its highest value */
	KUNIT_EXPECT_EQ(test, ps_hist_percentile(b, PS_HIST_BUCKETS, 100, 100, 500000), 51ULL);
	KUNIT_EXPECT_EQ(test, ps_hist_percentile(b, PS_HIST_BUCKETS, 100, 100, 990000), 99ULL);
	/* the top bucket [100, 103] is clamped to the exact maximum */
	KUNIT_EXPECT_EQ(test, ps_hist_percentile(b, PS_HIST_BUCKETS, 100, 100, 1000000), 100ULL);
	KUNIT_EXPECT_EQ(test, ps_hist_percentile(b, PS_HIST_BUCKETS, 100, 100, 999000), 100ULL);
}

static void ps_hist_percentile_empty_and_skewed(struct kunit *test)
{
	u64 b[PS_HIST_BUCKETS] = { 0 };

	KUNIT_EXPECT_EQ(test, ps_hist_percentile_index(b, PS_HIST_BUCKETS, 0, 500000), -1);
	KUNIT_EXPECT_EQ(test, ps_hist_percentile(b, PS_HIST_BUCKETS, 0, 0, 990000), 0ULL);
	/* 999 fast, 1 slow: p99.9 is fast, only max-side ranks see the outlier */
	b[ps_hist_index(2000)] = 999;
	b[ps_hist_index(5000000)] = 1;
	KUNIT_EXPECT_EQ(test, ps_hist_percentile_index(b, PS_HIST_BUCKETS, 1000, 999000),
			(int)ps_hist_index(2000));
	KUNIT_EXPECT_EQ(test, ps_hist_percentile(b, PS_HIST_BUCKETS, 1000, 5000000, 999001),
			5000000ULL);
	/* totals beyond 2^44 must not overflow the rank */
	b[ps_hist_index(2000)] = 1ULL << 50;
	KUNIT_EXPECT_EQ(test, ps_hist_percentile_index(b, PS_HIST_BUCKETS, (1ULL << 50) + 1,
						       999999), (int)ps_hist_index(2000));
}

static struct kunit_case ps_hist_test_cases[] = {
	KUNIT_CASE(ps_hist_index_small_values_exact),
	KUNIT_CASE_PARAM(ps_hist_index_known_values, ps_hist_gen_params),
	KUNIT_CASE(ps_hist_layout_contiguous_bounded_error),
	KUNIT_CASE(ps_hist_merge_sums_cpus),
	KUNIT_CASE(ps_hist_percentile_nearest_rank),
	KUNIT_CASE(ps_hist_percentile_empty_and_skewed),
	{}
};

static struct kunit_suite ps_hist_test_suite = {
	.name = "probestick_hist",
	.test_cases = ps_hist_test_cases,
};

kunit_test_suite(ps_hist_test_suite);
