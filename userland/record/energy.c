/*
 * energy.c - what every step cost in energy: the RAPL zones' counters read
 * on the load sampler's ticks, each tick's energy across a counter wrap,
 * joules per zone, the machine's average, peak and lowest watts (packages
 * and DRAM: the cores and uncore are inside the package's figure, psys
 * holds it), the power curve, and the step's rates per watt. Without RAPL
 * every figure is null and the reason says why, never 0.
 */
#include "record/energy.h"
#include "record/recorder.h"
#include "lib/util.h"
#include "hw/hw_util.h"
#include "hw/rapl.h"
#include "lib/json.h"
#include "report/view.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tick shorter than this (the last one, at the step's end) counts its joules, not its watts. */
#define MIN_TICK_S 0.2

struct zone_acc {
	uint64_t prev;
	bool has_prev;
	double joules, peak_w;
	unsigned int wraps, bad; /* wraps seen; readings past the range, not counted */
};

struct point {
	double t, w;
};

struct ps_energy {
	char root[PATH_MAX];
	struct ps_rapl rapl;
	struct ps_rapl_env env;
	int found; /* ps_rapl_find's result */
	struct zone_acc acc[PS_RAPL_MAX];
	double t0, t_prev;
	unsigned int samples;
	double peak_w, low_w; /* over whole ticks where every counted zone was read */
	struct point series[PS_ENERGY_SERIES_MAX];
	size_t npts;
	unsigned int stride, tick; /* keep every stride-th tick in the series */
};

struct ps_energy *ps_energy_start(const char *root)
{
	struct ps_energy *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	ps_copy_str(e->root, sizeof(e->root), root ? root : "");
	e->found = ps_rapl_find(e->root, &e->rapl);
	ps_rapl_env_read(e->root, &e->rapl, &e->env);
	e->peak_w = -INFINITY;
	e->low_w = INFINITY;
	e->stride = 1;
	return e;
}

/* The power curve keeps at most PS_ENERGY_SERIES_MAX points: past that, every other one. */
static void series_add(struct ps_energy *e, double t, double w)
{
	if (e->tick++ % e->stride)
		return;
	if (e->npts == PS_ENERGY_SERIES_MAX) {
		for (size_t i = 0; i < e->npts / 2; i++)
			e->series[i] = e->series[2 * i];
		e->npts /= 2;
		e->stride *= 2;
	}
	e->series[e->npts++] = (struct point){t, w};
}

void ps_energy_sample_at(struct ps_energy *e, double t)
{
	double dt, total = 0;
	bool whole = true;

	if (!e || !e->rapl.n)
		return;
	ps_rapl_read(e->root, &e->rapl);
	dt = e->samples ? t - e->t_prev : 0;
	for (size_t i = 0; i < e->rapl.n; i++) {
		const struct ps_rapl_zone *z = &e->rapl.z[i];
		struct zone_acc *a = &e->acc[i];
		uint64_t d;
		int w;

		if (z->err < 0) {
			whole = whole && !z->counted;
			continue;
		}
		if (!a->has_prev) {
			a->prev = z->uj;
			a->has_prev = true;
			whole = whole && !z->counted;
			continue;
		}
		w = ps_rapl_delta(a->prev, z->uj, z->max_uj, &d);
		a->prev = z->uj;
		if (w < 0) {
			a->bad++;
			whole = whole && !z->counted;
			continue;
		}
		a->wraps += (unsigned int)w;
		a->joules += (double)d / 1e6;
		if (dt >= MIN_TICK_S)
			a->peak_w = fmax(a->peak_w, (double)d / 1e6 / dt);
		if (z->counted)
			total += (double)d / 1e6;
	}
	if (!e->samples)
		e->t0 = t;
	else if (whole && dt >= MIN_TICK_S) {
		e->peak_w = fmax(e->peak_w, total / dt);
		e->low_w = fmin(e->low_w, total / dt);
		series_add(e, t - e->t0, total / dt);
	}
	e->t_prev = t;
	e->samples++;
}

void ps_energy_sample(void *arg)
{
	ps_energy_sample_at(arg, ps_mono_now());
}

/* ---- the step's rates per watt ---- */

