// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites probestick_rqpair and probestick_keytab: pairing block
 * requests issue -> completion (requeue, partial completion, unknown
 * request, table full) and the key tables of IRQ lines, disks and NICs.
 */
#include <kunit/test.h>
#include <linux/hash.h>
#include <linux/log2.h>

#include "kc_tables.h"
#include "uapi/probestick.h"

#define T_SIZE 16

struct ps_rq_fixture {
	struct ps_rq_entry e[T_SIZE];
	struct ps_rqpair t;
};

static int ps_rqpair_init(struct kunit *test)
{
	struct ps_rq_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->t.e = f->e;
	f->t.size = T_SIZE;
	f->t.probe_len = 4;
	ps_rqpair_reset(&f->t);
	test->priv = f;
	return 0;
}

static void ps_rqpair_complete_pairs_issue(struct kunit *test)
{
	struct ps_rq_fixture *f = test->priv;
	struct ps_rq_entry out;

	KUNIT_EXPECT_EQ(test, ps_rqpair_issue(&f->t, 0x1000, 500, 0x800001, 0), 0);
	KUNIT_EXPECT_EQ(test, ps_rqpair_issue(&f->t, 0x2000, 600, 0x800002, 1), 0);
	KUNIT_EXPECT_EQ(test, ps_rqpair_pending(&f->t), 2U);
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, 0x2000, 4096, 4096, &out), PS_RQ_DONE);
	KUNIT_EXPECT_EQ(test, out.issue_ns, 600ULL);
	KUNIT_EXPECT_EQ(test, out.devt, 0x800002U);
	KUNIT_EXPECT_EQ(test, out.dir, 1U);
	KUNIT_EXPECT_EQ(test, ps_rqpair_pending(&f->t), 1U);
	/* a second completion of the same request is unknown: no double count */
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, 0x2000, 4096, 4096, &out), PS_RQ_UNKNOWN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->t.unknown), 1LL);
}

static void ps_rqpair_complete_unknown_request(struct kunit *test)
{
	struct ps_rq_fixture *f = test->priv;
	struct ps_rq_entry out;

	/* issued before the window started: never entered, ignored */
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, 0xdead00, 512, 512, &out), PS_RQ_UNKNOWN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->t.unknown), 1LL);
	KUNIT_EXPECT_EQ(test, ps_rqpair_pending(&f->t), 0U);
}

static void ps_rqpair_complete_partial_keeps_entry(struct kunit *test)
{
	struct ps_rq_fixture *f = test->priv;
	struct ps_rq_entry out;

	ps_rqpair_issue(&f->t, 0x3000, 100, 7, 0);
	/* 64 KiB request completed in three updates: 16K, 16K, then the last 32K */
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, 0x3000, 16384, 65536, &out), PS_RQ_PARTIAL);
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, 0x3000, 16384, 49152, &out), PS_RQ_PARTIAL);
	KUNIT_EXPECT_EQ(test, ps_rqpair_pending(&f->t), 1U);
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, 0x3000, 32768, 32768, &out), PS_RQ_DONE);
	KUNIT_EXPECT_EQ(test, out.issue_ns, 100ULL);
	KUNIT_EXPECT_EQ(test, ps_rqpair_pending(&f->t), 0U);
}

static void ps_rqpair_requeue_drops_pending(struct kunit *test)
{
	struct ps_rq_fixture *f = test->priv;
	struct ps_rq_entry out;

	ps_rqpair_issue(&f->t, 0x4000, 100, 7, 0);
	KUNIT_EXPECT_TRUE(test, ps_rqpair_requeue(&f->t, 0x4000));
	KUNIT_EXPECT_EQ(test, ps_rqpair_pending(&f->t), 0U);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->t.requeued), 1LL);
	KUNIT_EXPECT_FALSE(test, ps_rqpair_requeue(&f->t, 0x4000));
	/* re-issued later: the latency runs from the new issue */
	ps_rqpair_issue(&f->t, 0x4000, 900, 7, 0);
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, 0x4000, 512, 512, &out), PS_RQ_DONE);
	KUNIT_EXPECT_EQ(test, out.issue_ns, 900ULL);
}

static void ps_rqpair_reissue_restarts_clock(struct kunit *test)
{
	struct ps_rq_fixture *f = test->priv;
	struct ps_rq_entry out;

	ps_rqpair_issue(&f->t, 0x5000, 100, 7, 0);
	ps_rqpair_issue(&f->t, 0x5000, 300, 7, 1);
	KUNIT_EXPECT_EQ(test, ps_rqpair_pending(&f->t), 1U);
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, 0x5000, 0, 0, &out), PS_RQ_DONE);
	KUNIT_EXPECT_EQ(test, out.issue_ns, 300ULL);
	KUNIT_EXPECT_EQ(test, out.dir, 1U);
}

