// SPDX-License-Identifier: GPL-2.0
/*
 * Intel client memory controllers (Skylake to Raptor Lake): the MAD_*
 * registers in the host bridge's MCHBAR window, decoded by imc_decode.c.
 * Read only; an MCHBAR the firmware did not enable is not enabled here.
 */
#include <linux/bits.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <asm/processor.h>

#include "imc.h"
#include "imc_decode.h"

#define PS_MCHBAR_LO		0x48	/* host bridge config space */
#define PS_MCHBAR_HI		0x4c
#define PS_MCHBAR_EN		BIT_ULL(0)
#define PS_MCHBAR_MASK		GENMASK_ULL(38, 16)	/* 64 KiB aligned on every generation here */
#define PS_MCHBAR_MC_STRIDE	0x10000	/* the second controller's window */
#define PS_MAD_WINDOW		0x14	/* MAD_INTER, MAD_INTRA x2, MAD_DIMM x2 */

static bool ps_imc_intel_match(void)
{
	return boot_cpu_data.x86_vendor == X86_VENDOR_INTEL && boot_cpu_data.x86 == 6 &&
	       ps_imc_intel_gen(boot_cpu_data.x86_model) != PS_IMC_INTEL_NONE;
}

static int ps_imc_intel_read(struct probestick_imc *out)
{
	enum ps_imc_intel_gen gen = ps_imc_intel_gen(boot_cpu_data.x86_model);
	unsigned int mc, ch, n = 0;
	struct pci_dev *host;
	void __iomem *win;
	u32 lo = 0, hi = 0, inter, intra, dimm;
	u64 mchbar;

	if (gen == PS_IMC_INTEL_TGL)
		strscpy(out->family, "intel-tgl", sizeof(out->family));
	else if (gen == PS_IMC_INTEL_ADL)
		strscpy(out->family, "intel-adl", sizeof(out->family));
	else
		strscpy(out->family, "intel-skl", sizeof(out->family));
	host = pci_get_domain_bus_and_slot(0, 0, PCI_DEVFN(0, 0));
	if (!host || host->vendor != PCI_VENDOR_ID_INTEL) {
		pci_dev_put(host);
		snprintf(out->reason, sizeof(out->reason), "no Intel host bridge at 0000:00:00.0");
		return -ENODEV;
	}
	pci_read_config_dword(host, PS_MCHBAR_LO, &lo);
	pci_read_config_dword(host, PS_MCHBAR_HI, &hi);
	pci_dev_put(host);
	mchbar = (u64)hi << 32 | lo;
	if (!(mchbar & PS_MCHBAR_EN)) {
		snprintf(out->reason, sizeof(out->reason),
			 "MCHBAR is disabled by the firmware (MCHBAREN 0): left as it is, not read");
		return -ENODEV;
	}
	mchbar &= PS_MCHBAR_MASK;
	for (mc = 0; mc < ps_imc_intel_controllers(gen); mc++) {
		win = ioremap(mchbar + mc * PS_MCHBAR_MC_STRIDE + ps_imc_intel_mad_base(gen),
			      PS_MAD_WINDOW);
		if (!win) {
			snprintf(out->reason, sizeof(out->reason),
				 "cannot map MCHBAR at 0x%llx", (unsigned long long)mchbar);
			return -ENOMEM;
		}
		inter = readl(win);
		for (ch = 0; ch < 2 && n < PROBESTICK_IMC_MAX_CHANNELS; ch++, n++) {
			intra = readl(win + 4 + 4 * ch);
			dimm = readl(win + 0xc + 4 * ch);
			out->channels[n].controller = mc;
			out->channels[n].channel = ch;
			ps_imc_intel_channel(gen, inter, intra, dimm, &out->channels[n]);
		}
		iounmap(win);
	}
	out->nr_channels = n;
	return 0;
}

const struct ps_imc_reader ps_imc_intel = {
	.family = "intel",
	.match = ps_imc_intel_match,
	.read = ps_imc_intel_read,
};
