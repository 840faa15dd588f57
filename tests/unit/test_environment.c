/*
 * test_environment.c - the environment reader over a recorded sysfs tree:
 * CPU frequency policy (CPUs with different governors), boost through
 * intel_pstate's no_turbo, SMT, mitigations, huge pages, temperatures; and
 * an empty tree, where every field stays unknown.
 */
#include "check.h"
#include "hw/inventory.h"
#include "lib/json.h"

#include <string.h>

#define ROOT FIXTURES "/sysroot-environment"

static void test_workstation(void)
{
	struct ps_environment e;
	json_object *r = json_object_new_object(), *env, *m;

	CHECK_INT(ps_environment_read(ROOT, &e), 0);
	CHECK(e.read);
	CHECK_STR(e.cpufreq_driver, "intel_pstate");
	CHECK_STR(e.governor, "performance,powersave"); /* cpu0 and cpu1 differ */
	CHECK_INT(e.min_khz, 800000);
	CHECK_INT(e.max_khz, 4700000);
	CHECK_INT(e.hw_max_khz, 4700000);
	CHECK_INT(e.boost, 0); /* no_turbo = 1 */
	CHECK_STR(e.epp, "balance_performance");
	CHECK_STR(e.cpuidle_driver, "intel_idle");
	CHECK_STR(e.smt_control, "on");
	CHECK_INT(e.smt_active, 1);
	CHECK_STR(e.thp, "madvise");
	CHECK_INT(e.n_mitigations, 3);
	CHECK_STR(e.mitigations[0].name, "mds");
	CHECK_STR(e.mitigations[0].value,
		  "Vulnerable: Clear CPU buffers attempted, no microcode; SMT vulnerable");
	CHECK_STR(e.mitigations[2].name, "spectre_v2");
	/* the hottest input per chip; a chip with no input is left out */
	CHECK_INT(e.n_temps, 2);
	CHECK_STR(e.temps[0].sensor, "coretemp");
	CHECK(e.temps[0].max_c == 52.0);
	CHECK_STR(e.temps[1].sensor, "nvme");
	CHECK(e.temps[1].max_c > 38.8 && e.temps[1].max_c < 38.9);
	ps_environment_json(&e, r);
	env = ps_json_get(r, "environment");
	CHECK_STR(ps_json_str(ps_json_get(env, "cpufreq"), "governor"), "performance,powersave");
	CHECK_INT(ps_json_bool(ps_json_get(env, "cpufreq"), "boost"), 0);
	m = ps_json_at(ps_json_arr(env, "mitigations"), 1);
	CHECK_STR(ps_json_str(m, "name"), "meltdown");
	CHECK_STR(ps_json_str(m, "state"), "Not affected");
	CHECK_STR(json_object_to_json_string(
		      ps_json_get(ps_json_at(ps_json_arr(env, "temperatures"), 1), "max_c")),
		  "39");
	json_object_put(r);
}

static void test_nothing_there(void)
{
	struct ps_environment e;
	json_object *r = json_object_new_object(), *f;

	CHECK_INT(ps_environment_read(FIXTURES "/core/empty-root", &e), 0);
	CHECK(!e.governor[0] && !e.cpufreq_driver[0] && !e.smt_control[0]);
	CHECK_INT(e.max_khz, PS_UNKNOWN);
	CHECK_INT(e.boost, PS_TRI_UNKNOWN);
	CHECK_INT(e.n_mitigations + e.n_temps, 0);
	ps_environment_json(&e, r);
	f = ps_json_get(ps_json_get(r, "environment"), "cpufreq");
	/* unknown is null, never 0 or false */
	CHECK(f && json_object_object_get_ex(f, "max_khz", NULL) && !ps_json_get(f, "max_khz"));
	CHECK(!ps_json_get(f, "boost") && !ps_json_get(f, "governor"));
	json_object_put(r);
}

int main(void)
{
	test_workstation();
	test_nothing_there();
	return check_done("test_environment");
}
