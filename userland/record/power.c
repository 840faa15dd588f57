/*
 * power.c - the run's power at a glance (report.power): what a person read
 * from a wall meter, idle and under full load (seed 001 compared builds
 * this way), beside what RAPL measured over the steps, and the difference:
 * the part of the machine RAPL does not see (drives, fans, board, the
 * supply's own loss).
 */
#include "record/energy.h"
#include "lib/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static json_object *wall_json(const struct ps_wall *w)
{
	json_object *o = json_object_new_object();
	bool any = isfinite(w->idle_w) || isfinite(w->load_w);

	ps_json_set_num(o, "idle_w", w->idle_w, 1);
	ps_json_set_num(o, "load_w", w->load_w, 1);
	ps_json_set_str(o, "source", any ? w->source : NULL);
	ps_json_set_str(o, "entered", any ? w->entered : NULL);
	return o;
}

struct rapl_seen {
	double low_w, load_w, peak_w;
	const char *low_step, *load_step, *peak_step, *reason;
	bool any;
};

static void take(double v, bool higher, double *best, const char **best_step, const char *step)
{
	if (!isfinite(v) || (isfinite(*best) && (higher ? v <= *best : v >= *best)))
		return;
	*best = v;
	*best_step = step;
}

static void rapl_scan(json_object *steps, struct rapl_seen *r)
{
	memset(r, 0, sizeof(*r));
	r->low_w = r->load_w = r->peak_w = NAN;
	for (size_t i = 0; i < ps_json_len(steps); i++) {
		json_object *s = ps_json_at(steps, i), *e = ps_json_get(s, "energy");
		const char *name = ps_json_str(s, "name");
		double v;

		if (!e)
			continue;
		if (ps_json_bool(e, "available") != 1) {
			if (!r->reason)
				r->reason = ps_json_str(e, "reason");
			continue;
		}
		r->any = true;
		if (ps_json_num(e, "low_w", &v))
			take(v, false, &r->low_w, &r->low_step, name);
		if (ps_json_num(e, "avg_w", &v))
			take(v, true, &r->load_w, &r->load_step, name);
		if (ps_json_num(e, "peak_w", &v))
			take(v, true, &r->peak_w, &r->peak_step, name);
	}
}

static double number(json_object *o, const char *key)
{
	double v;

	return ps_json_num(o, key, &v) ? v : NAN;
}

void ps_power_update(json_object *report, const struct ps_wall *wall)
{
	json_object *p = ps_json_get(report, "power"), *rapl = json_object_new_object(), *w;
	struct rapl_seen r;
	double wall_idle, wall_load;

	if (!p || !json_object_is_type(p, json_type_object)) {
		p = json_object_new_object();
		ps_json_set(report, "power", p);
	}
	if (wall) {
		ps_json_set(p, "wall", wall_json(wall));
	} else if (!ps_json_get(p, "wall")) {
		struct ps_wall none = {NAN, NAN, NULL, NULL};

		ps_json_set(p, "wall", wall_json(&none));
	}
	w = ps_json_get(p, "wall");
	rapl_scan(ps_json_arr(report, "steps"), &r);
	ps_json_set(rapl, "available", json_object_new_boolean(r.any));
	ps_json_set_str(rapl, "reason",
			r.any	   ? NULL
			: r.reason ? r.reason
				   : "no step has recorded RAPL's counters yet");
	ps_json_set_num(rapl, "low_w", r.low_w, 1);
	ps_json_set_str(rapl, "low_step", r.low_step);
	ps_json_set_num(rapl, "load_w", r.load_w, 1);
	ps_json_set_str(rapl, "load_step", r.load_step);
	ps_json_set_num(rapl, "peak_w", r.peak_w, 1);
	ps_json_set_str(rapl, "peak_step", r.peak_step);
	ps_json_set(p, "rapl", rapl);
	/* what the wall saw that RAPL does not: only where both were measured */
	wall_idle = number(w, "idle_w");
	wall_load = number(w, "load_w");
	ps_json_set_num(p, "rest_idle_w", wall_idle - r.low_w, 1);
	ps_json_set_num(p, "rest_load_w", wall_load - r.load_w, 1);
}
