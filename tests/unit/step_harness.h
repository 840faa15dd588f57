/*
 * step_harness.h - run one step the way the plan runner does, without the
 * runner: a context with an inventory, the core's bookkeeping, and what the
 * step left (status, data, findings, verdicts). What the step leaves in
 * data{} is held to its schema fragment (strict for a step with a result
 * table) after every run, as the report schema holds a finished step's.
 * Also a one-table view for fake steps.
 */
#ifndef PS_TEST_STEP_HARNESS_H
#define PS_TEST_STEP_HARNESS_H

#include "core/plan.h"
#include "core/step_run.h"
#include "hw/inventory.h"
#include "lib/json.h"
#include "lib/schema.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct harness {
	struct ps_ctx ctx;
	struct ps_step_run run;
	struct ps_plan_info plan;
	struct ps_inventory inv;
	json_object *step, *data, *verdicts;
	volatile sig_atomic_t abort_flag;
	int status;
};

static inline void harness_init(struct harness *h, const struct ps_step_ops *ops, const char *root,
				unsigned int level)
{
	memset(h, 0, sizeof(*h));
	h->step = json_object_new_object();
	h->data = json_object_new_object();
	json_object_object_add(h->step, "data", h->data);
	ps_step_run_init(&h->run, ops, h->step, NULL, 0, 1);
	json_object_object_add(h->step, "findings", h->run.findings);
	h->plan.name = level == PS_PLAN_FULL ? "full" : "quick";
	h->plan.level = level;
	h->ctx = (struct ps_ctx){.root = root,
				 .plan = &h->plan,
				 .inv = &h->inv,
				 .inventory = ops->flags & PS_STEP_TAKES_INVENTORY ? &h->inv : NULL,
				 .data = h->data,
				 .module_fd = -1,
				 .abort_flag = &h->abort_flag,
				 .run = &h->run};
	if (ps_step_result_begin(&h->ctx, ops, h->data) < 0)
		abort();
}

/* data{} against the step's schema: a finished step's, or any run of a step with a result table. */
static inline void harness_check_schema(struct harness *h)
{
	json_object *schema = ps_step_schema_json(h->run.ops);
	bool finished = h->status == PS_PASS || h->status == PS_WARN || h->status == PS_FAIL;
	char why[512];

	if (!schema || !(finished || h->run.ops->result))
		return;
	if (ps_schema_check(schema, h->data, why, sizeof(why)) == 0)
		return;
	fprintf(stderr, "step %s: data{} does not match its schema: %s\n", h->run.ops->name, why);
#ifdef PS_CHECK_H
	check_count++;
	check_failures++;
#else
	abort();
#endif
}

static inline int harness_run(struct harness *h)
{
	h->status = h->run.ops->run(&h->ctx);
	ps_step_result_end(&h->ctx, h->run.ops, h->data);
	h->verdicts = ps_step_verdicts(h->run.findings, h->run.examined);
	harness_check_schema(h);
	return h->status;
}

static inline void harness_done(struct harness *h)
{
	ps_step_result_end(&h->ctx, h->run.ops, h->data);
	json_object_put(h->verdicts);
	ps_step_run_done(&h->run);
	json_object_put(h->step);
	ps_inventory_free(&h->inv);
}

/* Findings of a rule ("disk_seq.read_error") with a severity (NULL: any). */
static inline size_t harness_count(struct harness *h, const char *rule, const char *severity)
{
	size_t n = 0;

	for (size_t i = 0; i < ps_json_len(h->run.findings); i++) {
		json_object *f = ps_json_at(h->run.findings, i);

		if (rule && strcmp(ps_json_str_or(f, "rule", ""), rule))
			continue;
		if (severity && strcmp(ps_json_str_or(f, "severity", ""), severity))
			continue;
		n++;
	}
	return n;
}

/* A view of one table over data/rows with one key column: enough for fake steps. */
#define HARNESS_VIEW(var, nm, ver)                                                                 \
	static const struct ps_col var##_cols[] = {                                                \
	    {.path = "/name", .title = "name", .flags = PS_COL_KEY}};                              \
	static const struct ps_block var##_blocks[] = {                                            \
	    {.kind = PS_BLOCK_TABLE, .id = "rows", .rows = "/rows", .cols = PS_COLS(var##_cols)}}; \
	static const struct ps_view var = {                                                        \
	    .name = nm, .version = ver, .blocks = PS_BLOCKS(var##_blocks)}

#endif
