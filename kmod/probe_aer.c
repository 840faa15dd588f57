// SPDX-License-Identifier: GPL-2.0
/*
 * aer probe: every PCIe Advanced Error Reporting event the kernel's AER
 * driver handles (the ras:aer_event tracepoint), counted per reporting
 * device, severity and status register, with the status kept for the
 * report to name its bits.
 */
#include <linux/jhash.h>
#include <linux/string.h>
#include <ras/ras_event.h>

#include "kc_core.h"

#define PS_MAX_AER_EVENTS 64

/* One key per (device, severity, status): the same error repeated is counted. */
static struct ps_keys ps_aer_keys = PS_KEYS(PS_MAX_AER_EVENTS);

/* dir = severity; sum = status; max = TLP header logged; extra[0] = times seen. */
static struct ps_metric ps_aer_events = {
	.metric = PROBESTICK_KC_M_AER,
	.flags = PS_METRIC_NO_BUCKETS | PS_METRIC_DIR_IS_AUX | PS_METRIC_META_VALUES,
	.keys = &ps_aer_keys,
	.nr_extra = 1,
};

static void ps_aer_event(void *data, const char *dev_name, const u32 status,
			 const u8 severity, const u8 tlp_header_valid,
			 struct aer_header_log_regs *tlp)
{
	struct ps_key_meta *fresh;
	size_t len;
	u64 key;
	int k;

	if (!ps_on(&ps_aer_events) || !dev_name)
		return;
	len = strnlen(dev_name, sizeof(fresh->name));
	/* The status is exact in the key; the device and severity are hashed. */
	key = (u64)jhash(dev_name, len, severity) << 32 | status;
	k = ps_key(&ps_aer_keys, key, &fresh);
	if (k < 0)
		return;
	if (fresh) {
		strscpy(fresh->name, dev_name, sizeof(fresh->name));
		fresh->aux = severity;
		fresh->val[0] = status;
		fresh->val[1] = tlp_header_valid ? 1 : 0;
	}
	ps_count(&ps_aer_events, k, 0);
}

PS_PROBE(aer,
	 PS_METRICS(&ps_aer_events),
	 PS_TRACEPOINTS(PS_TP(aer_event, ps_aer_event)));
