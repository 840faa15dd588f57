// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mce_decode.h: MCi_STATUS values as the kernel logs them
 * ("Machine Check: 0 Bank 5: be00000000800400") and as QEMU's `mce`
 * monitor command injects them, decoded by the architectural error codes.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "mce_decode.h"

struct mce_case {
	const char *name;
	u64 status;
	bool uncorrected, overflow, addr_valid, pcc;
	int class;
	int channel;
	const char *what;
};

static void mce_case_desc(const struct mce_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct mce_case mce_cases[] = {
	{ "corrected memory read, channel 0 (QEMU mce 0 1 0x9400000000000090)",
	  0x9400000000000090ULL, false, false, true, false, PS_MCE_MEMORY, 0,
	  "memory controller read, channel 0" },
	{ "corrected patrol scrub, channel 2, filtered (F bit)",
	  0x8c000040000010c2ULL, false, false, true, false, PS_MCE_MEMORY, 2,
	  "memory controller scrubbing, channel 2" },
	{ "memory read, channel not given",
	  0x9c0000000000009fULL, false, false, true, false, PS_MCE_MEMORY, -1,
	  "memory controller read" },
	{ "uncorrected internal timer: be00000000800400",
	  0xbe00000000800400ULL, true, false, true, true, PS_MCE_SIMPLE, -1, "internal timer" },
	{ "L1 data read error, uncorrected with overflow",
	  0xf600000000000135ULL, true, true, true, true, PS_MCE_CACHE, -1,
	  "L1 data cache, data read" },
	{ "generic cache L2",
	  0x900000000000000eULL, false, false, false, false, PS_MCE_CACHE, -1,
	  "L2 cache, generic" },
	{ "data TLB L1",
	  0x9000000000000015ULL, false, false, false, false, PS_MCE_TLB, -1, "data TLB, L1" },
	{ "bus: source, memory read, timeout",
	  0xb200000000000911ULL, true, false, false, true, PS_MCE_BUS, -1,
	  "bus source, memory read, timeout" },
	{ "internal unclassified",
	  0x9000000000000405ULL, false, false, false, false, PS_MCE_OTHER, -1,
	  "internal error 0x0405" },
	{ "no error", 0x0ULL, false, false, false, false, PS_MCE_NONE, -1, "no error" },
};

KUNIT_ARRAY_PARAM(mce, mce_cases, mce_case_desc);

static void mce_decode_status_registers(struct kunit *test)
{
	const struct mce_case *c = test->param_value;
	struct ps_mce_status st;

	ps_mce_decode(c->status, &st);
	KUNIT_EXPECT_EQ(test, st.valid, !!(c->status >> 63));
	KUNIT_EXPECT_EQ(test, st.uncorrected, c->uncorrected);
	KUNIT_EXPECT_EQ(test, st.overflow, c->overflow);
	KUNIT_EXPECT_EQ(test, st.addr_valid, c->addr_valid);
	KUNIT_EXPECT_EQ(test, st.pcc, c->pcc);
	KUNIT_EXPECT_EQ(test, (int)st.class, c->class);
	KUNIT_EXPECT_EQ(test, st.channel, c->channel);
	KUNIT_EXPECT_STREQ(test, st.what, c->what);
	KUNIT_EXPECT_EQ(test, st.code, (u16)c->status);
}

static struct kunit_case probestick_mce_cases[] = {
	KUNIT_CASE_PARAM(mce_decode_status_registers, mce_gen_params),
	{}
};

static struct kunit_suite probestick_mce_suite = {
	.name = "probestick_mce_decode",
	.test_cases = probestick_mce_cases,
};

kunit_test_suites(&probestick_mce_suite);

MODULE_LICENSE("GPL");
