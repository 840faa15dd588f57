// SPDX-License-Identifier: GPL-2.0
/*
 * hardirq probe: time in each IRQ handler per line and CPU, and the entry
 * timestamp the block and NIC probes measure their interrupt paths from.
 */
#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <trace/events/irq.h>

#include "kc_core.h"

#define PS_MAX_IRQS 512

static struct ps_keys ps_irq_lines = PS_KEYS(PS_MAX_IRQS);

/* Handler time of the invocations that handled the interrupt; extra[0] = IRQ_NONE ones. */
static struct ps_metric ps_hardirq_time = {
	.metric = PROBESTICK_KC_M_HARDIRQ,
	.flags = PS_METRIC_PER_CPU,
	.keys = &ps_irq_lines,
	.nr_extra = 1,
};

/* Line + 1 of the handler running on this CPU now, else 0. */
static DEFINE_PER_CPU(int, ps_irq_active);

static void ps_hardirq_entry(void *data, int irq, struct irqaction *action)
{
	ps_hardirq_entered(local_clock());
	this_cpu_write(ps_irq_active, irq + 1);
}

static void ps_hardirq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	struct ps_key_meta *fresh;
	u64 start;
	int k;

	/* Only a handler whose entry this probe saw has a duration. */
	if (this_cpu_xchg(ps_irq_active, 0) != irq + 1)
		return;
	if (!ps_on(&ps_hardirq_time))
		return;
	start = ps_hardirq_last_entry();
	k = ps_key(&ps_irq_lines, irq, &fresh);
	if (k < 0)
		return;
	if (fresh) {
		fresh->id = irq;
		strscpy(fresh->name, action->name ? action->name : "", sizeof(fresh->name));
	}
	/*
	 * Every handler of a shared line runs; the one that had work gets the
	 * duration. The others are counted apart, so that handled + unhandled
	 * of a line with one action equals its /proc/interrupts count.
	 */
	if ((action->flags & IRQF_SHARED) && ret == IRQ_NONE)
		ps_count(&ps_hardirq_time, k, 0);
	else
		ps_record(&ps_hardirq_time, k, 0, local_clock() - start);
}

PS_PROBE(hardirq,
	 PS_METRICS(&ps_hardirq_time),
	 PS_TRACEPOINTS(PS_TP(irq_handler_entry, ps_hardirq_entry),
			PS_TP(irq_handler_exit, ps_hardirq_exit)));
