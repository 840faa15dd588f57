/*
 * progress.c - the running step's progress (phase, done of total) with its
 * rate and ETA, passed to the console at most every 100 ms.
 */
#include "core/step_run.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define EMIT_EVERY_S  0.1
#define SAMPLE_EVERY  0.5
#define RATE_WINDOW_S 10.0

void ps_progress_estimate(const double *t, const uint64_t *d, unsigned int n, uint64_t total,
			  double *rate, double *eta)
{
	unsigned int first = 0;
	double dt;

	*rate = NAN;
	*eta = NAN;
	if (n < 2)
		return;
	/* The last RATE_WINDOW_S seconds: a drive that slows down shows it soon. */
	while (first + 2 < n && t[n - 1] - t[first] > RATE_WINDOW_S)
		first++;
	dt = t[n - 1] - t[first];
	if (dt <= 0 || d[n - 1] < d[first])
		return;
	*rate = (double)(d[n - 1] - d[first]) / dt;
	if (total && *rate > 0 && d[n - 1] <= total)
		*eta = (double)(total - d[n - 1]) / *rate;
	else if (total && d[n - 1] >= total)
		*eta = 0;
}

double ps_progress_frac(uint64_t done, uint64_t total, double base_frac, uint64_t base_done)
{
	double f;

	if (!total)
		return NAN;
	if (done >= total)
		return 1;
	if (base_done >= total || done < base_done)
		return base_frac;
	f = base_frac + (1 - base_frac) * (double)(done - base_done) / (double)(total - base_done);
	return f > base_frac ? f : base_frac;
}

static void emit(struct ps_progress *p, double now, bool force)
{
	struct ps_progress_state st;

	if (!p->ui || !p->ui->progress)
		return;
	if (!force && now - p->last_emit < EMIT_EVERY_S)
		return;
	p->last_emit = now;
	ps_progress_estimate(p->t, p->d, p->nsamples, p->st.total, &p->st.rate, &p->st.eta_s);
	p->st.elapsed_s = now - p->phase_t0;
	p->st.frac = ps_progress_frac(p->st.done, p->st.total, p->base_frac, p->base_done);
	st = p->st;
	p->ui->progress(p->ui->arg, &st);
}

static void sample(struct ps_progress *p, double now)
{
	unsigned int cap = sizeof(p->t) / sizeof(p->t[0]);

	if (p->nsamples && now - p->t[p->nsamples - 1] < SAMPLE_EVERY)
		return;
	if (p->nsamples == cap) {
		memmove(p->t, p->t + 1, (cap - 1) * sizeof(p->t[0]));
		memmove(p->d, p->d + 1, (cap - 1) * sizeof(p->d[0]));
		p->nsamples--;
	}
	p->t[p->nsamples] = now;
	p->d[p->nsamples] = p->st.done;
	p->nsamples++;
}

void ps_progress_phase(struct ps_ctx *ctx, const char *phase, uint64_t total, const char *unit)
{
	struct ps_progress *p;
	double now = ps_mono_now();

	if (!ctx || !ctx->run)
		return;
	p = &ctx->run->progress;
	pthread_mutex_lock(&p->lock);
	snprintf(p->phase, sizeof(p->phase), "%s", phase ? phase : "");
	snprintf(p->unit, sizeof(p->unit), "%s", unit ? unit : "");
	p->st.phase = p->phase;
	p->st.unit = p->unit;
	p->st.done = 0;
	p->st.total = total;
	p->base_frac = 0;
	p->base_done = 0;
	p->phase_t0 = now;
	p->nsamples = 0;
	sample(p, now);
	emit(p, now, true);
	pthread_mutex_unlock(&p->lock);
}

void ps_progress_rename(struct ps_ctx *ctx, const char *phase)
{
	struct ps_progress *p;

	if (!ctx || !ctx->run)
		return;
	p = &ctx->run->progress;
	pthread_mutex_lock(&p->lock);
	snprintf(p->phase, sizeof(p->phase), "%s", phase ? phase : "");
	emit(p, ps_mono_now(), true);
	pthread_mutex_unlock(&p->lock);
}

static void update(struct ps_ctx *ctx, uint64_t value, bool add)
{
	struct ps_progress *p;
	double now;

	if (!ctx || !ctx->run)
		return;
	p = &ctx->run->progress;
	now = ps_mono_now();
	pthread_mutex_lock(&p->lock);
	p->st.done = add ? p->st.done + value : value;
	sample(p, now);
	emit(p, now, false);
	pthread_mutex_unlock(&p->lock);
}

void ps_progress_total(struct ps_ctx *ctx, uint64_t total)
{
	struct ps_progress *p;
	double f;

	if (!ctx || !ctx->run)
		return;
	p = &ctx->run->progress;
	pthread_mutex_lock(&p->lock);
	if (total > p->st.total && p->st.total) {
		/* what is shown as done stays; the rest spreads over the larger whole */
		f = ps_progress_frac(p->st.done, p->st.total, p->base_frac, p->base_done);
		p->base_frac = isnan(f) ? 0 : f;
		p->base_done = p->st.done;
	}
	p->st.total = total;
	pthread_mutex_unlock(&p->lock);
}

void ps_measure_bar_start(struct ps_measure_bar *b, struct ps_ctx *ctx, const char *phase,
			  unsigned int planned, uint64_t per_run, const char *unit)
{
	b->ctx = ctx;
	b->per_run = per_run;
	b->done = 0;
	b->planned = planned;
	ps_progress_phase(ctx, phase, (uint64_t)planned * per_run, unit);
}

void ps_measure_bar_hook(void *bar, unsigned int done, unsigned int planned)
{
	struct ps_measure_bar *b = bar;

	if (planned > b->planned) {
		b->planned = planned;
		ps_progress_total(b->ctx, (uint64_t)planned * b->per_run);
	}
	b->done = done;
	ps_progress_set(b->ctx, (uint64_t)done * b->per_run);
}

void ps_measure_bar_within(struct ps_measure_bar *b, uint64_t units)
{
	ps_progress_set(b->ctx,
			(uint64_t)b->done * b->per_run + (units < b->per_run ? units : b->per_run));
}

void ps_progress_set(struct ps_ctx *ctx, uint64_t done)
{
	update(ctx, done, false);
}

void ps_progress_add(struct ps_ctx *ctx, uint64_t delta)
{
	update(ctx, delta, true);
}
