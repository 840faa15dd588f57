/*
 * step.h - one plan step = one file filling one struct ps_step_ops (fio's
 * ioengine_ops): what it needs, how to run it, how its data is shown. The
 * core checks every step as it registers, takes the inventory before any
 * step that runs after it, and records findings, verdicts and progress.
 */
#ifndef PS_STEP_H
#define PS_STEP_H

#include "hw/inventory.h"
#include "lib/fields.h"
#include "report/view.h"

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Bump when struct ps_step_ops or struct ps_ctx change shape. */
#define PS_STEP_ABI 3

enum ps_status {
	PS_PASS = 0,
	PS_WARN,
	PS_FAIL,  /* the hardware failed the test: a finding, not a crash */
	PS_ERROR, /* the step itself could not run (missing file, errno) */
	PS_SKIPPED,
	PS_ABORTED, /* the user pressed a key */
};

/* Plans a step belongs to; a plan's level is also the depth a step runs at. */
#define PS_PLAN_QUICK (1U << 0)
#define PS_PLAN_FULL  (1U << 1)
/* Never in a default plan: runs only when steps= (or --steps) names it (array: destructive). */
#define PS_PLAN_NAMED (1U << 2)

/*
 * Step flags. PS_STEP_TAKES_INVENTORY: the plan's first phase, run before
 * every other step whatever the plan; its ctx->inventory is the inventory to
 * take (and correct: what smartctl reads behind a bridge), frozen after it:
 * every other step gets it read-only in ctx->inv. One step has it.
 */
#define PS_STEP_TAKES_INVENTORY (1U << 0)

/* What a step needs; the core skips the step, with the reason, when absent. */
#define PS_NEED_ROOT	(1U << 0)
#define PS_NEED_MODULE	(1U << 1) /* /dev/probestick open */
#define PS_NEED_SCRATCH (1U << 2) /* a confirmed scratch drive: writes */

struct ps_config;
struct ps_step_run; /* the core's bookkeeping of the running step */

/*
 * A setting a step declares: a probestick.cfg key (key=value) that the
 * kernel command line sets too (probestick.key=value), parsed once into a
 * typed value the step reads with ps_setting(). The core's config, the
 * report's config{} and its schema, and the menu walk every step's list:
 * adding a setting touches the step's file (and its test and docs).
 */
#define PS_SETTING_VALUE_MAX 256 /* bytes of a parsed value */
#define PS_SETTING_TEXT_MAX  128 /* bytes of its text */

struct ps_setting_choice {
	const char *value; /* a value the menu steps through; "" is the default */
	const char *means; /* what it does, said when the menu switches to it */
};

struct ps_setting {
	const char *key;  /* [a-z_]+, unique among the core's and every step's */
	const char *help; /* one line: what it sets and the values it takes */
	const char *def;  /* the default as text; NULL: none (config{} says null) */
	size_t size;	  /* of the parsed value, at most PS_SETTING_VALUE_MAX */
	/* text (never "") into value (zeroed, size bytes): 0, or -EINVAL and why. */
	int (*parse)(const char *text, void *value, char *why, size_t whylen);
	/* Optional: a menu key that steps through choices (value NULL ends them). */
	char menu_key;
	const char *menu_label;
	const struct ps_setting_choice *choices;
};

struct ps_plan_info {
	const char *name;   /* "quick", "full", "custom" */
	unsigned int level; /* PS_PLAN_QUICK or PS_PLAN_FULL: how deep the steps go */
};

struct ps_ctx {
	const char *root; /* "" on a live system; a fixture tree in tests */
	const struct ps_plan_info *plan;
	const struct ps_config *cfg;
	/* the inventory, taken by the plan's first phase and read-only afterwards */
	const struct ps_inventory *inv;
	/* the first phase's step alone (PS_STEP_TAKES_INVENTORY): the inventory to take */
	struct ps_inventory *inventory;
	/*
	 * The step's typed result: ops->result's struct, made by the core with
	 * ps_fields_init (unknown everywhere) and turned into data{} once the
	 * step returns. A step with a result never touches data{} (NULL).
	 */
	void *result;
	json_object *data; /* a step without a result table: its data{}, written by hand */
	int module_fd;	   /* open /dev/probestick, or -1 */
	volatile sig_atomic_t *abort_flag; /* set when the user asks to abort */
	struct ps_step_run *run;	   /* core-owned: findings, verdicts, progress */
};

