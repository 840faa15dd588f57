/* recorders.h - the registered recorders (record/recorder.h) around every step, for the runner. */
#ifndef PS_CORE_RECORDERS_H
#define PS_CORE_RECORDERS_H

#include "record/recorder.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define PS_RECORDERS_MAX 16

/* The recorders compiled in (section ps_recorders), checked, in their order. */
const struct ps_recorder_ops *const *ps_recorders(size_t *n);

/* What the recorders keep for the plan (the module's probes, attached once). */
struct ps_recorders_plan {
	void *state[PS_RECORDERS_MAX];
	size_t n;
};
void ps_recorders_plan_start(struct ps_recorders_plan *p, int module_fd);
void ps_recorders_plan_stop(struct ps_recorders_plan *p);

/* The recorders of one step. */
struct ps_recorders_run {
	struct ps_rec_ctx rc;
	void *state[PS_RECORDERS_MAX];
	size_t started;
	json_object *step, *findings;
};

/*
 * Before the step: every recorder started. inv: the inventory if taken, else
 * NULL; view: the step's (what it measures, and its rates).
 */
void ps_recorders_start(struct ps_recorders_run *run, const struct ps_recorders_plan *plan,
			const char *root, int module_fd, const struct ps_inventory *inv,
			const struct ps_view *view);
/*
 * After it: every recorder stopped, each member set in step, and what they
 * found added to findings (the step's), "<recorder>.<rule>". data: the
 * step's data{}, complete.
 */
void ps_recorders_stop(struct ps_recorders_run *run, const struct ps_inventory *inv,
		       json_object *step, json_object *data, json_object *findings);

/*
 * Every recorder's section of the whole run in report (struct
 * ps_recorder_ops.summary): before the first step with the wall meter's
 * readings, after each step with NULL.
 */
void ps_recorders_summary(json_object *report, const struct ps_wall *wall);

#endif
