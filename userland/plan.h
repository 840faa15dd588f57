/* plan.h - the step registry, plan selection and the plan runner that writes the report. */
#ifndef PS_PLAN_H
#define PS_PLAN_H

#include "config.h"
#include "step.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct ps_console;

/* Why a step is refused, or true when it is fit to run. */
bool ps_step_valid(const struct ps_step_ops *ops, char *why, size_t whylen);

/*
 * Validate steps in[0..n_in) (NULL entries allowed), keep the valid ones
 * whose name is not taken yet, sorted by order then name, in out (room for
 * n_in). refuse() gets one message per refused step. Returns the count kept.
 */
size_t ps_registry_build(const struct ps_step_ops *const *in, size_t n_in,
			 const struct ps_step_ops **out, void (*refuse)(const char *msg, void *arg),
			 void *arg);

/*
 * The compiled-in steps (section ps_steps), validated once; refusals go to
 * stderr. Not named ps_steps: GNU ld resolves that name to the section itself.
 */
const struct ps_step_ops *const *ps_registry(size_t *n);

/* Find a step by name in a list, or NULL. */
const struct ps_step_ops *ps_step_find(const struct ps_step_ops *const *all, size_t n,
				       const char *name);

/*
 * Pick the steps of a plan: "quick"/"full" by their plans bits, or, when
 * steps_csv is given, exactly those names (any order, no duplicates kept).
 * Result in registry order. 0, or -EINVAL with err[] naming the problem.
 */
int ps_plan_select(const struct ps_step_ops *const *all, size_t n_all, const char *plan,
		   const char *steps_csv, const struct ps_step_ops **out, size_t *n_out, char *err,
		   size_t errlen);

struct ps_run_opts {
	const char *root;     /* sysfs/procfs/dev prefix, "" live */
	const char *out_root; /* reports root: out_root/<machine-id>/<stamp>-<plan>/ */
	const char *plan;     /* "quick", "full" or "custom" */
	const struct ps_step_ops *const *steps;
	size_t n_steps;
	const struct ps_config *cfg; /* cfg->stick: manifest.json; cfg->boot_disk */
	json_object *warnings;	     /* copied into the report's warnings[]; may be NULL */
	struct ps_console *con;	     /* progress goes here; NULL: quiet */
	bool key_aborts;	     /* a key on con aborts the running step */
	const char *coldplug_json;   /* NULL: <root>/run/probestick/coldplug.json */
	/*
	 * Fills machine{} and nics[] when the plan has no inventory step, so
	 * that the machine-id is known; NULL leaves machine-id "unknown".
	 */
	int (*identify)(const char *root, json_object *machine, json_object *nics);
};

struct ps_run_result {
	char dir[PATH_MAX]; /* the report folder, "" when it could not be made */
	unsigned int count[PS_ABORTED + 1];
	int write_error; /* last negative errno from writing the report, or 0 */
};

/* Run the steps in order; a failing step never stops the plan. 0 or -errno (no report). */
int ps_plan_run(const struct ps_run_opts *opts, struct ps_run_result *res);

#endif
