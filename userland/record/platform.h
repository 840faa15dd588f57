/*
 * platform.h - the recorders that watch the platform's own error reporting
 * and environment around every step: the PCIe links (links.c), AER
 * (aer.c), machine checks (mce.c), ECC (edac.c), and sensors, throttling
 * and CPU frequency (sensors.c, sampled on the load sampler's thread).
 * Each gives one member of steps[] (docs/report.md) with its view, and
 * carries what it found as "findings" in that member, which the runner
 * makes the step's findings ("<member>.<rule>") and takes out.
 */
#ifndef PS_RECORD_PLATFORM_H
#define PS_RECORD_PLATFORM_H

#include "hw/inventory.h"
#include "report/view.h"

#include <json-c/json.h>
#include <probestick.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- a finding as a recorder states it (platform.c) ---- */

/* Append {severity, rule, kind, device, subject, message, value, limit, unit} to findings. */
void ps_rec_find(json_object *findings, const char *severity, const char *rule,
		 const struct ps_dev_ref *dev, double value, double limit, const char *unit,
		 const char *fmt, ...) __attribute__((format(printf, 8, 9)));
/* The inventory's device at a PCI address: its link when it has one, else the machine. */
struct ps_dev_ref ps_rec_pci_ref(const struct ps_inventory *inv, const char *address);

/* ---- links.c: every PCIe link at the step's start and end ---- */

/* One link's state as its registers (or sysfs) give it; unknown fields -1. */
struct ps_link_state {
	char address[16];
	int speed;	/* speed code 1..6, 0 unknown */
	int width;	/* lanes; 0 down, -1 unknown */
	int dl_active;	/* LnkSta DLLLA where the port reports it, else -1 */
	int lbms, labs; /* LnkSta bandwidth status where notification exists, else -1 */
	int training;	/* LnkSta Link Training, -1 unknown */
};

struct ps_links;
/*
 * Snapshot every function with a link now: from the module (live registers)
 * or sysfs. inv (may be NULL): its idle links are watched during the step.
 */
struct ps_links *ps_links_start(const char *root, int module_fd, const struct ps_inventory *inv);
/* Read the idle links again, with the step's load (a sampler hook; l may be NULL). */
void ps_links_sample(void *arg);
/* Snapshot again and compare: the step's "links" object, with its findings. Frees l. */
json_object *ps_links_stop(struct ps_links *l, const struct ps_inventory *inv);
/* Read the states (pure parts below are fed recorded ones). 0 or -errno. */
int ps_links_read(const char *root, int module_fd, struct ps_link_state **out, size_t *n,
		  const char **source);
/* start vs end into a "links" object (pure). */
json_object *ps_links_compare(const struct ps_link_state *a, size_t na,
			      const struct ps_link_state *b, size_t nb, const char *source,
			      const struct ps_inventory *inv);
extern const struct ps_view ps_links_view;

/* ---- aer.c: AER counters per device and the aer probe's events ---- */

/* One device's AER counters (sysfs aer_dev_*): name and count pairs per severity. */
#define PS_AER_NAMES 32
struct ps_aer_counts {
	char address[16];
	int n[3]; /* per severity: 0 correctable, 1 non-fatal, 2 fatal */
	char name[3][PS_AER_NAMES][24];
	uint64_t count[3][PS_AER_NAMES];
	int64_t total[3];    /* TOTAL_ERR_COR / _NONFATAL / _FATAL, -1 absent */
	int64_t rootport[3]; /* aer_rootport_total_err_cor/nonfatal/fatal, -1 absent */
};

/* Parse an aer_dev_* file ("RxErr 0\nBadTLP 2\n...TOTAL_ERR_COR 2"). Pure; 0 or -EINVAL. */
int ps_aer_parse(const char *text, int severity, struct ps_aer_counts *c);
/*
 * Names of the set bits of an AER status register for the kernel's
 * aer_event severity (0 non-fatal, 1 fatal, 2 corrected), comma-separated
 * as the kernel prints them ("BadTLP, RxErr"). Pure; returns out.
 */
const char *ps_aer_status_names(unsigned int severity, uint32_t status, char *out, size_t len);

struct ps_aer;
struct ps_aer *ps_aer_start(const char *root);
/* recs: the step's capture window (the aer probe's records), or NULL. Frees a. */
struct ps_kc_records;
json_object *ps_aer_stop(struct ps_aer *a, const struct ps_kc_records *recs,
			 const struct ps_inventory *inv);
/* Pure: start and end counters and the probe's records into an "aer" object. */
json_object *ps_aer_compare(const struct ps_aer_counts *a, size_t na, const struct ps_aer_counts *b,
			    size_t nb, const struct probestick_kc_record *ev, unsigned int nev,
			    bool captured, const char *probe_reason,
			    const struct ps_inventory *inv);
extern const struct ps_view ps_aer_view;

/* ---- mce.c: the mce probe's machine checks, decoded ---- */

json_object *ps_mce_from_records(const struct ps_kc_records *recs);
/* Pure: the mce probe's records into an "mce" object (captured false: reason says why). */
json_object *ps_mce_json(const struct probestick_kc_record *ev, unsigned int nev, bool captured,
			 const char *reason);
extern const struct ps_view ps_mce_view;

/* ---- edac.c: EDAC's corrected and uncorrected counts of the step ---- */

struct ps_edac_rec;
struct ps_edac_rec *ps_edac_start(const char *root);
json_object *ps_edac_stop(struct ps_edac_rec *e, const struct ps_inventory *inv);
/* Pure: start and end readings into an "edac" object. */
json_object *ps_edac_compare(const struct ps_edac *a, const struct ps_edac *b,
			     const struct ps_inventory *inv);
extern const struct ps_view ps_edac_view;

/* ---- sensors.c: hwmon, throttle counters and CPU frequency, sampled ---- */

struct ps_sensors;
/* Finds the sensors under root's /sys and takes the first sample. NULL only when out of memory. */
struct ps_sensors *ps_sensors_start(const char *root);
/* One sample (the load sampler's thread calls it every second). */
void ps_sensors_sample(void *s);
/*
 * The last sample and the step's "sensors" object. throughput: the step
 * measures throughput (its view has a figure where higher is better), so
 * a throttling CPU is a warn finding instead of info. Frees s.
 */
json_object *ps_sensors_stop(struct ps_sensors *s, bool throughput);
/*
 * /proc/cpuinfo's "cpu MHz" of each "processor" (len bytes): each(arg, cpu,
 * mhz) per "cpu MHz" line, cpu the last "processor" before it (-1 none). Pure.
 */
void ps_cpuinfo_mhz(const char *text, size_t len, void (*each)(void *arg, int cpu, double mhz),
		    void *arg);
extern const struct ps_view ps_sensors_view;

#endif
