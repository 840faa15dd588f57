/*
 * burnin.c - does the machine stay correct and cool under hours of full
 * load: stress-ng's CPU and memory stressors with their own verification,
 * a read-only load on every drive but the stick (the io engine), for the
 * budget (burnin=), sampled over time: per-core frequency, thermal-throttle
 * counters, temperatures, fans and voltage rails, RAPL's power (the curve
 * beside which a person reads the wall meter, when the progress line says
 * so), machine checks, EDAC and AER counts, kernel warnings. The verdict
 * rules are engines/stress/burn.h's.
 */
/* clang-format off */
//config:config STEP_BURNIN
//config:	bool "burnin: CPU, memory and disk load under watch (full plan)"
//config:	default y
//config:	help
//config:	  stress-ng (on the stick) runs a CPU stressor per CPU and a
//config:	  memory stressor, both with --verify, while every drive but
//config:	  the stick is read (never written), for burnin= in
//config:	  probestick.cfg (90s, 10m, 1h; 60 s in the full plan when
//config:	  unset). Frequency, throttling, temperatures, fans, MCE,
//config:	  EDAC, AER and kernel warnings are sampled over time. FAIL on a
//config:	  computation error, an uncorrected error, a machine check or
//config:	  an oops; WARN on throttling, corrected errors or a
//config:	  temperature within 5 C of its critical limit. The abort key
//config:	  stops every stressor and keeps what was measured.
//kbuild:step-$(CONFIG_STEP_BURNIN) += burnin.o
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "lib/util.h"
#include "engines/io/uring_io.h"
#include "engines/mem/mem.h"
#include "engines/stress/burn.h"
#include "hw/edac.h"
#include "decode/hwmon_limits.h"
#include "hw/inventory.h"
#include "hw/rapl.h"
#include "lib/fields.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DATA_VERSION	 1
#define DEFAULT_BUDGET_S 60
#define MAX_SAMPLES	 240
#define MAX_TEMPS	 64
#define MAX_FANS	 32
#define MAX_RAILS	 32
#define MAX_DISKS	 16
#define START_WAIT_S	 60 /* s for stress-ng's "dispatching hogs" line, then count from the fork */
#define MIB		 (1024ULL * 1024ULL)
#define WALL_CUE_S	 15 /* s of full load before the wall meter is read: the power has settled */

/* The progress line that says so (the console shows 24 characters of a phase). */
#define WALL_CUE_PHASE "burn-in: read wall meter"

/* ---- the result: data{} as a struct, described once ---- */

struct stressor_row {
	char stressor[24];
	int64_t instances, bogo_ops; /* -1 unknown */
	double ops_per_s, real_s;
	unsigned int failures;
	bool verify;
};

struct disk_row {
	char drive[32];
	double mbps;
	uint64_t bytes, errors;
	char status[64];
};

struct fail_line {
	char line[160];
};

/* A sample as a row of the timeline: the engine's sample and each core's clock. */
struct timeline_row {
	struct ps_burn_sample s;
	double *freq_mhz; /* owned */
	size_t n_freq;
};

/* The counters the summary gives as their rise over the burn-in (-1 unknown). */
enum {
	CNT_THROTTLE,
	CNT_MCE,
	CNT_EDAC_CE,
	CNT_EDAC_UE,
	CNT_AER_COR,
	CNT_AER_UNCOR,
	CNT_KMSG_WARN,
	CNT_KMSG_OOPS,
	N_COUNTS
};

struct burn_summary {
	double temp_max_c, temp_margin_min_c;
	char temp_nearest_crit[48];
	double freq_min_mhz, freq_mean_mhz, fan_min_rpm;
	int rails_out_max;
	double power_mean_w, power_max_w;
	int64_t count[N_COUNTS];
	int64_t stressor_failures, samples; /* -1: no summary (nothing ran) */
};

struct burnin_result {
	unsigned int budget_s;
	const char *budget_source;
	double elapsed_s, stress_start_s, interval_s, wall_cue_s;
	ps_tri complete; /* unknown: stress-ng never ran */
	char command[256], stress_ng_path[PATH_MAX], stress_ng_version[24];
	int exit_status; /* -1: it did not exit */
	ps_tri run_completed;
	int64_t stressor_failures; /* -1: stress-ng never ran */
	struct fail_line fail_lines[PS_STRESS_FAIL_KEEP];
	size_t n_fail_lines;
	struct stressor_row stressors[PS_STRESS_MAX];
	size_t n_stressors;
	struct disk_row disks[MAX_DISKS];
	size_t n_disks;
	const char *nics;
	struct burn_summary summary;
	struct timeline_row *timeline; /* owned */
	size_t n_timeline;
};

static const struct ps_field stressor_f[] = {
    PS_FIELD(struct stressor_row, stressor, "stressor"),
    PS_FIELD(struct stressor_row, instances, "instances", .flags = PS_FLD_NULL),
    PS_FIELD(struct stressor_row, bogo_ops, "bogo_ops", .flags = PS_FLD_NULL),
    PS_FIELD(struct stressor_row, ops_per_s, "ops_per_s", .unit = "bogo ops/s", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct stressor_row, real_s, "real_s", .unit = "s", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct stressor_row, failures, "failures", .help = "verification failures"),
    PS_FIELD(struct stressor_row, verify, "verify"),
};
static const struct ps_fields stressor_fields = PS_FIELDS(struct stressor_row, stressor_f);

static const struct ps_field disk_f[] = {
    PS_FIELD(struct disk_row, drive, "drive"),
    PS_FIELD(struct disk_row, mbps, "mbps", .unit = "MB/s", .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct disk_row, bytes, "bytes", .unit = "bytes"),
    PS_FIELD(struct disk_row, errors, "errors", .help = "failed reads"),
    PS_FIELD(struct disk_row, status, "status", .flags = PS_FLD_NULL),
};
static const struct ps_fields disk_fields = PS_FIELDS(struct disk_row, disk_f);

static const struct ps_field fail_line_f[] = {
    PS_FIELD(struct fail_line, line, "line"),
};
static const struct ps_fields fail_line_fields = PS_FIELDS(struct fail_line, fail_line_f);

static const struct ps_field timeline_f[] = {
    PS_FIELD(struct timeline_row, s.t, "t", .unit = "s", .decimals = 1),
    PS_FIELD_NUMS(struct timeline_row, freq_mhz, n_freq, "freq_mhz", .unit = "MHz, per CPU"),
    PS_FIELD(struct timeline_row, s.freq_min_mhz, "freq_min_mhz", .unit = "MHz",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.freq_mean_mhz, "freq_mean_mhz", .unit = "MHz",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.throttle, "throttle", .help = "since boot",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.temp_max_c, "temp_max_c", .unit = "C", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.temp_margin_c, "temp_margin_c", .unit = "C", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.fan_min_rpm, "fan_min_rpm", .unit = "rpm",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.rails_out, "rails_out", .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.power_w, "power_w", .unit = "W", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.mce, "mce", .help = "since boot", .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.edac_ce, "edac_ce", .help = "since boot", .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.edac_ue, "edac_ue", .help = "since boot", .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.aer_cor, "aer_cor", .help = "since boot", .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.aer_uncor, "aer_uncor", .help = "since boot",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.kmsg_warn, "kmsg_warn", .help = "since the step's start",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct timeline_row, s.kmsg_oops, "kmsg_oops", .help = "since the step's start",
	     .flags = PS_FLD_NULL),
};
static const struct ps_fields timeline_fields = PS_FIELDS(struct timeline_row, timeline_f);