struct ps_step_ops {
	unsigned int abi;	    /* PS_STEP_ABI */
	const char *name;	    /* [a-z0-9_]+, the name in plans and reports */
	const char *title;	    /* one line for the menu */
	unsigned int plans;	    /* PS_PLAN_* */
	unsigned int needs;	    /* PS_NEED_* */
	int order;		    /* position in a plan, lower first */
	const char *after;	    /* a step that must run first (its inputs), or NULL */
	unsigned int flags;	    /* PS_STEP_* */
	unsigned int data_version;  /* of data{}; bump when a field's meaning changes */
	const struct ps_view *view; /* how data{} is shown; required, checked at registration */
	/*
	 * What data{} holds, as a C struct and its field table (lib/fields.h):
	 * the core gives run() the struct in ctx->result and writes it into
	 * data{} at the end; the table is also the step's schema fragment and
	 * what its view may name. NULL: the step writes data{} itself and
	 * carries //schema: lines (steps not converted yet).
	 */
	const struct ps_fields *result;
	/*
	 * Optional, NULL-terminated: the views of this step's earlier data
	 * versions, so that reports an earlier probestick wrote still show and
	 * compare after data_version went up (named as the step, versions below).
	 */
	const struct ps_view *const *older_views;
	/* Optional, NULL-terminated: the settings the step reads (ps_setting). */
	const struct ps_setting *const *settings;
	/* Returns an enum ps_status, or a negative errno when it could not run. */
	int (*run)(struct ps_ctx *ctx);
	/* Optional: seconds the step will take on this inventory at ctx->plan's level. */
	double (*estimate_s)(const struct ps_ctx *ctx);
};

/* Register a step from its own file; the core validates it at start-up. */
#define PS_STEP_REGISTER(ops)                                                                      \
	static const struct ps_step_ops *const ps_step_ptr_##ops                                   \
	    __attribute__((used, section("ps_steps"), aligned(sizeof(void *)))) = &(ops)

/* ---- findings and verdicts ---- */

/* enum ps_severity (info, warn, fail) is decode/decode.h's: engines report through hooks. */
const char *ps_severity_name(enum ps_severity s); /* "info", "warn", "fail" */

/*
 * A finding: what a step found, with the rule that decided it and, where it
 * is a figure, the value, the limit it was held to and their unit, so that
 * HTML, compare and exports use them without parsing the message.
 */
struct ps_finding {
	enum ps_severity severity;
	struct ps_dev_ref dev; /* kind PS_DEV_NONE: about the step or the plan */
	const char *rule;      /* "read_error": reported as "<step>.read_error" */
	double value, limit;   /* NAN when not a figure (PS_NO_VALUE) */
	const char *unit;      /* "sectors", "MB/s", "%", or NULL */
};
#define PS_NO_VALUE (__builtin_nan(""))

