// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite probestick_registry: registering the probes Kbuild built:
 * ids and bits in build order, needs resolved by name (also through other
 * needs), histogram and counter slots laid out, malformed probes refused.
 */
#include <kunit/test.h>

#include "kc_registry.h"

/* A probe set shaped like the module's own: irq lines, vectors, disks, NICs. */
struct ps_fake {
	struct ps_keys lines, disks, nics;
	struct ps_metric hard, soft, lat, irq, nic_lat, nic_pkts;
	struct ps_metric *hard_m[1], *soft_m[1], *block_m[2], *nic_m[2];
	struct ps_probe hardirq, softirq, block, nic;
	struct ps_probe *list[4];
	char why[96];
};

static int ps_registry_test_init(struct kunit *test)
{
	struct ps_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->lines.size = 512;
	f->disks.size = 64;
	f->nics.size = 32;
	f->hard = (struct ps_metric){ .metric = 1, .flags = PS_METRIC_PER_CPU,
				      .keys = &f->lines, .nr_extra = 1 };
	f->soft = (struct ps_metric){ .metric = 2, .flags = PS_METRIC_PER_CPU, .nr_keys = 10 };
	f->lat = (struct ps_metric){ .metric = 3, .keys = &f->disks, .nr_dirs = 3 };
	f->irq = (struct ps_metric){ .metric = 4, .keys = &f->disks, .nr_dirs = 3 };
	f->nic_lat = (struct ps_metric){ .metric = 5, .keys = &f->nics };
	f->nic_pkts = (struct ps_metric){ .metric = 7, .flags = PS_METRIC_NO_BUCKETS,
					  .keys = &f->nics, .nr_extra = 2 };
	f->hard_m[0] = &f->hard;
	f->soft_m[0] = &f->soft;
	f->block_m[0] = &f->lat;
	f->block_m[1] = &f->irq;
	f->nic_m[0] = &f->nic_lat;
	f->nic_m[1] = &f->nic_pkts;
	f->hardirq = (struct ps_probe){ .name = "hardirq", .metrics = f->hard_m, .nr_metrics = 1 };
	f->softirq = (struct ps_probe){ .name = "softirq", .metrics = f->soft_m, .nr_metrics = 1 };
	f->block = (struct ps_probe){ .name = "block", .needs = "hardirq",
				      .metrics = f->block_m, .nr_metrics = 2 };
	f->nic = (struct ps_probe){ .name = "nic", .needs = "hardirq",
				    .metrics = f->nic_m, .nr_metrics = 2 };
	f->list[0] = &f->hardirq;
	f->list[1] = &f->softirq;
	f->list[2] = &f->block;
	f->list[3] = &f->nic;
	test->priv = f;
	return 0;
}

static void ps_registry_init_ids_in_build_order(struct kunit *test)
{
	struct ps_fake *f = test->priv;
	struct ps_registry r;

	KUNIT_ASSERT_EQ(test, ps_registry_init(&r, f->list, 4, f->why, sizeof(f->why)), 0);
	KUNIT_EXPECT_STREQ(test, f->why, "");
	KUNIT_EXPECT_EQ(test, r.valid, 0x0fU);
	KUNIT_EXPECT_EQ(test, f->block.id, 2U);
	KUNIT_EXPECT_EQ(test, f->block.bit, BIT(2));
	KUNIT_EXPECT_EQ(test, f->lat.probe_bit, BIT(2));
	KUNIT_EXPECT_EQ(test, f->nic_pkts.probe_id, 3U);
	KUNIT_EXPECT_PTR_EQ(test, ps_registry_find(&r, "nic"), &f->nic);
	KUNIT_EXPECT_PTR_EQ(test, ps_registry_find(&r, "ata"), (struct ps_probe *)NULL);
}

/* A kernel without CONFIG_BLOCK: nic takes id 2; nobody may assume ids. */
static void ps_registry_init_ids_shift_without_a_probe(struct kunit *test)
{
	struct ps_fake *f = test->priv;
	struct ps_probe *list[] = { &f->hardirq, &f->softirq, &f->nic };
	struct ps_registry r;

	KUNIT_ASSERT_EQ(test, ps_registry_init(&r, list, 3, f->why, sizeof(f->why)), 0);
	KUNIT_EXPECT_EQ(test, f->nic.id, 2U);
	KUNIT_EXPECT_EQ(test, r.valid, 0x07U);
}

