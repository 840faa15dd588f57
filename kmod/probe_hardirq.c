// SPDX-License-Identifier: GPL-2.0
/*
 * hardirq probe: time in each IRQ handler per line and CPU, and the entry
 * timestamp the block and NIC probes measure their interrupt paths from.
 */
#include <linux/interrupt.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <trace/events/irq.h>

#include "kcapture.h"

static void ps_hardirq_entry(void *data, int irq, struct irqaction *action)
{
	this_cpu_write(ps_kc_cpu->irq_ts, local_clock());
	this_cpu_write(ps_kc_cpu->irq_active, irq + 1);
}

static void ps_hardirq_exit(void *data, int irq, struct irqaction *action, int ret)
{
	bool unhandled;
	u64 start;
	int k;

	/* Only a handler whose entry this window saw has a duration. */
	if (this_cpu_xchg(ps_kc_cpu->irq_active, 0) != irq + 1)
		return;
	if (!ps_kc_on(PROBESTICK_KC_HARDIRQ))
		return;
	/*
	 * Every handler of a shared line runs; the one that had work gets the
	 * duration. The others are counted apart, so that handled + unhandled
	 * of a line with one action equals its /proc/interrupts count.
	 */
	unhandled = (action->flags & IRQF_SHARED) && ret == IRQ_NONE;
	start = this_cpu_read(ps_kc_cpu->irq_ts);
	k = ps_keytab_get(&ps_irq_keys, irq);
	if (k < 0)
		return;
	if (k & PS_KEY_NEW) {
		k &= ~PS_KEY_NEW;
		ps_irq_meta[k].id = irq;
		strscpy(ps_irq_meta[k].name, action->name ? action->name : "",
			sizeof(ps_irq_meta[k].name));
	}
	if (unhandled)
		this_cpu_inc(ps_kc_cpu->irq_unhandled[k]);
	else
		ps_kc_record(PS_SLOT_HARDIRQ + k, local_clock() - start);
}

static void __maybe_unused ps_hardirq_check_types(void)
{
	PS_TP_CHECK(irq_handler_entry, ps_hardirq_entry);
	PS_TP_CHECK(irq_handler_exit, ps_hardirq_exit);
}

static struct ps_tp ps_hardirq_tps[] = {
	PS_TP(irq_handler_entry, ps_hardirq_entry),
	PS_TP(irq_handler_exit, ps_hardirq_exit),
};

struct ps_probe ps_probe_hardirq = {
	.name = "hardirq",
	.bit = PROBESTICK_KC_HARDIRQ,
	.tps = ps_hardirq_tps,
	.nr_tps = ARRAY_SIZE(ps_hardirq_tps),
};
