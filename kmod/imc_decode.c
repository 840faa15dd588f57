// SPDX-License-Identifier: GPL-2.0
/*
 * Memory-controller register decoders (imc_decode.h). Pure: built into the
 * module and, unchanged, into the KUnit kernel.
 */
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/string.h>

#include "imc_decode.h"

enum ps_imc_intel_gen ps_imc_intel_gen(u8 model)
{
	switch (model) {
	case 0x4e: /* Skylake mobile */
	case 0x5e: /* Skylake desktop */
	case 0x8e: /* Kaby Lake, Amber/Whiskey Lake, Comet Lake U */
	case 0x9e: /* Kaby Lake, Coffee Lake desktop */
	case 0xa5: /* Comet Lake */
	case 0xa6: /* Comet Lake U */
		return PS_IMC_INTEL_SKL;
	case 0x8c: /* Tiger Lake U */
	case 0x8d: /* Tiger Lake H */
		return PS_IMC_INTEL_TGL;
	case 0x97: /* Alder Lake S */
	case 0x9a: /* Alder Lake P */
	case 0xb7: /* Raptor Lake S */
	case 0xba: /* Raptor Lake P */
	case 0xbf: /* Raptor Lake S refresh */
		return PS_IMC_INTEL_ADL;
	default:
		return PS_IMC_INTEL_NONE;
	}
}

u32 ps_imc_intel_mad_base(enum ps_imc_intel_gen gen)
{
	return gen == PS_IMC_INTEL_ADL ? 0xd800 : 0x5000;
}

unsigned int ps_imc_intel_controllers(enum ps_imc_intel_gen gen)
{
	switch (gen) {
	case PS_IMC_INTEL_SKL:
		return 1;
	case PS_IMC_INTEL_TGL:
	case PS_IMC_INTEL_ADL:
		return 2;
	default:
		return 0;
	}
}

/* MAD_INTER_CHANNEL DDR_TYPE (bits 2:0), the same codes on every generation here. */
static u8 ps_imc_intel_ddr(enum ps_imc_intel_gen gen, u32 mad_inter)
{
	switch (mad_inter & 0x7) {
	case 0:
		return PROBESTICK_IMC_DDR4;
	case 1:
		return gen == PS_IMC_INTEL_SKL ? PROBESTICK_IMC_DDR3 : PROBESTICK_IMC_DDR5;
	case 2:
		return gen == PS_IMC_INTEL_SKL ? PROBESTICK_IMC_LPDDR3 : PROBESTICK_IMC_LPDDR5;
	case 3:
		return PROBESTICK_IMC_LPDDR4;
	default:
		return PROBESTICK_IMC_DDR_UNKNOWN;
	}
}

/* Device width code (0 x8, 1 x16, 2 x32) to lanes, 0 for reserved. */
static u8 ps_imc_width(u32 code)
{
	static const u8 widths[4] = { 8, 16, 32, 0 };

	return widths[code & 3];
}