static const struct ps_field summary_f[] = {
    PS_FIELD(struct burn_summary, temp_max_c, "temp_max_c", .unit = "C", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, temp_margin_min_c, "temp_margin_min_c", .unit = "C",
	     .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, temp_nearest_crit, "temp_nearest_crit", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, freq_min_mhz, "freq_min_mhz", .unit = "MHz",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, freq_mean_mhz, "freq_mean_mhz", .unit = "MHz",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, fan_min_rpm, "fan_min_rpm", .unit = "rpm", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, rails_out_max, "rails_out_max", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, power_mean_w, "power_mean_w", .unit = "W", .decimals = 1,
	     .help = "RAPL once the stressors run", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, power_max_w, "power_max_w", .unit = "W", .decimals = 1,
	     .help = "RAPL once the stressors run", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, count[CNT_THROTTLE], "throttle_events", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, count[CNT_MCE], "machine_checks", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, count[CNT_EDAC_CE], "edac_ce", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, count[CNT_EDAC_UE], "edac_ue", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, count[CNT_AER_COR], "aer_correctable", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, count[CNT_AER_UNCOR], "aer_uncorrected", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, count[CNT_KMSG_WARN], "kernel_warnings", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, count[CNT_KMSG_OOPS], "kernel_oopses", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, stressor_failures, "stressor_failures", .flags = PS_FLD_NULL),
    PS_FIELD(struct burn_summary, samples, "samples", .flags = PS_FLD_NULL),
};
static const struct ps_fields summary_fields = PS_FIELDS(struct burn_summary, summary_f);

static const char *const budget_sources[] = {"burnin", "full_plan_default", NULL};

static const struct ps_field burnin_f[] = {
    PS_FIELD(struct burnin_result, budget_s, "budget_s", .unit = "s"),
    PS_FIELD(struct burnin_result, budget_source, "budget_source", .names = budget_sources),
    PS_FIELD(struct burnin_result, elapsed_s, "elapsed_s", .unit = "s", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct burnin_result, stress_start_s, "stress_start_s", .unit = "s", .decimals = 1,
	     .help = "when stress-ng dispatched its stressors", .flags = PS_FLD_NULL),
    PS_FIELD(struct burnin_result, interval_s, "interval_s", .unit = "s", .decimals = 1),
    PS_FIELD(struct burnin_result, complete, "complete", .flags = PS_FLD_OMIT),
    PS_FIELD(struct burnin_result, command, "command", .flags = PS_FLD_NULL),
    PS_FIELD(struct burnin_result, stress_ng_path, "stress_ng_path", .flags = PS_FLD_NULL),
    PS_FIELD(struct burnin_result, stress_ng_version, "stress_ng_version", .flags = PS_FLD_NULL),
    PS_FIELD(struct burnin_result, exit_status, "exit_status", .flags = PS_FLD_NULL),
    PS_FIELD(struct burnin_result, run_completed, "run_completed", .flags = PS_FLD_NULL),
    PS_FIELD(struct burnin_result, stressor_failures, "stressor_failures",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct burnin_result, fail_lines, n_fail_lines, "fail_lines", &fail_line_fields),
    PS_FIELD_ARRAY(struct burnin_result, stressors, n_stressors, "stressors", &stressor_fields),
    PS_FIELD_ARRAY(struct burnin_result, disks, n_disks, "disks", &disk_fields),
    PS_FIELD(struct burnin_result, nics, "nics", .flags = PS_FLD_NULL),
    PS_FIELD(struct burnin_result, wall_cue_s, "wall_cue_s", .unit = "s", .decimals = 1,
	     .help = "when the progress line said to read the wall meter", .flags = PS_FLD_NULL),
    PS_FIELD_OBJ(struct burnin_result, summary, "summary", &summary_fields),
    PS_FIELD_ARRAY(struct burnin_result, timeline, n_timeline, "timeline", &timeline_fields),
};
static const struct ps_fields burnin_fields = PS_FIELDS(struct burnin_result, burnin_f);

/* ---- what is sampled ---- */

struct temp_in {
	char input[PATH_MAX];
	char label[48];
	double crit; /* NAN none */
};

/* A voltage rail with the window its chip holds (V). */
struct rail_in {
	char input[PATH_MAX];
	double min, max;
};

struct watch {
	const char *root;
	int ncpus;
	struct temp_in temps[MAX_TEMPS];
	size_t nt;
	char fans[MAX_FANS][PATH_MAX];
	size_t nf;
	struct rail_in rails[MAX_RAILS];
	size_t nr;
	struct ps_rapl rapl; /* the last reading; rapl.n 0: no RAPL */
	double rapl_t;
	int kmsg_fd;
	int64_t kmsg_warn, kmsg_oops;
	double t0;
};

static bool read_double(const char *path, double *v)
{
	char buf[64], *end;

	if (ps_read_str(path, buf, sizeof(buf)) <= 0)
		return false;
	*v = strtod(buf, &end);
	return end != buf;
}

