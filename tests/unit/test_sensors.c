/*
 * test_sensors.c - sensors during a step on a temp sysfs tree: hwmon
 * temperatures, fans and voltages (min, max, mean over the samples, the
 * driver's limits), the throttle counters' deltas (warn in a throughput
 * step, info otherwise), a limit reached, CPU frequency from cpufreq or
 * /proc/cpuinfo; recorded desktop boards (tests/fixtures/power/hwmon): a
 * rail outside the window its chip holds, fans at 0 rpm with their alarms
 * set, an open temperature input, and a board whose limits were never set,
 * which gives no finding at all.
 */
#include "check.h"
#include "json_get.h"
#include "tree.h"

#include "decode/hwmon_limits.h"
#include "record/platform.h"
#include "report/report.h"
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
	CHECK_STR(s(x, "subject"), "CPU 1");
	CHECK(strstr(s(x, "message"), "throttled during the step (4 core, 0 package") != NULL);
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

/* How many elements of o's array have key equal to value. */
static size_t count(json_object *o, const char *array, const char *key, const char *value)
{
	json_object *a = ps_json_arr(o, array);
	size_t k = 0;

	for (size_t i = 0; i < ps_json_len(a); i++)
		k += strcmp(ps_json_str_or(ps_json_at(a, i), key, ""), value) == 0;
	return k;
}

#define count_rule(o, rule) count(o, "findings", "rule", rule)
#define count_kind(o, kind) count(o, "sensors", "kind", kind)

/* NCT6776F on an ASRock 970 Extreme4 (a forum post, 2012): Vbat above its window, every fan
 * at 0 rpm with its alarm set, AUXTIN open. */
static void test_nct6776_board(void)
{
	struct ps_sensors *ss =
	    ps_sensors_start(FIXTURES "/power/hwmon/nct6776-asrock-970-extrem4");
	json_object *o, *x;

	ps_sensors_sample(ss);
	ps_sensors_sample(ss);
	o = ps_sensors_stop(ss, true);
	CHECK_INT(count_kind(o, "fan"), 5);
	CHECK_INT(count_kind(o, "in"), 8);
	CHECK_INT(count_kind(o, "temp"), 3);
	x = sensor(o, "Vbat (in8)");
	CHECK(x != NULL);
	CHECK_STR(s(x, "chip"), "nct6776");
	CHECK_STR(s(x, "device"), "nct6775.656");
	CHECK(fabs(d(x, "volts") - 3.344) < 1e-9);
	CHECK(fabs(d(x, "low") - 2.704) < 1e-9);
	CHECK(fabs(d(x, "high") - 3.296) < 1e-9);
	CHECK(b(x, "alarm") == 1);
	CHECK(sensor(o, "+3.3V (in3)") != NULL);
	CHECK(sensor(o, "in1") != NULL); /* no name known for a board-wired input */
	/* one rail out of its window: in1, in4 and in5 alarm with a 0-0 window, which says nothing
	 */
	CHECK_INT(count_rule(o, "rail_out_of_range"), 1);
	x = finding(o, "rail_out_of_range");
	CHECK_STR(s(x, "severity"), "warn");
	CHECK(fabs(d(x, "value") - 3.344) < 1e-9);
	CHECK(fabs(d(x, "limit") - 3.296) < 1e-9);
	CHECK_STR(s(x, "unit"), "V");
	CHECK_STR(s(x, "subject"), "nct6776 Vbat (in8)"); /* as the person finds it */
	CHECK_STR(s(x, "kind"), "machine");
	CHECK(strstr(s(x, "message"), "read 3.344 V during the step") != NULL);
	CHECK(strstr(s(x, "message"), "(nct6775.656)") != NULL);
	CHECK(strstr(s(x, "message"), "above the maximum 3.296 V") != NULL);
	/* five fans at 0 rpm with their alarms: one finding naming the chip's headers */
	CHECK_INT(count_rule(o, "fan_stopped"), 1);
	x = finding(o, "fan_stopped");
	CHECK_STR(s(x, "subject"), "nct6776 fan1, fan2, fan3, fan4, fan5");
	CHECK(strstr(s(x, "message"), "read 0 rpm with the chip's alarm for each set") != NULL);
	CHECK(d(x, "value") == 0);
	CHECK(b(sensor(o, "fan3"), "alarm") == 1);
	/* AUXTIN reads 127.5 °C: nothing is connected, no limit was reached */
	CHECK(b(sensor(o, "AUXTIN"), "connected") == 0);
	CHECK(b(sensor(o, "CPUTIN"), "connected") == 1);
	CHECK_INT(count_rule(o, "over_limit"), 0);
	CHECK(fabs(d(o, "hottest_c") - 27.0) < 1e-9);
	CHECK_STR(s(o, "hottest"), "SYSTIN");
	json_object_put(o);
}

