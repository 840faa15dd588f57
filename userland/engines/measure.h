/*
 * measure.h - the one measuring engine: a measurement repeated under the
 * noise rule (lib/stats.h, struct ps_noise_rule), as the Phoronix Test Suite
 * does: a warm-up run whose figure is kept but not counted, the plan's runs,
 * more runs while the runs' CV is above the rule's limit up to its cap, no
 * new run past its time budget; each value a run gives becomes one struct
 * ps_figure. The caller's run() does one run; the engine decides how many,
 * and tells its progress hook how many are planned, which grows (never
 * shrinks) when the rule adds runs. No step logic, no I/O of its own.
 */
#ifndef PS_ENGINES_MEASURE_H
#define PS_ENGINES_MEASURE_H

#include "lib/stats.h"

#include <limits.h>
#include <stdbool.h>

#define PS_MEASURE_MAX_FIGS  4
#define PS_MEASURE_WARMUP    UINT_MAX /* run()'s number for the warm-up run */
#define PS_MEASURE_NO_FIGURE 1	      /* run() returns it when this run gave no figure */

struct ps_measure {
	struct ps_noise_rule rule;
	unsigned int nfig; /* values per run, 1..PS_MEASURE_MAX_FIGS; the rule watches v[0] */
	/*
	 * One run: i counts them from 0 (PS_MEASURE_WARMUP for the warm-up, whose
	 * v[0] becomes the figures' warm-up value). Fills v[0..nfig). Returns 0,
	 * PS_MEASURE_NO_FIGURE for a run that failed but may be tried again (it
	 * still counts toward the cap), or a negative errno: no more runs.
	 */
	int (*run)(void *arg, unsigned int i, double *v);
	void *arg;
	bool (*should_stop)(void *arg); /* optional: polled before each run, with stop_arg */
	void *stop_arg;
	/* Optional: runs done and planned (warm-up included), before each run and at the end. */
	void (*progress)(void *arg, unsigned int done, unsigned int planned);
	void *progress_arg;
};

/*
 * Run m, each run's values into figs[0..nfig) (ps_figure_init'ed here, and
 * finished with the rule: extra runs, noisy). 0; -ECANCELED when
 * should_stop stopped it; or the negative errno a run returned. The figures
 * hold what was measured in every case.
 */
int ps_measure_run(const struct ps_measure *m, struct ps_figure *figs);

/* The runs the rule plans before any is measured: warm-up and the plan's runs. */
unsigned int ps_measure_planned(const struct ps_noise_rule *r);

#endif
