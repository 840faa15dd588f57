/*
 * edac.c - the ECC errors of a step: EDAC's corrected and uncorrected
 * counts of every memory controller and DIMM at the step's start and end
 * (hw/edac.h), with a finding per DIMM (the SMBIOS slot when EDAC's label
 * names one), or per controller for what EDAC could not place.
 */
#include "record/platform.h"
#include "record/recorder.h"
#include "lib/util.h"
#include "hw/hw_util.h"
#include "lib/json.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ps_edac_rec {
	char root[PATH_MAX];
	struct ps_edac start;
};

struct ps_edac_rec *ps_edac_start(const char *root)
{
	struct ps_edac_rec *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	ps_copy_str(e->root, sizeof(e->root), root ? root : "");
	ps_edac_read(e->root, &e->start);
	return e;
}

json_object *ps_edac_stop(struct ps_edac_rec *e, const struct ps_inventory *inv)
{
	struct ps_edac end;
	json_object *o;

	if (!e)
		return ps_edac_compare(NULL, NULL, inv);
	ps_edac_read(e->root, &end);
	o = ps_edac_compare(&e->start, &end, inv);
	ps_edac_free(&end);
	ps_edac_free(&e->start);
	free(e);
	return o;
}

static int64_t delta(int64_t a, int64_t b)
{
	if (a < 0 || b < 0)
		return b < 0 ? 0 : b;
	return b >= a ? b - a : b; /* reset by edac's "reset_counters": counts from 0 */
}

/* The SMBIOS slot EDAC's label names (ghes_edac and board drivers use the locators). */
static struct ps_dev_ref dimm_ref(const struct ps_inventory *inv, const struct ps_edac_dimm *d,
				  char *name, size_t len)
{
	for (size_t i = 0; inv && i < inv->memory.n_dimms; i++) {
		const struct ps_dimm_slot *s = &inv->memory.dimms[i];

		if (s->d.locator[0] && d->label[0] && strcmp(s->d.locator, d->label) == 0)
			return ps_dimm_ref(s);
	}
	snprintf(name, len, "MC%d %s%s%s", d->mc, d->name, d->label[0] ? " " : "", d->label);
	return (struct ps_dev_ref){PS_DEV_DIMM, NULL, name};
}

json_object *ps_edac_compare(const struct ps_edac *a, const struct ps_edac *b,
			     const struct ps_inventory *inv)
{
	json_object *o = json_object_new_object(), *mcs = json_object_new_array(),
		    *dimms = json_object_new_array(), *findings = json_object_new_array();

	ps_json_set(o, "available", json_object_new_boolean(a && b && b->present));
	if (!a || !b || !b->present) {
		ps_json_set_str(o, "reason",
				"no EDAC driver registered a memory controller: ECC errors are not "
				"counted (no ECC, or no driver for this controller)");
		ps_json_set(o, "findings", findings);
		json_object_put(mcs);
		json_object_put(dimms);
		return o;
	}
	ps_json_set(o, "controllers_watched", json_object_new_int((int)b->n_mcs));
	ps_json_set(o, "dimms_watched", json_object_new_int((int)b->n_dimms));
	for (size_t i = 0; i < b->n_dimms; i++) {
		const struct ps_edac_dimm *e = &b->dimms[i], *s = NULL;
		int64_t ce, ue;
		char name[128];
		struct ps_dev_ref dev;
		json_object *d;

		for (size_t k = 0; k < a->n_dimms && !s; k++)
			if (a->dimms[k].mc == e->mc && strcmp(a->dimms[k].name, e->name) == 0)
				s = &a->dimms[k];
		ce = delta(s ? s->ce : 0, e->ce);
		ue = delta(s ? s->ue : 0, e->ue);
		if (!ce && !ue)
			continue;
		dev = dimm_ref(inv, e, name, sizeof(name));
		d = json_object_new_object();
		ps_json_set(d, "mc", json_object_new_int(e->mc));
		ps_json_set_str(d, "name", e->name);
		ps_json_set_str(d, "label", e->label);
		ps_json_set_str(d, "location", e->location);
		ps_json_set_str(d, "device", dev.id);
		ps_json_set(d, "ce", json_object_new_int64(ce));
		ps_json_set(d, "ue", json_object_new_int64(ue));
		json_object_array_add(dimms, d);
		if (ue)
			ps_rec_find(findings, "fail", "ue", &dev, (double)ue, 0, "errors",
				    "%lld uncorrected memory error%s during the step on %s (%s): "
				    "replace this DIMM",
				    (long long)ue, ue == 1 ? "" : "s",
				    e->label[0] ? e->label : e->name,
				    e->location[0] ? e->location : "location unknown");
		if (ce)
			ps_rec_find(findings, "warn", "ce", &dev, (double)ce, 0, "errors",
				    "%lld corrected memory error%s during the step on %s (%s): ECC "
				    "caught them; a DIMM that keeps doing this is failing",
				    (long long)ce, ce == 1 ? "" : "s",
				    e->label[0] ? e->label : e->name,
				    e->location[0] ? e->location : "location unknown");
	}
	for (size_t i = 0; i < b->n_mcs; i++) {
		const struct ps_edac_mc *e = &b->mcs[i], *s = NULL;
		int64_t ce, ue, cen, uen;
		json_object *m;
		char name[96];
		struct ps_dev_ref dev = {PS_DEV_MACHINE, NULL, name};

		for (size_t k = 0; k < a->n_mcs && !s; k++)
			if (a->mcs[k].mc == e->mc)
				s = &a->mcs[k];
		ce = delta(s ? s->ce : 0, e->ce);
		ue = delta(s ? s->ue : 0, e->ue);
		cen = delta(s ? s->ce_noinfo : 0, e->ce_noinfo);
		uen = delta(s ? s->ue_noinfo : 0, e->ue_noinfo);
		if (!ce && !ue)
			continue;
		m = json_object_new_object();
		ps_json_set(m, "mc", json_object_new_int(e->mc));
		ps_json_set_str(m, "name", e->name);
		ps_json_set(m, "ce", json_object_new_int64(ce));
		ps_json_set(m, "ue", json_object_new_int64(ue));
		ps_json_set(m, "ce_noinfo", json_object_new_int64(cen));
		ps_json_set(m, "ue_noinfo", json_object_new_int64(uen));
		json_object_array_add(mcs, m);
		/* errors EDAC could not place on a DIMM are the controller's findings */
		snprintf(name, sizeof(name), "MC%d", e->mc);
		if (uen)
			ps_rec_find(findings, "fail", "ue", &dev, (double)uen, 0, "errors",
				    "%lld uncorrected memory error%s during the step on %s (%s), "
				    "not placed on a DIMM",
				    (long long)uen, uen == 1 ? "" : "s", name, e->name);
		if (cen)
			ps_rec_find(findings, "warn", "ce", &dev, (double)cen, 0, "errors",
				    "%lld corrected memory error%s during the step on %s (%s), not "
				    "placed on a DIMM",
				    (long long)cen, cen == 1 ? "" : "s", name, e->name);
	}
	ps_json_set(o, "controllers", mcs);
	ps_json_set(o, "dimms", dimms);
	ps_json_set(o, "findings", findings);
	return o;
}