/* A rate unit, and the unit per watt it is given in (Mbit/s as Gbit/s). */
static bool rate_unit(const char *unit, double *scale, const char **per_w)
{
	static const struct {
		const char *unit, *per_w;
		double scale;
	} units[] = {
	    {"MB/s", "MB/s per W", 1},	      {"GB/s", "GB/s per W", 1},
	    {"Mbit/s", "Gbit/s per W", 1e-3}, {"Gbit/s", "Gbit/s per W", 1},
	    {"Mb/s", "Gbit/s per W", 1e-3},
	};

	for (size_t i = 0; unit && i < PS_ARRAY_SIZE(units); i++)
		if (strcmp(unit, units[i].unit) == 0) {
			*scale = units[i].scale;
			*per_w = units[i].per_w;
			return true;
		}
	return false;
}

/* "sda 1M QD8": the row's key columns as a person reads them, then the figure's title. */
static void row_label(const struct ps_block *b, const struct ps_col *fig, json_object *row,
		      json_object *parent, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t c = 0; c < b->ncols && o + 1 < len; c++) {
		const struct ps_col *col = &b->cols[c];
		json_object *v = ps_col_value(row, parent, col->path);
		char text[96];

		if (!(col->flags & PS_COL_KEY) || (col->flags & PS_COL_DEVICE) || !v)
			continue;
		if (col->fmt == PS_FMT_BLOCK && json_object_is_type(v, json_type_int)) {
			int64_t bs = json_object_get_int64(v);

			snprintf(text, sizeof(text), "%lld%s",
				 (long long)(bs % 1048576 == 0 ? bs >> 20
					     : bs % 1024 == 0  ? bs >> 10
							       : bs),
				 bs % 1048576 == 0 ? "M"
				 : bs % 1024 == 0  ? "K"
						   : "");
		} else {
			snprintf(text, sizeof(text), "%s", json_object_get_string(v));
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", text);
	}
	if (o + 1 < len)
		snprintf(buf + o, len - o, "%s%s", o ? " " : "", fig->title ? fig->title : "");
}

static void per_watt_row(json_object *out, const struct ps_block *b, const struct ps_col *fig,
			 json_object *row, json_object *parent, double watts)
{
	const char *per_w;
	double scale, v;
	char label[200];
	json_object *o;

	if (!rate_unit(fig->unit, &scale, &per_w) ||
	    !ps_json_as_num(ps_col_value(row, parent, fig->path), &v) || !isfinite(v))
		return;
	row_label(b, fig, row, parent, label, sizeof(label));
	o = json_object_new_object();
	ps_json_set_str(o, "figure", label);
	ps_json_set_num(o, "value", v, 3);
	ps_json_set_str(o, "unit", fig->unit);
	ps_json_set_num(o, "per_w", v * scale / watts, 3);
	ps_json_set_str(o, "per_w_unit", per_w);
	json_object_array_add(out, o);
}

/* Every headline rate the step's view calls better when higher, per watt of the step. */
static void per_watt(json_object *out, const struct ps_view *view, json_object *data, double watts)
{
	for (size_t bi = 0; view && data && bi < view->nblocks; bi++) {
		const struct ps_block *b = &view->blocks[bi];
		json_object *rows = ps_json_ptr(data, b->rows);

		if (b->kind == PS_BLOCK_SERIES || !rows)
			continue;
		for (size_t c = 0; c < b->ncols; c++) {
			const struct ps_col *fig = &b->cols[c];

			if (!(fig->flags & PS_COL_HEADLINE) || fig->better != PS_BETTER_HIGHER)
				continue;
			if (b->kind == PS_BLOCK_KV) {
				if (json_object_is_type(rows, json_type_object))
					per_watt_row(out, b, fig, rows, NULL, watts);
				continue;
			}
			for (size_t i = 0; i < ps_json_len(rows); i++) {
				json_object *r = ps_json_at(rows, i), *sub;

				if (!ps_row_shown(b, r))
					continue;
				if (!b->nested) {
					per_watt_row(out, b, fig, r, NULL, watts);
					continue;
				}
				sub = ps_json_ptr(r, b->nested);
				for (size_t j = 0; j < ps_json_len(sub); j++)
					per_watt_row(out, b, fig, ps_json_at(sub, j), r, watts);
			}
		}
	}
}

/* ---- the step's object ---- */

