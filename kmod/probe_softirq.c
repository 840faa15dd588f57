// SPDX-License-Identifier: GPL-2.0
/*
 * softirq probe: time spent in each softirq vector (NET_RX, BLOCK, ...)
 * per CPU. Softirqs do not nest on a CPU, so one start time per vector.
 */
#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <trace/events/irq.h>

#include "kc_core.h"

static struct ps_metric ps_softirq_time = {
	.metric = PROBESTICK_KC_M_SOFTIRQ,
	.flags = PS_METRIC_PER_CPU,
	.nr_keys = NR_SOFTIRQS,
};

static DEFINE_PER_CPU(u64 [NR_SOFTIRQS], ps_softirq_ts);

static void ps_softirq_entry(void *data, unsigned int vec)
{
	if (vec < NR_SOFTIRQS)
		this_cpu_write(ps_softirq_ts[vec], local_clock());
}

static void ps_softirq_exit(void *data, unsigned int vec)
{
	u64 start;

	if (vec >= NR_SOFTIRQS)
		return;
	start = this_cpu_xchg(ps_softirq_ts[vec], 0);
	if (!start || !ps_on(&ps_softirq_time))
		return;
	ps_record(&ps_softirq_time, vec, 0, local_clock() - start);
}

PS_PROBE(softirq,
	 PS_METRICS(&ps_softirq_time),
	 PS_TRACEPOINTS(PS_TP(softirq_entry, ps_softirq_entry),
			PS_TP(softirq_exit, ps_softirq_exit)));
