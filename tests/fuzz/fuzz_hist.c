/*
 * fuzz_hist.c - histogram buckets as probestick.ko hands them over (any
 * counts, any maximum): ps_hist_summarize, ps_hist_json, ps_hist_fmt_ns.
 * Input: max, sum, then up to PS_HIST_BUCKETS bucket counts, 8 bytes each.
 */
// fuzz-sources: decode/hist.c
#include "fuzz.h"

#include "../../kmod/hist_layout.h"
#include "record/kcapture.h"

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t buckets[PS_HIST_BUCKETS], max, sum;
	unsigned int nr = 0;
	struct ps_hist_summary s;
	json_object *o;
	char buf[16];

	if (size < 16)
		return 0;
	max = u64_at(data);
	sum = u64_at(data + 8);
	for (size_t off = 16; off + 8 <= size && nr < PS_HIST_BUCKETS; off += 8)
		buckets[nr++] = u64_at(data + off);

	ps_hist_summarize(buckets, nr, max, &s);
	FUZZ_CHECK(s.max == max);
	FUZZ_CHECK(s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p999 && s.p999 <= max);
	o = ps_hist_json(buckets, nr, sum, max, "ns");
	FUZZ_CHECK(o);
	json_object_put(o);

	/* Every value lands in a bucket whose bounds hold it. */
	for (unsigned int i = 0; i < 3; i++) {
		uint64_t v = i == 0 ? max : i == 1 ? sum : (nr ? buckets[0] : 0);
		unsigned int b = ps_hist_bucket_of(v);

		FUZZ_CHECK(b < PS_HIST_BUCKETS);
		FUZZ_CHECK(ps_hist_bucket_lower(b) <= v && v <= ps_hist_bucket_highest(b));
		ps_hist_fmt_ns(buf, sizeof(buf), v);
		FUZZ_CHECK(strnlen(buf, sizeof(buf)) < sizeof(buf));
	}
	return 0;
}
