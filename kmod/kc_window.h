/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bookkeeping of a capture window: which state it is in, which probes it
 * asked for and got, and how long it ran. Pure, so KUnit runs it.
 */
#ifndef PROBESTICK_KC_WINDOW_H
#define PROBESTICK_KC_WINDOW_H

#include <linux/types.h>

struct ps_window {
	u32 state;		/* PROBESTICK_KC_IDLE/RUNNING/STOPPED */
	u32 mask;		/* asked for */
	u32 attached;		/* got */
	u32 generation;		/* windows started since load */
	u64 start_ns;
	u64 stop_ns;
};

int ps_window_check_start(const struct ps_window *w, u32 mask, u32 flags, u32 reserved);
void ps_window_started(struct ps_window *w, u32 mask, u32 attached, u64 now);
int ps_window_stop(struct ps_window *w, u64 now);
int ps_window_check_snapshot(const struct ps_window *w);
u64 ps_window_elapsed(const struct ps_window *w, u64 now);

#endif /* PROBESTICK_KC_WINDOW_H */
