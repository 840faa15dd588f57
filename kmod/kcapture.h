/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture windows inside probestick.ko: what the entry (probestick_main.c)
 * calls, and what the ioctl layer (kc_ioctl.c) asks of the core
 * (kc_core.c). Probes include kc_core.h instead.
 */
#ifndef PROBESTICK_KCAPTURE_H
#define PROBESTICK_KCAPTURE_H

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/kconfig.h>
#include <linux/types.h>

#include "kc_registry.h"
#include "uapi/probestick.h"

#if IS_ENABLED(CONFIG_TRACEPOINTS)

int ps_kc_init(void);
void ps_kc_exit(void);
bool ps_kc_is_ioctl(unsigned int cmd);
long ps_kc_ioctl(struct file *file, unsigned int cmd, void __user *argp);
void ps_kc_release(struct file *file);

/* The core, for kc_ioctl.c; called with its lock held. */
extern struct ps_registry ps_reg;
int ps_core_init(void);
void ps_core_exit(void);
u32 ps_core_attach(u32 mask);
void ps_core_detach(void);
void ps_core_begin(u32 record);
void ps_core_end(void);
u32 ps_core_patched(void);
int ps_core_snapshot(struct probestick_kc_record __user *urecs, u32 room, u32 mask,
		     u32 *present);
void ps_core_drops(struct probestick_kc_drops *d);
int ps_core_probes(struct probestick_kc_probe __user *uprobes, u32 room, u32 *count);

#else /* No tracepoints in this kernel: no capture windows, the rest works. */

static inline int ps_kc_init(void) { return 0; }
static inline void ps_kc_exit(void) { }
static inline bool ps_kc_is_ioctl(unsigned int cmd) { return false; }
static inline long ps_kc_ioctl(struct file *file, unsigned int cmd, void __user *argp)
{
	return -ENOTTY;
}
static inline void ps_kc_release(struct file *file) { }

#endif

#endif /* PROBESTICK_KCAPTURE_H */
