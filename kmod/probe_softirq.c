// SPDX-License-Identifier: GPL-2.0
/*
 * softirq probe: time spent in each softirq vector (NET_RX, BLOCK, ...)
 * per CPU. Softirqs do not nest on a CPU, so one start time per vector.
 */
#include <linux/interrupt.h>
#include <linux/sched/clock.h>
#include <trace/events/irq.h>

#include "kcapture.h"

static void ps_softirq_entry(void *data, unsigned int vec)
{
	if (vec < PS_NR_VECS)
		this_cpu_write(ps_kc_cpu->softirq_ts[vec], local_clock());
}

static void ps_softirq_exit(void *data, unsigned int vec)
{
	u64 start;

	if (vec >= PS_NR_VECS)
		return;
	start = this_cpu_xchg(ps_kc_cpu->softirq_ts[vec], 0);
	if (!start || !ps_kc_on(PROBESTICK_KC_SOFTIRQ))
		return;
	ps_kc_record(PS_SLOT_SOFTIRQ + vec, local_clock() - start);
}

static void __maybe_unused ps_softirq_check_types(void)
{
	PS_TP_CHECK(softirq_entry, ps_softirq_entry);
	PS_TP_CHECK(softirq_exit, ps_softirq_exit);
}

static struct ps_tp ps_softirq_tps[] = {
	PS_TP(softirq_entry, ps_softirq_entry),
	PS_TP(softirq_exit, ps_softirq_exit),
};

struct ps_probe ps_probe_softirq = {
	.name = "softirq",
	.bit = PROBESTICK_KC_SOFTIRQ,
	.tps = ps_softirq_tps,
	.nr_tps = ARRAY_SIZE(ps_softirq_tps),
};
