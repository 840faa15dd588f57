/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bookkeeping of the attachment and its capture windows: who owns them
 * (the open file that attached), which probes were asked for, patched in
 * and recorded, which state the window is in and how long it ran. Pure,
 * so KUnit runs it; kc_ioctl.c does what these decisions say.
 */
#ifndef PROBESTICK_KC_WINDOW_H
#define PROBESTICK_KC_WINDOW_H

#include <linux/types.h>

struct ps_window {
	/* The attachment: at most one, owned by one open file. */
	const void *owner;	/* NULL: nothing attached */
	u32 att_mask;		/* asked for at attach */
	u32 att_got;		/* of those, attached */
	bool implicit;		/* attached by a START for its window alone */
	/* The window (its data stays after it stops, until the next start). */
	u32 state;		/* PROBESTICK_KC_IDLE/RUNNING/STOPPED */
	u32 mask;		/* asked for at start */
	u32 attached;		/* recorded */
	u32 generation;		/* windows started since load */
	u64 start_ns;
	u64 stop_ns;
};

int ps_window_check_mask(u32 mask, u32 flags, u32 reserved, u32 valid);
int ps_window_check_attach(const struct ps_window *w, const void *owner, u32 mask, u32 flags,
			   u32 reserved, u32 valid);
void ps_window_attached(struct ps_window *w, const void *owner, u32 mask, u32 got,
			bool implicit);
int ps_window_check_start(const struct ps_window *w, const void *owner, u32 mask, u32 flags,
			  u32 reserved, u32 valid);
bool ps_window_needs_attach(const struct ps_window *w, const void *owner);
u32 ps_window_started(struct ps_window *w, u32 mask, u64 now);
int ps_window_check_stop(const struct ps_window *w, const void *owner);
bool ps_window_stop(struct ps_window *w, u64 now);
int ps_window_check_detach(const struct ps_window *w, const void *owner);
bool ps_window_release(struct ps_window *w, const void *owner, u64 now);
int ps_window_check_snapshot(const struct ps_window *w);
u64 ps_window_elapsed(const struct ps_window *w, u64 now);

#endif /* PROBESTICK_KC_WINDOW_H */
