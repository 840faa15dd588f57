/*
 * test_measure.c - the measuring engine (engines/measure.c) on scripted runs:
 * warm-up kept apart, the plan's runs, extra runs while noisy up to the cap,
 * failed runs tried again, a stop, a time budget; and the bar it plans on
 * (core/progress.c): when the rule adds runs the total grows, the share shown
 * as done never goes back, and the unstable finding (core/findings.c).
 */
#include "check.h"
#include "core/step_run.h"
#include "engines/measure.h"
#include "lib/json.h"
#include "step_harness.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

struct script {
	const double *values; /* run i's v[0]; v[1] is 10x it */
	size_t n;
	int fail_at;	  /* run number that returns PS_MEASURE_NO_FIGURE, -1 none */
	int error_at;	  /* run number that returns -EIO, -1 none */
	int stop_after;	  /* should_stop true once this many runs ran, -1 never */
	double sleep_s;	  /* per run */
	unsigned int ran; /* runs called, warm-up included */
	bool warmed;
	unsigned int planned[64], done[64], nprog;
};

static int run_script(void *arg, unsigned int i, double *v)
{
	struct script *s = arg;

	s->ran++;
	if (s->sleep_s > 0)
		usleep((useconds_t)(s->sleep_s * 1e6));
	if (i == PS_MEASURE_WARMUP) {
		s->warmed = true;
		v[0] = 1;
		v[1] = 10;
		return 0;
	}
	if ((int)i == s->fail_at)
		return PS_MEASURE_NO_FIGURE;
	if ((int)i == s->error_at)
		return -EIO;
	v[0] = s->values[i < s->n ? i : s->n - 1];
	v[1] = 10 * v[0];
	return 0;
}

static bool stop_script(void *arg)
{
	struct script *s = arg;

	return s->stop_after >= 0 && (int)s->ran >= s->stop_after;
}

static void progress_script(void *arg, unsigned int done, unsigned int planned)
{
	struct script *s = arg;

	if (s->nprog < 64) {
		s->done[s->nprog] = done;
		s->planned[s->nprog++] = planned;
	}
}

static int go(struct script *s, struct ps_noise_rule rule, struct ps_figure *f)
{
	struct ps_measure m = {.rule = rule,
			       .nfig = 2,
			       .run = run_script,
			       .arg = s,
			       .should_stop = stop_script,
			       .stop_arg = s,
			       .progress = progress_script,
			       .progress_arg = s};

	return ps_measure_run(&m, f);
}

static void test_steady(void)
{
	static const double v[] = {100, 101, 99, 100, 100};
	struct script s = {.values = v, .n = 5, .fail_at = -1, .error_at = -1, .stop_after = -1};
	struct ps_figure f[2];

	CHECK_INT(
	    go(&s, (struct ps_noise_rule){.warmup = 1, .runs = 3, .max_runs = 5, .cv_limit_pct = 5},
	       f),
	    0);
	CHECK(s.warmed);
	CHECK_INT(s.ran, 4); /* warm-up and the plan's 3: steady, no extra */
	CHECK_INT(f[0].n, 3);
	CHECK(f[0].median == 100 && f[0].min == 99 && f[0].max == 101);
	CHECK(f[0].warmup == 1 && f[1].warmup == 10);
	CHECK(f[1].median == 1000);
	CHECK_INT(f[0].extra_runs, 0);
	CHECK(!f[0].noisy);
	/* planned 4 from the start, never more */
	for (unsigned int i = 0; i < s.nprog; i++)
		CHECK_INT(s.planned[i], 4);
	CHECK_INT(s.done[s.nprog - 1], 4);
}

static void test_noisy(void)
{
	static const double v[] = {100, 200, 50, 180, 60, 170, 40};
	struct script s = {.values = v, .n = 7, .fail_at = -1, .error_at = -1, .stop_after = -1};
	struct ps_figure f[2];

	CHECK_INT(go(&s, (struct ps_noise_rule){.runs = 3, .max_runs = 5, .cv_limit_pct = 10}, f),
		  0);
	CHECK_INT(f[0].n, 5); /* to the cap */
	CHECK_INT(f[0].extra_runs, 2);
	CHECK(f[0].noisy);
	CHECK(isnan(f[0].warmup));
	/* the plan grew run by run and never shrank */
	for (unsigned int i = 1; i < s.nprog; i++)
		CHECK(s.planned[i] >= s.planned[i - 1] && s.done[i] >= s.done[i - 1]);
	CHECK_INT(s.planned[0], 3);
	CHECK_INT(s.planned[s.nprog - 1], 5);
}

static void test_failed_error_stop(void)
{
	static const double v[] = {100, 100, 100, 100};
	struct script s = {.values = v, .n = 4, .fail_at = 1, .error_at = -1, .stop_after = -1};
	struct ps_figure f[2];

	/* a failed run is tried again, within the cap */
	CHECK_INT(go(&s, (struct ps_noise_rule){.runs = 3, .max_runs = 5, .cv_limit_pct = 10}, f),
		  0);
	CHECK_INT(f[0].n, 3);
	CHECK_INT(s.ran, 4);

	s = (struct script){.values = v, .n = 4, .fail_at = -1, .error_at = 2, .stop_after = -1};
	CHECK_INT(go(&s, (struct ps_noise_rule){.runs = 3, .max_runs = 5, .cv_limit_pct = 10}, f),
		  -EIO);
	CHECK_INT(f[0].n, 2); /* what was measured stays */
	CHECK(f[0].median == 100);

	s = (struct script){.values = v, .n = 4, .fail_at = -1, .error_at = -1, .stop_after = 2};
	CHECK_INT(go(&s, (struct ps_noise_rule){.runs = 3, .max_runs = 5, .cv_limit_pct = 10}, f),
		  -ECANCELED);
	CHECK_INT(f[0].n, 2);
	CHECK(isnan(f[0].cv_pct) == false);
}