static void unavailable(json_object *o, const char *reason)
{
	static const char *const nulls[] = {"source", "seconds", "covers", "joules",
					    "avg_w",  "peak_w",	 "low_w"};

	ps_json_set(o, "available", json_object_new_boolean(0));
	ps_json_set_str(o, "reason", reason);
	for (size_t i = 0; i < PS_ARRAY_SIZE(nulls); i++)
		ps_json_set(o, nulls[i], NULL);
	ps_json_set(o, "domains", json_object_new_array());
	ps_json_set(o, "per_watt", json_object_new_array());
	ps_json_set(o, "series", json_object_new_array());
}

json_object *ps_energy_stop(struct ps_energy *e, const struct ps_view *view, json_object *data)
{
	json_object *o = json_object_new_object(), *domains, *pw, *series;
	char reason[512], covers[256] = "";
	double joules = 0, span;
	size_t used = 0;
	bool counted_all = true;

	if (!e) {
		unavailable(o, "out of memory at the step's start");
		return o;
	}
	ps_json_set(o, "samples", json_object_new_int((int)e->samples));
	e->env.read_err = 0;
	for (size_t i = 0; i < e->rapl.n; i++)
		if (e->rapl.z[i].err < 0 && !e->acc[i].has_prev && !e->env.read_err)
			e->env.read_err = e->rapl.z[i].err;
	ps_rapl_reason(&e->env, reason, sizeof(reason));
	if (!reason[0] && e->samples < 2)
		snprintf(reason, sizeof(reason),
			 "the step ended before RAPL's counters were read twice");
	if (reason[0]) {
		unavailable(o, reason);
		free(e);
		return o;
	}
	span = e->t_prev - e->t0;
	domains = json_object_new_array();
	for (size_t i = 0; i < e->rapl.n; i++) {
		const struct ps_rapl_zone *z = &e->rapl.z[i];
		const struct zone_acc *a = &e->acc[i];
		json_object *d = json_object_new_object();
		bool read = a->has_prev && !a->bad;

		ps_json_set_str(d, "zone", z->zone);
		ps_json_set_str(d, "name", z->name);
		ps_json_set_str(d, "kind", ps_rapl_kind_name(z->kind));
		ps_json_set(d, "counted", json_object_new_boolean(z->counted));
		ps_json_set_num(d, "joules", read ? a->joules : NAN, 3);
		ps_json_set_num(d, "avg_w", read && span > 0 ? a->joules / span : NAN, 2);
		ps_json_set_num(d, "peak_w", read && a->peak_w > 0 ? a->peak_w : NAN, 2);
		ps_json_set(d, "wraps", json_object_new_int((int)a->wraps));
		ps_json_set_num(d, "range_j", z->max_uj ? (double)z->max_uj / 1e6 : NAN, 0);
		json_object_array_add(domains, d);
		if (!z->counted)
			continue;
		counted_all = counted_all && read;
		joules += a->joules;
		used += (size_t)snprintf(covers + used, sizeof(covers) - used, "%s%s",
					 used ? ", " : "", z->name);
		if (used >= sizeof(covers))
			used = sizeof(covers) - 1;
	}
	if (!used) {
		json_object_put(domains);
		unavailable(o, "RAPL has zones here, but no package or DRAM zone to sum");
		free(e);
		return o;
	}
	if (!counted_all) {
		json_object_put(domains);
		unavailable(o, "a package or DRAM counter could not be read through the step "
			       "(or read past its range): no total");
		free(e);
		return o;
	}
	ps_json_set(o, "available", json_object_new_boolean(1));
	ps_json_set(o, "reason", NULL);
	ps_json_set_str(o, "source", e->rapl.source);
	ps_json_set_num(o, "seconds", span, 3);
	ps_json_set_str(o, "covers", covers);
	ps_json_set_num(o, "joules", joules, 3);
	ps_json_set_num(o, "avg_w", span > 0 ? joules / span : NAN, 2);
	ps_json_set_num(o, "peak_w", isfinite(e->peak_w) ? e->peak_w : NAN, 2);
	ps_json_set_num(o, "low_w", isfinite(e->low_w) ? e->low_w : NAN, 2);
	ps_json_set(o, "domains", domains);
	pw = json_object_new_array();
	if (span > 0 && joules > 0)
		per_watt(pw, view, data, joules / span);
	ps_json_set(o, "per_watt", pw);
	series = json_object_new_array();
	for (size_t i = 0; i < e->npts; i++) {
		json_object *p = json_object_new_object();

		ps_json_set_num(p, "t", e->series[i].t, 1);
		ps_json_set_num(p, "w", e->series[i].w, 2);
		json_object_array_add(series, p);
	}
	ps_json_set(o, "series", series);
	free(e);
	return o;
}

