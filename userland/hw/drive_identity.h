/*
 * drive_identity.h - the inventory's drives corrected by what smartctl reads
 * of them, before the inventory is frozen (drive_identity.c).
 */
#ifndef PS_HW_DRIVE_IDENTITY_H
#define PS_HW_DRIVE_IDENTITY_H

#include "hw/inventory.h"
#include "hw/smartctl.h"

/*
 * smartctl's identity s over d where they differ (model, firmware, serial;
 * identity_source "smartctl"), what sysfs said kept in d->sysfs_*: 1 when
 * corrected, 0 when they agree. Pure.
 */
int ps_drive_apply_identity(struct ps_drive *d, const struct ps_smart *s);

/*
 * smartctl -i of d (behind a USB bridge each -d type in turn) through run,
 * then ps_drive_apply_identity: 1 corrected, 0 not (agrees, or no answer),
 * -ENOENT when smartctl is not installed. The boot stick is left alone.
 */
int ps_drive_smartctl_identity(struct ps_drive *d, const char *root, ps_smartctl_fn *run,
			       void *arg);

/* Every drive of inv; run NULL: smartctl itself on a live system, nothing on a fixture tree. */
void ps_inventory_smartctl_identity(struct ps_inventory *inv, const char *root, ps_smartctl_fn *run,
				    void *arg);

#endif