/* Add a finding to the running step; fmt gives the message a person reads. */
void ps_find(struct ps_ctx *ctx, const struct ps_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A finding without figures, the common case. */
void ps_findf(struct ps_ctx *ctx, enum ps_severity sev, struct ps_dev_ref dev, const char *rule,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * The step examined dev: its verdict in this step is pass, with this rule
 * and message, unless a warn or fail finding names the same device (the
 * worst finding then decides). A device no step examined has no verdict.
 */
void ps_examined(struct ps_ctx *ctx, struct ps_dev_ref dev, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * The step meant to measure dev and could not (a port in use, a drive that
 * gave no SMART): its verdict in this step is "untested" with this reason,
 * never pass, and the report's verdicts list it as not tested.
 */
void ps_not_tested(struct ps_ctx *ctx, struct ps_dev_ref dev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The parsed value of a setting of the step (one of ops->settings): what
 * probestick.cfg or the command line gave, else the setting's default
 * (zeros when it has none). Never NULL.
 */
const void *ps_setting(const struct ps_ctx *ctx, const struct ps_setting *s);
/* Its text, as given or the default; "" when there is none. */
const char *ps_setting_text(const struct ps_ctx *ctx, const struct ps_setting *s);

/* Why the step was skipped, aborted or could not run (steps[].reason). */
void ps_step_reason(struct ps_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Explicit abort point (memtest86+'s BAILOUT): true when the step should stop. */
bool ps_should_abort(const struct ps_ctx *ctx);
/* ps_findf and ps_not_tested as an engine's hooks (engines/net/session.h); the argument is the ctx.
 */
void ps_find_hook(void *ctx, enum ps_severity sev, struct ps_dev_ref dev, const char *rule,
		  const char *message);
void ps_not_tested_hook(void *ctx, struct ps_dev_ref dev, const char *why);

/* ps_should_abort as an engine's should_stop hook, whose argument is the ctx. */
static inline bool ps_should_abort_hook(void *ctx)
{
	return ps_should_abort(ctx);
}

const char *ps_status_name(enum ps_status s);

/*
 * A figure whose runs varied by more than PS_UNSTABLE_CV_PCT (lib/stats.h)
 * is worth a word even when the noise rule let it be: an info finding
 * "<what> varied by N% between runs (min-max unit[, after a warm-up run]):
 * <why>", with the CV as its value and the limit. Nothing for a steady
 * figure, one of fewer than two runs, or an aborted step. True when it spoke.
 */
bool ps_find_unstable(struct ps_ctx *ctx, struct ps_dev_ref dev, const char *rule,
		      const struct ps_figure *f, const char *unit, int decimals, const char *what,
		      const char *why);

/* ---- progress: the console renders it as a bar with rate and ETA ---- */

/*
 * Start a phase of the running step ("sda 1M QD8", "scan nvme0n1"): total
 * units of work (0 when unknown: rate only), unit "B" (rates in MB/s), "s"
 * (time-bounded work), or a plain word ("runs", "sectors").
 */
void ps_progress_phase(struct ps_ctx *ctx, const char *phase, uint64_t total, const char *unit);
/* The same phase, its work and rate kept, under a new name (a cue: "read the wall meter"). */
void ps_progress_rename(struct ps_ctx *ctx, const char *phase);
/*
 * The phase grew (more runs than planned: a noisy figure): its new total.
 * The share shown as done never goes back: what is left is spread over the
 * new total, so the ETA grows, not the bar's way back.
 */
void ps_progress_total(struct ps_ctx *ctx, uint64_t total);
/* Work done so far in the phase; cheap, call it as often as you like. */
void ps_progress_set(struct ps_ctx *ctx, uint64_t done);
void ps_progress_add(struct ps_ctx *ctx, uint64_t delta);

/*
 * A measuring phase on the step's bar, planned from the measuring engine
 * (engines/measure.h): each run is per_run units of unit; ps_measure_bar_hook
 * is the engine's progress hook (arg: the bar) and grows the phase when the
 * noise rule adds a run; ps_measure_bar_within says how far into the current
 * run the step is (bytes read, milliseconds sent).
 */
struct ps_measure_bar {
	struct ps_ctx *ctx;
	uint64_t per_run;
	unsigned int done, planned;
};
void ps_measure_bar_start(struct ps_measure_bar *b, struct ps_ctx *ctx, const char *phase,
			  unsigned int planned, uint64_t per_run, const char *unit);
void ps_measure_bar_hook(void *bar, unsigned int done, unsigned int planned);
void ps_measure_bar_within(struct ps_measure_bar *b, uint64_t units);

#endif
