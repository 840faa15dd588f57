/* measure.c - a measurement repeated under the noise rule into figures (measure.h). */
#include "engines/measure.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>

unsigned int ps_measure_planned(const struct ps_noise_rule *r)
{
	return (r->warmup ? 1 : 0) + r->runs;
}

static unsigned int cap_of(const struct ps_noise_rule *r)
{
	unsigned int cap = r->max_runs > r->runs ? r->max_runs : r->runs;

	return cap < PS_FIGURE_MAX_RUNS ? cap : PS_FIGURE_MAX_RUNS;
}

/* Another run after tries runs (n of them measured)? */
static bool more(const struct ps_measure *m, const struct ps_figure *lead, unsigned int tries,
		 double t0)
{
	const struct ps_noise_rule *r = &m->rule;
	unsigned int least = r->min_runs ? r->min_runs : r->runs;

	if (tries >= cap_of(r))
		return false;
	if (r->budget_s > 0 && lead->n >= least && ps_mono_now() - t0 > r->budget_s)
		return false;
	if (tries < r->runs)
		return true;
	return ps_noise_more_runs(r, lead->v, lead->n);
}

static void report(const struct ps_measure *m, unsigned int done, unsigned int planned)
{
	if (m->progress)
		m->progress(m->progress_arg, done, planned);
}

int ps_measure_run(const struct ps_measure *m, struct ps_figure *figs)
{
	unsigned int nfig = m->nfig && m->nfig <= PS_MEASURE_MAX_FIGS ? m->nfig : 1;
	unsigned int planned = ps_measure_planned(&m->rule), done = 0, tries = 0;
	double v[PS_MEASURE_MAX_FIGS], t0;
	int err = 0;

	for (unsigned int k = 0; k < nfig; k++)
		ps_figure_init(&figs[k]);
	if (m->rule.warmup) {
		report(m, done, planned);
		if (m->should_stop && m->should_stop(m->stop_arg)) {
			err = -ECANCELED;
			goto out;
		}
		err = m->run(m->arg, PS_MEASURE_WARMUP, v);
		if (err == 0)
			for (unsigned int k = 0; k < nfig; k++)
				figs[k].warmup = v[k];
		err = err == PS_MEASURE_NO_FIGURE ? 0 : err;
		done++;
	}
	t0 = ps_mono_now();
	while (err == 0 && more(m, &figs[0], tries, t0)) {
		if (done >= planned)
			planned = done + 1; /* the rule added a run: the plan grows with it */
		report(m, done, planned);
		if (m->should_stop && m->should_stop(m->stop_arg)) {
			err = -ECANCELED;
			break;
		}
		err = m->run(m->arg, tries, v);
		tries++;
		done++;
		if (err == PS_MEASURE_NO_FIGURE) {
			err = 0;
			continue;
		}
		if (err < 0)
			break;
		for (unsigned int k = 0; k < nfig; k++)
			ps_figure_add(&figs[k], v[k]);
	}
out:
	report(m, done, done); /* the phase is over, however many runs it took */
	for (unsigned int k = 0; k < nfig; k++)
		ps_figure_finish(&figs[k], &m->rule);
	return err;
}
