/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registered probes: checked once at load, given their ids and mask
 * bits in Kbuild's order, their needs resolved by name, and the slots of
 * their histograms and counters laid out. Pure, so KUnit runs it.
 */
#ifndef PROBESTICK_KC_REGISTRY_H
#define PROBESTICK_KC_REGISTRY_H

#include <linux/types.h>

#include "kc_core.h"

#define PS_MAX_KEY_TABLES	16
#define PS_MAX_SLOTS		16384	/* 32 KiB of u16 per CPU */
#define PS_MAX_EXTRA		4096	/* 32 KiB of u64 per CPU */

struct ps_registry {
	struct ps_probe *const *probes;
	unsigned int nr;
	u32 valid;			/* the bits of every probe */
	unsigned int nr_slots;		/* histogram slots over all metrics */
	unsigned int nr_extra;		/* counters per CPU over all metrics */
	struct ps_keys *keys[PS_MAX_KEY_TABLES];
	unsigned int nr_keys;
};

int ps_registry_init(struct ps_registry *r, struct ps_probe *const *probes, unsigned int nr,
		     char *why, size_t len);
struct ps_probe *ps_registry_find(const struct ps_registry *r, const char *name);
u32 ps_registry_expand(const struct ps_registry *r, u32 mask);

#endif /* PROBESTICK_KC_REGISTRY_H */
