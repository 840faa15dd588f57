/* test_hist.c - userland decoding of probestick.ko's histogram buckets (decode/hist.c). */
#include <json-c/json.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "record/kcapture.h"

static void test_bucket_roundtrip(void)
{
	/* Every value maps to a bucket whose bounds hold it, within 6.25%. */
	static const uint64_t values[] = {0,
					  1,
					  15,
					  16,
					  17,
					  31,
					  32,
					  1000,
					  1023,
					  1024,
					  123456789,
					  1000000000,
					  59999999999ULL,
					  68719476735ULL};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint64_t v = values[i];
		unsigned int b = ps_hist_bucket_of(v);

		CHECK(ps_hist_bucket_lower(b) <= v);
		CHECK(ps_hist_bucket_highest(b) >= v);
		if (v >= 16 && b + 1 < PROBESTICK_KC_BUCKETS) /* the last one is open */
			CHECK((ps_hist_bucket_highest(b) - ps_hist_bucket_lower(b) + 1) * 16 <=
			      ps_hist_bucket_lower(b));
	}
	CHECK_INT(ps_hist_bucket_of(1000), 111);
	CHECK_INT(ps_hist_bucket_lower(111), 992);
	CHECK_INT(ps_hist_bucket_of(UINT64_MAX), PROBESTICK_KC_BUCKETS - 1);
	CHECK(ps_hist_bucket_highest(PROBESTICK_KC_BUCKETS - 1) == UINT64_MAX);
}

static void test_summary(void)
{
	uint64_t b[PROBESTICK_KC_BUCKETS] = {0};
	struct ps_hist_summary s;

	/* 900 at ~10 us, 90 at ~100 us, 9 at ~1 ms, 1 at 20 ms */
	b[ps_hist_bucket_of(10000)] = 900;
	b[ps_hist_bucket_of(100000)] = 90;
	b[ps_hist_bucket_of(1000000)] = 9;
	b[ps_hist_bucket_of(20000000)] = 1;
	ps_hist_summarize(b, PROBESTICK_KC_BUCKETS, 20000000, &s);
	CHECK_INT(s.count, 1000);
	CHECK_INT(s.p50, ps_hist_bucket_highest(ps_hist_bucket_of(10000)));
	CHECK_INT(s.p90, ps_hist_bucket_highest(ps_hist_bucket_of(10000)));
	CHECK_INT(s.p99, ps_hist_bucket_highest(ps_hist_bucket_of(100000)));
	CHECK_INT(s.p999, ps_hist_bucket_highest(ps_hist_bucket_of(1000000)));
	CHECK_INT(s.max, 20000000);
	/* a few percent: p50 of 10 us values reads at most 6.25% high */
	CHECK(s.p50 >= 10000 && s.p50 <= 10625);

	memset(b, 0, sizeof(b));
	ps_hist_summarize(b, PROBESTICK_KC_BUCKETS, 0, &s);
	CHECK_INT(s.count, 0);
	CHECK_INT(s.p99, 0);
}

static void test_json_only_nonempty_buckets(void)
{
	uint64_t b[PROBESTICK_KC_BUCKETS] = {0};
	json_object *o, *v, *buckets, *pair;

	b[ps_hist_bucket_of(5)] = 2;
	b[ps_hist_bucket_of(3000)] = 7;
	o = ps_hist_json(b, PROBESTICK_KC_BUCKETS, 2 * 5 + 7 * 3000, 3010, "ns");
	CHECK(json_object_object_get_ex(o, "buckets", &buckets));
	CHECK_INT(json_object_array_length(buckets), 2);
	pair = json_object_array_get_idx(buckets, 1);
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(pair, 0)),
		  ps_hist_bucket_lower(ps_hist_bucket_of(3000)));
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(pair, 1)), 7);
	CHECK(json_object_object_get_ex(o, "count", &v));
	CHECK_INT(json_object_get_int64(v), 9);
	CHECK(json_object_object_get_ex(o, "mean", &v));
	CHECK_INT(json_object_get_int64(v), (2 * 5 + 7 * 3000) / 9);
	CHECK(json_object_object_get_ex(o, "max", &v));
	CHECK_INT(json_object_get_int64(v), 3010);
	CHECK(json_object_object_get_ex(o, "p99_9", &v));
	CHECK_INT(json_object_get_int64(v), 3010); /* clamped to the exact max */
	CHECK(json_object_object_get_ex(o, "unit", &v));
	CHECK_STR(json_object_get_string(v), "ns");
	json_object_put(o);
}

static void test_fmt(void)
{
	char buf[16];

	CHECK_STR(ps_hist_fmt_ns(buf, sizeof(buf), 850), "850ns");
	CHECK_STR(ps_hist_fmt_ns(buf, sizeof(buf), 12300), "12.3us");
	CHECK_STR(ps_hist_fmt_ns(buf, sizeof(buf), 4560000), "4.56ms");
	CHECK_STR(ps_hist_fmt_ns(buf, sizeof(buf), 1200000000), "1.2s");
}

int main(void)
{
	test_bucket_roundtrip();
	test_summary();
	test_json_only_nonempty_buckets();
	test_fmt();
	return check_done("test_hist");
}
