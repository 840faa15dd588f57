// SPDX-License-Identifier: GPL-2.0
/*
 * NIC probe: per network device, the time from the hardirq that raised
 * NET_RX to the NAPI poll that completed (work < budget), the work done per
 * poll, and the packets received and sent.
 */
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <trace/events/irq.h>
#include <trace/events/napi.h>
#include <trace/events/net.h>

#include "kc_core.h"
#include "wrapper/kc_trace.h"

#define PS_MAX_NICS 32

/*
 * Keyed by the net_device, not the ifindex: each NIC may sit in its own
 * network namespace, where ifindexes repeat.
 */
static struct ps_keys ps_nics = PS_KEYS(PS_MAX_NICS);

static struct ps_metric ps_nic_lat = {
	.metric = PROBESTICK_KC_M_NIC_LAT,
	.keys = &ps_nics,
};

/* Packets per poll; a record's dir is the NAPI budget. */
static struct ps_metric ps_nic_work = {
	.metric = PROBESTICK_KC_M_NIC_WORK,
	.flags = PS_METRIC_DIR_IS_AUX,
	.keys = &ps_nics,
};

/* extra[0] packets received, extra[1] sent. */
static struct ps_metric ps_nic_pkts = {
	.metric = PROBESTICK_KC_M_NIC_PKTS,
	.flags = PS_METRIC_NO_BUCKETS,
	.keys = &ps_nics,
	.nr_extra = 2,
};

/* Entry of the hardirq that raised NET_RX on this CPU, not yet polled. */
static DEFINE_PER_CPU(u64, ps_net_rx_irq_ts);

static int ps_nic_key(struct net_device *dev)
{
	struct ps_key_meta *fresh;
	struct device *parent;
	int k = ps_key(&ps_nics, (unsigned long)dev, &fresh);

	if (k < 0 || !fresh)
		return k;
	fresh->id = dev->ifindex;
	strscpy(fresh->name, dev->name, sizeof(fresh->name));
	parent = dev->dev.parent;
	if (parent)
		strscpy(fresh->bus, dev_name(parent), sizeof(fresh->bus));
	return k;
}

static void ps_nic_softirq_raise(void *data, unsigned int vec)
{
	/* The first unpolled raise wins: the latency runs from the oldest. */
	if (vec == NET_RX_SOFTIRQ && in_hardirq())
		this_cpu_cmpxchg(ps_net_rx_irq_ts, 0, ps_hardirq_last_entry());
}

static void ps_nic_napi_poll(void *data, struct napi_struct *napi, int work, int budget)
{
	u64 irq_ts;
	int k;

	if (!ps_on(&ps_nic_work) || !napi->dev)
		return;
	/* netpoll polls with budget 0: not the interrupt path. */
	if (budget <= 0)
		return;
	k = ps_nic_key(napi->dev);
	if (k < 0)
		return;
	WRITE_ONCE(ps_key_meta(&ps_nics, k)->aux, budget);
	ps_record(&ps_nic_work, k, 0, work > 0 ? work : 0);
	if (work >= budget)
		return;
	irq_ts = this_cpu_xchg(ps_net_rx_irq_ts, 0);
	if (irq_ts)
		ps_record(&ps_nic_lat, k, 0, local_clock() - irq_ts);
}

static void ps_nic_receive(void *data, struct sk_buff *skb)
{
	int k;

	if (!ps_on(&ps_nic_pkts) || !skb->dev)
		return;
	k = ps_nic_key(skb->dev);
	if (k >= 0)
		ps_count(&ps_nic_pkts, k, 0);
}

static void ps_nic_xmit(void *data, struct sk_buff *skb, int rc, struct net_device *dev,
			unsigned int skb_len)
{
	int k;

	if (!ps_on(&ps_nic_pkts) || rc != NETDEV_TX_OK || !dev)
		return;
	k = ps_nic_key(dev);
	if (k >= 0)
		ps_count(&ps_nic_pkts, k, 1);
}

PS_PROBE(nic,
	 .needs = "hardirq",
	 PS_METRICS(&ps_nic_lat, &ps_nic_work, &ps_nic_pkts),
	 PS_TRACEPOINTS(PS_TP(softirq_raise, ps_nic_softirq_raise),
			PS_TP(napi_poll, ps_nic_napi_poll),
			PS_TP(netif_receive_skb, ps_nic_receive),
			PS_TP(net_dev_xmit, ps_nic_xmit)));
