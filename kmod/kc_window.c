// SPDX-License-Identifier: GPL-2.0
/*
 * Capture window state machine: idle -> running -> stopped -> running ...
 * Every value user space passes is checked here before anything attaches.
 */
#include <linux/errno.h>

#include "kc_window.h"
#include "uapi/probestick.h"

int ps_window_check_start(const struct ps_window *w, u32 mask, u32 flags, u32 reserved)
{
	if (!mask || (mask & ~PROBESTICK_KC_ALL) || flags || reserved)
		return -EINVAL;
	if (w->state == PROBESTICK_KC_RUNNING)
		return -EBUSY;
	return 0;
}

void ps_window_started(struct ps_window *w, u32 mask, u32 attached, u64 now)
{
	w->state = PROBESTICK_KC_RUNNING;
	w->mask = mask;
	w->attached = attached;
	w->generation++;
	w->start_ns = now;
	w->stop_ns = 0;
}

int ps_window_stop(struct ps_window *w, u64 now)
{
	if (w->state != PROBESTICK_KC_RUNNING)
		return -EINVAL;
	w->state = PROBESTICK_KC_STOPPED;
	w->stop_ns = now < w->start_ns ? w->start_ns : now;
	return 0;
}

/* A snapshot needs a window, running or stopped, to have data. */
int ps_window_check_snapshot(const struct ps_window *w)
{
	return w->state == PROBESTICK_KC_IDLE ? -ENODATA : 0;
}

u64 ps_window_elapsed(const struct ps_window *w, u64 now)
{
	switch (w->state) {
	case PROBESTICK_KC_RUNNING:
		return now > w->start_ns ? now - w->start_ns : 0;
	case PROBESTICK_KC_STOPPED:
		return w->stop_ns - w->start_ns;
	default:
		return 0;
	}
}
