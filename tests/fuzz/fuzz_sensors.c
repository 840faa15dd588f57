/*
 * fuzz_sensors.c - the sensors recorder over a tree of the input's files
 * (record/sensors.c): hwmon chips (sys/class/hwmon/hwmonN/name,
 * temp/fan/inN_input, _label, _min, _max, _crit, _alarm, and the old
 * drivers' device/ directory), the CPUs' thermal_throttle counters and cpufreq's
 * scaling_cur_freq (sys/devices/system/cpu/cpuN/...), else /proc/cpuinfo's
 * "cpu MHz" (ps_cpuinfo_mhz); every number through ps_read_s64
 * (ps_parse_s64). Started, sampled, sampled again after the changes,
 * stopped, and the "sensors" object through its view.
 * Input: the tree's files as fuzz_tree.h reads them (paths below the
 * root: "sys/class/hwmon/hwmon0/temp1_input\n45000"), "@" between the
 * start's tree and what changed by the end. The step measures throughput
 * (a throttled CPU is a warning).
 */
// fuzz-sources: all
#include "fuzz_tree.h"

#include "lib/util.h"
#include "record/platform.h"
#include "report/report.h"

#include <math.h>

static void render(json_object *sensors)
{
	static const struct ps_view *const views[] = {&ps_sensors_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("fuzz"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "sensors", sensors);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	json_object_put(report);
}

/* Each "cpu MHz" of the cpuinfo text, as the pure reader gives it. */
static void each_mhz(void *arg, int cpu, double mhz)
{
	FUZZ_CHECK(cpu >= -1);
	(*(unsigned int *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_tree t;
	struct ps_sensors *ss;
	json_object *o, *sens;
	char path[PATH_MAX], *text;
	size_t len;
	bool more;

	fuzz_tree_init(&t, "sensors", data, size);
	more = fuzz_tree_write(&t);
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", t.root);
	if (ps_read_all(path, &text, &len) == 0) {
		unsigned int n = 0;

		ps_cpuinfo_mhz(text, len, each_mhz, &n);
		FUZZ_CHECK(n <= len / 8); /* "cpu MHz:" and a digit at least per line */
		free(text);
	}
	ss = ps_sensors_start(t.root);
	FUZZ_CHECK(ss);
	ps_sensors_sample(ss);
	if (more)
		fuzz_tree_write(&t);
	ps_sensors_sample(ss);
	o = ps_sensors_stop(ss, true);
	FUZZ_CHECK(o);
	sens = ps_json_arr(o, "sensors");
	for (size_t i = 0; i < ps_json_len(sens); i++) {
		double mn, mx;
		json_object *s = ps_json_at(sens, i);

		if (ps_json_num(s, "min", &mn) && ps_json_num(s, "max", &mx))
			FUZZ_CHECK(mn <= mx);
	}
	fuzz_dump(o);
	fuzz_check_strings(o);
	render(o);
	return 0;
}
