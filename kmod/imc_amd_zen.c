// SPDX-License-Identifier: GPL-2.0
/*
 * AMD Zen memory controllers (families 17h and 19h): each node's UMCs
 * through the System Management Network (amd_smn_read(), read only),
 * decoded by imc_decode.c.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/amd_nb.h>
#include <asm/processor.h>

#include "imc.h"
#include "imc_decode.h"

static bool ps_imc_zen_match(void)
{
	bool v2;

	return boot_cpu_data.x86_vendor == X86_VENDOR_AMD &&
	       ps_imc_zen_umcs(boot_cpu_data.x86, boot_cpu_data.x86_model, &v2);
}

static int ps_imc_zen_read_umc(u16 node, unsigned int ch, bool v2,
			       struct probestick_imc_channel *out)
{
	u32 base = PS_ZEN_UMC_BASE(ch), sdp, cfg, dimm, cs[4], cs_sec[4];
	unsigned int i;
	int err;

	err = amd_smn_read(node, base + PS_ZEN_UMC_SDP_CTRL, &sdp);
	err = err ?: amd_smn_read(node, base + PS_ZEN_UMC_CFG, &cfg);
	err = err ?: amd_smn_read(node, base + (v2 ? PS_ZEN_UMC_DIMM_CFG_V2 :
						     PS_ZEN_UMC_DIMM_CFG), &dimm);
	for (i = 0; i < 4 && !err; i++) {
		err = amd_smn_read(node, base + PS_ZEN_UMC_CS_BASE + 4 * i, &cs[i]);
		err = err ?: amd_smn_read(node, base + PS_ZEN_UMC_CS_BASE_SEC + 4 * i,
					  &cs_sec[i]);
	}
	if (err)
		return err;
	out->controller = node;
	out->channel = ch;
	ps_imc_zen_channel(sdp, cfg, dimm, cs, cs_sec, v2, out);
	return 0;
}

static int ps_imc_zen_read(struct probestick_imc *out)
{
	unsigned int umcs, ch, n = 0;
	u16 node, nodes = amd_nb_num();
	bool v2;
	int err;

	strscpy(out->family, "amd-zen", sizeof(out->family));
	umcs = ps_imc_zen_umcs(boot_cpu_data.x86, boot_cpu_data.x86_model, &v2);
	if (!nodes) {
		snprintf(out->reason, sizeof(out->reason),
			 "no AMD northbridge found (amd_nb): the SMN cannot be read");
		return -ENODEV;
	}
	for (node = 0; node < nodes; node++) {
		for (ch = 0; ch < umcs && n < PROBESTICK_IMC_MAX_CHANNELS; ch++) {
			err = ps_imc_zen_read_umc(node, ch, v2, &out->channels[n]);
			if (err) {
				snprintf(out->reason, sizeof(out->reason),
					 "SMN read of node %u UMC %u failed: error %d", node, ch,
					 err);
				return err < 0 ? err : -EIO;	/* PCIBIOS codes are positive */
			}
			n++;
		}
	}
	out->nr_channels = n;
	return 0;
}

const struct ps_imc_reader ps_imc_amd_zen = {
	.family = "amd-zen",
	.match = ps_imc_zen_match,
	.read = ps_imc_zen_read,
};
