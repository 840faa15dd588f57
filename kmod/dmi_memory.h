/* SPDX-License-Identifier: GPL-2.0 */
/* The SMBIOS type 17 table of PROBESTICK_IOC_DMI_MEMORY (dmi_memory.c). */
#ifndef PROBESTICK_DMI_MEMORY_H
#define PROBESTICK_DMI_MEMORY_H

#include <linux/compiler.h>
#include <linux/types.h>

#include "uapi/probestick.h"

int probestick_dmi_memory_copy(struct probestick_dimm __user *out, u32 room, u32 *present);

#endif /* PROBESTICK_DMI_MEMORY_H */
