/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture core as a probe sees it: what a probe file declares (its
 * tracepoints, metrics and key tables, in one PS_PROBE) and what its
 * tracepoint callbacks call (ps_on, ps_key, ps_record, ps_count and the
 * last hardirq entry). The core names no probe: Kbuild lists them.
 */
#ifndef PROBESTICK_KC_CORE_H
#define PROBESTICK_KC_CORE_H

#include <asm/barrier.h>
#include <linux/compiler.h>
#include <linux/types.h>

#include "kc_tables.h"
#include "uapi/probestick.h"

struct tracepoint;

/* What a key (IRQ line, disk, NIC) is called; filled by whoever adds it. */
struct ps_key_meta {
	char name[32];
	char bus[32];
	u32 id;			/* the records' key: IRQ number, dev_t, ifindex */
	u32 aux;		/* NIC: NAPI budget */
	u64 val[2];		/* PS_METRIC_META_VALUES: the records' sum and max */
};

/* A table of keys a probe's metrics are indexed by; the core allocates it. */
struct ps_keys {
	unsigned int size;	/* power of two */
	/* Owned by the core. */
	struct ps_keytab tab;
	struct ps_key_meta *meta;
};

#define PS_KEYS(n) { .size = (n) }

/* struct ps_metric flags */
#define PS_METRIC_PER_CPU	BIT(0)	/* one record per CPU, else one merged over CPUs */
#define PS_METRIC_NO_BUCKETS	BIT(1)	/* counters only: records carry extra[] alone */
#define PS_METRIC_DIR_IS_AUX	BIT(2)	/* a record's dir is its key's aux (NIC budget) */
/*
 * Events, not figures: a record's sum and max are its key's val[] (an
 * error's status and address, set when the key is added), with
 * NO_BUCKETS and extra[0] counting how often the key was seen.
 */
#define PS_METRIC_META_VALUES	BIT(3)

/*
 * One kind of figure a probe records: a histogram per key and direction
 * (taken from the per-CPU pool on first use) and nr_extra counters per
 * key and CPU, copied out as records of the given metric.
 */
struct ps_metric {
	u16 metric;		/* enum probestick_kc_metric */
	u16 flags;		/* PS_METRIC_* */
	struct ps_keys *keys;	/* NULL: keyed by an index below nr_keys */
	unsigned int nr_keys;	/* with keys: set from keys->size */
	unsigned int nr_dirs;	/* sub-keys per key (block: direction); 0 is 1 */
	unsigned int nr_extra;	/* 0..2 */
	/* Owned by the core. */
	u32 probe_bit;
	u32 probe_id;
	unsigned int slot0;	/* first histogram slot */
	unsigned int extra0;	/* first counter */
};

/* A tracepoint a probe attaches to, found by name at load. */
struct ps_tp {
	const char *name;
	void *func;
	size_t proto_checked;	/* see PS_TP */
	struct tracepoint *tp;	/* owned by the core */
};

/*
 * The sizeof checks the callback against the kernel's own TP_PROTO at
 * compile time (-Werror=incompatible-pointer-types): a mismatch is a build
 * error, not a crash in a probe.
 */
#define PS_TP(tpname, fn) {						\
	.name = #tpname,						\
	.func = (void *)(fn),						\
	.proto_checked = sizeof((check_trace_callback_type_##tpname(fn), 0)), \
}

struct ps_probe {
	const char *name;
	const char *needs;	/* a probe whose tracepoints it relies on, or NULL */
	struct ps_tp *tps;
	unsigned int nr_tps;
	struct ps_metric *const *metrics;
	unsigned int nr_metrics;
	void (*reset)(void);	/* at window start, while nothing records */
	void (*drops)(struct probestick_kc_drops *d);	/* adds its own loss counters */
	/* Owned by the core. */
	u32 id;
	u32 bit;
	u32 need_mask;		/* bit, and the bits of what it needs */
	bool available;
	bool attached;
	int error;
	char reason[96];
};

#define PS_TRACEPOINTS(...)						\
	.tps = (struct ps_tp []){ __VA_ARGS__ },			\
	.nr_tps = sizeof((struct ps_tp []){ __VA_ARGS__ }) / sizeof(struct ps_tp)

#define PS_METRICS(...)							\
	.metrics = (struct ps_metric *const []){ __VA_ARGS__ },		\
	.nr_metrics = sizeof((struct ps_metric *const []){ __VA_ARGS__ }) /	\
		      sizeof(struct ps_metric *)

/*
 * A probe file ends with one of these, for example
 *   PS_PROBE(block, .needs = "hardirq", PS_METRICS(&lat, &irq),
 *            PS_TRACEPOINTS(PS_TP(block_rq_issue, issue), ...));
 * and is listed in Kbuild's ps-probes-y.
 */
#define PS_PROBE(pname, ...)						\
	struct ps_probe ps_probe_##pname = {				\
		.name = #pname,						\
		__VA_ARGS__						\
	}

extern u32 ps_kc_recording;

/* Whether the window records m's probe now: callbacks check it first. */
static inline bool ps_on(const struct ps_metric *m)
{
	/* Pairs with the release in ps_core_begin(): the zeroed data is seen. */
	return smp_load_acquire(&ps_kc_recording) & m->probe_bit;
}

/* Index of key in keys; when just added, *fresh is its meta to fill, else NULL. */
int ps_key(struct ps_keys *keys, u64 key, struct ps_key_meta **fresh);

static inline struct ps_key_meta *ps_key_meta(struct ps_keys *keys, unsigned int k)
{
	return &keys->meta[k];
}

/* Adds value to the histogram of (key index k, direction dir) on this CPU. */
void ps_record(struct ps_metric *m, unsigned int k, unsigned int dir, u64 value);

/* Adds one to counter which (< nr_extra) of key index k on this CPU. */
void ps_count(struct ps_metric *m, unsigned int k, unsigned int which);

/* The hardirq probe tells the core when a handler starts on this CPU... */
void ps_hardirq_entered(u64 now);
/* ... and the block and NIC probes measure their interrupt paths from it (0: none yet). */
u64 ps_hardirq_last_entry(void);

#endif /* PROBESTICK_KC_CORE_H */
