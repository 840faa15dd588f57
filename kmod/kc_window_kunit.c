// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite probestick_window: capture window start/stop/snapshot
 * bookkeeping and the validation of what user space passes.
 */
#include <kunit/test.h>

#include "kc_window.h"
#include "uapi/probestick.h"

static void ps_window_check_start_rejects_bad_args(struct kunit *test)
{
	struct ps_window w = { 0 };

	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, 1U << 4, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, 0x80000001U, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, PROBESTICK_KC_BLOCK, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, PROBESTICK_KC_BLOCK, 0, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, PROBESTICK_KC_ALL, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, PROBESTICK_KC_NIC, 0, 0), 0);
}

static void ps_window_lifecycle(struct kunit *test)
{
	struct ps_window w = { 0 };

	KUNIT_EXPECT_EQ(test, ps_window_check_snapshot(&w), -ENODATA);
	KUNIT_EXPECT_EQ(test, ps_window_stop(&w, 10), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 10), 0ULL);

	ps_window_started(&w, PROBESTICK_KC_ALL, PROBESTICK_KC_HARDIRQ | PROBESTICK_KC_BLOCK, 1000);
	KUNIT_EXPECT_EQ(test, w.state, (u32)PROBESTICK_KC_RUNNING);
	KUNIT_EXPECT_EQ(test, w.generation, 1U);
	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, PROBESTICK_KC_ALL, 0, 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, ps_window_check_snapshot(&w), 0);
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 1500), 500ULL);

	KUNIT_EXPECT_EQ(test, ps_window_stop(&w, 4000), 0);
	KUNIT_EXPECT_EQ(test, w.state, (u32)PROBESTICK_KC_STOPPED);
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 99999), 3000ULL);
	KUNIT_EXPECT_EQ(test, ps_window_stop(&w, 5000), -EINVAL);
	/* a stopped window keeps its data for snapshots until the next start */
	KUNIT_EXPECT_EQ(test, ps_window_check_snapshot(&w), 0);
	KUNIT_EXPECT_EQ(test, w.attached, PROBESTICK_KC_HARDIRQ | PROBESTICK_KC_BLOCK);

	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, PROBESTICK_KC_SOFTIRQ, 0, 0), 0);
	ps_window_started(&w, PROBESTICK_KC_SOFTIRQ, 0, 7000);
	KUNIT_EXPECT_EQ(test, w.generation, 2U);
	KUNIT_EXPECT_EQ(test, w.attached, 0U);
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 7100), 100ULL);
}

static void ps_window_elapsed_clock_backwards(struct kunit *test)
{
	struct ps_window w = { 0 };

	ps_window_started(&w, PROBESTICK_KC_ALL, PROBESTICK_KC_ALL, 1000);
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 900), 0ULL);
	KUNIT_EXPECT_EQ(test, ps_window_stop(&w, 900), 0);
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 2000), 0ULL);
}

static struct kunit_case ps_window_test_cases[] = {
	KUNIT_CASE(ps_window_check_start_rejects_bad_args),
	KUNIT_CASE(ps_window_lifecycle),
	KUNIT_CASE(ps_window_elapsed_clock_backwards),
	{}
};

static struct kunit_suite ps_window_test_suite = {
	.name = "probestick_window",
	.test_cases = ps_window_test_cases,
};

kunit_test_suite(ps_window_test_suite);
