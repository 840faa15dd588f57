/* plan.h - the step registry, plan selection and the plan runner that writes the report. */
#ifndef PS_PLAN_H
#define PS_PLAN_H

#include "core/config.h"
#include "core/step.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * steps_csv is given, exactly those names plus the steps they run after
 * (an "after" chain pulls in inventory). Result in registry order. 0, or
 * -EINVAL with err[] naming the problem.
 */
int ps_plan_select(const struct ps_step_ops *const *all, size_t n_all, const char *plan,
		   const char *steps_csv, const struct ps_step_ops **out, size_t *n_out, char *err,
		   size_t errlen);

/* Every view: the compiled-in steps' and the recorders' (load, probes, kmsg). */
const struct ps_view_set *ps_views(void);

/* The //schema: lines of a step not converted to a result table yet, or NULL. */
const char *ps_step_schema(const char *name);
/*
 * The schema of a step's data{}: generated from its result table, else its
 * //schema: lines; NULL when it has neither (or they are not JSON). Borrowed.
 */
json_object *ps_step_schema_json(const struct ps_step_ops *ops);
/* A fragment for a step built outside userland/steps (tests); before ps_registry(). */
int ps_step_schema_add(const char *name, const char *schema);

/*
 * Complete the report's schema (docs/report-schema.json, parsed) with what
 * the registry knows: each step's data fragment, for a step that ran to its
 * end in its data version. `probestick schema` prints it; the build writes
 * out/gen/report-schema.json from it.
 */
void ps_report_schema(json_object *base);

/* What the console shows of a running step: the core computes rate and ETA. */
struct ps_progress_state {
	size_t step_index, n_steps; /* 0-based */
	const char *step;	    /* name */
	const char *phase;	    /* "" when the step set none */
	uint64_t done, total;	    /* total 0: unknown */
	double frac; /* share done, never less than done/total and never going back in a phase */
	const char *unit; /* "B", "s", or a word */
	double elapsed_s; /* in this phase */
	double rate;	  /* units per second over the last seconds; NAN unknown */
	double eta_s;	  /* NAN unknown */
};

/*
 * How the runner talks to the person watching: the CLI renders each call
 * on its terminals. Every member may be NULL; the core never prints.
 */
struct ps_plan_ui {
	void *arg;
	/* Before the first step: the plan and its steps. */
	void (*plan_start)(void *arg, const struct ps_plan_info *plan,
			   const struct ps_step_ops *const *steps, size_t n);
	/* After inventory (or at the start without one): seconds the rest will take, NAN unknown.
	 */
	void (*estimate)(void *arg, double seconds);
	void (*step_start)(void *arg, size_t i, size_t n, const struct ps_step_ops *s);
	/* At most every 100 ms while a step reports progress. */
	void (*progress)(void *arg, const struct ps_progress_state *p);
	/* steps[i] as it went into the report: status, reason, data, findings. */
	void (*step_end)(void *arg, size_t i, size_t n, const struct ps_step_ops *s,
			 json_object *step);
	/* Something the person must know now: a write failure, too little room on the stick. */
	void (*notice)(void *arg, enum ps_severity sev, const char *text);
};

struct ps_ocp_stream;
struct ps_report_sink; /* report/report.h */

struct ps_run_opts {
	const char *root;     /* sysfs/procfs/dev prefix, "" live */
	const char *out_root; /* reports root: out_root/<machine-id>/<stamp>-<plan>/ */
	struct ps_plan_info plan;
	const struct ps_step_ops *const *steps;
	size_t n_steps;
	const struct ps_config *cfg; /* cfg->stick: manifest.json; cfg->boot_disk */
	json_object *warnings;	     /* copied into the report's warnings[]; may be NULL */
	const struct ps_plan_ui *ui; /* NULL: quiet */
	const char *coldplug_json;   /* NULL: <root>/run/probestick/coldplug.json */
	json_object
	    *stick; /* what this boot found on the stick and did (report's stick{}), or NULL */
	struct ps_ocp_stream
	    *stream; /* the OCP artifacts as each step ends (a serial line), or NULL */
	const struct ps_report_sink *sink; /* the collector, or NULL */
};

struct ps_run_result {
	char dir[PATH_MAX]; /* the report folder, "" when it could not be made */
	unsigned int count[PS_ABORTED + 1];
	int write_error;      /* last negative errno from writing the report, or 0 */
	bool json_complete;   /* report.json on disk says complete: true */
	char saved[PATH_MAX]; /* which files hold the complete record, for the summary screen */
	json_object *report;  /* the final report (a reference the caller puts), or NULL */
};

/* Run the steps in order; a failing step never stops the plan. 0 or -errno (no report). */
int ps_plan_run(const struct ps_run_opts *opts, struct ps_run_result *res);

/* Ask the running step to stop (a key, SIGINT): why is 1 for a key, 2 for SIGINT. */
void ps_plan_request_abort(int why);

#endif