static void ps_rqpair_issue_table_full(struct kunit *test)
{
	struct ps_rq_fixture *f = test->priv;
	struct ps_rq_entry out;
	unsigned long rq;
	int full = 0;

	for (rq = 1; rq <= 2 * T_SIZE; rq++)
		if (ps_rqpair_issue(&f->t, rq << 8, rq, 1, 0) == -ENOSPC)
			full++;
	/* every request either paired later or counted as lost, none crashes */
	KUNIT_EXPECT_GE(test, full, T_SIZE);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->t.full), (s64)full);
	KUNIT_EXPECT_EQ(test, ps_rqpair_pending(&f->t), 2U * T_SIZE - full);
	/* freed slots are found again, even behind earlier freed ones */
	for (rq = 1; rq <= 2 * T_SIZE; rq++)
		ps_rqpair_complete(&f->t, rq << 8, 1, 1, &out);
	KUNIT_EXPECT_EQ(test, ps_rqpair_pending(&f->t), 0U);
	KUNIT_EXPECT_EQ(test, ps_rqpair_issue(&f->t, 0x7700, 1, 1, 0), 0);
}

static void ps_rqpair_lookup_survives_holes(struct kunit *test)
{
	struct ps_rq_fixture *f = test->priv;
	unsigned int bits = ilog2(T_SIZE), n = 1;
	unsigned long rq[3] = { 1UL << 6 }, cand;
	struct ps_rq_entry out;

	/* three requests on one hash chain; the first one completes first */
	for (cand = 2; n < 3; cand++)
		if (hash_long(cand << 6, bits) == hash_long(rq[0], bits))
			rq[n++] = cand << 6;
	for (n = 0; n < 3; n++)
		KUNIT_ASSERT_EQ(test, ps_rqpair_issue(&f->t, rq[n], n, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, rq[0], 1, 1, &out), PS_RQ_DONE);
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, rq[2], 1, 1, &out), PS_RQ_DONE);
	KUNIT_EXPECT_EQ(test, out.issue_ns, 2ULL);
	KUNIT_EXPECT_EQ(test, ps_rqpair_complete(&f->t, rq[1], 1, 1, &out), PS_RQ_DONE);
	KUNIT_EXPECT_EQ(test, out.issue_ns, 1ULL);
}

static struct kunit_case ps_rqpair_test_cases[] = {
	KUNIT_CASE(ps_rqpair_complete_pairs_issue),
	KUNIT_CASE(ps_rqpair_complete_unknown_request),
	KUNIT_CASE(ps_rqpair_complete_partial_keeps_entry),
	KUNIT_CASE(ps_rqpair_requeue_drops_pending),
	KUNIT_CASE(ps_rqpair_reissue_restarts_clock),
	KUNIT_CASE(ps_rqpair_issue_table_full),
	KUNIT_CASE(ps_rqpair_lookup_survives_holes),
	{}
};

static struct kunit_suite ps_rqpair_test_suite = {
	.name = "probestick_rqpair",
	.init = ps_rqpair_init,
	.test_cases = ps_rqpair_test_cases,
};

static void ps_keytab_get_adds_then_finds(struct kunit *test)
{
	u64 keys[8] = { 0 };
	struct ps_keytab kt = { .keys = keys, .size = 8 };
	int a, b;

	a = ps_keytab_get(&kt, 24);
	KUNIT_EXPECT_TRUE(test, a >= 0 && (a & PS_KEY_NEW));
	b = ps_keytab_get(&kt, 24);
	KUNIT_EXPECT_EQ(test, b, a & ~PS_KEY_NEW);
	KUNIT_EXPECT_EQ(test, ps_keytab_find(&kt, 24), b);
	/* key 0 (IRQ 0, softirq HI) is a key like any other */
	KUNIT_EXPECT_TRUE(test, ps_keytab_get(&kt, 0) & PS_KEY_NEW);
	KUNIT_EXPECT_EQ(test, ps_keytab_find(&kt, 7), -ENOENT);
}

static void ps_keytab_get_full_counts_overflow(struct kunit *test)
{
	u64 keys[8] = { 0 };
	struct ps_keytab kt = { .keys = keys, .size = 8 };
	u64 k;

	atomic64_set(&kt.full, 0);
	for (k = 100; k < 108; k++)
		KUNIT_EXPECT_GE(test, ps_keytab_get(&kt, k), 0);
	KUNIT_EXPECT_EQ(test, ps_keytab_get(&kt, 999), -ENOSPC);
	KUNIT_EXPECT_EQ(test, ps_keytab_get(&kt, 998), -ENOSPC);
	KUNIT_EXPECT_EQ(test, atomic64_read(&kt.full), 2LL);
	/* existing keys still resolve when the table is full */
	for (k = 100; k < 108; k++)
		KUNIT_EXPECT_GE(test, ps_keytab_find(&kt, k), 0);
	ps_keytab_reset(&kt);
	KUNIT_EXPECT_EQ(test, ps_keytab_find(&kt, 100), -ENOENT);
	KUNIT_EXPECT_EQ(test, atomic64_read(&kt.full), 0LL);
}

static struct kunit_case ps_keytab_test_cases[] = {
	KUNIT_CASE(ps_keytab_get_adds_then_finds),
	KUNIT_CASE(ps_keytab_get_full_counts_overflow),
	{}
};

static struct kunit_suite ps_keytab_test_suite = {
	.name = "probestick_keytab",
	.test_cases = ps_keytab_test_cases,
};

kunit_test_suites(&ps_rqpair_test_suite, &ps_keytab_test_suite);
