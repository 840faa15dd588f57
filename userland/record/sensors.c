/*
 * sensors.c - how hot the machine ran and whether it throttled, per step:
 * every hwmon temperature, fan and voltage input (coretemp, k10temp, nvme,
 * drivetemp, the board's Super I/O chip) with the limits and alarms its
 * chip holds, the CPUs' thermal-throttle counters and their current
 * frequency, sampled on the load sampler's thread once a second
 * (record/sampler.h). The judgments of a rail and a fan are
 * decode/hwmon_limits.h's.
 */
#include "record/platform.h"
#include "record/recorder.h"
#include "lib/util.h"
#include "hw/hw_util.h"
#include "decode/hwmon_limits.h"
#include "lib/json.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SENSORS 96
#define MAX_CPUS    1024

enum kind { K_TEMP, K_FAN, K_IN };

struct sensor {
	enum kind kind;
	char chip[32];	 /* hwmon name: coretemp, nvme, k10temp, nct6798 */
	char device[64]; /* the device the chip belongs to: nvme0, 0000:00:18.3 */
	char label[48];	 /* temp1_label, else the rail's name and input ("Vbat (in8)") */
	char input[PATH_MAX];
	char alarm_file[PATH_MAX]; /* in3_alarm, fan2_alarm; "" when the driver has none */
	double high, crit;	   /* thresholds in the unit below, NAN when the driver has none */
	double low;		   /* a rail's min, a fan's min; NAN none */
	double min, max, last, sum;
	int alarm;    /* the chip's alarm in any sample: 1 set, 0 never, -1 no alarm file */
	bool stopped; /* a fan: a sample at 0 rpm with its alarm set */
	unsigned int n;
};

struct cpu_freq {
	int cpu;
	double min, max, sum;
	unsigned int n;
};

struct ps_sensors {
	char root[PATH_MAX];
	struct sensor s[MAX_SENSORS];
	size_t ns;
	struct cpu_freq *f;
	size_t nf;
	const char *freq_source; /* "cpufreq", "cpuinfo", NULL */
	int64_t *core0, *pkg0;	 /* throttle counts at the start, -1 absent; per CPU */
	int ncpus;		 /* CPU directories, 0 .. ncpus-1 */
	unsigned int samples;
};

static const char *const kind_names[] = {"temp", "fan", "in"};
static const char *const kind_units[] = {"C", "rpm", "V"};
static const double kind_scale[] = {1e-3, 1.0, 1e-3}; /* m°C, rpm, mV */
static const char *const kind_reading[] = {"celsius", "rpm", "volts"};

static bool read_num(const char *path, double *v)
{
	int64_t x;

	if (ps_read_s64(path, &x) < 0)
		return false;
	*v = (double)x;
	return true;
}

static double threshold(const char *dir, const char *base, const char *what, double scale)
{
	char path[PATH_MAX];
	double v;

	if (!read_num(ps_path(path, sizeof(path), "", "%s/%s_%s", dir, base, what), &v))
		return NAN;
	return v * scale;
}

static void add_inputs(struct ps_sensors *ss, const char *dir, const char *chip, const char *dev)
{
	struct ps_dirlist list;

	if (ps_dir_list(dir, &list) < 0)
		return;
	for (size_t i = 0; i < list.n && ss->ns < MAX_SENSORS; i++) {
		const char *name = list.names[i], *suffix = strstr(name, "_input");
		struct sensor *s = &ss->s[ss->ns];
		char base[32], path[PATH_MAX];
		enum kind k;

		if (!suffix || suffix[6] || (size_t)(suffix - name) >= sizeof(base))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(suffix - name), name);
		if (strncmp(base, "temp", 4) == 0)
			k = K_TEMP;
		else if (strncmp(base, "fan", 3) == 0)
			k = K_FAN;
		else if (strncmp(base, "in", 2) == 0)
			k = K_IN;
		else
			continue;
		memset(s, 0, sizeof(*s));
		s->kind = k;
		ps_copy_str(s->chip, sizeof(s->chip), chip);
		ps_copy_str(s->device, sizeof(s->device), dev);
		ps_path(s->input, sizeof(s->input), "", "%s/%s", dir, name);
		if (ps_read_str(ps_path(path, sizeof(path), "", "%s/%s_label", dir, base), s->label,
				sizeof(s->label)) < 0 ||
		    !s->label[0]) {
			const char *rail = k == K_IN ? ps_rail_name(chip, base) : NULL;

			if (rail)
				snprintf(s->label, sizeof(s->label), "%s (%s)", rail, base);
			else
				ps_copy_str(s->label, sizeof(s->label), base);
		}
		s->high = threshold(dir, base, "max", kind_scale[k]);
		s->crit = threshold(dir, base, "crit", kind_scale[k]);
		s->low = k == K_TEMP ? NAN : threshold(dir, base, "min", kind_scale[k]);
		if (k == K_FAN)
			s->high = s->crit = NAN; /* a fan's max is no limit it can exceed */
		s->alarm = -1;
		if (k != K_TEMP &&
		    access(ps_path(path, sizeof(path), "", "%s/%s_alarm", dir, base), R_OK) == 0) {
			ps_copy_str(s->alarm_file, sizeof(s->alarm_file), path);
			s->alarm = 0;
		}
		s->min = INFINITY;
		s->max = -INFINITY;
		ss->ns++;
	}
	ps_dir_free(&list);
}