/* NCT6798D (linux-hwmon, 2020): limits never set, empty fan headers: no finding. */
static void test_nct6798_unset_limits(void)
{
	struct ps_sensors *ss = ps_sensors_start(FIXTURES "/power/hwmon/nct6798-linux-hwmon-2020");
	json_object *o;

	ps_sensors_sample(ss);
	o = ps_sensors_stop(ss, true);
	CHECK_INT(count_kind(o, "in"), 15);
	CHECK_INT(count_kind(o, "fan"), 7);
	CHECK_INT(count_kind(o, "temp"), 10);
	CHECK(fabs(d(sensor(o, "fan2"), "rpm") - 1138) < 1e-9);
	CHECK(b(sensor(o, "fan1"), "alarm") == 0);
	CHECK(b(sensor(o, "in5"), "alarm") == 1);
	CHECK(fabs(d(sensor(o, "Vcore (in0)"), "volts") - 0.936) < 1e-9);
	CHECK_INT(ps_json_len(ps_json_arr(o, "findings")), 0);
	CHECK_STR(s(o, "hottest"), "SMBUSMASTER 1");
	json_object_put(o);
}

/* A fan that turned and stopped during the step, its alarm raised by the chip. */
static void test_fan_stops(void)
{
	char *root = tree_new("test_sensors_fan");
	const char *hw = "/sys/class/hwmon/hwmon0";
	struct ps_sensors *ss;
	json_object *o, *x;
	char p[128];

	snprintf(p, sizeof(p), "%s/name", hw);
	tree_write(root, p, "it8728\n", 0);
	snprintf(p, sizeof(p), "%s/fan1_input", hw);
	tree_write(root, p, "1380\n", 0);
	snprintf(p, sizeof(p), "%s/fan1_min", hw);
	tree_write(root, p, "300\n", 0);
	snprintf(p, sizeof(p), "%s/fan1_alarm", hw);
	tree_write(root, p, "0\n", 0);
	ss = ps_sensors_start(root);
	ps_sensors_sample(ss);
	snprintf(p, sizeof(p), "%s/fan1_input", hw);
	tree_write(root, p, "0\n", 0);
	ps_sensors_sample(ss); /* 0 rpm, the alarm not raised yet: not a finding */
	snprintf(p, sizeof(p), "%s/fan1_alarm", hw);
	tree_write(root, p, "1\n", 0);
	ps_sensors_sample(ss);
	o = ps_sensors_stop(ss, false);
	CHECK_INT(count_rule(o, "fan_stopped"), 1);
	x = finding(o, "fan_stopped");
	CHECK(d(x, "limit") == 300);
	CHECK_STR(s(x, "subject"), "it8728 fan1");
	CHECK(strstr(s(x, "message"), "it turned earlier in the step") != NULL);
	json_object_put(o);
	tree_done(root);
}

