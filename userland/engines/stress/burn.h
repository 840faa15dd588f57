/*
 * burn.h - the burnin step's pure parts: what stress-ng said (its log, with
 * --metrics), the machine-check count of /proc/interrupts, and the verdict
 * rules over the step's samples (temperatures, throttle counters, MCE,
 * EDAC, AER, kernel log) and the stressors' results. No I/O.
 */
#ifndef PS_ENGINES_STRESS_BURN_H
#define PS_ENGINES_STRESS_BURN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_STRESS_MAX	    16
#define PS_STRESS_FAIL_KEEP 8

struct ps_stressor_result {
	char name[24];	  /* "cpu", "vm" */
	int64_t bogo_ops; /* -1 when stress-ng printed no metrics for it */
	double real_s;	  /* wall-clock seconds, NAN unknown */
	double usr_s, sys_s;
	double ops_per_s;   /* bogo ops per second of real time */
	unsigned int fails; /* "fail:" lines naming it: verification errors */
};

struct ps_stress_run {
	struct ps_stressor_result s[PS_STRESS_MAX];
	size_t n;
	unsigned int fails;  /* all "fail:" lines */
	unsigned int errors; /* "error:" lines: stress-ng could not run something */
	int completed;	     /* 1 "successful run completed", 0 "unsuccessful", -1 neither */
	char fail_lines[PS_STRESS_FAIL_KEEP][160]; /* the first ones, without the prefix */
	size_t n_fail_lines;
	char version[24]; /* "0.15.06" from "stress-ng, version", or "" */
};

/*
 * Parse what stress-ng printed (stdout and stderr together) with --metrics
 * or --metrics-brief: the "metrc:" table, "fail:" and "error:" lines, and
 * the last "successful / unsuccessful run completed" line. Returns 0, or
 * -EINVAL when the text holds no stress-ng line at all.
 */
int ps_stress_parse_log(const char *text, struct ps_stress_run *out);

/*
 * Whether stress-ng has started its stressors: its "dispatching hogs" line
 * (printed as it forks them, before which nothing is stressed: loading it
 * from the stick took 13 s under TCG) is in the first len bytes of its log.
 */
bool ps_stress_dispatched(const char *text, size_t len);

/*
 * The sum of the "MCE:" line of /proc/interrupts (machine check exceptions),
 * -1 without one or when a count on it is not an unsigned int as the kernel
 * prints it.
 */
int64_t ps_proc_mce_count(const char *text);

/* One sample of the burn-in; cumulative counters as read (since boot), -1 / NAN unknown. */
struct ps_burn_sample {
	double t; /* seconds since the step's start */
	double freq_min_mhz, freq_mean_mhz, freq_max_mhz;
	int64_t throttle; /* core + package thermal-throttle events, all CPUs */
	double temp_max_c;
	double temp_margin_c; /* the smallest crit - input over the sensors with a crit */
	char temp_label[48];  /* the sensor with that margin */
	double fan_min_rpm;
	int64_t mce;
	int64_t edac_ce, edac_ue;
	int64_t aer_cor, aer_uncor;
	int64_t kmsg_warn, kmsg_oops; /* since the step's start */
	double power_w;		      /* RAPL's packages and DRAM since the last sample, NAN */
	int rails_out; /* voltage rails outside the window their chip holds, -1 none watched */
};

#define PS_BURN_NEAR_CRIT_C 5.0 /* a temperature this close to its crit is a warning */

enum ps_burn_sev { PS_BURN_WARN = 1, PS_BURN_FAIL = 2 };

struct ps_burn_hit {
	enum ps_burn_sev sev;
	const char *rule; /* "computation_error", "machine_check", "uncorrected_error", "oops",
			     "throttled", "corrected_errors", "near_critical" */
	double value, limit;
	const char *unit;
	double at_s; /* when it was first seen, NAN when not from a sample */
	char msg[240];
};

/*
 * The verdict rules over samples s[0..n) (s[0] the start) and the
 * stressors' results (r may be NULL: none ran). FAIL: a stressor's
 * verification failed (computation error), an uncorrected error (EDAC UE,
 * AER non-fatal or fatal), a machine check, a kernel oops. WARN: thermal
 * throttling, corrected errors (EDAC CE, AER correctable), a temperature
 * within PS_BURN_NEAR_CRIT_C of its critical limit. Fills hits (at most
 * max), returns how many; the worst severity decides the step.
 */
size_t ps_burn_verdict(const struct ps_burn_sample *s, size_t n, const struct ps_stress_run *r,
		       struct ps_burn_hit *hits, size_t max);

#endif
