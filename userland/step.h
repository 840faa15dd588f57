/* step.h - one plan step = one file filling one struct ps_step_ops. */
#ifndef PS_STEP_H
#define PS_STEP_H

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>

/* Bump when struct ps_step_ops or struct ps_ctx change shape. */
#define PS_STEP_ABI 1

enum ps_status {
	PS_PASS = 0,
	PS_WARN,
	PS_FAIL,  /* the hardware failed the test: a finding, not a crash */
	PS_ERROR, /* the step itself could not run (missing file, errno) */
	PS_SKIPPED,
	PS_ABORTED, /* the user pressed a key */
};

/* Plans a step belongs to. */
#define PS_PLAN_QUICK (1U << 0)
#define PS_PLAN_FULL  (1U << 1)

/* What a step needs; the core skips the step, with the reason, when absent. */
#define PS_NEED_ROOT	(1U << 0)
#define PS_NEED_MODULE	(1U << 1) /* /dev/probestick open */
#define PS_NEED_SCRATCH (1U << 2) /* a confirmed scratch drive: writes */

struct ps_config;

struct ps_ctx {
	const char *root;      /* "" on a live system; a fixture tree in tests */
	json_object *report;   /* the whole report document */
	json_object *step;     /* this step's object in steps[] */
	json_object *findings; /* this step's findings[] */
	int module_fd;	       /* open /dev/probestick, or -1 */
	const struct ps_config *cfg;
	volatile sig_atomic_t *abort_flag; /* set when the user asks to abort */
};

struct ps_step_ops {
	unsigned int abi;   /* PS_STEP_ABI */
	const char *name;   /* [a-z0-9_]+, the name in plans and reports */
	const char *title;  /* one line for the menu */
	unsigned int plans; /* PS_PLAN_* */
	unsigned int needs; /* PS_NEED_* */
	int order;	    /* position in a plan, lower first */
	/* Returns an enum ps_status, or a negative errno when it could not run. */
	int (*run)(struct ps_ctx *ctx);
};

/* Register a step from its own file; the core validates it at start-up. */
#define PS_STEP_REGISTER(ops)                                                                      \
	static const struct ps_step_ops *const ps_step_ptr_##ops                                   \
	    __attribute__((used, section("ps_steps"), aligned(sizeof(void *)))) = &(ops)

/* Add a finding to the running step: severity "info", "warn" or "fail". */
void ps_finding(struct ps_ctx *ctx, const char *severity, const char *subject, const char *rule,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Explicit abort point (memtest86+'s BAILOUT): true when the step should stop. */
bool ps_should_abort(const struct ps_ctx *ctx);

const char *ps_status_name(enum ps_status s);

#endif
