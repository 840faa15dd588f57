/*
 * test_sensors.c - sensors during a step on a temp sysfs tree: hwmon
 * temperatures, fans and voltages (min, max, mean over the samples, the
 * driver's limits), the throttle counters' deltas (warn in a throughput
 * step, info otherwise), a limit reached, CPU frequency from cpufreq or
 * /proc/cpuinfo.
 */
#include "check.h"
#include "json_get.h"
#include "tree.h"

#include "record/platform.h"
#include "lib/json.h"

#include <math.h>

#define CPU "/sys/devices/system/cpu"

static json_object *finding(json_object *o, const char *rule)
{
	json_object *f = ps_json_arr(o, "findings");

	for (size_t i = 0; i < ps_json_len(f); i++)
		if (strcmp(ps_json_str_or(ps_json_at(f, i), "rule", ""), rule) == 0)
			return ps_json_at(f, i);
	return NULL;
}

static json_object *sensor(json_object *o, const char *label)
{
	json_object *a = get(o, "sensors");

	for (size_t i = 0; i < ps_json_len(a); i++)
		if (strcmp(ps_json_str_or(ps_json_at(a, i), "label", ""), label) == 0)
			return ps_json_at(a, i);
	return NULL;
}

static void machine(const char *root, int temp, int throttles)
{
	tree_write(root, "/sys/class/hwmon/hwmon0/name", "coretemp\n", 0);
	tree_write(root, "/sys/class/hwmon/hwmon0/temp1_label", "Package id 0\n", 0);
	tree_printf(root, "/sys/class/hwmon/hwmon0/temp1_input", "%d\n", temp);
	tree_write(root, "/sys/class/hwmon/hwmon0/temp1_max", "84000\n", 0);
	tree_write(root, "/sys/class/hwmon/hwmon0/temp1_crit", "100000\n", 0);
	tree_write(root, "/sys/class/hwmon/hwmon1/name", "nct6798\n", 0);
	tree_write(root, "/sys/class/hwmon/hwmon1/fan1_input", "1200\n", 0);
	tree_write(root, "/sys/class/hwmon/hwmon1/in0_input", "1096\n", 0);
	tree_write(root, "/sys/class/hwmon/hwmon1/in0_label", "Vcore\n", 0);
	for (int c = 0; c < 2; c++) {
		char p[128];

		snprintf(p, sizeof(p), CPU "/cpu%d/thermal_throttle/core_throttle_count", c);
		tree_printf(root, p, "%d\n", c == 1 ? throttles : 0);
		snprintf(p, sizeof(p), CPU "/cpu%d/thermal_throttle/package_throttle_count", c);
		tree_write(root, p, "7\n", 0);
		snprintf(p, sizeof(p), CPU "/cpu%d/cpufreq/scaling_cur_freq", c);
		tree_printf(root, p, "%d\n", 3000000 + c * 100000);
	}
}

static void test_throughput_step(void)
{
	char *root = tree_new("test_sensors");
	struct ps_sensors *ss;
	json_object *o, *x;

	machine(root, 61000, 10);
	ss = ps_sensors_start(root);
	ps_sensors_sample(ss);
	machine(root, 86000, 14); /* hotter, and CPU 1 throttled 4 times */
	ps_sensors_sample(ss);
	o = ps_sensors_stop(ss, true);
	CHECK(b(o, "available") == 1);
	CHECK_INT(n(o, "samples"), 2);
	x = sensor(o, "Package id 0");
	CHECK(x != NULL);
	CHECK_STR(s(x, "chip"), "coretemp");
	CHECK(fabs(d(x, "min") - 61.0) < 1e-9);
	CHECK(fabs(d(x, "max") - 86.0) < 1e-9);
	CHECK(fabs(d(x, "mean") - 73.5) < 1e-9);
	CHECK(fabs(d(x, "high") - 84.0) < 1e-9);
	CHECK(fabs(d(x, "crit") - 100.0) < 1e-9);
	CHECK(fabs(d(sensor(o, "Vcore"), "max") - 1.096) < 1e-9);
	CHECK_STR(s(sensor(o, "Vcore"), "unit"), "V");
	CHECK(fabs(d(sensor(o, "fan1"), "max") - 1200) < 1e-9);
	CHECK(get(sensor(o, "fan1"), "high") == NULL);
	CHECK(fabs(d(o, "hottest_c") - 86.0) < 1e-9);
	CHECK_INT(n(get(o, "throttle"), "core"), 4);
	CHECK_INT(n(get(o, "throttle"), "package"), 0);
	x = finding(o, "throttled");
	CHECK_STR(s(x, "severity"), "warn");
	CHECK(strstr(s(x, "message"), "CPU 1 throttled") != NULL);
	x = finding(o, "over_limit");
	CHECK_STR(s(x, "severity"), "warn");
	CHECK(d(x, "limit") == 84);
	CHECK_STR(s(get(o, "freq"), "source"), "cpufreq");
	x = json_object_array_get_idx(get(get(o, "freq"), "cpus"), 1);
	CHECK_INT(n(x, "cpu"), 1);
	CHECK(fabs(d(x, "mean_mhz") - 3100) < 1e-9);
	json_object_put(o);

	/* the same throttling during a step that measures nothing: information */
	machine(root, 60000, 20);
	ss = ps_sensors_start(root);
	machine(root, 60000, 21);
	o = ps_sensors_stop(ss, false);
	CHECK_STR(s(finding(o, "throttled"), "severity"), "info");
	CHECK(finding(o, "over_limit") == NULL);
	CHECK_INT(n(o, "samples"), 0);
	CHECK(get(sensor(o, "Package id 0"), "max") == NULL); /* no sample: no reading */
	json_object_put(o);
	tree_done(root);
}

