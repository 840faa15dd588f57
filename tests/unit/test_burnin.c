/*
 * test_burnin.c - the burnin step's pure parts: stress-ng's log as a
 * recorded run printed it (a successful one of this machine's stress-ng
 * 0.15.06, and one with verification failures in the same format), the MCE
 * line of /proc/interrupts, and the verdict rules over recorded series:
 * a clean run passes; throttling, corrected errors and a temperature near
 * crit warn; a stressor's failure, a machine check, an uncorrected error
 * and an oops fail. The step's summary over a recorded series, and the
 * step itself on a recorded sysfs tree, with no stress-ng to start and with
 * one that prints a recorded run (its typed result held to its strict
 * schema by the harness; nothing is stressed).
 */
#include "check.h"
#include "step_harness.h"

#include "../../userland/steps/burnin.c"

#include <sys/stat.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	if (f) {
		size_t n = fread(buf, 1, (1 << 16) - 1, f);

		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

static void parse_logs(void)
{
	struct ps_stress_run r;
	char *ok = slurp(FIXTURES "/stress-ng/run-ok.log"),
	     *bad = slurp(FIXTURES "/stress-ng/run-fail.log");

	CHECK_INT(ps_stress_parse_log(ok, &r), 0);
	CHECK_INT(r.n, 2);
	CHECK_STR(r.s[0].name, "cpu");
	CHECK_INT(r.s[0].bogo_ops, 2491);
	CHECK(fabs(r.s[0].real_s - 5.01) < 1e-9);
	CHECK(fabs(r.s[0].ops_per_s - 497.22) < 1e-9);
	CHECK_STR(r.s[1].name, "vm");
	CHECK_INT(r.s[1].bogo_ops, 21248);
	CHECK_INT(r.fails, 0);
	CHECK_INT(r.completed, 1);

	CHECK_INT(ps_stress_parse_log(bad, &r), 0);
	CHECK_INT(r.fails, 3);
	CHECK_INT(r.errors, 1);
	CHECK_INT(r.completed, 0);
	CHECK_INT(r.n, 2);
	CHECK_STR(r.s[0].name, "vm"); /* named first by its fail line */
	CHECK_INT(r.s[0].fails, 2);
	CHECK_INT(r.s[0].bogo_ops, 250011);
	CHECK_INT(r.s[1].fails, 1);
	CHECK_INT(r.n_fail_lines, 3);
	CHECK(strncmp(r.fail_lines[0], "vm: detected memory error", 25) == 0);
	CHECK_INT(ps_stress_parse_log("no stress here\n", &r), -22);
	/* a row of negative, "nan" or "inf" figures is not the stressor's metrics */
	CHECK_INT(ps_stress_parse_log("stress-ng: metrc: [1] cpu -5 5.0 1.0 0.0 1.0 1.0\n"
				      "stress-ng: metrc: [1] vm 10 nan 1.0 0.0 1.0 1.0\n"
				      "stress-ng: metrc: [1] hdd 10 5.0 1.0 0.0 inf 1.0\n"
				      "stress-ng: metrc: [1] io 10 5.0 1.0 0.0 -1.0 2.0\n",
				      &r),
		  0);
	CHECK_INT(r.n, 0);
	free(ok);
	free(bad);
}

/* Whether stress-ng has forked its stressors, from the head of its log as it grows. */
static void dispatched(void)
{
	char *ok = slurp(FIXTURES "/stress-ng/run-ok.log");
	const char *d = strstr(ok, "dispatching hogs");

	CHECK(d != NULL);
	CHECK(ps_stress_dispatched(ok, strlen(ok)));
	/* the log so far ends before the line, or in its middle */
	CHECK(!ps_stress_dispatched(ok, (size_t)(d - ok)));
	CHECK(!ps_stress_dispatched(ok, (size_t)(d - ok) + 10));
	CHECK(ps_stress_dispatched(ok, (size_t)(d - ok) + 17)); /* up to its colon */
	/* the words elsewhere than in stress-ng's own line */
	CHECK(!ps_stress_dispatched("sh: dispatching hogs: 2 cpu\n", 28));
	CHECK(!ps_stress_dispatched("", 0));
	free(ok);
}