static void find_hwmon(struct watch *w)
{
	char dir[PATH_MAX], path[PATH_MAX], chip[32];
	DIR *d = opendir(ps_path(dir, sizeof(dir), w->root, "/sys/class/hwmon"));
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "hwmon", 5) != 0)
			continue;
		ps_path(path, sizeof(path), w->root, "/sys/class/hwmon/%s/name", e->d_name);
		if (ps_read_str(path, chip, sizeof(chip)) <= 0)
			snprintf(chip, sizeof(chip), "%.31s", e->d_name);
		for (int i = 1; i <= 32; i++) {
			char label[32] = "";

			ps_path(path, sizeof(path), w->root, "/sys/class/hwmon/%s/temp%d_input",
				e->d_name, i);
			if (access(path, R_OK) == 0 && w->nt < MAX_TEMPS) {
				struct temp_in *t = &w->temps[w->nt++];
				double crit;

				snprintf(t->input, sizeof(t->input), "%s", path);
				ps_path(path, sizeof(path), w->root,
					"/sys/class/hwmon/%s/temp%d_label", e->d_name, i);
				if (ps_read_str(path, label, sizeof(label)) <= 0)
					snprintf(label, sizeof(label), "temp%d", i);
				/* "chip label", a long one cut at the label's end */
				if (snprintf(t->label, sizeof(t->label), "%s %s", chip, label) < 0)
					t->label[0] = '\0';
				ps_path(path, sizeof(path), w->root,
					"/sys/class/hwmon/%s/temp%d_crit", e->d_name, i);
				t->crit = read_double(path, &crit) && crit > 0 ? crit / 1000 : NAN;
			}
			ps_path(path, sizeof(path), w->root, "/sys/class/hwmon/%s/fan%d_input",
				e->d_name, i);
			if (access(path, R_OK) == 0 && w->nf < MAX_FANS)
				snprintf(w->fans[w->nf++], sizeof(w->fans[0]), "%s", path);
		}
		for (int i = 0; i < 32 && w->nr < MAX_RAILS; i++) {
			struct rail_in *r = &w->rails[w->nr];
			double min, max;

			ps_path(r->input, sizeof(r->input), w->root,
				"/sys/class/hwmon/%s/in%d_input", e->d_name, i);
			ps_path(path, sizeof(path), w->root, "/sys/class/hwmon/%s/in%d_min",
				e->d_name, i);
			if (access(r->input, R_OK) != 0 || !read_double(path, &min))
				continue;
			ps_path(path, sizeof(path), w->root, "/sys/class/hwmon/%s/in%d_max",
				e->d_name, i);
			/* only a rail whose chip holds a window for it can leave one */
			if (!read_double(path, &max) || !ps_rail_window_set(min / 1000, max / 1000))
				continue;
			r->min = min / 1000;
			r->max = max / 1000;
			w->nr++;
		}
	}
	if (d)
		closedir(d);
}

/* The CPUs' current frequencies (cpufreq, else /proc/cpuinfo's "cpu MHz"): how many read. */
static int read_freqs(const struct watch *w, double *mhz, int max)
{
	char path[PATH_MAX], *text = NULL, *p;
	size_t len;
	int n = 0;

	for (int c = 0; c < w->ncpus && c < max; c++) {
		double khz;

		ps_path(path, sizeof(path), w->root,
			"/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c);
		if (!read_double(path, &khz))
			break;
		mhz[n++] = khz / 1000;
	}
	if (n)
		return n;
	if (ps_read_all(ps_path(path, sizeof(path), w->root, "/proc/cpuinfo"), &text, &len) < 0)
		return 0;
	for (p = text; p && n < max && (p = strstr(p, "cpu MHz")); p++) {
		char *colon = strchr(p, ':');

		if (colon)
			mhz[n++] = strtod(colon + 1, NULL);
	}
	free(text);
	return n;
}

static int64_t read_throttle(const struct watch *w)
{
	char path[PATH_MAX];
	int64_t sum = 0, v;
	bool any = false;

	for (int c = 0; c < w->ncpus; c++) {
		static const char *const f[] = {"core_throttle_count", "package_throttle_count"};

		for (int k = 0; k < 2; k++) {
			ps_path(path, sizeof(path), w->root,
				"/sys/devices/system/cpu/cpu%d/thermal_throttle/%s", c, f[k]);
			if (ps_read_s64(path, &v) == 0 && v >= 0) {
				sum += v;
				any = true;
			}
		}
	}
	return any ? sum : -1;
}

/* AER totals over every PCI function: correctable, and non-fatal plus fatal. */
static void read_aer(const struct watch *w, int64_t *cor, int64_t *uncor)
{
	static const char *const files[] = {"aer_dev_correctable", "aer_dev_nonfatal",
					    "aer_dev_fatal"};
	char dir[PATH_MAX], path[PATH_MAX + 300];
	DIR *d = opendir(ps_path(dir, sizeof(dir), w->root, "/sys/bus/pci/devices"));
	struct dirent *e;

	*cor = *uncor = -1;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		for (int k = 0; k < 3; k++) {
			char *text = NULL, *t;
			size_t len;

			snprintf(path, sizeof(path), "%s/%s/%s", dir, e->d_name, files[k]);
			if (ps_read_all(path, &text, &len) < 0)
				continue;
			t = strstr(text, "TOTAL_ERR_");
			if (t && (t = strchr(t, ' '))) {
				int64_t v = strtoll(t, NULL, 10);
				int64_t *dst = k == 0 ? cor : uncor;

				*dst = (*dst < 0 ? 0 : *dst) + v;
			}
			free(text);
		}
	}
	if (d)
		closedir(d);
}

