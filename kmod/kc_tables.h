/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-size lock-free tables the probes use from any context: key tables
 * (IRQ lines, disks, NICs -> small index) and the block request pairing
 * table. Pure code (no tracepoint, no device), so KUnit runs it under UML.
 */
#ifndef PROBESTICK_KC_TABLES_H
#define PROBESTICK_KC_TABLES_H

#include <linux/atomic.h>
#include <linux/types.h>

/*
 * Open addressing over the whole table; a key is never removed during a
 * window, so lookups stop at the first empty slot. Keys are stored + 1
 * so that 0 means empty and every u64 but ~0 can be a key.
 */
struct ps_keytab {
	u64 *keys;
	unsigned int size;		/* power of two */
	atomic64_t full;		/* lookups that found no room */
};

#define PS_KEY_NEW	(1 << 30)	/* or-ed into the index of a key just added */

int ps_keytab_get(struct ps_keytab *kt, u64 key);
int ps_keytab_find(const struct ps_keytab *kt, u64 key);
void ps_keytab_reset(struct ps_keytab *kt);

/* One request in flight: issued in the window, not yet fully completed. */
struct ps_rq_entry {
	unsigned long rq;		/* the request's address, 0 = free */
	u64 issue_ns;
	u32 devt;
	u32 dir;
};

struct ps_rqpair {
	struct ps_rq_entry *e;
	unsigned int size;		/* power of two */
	unsigned int probe_len;		/* slots searched from the hash, <= size */
	atomic64_t full;
	atomic64_t unknown;
	atomic64_t requeued;
};

enum ps_rq_result {
	PS_RQ_DONE,		/* final completion: *out holds the issue data */
	PS_RQ_PARTIAL,		/* bytes remain: the entry stays */
	PS_RQ_UNKNOWN,		/* not issued in this window */
};

int ps_rqpair_issue(struct ps_rqpair *t, unsigned long rq, u64 now, u32 devt, u32 dir);
enum ps_rq_result ps_rqpair_complete(struct ps_rqpair *t, unsigned long rq,
				     unsigned int nr_bytes, unsigned int remaining,
				     struct ps_rq_entry *out);
bool ps_rqpair_requeue(struct ps_rqpair *t, unsigned long rq);
unsigned int ps_rqpair_pending(const struct ps_rqpair *t);
void ps_rqpair_reset(struct ps_rqpair *t);

#endif /* PROBESTICK_KC_TABLES_H */
