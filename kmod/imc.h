/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory controller's view of its channels (PROBESTICK_IOC_IMC): one
 * reader per CPU family (imc_intel.c, imc_amd_zen.c) behind the dispatch of
 * imc.c, as memtest86+ does it. Readers only read: a BAR the firmware left
 * disabled stays disabled and is reported as the reason.
 */
#ifndef PROBESTICK_IMC_H
#define PROBESTICK_IMC_H

#include "uapi/probestick.h"

struct ps_imc_reader {
	const char *family;	/* the report's name: "intel-skl", "amd-zen" */
	/* Whether it reads this CPU (boot_cpu_data); then read fills out. */
	bool (*match)(void);
	int (*read)(struct probestick_imc *out);
};

extern const struct ps_imc_reader ps_imc_intel;
extern const struct ps_imc_reader ps_imc_amd_zen;

/* Fill out for this machine: status 0 and the channels, or why not. */
void probestick_imc_read(struct probestick_imc *out);

#endif /* PROBESTICK_IMC_H */