static void test_budget(void)
{
	static const double v[] = {100, 200, 50, 180, 60, 170};
	struct script s = {
	    .values = v, .n = 6, .fail_at = -1, .error_at = -1, .stop_after = -1, .sleep_s = 0.03};
	struct ps_figure f[2];

	/* past the budget after two runs: no third, although the plan asked for 5 */
	CHECK_INT(
	    go(&s,
	       (struct ps_noise_rule){
		   .runs = 5, .max_runs = 8, .cv_limit_pct = 10, .budget_s = 0.05, .min_runs = 2},
	       f),
	    0);
	CHECK_INT(f[0].n, 2);
}

/* The bar's share never goes back when the phase grows: 90 % of 30 s stays 90 %. */
static void test_frac(void)
{
	double f;

	CHECK(isnan(ps_progress_frac(5, 0, 0, 0)));
	CHECK(ps_progress_frac(27, 30, 0, 0) == 0.9);
	f = ps_progress_frac(27, 40, 0.9, 27); /* the phase grew to 40 at 27 */
	CHECK(f == 0.9);
	f = ps_progress_frac(32, 40, 0.9, 27);
	CHECK(f > 0.9 && f < 1);
	CHECK(ps_progress_frac(40, 40, 0.9, 27) == 1);
}

static double shown[256];
static unsigned int nshown;

static void on_progress(void *arg, const struct ps_progress_state *p)
{
	double frac = p->total ? (double)p->done / (double)p->total : NAN;

	if (!isnan(p->frac) && p->frac > frac)
		frac = p->frac;
	if (nshown < 256)
		shown[nshown++] = frac;
}

static int bar_step(struct ps_ctx *ctx)
{
	static const double v[] = {100, 200, 50, 180, 60, 170};
	struct script s = {
	    .values = v, .n = 6, .fail_at = -1, .error_at = -1, .stop_after = -1, .sleep_s = 0.11};
	struct ps_figure f[2];
	struct ps_measure_bar bar;
	const struct ps_noise_rule rule = {
	    .warmup = 1, .runs = 2, .max_runs = 5, .cv_limit_pct = 5};
	struct ps_measure m = {.rule = rule,
			       .nfig = 2,
			       .run = run_script,
			       .arg = &s,
			       .progress = ps_measure_bar_hook,
			       .progress_arg = &bar};

	ps_measure_bar_start(&bar, ctx, "noisy figure", ps_measure_planned(&rule), 1000, "ms");
	CHECK_INT(ps_measure_run(&m, f), 0);
	CHECK_INT(f[0].n, 5);
	CHECK(ps_find_unstable(ctx, (struct ps_dev_ref){PS_DEV_MACHINE, "m1", "machine"},
			       "unstable_figure", &f[0], "MB/s", 1, "the test figure",
			       "another load"));
	ps_figure_init(&f[1]);
	ps_figure_add(&f[1], 100);
	ps_figure_add(&f[1], 101);
	ps_figure_finish(&f[1], &rule);
	CHECK(
	    !ps_find_unstable(ctx, (struct ps_dev_ref){0}, "steady", &f[1], "MB/s", 1, "no", "no"));
	return PS_PASS;
}

HARNESS_VIEW(bar_view, "bar", 1);

static void test_bar(void)
{
	static const struct ps_plan_ui ui = {.progress = on_progress};
	const struct ps_step_ops ops = {.abi = PS_STEP_ABI,
					.name = "bar",
					.plans = PS_PLAN_QUICK,
					.data_version = 1,
					.view = &bar_view,
					.run = bar_step};
	struct harness h;
	json_object *fo;

	ps_step_schema_add("bar", "{\"type\": \"object\"}");
	harness_init(&h, &ops, "", PS_PLAN_QUICK);
	h.run.progress.ui = &ui;
	CHECK_INT(harness_run(&h), PS_PASS);
	CHECK(nshown >= 3);
	for (unsigned int i = 1; i < nshown; i++)
		CHECK(shown[i] >= shown[i - 1]);
	CHECK(shown[nshown - 1] == 1);
	fo = ps_json_at(h.run.findings, 0);
	CHECK_STR(ps_json_str(fo, "rule"), "bar.unstable_figure");
	CHECK_STR(ps_json_str(fo, "severity"), "info");
	CHECK(strstr(ps_json_str_or(fo, "message", ""), "the test figure varied by") &&
	      strstr(ps_json_str_or(fo, "message", ""), "after a warm-up run): another load"));
	harness_done(&h);
}

int main(void)
{
	test_steady();
	test_noisy();
	test_failed_error_stop();
	test_budget();
	test_frac();
	test_bar();
	return check_done("test_measure");
}