static void mce_line(void)
{
	CHECK_INT(ps_proc_mce_count("  0:   10  0  IO-APIC 2-edge timer\n"
				    "TRM:          0          0   Thermal event interrupts\n"
				    "MCE:          1          2   Machine check exceptions\n"
				    "MCP:         40         40   Machine check polls\n"),
		  3);
	CHECK_INT(ps_proc_mce_count("TRM:  0  0  Thermal event interrupts\n"), -1);
	/* counts that are not the kernel's unsigned ints: unknown, not a sum */
	CHECK_INT(ps_proc_mce_count("MCE:  16  9223372036854775807  Machine check exceptions\n"),
		  -1);
	CHECK_INT(ps_proc_mce_count("MCE:  4294967295  1  Machine check exceptions\n"),
		  4294967296LL);
	CHECK_INT(ps_proc_mce_count("MCE:  4294967296  Machine check exceptions\n"), -1);
	CHECK_INT(ps_proc_mce_count("MCE:  -5  2  Machine check exceptions\n"), -1);
	CHECK_INT(ps_proc_mce_count("MCE:  Machine check exceptions\n"), -1);
}

static struct ps_burn_sample sample(double t, double temp, double margin)
{
	struct ps_burn_sample s = {.t = t,
				   .freq_min_mhz = 3000,
				   .freq_mean_mhz = 3400,
				   .freq_max_mhz = 3600,
				   .throttle = 100,
				   .temp_max_c = temp,
				   .temp_margin_c = margin,
				   .fan_min_rpm = 900,
				   .mce = 0,
				   .edac_ce = 5,
				   .edac_ue = 0,
				   .aer_cor = 2,
				   .aer_uncor = 0,
				   .kmsg_warn = 0,
				   .kmsg_oops = 0};

	snprintf(s.temp_label, sizeof(s.temp_label), "coretemp Package id 0");
	return s;
}

static const struct ps_burn_hit *find(const struct ps_burn_hit *h, size_t n, const char *rule)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(h[i].rule, rule) == 0)
			return &h[i];
	return NULL;
}

static void verdicts(void)
{
	struct ps_burn_sample s[4];
	struct ps_burn_hit h[16];
	struct ps_stress_run r;
	char *bad = slurp(FIXTURES "/stress-ng/run-fail.log"),
	     *ok = slurp(FIXTURES "/stress-ng/run-ok.log");
	const struct ps_burn_hit *x;
	size_t n;

	/* a clean run: counters unchanged since boot's values, 20 C from crit */
	for (int i = 0; i < 4; i++)
		s[i] = sample(i * 10.0, 60 + i, 40 - i);
	ps_stress_parse_log(ok, &r);
	CHECK_INT(ps_burn_verdict(s, 4, &r, h, 16), 0);
	/* unknown everything: nothing to judge, no hit */
	struct ps_burn_sample u = {.temp_margin_c = NAN,
				   .temp_max_c = NAN,
				   .throttle = -1,
				   .mce = -1,
				   .edac_ce = -1,
				   .edac_ue = -1,
				   .aer_cor = -1,
				   .aer_uncor = -1};
	CHECK_INT(ps_burn_verdict(&u, 1, NULL, h, 16), 0);

	/* throttling at 20 s, 3 CE at 30 s, 4 C from crit at 30 s: three warnings */
	s[2].throttle = 104;
	s[3].throttle = 110;
	s[3].edac_ce = 8;
	s[3].temp_margin_c = 4.0;
	n = ps_burn_verdict(s, 4, &r, h, 16);
	CHECK_INT(n, 3);
	x = find(h, n, "throttled");
	CHECK(x && x->sev == PS_BURN_WARN && x->value == 10 && x->at_s == 20);
	x = find(h, n, "corrected_errors");
	CHECK(x && x->sev == PS_BURN_WARN && x->value == 3 && x->at_s == 30);
	x = find(h, n, "near_critical");
	CHECK(x && x->sev == PS_BURN_WARN && x->value == 4.0 &&
	      strstr(x->msg, "coretemp Package id 0"));
	/* exactly 5 C from crit still warns; 5.5 does not */
	s[3].temp_margin_c = 5.5;
	CHECK(find(h, ps_burn_verdict(s, 4, &r, h, 16), "near_critical") == NULL);
	s[3].temp_margin_c = 5.0;
	CHECK(find(h, ps_burn_verdict(s, 4, &r, h, 16), "near_critical") != NULL);

	/* fail rules: a machine check, an uncorrected error, an oops, stressor failures */
	s[1].mce = 1;
	s[2].mce = 1;
	s[3].mce = 2;
	s[3].edac_ue = 1;
	s[3].aer_uncor = 1;
	s[3].kmsg_oops = 1;
	ps_stress_parse_log(bad, &r);
	n = ps_burn_verdict(s, 4, &r, h, 16);
	x = find(h, n, "machine_check");
	CHECK(x && x->sev == PS_BURN_FAIL && x->value == 2 && x->at_s == 10);
	x = find(h, n, "uncorrected_error");
	CHECK(x && x->sev == PS_BURN_FAIL && x->value == 1);
	x = find(h, n, "oops");
	CHECK(x && x->sev == PS_BURN_FAIL);
	x = find(h, n, "computation_error");
	CHECK(x && x->sev == PS_BURN_FAIL && x->value == 2 && strstr(x->msg, "vm stressor"));
	int comp = 0, unc = 0;
	for (size_t i = 0; i < n; i++) {
		comp += strcmp(h[i].rule, "computation_error") == 0;
		unc += strcmp(h[i].rule, "uncorrected_error") == 0;
	}
	CHECK_INT(comp, 2); /* vm and cpu */
	CHECK_INT(unc, 2);  /* EDAC and AER */
	/* the hits array is bounded */
	CHECK_INT(ps_burn_verdict(s, 4, &r, h, 2), 2);
	free(bad);
	free(ok);
}