/* New kernel log records since the last call: warnings (level <= 4) and oopses. */
static void read_kmsg(struct watch *w)
{
	char rec[2048];
	ssize_t n;

	if (w->kmsg_fd < 0)
		return;
	while ((n = read(w->kmsg_fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		char *msg;
		int pri;

		if (n <= 0)
			continue; /* EPIPE: records were overwritten; read on */
		rec[n] = '\0';
		msg = strchr(rec, ';');
		pri = atoi(rec);
		if (!msg)
			continue;
		if ((pri & 7) <= 4)
			w->kmsg_warn++;
		if (strstr(msg, "Oops") || strstr(msg, "BUG:") || strstr(msg, "kernel BUG at") ||
		    strstr(msg, "general protection fault") || strstr(msg, "Kernel panic"))
			w->kmsg_oops++;
	}
}

/* The cores' clocks now: min, max and mean into s, each core's into *each (malloc'd, *n). */
static void sample_freqs(struct watch *w, struct ps_burn_sample *s, double **each, size_t *n)
{
	double mhz[1024], sum = 0;
	int nf = read_freqs(w, mhz, 1024);

	s->freq_min_mhz = s->freq_max_mhz = s->freq_mean_mhz = NAN;
	for (int i = 0; i < nf; i++) {
		sum += mhz[i];
		if (i == 0 || mhz[i] < s->freq_min_mhz)
			s->freq_min_mhz = mhz[i];
		if (i == 0 || mhz[i] > s->freq_max_mhz)
			s->freq_max_mhz = mhz[i];
	}
	if (nf)
		s->freq_mean_mhz = sum / nf;
	*n = 0;
	*each = nf ? malloc((size_t)nf * sizeof(**each)) : NULL;
	if (*each) {
		memcpy(*each, mhz, (size_t)nf * sizeof(**each));
		*n = (size_t)nf;
	}
	s->throttle = read_throttle(w);
}

/* hwmon now: the hottest input and the least margin to its critical point, the slowest fan,
 * the rails out of their limits. */
static void sample_hwmon(struct watch *w, struct ps_burn_sample *s)
{
	s->temp_max_c = s->temp_margin_c = s->fan_min_rpm = NAN;
	for (size_t i = 0; i < w->nt; i++) {
		double v;

		if (!read_double(w->temps[i].input, &v))
			continue;
		v /= 1000;
		if (ps_temp_unconnected(v))
			continue; /* an input with nothing on it (127.5 °C, -128 °C) */
		if (isnan(s->temp_max_c) || v > s->temp_max_c)
			s->temp_max_c = v;
		if (!isnan(w->temps[i].crit) &&
		    (isnan(s->temp_margin_c) || w->temps[i].crit - v < s->temp_margin_c)) {
			s->temp_margin_c = w->temps[i].crit - v;
			snprintf(s->temp_label, sizeof(s->temp_label), "%s", w->temps[i].label);
		}
	}
	for (size_t i = 0; i < w->nf; i++) {
		double v;

		if (read_double(w->fans[i], &v) && (isnan(s->fan_min_rpm) || v < s->fan_min_rpm))
			s->fan_min_rpm = v;
	}
	s->rails_out = w->nr ? 0 : -1;
	for (size_t i = 0; i < w->nr; i++) {
		double v, value, limit;
		enum ps_rail_verdict r;

		if (!read_double(w->rails[i].input, &v))
			continue;
		r = ps_rail_judge(v / 1000, v / 1000, w->rails[i].min, w->rails[i].max, &value,
				  &limit);
		s->rails_out += r == PS_RAIL_LOW || r == PS_RAIL_HIGH;
	}
}

/* The package power since the last sample (RAPL), NAN without it. */
static void sample_power(struct watch *w, struct ps_burn_sample *s)
{
	struct ps_rapl now = w->rapl;
	double j;

	s->power_w = NAN;
	if (!w->rapl.n)
		return;
	ps_rapl_read(w->root, &now);
	if (s->t - w->rapl_t >= 0.2 && ps_rapl_counted_delta(&w->rapl, &now, &j) == 0)
		s->power_w = j / (s->t - w->rapl_t);
	w->rapl = now;
	w->rapl_t = s->t;
}

/* The error counters so far: machine checks, EDAC, AER, the kernel log's warnings and oopses. */
static void sample_errors(struct watch *w, struct ps_burn_sample *s)
{
	char path[PATH_MAX], *text = NULL;
	size_t len;
	struct ps_edac e = {0};

	s->mce = -1;
	if (ps_read_all(ps_path(path, sizeof(path), w->root, "/proc/interrupts"), &text, &len) >= 0)
		s->mce = ps_proc_mce_count(text);
	free(text);
	s->edac_ce = s->edac_ue = -1;
	if (ps_edac_read(w->root, &e) == 0 && e.present) {
		s->edac_ce = s->edac_ue = 0;
		for (size_t i = 0; i < e.n_mcs; i++) {
			s->edac_ce += e.mcs[i].ce > 0 ? e.mcs[i].ce : 0;
			s->edac_ue += e.mcs[i].ue > 0 ? e.mcs[i].ue : 0;
		}
	}
	ps_edac_free(&e);
	read_aer(w, &s->aer_cor, &s->aer_uncor);
	read_kmsg(w);
	s->kmsg_warn = w->kmsg_warn;
	s->kmsg_oops = w->kmsg_oops;
}

/* A row of the timeline now: the sample the verdict reads, and each core's clock. */
static void take_sample(struct watch *w, struct timeline_row *row)
{
	struct ps_burn_sample *s = &row->s;

	memset(s, 0, sizeof(*s));
	s->t = ps_mono_now() - w->t0;
	sample_freqs(w, s, &row->freq_mhz, &row->n_freq);
	sample_hwmon(w, s);
	sample_power(w, s);
	sample_errors(w, s);
}

/* ---- the read-only disk load ---- */

#define DISK_MAX_ERRORS 16 /* a drive that failed this often is left alone: surface scans it */

struct disk_load {
	const struct ps_drive *d;
	atomic_bool *stop;
	atomic_uint errors;
	double budget_s;
	struct ps_uio_result res;
	int err;
	pthread_t th;
	bool started;
};

static bool disk_should_stop(void *arg)
{
	struct disk_load *l = arg;

	return atomic_load(l->stop) || atomic_load(&l->errors) >= DISK_MAX_ERRORS;
}

static void disk_error(void *arg, uint64_t offset, unsigned int len, int err)
{
	struct disk_load *l = arg;

	atomic_fetch_add(&l->errors, 1);
}

static void *disk_thread(void *arg)
{
	struct disk_load *l = arg;
	struct ps_uio_job j = {0};
	bool direct;
	uint64_t size;
	int fd = ps_uio_open(l->d->path, true, &direct, NULL);

	if (fd < 0) {
		l->err = fd;
		return NULL;
	}
	if ((l->err = ps_uio_size(fd, &size)) == 0 && size >= PS_UIO_ALIGN) {
		j.fd = fd;
		j.size = size / PS_UIO_ALIGN * PS_UIO_ALIGN;
		j.length = UINT64_MAX / 2;
		j.bs = size >= MIB ? (unsigned int)MIB : PS_UIO_ALIGN;
		j.qd = 4;
		j.time_budget_s = l->budget_s;
		j.should_stop = disk_should_stop;
		j.stop_arg = l;
		j.on_error = disk_error;
		j.error_arg = l;
		l->err = ps_uio_read(&j, &l->res);
	}
	close(fd);
	return NULL;
}

/* ---- the run ---- */

/*
 * Where stress-ng is: the stick's /tools/stress-ng (image/build.sh puts it
 * there with its libraries: lib is their directory), else the PATH's (a
 * machine with Debian's package). Fills exe and lib ("" for the PATH's).
 */
static void find_stress_ng(const struct ps_ctx *ctx, char *exe, size_t len, char *lib, size_t llen)
{
	const char *stick = ctx->cfg ? ctx->cfg->stick : "";

	snprintf(exe, len, "stress-ng");
	lib[0] = '\0';
	if (stick[0] && strlen(stick) < PATH_MAX - 64) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%.*s/tools/stress-ng/stress-ng", PATH_MAX - 64,
			 stick);
		if (access(path, X_OK) == 0) {
			snprintf(exe, len, "%s", path);
			snprintf(lib, llen, "%.*s/tools/stress-ng/lib", PATH_MAX - 64, stick);
		}
	}
}

/* burnin=: how long the burn-in runs; none given: the full plan's default. */
static int parse_budget(const char *text, void *value, char *why, size_t whylen)
{
	if (ps_duration_parse(text, value) == 0)
		return 0;
	snprintf(why, whylen, "not a duration from 10s to 7 days (90s, 10m, 1h, 1h30m)");
	return -EINVAL;
}

static const struct ps_setting_choice budget_choices[] = {
    {"", "60 s, the full plan's default; any key stops it"},
    {"10m", "10 minutes; any key stops it"},
    {"1h", "an hour; any key stops it"},
    {"4h", "four hours; any key stops it"},
    {NULL, NULL},
};

static const struct ps_setting burnin_budget = {
    .key = "burnin",
    .help = "the burn-in's budget: 90s, 10m, 1h, 1h30m (full plan: 60s)",
    .size = sizeof(unsigned int),
    .parse = parse_budget,
    .menu_key = 'b',
    .menu_label = "burn-in budget",
    .choices = budget_choices,
};

