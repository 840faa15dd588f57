// SPDX-License-Identifier: GPL-2.0
/*
 * Dispatch of the memory-controller readers: the first whose family
 * matches this CPU reads it; without one, the reason names the CPU.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <asm/processor.h>

#include "imc.h"

static const struct ps_imc_reader *const ps_imc_readers[] = {
	&ps_imc_intel,
#if IS_ENABLED(CONFIG_AMD_NB)	/* the SMN accessors live in amd_nb */
	&ps_imc_amd_zen,
#endif
};

static u32 ps_imc_vendor(void)
{
	switch (boot_cpu_data.x86_vendor) {
	case X86_VENDOR_INTEL:
		return 1;
	case X86_VENDOR_AMD:
		return 2;
	default:
		return 0;
	}
}

void probestick_imc_read(struct probestick_imc *out)
{
	unsigned int i;

	memset(out, 0, sizeof(*out));
	out->cpu_vendor = ps_imc_vendor();
	out->cpu_family = boot_cpu_data.x86;
	out->cpu_model = boot_cpu_data.x86_model;
	for (i = 0; i < ARRAY_SIZE(ps_imc_readers); i++) {
		const struct ps_imc_reader *r = ps_imc_readers[i];

		if (!r->match())
			continue;
		strscpy(out->family, r->family, sizeof(out->family));
		out->status = r->read(out);
		if (out->status)
			out->nr_channels = 0;
		return;
	}
	out->status = -ENODEV;
	snprintf(out->reason, sizeof(out->reason),
		 "no memory-controller reader for %s family 0x%02x model 0x%02x",
		 out->cpu_vendor == 1 ? "Intel" : out->cpu_vendor == 2 ? "AMD" : "this CPU's",
		 out->cpu_family, out->cpu_model);
}