/* The summary: each counter's rise over the burn-in, the extremes, the mean clock. */
static void summary_of_samples(void)
{
	struct burn_summary o;
	struct ps_burn_sample s[4];
	struct ps_stress_run r = {.fails = 3};
	json_object *j;

	for (int i = 0; i < 4; i++)
		s[i] = sample(i * 10.0, 60 + i, 40 - i);
	s[0].throttle = -1; /* unread at first: counted from its first reading */
	s[2].throttle = 104;
	s[3].throttle = 110;
	s[3].edac_ce = 8;
	s[1].freq_mean_mhz = NAN;
	s[2].power_w = 40;
	s[3].power_w = 50;
	for (int i = 0; i < 4; i++)
		s[i].rails_out = i == 1 ? 2 : -1;
	ps_fields_init(&summary_fields, &o);
	summarize(&o, s, 4, &r, 15);
	j = ps_fields_json(&summary_fields, &o);
	CHECK_INT(json_object_get_int64(ps_json_get(j, "throttle_events")), 10);
	CHECK_INT(json_object_get_int64(ps_json_get(j, "edac_ce")), 3);
	CHECK_INT(json_object_get_int64(ps_json_get(j, "machine_checks")), 0);
	CHECK_INT(json_object_get_int64(ps_json_get(j, "rails_out_max")), 2);
	CHECK_INT(json_object_get_int64(ps_json_get(j, "stressor_failures")), 3);
	CHECK_INT(json_object_get_int64(ps_json_get(j, "samples")), 4);
	CHECK(fabs(json_object_get_double(ps_json_get(j, "temp_max_c")) - 63) < 1e-9);
	CHECK(fabs(json_object_get_double(ps_json_get(j, "temp_margin_min_c")) - 37) < 1e-9);
	CHECK_STR(ps_json_str(j, "temp_nearest_crit"), "coretemp Package id 0");
	CHECK(fabs(json_object_get_double(ps_json_get(j, "freq_mean_mhz")) - 3400) < 1e-9);
	/* power from the stressors' start (15 s): the 20 s and 30 s samples */
	CHECK(fabs(json_object_get_double(ps_json_get(j, "power_mean_w")) - 45) < 1e-9);
	CHECK(fabs(json_object_get_double(ps_json_get(j, "power_max_w")) - 50) < 1e-9);
	json_object_put(j);

	/* nothing sampled: unknown, not 0 */
	ps_fields_init(&summary_fields, &o);
	summarize(&o, s, 0, &r, 0);
	j = ps_fields_json(&summary_fields, &o);
	CHECK(ps_json_get(j, "throttle_events") == NULL);
	CHECK(ps_json_get(j, "temp_max_c") == NULL);
	CHECK(ps_json_get(j, "temp_nearest_crit") == NULL);
	CHECK(ps_json_get(j, "rails_out_max") == NULL);
	json_object_put(j);
}

/* The step on the environment fixture, stress-ng looked for on path (the PATH put back). */
static void run_step(struct harness *h, struct ps_config *cfg, const char *path)
{
	char *was = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	ps_config_defaults(cfg);
	setenv("PATH", path, 1);
	harness_init(h, &burnin_ops, FIXTURES "/sysroot-environment", PS_PLAN_FULL);
	h->ctx.cfg = cfg;
	harness_run(h);
	if (was) {
		setenv("PATH", was, 1);
		free(was);
	}
}

/*
 * The step on the environment fixture with no stress-ng on the PATH: it
 * says so (error), and its data is whole: the budget, the command, the
 * timeline of what was sampled, the summary over it.
 */
