// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite probestick_window: the attachment and its capture windows:
 * argument checks, ownership by the file that attached, attach-once
 * windows, a START's own attachment, and closing on release.
 */
#include <kunit/test.h>

#include "kc_window.h"
#include "uapi/probestick.h"

#define VALID	0x0fU		/* four probes registered */
#define HARDIRQ	BIT(0)
#define SOFTIRQ	BIT(1)
#define BLOCK	BIT(2)
#define NIC	BIT(3)

static const int file_a, file_b;	/* two open files: only their addresses count */
#define A (&file_a)
#define B (&file_b)

static void ps_window_check_mask_rejects_bad_args(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ps_window_check_mask(0, 0, 0, VALID), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_mask(BIT(4), 0, 0, VALID), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_mask(0x80000001U, 0, 0, VALID), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_mask(BLOCK, 1, 0, VALID), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_mask(BLOCK, 0, 5, VALID), -EINVAL);
	/* a module built without the block probe has three ids */
	KUNIT_EXPECT_EQ(test, ps_window_check_mask(BIT(3), 0, 0, 0x7), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_mask(VALID, 0, 0, VALID), 0);
	KUNIT_EXPECT_EQ(test, ps_window_check_mask(NIC, 0, 0, VALID), 0);
}

/* Attach once, then windows that only switch recording: the attachment stays. */
static void ps_window_attach_once_many_windows(struct kunit *test)
{
	struct ps_window w = { 0 };
	int i;

	KUNIT_EXPECT_EQ(test, ps_window_check_attach(&w, A, VALID, 0, 0, VALID), 0);
	ps_window_attached(&w, A, VALID, HARDIRQ | SOFTIRQ | BLOCK, false);
	KUNIT_EXPECT_EQ(test, w.att_got, HARDIRQ | SOFTIRQ | BLOCK);
	for (i = 1; i <= 3; i++) {
		KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, A, VALID, 0, 0, VALID), 0);
		KUNIT_EXPECT_FALSE(test, ps_window_needs_attach(&w, A));
		/* nic did not attach: the window records the other three */
		KUNIT_EXPECT_EQ(test, ps_window_started(&w, VALID, 1000 * i),
				HARDIRQ | SOFTIRQ | BLOCK);
		KUNIT_EXPECT_EQ(test, w.generation, (u32)i);
		KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, A, VALID, 0, 0, VALID), -EBUSY);
		KUNIT_EXPECT_EQ(test, ps_window_check_stop(&w, A), 0);
		KUNIT_EXPECT_FALSE(test, ps_window_stop(&w, 1000 * i + 500));
		KUNIT_EXPECT_PTR_EQ(test, w.owner, (const void *)A);
		KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 99999), 500ULL);
	}
	/* a window may record fewer probes than were attached */
	KUNIT_EXPECT_EQ(test, ps_window_started(&w, BLOCK | NIC, 9000), BLOCK);
	KUNIT_EXPECT_FALSE(test, ps_window_stop(&w, 9100));
	KUNIT_EXPECT_EQ(test, ps_window_check_attach(&w, A, VALID, 0, 0, VALID), -EBUSY);
	KUNIT_EXPECT_EQ(test, ps_window_check_detach(&w, A), 0);
	KUNIT_EXPECT_TRUE(test, ps_window_release(&w, A, 9200));
	KUNIT_EXPECT_PTR_EQ(test, w.owner, (const void *)NULL);
	KUNIT_EXPECT_EQ(test, ps_window_check_detach(&w, A), -EINVAL);
	/* the last window's data stays for snapshots */
	KUNIT_EXPECT_EQ(test, ps_window_check_snapshot(&w), 0);
	KUNIT_EXPECT_EQ(test, w.attached, BLOCK);
}

static void ps_window_other_file_is_refused(struct kunit *test)
{
	struct ps_window w = { 0 };

	ps_window_attached(&w, A, VALID, VALID, false);
	KUNIT_EXPECT_EQ(test, ps_window_check_attach(&w, B, VALID, 0, 0, VALID), -EBUSY);
	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, B, VALID, 0, 0, VALID), -EBUSY);
	KUNIT_EXPECT_EQ(test, ps_window_check_detach(&w, B), -EBUSY);
	ps_window_started(&w, VALID, 100);
	KUNIT_EXPECT_EQ(test, ps_window_check_stop(&w, B), -EBUSY);
	/* B's release touches nothing of A's */
	KUNIT_EXPECT_FALSE(test, ps_window_release(&w, B, 200));
	KUNIT_EXPECT_EQ(test, w.state, (u32)PROBESTICK_KC_RUNNING);
	KUNIT_EXPECT_PTR_EQ(test, w.owner, (const void *)A);
	/* anyone may read it */
	KUNIT_EXPECT_EQ(test, ps_window_check_snapshot(&w), 0);
}

