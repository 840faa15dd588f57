/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture windows: the shared state the probes record into (per-CPU
 * histograms, key tables) and the interface each probe file fills.
 */
#ifndef PROBESTICK_KCAPTURE_H
#define PROBESTICK_KCAPTURE_H

#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

#include "hist_layout.h"
#include "kc_tables.h"
#include "uapi/probestick.h"

#define PS_MAX_IRQS	512
#define PS_MAX_DISKS	64
#define PS_MAX_NICS	32
#define PS_NR_DIRS	3
#define PS_NR_VECS	NR_SOFTIRQS

/* Histogram slots: one per (probe metric, key); mapped per CPU on first use. */
#define PS_SLOT_HARDIRQ		0
#define PS_SLOT_SOFTIRQ		(PS_SLOT_HARDIRQ + PS_MAX_IRQS)
#define PS_SLOT_BLOCK_LAT	(PS_SLOT_SOFTIRQ + PS_NR_VECS)
#define PS_SLOT_BLOCK_IRQ	(PS_SLOT_BLOCK_LAT + PS_MAX_DISKS * PS_NR_DIRS)
#define PS_SLOT_NIC_LAT		(PS_SLOT_BLOCK_IRQ + PS_MAX_DISKS * PS_NR_DIRS)
#define PS_SLOT_NIC_WORK	(PS_SLOT_NIC_LAT + PS_MAX_NICS)
#define PS_NR_SLOTS		(PS_SLOT_NIC_WORK + PS_MAX_NICS)

struct ps_khist {
	u32 b[PS_HIST_BUCKETS];
	u64 sum;
	u64 max;
};

/* What one CPU's probes share; written only by that CPU, with this_cpu ops. */
struct ps_kc_cpu {
	u64 irq_ts;		/* local_clock() at the latest hardirq handler entry */
	int irq_active;		/* line + 1 of the handler running now, else 0 */
	u32 hists_used;		/* histograms taken from this CPU's pool */
	u64 hists_full;		/* values lost for want of a histogram */
	u64 softirq_ts[PS_NR_VECS];
	u64 net_rx_irq_ts;	/* entry of the hardirq that raised NET_RX, not yet polled */
	u64 nic_rx[PS_MAX_NICS];
	u64 nic_tx[PS_MAX_NICS];
	u64 irq_unhandled[PS_MAX_IRQS];	/* IRQ_NONE on a shared line, per key */
	u16 map[PS_NR_SLOTS];	/* slot -> pool index + 1 */
};

/* Names of the keys, written once by whoever adds the key. */
struct ps_key_meta {
	char name[32];
	char bus[32];
	u32 id;			/* ifindex / dev_t */
	u32 aux;		/* NIC: NAPI budget */
};

extern struct ps_kc_cpu __percpu *ps_kc_cpu;
extern u32 ps_kc_recording;
extern struct ps_keytab ps_irq_keys, ps_disk_keys, ps_nic_keys;
extern struct ps_key_meta ps_irq_meta[PS_MAX_IRQS];
extern struct ps_key_meta ps_disk_meta[PS_MAX_DISKS];
extern struct ps_key_meta ps_nic_meta[PS_MAX_NICS];

void ps_kc_record(unsigned int slot, u64 value);

static inline bool ps_kc_on(u32 probe_bit)
{
	return READ_ONCE(ps_kc_recording) & probe_bit;
}

/* A tracepoint a probe attaches to, found by name at load. */
struct ps_tp {
	const char *name;
	void *func;
	struct tracepoint *tp;
};

/*
 * Checks the callback against the kernel's own TP_PROTO at compile time:
 * a mismatch is a build error, not a crash in a probe.
 */
#define PS_TP(tpname, fn) { .name = #tpname, .func = (void *)(fn) }
#define PS_TP_CHECK(tpname, fn) check_trace_callback_type_##tpname(fn)

struct ps_probe {
	const char *name;
	u32 bit;		/* PROBESTICK_KC_* */
	u32 needs;		/* probes whose tracepoints it relies on */
	struct ps_tp *tps;
	unsigned int nr_tps;
	void (*reset)(void);	/* at window start, with nothing attached */
	/* Owned by kcapture.c. */
	bool available;
	bool attached;
	bool last_attached;
	int error;
	char reason[96];
};

extern struct ps_probe ps_probe_hardirq, ps_probe_softirq, ps_probe_block, ps_probe_nic;

/* The block probe's pairing table counters. */
void ps_block_drops(struct probestick_kc_drops *d);

int ps_kc_init(void);
void ps_kc_exit(void);
long ps_kc_ioctl(unsigned int cmd, void __user *argp);

#endif /* PROBESTICK_KCAPTURE_H */
