/* step_run.h - the core's bookkeeping of the running step, behind struct ps_ctx (core only). */
#ifndef PS_CORE_STEP_RUN_H
#define PS_CORE_STEP_RUN_H

#include "core/plan.h"
#include "core/step.h"

#include <json-c/json.h>
#include <pthread.h>

struct ps_progress {
	pthread_mutex_t lock;
	const struct ps_plan_ui *ui;
	struct ps_progress_state st;
	char phase[96], unit[16];
	double phase_t0, last_emit;
	/* when the phase grew: the share shown then and the work done then */
	double base_frac;
	uint64_t base_done;
	/* (time, done) samples at least 0.5 s apart: the rate is taken over the last ones */
	double t[12];
	uint64_t d[12];
	unsigned int nsamples;
};

struct ps_step_run {
	const struct ps_step_ops *ops;
	json_object *step;     /* steps[i] */
	json_object *findings; /* steps[i].findings */
	json_object
	    *examined; /* devices ps_examined() named: kind, device, subject, rule, message */
	char reason[512];
	struct ps_progress progress;
};

/* Ready a run for ops over step (findings and examined arrays created). */
void ps_step_run_init(struct ps_step_run *r, const struct ps_step_ops *ops, json_object *step,
		      const struct ps_plan_ui *ui, size_t index, size_t n);
void ps_step_run_done(struct ps_step_run *r);

/*
 * A step's typed result around its run (core/result.c): begin gives ctx the
 * struct of ops->result, made unknown everywhere (ctx->data NULL), or data
 * itself for a step without one; end writes the struct into data and frees
 * it. 0 or -ENOMEM.
 */
int ps_step_result_begin(struct ps_ctx *ctx, const struct ps_step_ops *ops, json_object *data);
void ps_step_result_end(struct ps_ctx *ctx, const struct ps_step_ops *ops, json_object *data);

/* The worst severity among the findings: -1 when there are none above info. */
int ps_findings_worst(json_object *findings);

/*
 * Per device, the verdict of this step: pass for every examined device,
 * untested for one the step could not measure (ps_not_tested),
 * raised by warn and fail findings about the same device (matched by id,
 * else by kind and subject); a device with a warn or fail finding has a
 * verdict even when nothing said it was examined. A new JSON array.
 */
json_object *ps_step_verdicts(json_object *findings, json_object *examined);

/*
 * The share of a phase done: done/total, but after the phase grew (at
 * base_done, with base_frac shown) the rest of the bar spreads over what is
 * left, so the share never goes back. NAN when total is unknown. Pure.
 */
double ps_progress_frac(uint64_t done, uint64_t total, double base_frac, uint64_t base_done);

/* Rate (units/s) and ETA (s) from progress samples; NAN when unknown. Pure. */
void ps_progress_estimate(const double *t, const uint64_t *d, unsigned int n, uint64_t total,
			  double *rate, double *eta);

/* A finding object built by the core itself (recorders' events); rule is used as it is. */
void ps_finding_add_json(json_object *findings, const char *severity, const char *rule,
			 const char *kind, const char *device, const char *subject,
			 const char *message, double value, double limit, const char *unit);

#endif