static unsigned int budget_of(const struct ps_ctx *ctx, const char **source)
{
	unsigned int s = *(const unsigned int *)ps_setting(ctx, &burnin_budget);

	*source = s ? "burnin" : "full_plan_default";
	return s ? s : DEFAULT_BUDGET_S;
}

static struct ps_dev_ref machine_ref(const struct ps_ctx *ctx)
{
	return (struct ps_dev_ref){
	    PS_DEV_MACHINE, ctx->inv->machine.id[0] ? ctx->inv->machine.id : NULL, "machine"};
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};

	nanosleep(&ts, NULL);
}

/* RAPL's mean and highest watts once the stressors run (t from load_s). */
static void power_under_load(const struct ps_burn_sample *s, size_t n, double load_s, double *mean,
			     double *max)
{
	double sum = 0;
	size_t k = 0;

	*mean = *max = NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(s[i].power_w) || s[i].t < load_s)
			continue;
		sum += s[i].power_w;
		k++;
		*max = isnan(*max) || s[i].power_w > *max ? s[i].power_w : *max;
	}
	if (k)
		*mean = sum / (double)k;
}

/* The samples over the burn-in: extremes, means, and each counter's rise (unknown: -1). */
static void summarize(struct burn_summary *o, const struct ps_burn_sample *s, size_t n,
		      const struct ps_stress_run *r, double load_s)
{
	double fsum = 0;
	size_t fn = 0;
	int64_t first[N_COUNTS];

	for (int k = 0; k < N_COUNTS; k++)
		first[k] = o->count[k] = -1;
	for (size_t i = 0; i < n; i++) {
		const int64_t v[N_COUNTS] = {
		    [CNT_THROTTLE] = s[i].throttle,   [CNT_MCE] = s[i].mce,
		    [CNT_EDAC_CE] = s[i].edac_ce,     [CNT_EDAC_UE] = s[i].edac_ue,
		    [CNT_AER_COR] = s[i].aer_cor,     [CNT_AER_UNCOR] = s[i].aer_uncor,
		    [CNT_KMSG_WARN] = s[i].kmsg_warn, [CNT_KMSG_OOPS] = s[i].kmsg_oops};

		if (!isnan(s[i].temp_max_c) &&
		    (isnan(o->temp_max_c) || s[i].temp_max_c > o->temp_max_c))
			o->temp_max_c = s[i].temp_max_c;
		if (!isnan(s[i].temp_margin_c) &&
		    (isnan(o->temp_margin_min_c) || s[i].temp_margin_c < o->temp_margin_min_c)) {
			o->temp_margin_min_c = s[i].temp_margin_c;
			snprintf(o->temp_nearest_crit, sizeof(o->temp_nearest_crit), "%s",
				 s[i].temp_label);
		}
		if (!isnan(s[i].freq_min_mhz) &&
		    (isnan(o->freq_min_mhz) || s[i].freq_min_mhz < o->freq_min_mhz))
			o->freq_min_mhz = s[i].freq_min_mhz;
		if (!isnan(s[i].fan_min_rpm) &&
		    (isnan(o->fan_min_rpm) || s[i].fan_min_rpm < o->fan_min_rpm))
			o->fan_min_rpm = s[i].fan_min_rpm;
		if (s[i].rails_out > o->rails_out_max)
			o->rails_out_max = s[i].rails_out;
		if (!isnan(s[i].freq_mean_mhz)) {
			fsum += s[i].freq_mean_mhz;
			fn++;
		}
		for (int k = 0; k < N_COUNTS; k++) {
			if (v[k] < 0)
				continue;
			if (first[k] < 0)
				first[k] = v[k];
			o->count[k] = v[k] - first[k];
		}
	}
	if (fn)
		o->freq_mean_mhz = fsum / (double)fn;
	power_under_load(s, n, load_s, &o->power_mean_w, &o->power_max_w);
	o->stressor_failures = r->fails;
	o->samples = (int64_t)n;
}

/* One burn-in: stress-ng and the disk load running, the watch sampling them. */
struct burn {
	struct ps_ctx *ctx;
	unsigned int budget, cpus;
	double interval;
	struct burnin_result *r;
	struct ps_burn_sample *samples; /* the timeline's, for the verdict's rules */
	size_t n;
	struct watch *w;
	struct disk_load loads[MAX_DISKS];
	size_t nl;
	atomic_bool stop;
	char tmo[24], cpu_n[16], vmb[24], exe[PATH_MAX], lib[PATH_MAX];
	char *argv[17];
	char logpath[32];
	int logfd, wstatus;
	pid_t pid;
	double start_t, abort_t, elapsed;
	bool aborted;
};

/* stress-ng's command line: every CPU, and a quarter of the free memory (at most 2 GiB). */
static void burn_command(struct burn *b)
{
	struct ps_ctx *ctx = b->ctx;
	int64_t avail = ps_mem_available(ctx->root);
	uint64_t vm_bytes = avail > 0 ? (uint64_t)avail / 4 : 64 * MIB;
	char *const argv[] = {"stress-ng", "--cpu",    b->cpu_n,     "--cpu-method", "all",
			      "--vm",	   "1",	       "--vm-bytes", b->vmb,	     "--vm-method",
			      "all",	   "--verify", "--timeout",  b->tmo,	     "--metrics",
			      "--oomable", NULL};
	char *cmd = b->r->command;
	size_t len = 0;

	if (vm_bytes > 2048 * MIB)
		vm_bytes = 2048 * MIB;
	if (vm_bytes < 16 * MIB)
		vm_bytes = 16 * MIB;
	snprintf(b->tmo, sizeof(b->tmo), "%us", b->budget);
	snprintf(b->cpu_n, sizeof(b->cpu_n), "%u", b->cpus);
	snprintf(b->vmb, sizeof(b->vmb), "%lluM", (unsigned long long)(vm_bytes / MIB));
	memcpy(b->argv, argv, sizeof(argv));
	for (char *const *a = argv; *a; a++)
		if (len < sizeof(b->r->command))
			len += (size_t)snprintf(cmd + len, sizeof(b->r->command) - len, "%s%s",
						len ? " " : "", *a);
	find_stress_ng(ctx, b->exe, sizeof(b->exe), b->lib, sizeof(b->lib));
	snprintf(b->r->stress_ng_path, sizeof(b->r->stress_ng_path), "%s", b->exe);
}

/* What the watch reads: hwmon, RAPL, the kernel log from now on. */
static void watch_open(struct burn *b)
{
	struct watch *w = b->w;

	w->root = b->ctx->root;
	w->ncpus = (int)b->cpus;
	w->kmsg_fd = -1;
	find_hwmon(w);
	if (ps_rapl_find(b->ctx->root, &w->rapl) < 0)
		w->rapl.n = 0;
	if (!b->ctx->root[0]) {
		w->kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (w->kmsg_fd >= 0)
			lseek(w->kmsg_fd, 0, SEEK_END);
	}
}

