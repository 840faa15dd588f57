/*
 * recorders.c - every registered recorder (record/recorder.h) around a step:
 * started in their order, stopped in the reverse one (the capture window
 * closest around the step, the load sampler stopped before what it samples),
 * their members into the step and their findings into its findings. The
 * runner calls this and names no recorder.
 */
#include "core/recorders.h"
#include "core/step_run.h"
#include "lib/json.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ps_recorder_ops *const __start_ps_recorders[] __attribute__((weak));
extern const struct ps_recorder_ops *const __stop_ps_recorders[] __attribute__((weak));

static bool recorder_ok(const struct ps_recorder_ops *r)
{
	return r && r->abi == PS_RECORDER_ABI && r->name && r->name[0] && r->start && r->stop &&
	       r->view && r->view->name && strcmp(r->view->name, r->name) == 0 &&
	       r->view->scope == PS_SCOPE_MEMBER;
}

static int by_order(const void *a, const void *b)
{
	const struct ps_recorder_ops *x = *(const struct ps_recorder_ops *const *)a;
	const struct ps_recorder_ops *y = *(const struct ps_recorder_ops *const *)b;

	return x->order != y->order ? (x->order < y->order ? -1 : 1) : strcmp(x->name, y->name);
}

const struct ps_recorder_ops *const *ps_recorders(size_t *n)
{
	static const struct ps_recorder_ops *list[PS_RECORDERS_MAX];
	static size_t count;
	static bool done;

	if (!done && __start_ps_recorders && __stop_ps_recorders) {
		for (const struct ps_recorder_ops *const *r = __start_ps_recorders;
		     r < __stop_ps_recorders && count < PS_RECORDERS_MAX; r++) {
			bool dup = false;

			for (size_t i = 0; i < count && *r; i++)
				dup = dup || strcmp(list[i]->name, (*r)->name) == 0;
			if (recorder_ok(*r) && !dup)
				list[count++] = *r;
		}
		qsort(list, count, sizeof(list[0]), by_order);
	}
	done = true;
	*n = count;
	return list;
}

void ps_recorders_plan_start(struct ps_recorders_plan *p, int module_fd)
{
	const struct ps_recorder_ops *const *all = ps_recorders(&p->n);

	for (size_t i = 0; i < p->n; i++)
		p->state[i] = all[i]->plan_start ? all[i]->plan_start(module_fd) : NULL;
}

void ps_recorders_plan_stop(struct ps_recorders_plan *p)
{
	const struct ps_recorder_ops *const *all = ps_recorders(&p->n);

	for (size_t i = p->n; i-- > 0;)
		if (all[i]->plan_stop)
			all[i]->plan_stop(p->state[i]);
}

/* The load sampler's tick: every started recorder's sample(). */
static void tick(void *arg)
{
	struct ps_rec_ctx *rc = arg;
	struct ps_recorders_run *run = rc->core;
	size_t n;
	const struct ps_recorder_ops *const *all = ps_recorders(&n);

	for (size_t i = 0; i < run->started && i < n; i++)
		if (all[i]->sample && run->state[i])
			all[i]->sample(run->state[i]);
}

static void find(struct ps_rec_ctx *rc, const char *recorder, const char *severity,
		 const char *rule, const char *kind, const char *device, const char *subject,
		 const char *message)
{
	struct ps_recorders_run *run = rc->core;
	char name[96];

	snprintf(name, sizeof(name), "%s.%s", recorder, rule && *rule ? rule : "event");
	ps_finding_add_json(run->findings, severity, name, kind, device, subject, message, NAN, NAN,
			    NULL);
}

static bool owned_elsewhere(struct ps_rec_ctx *rc, const char *rule)
{
	struct ps_recorders_run *run = rc->core;
	size_t n;
	const struct ps_recorder_ops *const *all = ps_recorders(&n);

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; all[i]->owns && all[i]->owns[k].rule; k++) {
			json_object *v;

			if (strcmp(all[i]->owns[k].rule, rule) != 0)
				continue;
			v = ps_json_ptr(ps_json_get(run->step, all[i]->name),
					all[i]->owns[k].available);
			if (v && json_object_is_type(v, json_type_boolean) &&
			    json_object_get_boolean(v))
				return true;
		}
	return false;
}

