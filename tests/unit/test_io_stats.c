/* test_io_stats.c - run summaries, throughput, rounding and the latency
 * histogram (bucket bounds, nearest-rank percentiles) on tables of values. */
#include "check.h"
#include "lib/stats.h"
#include "lib/util.h"

#include <errno.h>

#define CHECK_NEAR(a, b, eps)                                                                      \
	do {                                                                                       \
		double check_x_ = (a), check_y_ = (b);                                             \
		check_count++;                                                                     \
		if (!(check_x_ - check_y_ <= (eps) && check_y_ - check_x_ <= (eps))) {             \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s is %.9f, expected %.9f\n", __FILE__, __LINE__,  \
				#a, check_x_, check_y_);                                           \
		}                                                                                  \
	} while (0)

static void test_summary(void)
{
	static const struct {
		double v[8];
		size_t n;
		double min, median, max, mean, cv;
	} cases[] = {
	    {{100, 200, 300}, 3, 100, 200, 300, 200, 50},
	    {{300, 100, 200}, 3, 100, 200, 300, 200, 50},
	    {{5, 1, 3, 2}, 4, 1, 2.5, 5, 2.75, 62.1027319149},
	    {{42}, 1, 42, 42, 42, 42, 0},
	    {{2, 4, 4, 4, 5, 5, 7, 9}, 8, 2, 4.5, 9, 5, 42.7617987060},
	    {{0, 0}, 2, 0, 0, 0, 0, 0},
	    {{250, 250, 250, 250, 250}, 5, 250, 250, 250, 250, 0},
	};
	struct ps_run_summary s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double before = cases[i].v[0];

		CHECK_INT(ps_run_summary(cases[i].v, cases[i].n, &s), 0);
		CHECK_INT(s.n, cases[i].n);
		CHECK_NEAR(s.min, cases[i].min, 1e-12);
		CHECK_NEAR(s.median, cases[i].median, 1e-12);
		CHECK_NEAR(s.max, cases[i].max, 1e-12);
		CHECK_NEAR(s.mean, cases[i].mean, 1e-12);
		CHECK_NEAR(s.cv_pct, cases[i].cv, 1e-8);
		CHECK(cases[i].v[0] == before); /* the input stays in run order */
	}
	CHECK_INT(ps_run_summary(cases[0].v, 0, &s), -EINVAL);
}

static void test_rates(void)
{
	CHECK_NEAR(ps_mbps(250000000ULL, 2.0), 125.0, 1e-12);
	CHECK_NEAR(ps_mbps(1048576ULL, 1.0), 1.048576, 1e-12);
	CHECK_NEAR(ps_mbps(1000, 0), 0, 0);
	CHECK_NEAR(ps_mbps(1000, -1), 0, 0);
	CHECK_NEAR(ps_iops(1000, 0.5), 2000, 1e-12);
	CHECK_NEAR(ps_iops(5, 0), 0, 0);
	CHECK_NEAR(ps_round(123.456, 2), 123.46, 1e-12);
	CHECK_NEAR(ps_round(123.454, 2), 123.45, 1e-12);
	CHECK_NEAR(ps_round(-1.26, 1), -1.3, 1e-12);
	CHECK_NEAR(ps_round(7.5, 0), 8, 0);
	CHECK_NEAR(ps_round(1e300, 1), 1e300, 0);
}

static void test_buckets(void)
{
	static const struct {
		uint64_t ns;
		unsigned int idx;
		uint64_t lower, highest;
	} cases[] = {
	    {0, 0, 0, 0},
	    {15, 15, 15, 15},
	    {16, 16, 16, 16},
	    {31, 31, 31, 31},
	    {32, 32, 32, 33},
	    {33, 32, 32, 33},
	    {34, 33, 34, 35},
	    {63, 47, 62, 63},
	    {64, 48, 64, 67},
	    {1000, 111, 992, 1023},
	    {1024, 112, 1024, 1087},
	    {1000000, 270, 983040, 1015807},
	    {(1ULL << 36) - 1, PS_LAT_BUCKETS - 1, 0xF8ULL << 28, UINT64_MAX},
	    {1ULL << 40, PS_LAT_BUCKETS - 1, 0xF8ULL << 28, UINT64_MAX},
	};

	CHECK_INT(PS_LAT_BUCKETS, 528);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int idx = ps_lat_index(cases[i].ns);

		CHECK_INT(idx, cases[i].idx);
		CHECK(ps_lat_lower(idx) == cases[i].lower);
		CHECK(ps_lat_highest(idx) == cases[i].highest);
	}
	/* Every value lies in its bucket, and buckets are at most 1/16 of their start wide. */
	for (uint64_t v = 1; v < (1ULL << 35); v = v * 3 / 2 + 1) {
		unsigned int idx = ps_lat_index(v);
		uint64_t lo = ps_lat_lower(idx), hi = ps_lat_highest(idx);

		CHECK(lo <= v && v <= hi);
		CHECK((hi - lo + 1) * 16 <= (lo > 16 ? lo : 16));
	}
}

