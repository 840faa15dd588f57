/*
 * kcapture.h - probestick.ko's interrupt-path probes for a plan: attached
 * once, a capture window per step, turned into the step's "probes" report
 * object, its view and (until the document renderer replaces it) its text.
 */
#ifndef PS_KCAPTURE_H
#define PS_KCAPTURE_H

#include "decode/hist.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <probestick.h>

struct ps_view;

struct ps_kprobes;  /* the plan's attachment */
struct ps_kcapture; /* one step's window */

/*
 * Once per plan on an open /dev/probestick: finds the probes this program
 * reads by name and patches their tracepoints in. With module_fd < 0, an
 * old module or a failure, the handle still works: its windows report
 * "available": false with the reason. NULL only when out of memory.
 */
struct ps_kprobes *ps_kprobes_attach(int module_fd);
/* Patches the tracepoints out again (closing the file does too); NULL ok. */
void ps_kprobes_detach(struct ps_kprobes *k);

/* Per step: zeroes the histograms and records. NULL only when out of memory. */
struct ps_kcapture *ps_kcapture_start(struct ps_kprobes *k);
/*
 * Stops the window, copies the histograms out and returns the step's
 * "probes" object (docs/report.md); frees c, which must not outlive its
 * ps_kprobes. Never NULL unless json-c cannot allocate;
 * ps_kcapture_stop(NULL) returns the "not loaded" object.
 */
json_object *ps_kcapture_stop(struct ps_kcapture *c);

/*
 * The same, keeping the window's records for the recorders that interpret
 * events rather than histograms (aer, mce: record/platform.h): *recs gets
 * them (NULL when no window ran); ps_kc_records_free() frees them.
 */
struct ps_kc_records;
json_object *ps_kcapture_stop_keep(struct ps_kcapture *c, struct ps_kc_records **recs);
/*
 * The records of probe name with metric (n of them), and whether that
 * probe recorded in this window (*reason says why not, else ""). NULL recs: none.
 */
const struct probestick_kc_record *ps_kc_records_get(const struct ps_kc_records *recs,
						     const char *name, uint16_t metric,
						     unsigned int *n, bool *captured,
						     const char **reason);
void ps_kc_records_free(struct ps_kc_records *recs);

/* The "probes" view (record/probes_view.c): tables of IRQ lines, disks, NICs. */
extern const struct ps_view ps_probes_view;

/* ---- the pure parts, fed by hand or by recorded windows in tests ---- */

/* records -> "probes" object; probes are what KC_PROBES listed, matched by name. */
json_object *ps_kcapture_json(const struct probestick_kc_probe *probes, unsigned int nprobes,
			      const struct probestick_kc_snapshot *snap,
			      const struct probestick_kc_record *recs, unsigned int nrecs);
json_object *ps_kcapture_unavailable(const char *reason);
/* The mask of the probes this program reads that the module lists as available. */
uint32_t ps_kcapture_mask(const struct probestick_kc_probe *probes, unsigned int nprobes);

/*
 * "0:61% 1:39%": each CPU's share of n[0..ncpus) in percent, busiest first,
 * at most max_shown CPUs, the others as "+N%"; the figures are rounded so
 * that they add up to exactly 100. "" when the total is 0. Returns buf.
 */
const char *ps_kcapture_cpu_share(const int64_t *n, size_t ncpus, int max_shown, char *buf,
				  size_t len);

#endif