/* The owner dies with its window running: the window stops and the probes detach. */
static void ps_window_release_closes_running_window(struct kunit *test)
{
	struct ps_window w = { 0 };

	ps_window_attached(&w, A, VALID, VALID, false);
	ps_window_started(&w, VALID, 1000);
	KUNIT_EXPECT_TRUE(test, ps_window_release(&w, A, 4000));
	KUNIT_EXPECT_EQ(test, w.state, (u32)PROBESTICK_KC_STOPPED);
	KUNIT_EXPECT_PTR_EQ(test, w.owner, (const void *)NULL);
	KUNIT_EXPECT_EQ(test, w.att_got, 0U);
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 99999), 3000ULL);
	KUNIT_EXPECT_FALSE(test, ps_window_release(&w, A, 5000));
	KUNIT_EXPECT_EQ(test, ps_window_check_stop(&w, A), -EINVAL);
	/* another program can attach now */
	KUNIT_EXPECT_EQ(test, ps_window_check_attach(&w, B, BLOCK, 0, 0, VALID), 0);
}

/* A START without an attachment attaches for its window alone (ABI 2). */
static void ps_window_start_attaches_its_own(struct kunit *test)
{
	struct ps_window w = { 0 };

	KUNIT_EXPECT_EQ(test, ps_window_check_start(&w, A, BLOCK, 0, 0, VALID), 0);
	KUNIT_EXPECT_TRUE(test, ps_window_needs_attach(&w, A));
	ps_window_attached(&w, A, BLOCK, BLOCK | HARDIRQ, true);
	/* only what it asked for counts as its own */
	KUNIT_EXPECT_EQ(test, w.att_got, BLOCK);
	KUNIT_EXPECT_EQ(test, ps_window_started(&w, BLOCK, 10), BLOCK);
	KUNIT_EXPECT_EQ(test, ps_window_check_attach(&w, B, BLOCK, 0, 0, VALID), -EBUSY);
	KUNIT_EXPECT_TRUE(test, ps_window_stop(&w, 20));
	KUNIT_EXPECT_PTR_EQ(test, w.owner, (const void *)NULL);
	KUNIT_EXPECT_EQ(test, w.state, (u32)PROBESTICK_KC_STOPPED);
	/* and the same file's release then finds nothing to close */
	KUNIT_EXPECT_FALSE(test, ps_window_release(&w, A, 30));
}

static void ps_window_idle_has_nothing(struct kunit *test)
{
	struct ps_window w = { 0 };

	KUNIT_EXPECT_EQ(test, ps_window_check_snapshot(&w), -ENODATA);
	KUNIT_EXPECT_EQ(test, ps_window_check_stop(&w, A), -EINVAL);
	KUNIT_EXPECT_EQ(test, ps_window_check_detach(&w, A), -EINVAL);
	KUNIT_EXPECT_FALSE(test, ps_window_stop(&w, 10));
	KUNIT_EXPECT_FALSE(test, ps_window_release(&w, A, 10));
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 10), 0ULL);
}

static void ps_window_elapsed_clock_backwards(struct kunit *test)
{
	struct ps_window w = { 0 };

	ps_window_attached(&w, A, VALID, VALID, false);
	ps_window_started(&w, VALID, 1000);
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 900), 0ULL);
	KUNIT_EXPECT_FALSE(test, ps_window_stop(&w, 900));
	KUNIT_EXPECT_EQ(test, ps_window_elapsed(&w, 2000), 0ULL);
}

static struct kunit_case ps_window_test_cases[] = {
	KUNIT_CASE(ps_window_check_mask_rejects_bad_args),
	KUNIT_CASE(ps_window_attach_once_many_windows),
	KUNIT_CASE(ps_window_other_file_is_refused),
	KUNIT_CASE(ps_window_release_closes_running_window),
	KUNIT_CASE(ps_window_start_attaches_its_own),
	KUNIT_CASE(ps_window_idle_has_nothing),
	KUNIT_CASE(ps_window_elapsed_clock_backwards),
	{}
};

static struct kunit_suite ps_window_test_suite = {
	.name = "probestick_window",
	.test_cases = ps_window_test_cases,
};

kunit_test_suite(ps_window_test_suite);