static void find_hwmon(struct ps_sensors *ss)
{
	char dir[PATH_MAX], path[PATH_MAX], chip[32], real[PATH_MAX], dev[64];
	struct ps_dirlist list;

	if (ps_dir_list(ps_path(dir, sizeof(dir), ss->root, "/sys/class/hwmon"), &list) < 0)
		return;
	for (size_t i = 0; i < list.n; i++) {
		char hw[PATH_MAX];

		ps_path(hw, sizeof(hw), "", "%s/%s", dir, list.names[i]);
		if (ps_read_str(ps_path(path, sizeof(path), "", "%s/name", hw), chip,
				sizeof(chip)) < 0)
			ps_copy_str(chip, sizeof(chip), list.names[i]);
		dev[0] = '\0';
		if (realpath(ps_path(path, sizeof(path), "", "%s/device", hw), real)) {
			const char *b = strrchr(real, '/');

			ps_copy_str(dev, sizeof(dev), b ? b + 1 : real);
		}
		add_inputs(ss, hw, chip, dev);
		/* drivers of old kept their attributes in device/ */
		add_inputs(ss, ps_path(path, sizeof(path), "", "%s/device", hw), chip, dev);
	}
	ps_dir_free(&list);
}

static int64_t throttle_count(const char *root, int cpu, const char *which)
{
	char path[PATH_MAX];
	int64_t v;

	if (ps_read_s64(ps_path(path, sizeof(path), root,
				"/sys/devices/system/cpu/cpu%d/thermal_throttle/%s_throttle_count",
				cpu, which),
			&v) < 0)
		return -1;
	return v;
}

static int count_cpus(const char *root)
{
	char path[PATH_MAX];
	int n = 0;

	while (n < MAX_CPUS &&
	       access(ps_path(path, sizeof(path), root, "/sys/devices/system/cpu/cpu%d", n),
		      F_OK) == 0)
		n++;
	return n;
}

static void freq_add(struct ps_sensors *ss, int cpu, double mhz)
{
	struct cpu_freq *f;

	if (cpu < 0 || (size_t)cpu >= ss->nf)
		return;
	f = &ss->f[cpu];
	f->cpu = cpu;
	f->min = fmin(f->min, mhz);
	f->max = fmax(f->max, mhz);
	f->sum += mhz;
	f->n++;
}

void ps_cpuinfo_mhz(const char *text, size_t len, void (*each)(void *arg, int cpu, double mhz),
		    void *arg)
{
	const char *line, *nl;
	int cpu = -1;

	for (line = text; line && line < text + len; line = nl ? nl + 1 : NULL) {
		char buf[256];
		const char *colon;
		size_t n;
		double mhz;

		nl = memchr(line, '\n', (size_t)(text + len - line));
		n = nl ? (size_t)(nl - line) : (size_t)(text + len - line);
		/* a line as a C string: up to a NUL in it, cut to the room (names come first) */
		n = strnlen(line, n < sizeof(buf) - 1 ? n : sizeof(buf) - 1);
		memcpy(buf, line, n);
		buf[n] = '\0';
		colon = strchr(buf, ':');
		if (!colon)
			continue;
		if (strncmp(buf, "processor", 9) == 0)
			cpu = atoi(colon + 1);
		else if (strncmp(buf, "cpu MHz", 7) == 0 && sscanf(colon + 1, "%lf", &mhz) == 1)
			each(arg, cpu, mhz);
	}
}