/* A row of the timeline now, its sample kept for the verdict. */
static void sample_now(struct burn *b)
{
	struct timeline_row *row = &b->r->timeline[b->n];

	take_sample(b->w, row);
	b->samples[b->n++] = row->s;
	b->r->n_timeline = b->n;
}

/* stress-ng in a process group of its own, its output into a file: 0 or -errno. */
static int stress_start(struct burn *b)
{
	snprintf(b->logpath, sizeof(b->logpath), "/tmp/probestick-burnin.XXXXXX");
	b->logfd = mkstemp(b->logpath);
	if (b->logfd < 0) {
		ps_step_reason(b->ctx, "no file for stress-ng's output in /tmp: %s",
			       strerror(errno));
		return -errno;
	}
	b->w->t0 = ps_mono_now();
	sample_now(b);
	b->pid = fork();
	if (b->pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		dup2(nul, 0);
		dup2(b->logfd, 1);
		dup2(b->logfd, 2);
		if (b->lib[0])
			setenv("LD_LIBRARY_PATH", b->lib, 1);
		execvp(b->exe, b->argv);
		dprintf(2, "stress-ng: error: [0] exec: %s\n", strerror(errno));
		_exit(127);
	}
	if (b->pid < 0) {
		ps_step_reason(b->ctx, "could not start stress-ng: %s", strerror(errno));
		close(b->logfd);
		unlink(b->logpath);
		return -EAGAIN;
	}
	setpgid(b->pid, b->pid);
	return 0;
}

/* The read-only disk load: a thread on every drive but the stick. */
static void disks_start(struct burn *b)
{
	const struct ps_inventory *inv = b->ctx->inv;

	for (size_t i = 0; i < inv->n_drives && b->nl < MAX_DISKS; i++) {
		const struct ps_drive *d = &inv->drives[i];
		struct disk_load *l = &b->loads[b->nl];

		if (d->boot_device || d->size_bytes <= 0 || !d->path[0])
			continue;
		memset(l, 0, sizeof(*l));
		l->d = d;
		l->stop = &b->stop;
		l->budget_s = b->budget;
		atomic_init(&l->errors, 0);
		l->started = pthread_create(&l->th, NULL, disk_thread, l) == 0;
		b->nl++;
	}
}

/*
 * The budget's progress counts from stress-ng's dispatching its stressors
 * (its --timeout starts there); until then it is starting. Once the load
 * has settled, the cue for the wall meter's full-load reading.
 */
static void follow_start(struct burn *b, bool *cued)
{
	char head[4096];
	ssize_t got;
	double ran;

	if (b->start_t < 0) {
		/* pread: the file offset is the one stress-ng writes at */
		got = pread(b->logfd, head, sizeof(head), 0);
		if (got > 0 && ps_stress_dispatched(head, (size_t)got)) {
			b->start_t = b->elapsed;
			b->r->stress_start_s = b->start_t;
			ps_progress_phase(b->ctx, "burn-in", b->budget, "s");
		} else if (b->elapsed > START_WAIT_S) {
			/* no such line from this stress-ng: count from the fork */
			b->start_t = 0;
			ps_progress_phase(b->ctx, "burn-in", b->budget, "s");
		}
	}
	ran = b->start_t < 0 ? b->elapsed : b->elapsed - b->start_t;
	if (b->start_t >= 0 && !*cued &&
	    ran >= (b->budget < 2 * WALL_CUE_S ? b->budget / 2.0 : WALL_CUE_S)) {
		*cued = true;
		b->r->wall_cue_s = b->elapsed;
		ps_progress_rename(b->ctx, WALL_CUE_PHASE);
	}
	ps_progress_set(b->ctx, (uint64_t)(b->start_t < 0 || ran < b->budget ? ran : b->budget));
}

/* Sample until stress-ng exits; a key stops it (SIGINT, then SIGKILL), so does an overrun. */
static void supervise(struct burn *b)
{
	double next = b->interval;
	bool cued = false;

	ps_progress_phase(b->ctx, "starting stress-ng", 0, "s");
	for (;;) {
		siginfo_t si = {0};
		/* WNOWAIT: stress-ng stays a zombie, so its process group (and id) is
		 * still its own when the group is killed below */
		int r = waitid(P_PID, (id_t)b->pid, &si, WEXITED | WNOHANG | WNOWAIT);

		b->elapsed = ps_mono_now() - b->w->t0;
		follow_start(b, &cued);
		if (b->elapsed >= next && b->n < MAX_SAMPLES + 4) {
			sample_now(b);
			next += b->interval;
		}
		if (r == 0 && si.si_pid == b->pid)
			break;
		if (b->abort_t < 0 && ps_should_abort(b->ctx)) {
			b->aborted = true;
			b->abort_t = b->elapsed;
			atomic_store(&b->stop, true);
			/* stress-ng stops its stressors and prints its metrics */
			kill(-b->pid, SIGINT);
		} else if (b->abort_t >= 0 && b->elapsed - b->abort_t > 5) {
			kill(-b->pid, SIGKILL);
		} else if (b->abort_t < 0 &&
			   b->elapsed > (b->start_t > 0 ? b->start_t : 0) + b->budget + 60) {
			b->abort_t = b->elapsed; /* stress-ng overran its timeout by a minute */
			kill(-b->pid, SIGINT);
		}
		sleep_s(0.25);
	}
	kill(-b->pid, SIGKILL); /* any stressor left behind */
	waitpid(b->pid, &b->wstatus, 0);
	atomic_store(&b->stop, true);
	for (size_t i = 0; i < b->nl; i++)
		if (b->loads[i].started)
			pthread_join(b->loads[i].th, NULL);
	sample_now(b);
	b->elapsed = ps_mono_now() - b->w->t0;
	if (b->w->kmsg_fd >= 0)
		close(b->w->kmsg_fd);
	close(b->logfd);
}