static void test_bare(void)
{
	char *root = tree_new("test_sensors_vm");
	struct ps_sensors *ss;
	json_object *o, *x;

	/* a virtual machine: no hwmon, no throttle counters, "cpu MHz" in cpuinfo */
	tree_write(root, CPU "/cpu0/online", "1\n", 0);
	tree_write(root, "/proc/cpuinfo",
		   "processor\t: 0\nmodel name\t: QEMU Virtual CPU\ncpu MHz\t\t: 2593.906\n\n", 0);
	ss = ps_sensors_start(root);
	ps_sensors_sample(ss);
	o = ps_sensors_stop(ss, true);
	CHECK(b(o, "available") == 1);
	CHECK_INT(json_object_array_length(get(o, "sensors")), 0);
	CHECK(b(get(o, "throttle"), "available") == 0);
	CHECK(get(get(o, "throttle"), "core") == NULL);
	CHECK_STR(s(get(o, "freq"), "source"), "cpuinfo");
	x = json_object_array_get_idx(get(get(o, "freq"), "cpus"), 0);
	CHECK(fabs(d(x, "max_mhz") - 2594) < 1e-9);
	CHECK_INT(json_object_array_length(get(o, "findings")), 0);
	json_object_put(o);
	tree_done(root);
}

struct mhz_seen {
	int cpu[4];
	double mhz[4];
	int n;
};

static void mhz_each(void *arg, int cpu, double mhz)
{
	struct mhz_seen *m = arg;

	if (m->n < 4) {
		m->cpu[m->n] = cpu;
		m->mhz[m->n] = mhz;
	}
	m->n++;
}

/* The pure /proc/cpuinfo reader: per "processor" its "cpu MHz"; junk, NULs and no newline at the
 * end. */
static void test_cpuinfo_text(void)
{
	static const char text[] = "cpu MHz\t: 100.5\n"
				   "processor\t: 0\ncpu MHz\t\t: 2593.906\n\n"
				   "processor\t: 3\nflags\t: fpu\ncpu MHz : abc\n"
				   "cpu MHz\0: 7\n"
				   "processor\t: 5\ncpu MHz\t: 800";
	struct mhz_seen m = {0};

	ps_cpuinfo_mhz(text, sizeof(text) - 1, mhz_each, &m);
	CHECK_INT(m.n, 3);
	CHECK_INT(m.cpu[0], -1);
	CHECK(fabs(m.mhz[0] - 100.5) < 1e-9);
	CHECK_INT(m.cpu[1], 0);
	CHECK(fabs(m.mhz[1] - 2593.906) < 1e-9);
	CHECK_INT(m.cpu[2], 5);
	CHECK(fabs(m.mhz[2] - 800) < 1e-9);
	m.n = 0;
	ps_cpuinfo_mhz(text, 0, mhz_each, &m);
	CHECK_INT(m.n, 0);
}

int main(void)
{
	test_throughput_step();
	test_bare();
	test_cpuinfo_text();
	return check_done("test_sensors");
}
