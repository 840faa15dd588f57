/*
 * kcapture.h - per-step capture windows of probestick.ko's interrupt-path
 * probes, turned into the step's "probes" report object and its text view.
 */
#ifndef PS_KCAPTURE_H
#define PS_KCAPTURE_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include <probestick.h>

struct ps_kcapture;

/*
 * Starts a window for the probes in mask (PROBESTICK_KC_*) on an open
 * /dev/probestick. A window left running by a killed run is stopped and
 * replaced. With module_fd < 0, an old module or a failed start, the
 * handle still works: stop then returns {"available": false, "reason"}.
 * NULL only when out of memory.
 */
struct ps_kcapture *ps_kcapture_start(int module_fd, unsigned int mask);

/*
 * Stops the window, copies the histograms out and returns the step's
 * "probes" object (docs/report.md); frees c. Never NULL unless json-c
 * cannot allocate. ps_kcapture_stop(NULL) returns the "not loaded" object.
 */
json_object *ps_kcapture_stop(struct ps_kcapture *c);

/* The busiest max_lines IRQ lines, disks and NICs with percentiles, <= 80 columns. */
void ps_kcapture_text(FILE *f, json_object *probes, int max_lines);

/* The pure part of stop, fed by hand in tests: records -> "probes" object. */
json_object *ps_kcapture_json(const struct probestick_kc_probe *probes, unsigned int nprobes,
			      const struct probestick_kc_snapshot *snap,
			      const struct probestick_kc_record *recs, unsigned int nrecs);
json_object *ps_kcapture_unavailable(const char *reason);

/* hist_decode.c: the module's buckets back into values (kmod/hist_layout.h). */
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