/* What stress-ng said: its stressors' figures and the lines that report a failure. */
static void report_stress(struct burn *b, const struct ps_stress_run *sr, bool parsed)
{
	struct burnin_result *r = b->r;

	r->elapsed_s = b->elapsed;
	r->complete = !b->aborted;
	r->exit_status = WIFEXITED(b->wstatus) ? WEXITSTATUS(b->wstatus) : -1;
	r->run_completed = sr->completed < 0 || !parsed ? PS_TRI_UNKNOWN : sr->completed == 1;
	snprintf(r->stress_ng_version, sizeof(r->stress_ng_version), "%s", sr->version);
	r->stressor_failures = sr->fails;
	for (size_t i = 0; i < sr->n_fail_lines && i < PS_ARRAY_SIZE(r->fail_lines); i++)
		snprintf(r->fail_lines[r->n_fail_lines++].line, sizeof(r->fail_lines[0].line), "%s",
			 sr->fail_lines[i]);
	for (size_t i = 0; i < sr->n && i < PS_ARRAY_SIZE(r->stressors); i++) {
		struct stressor_row *o = &r->stressors[r->n_stressors++];
		const struct ps_stressor_result *s = &sr->s[i];

		snprintf(o->stressor, sizeof(o->stressor), "%s", s->name);
		o->instances = strcmp(s->name, "cpu") == 0  ? (int64_t)b->cpus
			       : strcmp(s->name, "vm") == 0 ? 1
							    : -1;
		o->bogo_ops = s->bogo_ops;
		o->ops_per_s = s->ops_per_s;
		o->real_s = s->real_s;
		o->failures = s->fails;
		o->verify = true;
	}
}

/* Each drive's read load: what it read, and a finding for the reads that failed. */
static void report_disks(struct burn *b)
{
	for (size_t i = 0; i < b->nl; i++) {
		struct disk_row *o = &b->r->disks[b->r->n_disks++];
		const struct disk_load *l = &b->loads[i];
		const struct ps_uio_result *r = &l->res;

		snprintf(o->drive, sizeof(o->drive), "%s", l->d->name);
		o->bytes = r->bytes;
		o->errors = r->errors;
		o->mbps = r->seconds > 0 ? r->bytes / r->seconds / 1e6 : NAN;
		snprintf(o->status, sizeof(o->status), "%s",
			 l->err < 0			? strerror(-l->err)
			 : r->errors >= DISK_MAX_ERRORS ? "stopped after 16 read errors"
							: "read");
		if (r->errors)
			ps_findf(b->ctx, PS_SEV_WARN, ps_drive_ref(l->d), "disk_read_error",
				 "%s: %llu reads failed under the burn-in's load (the surface step "
				 "lists the sectors)",
				 l->d->name, (unsigned long long)r->errors);
	}
}

/* The burn-in's rules over the samples and stress-ng's word: findings, and the status. */
static int judge(struct burn *b, const struct ps_stress_run *sr, bool parsed)
{
	struct ps_ctx *ctx = b->ctx;
	struct ps_burn_hit hits[32];
	bool throttle_known = false;
	size_t nh;
	int worst = 0;

	for (size_t i = 0; i < b->n; i++)
		throttle_known = throttle_known || b->samples[i].throttle >= 0;
	nh = ps_burn_verdict(b->samples, b->n, parsed ? sr : NULL, hits, PS_ARRAY_SIZE(hits));
	for (size_t i = 0; i < nh; i++) {
		struct ps_finding f = {.severity =
					   hits[i].sev == PS_BURN_FAIL ? PS_SEV_FAIL : PS_SEV_WARN,
				       .dev = machine_ref(ctx),
				       .rule = hits[i].rule,
				       .value = hits[i].value,
				       .limit = hits[i].limit,
				       .unit = hits[i].unit};

		ps_find(ctx, &f, "%s", hits[i].msg);
		if ((int)hits[i].sev > worst)
			worst = (int)hits[i].sev;
	}
	if (!parsed || (WIFEXITED(b->wstatus) && WEXITSTATUS(b->wstatus) == 127)) {
		ps_step_reason(ctx,
			       "stress-ng did not run (%s, exit status %d): the stick's "
			       "/tools/stress-ng is missing (image/build.sh puts it there) or the "
			       "stick was not found",
			       b->exe, WIFEXITED(b->wstatus) ? WEXITSTATUS(b->wstatus) : -1);
		return PS_ERROR;
	}
	if (b->aborted) {
		ps_step_reason(ctx, "aborted after %.0f s of %u s; what was measured is kept",
			       b->abort_t, b->budget);
		return worst == PS_BURN_FAIL ? PS_FAIL : PS_ABORTED;
	}
	if (!worst)
		ps_examined(ctx, machine_ref(ctx), "stable",
			    "%.0f s under load: no computation error, machine check, uncorrected "
			    "error or oops; %s",
			    b->elapsed,
			    throttle_known
				? "no throttling"
				: "no thermal-throttle counters to say whether it throttled");
	return worst == PS_BURN_FAIL ? PS_FAIL : worst == PS_BURN_WARN ? PS_WARN : PS_PASS;
}

/* The result's members before anything runs: what a step that stops early leaves. */
static void result_begin(struct burn *b, const char *bsrc)
{
	struct burnin_result *r = b->r;

	r->budget_s = b->budget;
	r->budget_source = bsrc;
	r->interval_s = b->interval;
	r->nics = "not loaded: the NIC engines need cabled port pairs or a peer, and run in "
		  "nic_loop and nic_peer";
}

static int run(struct ps_ctx *ctx)
{
	struct burn *b = calloc(1, sizeof(*b));
	const char *bsrc;
	struct ps_stress_run sr;
	char *text = NULL;
	size_t len;
	bool parsed;
	int ret;

	if (!b)
		return -ENOMEM;
	b->ctx = ctx;
	b->budget = budget_of(ctx, &bsrc);
	b->cpus = ps_mem_cpus();
	/* the samples span stress-ng's start as well as its budget */
	b->interval = ((double)b->budget + START_WAIT_S) / MAX_SAMPLES;
	if (b->interval < 1)
		b->interval = 1;
	b->r = ctx->result;
	b->start_t = b->abort_t = -1;
	result_begin(b, bsrc);
	/* the rows are the result's (the core frees them), the samples the verdict's */
	b->r->timeline = ps_fields_new(&timeline_fields, MAX_SAMPLES + 8);
	b->samples = calloc(MAX_SAMPLES + 8, sizeof(*b->samples));
	b->w = calloc(1, sizeof(*b->w));
	ret = b->r->timeline && b->samples && b->w ? 0 : -ENOMEM;
	if (ret == 0) {
		burn_command(b);
		watch_open(b);
		ret = stress_start(b);
	}
	if (ret < 0) {
		free(b->samples);
		free(b->w);
		free(b);
		return ret;
	}
	disks_start(b);
	supervise(b);
	parsed = ps_read_all(b->logpath, &text, &len) >= 0 && ps_stress_parse_log(text, &sr) == 0;
	unlink(b->logpath);
	if (!parsed)
		memset(&sr, 0, sizeof(sr));
	report_stress(b, &sr, parsed);
	report_disks(b);
	summarize(&b->r->summary, b->samples, b->n, &sr, b->start_t > 0 ? b->start_t : 0);
	ret = judge(b, &sr, parsed);
	free(text);
	free(b->samples);
	free(b->w);
	free(b);
	return ret;
}

static double estimate(const struct ps_ctx *ctx)
{
	const char *src;

	return budget_of(ctx, &src) + 2;
}

/* ---- view ---- */