void ps_imc_intel_channel(enum ps_imc_intel_gen gen, u32 mad_inter, u32 mad_intra,
			  u32 mad_dimm, struct probestick_imc_channel *ch)
{
	struct probestick_imc_dimm l = {}, s = {};
	u32 l_slot = mad_intra & 1;	/* MAD_INTRA DIMM_L_MAP: the slot of DIMM L */

	memset(ch->dimms, 0, sizeof(ch->dimms));
	ch->flags = PROBESTICK_IMC_CH_PRESENT;
	ch->ddr = ps_imc_intel_ddr(gen, mad_inter);
	ch->regs[0] = mad_inter;
	ch->regs[1] = mad_intra;
	ch->regs[2] = mad_dimm;
	ch->regs[3] = 0;
	if (gen == PS_IMC_INTEL_SKL) {
		/* DIMM_L_SIZE 5:0 and DIMM_S_SIZE 21:16 in GB; DLW 9:8, DSW 25:24; DLNOR 10, DSNOR 26 */
		l.size_mib = (mad_dimm & 0x3f) * 1024;
		l.width = ps_imc_width(mad_dimm >> 8);
		l.ranks = (mad_dimm & BIT(10)) ? 2 : 1;
		s.size_mib = ((mad_dimm >> 16) & 0x3f) * 1024;
		s.width = ps_imc_width(mad_dimm >> 24);
		s.ranks = (mad_dimm & BIT(26)) ? 2 : 1;
	} else {
		/* DIMM_L_SIZE 6:0 and DIMM_S_SIZE 22:16 in 512 MiB; DLW 8:7, DSW 25:24 */
		l.size_mib = (mad_dimm & 0x7f) * 512;
		l.width = ps_imc_width(mad_dimm >> 7);
		s.size_mib = ((mad_dimm >> 16) & 0x7f) * 512;
		s.width = ps_imc_width(mad_dimm >> 24);
	}
	l.present = l.size_mib != 0;
	s.present = s.size_mib != 0;
	if (!l.present)
		l.width = l.ranks = 0;
	if (!s.present)
		s.width = s.ranks = 0;
	ch->dimms[l_slot] = l;
	ch->dimms[!l_slot] = s;
	if (l.present || s.present)
		ch->flags |= PROBESTICK_IMC_CH_POPULATED;
}

unsigned int ps_imc_zen_umcs(u8 family, u8 model, bool *v2)
{
	*v2 = false;
	if (family == 0x17) {
		if (model <= 0x2f)
			return 2;	/* Zen, Zen+ (a Naples die has two) */
		if (model >= 0x30 && model <= 0x3f)
			return 8;	/* Rome */
		if (model >= 0x60 && model <= 0x7f)
			return 2;	/* Renoir, Matisse */
		return 0;
	}
	if (family == 0x19) {
		if (model <= 0x0f)
			return 8;	/* Milan */
		if ((model >= 0x10 && model <= 0x1f) || (model >= 0xa0 && model <= 0xaf)) {
			*v2 = true;
			return 12;	/* Genoa, Bergamo */
		}
		if ((model >= 0x20 && model <= 0x2f) || (model >= 0x50 && model <= 0x5f))
			return 2;	/* Vermeer, Cezanne */
		return 0;
	}
	return 0;
}

void ps_imc_zen_channel(u32 sdp_ctrl, u32 umc_cfg, u32 dimm_cfg, const u32 cs[4],
			const u32 cs_sec[4], bool v2, struct probestick_imc_channel *ch)
{
	unsigned int d, i, ranks;

	memset(ch->dimms, 0, sizeof(ch->dimms));
	ch->flags = PROBESTICK_IMC_CH_PRESENT;
	ch->regs[0] = sdp_ctrl;
	ch->regs[1] = umc_cfg;
	ch->regs[2] = dimm_cfg;
	ch->regs[3] = (cs[0] & 1) | (cs[1] & 1) << 1 | (cs[2] & 1) << 2 | (cs[3] & 1) << 3 |
		      (cs_sec[0] & 1) << 4 | (cs_sec[1] & 1) << 5 | (cs_sec[2] & 1) << 6 |
		      (cs_sec[3] & 1) << 7;
	ch->ddr = PROBESTICK_IMC_DDR_UNKNOWN;
	if (!(sdp_ctrl & BIT(31)))	/* SdpInit clear: the channel has no memory */
		return;
	ch->ddr = (v2 && (umc_cfg & 0x7) == 1) ? PROBESTICK_IMC_DDR5 : PROBESTICK_IMC_DDR4;
	ch->flags |= PROBESTICK_IMC_CH_POPULATED | PROBESTICK_IMC_CH_ECC_KNOWN;
	if (umc_cfg & BIT(12))		/* DimmEccEn */
		ch->flags |= PROBESTICK_IMC_CH_ECC;
	for (d = 0; d < PROBESTICK_IMC_MAX_DIMMS; d++) {
		ranks = 0;
		for (i = 2 * d; i < 2 * d + 2; i++)
			ranks += (cs[i] & 1) + (cs_sec[i] & 1);
		ch->dimms[d].present = ranks != 0;
		ch->dimms[d].ranks = ranks;
	}
}