static void ps_registry_expand_adds_needs(struct kunit *test)
{
	struct ps_fake *f = test->priv;
	struct ps_registry r;

	KUNIT_ASSERT_EQ(test, ps_registry_init(&r, f->list, 4, f->why, sizeof(f->why)), 0);
	KUNIT_EXPECT_EQ(test, ps_registry_expand(&r, BIT(2)), BIT(2) | BIT(0));
	KUNIT_EXPECT_EQ(test, ps_registry_expand(&r, BIT(1)), BIT(1));
	KUNIT_EXPECT_EQ(test, ps_registry_expand(&r, BIT(3) | BIT(1)), 0x0bU);
	KUNIT_EXPECT_EQ(test, ps_registry_expand(&r, 0), 0U);
}

static void ps_registry_expand_needs_of_needs(struct kunit *test)
{
	struct ps_fake *f = test->priv;
	struct ps_registry r;

	/* softirq needs block, which needs hardirq */
	f->softirq.needs = "block";
	KUNIT_ASSERT_EQ(test, ps_registry_init(&r, f->list, 4, f->why, sizeof(f->why)), 0);
	KUNIT_EXPECT_EQ(test, ps_registry_expand(&r, BIT(1)), 0x07U);
	KUNIT_EXPECT_EQ(test, f->softirq.need_mask, 0x07U);
}

/* Slots follow one another; a counters-only metric takes none; a shared key table is one. */
static void ps_registry_init_lays_out_slots(struct kunit *test)
{
	struct ps_fake *f = test->priv;
	struct ps_registry r;

	KUNIT_ASSERT_EQ(test, ps_registry_init(&r, f->list, 4, f->why, sizeof(f->why)), 0);
	KUNIT_EXPECT_EQ(test, f->hard.slot0, 0U);
	KUNIT_EXPECT_EQ(test, f->hard.nr_keys, 512U);
	KUNIT_EXPECT_EQ(test, f->soft.slot0, 512U);
	KUNIT_EXPECT_EQ(test, f->lat.slot0, 522U);
	KUNIT_EXPECT_EQ(test, f->irq.slot0, 522U + 64 * 3);
	KUNIT_EXPECT_EQ(test, f->nic_lat.slot0, 522U + 2 * 64 * 3);
	KUNIT_EXPECT_EQ(test, f->nic_lat.nr_dirs, 1U);
	KUNIT_EXPECT_EQ(test, r.nr_slots, 522U + 2 * 64 * 3 + 32);
	KUNIT_EXPECT_EQ(test, f->hard.extra0, 0U);
	KUNIT_EXPECT_EQ(test, f->nic_pkts.extra0, 512U);
	KUNIT_EXPECT_EQ(test, r.nr_extra, 512U + 32 * 2);
	KUNIT_EXPECT_EQ(test, r.nr_keys, 3U);
}

enum ps_breakage {
	PS_BREAK_UNKNOWN_NEED, PS_BREAK_SELF_NEED, PS_BREAK_TWICE, PS_BREAK_LONG_NAME,
	PS_BREAK_NO_NAME, PS_BREAK_NO_METRIC, PS_BREAK_KEYS_NOT_POW2, PS_BREAK_NO_KEYS,
	PS_BREAK_EXTRA, PS_BREAK_EMPTY_COUNTERS, PS_BREAK_AUX_UNKEYED, PS_BREAK_TOO_BIG,
	PS_BREAK_VALUES_BUCKETS, PS_BREAK_VALUES_UNKEYED,
};

struct ps_bad_case {
	const char *desc;
	enum ps_breakage what;
	int err;
};

static const struct ps_bad_case ps_bad_cases[] = {
	{ "needs a probe not built", PS_BREAK_UNKNOWN_NEED, -ENOENT },
	{ "needs itself", PS_BREAK_SELF_NEED, -ENOENT },
	{ "registered twice", PS_BREAK_TWICE, -EEXIST },
	{ "name of 16 characters", PS_BREAK_LONG_NAME, -EINVAL },
	{ "no name", PS_BREAK_NO_NAME, -EINVAL },
	{ "no metric", PS_BREAK_NO_METRIC, -EINVAL },
	{ "key table of 48", PS_BREAK_KEYS_NOT_POW2, -EINVAL },
	{ "neither keys nor an index", PS_BREAK_NO_KEYS, -EINVAL },
	{ "three counters", PS_BREAK_EXTRA, -EINVAL },
	{ "counters only, none", PS_BREAK_EMPTY_COUNTERS, -EINVAL },
	{ "dir from aux without keys", PS_BREAK_AUX_UNKEYED, -EINVAL },
	{ "more histograms than a CPU holds", PS_BREAK_TOO_BIG, -E2BIG },
	{ "event values beside buckets", PS_BREAK_VALUES_BUCKETS, -EINVAL },
	{ "event values without keys", PS_BREAK_VALUES_UNKEYED, -EINVAL },
};

