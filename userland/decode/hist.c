/*
 * hist.c - probestick.ko's log-linear histogram buckets back into
 * values, percentiles and JSON; the layout is the module's own header.
 */
#include <inttypes.h>
#include <stdio.h>

#include "../../kmod/hist_layout.h"
#include "decode/hist.h"

unsigned int ps_hist_bucket_of(uint64_t value)
{
	return ps_hist_index(value);
}

uint64_t ps_hist_bucket_lower(unsigned int idx)
{
	return ps_hist_lower(idx);
}

uint64_t ps_hist_bucket_highest(unsigned int idx)
{
	return ps_hist_highest(idx);
}

void ps_hist_summarize(const uint64_t *buckets, unsigned int nr, uint64_t max,
		       struct ps_hist_summary *s)
{
	unsigned int i;

	s->count = 0;
	for (i = 0; i < nr; i++)
		s->count += buckets[i];
	s->max = max;
	s->p50 = ps_hist_percentile(buckets, nr, s->count, max, 500000);
	s->p90 = ps_hist_percentile(buckets, nr, s->count, max, 900000);
	s->p99 = ps_hist_percentile(buckets, nr, s->count, max, 990000);
	s->p999 = ps_hist_percentile(buckets, nr, s->count, max, 999000);
}

json_object *ps_hist_json(const uint64_t *buckets, unsigned int nr, uint64_t sum, uint64_t max,
			  const char *unit)
{
	struct ps_hist_summary s;
	json_object *o = json_object_new_object(), *b = json_object_new_array(), *pair;
	unsigned int i;

	ps_hist_summarize(buckets, nr, max, &s);
	json_object_object_add(o, "unit", json_object_new_string(unit));
	json_object_object_add(o, "count", json_object_new_int64((int64_t)s.count));
	json_object_object_add(o, "mean",
			       json_object_new_int64(s.count ? (int64_t)(sum / s.count) : 0));
	json_object_object_add(o, "p50", json_object_new_int64((int64_t)s.p50));
	json_object_object_add(o, "p90", json_object_new_int64((int64_t)s.p90));
	json_object_object_add(o, "p99", json_object_new_int64((int64_t)s.p99));
	json_object_object_add(o, "p99_9", json_object_new_int64((int64_t)s.p999));
	json_object_object_add(o, "max", json_object_new_int64((int64_t)s.max));
	for (i = 0; i < nr; i++) {
		if (!buckets[i])
			continue;
		pair = json_object_new_array();
		json_object_array_add(pair, json_object_new_int64((int64_t)ps_hist_lower(i)));
		json_object_array_add(pair, json_object_new_int64((int64_t)buckets[i]));
		json_object_array_add(b, pair);
	}
	json_object_object_add(o, "buckets", b);
	return o;
}

const char *ps_hist_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.3gus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.3gms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3gs", (double)ns / 1e9);
	return buf;
}
