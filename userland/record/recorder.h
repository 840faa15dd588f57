/*
 * recorder.h - what runs around every step, registered like a step: each
 * recorder's own file fills one struct ps_recorder_ops (its member in
 * steps[], how it starts and stops, its view, the kernel-log rules it counts
 * itself) and registers it; the runner starts whatever is registered, in
 * order, and names none (core/recorders.c).
 *
 * What a recorder finds goes into the step's findings as "<recorder>.<rule>":
 * a recorder leaves them in its member's "findings" list (the platform
 * recorders' pure functions do), or states them in its findings() hook
 * through rc->find once every recorder has stopped (the kernel log does:
 * it needs to know which of its rules another recorder counts).
 */
#ifndef PS_RECORD_RECORDER_H
#define PS_RECORD_RECORDER_H

#include "decode/wall.h"
#include "hw/inventory.h"
#include "report/view.h"

#include <json-c/json.h>
#include <stdbool.h>

/* What a recorder sees of the step it records. */
struct ps_rec_ctx {
	const char *root; /* "" live, a fixture tree in tests */
	int module_fd;	  /* open /dev/probestick, or -1 */
	/* the inventory once the plan's first phase took it, else NULL */
	const struct ps_inventory *inv;
	/* the step's view, and its data{} once it returned (at stop; NULL before) */
	const struct ps_view *view;
	json_object *data;
	/* the step measures throughput (a headline figure where higher is better) */
	bool throughput;
	/*
	 * The module's event records of the step's capture window: the probes'
	 * recorder puts them here as it stops (it stops first), the others read
	 * them (AER events, machine checks); freed by records_free after all.
	 */
	void *records;
	void (*records_free)(void *records);
	/* Called once a second by a sampling recorder: every recorder's sample(). */
	void (*tick)(void *rc);
	/* findings(): a finding of the step, its rule "<recorder>.<rule>". */
	void (*find)(struct ps_rec_ctx *rc, const char *recorder, const char *severity,
		     const char *rule, const char *kind, const char *device, const char *subject,
		     const char *message);
	/* findings(): true when another recorder counts this kernel-log rule itself now. */
	bool (*owned_elsewhere)(struct ps_rec_ctx *rc, const char *rule);
	void *core; /* the core's, for the hooks above */
};

/* A kernel-log rule a recorder counts from the source, while its member says it can. */
struct ps_rec_rule {
	const char *rule;      /* "aer", "edac_ce" */
	const char *available; /* a boolean in the recorder's member: "/available" */
};

#define PS_RECORDER_ABI 1

struct ps_recorder_ops {
	unsigned int abi; /* PS_RECORDER_ABI */
	const char *name; /* [a-z]+: its member in steps[] and its findings' prefix */
	int order; /* started lower first, stopped in reverse (the last started stops first) */
	int show;  /* where its section comes among the recorders' in a report, lower first */
	const struct ps_view *view;	/* scope PS_SCOPE_MEMBER, named as the recorder */
	const struct ps_rec_rule *owns; /* optional, ended by a NULL rule */
	/* Optional: once for the plan (the module's probes are attached once), and after it. */
	void *(*plan_start)(int module_fd);
	void (*plan_stop)(void *plan);
	/* Before the step: its state (NULL is a state too: its stop says it was unavailable). */
	void *(*start)(struct ps_rec_ctx *rc, void *plan);
	/* After the step: its member (a new reference, or NULL for none); frees state. */
	json_object *(*stop)(void *state, struct ps_rec_ctx *rc);
	/* Optional: once a second while the step runs (rc->tick calls it). */
	void (*sample)(void *state);
	/* Optional: after every recorder stopped, its member's findings through rc->find. */
	void (*findings)(json_object *member, struct ps_rec_ctx *rc);
	/*
	 * Optional: the recorder's section of the whole run in the report
	 * (energy: report.power), from the steps' members so far: before the
	 * first step and after each. wall: the wall meter's readings the person
	 * gave for the run (wall_idle=, wall_load=, the menu), the first time;
	 * NULL keeps those the report holds.
	 */
	void (*summary)(json_object *report, const struct ps_wall *wall);
};

#define PS_RECORDER_REGISTER(ops)                                                                  \
	static const struct ps_recorder_ops *const ps_recorder_ptr_##ops                           \
	    __attribute__((used, section("ps_recorders"), aligned(sizeof(void *)))) = &(ops)

#endif