static void ps_bad_case_desc(const struct ps_bad_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ps_bad, ps_bad_cases, ps_bad_case_desc);

static void ps_registry_init_refuses_malformed(struct kunit *test)
{
	const struct ps_bad_case *c = test->param_value;
	struct ps_fake *f = test->priv;
	struct ps_registry r;

	switch (c->what) {
	case PS_BREAK_UNKNOWN_NEED:
		f->nic.needs = "ata";
		break;
	case PS_BREAK_SELF_NEED:
		f->nic.needs = "nic";
		break;
	case PS_BREAK_TWICE:
		f->list[3] = &f->block;
		break;
	case PS_BREAK_LONG_NAME:
		f->nic.name = "nic_with_a_long_";
		break;
	case PS_BREAK_NO_NAME:
		f->nic.name = "";
		break;
	case PS_BREAK_NO_METRIC:
		f->nic.nr_metrics = 0;
		break;
	case PS_BREAK_KEYS_NOT_POW2:
		f->disks.size = 48;
		break;
	case PS_BREAK_NO_KEYS:
		f->soft.nr_keys = 0;
		break;
	case PS_BREAK_EXTRA:
		f->nic_pkts.nr_extra = 3;
		break;
	case PS_BREAK_EMPTY_COUNTERS:
		f->nic_pkts.nr_extra = 0;
		break;
	case PS_BREAK_VALUES_BUCKETS:
		f->nic_lat.flags |= PS_METRIC_META_VALUES;
		break;
	case PS_BREAK_VALUES_UNKEYED:
		f->soft.flags |= PS_METRIC_META_VALUES | PS_METRIC_NO_BUCKETS;
		f->soft.nr_extra = 1;
		break;
	case PS_BREAK_AUX_UNKEYED:
		f->soft.flags |= PS_METRIC_DIR_IS_AUX;
		break;
	case PS_BREAK_TOO_BIG:
		f->lat.nr_dirs = 16;
		f->disks.size = 4096;
		break;
	}
	KUNIT_EXPECT_EQ(test, ps_registry_init(&r, f->list, 4, f->why, sizeof(f->why)), c->err);
	/* the load fails with a reason for the log, never silently */
	KUNIT_EXPECT_NE(test, (int)strlen(f->why), 0);
}

static void ps_registry_init_too_many_probes(struct kunit *test)
{
	struct ps_fake *f = test->priv;
	struct ps_probe **many = kunit_kcalloc(test, 33, sizeof(*many), GFP_KERNEL);
	struct ps_registry r;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, many);
	for (i = 0; i < 33; i++)
		many[i] = &f->hardirq;
	KUNIT_EXPECT_EQ(test, ps_registry_init(&r, many, 33, f->why, sizeof(f->why)), -E2BIG);
	/* none at all is a module with no capture probe: valid, empty */
	KUNIT_EXPECT_EQ(test, ps_registry_init(&r, many, 0, f->why, sizeof(f->why)), 0);
	KUNIT_EXPECT_EQ(test, r.valid, 0U);
}

static struct kunit_case ps_registry_test_cases[] = {
	KUNIT_CASE(ps_registry_init_ids_in_build_order),
	KUNIT_CASE(ps_registry_init_ids_shift_without_a_probe),
	KUNIT_CASE(ps_registry_expand_adds_needs),
	KUNIT_CASE(ps_registry_expand_needs_of_needs),
	KUNIT_CASE(ps_registry_init_lays_out_slots),
	KUNIT_CASE_PARAM(ps_registry_init_refuses_malformed, ps_bad_gen_params),
	KUNIT_CASE(ps_registry_init_too_many_probes),
	{}
};

static struct kunit_suite ps_registry_test_suite = {
	.name = "probestick_registry",
	.init = ps_registry_test_init,
	.test_cases = ps_registry_test_cases,
};

kunit_test_suite(ps_registry_test_suite);