static void freq_each(void *arg, int cpu, double mhz)
{
	freq_add(arg, cpu, mhz);
}

/* /proc/cpuinfo's "cpu MHz" of each "processor". */
static void freq_cpuinfo(struct ps_sensors *ss)
{
	char path[PATH_MAX], *text;
	size_t len;

	if (ps_read_all(ps_path(path, sizeof(path), ss->root, "/proc/cpuinfo"), &text, &len) < 0)
		return;
	ps_cpuinfo_mhz(text, len, freq_each, ss);
	free(text);
}

/* Frequency now: cpufreq's scaling_cur_freq (kHz), else /proc/cpuinfo's "cpu MHz". */
static void sample_freq(struct ps_sensors *ss)
{
	char path[PATH_MAX];
	double khz;

	if (!ss->freq_source)
		return;
	if (strcmp(ss->freq_source, "cpuinfo") == 0) {
		freq_cpuinfo(ss);
		return;
	}
	for (int c = 0; c < ss->ncpus; c++)
		if (read_num(ps_path(path, sizeof(path), ss->root,
				     "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c),
			     &khz))
			freq_add(ss, c, khz / 1000.0);
}

void ps_sensors_sample(void *arg)
{
	struct ps_sensors *ss = arg;

	if (!ss)
		return;
	for (size_t i = 0; i < ss->ns; i++) {
		struct sensor *s = &ss->s[i];
		double v;

		double alarm;
		bool alarmed = false;

		if (!read_num(s->input, &v))
			continue; /* a sensor that fails one read (ENODATA) is not a reading */
		v *= kind_scale[s->kind];
		if (s->alarm_file[0] && read_num(s->alarm_file, &alarm)) {
			alarmed = alarm == 1;
			s->alarm = alarmed || s->alarm == 1;
		}
		if (s->kind == K_FAN && ps_fan_stopped(v, alarmed))
			s->stopped = true;
		s->last = v;
		s->min = fmin(s->min, v);
		s->max = fmax(s->max, v);
		s->sum += v;
		s->n++;
	}
	sample_freq(ss);
	ss->samples++;
}

struct ps_sensors *ps_sensors_start(const char *root)
{
	struct ps_sensors *ss = calloc(1, sizeof(*ss));
	char path[PATH_MAX];

	if (!ss)
		return NULL;
	ps_copy_str(ss->root, sizeof(ss->root), root ? root : "");
	find_hwmon(ss);
	ss->ncpus = count_cpus(ss->root);
	ss->f = calloc(ss->ncpus ? ss->ncpus : 1, sizeof(*ss->f));
	ss->core0 = calloc(ss->ncpus ? ss->ncpus : 1, sizeof(int64_t));
	ss->pkg0 = calloc(ss->ncpus ? ss->ncpus : 1, sizeof(int64_t));
	if (!ss->f || !ss->core0 || !ss->pkg0) {
		free(ss->f);
		free(ss->core0);
		free(ss->pkg0);
		free(ss);
		return NULL;
	}
	ss->nf = (size_t)ss->ncpus;
	for (int c = 0; c < ss->ncpus; c++) {
		ss->f[c].cpu = -1;
		ss->f[c].min = INFINITY;
		ss->f[c].max = -INFINITY;
		ss->core0[c] = throttle_count(ss->root, c, "core");
		ss->pkg0[c] = throttle_count(ss->root, c, "package");
	}
	if (access(ps_path(path, sizeof(path), ss->root,
			   "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"),
		   R_OK) == 0)
		ss->freq_source = "cpufreq";
	else if (access(ps_path(path, sizeof(path), ss->root, "/proc/cpuinfo"), R_OK) == 0)
		ss->freq_source = "cpuinfo";
	/* the samples come from the load sampler, the first at its start */
	return ss;
}

static json_object *num_or_null(double v, int decimals)
{
	return isfinite(v) ? ps_json_new_num(v, decimals) : NULL;
}

/* The machine, with the sensor as a person finds it on the board: "nct6776 Vbat (in8)". */
static struct ps_dev_ref sensor_ref(const struct sensor *s, char *name, size_t len)
{
	snprintf(name, len, "%s %s", s->chip, s->label);
	return (struct ps_dev_ref){PS_DEV_MACHINE, NULL, name};
}

/* A voltage rail that left the window its chip holds (min and max set by the BIOS or sensors -s).
 */
static void judge_rail(json_object *findings, const struct sensor *s)
{
	char name[96];
	struct ps_dev_ref ref = sensor_ref(s, name, sizeof(name));
	double value, limit;
	enum ps_rail_verdict v = ps_rail_judge(s->min, s->max, s->low, s->high, &value, &limit);

	if (v != PS_RAIL_LOW && v != PS_RAIL_HIGH)
		return;
	ps_rec_find(findings, "warn", "rail_out_of_range", &ref, value, limit, "V",
		    "read %.3f V during the step, %s %.3f V of the %.3f-%.3f V window programmed "
		    "in the chip (%s)%s: check the power supply and the board's regulators (the "
		    "BIOS's hardware monitor shows the rail too)",
		    value, v == PS_RAIL_LOW ? "below the minimum" : "above the maximum", limit,
		    s->low, s->high, s->device[0] ? s->device : "?",
		    s->alarm == 1 ? ", and the chip's alarm for it is set" : "");
}

/* Fans at 0 rpm with their alarms set: one finding per chip, naming its headers. */
static void judge_fans(json_object *findings, const struct ps_sensors *ss)
{
	bool done[MAX_SENSORS] = {false};

	for (size_t i = 0; i < ss->ns; i++) {
		const struct sensor *a = &ss->s[i];
		char name[256], *p = name;
		size_t n = 0;
		bool turned = false;

		if (a->kind != K_FAN || !a->stopped || done[i])
			continue;
		p += snprintf(name, sizeof(name), "%s", a->chip);
		for (size_t j = i; j < ss->ns; j++) {
			const struct sensor *b = &ss->s[j];

			if (b->kind != K_FAN || !b->stopped || strcmp(a->chip, b->chip) != 0 ||
			    strcmp(a->device, b->device) != 0)
				continue;
			done[j] = true;
			turned = turned || b->max > 0;
			if (p + strlen(b->label) + 3 < name + sizeof(name))
				p += sprintf(p, "%s%s", n ? ", " : " ", b->label);
			n++;
		}
		ps_rec_find(findings, "warn", "fan_stopped",
			    &(struct ps_dev_ref){PS_DEV_MACHINE, NULL, name}, 0, a->low, "rpm",
			    "read 0 rpm with the chip's alarm for %s set (%s)%s: a fan on %s "
			    "stopped, or the chip does not read %s (the BIOS's hardware monitor "
			    "shows whether a fan turns there): check the fan%s",
			    n > 1 ? "each" : "it", a->device[0] ? a->device : "?",
			    turned ? "; it turned earlier in the step" : "",
			    n > 1 ? "those headers" : "that header", n > 1 ? "them" : "it",
			    n > 1 ? "s" : "");
	}
}

/* A sensor's row; open: a temperature input with nothing on it. */
static json_object *sensor_json(const struct sensor *s, bool open)
{
	json_object *e = json_object_new_object();
	int dec = s->kind == K_TEMP ? 1 : s->kind == K_IN ? 3 : 0;

	ps_json_set_str(e, "chip", s->chip);
	ps_json_set_str(e, "device", s->device);
	ps_json_set_str(e, "label", s->label);
	ps_json_set_str(e, "kind", kind_names[s->kind]);
	ps_json_set_str(e, "unit", kind_units[s->kind]);
	ps_json_set(e, "min", s->n ? num_or_null(s->min, dec) : NULL);
	ps_json_set(e, "max", s->n ? num_or_null(s->max, dec) : NULL);
	ps_json_set(e, "mean", s->n ? num_or_null(s->sum / s->n, dec) : NULL);
	ps_json_set(e, "last", s->n ? num_or_null(s->last, dec) : NULL);
	/* the last reading again under its kind's name: what each kind's table shows */
	ps_json_set(e, kind_reading[s->kind], s->n ? num_or_null(s->last, dec) : NULL);
	ps_json_set(e, "sampled", json_object_new_boolean(s->n > 0));
	ps_json_set(e, "low", num_or_null(s->low, dec));
	ps_json_set(e, "high", num_or_null(s->high, dec));
	ps_json_set(e, "crit", num_or_null(s->crit, dec));
	ps_json_set_tri(e, "alarm", s->alarm);
	ps_json_set(e, "connected", s->n ? json_object_new_boolean(!open) : NULL);
	return e;
}

/* A temperature at or above its critical limit, else its high one: a warning. */
static void judge_temp(json_object *findings, const struct sensor *s)
{
	char name[96];
	struct ps_dev_ref ref = sensor_ref(s, name, sizeof(name));

	/* a limit of 0 or below is a driver that does not know it, not a limit */
	if (isfinite(s->crit) && s->crit > 0 && s->max >= s->crit)
		ps_rec_find(findings, "warn", "over_limit", &ref, s->max, s->crit, "C",
			    "reached %.1f °C during the step (%s), at or above its critical "
			    "limit %.1f °C: check the cooling",
			    s->max, s->device[0] ? s->device : "?", s->crit);
	else if (isfinite(s->high) && s->high > 0 && s->max >= s->high)
		ps_rec_find(findings, "warn", "over_limit", &ref, s->max, s->high, "C",
			    "reached %.1f °C during the step (%s), at or above its limit "
			    "%.1f °C: check the cooling",
			    s->max, s->device[0] ? s->device : "?", s->high);
}

/* Every sensor's row and findings, and the hottest temperature. */
static void sensors_json(struct ps_sensors *ss, json_object *o, json_object *findings)
{
	json_object *arr = json_object_new_array();
	double hottest = -INFINITY;
	const char *hottest_label = NULL;

	for (size_t i = 0; i < ss->ns; i++) {
		struct sensor *s = &ss->s[i];
		/* an input with nothing on it reads the same impossible value every time */
		bool open = s->kind == K_TEMP && s->n && ps_temp_unconnected(s->min) &&
			    ps_temp_unconnected(s->max);

		json_object_array_add(arr, sensor_json(s, open));
		if (s->kind == K_IN && s->n)
			judge_rail(findings, s);
		if (s->kind != K_TEMP || !s->n || open)
			continue;
		if (s->max > hottest) {
			hottest = s->max;
			hottest_label = s->label;
		}
		judge_temp(findings, s);
	}
	judge_fans(findings, ss);
	ps_json_set(o, "sensors", arr);
	ps_json_set(o, "hottest_c", isfinite(hottest) ? ps_json_new_num(hottest, 1) : NULL);
	ps_json_set_str(o, "hottest", hottest_label);
}

/* The thermal-throttle events during the step, per CPU and in all, with their finding. */
static bool throttle_json(struct ps_sensors *ss, bool throughput, json_object *o,
			  json_object *findings)
{
	json_object *thr = json_object_new_object(), *tcpus = json_object_new_array();
	int64_t total_core = 0, total_pkg = 0;
	bool known = false;
	char cpus[256] = "";
	size_t used = 0;

	for (int c = 0; c < ss->ncpus; c++) {
		int64_t core = throttle_count(ss->root, c, "core"),
			pkg = throttle_count(ss->root, c, "package");
		int64_t dc = core >= 0 && ss->core0[c] >= 0 ? core - ss->core0[c] : 0;
		int64_t dp = pkg >= 0 && ss->pkg0[c] >= 0 ? pkg - ss->pkg0[c] : 0;
		json_object *e;
		int w;

		known |= core >= 0 || pkg >= 0;
		if (dc <= 0 && dp <= 0)
			continue;
		e = json_object_new_object();
		ps_json_set(e, "cpu", json_object_new_int(c));
		ps_json_set(e, "core", json_object_new_int64(dc > 0 ? dc : 0));
		ps_json_set(e, "package", json_object_new_int64(dp > 0 ? dp : 0));
		json_object_array_add(tcpus, e);
		total_core += dc > 0 ? dc : 0;
		total_pkg += dp > 0 ? dp : 0;
		w = snprintf(cpus + used, sizeof(cpus) - used, "%s%d", used ? ", " : "CPU ", c);
		if (w > 0 && (size_t)w < sizeof(cpus) - used)
			used += (size_t)w;
	}
	ps_json_set(thr, "available", json_object_new_boolean(known));
	ps_json_set(thr, "core", known ? json_object_new_int64(total_core) : NULL);
	ps_json_set(thr, "package", known ? json_object_new_int64(total_pkg) : NULL);
	ps_json_set(thr, "cpus", tcpus);
	ps_json_set(o, "throttle", thr);
	if (total_core || total_pkg)
		ps_rec_find(findings, throughput ? "warn" : "info", "throttled",
			    &(struct ps_dev_ref){PS_DEV_MACHINE, NULL, cpus},
			    (double)(total_core + total_pkg), 0, "events",
			    "throttled during the step (%lld core, %lld package events): it slowed "
			    "down for heat or power, so %s",
			    (long long)total_core, (long long)total_pkg,
			    throughput ? "this step's figures may be low for that reason, not the "
					 "device's"
				       : "check the cooling");
	return known;
}

/* Each CPU's clock over the step: min, mean, max. */
static json_object *freq_json(const struct ps_sensors *ss)
{
	json_object *freq = json_object_new_object(), *fcpus = json_object_new_array();

	ps_json_set_str(freq, "source", ss->freq_source);
	for (size_t c = 0; c < ss->nf; c++) {
		const struct cpu_freq *f = &ss->f[c];
		json_object *e;

		if (!f->n)
			continue;
		e = json_object_new_object();
		ps_json_set(e, "cpu", json_object_new_int(f->cpu));
		ps_json_set_num(e, "min_mhz", f->min, 0);
		ps_json_set_num(e, "mean_mhz", f->sum / f->n, 0);
		ps_json_set_num(e, "max_mhz", f->max, 0);
		json_object_array_add(fcpus, e);
	}
	ps_json_set(freq, "cpus", fcpus);
	return freq;
}

json_object *ps_sensors_stop(struct ps_sensors *ss, bool throughput)
{
	json_object *o = json_object_new_object(), *findings;
	bool throttle_known;

	if (!ss) {
		ps_json_set(o, "available", json_object_new_boolean(0));
		ps_json_set_str(o, "reason", "out of memory at the step's start");
		return o;
	}
	findings = json_object_new_array();
	ps_json_set(o, "samples", json_object_new_int((int)ss->samples));
	sensors_json(ss, o, findings);
	throttle_known = throttle_json(ss, throughput, o, findings);
	ps_json_set(o, "freq", freq_json(ss));
	ps_json_set(o, "available",
		    json_object_new_boolean(ss->ns || throttle_known || ss->freq_source));
	ps_json_set(o, "findings", findings);
	free(ss->f);
	free(ss->core0);
	free(ss->pkg0);
	free(ss);
	return o;
}

/* ---- view ---- */

static const struct ps_col summary_cols[] = {
    {.path = "/hottest_c",
     .title = "hottest",
     .unit = "C",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/hottest", .title = "sensor"},
    {.path = "/throttle/core", .title = "throttled (core)", .better = PS_BETTER_LOWER},
    {.path = "/throttle/package", .title = "throttled (package)", .better = PS_BETTER_LOWER},
    {.path = "/freq/source", .title = "frequency from"},
};

/* Reports written before the tables by kind: every sensor in one table, as they were shown. */
static const struct ps_col sensor_cols[] = {
    {.path = "/chip", .title = "chip", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_KEY | PS_COL_OPTIONAL},
    {.path = "/label", .title = "sensor", .flags = PS_COL_KEY},
    {.path = "/min", .title = "min", .decimals = 1},
    {.path = "/max", .title = "max", .decimals = 1, .better = PS_BETTER_LOWER},
    {.path = "/unit", .title = "unit"},
    {.path = "/high", .title = "high", .decimals = 1, .flags = PS_COL_OPTIONAL},
    {.path = "/crit", .title = "crit", .decimals = 1, .flags = PS_COL_OPTIONAL},
};

static const struct ps_col temp_cols[] = {
    {.path = "/chip", .title = "chip", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_KEY | PS_COL_OPTIONAL},
    {.path = "/label", .title = "sensor", .flags = PS_COL_KEY},
    {.path = "/min", .title = "min C", .decimals = 1},
    {.path = "/max", .title = "max C", .decimals = 1, .better = PS_BETTER_LOWER},
    {.path = "/high", .title = "high", .decimals = 1, .flags = PS_COL_OPTIONAL},
    {.path = "/crit", .title = "crit", .decimals = 1, .flags = PS_COL_OPTIONAL},
    {.path = "/connected", .title = "connected", .fmt = PS_FMT_BOOL, .flags = PS_COL_OPTIONAL},
};

static const struct ps_col fan_cols[] = {
    {.path = "/chip", .title = "chip", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_KEY | PS_COL_OPTIONAL},
    {.path = "/label", .title = "fan", .flags = PS_COL_KEY},
    {.path = "/min", .title = "min rpm"},
    {.path = "/max", .title = "max rpm"},
    {.path = "/low", .title = "limit", .flags = PS_COL_OPTIONAL},
    {.path = "/alarm", .title = "alarm", .fmt = PS_FMT_BOOL},
};

static const struct ps_col rail_cols[] = {
    {.path = "/chip", .title = "chip", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_KEY | PS_COL_OPTIONAL},
    {.path = "/label", .title = "rail", .flags = PS_COL_KEY},
    {.path = "/min", .title = "min V", .decimals = 3},
    {.path = "/max", .title = "max V", .decimals = 3},
    {.path = "/low", .title = "low", .decimals = 3, .flags = PS_COL_OPTIONAL},
    {.path = "/high", .title = "high", .decimals = 3, .flags = PS_COL_OPTIONAL},
    {.path = "/alarm", .title = "alarm", .fmt = PS_FMT_BOOL},
};

static const struct ps_col freq_cols[] = {
    {.path = "/cpu", .title = "cpu", .flags = PS_COL_KEY},
    {.path = "/min_mhz", .title = "min MHz"},
    {.path = "/mean_mhz", .title = "mean MHz", .better = PS_BETTER_HIGHER},
    {.path = "/max_mhz", .title = "max MHz"},
};

static const struct ps_col throttle_cols[] = {
    {.path = "/cpu", .title = "cpu", .flags = PS_COL_KEY},
    {.path = "/core", .title = "core throttles", .better = PS_BETTER_LOWER},
    {.path = "/package", .title = "package throttles", .better = PS_BETTER_LOWER},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "summary",
     .rows = "",
     .when = "/available",
     .cols = PS_COLS(summary_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "sensors_v1",
     .title = "Sensors during the step",
     .rows = "/sensors",
     .when = "/max",
     .unless = "/sampled",
     .cols = PS_COLS(sensor_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "sensors",
     .title = "Temperatures during the step",
     .rows = "/sensors",
     .when = "/celsius",
     .cols = PS_COLS(temp_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "fans",
     .title = "Fans during the step",
     .rows = "/sensors",
     .when = "/rpm",
     .cols = PS_COLS(fan_cols),
     .note = "limit: the minimum the chip holds; alarm: the chip flagged the fan"},
    {.kind = PS_BLOCK_TABLE,
     .id = "rails",
     .title = "Voltages during the step",
     .rows = "/sensors",
     .when = "/volts",
     .cols = PS_COLS(rail_cols),
     .note = "low, high: the window programmed in the chip (0-0 or equal: never set, "
	     "not judged)"},
    {.kind = PS_BLOCK_TABLE,
     .id = "throttle",
     .title = "CPUs that throttled",
     .rows = "/throttle/cpus",
     .cols = PS_COLS(throttle_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "freq",
     .title = "CPU frequency",
     .rows = "/freq/cpus",
     .cols = PS_COLS(freq_cols),
     .flags = PS_BLOCK_NO_TEXT},
};

const struct ps_view ps_sensors_view = {
    .name = "sensors",
    .version = 1,
    .scope = PS_SCOPE_MEMBER,
    .blocks = PS_BLOCKS(blocks),
};

/* ---- registered: sensors sampled with the load, around every step ---- */

static void *sensors_start(struct ps_rec_ctx *rc, void *plan)
{
	return ps_sensors_start(rc->root);
}

static json_object *sensors_stop(void *state, struct ps_rec_ctx *rc)
{
	return ps_sensors_stop(state, rc->throughput);
}

static const struct ps_rec_rule sensors_owns[] = {{"cpu_throttle", "/throttle/available"},
						  {NULL, NULL}};

static const struct ps_recorder_ops sensors_recorder = {
    .abi = PS_RECORDER_ABI,
    .name = "sensors",
    .order = 40,
    .show = 40,
    .view = &ps_sensors_view,
    .owns = sensors_owns,
    .start = sensors_start,
    .stop = sensors_stop,
    .sample = ps_sensors_sample,
};
PS_RECORDER_REGISTER(sensors_recorder);