static void test_percentiles(void)
{
	struct ps_lat_hist h, a, b;

	ps_lat_init(&h);
	CHECK(ps_lat_percentile(&h, 50) == 0);
	for (uint64_t v = 10; v >= 1; v--)
		ps_lat_add(&h, v);
	CHECK_INT(h.count, 10);
	CHECK_INT(h.min_ns, 1);
	CHECK_INT(h.max_ns, 10);
	CHECK_INT(h.sum_ns, 55);
	CHECK_INT(ps_lat_percentile(&h, 50), 5);
	CHECK_INT(ps_lat_percentile(&h, 90), 9);
	CHECK_INT(ps_lat_percentile(&h, 99), 10);
	CHECK_INT(ps_lat_percentile(&h, 100), 10);
	CHECK_INT(ps_lat_percentile(&h, 0.1), 1);

	/* 99 fast IOs and one slow one: p99 is fast (bucket top), p99.9 the slow one. */
	ps_lat_init(&h);
	for (int i = 0; i < 99; i++)
		ps_lat_add(&h, 1000);
	ps_lat_add(&h, 5000000);
	CHECK_INT(ps_lat_percentile(&h, 50), 1023);
	CHECK_INT(ps_lat_percentile(&h, 99), 1023);
	CHECK_INT(ps_lat_percentile(&h, 99.9), 5000000);
	CHECK_INT(ps_lat_percentile(&h, 100), 5000000);

	/* One value: every percentile is that value, not its bucket's top. */
	ps_lat_init(&h);
	ps_lat_add(&h, 1000);
	CHECK_INT(ps_lat_percentile(&h, 50), 1000);
	CHECK_INT(ps_lat_percentile(&h, 99.9), 1000);

	/* Merging keeps counts, sum and the exact extremes. */
	ps_lat_init(&a);
	ps_lat_init(&b);
	ps_lat_add(&a, 200);
	ps_lat_add(&a, 300);
	ps_lat_add(&b, 100);
	ps_lat_add(&b, 7000);
	ps_lat_merge(&a, &b);
	CHECK_INT(a.count, 4);
	CHECK_INT(a.sum_ns, 7600);
	CHECK_INT(a.min_ns, 100);
	CHECK_INT(a.max_ns, 7000);
	CHECK_INT(ps_lat_percentile(&a, 50), 207); /* rank 2 = 200, bucket [200, 207] */
	ps_lat_init(&b);
	ps_lat_merge(&a, &b);
	CHECK_INT(a.count, 4);
	CHECK_INT(a.min_ns, 100);
}

/* The noise rule: the plan's runs, more while the CV is above the limit, up to the cap. */
static void test_noise_rule(void)
{
	const struct ps_noise_rule r = {.runs = 3, .max_runs = 5, .cv_limit_pct = 10};
	const double steady[] = {100, 101, 99, 100, 100};
	const double noisy[] = {100, 200, 300, 100, 200};
	const double settles[] = {100, 110, 100, 100};
	const struct ps_noise_rule tight = {.runs = 3, .max_runs = 5, .cv_limit_pct = 5};

	/* the plan's runs always */
	CHECK(ps_noise_more_runs(&r, steady, 0));
	CHECK(ps_noise_more_runs(&r, steady, 2));
	CHECK(ps_noise_more_runs(&r, noisy, 2));
	/* then more only while noisy, never past the cap */
	CHECK(!ps_noise_more_runs(&r, steady, 3));
	CHECK(ps_noise_more_runs(&r, noisy, 3));
	CHECK(ps_noise_more_runs(&r, noisy, 4));
	CHECK(!ps_noise_more_runs(&r, noisy, 5));
	/* a figure that settles with more runs stops early and is not noisy */
	CHECK(ps_noise_more_runs(&tight, settles, 3));	/* CV 5.6 % */
	CHECK(!ps_noise_more_runs(&tight, settles, 4)); /* CV 4.9 % */
	CHECK(!ps_noise_noisy(&tight, settles, 4));
	CHECK(!ps_noise_noisy(&r, steady, 3));
	CHECK(ps_noise_noisy(&r, noisy, 5));
	/* one run says nothing about noise */
	CHECK(!ps_noise_noisy(&r, noisy, 1));
	/* a cap below the plan's runs is the plan's runs */
	{
		const struct ps_noise_rule low = {.runs = 3, .max_runs = 1, .cv_limit_pct = 10};

		CHECK(ps_noise_more_runs(&low, noisy, 2));
		CHECK(!ps_noise_more_runs(&low, noisy, 3));
	}
}

int main(void)
{
	test_noise_rule();
	test_summary();
	test_rates();
	test_buckets();
	test_percentiles();
	return check_done("test_io_stats");
}
