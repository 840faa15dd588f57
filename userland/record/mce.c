/*
 * mce.c - the machine checks of a step: the mce probe's records (the
 * mce:mce_record tracepoint, one per bank, CPU and MCi_STATUS) decoded by
 * kmod/mce_decode.h, and a finding for each, failing when uncorrected.
 */
#include "record/platform.h"
#include "record/recorder.h"
#include "record/kcapture.h"
#include "lib/json.h"

#include "../../kmod/mce_decode.h"

#include <stdio.h>
#include <string.h>

json_object *ps_mce_json(const struct probestick_kc_record *ev, unsigned int nev, bool captured,
			 const char *reason)
{
	json_object *o = json_object_new_object(), *events = json_object_new_array(),
		    *findings = json_object_new_array();
	struct ps_dev_ref machine = {PS_DEV_MACHINE, NULL, NULL};

	ps_json_set(o, "available", json_object_new_boolean(captured));
	if (!captured)
		ps_json_set_str(o, "reason",
				reason && reason[0] ? reason : "probestick.ko not loaded");
	for (unsigned int i = 0; i < nev; i++) {
		struct ps_mce_status st;
		json_object *e = json_object_new_object();
		char hex[24];

		ps_mce_decode(ev[i].sum, &st);
		ps_json_set(e, "cpu", json_object_new_int((int)ev[i].dir));
		ps_json_set(e, "bank", json_object_new_int((int)ev[i].key));
		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)ev[i].sum);
		ps_json_set_str(e, "status", hex);
		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)ev[i].max);
		ps_json_set_str(e, "address", st.addr_valid ? hex : NULL);
		ps_json_set(e, "count", json_object_new_int64((int64_t)ev[i].extra[0]));
		ps_json_set(e, "uncorrected", json_object_new_boolean(st.uncorrected));
		ps_json_set(e, "overflow", json_object_new_boolean(st.overflow));
		ps_json_set(e, "pcc", json_object_new_boolean(st.pcc));
		ps_json_set_str(e, "class", ps_mce_class_name(st.class));
		ps_json_set_str(e, "error", st.what);
		ps_json_set(e, "channel", st.channel >= 0 ? json_object_new_int(st.channel) : NULL);
		json_object_array_add(events, e);
		ps_rec_find(
		    findings, st.uncorrected ? "fail" : "warn",
		    st.uncorrected ? "uncorrected" : "corrected", &machine, (double)ev[i].extra[0],
		    0, "errors",
		    "%s machine check%s on CPU %u bank %u: %s (MCi_STATUS %016llx%s%s), %llu "
		    "time%s%s",
		    st.uncorrected ? "an uncorrected" : "a corrected",
		    st.overflow ? " with more lost" : "", ev[i].dir, ev[i].key, st.what,
		    (unsigned long long)ev[i].sum, st.addr_valid ? ", address " : "",
		    st.addr_valid ? hex : "", (unsigned long long)ev[i].extra[0],
		    ev[i].extra[0] == 1 ? "" : "s",
		    st.class == PS_MCE_MEMORY
			? ": memory; see the ECC counts and the DIMM the controller names"
			: "");
	}
	ps_json_set(o, "events", events);
	ps_json_set(o, "findings", findings);
	return o;
}

json_object *ps_mce_from_records(const struct ps_kc_records *recs)
{
	const struct probestick_kc_record *ev;
	const char *reason = "";
	unsigned int n = 0;
	bool captured = false;

	ev = ps_kc_records_get(recs, "mce", PROBESTICK_KC_M_MCE, &n, &captured, &reason);
	return ps_mce_json(ev, n, captured, reason);
}

static const struct ps_col unread_cols[] = {
    {.path = "/reason", .title = "machine checks not watched", .flags = PS_COL_WIDE},
};

static const struct ps_col event_cols[] = {
    {.path = "/cpu", .title = "cpu", .flags = PS_COL_KEY},
    {.path = "/bank", .title = "bank", .flags = PS_COL_KEY},
    {.path = "/status", .title = "MCi_STATUS", .flags = PS_COL_KEY},
    {.path = "/count", .title = "times", .better = PS_BETTER_LOWER},
    {.path = "/uncorrected", .title = "UC", .fmt = PS_FMT_BOOL},
    {.path = "/error", .title = "error", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "unread",
     .rows = "",
     .unless = "/available",
     .cols = PS_COLS(unread_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "events",
     .title = "Machine checks (mce_record tracepoint)",
     .rows = "/events",
     .cols = PS_COLS(event_cols),
     .note = "bank numbers name different units on different CPUs; the error code says which kind"},
};

const struct ps_view ps_mce_view = {
    .name = "mce",
    .version = 1,
    .scope = PS_SCOPE_MEMBER,
    .blocks = PS_BLOCKS(blocks),
};

/* ---- registered: the machine checks of every step, from the probes' records ---- */

static void *mce_start(struct ps_rec_ctx *rc, void *plan)
{
	return NULL; /* the mce probe's records come with the capture window's */
}

static json_object *mce_stop(void *state, struct ps_rec_ctx *rc)
{
	return ps_mce_from_records(rc->records);
}

static const struct ps_rec_rule mce_owns[] = {{"mce", "/available"}, {NULL, NULL}};

static const struct ps_recorder_ops mce_recorder = {
    .abi = PS_RECORDER_ABI,
    .name = "mce",
    .order = 35,
    .show = 70,
    .view = &ps_mce_view,
    .owns = mce_owns,
    .start = mce_start,
    .stop = mce_stop,
};
PS_RECORDER_REGISTER(mce_recorder);