static const struct ps_col summary_cols[] = {
    {.path = "/summary/stressor_failures",
     .title = "stressor errors",
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_HEADLINE},
    {.path = "/summary/temp_max_c",
     .title = "hottest",
     .unit = "C",
     .decimals = 1,
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_HEADLINE,
     .head = "hottest"},
    {.path = "/summary/throttle_events",
     .title = "throttled",
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_HEADLINE},
    {.path = "/budget_s", .title = "budget", .fmt = PS_FMT_SECONDS},
    {.path = "/elapsed_s", .title = "ran", .fmt = PS_FMT_SECONDS, .flags = PS_COL_MEASURED},
    {.path = "/summary/temp_margin_min_c", .title = "closest to crit", .unit = "C", .decimals = 1},
    {.path = "/summary/temp_nearest_crit", .title = "that sensor"},
    {.path = "/summary/freq_min_mhz", .title = "lowest CPU MHz"},
    {.path = "/summary/freq_mean_mhz", .title = "mean CPU MHz"},
    {.path = "/summary/fan_min_rpm", .title = "slowest fan", .unit = "rpm"},
    {.path = "/summary/rails_out_max", .title = "rails out of window", .better = PS_BETTER_LOWER},
    {.path = "/summary/power_mean_w",
     .title = "RAPL under load",
     .unit = "W",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/summary/power_max_w", .title = "RAPL highest", .unit = "W", .decimals = 1},
    {.path = "/wall_cue_s", .title = "wall meter read at", .unit = "s", .decimals = 0},
    {.path = "/summary/machine_checks", .title = "machine checks", .better = PS_BETTER_LOWER},
    {.path = "/summary/edac_ce", .title = "EDAC corrected", .better = PS_BETTER_LOWER},
    {.path = "/summary/edac_ue", .title = "EDAC uncorrected", .better = PS_BETTER_LOWER},
    {.path = "/summary/aer_correctable", .title = "AER corrected", .better = PS_BETTER_LOWER},
    {.path = "/summary/aer_uncorrected", .title = "AER uncorrected", .better = PS_BETTER_LOWER},
    {.path = "/summary/kernel_warnings", .title = "kernel warnings", .better = PS_BETTER_LOWER},
    {.path = "/summary/kernel_oopses", .title = "kernel oopses", .better = PS_BETTER_LOWER},
    {.path = "/stress_ng_version", .title = "stress-ng"},
    {.path = "/nics", .title = "NICs", .flags = PS_COL_WIDE},
};

static const struct ps_col stressor_cols[] = {
    {.path = "/stressor", .title = "stressor", .flags = PS_COL_KEY},
    {.path = "/instances", .title = "instances"},
    {.path = "/bogo_ops", .title = "bogo ops", .flags = PS_COL_MEASURED},
    {.path = "/ops_per_s",
     .title = "ops/s",
     .decimals = 1,
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_MEASURED},
    {.path = "/failures", .title = "verify failures", .better = PS_BETTER_LOWER},
};

static const struct ps_col disk_cols[] = {
    {.path = "/drive", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/mbps", .title = "MB/s", .decimals = 1, .flags = PS_COL_MEASURED},
    {.path = "/errors", .title = "read errors", .better = PS_BETTER_LOWER},
    {.path = "/status", .title = "status"},
};

static const struct ps_col fail_cols[] = {
    {.path = "/line", .title = "stress-ng's failure", .flags = PS_COL_KEY | PS_COL_WIDE},
};

static const struct ps_col timeline_cols[] = {
    {.path = "/t", .title = "s", .decimals = 0, .flags = PS_COL_KEY},
    {.path = "/freq_min_mhz", .title = "MHz min"},
    {.path = "/freq_mean_mhz", .title = "MHz mean"},
    {.path = "/throttle", .title = "throttle"},
    {.path = "/temp_max_c", .title = "hottest C", .decimals = 1},
    {.path = "/temp_margin_c", .title = "to crit C", .decimals = 1},
    {.path = "/fan_min_rpm", .title = "fan rpm"},
    {.path = "/power_w", .title = "W", .decimals = 1},
    {.path = "/mce", .title = "MCE"},
    {.path = "/edac_ce", .title = "CE"},
    {.path = "/edac_ue", .title = "UE"},
    {.path = "/aer_cor", .title = "AER cor"},
    {.path = "/kmsg_warn", .title = "kmsg warn"},
};

static const struct ps_col temp_series_cols[] = {
    {.path = "/none", .title = "hottest sensor, C"},
    {.path = "/t", .title = "s"},
    {.path = "/temp_max_c", .title = "C"},
};

static const struct ps_col power_series_cols[] = {
    {.path = "/none", .title = "RAPL power (packages and DRAM), W"},
    {.path = "/t", .title = "s"},
    {.path = "/power_w", .title = "W"},
};

static const struct ps_col freq_series_cols[] = {
    {.path = "/none", .title = "mean CPU frequency, MHz"},
    {.path = "/t", .title = "s"},
    {.path = "/freq_mean_mhz", .title = "MHz"},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "summary",
     .title = "Burn-in under watch",
     .rows = "",
     .when = "/summary/samples",
     .cols = PS_COLS(summary_cols),
     .note = "counts are those of the burn-in alone; FAIL: computation error, uncorrected "
	     "error, machine check, oops; WARN: throttling, corrected errors, within 5 C of "
	     "crit"},
    {.kind = PS_BLOCK_TABLE,
     .id = "stressors",
     .title = "stress-ng stressors (--verify)",
     .rows = "/stressors",
     .cols = PS_COLS(stressor_cols)},
    {.kind = PS_BLOCK_TABLE, .id = "fail_lines", .rows = "/fail_lines", .cols = PS_COLS(fail_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "disks",
     .title = "Read-only disk load",
     .rows = "/disks",
     .cols = PS_COLS(disk_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "timeline",
     .title = "Over time (counters since boot)",
     .rows = "/timeline",
     .cols = PS_COLS(timeline_cols),
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_SERIES,
     .id = "temp_curve",
     .rows = "",
     .nested = "/timeline",
     .cols = PS_COLS(temp_series_cols),
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_SERIES,
     .id = "power_curve",
     .rows = "",
     .nested = "/timeline",
     .when = "/summary/power_max_w",
     .cols = PS_COLS(power_series_cols),
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_SERIES,
     .id = "freq_curve",
     .rows = "",
     .nested = "/timeline",
     .cols = PS_COLS(freq_series_cols),
     .flags = PS_BLOCK_NO_TEXT},
};

static const struct ps_view view = {
    .name = "burnin",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops burnin_ops = {
    .abi = PS_STEP_ABI,
    .name = "burnin",
    .title = "burn-in: CPU, memory and read-only disk load under watch (burnin=)",
    .plans = PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 85,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &burnin_fields,
    .settings = (const struct ps_setting *const[]){&burnin_budget, NULL},
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(burnin_ops);
