/*
 * sampler.h - per-step CPU time and interrupt sampler over /proc/stat and
 * /proc/interrupts: the runner wraps each step in start/stop to get steps[].load.
 */
#ifndef PS_SAMPLER_H
#define PS_SAMPLER_H

#include <json-c/json.h>
#include <stdio.h>

#define PS_SAMPLER_INTERVAL_MS 1000
#define PS_SAMPLER_SERIES_MAX  3600 /* series[] entries; longer steps are downsampled */
#define PS_SAMPLER_IRQS_MAX    32   /* irqs[] lines; the rest go to irqs_other */
#define PS_SAMPLER_NOTES_MAX   32

struct ps_sampler;

/*
 * Takes the first sample of root/proc/stat and root/proc/interrupts now,
 * then samples every interval_ms (0: PS_SAMPLER_INTERVAL_MS) on a thread.
 * Missing files are not an error: the load object will say so. Returns
 * NULL only when out of memory; ps_sampler_stop(NULL) is valid.
 */
struct ps_sampler *ps_sampler_start(const char *root, unsigned int interval_ms);

/*
 * The same, and hook(arg) after every sample, on the sampler's thread (and
 * for the first and last samples on the caller's): another recorder that
 * samples at the same instants (record/sensors.c). hook may be NULL.
 */
struct ps_sampler *ps_sampler_start_hooked(const char *root, unsigned int interval_ms,
					   void (*hook)(void *arg), void *arg);

/*
 * Stops the thread (promptly: it waits on a condition variable), takes the
 * final sample and returns the step's "load" object (see docs/report.md);
 * frees s. Never NULL unless json-c cannot allocate.
 */
json_object *ps_sampler_stop(struct ps_sampler *s);

/*
 * The accumulation behind the sampler, fed by hand with recorded texts
 * (unit tests, replays). t is seconds on a monotonic clock. A file that
 * could not be read is passed as text NULL and err a negative errno.
 * ps_load_acc_finish() builds the load object and frees acc.
 */
struct ps_load_acc;
struct ps_load_acc *ps_load_acc_new(unsigned int interval_ms);
int ps_load_acc_add(struct ps_load_acc *acc, double t, const char *stat, size_t stat_len,
		    int stat_err, const char *intr, size_t intr_len, int intr_err);
json_object *ps_load_acc_finish(struct ps_load_acc *acc);

/* How a step's "load" object is shown (record/load_view.c). */
struct ps_view;
extern const struct ps_view ps_load_view;

#endif
