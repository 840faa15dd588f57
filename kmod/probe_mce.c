// SPDX-License-Identifier: GPL-2.0
/*
 * mce probe: every machine check the kernel logs (the mce:mce_record
 * tracepoint), counted per bank, CPU and MCi_STATUS, with the first
 * address; kmod/mce_decode.h says what the status means.
 */
#include <linux/hash.h>
#include <linux/string.h>
#include <trace/events/mce.h>

#include "kc_core.h"

#define PS_MAX_MCE_EVENTS 64

static struct ps_keys ps_mce_keys = PS_KEYS(PS_MAX_MCE_EVENTS);

/* key = bank; dir = CPU; sum = MCi_STATUS; max = MCi_ADDR; extra[0] = times seen. */
static struct ps_metric ps_mce_events = {
	.metric = PROBESTICK_KC_M_MCE,
	.flags = PS_METRIC_NO_BUCKETS | PS_METRIC_DIR_IS_AUX | PS_METRIC_META_VALUES,
	.keys = &ps_mce_keys,
	.nr_extra = 1,
};

static void ps_mce_record(void *data, struct mce *m)
{
	struct ps_key_meta *fresh;
	u64 key;
	int k;

	if (!ps_on(&ps_mce_events) || !m)
		return;
	/* The status is hashed with its bank and CPU: one key per distinct error. */
	key = hash_64(m->status ^ ((u64)m->bank << 48) ^ ((u64)m->extcpu << 32), 63);
	k = ps_key(&ps_mce_keys, key, &fresh);
	if (k < 0)
		return;
	if (fresh) {
		fresh->id = m->bank;
		fresh->aux = m->extcpu;
		fresh->val[0] = m->status;
		fresh->val[1] = m->addr;
		strscpy(fresh->name, "", sizeof(fresh->name));
	}
	ps_count(&ps_mce_events, k, 0);
}

PS_PROBE(mce,
	 PS_METRICS(&ps_mce_events),
	 PS_TRACEPOINTS(PS_TP(mce_record, ps_mce_record)));
