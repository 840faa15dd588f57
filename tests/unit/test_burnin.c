/*
 * test_burnin.c - the burnin step's pure parts: stress-ng's log as a
 * recorded run printed it (a successful one of this machine's stress-ng
 * 0.15.06, and one with verification failures in the same format), the MCE
 * line of /proc/interrupts, and the verdict rules over recorded series:
 * a clean run passes; throttling, corrected errors and a temperature near
 * crit warn; a stressor's failure, a machine check, an uncorrected error
 * and an oops fail.
 */
#include "check.h"

#include "engines/stress/burn.h"

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

int main(void)
{
	parse_logs();
	dispatched();
	mce_line();
	verdicts();
	return check_done("test_burnin");
}