/* ---- view ---- */

static const struct ps_col summary_cols[] = {
    {.path = "/joules", .title = "energy", .unit = "J", .decimals = 1, .better = PS_BETTER_LOWER},
    {.path = "/avg_w", .title = "mean", .unit = "W", .decimals = 1, .better = PS_BETTER_LOWER},
    {.path = "/peak_w", .title = "peak (1 s)", .unit = "W", .decimals = 1},
    {.path = "/low_w", .title = "lowest (1 s)", .unit = "W", .decimals = 1},
    {.path = "/covers", .title = "RAPL zones summed"},
};

static const struct ps_col reason_cols[] = {
    {.path = "/reason", .title = "not measured", .flags = PS_COL_WIDE},
};

static const struct ps_col domain_cols[] = {
    {.path = "/zone", .title = "zone", .flags = PS_COL_KEY},
    {.path = "/name", .title = "name"},
    {.path = "/joules", .title = "J", .decimals = 1, .better = PS_BETTER_LOWER},
    {.path = "/avg_w", .title = "mean W", .decimals = 1, .better = PS_BETTER_LOWER},
    {.path = "/peak_w", .title = "peak W", .decimals = 1},
    {.path = "/wraps", .title = "wraps", .flags = PS_COL_MEASURED},
    {.path = "/counted", .title = "in total", .fmt = PS_FMT_BOOL},
};

static const struct ps_col per_watt_cols[] = {
    {.path = "/figure", .title = "figure", .flags = PS_COL_KEY | PS_COL_WIDE},
    {.path = "/value", .title = "value", .decimals = 1, .flags = PS_COL_MEASURED},
    {.path = "/unit", .title = "unit"},
    {.path = "/per_w", .title = "per W", .decimals = 2, .better = PS_BETTER_HIGHER},
    {.path = "/per_w_unit", .title = "per W unit"},
};

static const struct ps_col curve_cols[] = {
    {.path = "/none", .title = "RAPL power, W"},
    {.path = "/t", .title = "s"},
    {.path = "/w", .title = "W"},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "summary",
     .rows = "",
     .when = "/available",
     .cols = PS_COLS(summary_cols),
     .note = "RAPL: the CPU packages' and DRAM's own counters, not the wall's"},
    {.kind = PS_BLOCK_KV,
     .id = "unavailable",
     .rows = "",
     .unless = "/available",
     .cols = PS_COLS(reason_cols),
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_TABLE,
     .id = "domains",
     .title = "RAPL zones",
     .rows = "/domains",
     .cols = PS_COLS(domain_cols),
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_TABLE,
     .id = "per_watt",
     .title = "Per watt of the step's mean RAPL power",
     .rows = "/per_watt",
     .cols = PS_COLS(per_watt_cols)},
    {.kind = PS_BLOCK_SERIES,
     .id = "curve",
     .title = "RAPL power over the step",
     .rows = "",
     .nested = "/series",
     .when = "/available",
     .cols = PS_COLS(curve_cols),
     .flags = PS_BLOCK_NO_TEXT},
};

const struct ps_view ps_energy_view = {
    .name = "energy",
    .version = 1,
    .scope = PS_SCOPE_MEMBER,
    .blocks = PS_BLOCKS(blocks),
};

/* ---- registered: the energy of every step, sampled on the load sampler's ticks ---- */

static void *energy_start(struct ps_rec_ctx *rc, void *plan)
{
	return ps_energy_start(rc->root);
}

static json_object *energy_stop(void *state, struct ps_rec_ctx *rc)
{
	return ps_energy_stop(state, rc->view, rc->data);
}

static const struct ps_recorder_ops energy_recorder = {
    .abi = PS_RECORDER_ABI,
    .name = "energy",
    .order = 45, /* after sensors, before the load sampler whose ticks read it */
    .show = 90,
    .view = &ps_energy_view,
    .start = energy_start,
    .stop = energy_stop,
    .sample = ps_energy_sample,
    .summary = ps_power_update,
};
PS_RECORDER_REGISTER(energy_recorder);