/* The rail rule on windows real boards hold (sensors output of an it8792, nct6795, w83627dhg). */
static void test_rail_judge(void)
{
	static const struct {
		double lo, hi, min, max;
		enum ps_rail_verdict v;
		double value, limit;
	} cases[] = {
	    {0.90, 0.93, 0, 1.744, PS_RAIL_OK, NAN, NAN},	  /* Vcore: a max only */
	    {2.78, 2.78, 0, 2.78, PS_RAIL_OK, NAN, NAN},	  /* at full scale: within */
	    {1.83, 1.83, 2.04, 2.04, PS_RAIL_UNJUDGED, NAN, NAN}, /* both at 0xff: unset */
	    {1.02, 1.02, 0, 0, PS_RAIL_UNJUDGED, NAN, NAN},	  /* both 0: unset */
	    {1.85, 1.85, 0.30, 0.29, PS_RAIL_UNJUDGED, NAN, NAN}, /* crossed: unset */
	    {1.54, 1.54, 0.07, 0.35, PS_RAIL_HIGH, 1.54, 0.35},	  /* a window, left */
	    {11.0, 12.1, 11.42, 12.58, PS_RAIL_LOW, 11.0, 11.42}, /* +12V sagged */
	    {3.20, 3.80, 2.98, 3.63, PS_RAIL_HIGH, 3.80, 3.63},	  /* both ways: the worse */
	    {NAN, NAN, 2.98, 3.63, PS_RAIL_UNJUDGED, NAN, NAN},	  /* no reading */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v, l;

		CHECK_INT(
		    ps_rail_judge(cases[i].lo, cases[i].hi, cases[i].min, cases[i].max, &v, &l),
		    cases[i].v);
		CHECK(isnan(cases[i].value) ? isnan(v) : fabs(v - cases[i].value) < 1e-9);
		CHECK(isnan(cases[i].limit) ? isnan(l) : fabs(l - cases[i].limit) < 1e-9);
	}
	CHECK(ps_fan_stopped(0, 1) && !ps_fan_stopped(1068, 1) && !ps_fan_stopped(0, 0) &&
	      !ps_fan_stopped(0, -1));
	CHECK(ps_temp_unconnected(127.5) && ps_temp_unconnected(-128) && !ps_temp_unconnected(0) &&
	      !ps_temp_unconnected(99.5));
	CHECK_STR(ps_rail_name("nct6798", "in8"), "Vbat");
	CHECK_STR(ps_rail_name("w83627dhg", "in0"), "Vcore");
	CHECK(ps_rail_name("nct6798", "in1") == NULL);
	CHECK(ps_rail_name("nct6106", "in8") == NULL); /* wired otherwise */
	CHECK(ps_rail_name("it8728", "in8") == NULL);  /* it87 labels its own */
}

/* The sensors member of a step as report.txt shows it (malloc'd). */
static char *shown(json_object *sensors)
{
	static const struct ps_view *const views[] = {&ps_sensors_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("smart"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "sensors", sensors);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	json_object_put(report);
	return text;
}

/* Tables by kind for this version's reports; an older report's sensors in one table as before. */
static void test_view_versions(void)
{
	struct ps_sensors *ss =
	    ps_sensors_start(FIXTURES "/power/hwmon/nct6776-asrock-970-extrem4");
	char *text;

	ps_sensors_sample(ss);
	text = shown(ps_sensors_stop(ss, false));
	CHECK(strstr(text, "Temperatures during the step") != NULL);
	CHECK(strstr(text, "Fans during the step") != NULL);
	CHECK(strstr(text, "Voltages during the step") != NULL);
	CHECK(strstr(text, "Vbat (in8)   3.344") != NULL);
	CHECK(strstr(text, "Sensors during the step") == NULL);
	free(text);
	text = shown(json_tokener_parse(
	    "{\"available\": true, \"samples\": 2, \"sensors\": [{\"chip\": \"coretemp\", "
	    "\"label\": \"Package id 0\", \"kind\": \"temp\", \"unit\": \"C\", \"min\": 41.0, "
	    "\"max\": 57.0}, {\"chip\": \"nct6798\", \"label\": \"fan2\", \"kind\": \"fan\", "
	    "\"unit\": \"rpm\", \"min\": 1130, \"max\": 1140}]}"));
	CHECK(strstr(text, "Sensors during the step") != NULL);
	CHECK(strstr(text, "Package id 0") != NULL && strstr(text, "fan2") != NULL);
	CHECK(strstr(text, "Temperatures during the step") == NULL);
	free(text);
}

int main(void)
{
	test_rail_judge();
	test_throughput_step();
	test_nct6776_board();
	test_nct6798_unset_limits();
	test_fan_stops();
	test_view_versions();
	test_bare();
	test_cpuinfo_text();
	return check_done("test_sensors");
}
