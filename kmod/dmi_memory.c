// SPDX-License-Identifier: GPL-2.0
/*
 * The SMBIOS memory devices: every type 17 structure of the firmware's
 * table, found with dmi_walk() and decoded by smbios17.h, the decoder the
 * userland applies to sysfs when the module is not there.
 */
#include <linux/dmi.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "dmi_memory.h"
#include "smbios17.h"

/* A structure with its strings is far below this; the table ends earlier anyway. */
#define PS_DMI_STRUCT_MAX 4096

struct ps_dmi_copy {
	struct probestick_dimm __user *out;
	u32 room;
	u32 present;
	int err;
};

static void ps_dmi_memory_one(const struct dmi_header *dm, void *arg)
{
	struct ps_dmi_copy *c = arg;
	struct probestick_dimm d;
	size_t len;

	if (dm->type != 17 || c->err)
		return;
	/*
	 * dmi_walk() maps the whole table, and every structure in it ends with
	 * a double NUL (the walker itself steps over the strings that way).
	 */
	len = ps_smbios_struct_len((const u8 *)dm, PS_DMI_STRUCT_MAX);
	if (!len || ps_smbios17_parse((const u8 *)dm, len, &d))
		return;
	if (c->present < c->room && copy_to_user(&c->out[c->present], &d, sizeof(d)))
		c->err = -EFAULT;
	c->present++;
}

int probestick_dmi_memory_copy(struct probestick_dimm __user *out, u32 room, u32 *present)
{
	struct ps_dmi_copy c = { .out = out, .room = room };
	int ret = dmi_walk(ps_dmi_memory_one, &c);

	if (ret)
		return -ENODATA;	/* no SMBIOS table on this machine */
	*present = c.present;
	return c.err;
}