static const struct ps_col unread_cols[] = {
    {.path = "/reason", .title = "ECC not watched", .flags = PS_COL_WIDE},
};

static const struct ps_col dimm_cols[] = {
    {.path = "/mc", .title = "mc", .flags = PS_COL_KEY},
    {.path = "/name", .title = "dimm", .flags = PS_COL_KEY},
    {.path = "/device", .title = "id", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/ce", .title = "corrected", .better = PS_BETTER_LOWER},
    {.path = "/ue", .title = "uncorrected", .better = PS_BETTER_LOWER},
    {.path = "/label", .title = "label", .flags = PS_COL_WIDE},
};

static const struct ps_col mc_cols[] = {
    {.path = "/mc", .title = "mc", .flags = PS_COL_KEY},
    {.path = "/ce", .title = "corrected", .better = PS_BETTER_LOWER},
    {.path = "/ue", .title = "uncorrected", .better = PS_BETTER_LOWER},
    {.path = "/ce_noinfo", .title = "CE no DIMM", .better = PS_BETTER_LOWER},
    {.path = "/ue_noinfo", .title = "UE no DIMM", .better = PS_BETTER_LOWER},
    {.path = "/name", .title = "controller", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "unread",
     .rows = "",
     .unless = "/available",
     .cols = PS_COLS(unread_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "dimms",
     .title = "Memory errors of the step per DIMM (EDAC)",
     .rows = "/dimms",
     .cols = PS_COLS(dimm_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "controllers",
     .title = "Memory errors of the step per controller (EDAC)",
     .rows = "/controllers",
     .cols = PS_COLS(mc_cols)},
};

const struct ps_view ps_edac_view = {
    .name = "edac",
    .version = 1,
    .scope = PS_SCOPE_MEMBER,
    .blocks = PS_BLOCKS(blocks),
};

/* ---- registered: EDAC's counts around every step ---- */

static void *edac_start(struct ps_rec_ctx *rc, void *plan)
{
	return ps_edac_start(rc->root);
}

static json_object *edac_stop(void *state, struct ps_rec_ctx *rc)
{
	return ps_edac_stop(state, rc->inv);
}

static const struct ps_rec_rule edac_owns[] = {
    {"edac_ce", "/available"}, {"edac_ue", "/available"}, {NULL, NULL}};

static const struct ps_recorder_ops edac_recorder = {
    .abi = PS_RECORDER_ABI,
    .name = "edac",
    .order = 30,
    .show = 80,
    .view = &ps_edac_view,
    .owns = edac_owns,
    .start = edac_start,
    .stop = edac_stop,
};
PS_RECORDER_REGISTER(edac_recorder);
