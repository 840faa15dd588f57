/* hist.h - probestick.ko's log-linear histogram buckets back into values,
 * percentiles and JSON (kmod/hist_layout.h), pure (hist.c). */
#ifndef PS_DECODE_HIST_H
#define PS_DECODE_HIST_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

struct ps_hist_summary {
	uint64_t count, max;
	uint64_t p50, p90, p99, p999;
};

unsigned int ps_hist_bucket_of(uint64_t value);
uint64_t ps_hist_bucket_lower(unsigned int idx);
uint64_t ps_hist_bucket_highest(unsigned int idx);
void ps_hist_summarize(const uint64_t *buckets, unsigned int nr, uint64_t max,
		       struct ps_hist_summary *s);
/* {"unit", "count", "mean", "p50", "p90", "p99", "p99_9", "max", "buckets": [[lower, n]...]} */
json_object *ps_hist_json(const uint64_t *buckets, unsigned int nr, uint64_t sum, uint64_t max,
			  const char *unit);
/* "850ns", "12.3us", "4.56ms", "1.20s" into buf (>= 10 bytes). */
const char *ps_hist_fmt_ns(char *buf, size_t len, uint64_t ns);

#endif
