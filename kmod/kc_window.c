// SPDX-License-Identifier: GPL-2.0
/*
 * Attachment and capture window state: nothing attached -> attached (by an
 * ATTACH, or by a START for its window alone) -> window running -> stopped
 * -> running ... -> detached (DETACH, or the owning file's release).
 * Every value user space passes is checked here before anything attaches.
 */
#include <linux/errno.h>

#include "kc_window.h"
#include "uapi/probestick.h"

/* A mask of probe ids: not empty, only the ids the module lists. */
int ps_window_check_mask(u32 mask, u32 flags, u32 reserved, u32 valid)
{
	if (!mask || (mask & ~valid) || flags || reserved)
		return -EINVAL;
	return 0;
}

int ps_window_check_attach(const struct ps_window *w, const void *owner, u32 mask, u32 flags,
			   u32 reserved, u32 valid)
{
	int ret = ps_window_check_mask(mask, flags, reserved, valid);

	if (ret)
		return ret;
	/* One attachment at a time, also for its own owner: detach first. */
	return w->owner ? -EBUSY : 0;
}

void ps_window_attached(struct ps_window *w, const void *owner, u32 mask, u32 got,
			bool implicit)
{
	w->owner = owner;
	w->att_mask = mask;
	w->att_got = got & mask;
	w->implicit = implicit;
}

int ps_window_check_start(const struct ps_window *w, const void *owner, u32 mask, u32 flags,
			  u32 reserved, u32 valid)
{
	int ret = ps_window_check_mask(mask, flags, reserved, valid);

	if (ret)
		return ret;
	if (w->owner && w->owner != owner)
		return -EBUSY;
	if (w->state == PROBESTICK_KC_RUNNING)
		return -EBUSY;
	return 0;
}

/* A START on a file without an attachment attaches for its window alone. */
bool ps_window_needs_attach(const struct ps_window *w, const void *owner)
{
	return !w->owner;
}

/* Returns the probes the window records: those asked for that are attached. */
u32 ps_window_started(struct ps_window *w, u32 mask, u64 now)
{
	w->state = PROBESTICK_KC_RUNNING;
	w->mask = mask;
	w->attached = mask & w->att_got;
	w->generation++;
	w->start_ns = now;
	w->stop_ns = 0;
	return w->attached;
}

int ps_window_check_stop(const struct ps_window *w, const void *owner)
{
	if (w->state != PROBESTICK_KC_RUNNING)
		return -EINVAL;
	return w->owner == owner ? 0 : -EBUSY;
}

/* Stops a running window; true when its attachment ends with it (detach now). */
bool ps_window_stop(struct ps_window *w, u64 now)
{
	bool detach;

	if (w->state != PROBESTICK_KC_RUNNING)
		return false;
	w->state = PROBESTICK_KC_STOPPED;
	w->stop_ns = now < w->start_ns ? w->start_ns : now;
	detach = w->implicit;
	if (detach)
		ps_window_attached(w, NULL, 0, 0, false);
	return detach;
}

int ps_window_check_detach(const struct ps_window *w, const void *owner)
{
	if (!w->owner)
		return -EINVAL;
	return w->owner == owner ? 0 : -EBUSY;
}

/*
 * The owner detaches or its file is released: stops its window and ends
 * the attachment. True when there was one (the probes must be detached).
 */
bool ps_window_release(struct ps_window *w, const void *owner, u64 now)
{
	if (!w->owner || w->owner != owner)
		return false;
	ps_window_stop(w, now);
	ps_window_attached(w, NULL, 0, 0, false);
	return true;
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