static void step_without_stress_ng(void)
{
	struct harness h;
	struct ps_config cfg;
	json_object *tl, *summ;

	run_step(&h, &cfg, "/nonexistent");
	CHECK_INT(h.status, PS_ERROR);
	CHECK_INT(json_object_get_int(ps_json_get(h.data, "budget_s")), DEFAULT_BUDGET_S);
	CHECK_STR(ps_json_str(h.data, "budget_source"), "full_plan_default");
	CHECK_STR(ps_json_str(h.data, "stress_ng_path"), "stress-ng");
	CHECK(strstr(ps_json_str(h.data, "command"), "--verify --timeout 60s") != NULL);
	CHECK_INT(json_object_get_int(ps_json_get(h.data, "exit_status")), 127);
	CHECK(ps_json_get(h.data, "run_completed") == NULL);
	CHECK(ps_json_get(h.data, "stress_start_s") == NULL);
	CHECK_INT(ps_json_len(ps_json_arr(h.data, "stressors")), 0);
	CHECK_INT(ps_json_len(ps_json_arr(h.data, "disks")), 0); /* no drive in the inventory */
	tl = ps_json_arr(h.data, "timeline");
	CHECK(ps_json_len(tl) >= 2); /* before the fork and after the exit */
	for (size_t i = 0; i < ps_json_len(tl); i++) {
		json_object *row = ps_json_at(tl, i);

		CHECK(json_object_is_type(ps_json_get(row, "freq_mhz"), json_type_array));
		CHECK(json_object_object_get_ex(row, "power_w", NULL)); /* null, but there */
		CHECK(json_object_get_double(ps_json_get(row, "temp_max_c")) > 0);
	}
	summ = ps_json_get(h.data, "summary");
	CHECK_INT(json_object_get_int64(ps_json_get(summ, "samples")), (int64_t)ps_json_len(tl));
	CHECK(strstr(h.run.reason, "stress-ng did not run") != NULL);
	harness_done(&h);
}

/*
 * The step with a stress-ng that prints a recorded run's output (run-ok.log:
 * 0.15.06, cpu and vm, no failure) and exits: the stressors' rows, stress-ng's
 * word and the start it dispatched at, as a real run leaves them; nothing
 * is stressed.
 */
static void step_recorded_run(void)
{
	char dir[] = "/tmp/test_burnin.XXXXXX", script[64], log[PATH_MAX];
	struct harness h;
	struct ps_config cfg;
	json_object *st;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	CHECK(realpath(FIXTURES "/stress-ng/run-ok.log", log) != NULL);
	snprintf(script, sizeof(script), "%s/stress-ng", dir);
	f = fopen(script, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "#!/bin/sh\n/bin/cat '%s'\nexit 0\n", log);
	fclose(f);
	chmod(script, 0755);
	run_step(&h, &cfg, dir);
	unlink(script);
	rmdir(dir);
	CHECK_INT(h.status, PS_PASS);
	CHECK(json_object_get_boolean(ps_json_get(h.data, "complete")));
	CHECK(json_object_get_boolean(ps_json_get(h.data, "run_completed")));
	CHECK_INT(json_object_get_int(ps_json_get(h.data, "exit_status")), 0);
	CHECK_INT(json_object_get_int(ps_json_get(h.data, "stressor_failures")), 0);
	CHECK(json_object_get_double(ps_json_get(h.data, "stress_start_s")) >= 0);
	st = ps_json_arr(h.data, "stressors");
	CHECK_INT(ps_json_len(st), 2);
	CHECK_STR(ps_json_str(ps_json_at(st, 0), "stressor"), "cpu");
	CHECK_INT(json_object_get_int64(ps_json_get(ps_json_at(st, 0), "bogo_ops")), 2491);
	CHECK(fabs(json_object_get_double(ps_json_get(ps_json_at(st, 0), "ops_per_s")) - 497.2) <
	      1e-9);
	CHECK_INT(json_object_get_int(ps_json_get(ps_json_at(st, 0), "instances")),
		  (int)ps_mem_cpus());
	CHECK_STR(ps_json_str(ps_json_at(st, 1), "stressor"), "vm");
	CHECK_INT(json_object_get_int(ps_json_get(ps_json_at(st, 1), "instances")), 1);
	CHECK(json_object_get_boolean(ps_json_get(ps_json_at(st, 1), "verify")));
	CHECK_INT(ps_json_len(ps_json_arr(h.data, "fail_lines")), 0);
	harness_done(&h);
}

int main(void)
{
	parse_logs();
	dispatched();
	mce_line();
	verdicts();
	summary_of_samples();
	step_without_stress_ng();
	step_recorded_run();
	return check_done("test_burnin");
}
