// SPDX-License-Identifier: GPL-2.0
/*
 * NIC probe: per network device, the time from the hardirq that raised
 * NET_RX to the NAPI poll that completed (work < budget), the work done per
 * poll, and the packets received and sent.
 */
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <trace/events/irq.h>
#include <trace/events/napi.h>
#include <trace/events/net.h>

#include "kcapture.h"
#include "wrapper/kc_trace.h"

/*
 * Keyed by the net_device, not the ifindex: each NIC may sit in its own
 * network namespace, where ifindexes repeat.
 */
static int ps_nic_key(struct net_device *dev)
{
	struct device *parent;
	int k = ps_keytab_get(&ps_nic_keys, (unsigned long)dev);

	if (k < 0 || !(k & PS_KEY_NEW))
		return k;
	k &= ~PS_KEY_NEW;
	ps_nic_meta[k].id = dev->ifindex;
	strscpy(ps_nic_meta[k].name, dev->name, sizeof(ps_nic_meta[k].name));
	parent = dev->dev.parent;
	if (parent)
		strscpy(ps_nic_meta[k].bus, dev_name(parent), sizeof(ps_nic_meta[k].bus));
	return k;
}

static void ps_nic_softirq_raise(void *data, unsigned int vec)
{
	/* The first unpolled raise wins: the latency runs from the oldest. */
	if (vec == NET_RX_SOFTIRQ && in_hardirq())
		this_cpu_cmpxchg(ps_kc_cpu->net_rx_irq_ts, 0, this_cpu_read(ps_kc_cpu->irq_ts));
}

static void ps_nic_napi_poll(void *data, struct napi_struct *napi, int work, int budget)
{
	u64 irq_ts;
	int k;

	if (!ps_kc_on(PROBESTICK_KC_NIC) || !napi->dev)
		return;
	/* netpoll polls with budget 0: not the interrupt path. */
	if (budget <= 0)
		return;
	k = ps_nic_key(napi->dev);
	if (k < 0)
		return;
	WRITE_ONCE(ps_nic_meta[k].aux, budget);
	ps_kc_record(PS_SLOT_NIC_WORK + k, work > 0 ? work : 0);
	if (work >= budget)
		return;
	irq_ts = this_cpu_xchg(ps_kc_cpu->net_rx_irq_ts, 0);
	if (irq_ts)
		ps_kc_record(PS_SLOT_NIC_LAT + k, local_clock() - irq_ts);
}

static void ps_nic_receive(void *data, struct sk_buff *skb)
{
	int k;

	if (!ps_kc_on(PROBESTICK_KC_NIC) || !skb->dev)
		return;
	k = ps_nic_key(skb->dev);
	if (k >= 0)
		this_cpu_inc(ps_kc_cpu->nic_rx[k]);
}

static void ps_nic_xmit(void *data, struct sk_buff *skb, int rc, struct net_device *dev,
			unsigned int skb_len)
{
	int k;

	if (!ps_kc_on(PROBESTICK_KC_NIC) || rc != NETDEV_TX_OK || !dev)
		return;
	k = ps_nic_key(dev);
	if (k >= 0)
		this_cpu_inc(ps_kc_cpu->nic_tx[k]);
}

static void __maybe_unused ps_nic_check_types(void)
{
	PS_TP_CHECK(softirq_raise, ps_nic_softirq_raise);
	PS_TP_CHECK(napi_poll, ps_nic_napi_poll);
	PS_TP_CHECK(netif_receive_skb, ps_nic_receive);
	PS_TP_CHECK(net_dev_xmit, ps_nic_xmit);
}

static struct ps_tp ps_nic_tps[] = {
	PS_TP(softirq_raise, ps_nic_softirq_raise),
	PS_TP(napi_poll, ps_nic_napi_poll),
	PS_TP(netif_receive_skb, ps_nic_receive),
	PS_TP(net_dev_xmit, ps_nic_xmit),
};

struct ps_probe ps_probe_nic = {
	.name = "nic",
	.bit = PROBESTICK_KC_NIC,
	.needs = PROBESTICK_KC_HARDIRQ,
	.tps = ps_nic_tps,
	.nr_tps = ARRAY_SIZE(ps_nic_tps),
};