/*
 * A step that measures throughput: its view has a headline figure where
 * higher is better. A CPU that throttles during it may be why a figure is
 * low, which makes throttling a warning there.
 */
static bool measures_throughput(const struct ps_view *v)
{
	for (size_t b = 0; v && b < v->nblocks; b++)
		for (size_t c = 0; c < v->blocks[b].ncols; c++) {
			const struct ps_col *col = &v->blocks[b].cols[c];

			if ((col->flags & PS_COL_HEADLINE) && col->better == PS_BETTER_HIGHER)
				return true;
		}
	return false;
}

void ps_recorders_start(struct ps_recorders_run *run, const struct ps_recorders_plan *plan,
			const char *root, int module_fd, const struct ps_inventory *inv,
			const struct ps_view *view)
{
	size_t n;
	const struct ps_recorder_ops *const *all = ps_recorders(&n);

	memset(run, 0, sizeof(*run));
	run->rc = (struct ps_rec_ctx){.root = root,
				      .module_fd = module_fd,
				      .inv = inv,
				      .view = view,
				      .throughput = measures_throughput(view),
				      .tick = tick,
				      .find = find,
				      .owned_elsewhere = owned_elsewhere,
				      .core = run};
	for (size_t i = 0; i < n; i++) {
		run->state[i] = all[i]->start(&run->rc, plan ? plan->state[i] : NULL);
		run->started = i + 1;
	}
}

/* A recorder that left its findings in its member: moved into the step's, prefixed. */
static void member_findings(struct ps_recorders_run *run, const char *name, json_object *member)
{
	json_object *list = ps_json_arr(member, "findings");
	char rule[96];

	for (size_t i = 0; i < ps_json_len(list); i++) {
		json_object *f = ps_json_at(list, i);
		double v = NAN, l = NAN;

		snprintf(rule, sizeof(rule), "%s.%s", name, ps_json_str_or(f, "rule", "event"));
		ps_json_num(f, "value", &v);
		ps_json_num(f, "limit", &l);
		ps_finding_add_json(run->findings, ps_json_str_or(f, "severity", "warn"), rule,
				    ps_json_str(f, "kind"), ps_json_str(f, "device"),
				    ps_json_str(f, "subject"), ps_json_str_or(f, "message", ""), v,
				    l, ps_json_str(f, "unit"));
	}
	if (list)
		json_object_object_del(member, "findings");
}

void ps_recorders_stop(struct ps_recorders_run *run, const struct ps_inventory *inv,
		       json_object *step, json_object *data, json_object *findings)
{
	size_t n;
	const struct ps_recorder_ops *const *all = ps_recorders(&n);

	run->rc.inv = inv;
	run->rc.data = data;
	run->step = step;
	run->findings = findings;
	for (size_t i = run->started; i-- > 0;) {
		json_object *m = all[i]->stop(run->state[i], &run->rc);

		run->state[i] = NULL;
		ps_json_set(step, all[i]->name, m);
	}
	run->started = 0;
	/* Before the status: what the recorders found raises it like the step's own. */
	for (size_t i = 0; i < n; i++) {
		json_object *member = ps_json_get(step, all[i]->name);

		if (all[i]->findings)
			all[i]->findings(member, &run->rc);
		else
			member_findings(run, all[i]->name, member);
	}
	if (run->rc.records && run->rc.records_free)
		run->rc.records_free(run->rc.records);
	run->rc.records = NULL;
}

void ps_recorders_summary(json_object *report, const struct ps_wall *wall)
{
	size_t n;
	const struct ps_recorder_ops *const *all = ps_recorders(&n);

	for (size_t i = 0; i < n; i++)
		if (all[i]->summary)
			all[i]->summary(report, wall);
}
