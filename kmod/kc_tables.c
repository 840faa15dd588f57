// SPDX-License-Identifier: GPL-2.0
/*
 * Lock-free key and request-pairing tables of the capture probes: claimed
 * with cmpxchg, never allocated or locked, safe from hardirq context.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/string.h>

#include "kc_tables.h"

int ps_keytab_get(struct ps_keytab *kt, u64 key)
{
	unsigned int mask = kt->size - 1, i, n;
	u64 stored = key + 1, cur;

	i = hash_64(key, ilog2(kt->size));
	for (n = 0; n < kt->size; n++, i = (i + 1) & mask) {
		cur = READ_ONCE(kt->keys[i]);
		if (cur == stored)
			return i;
		if (cur)
			continue;
		cur = cmpxchg(&kt->keys[i], 0, stored);
		if (!cur)
			return i | PS_KEY_NEW;
		if (cur == stored)
			return i;
	}
	atomic64_inc(&kt->full);
	return -ENOSPC;
}

int ps_keytab_find(const struct ps_keytab *kt, u64 key)
{
	unsigned int mask = kt->size - 1, i, n;
	u64 cur;

	i = hash_64(key, ilog2(kt->size));
	for (n = 0; n < kt->size; n++, i = (i + 1) & mask) {
		cur = READ_ONCE(kt->keys[i]);
		if (cur == key + 1)
			return i;
		if (!cur)
			break;
	}
	return -ENOENT;
}

void ps_keytab_reset(struct ps_keytab *kt)
{
	memset(kt->keys, 0, kt->size * sizeof(*kt->keys));
	atomic64_set(&kt->full, 0);
}

static unsigned int ps_rq_hash(const struct ps_rqpair *t, unsigned long rq)
{
	/* Requests are cache-line aligned: the low bits carry nothing. */
	return hash_long(rq, ilog2(t->size));
}

static struct ps_rq_entry *ps_rq_lookup(struct ps_rqpair *t, unsigned long rq)
{
	unsigned int i = ps_rq_hash(t, rq), n;

	/*
	 * Entries are freed in any order, so an empty slot does not end the
	 * search: the whole probe window is always scanned.
	 */
	for (n = 0; n < t->probe_len; n++, i = (i + 1) & (t->size - 1))
		if (READ_ONCE(t->e[i].rq) == rq)
			return &t->e[i];
	return NULL;
}

int ps_rqpair_issue(struct ps_rqpair *t, unsigned long rq, u64 now, u32 devt, u32 dir)
{
	struct ps_rq_entry *e = ps_rq_lookup(t, rq);
	unsigned int i, n;

	if (!e) {
		i = ps_rq_hash(t, rq);
		for (n = 0; n < t->probe_len; n++, i = (i + 1) & (t->size - 1)) {
			if (!READ_ONCE(t->e[i].rq) && !cmpxchg(&t->e[i].rq, 0, rq)) {
				e = &t->e[i];
				break;
			}
		}
	}
	if (!e) {
		atomic64_inc(&t->full);
		return -ENOSPC;
	}
	/*
	 * A re-issue without requeue (a completion we missed) restarts the
	 * clock. The completion cannot run before the issue tracepoint has
	 * returned, so these stores are seen by it.
	 */
	WRITE_ONCE(e->issue_ns, now);
	WRITE_ONCE(e->devt, devt);
	WRITE_ONCE(e->dir, dir);
	return 0;
}

enum ps_rq_result ps_rqpair_complete(struct ps_rqpair *t, unsigned long rq,
				     unsigned int nr_bytes, unsigned int remaining,
				     struct ps_rq_entry *out)
{
	struct ps_rq_entry *e = ps_rq_lookup(t, rq);

	if (!e) {
		atomic64_inc(&t->unknown);
		return PS_RQ_UNKNOWN;
	}
	/* blk_update_request() ends a request when its last bytes are done. */
	if (nr_bytes < remaining)
		return PS_RQ_PARTIAL;
	out->rq = rq;
	out->issue_ns = READ_ONCE(e->issue_ns);
	out->devt = READ_ONCE(e->devt);
	out->dir = READ_ONCE(e->dir);
	/* The fields are read before the slot can be taken by another issue. */
	smp_store_release(&e->rq, 0);
	return PS_RQ_DONE;
}

bool ps_rqpair_requeue(struct ps_rqpair *t, unsigned long rq)
{
	struct ps_rq_entry *e = ps_rq_lookup(t, rq);

	if (!e)
		return false;
	atomic64_inc(&t->requeued);
	/* Pairs with the cmpxchg of a later issue taking this slot. */
	smp_store_release(&e->rq, 0);
	return true;
}

unsigned int ps_rqpair_pending(const struct ps_rqpair *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->size; i++)
		n += READ_ONCE(t->e[i].rq) != 0;
	return n;
}

void ps_rqpair_reset(struct ps_rqpair *t)
{
	memset(t->e, 0, t->size * sizeof(*t->e));
	atomic64_set(&t->full, 0);
	atomic64_set(&t->unknown, 0);
	atomic64_set(&t->requeued, 0);
}
