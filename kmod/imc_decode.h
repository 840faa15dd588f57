/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure decoders of memory-controller registers, one per family (the
 * readers in imc_*.c fetch the values): what each channel has, from the
 * register layouts of the vendors' public datasheets and PPRs. KUnit feeds
 * them tables (imc_decode_kunit.c).
 */
#ifndef PROBESTICK_IMC_DECODE_H
#define PROBESTICK_IMC_DECODE_H

#include <linux/types.h>

#include "uapi/probestick.h"

/* Which Intel client MCHBAR layout a family 6 model has. */
enum ps_imc_intel_gen {
	PS_IMC_INTEL_NONE = 0,
	PS_IMC_INTEL_SKL,	/* Skylake to Comet Lake: MAD_* at MCHBAR 0x5000, GB units */
	PS_IMC_INTEL_TGL,	/* Tiger Lake: two controllers, MAD_* at 0x5000, 512 MiB units */
	PS_IMC_INTEL_ADL,	/* Alder/Raptor Lake: as Tiger Lake, MAD_* at 0xd800 */
};

enum ps_imc_intel_gen ps_imc_intel_gen(u8 model);
/* Offset of MAD_INTER_CHANNEL in MCHBAR, and the controllers of a generation. */
u32 ps_imc_intel_mad_base(enum ps_imc_intel_gen gen);
unsigned int ps_imc_intel_controllers(enum ps_imc_intel_gen gen);

/*
 * One channel of an Intel client controller from MAD_INTER_CHANNEL,
 * MAD_INTRA_CHx and MAD_DIMM_CHx (DIMM L and S sizes, widths and ranks;
 * MAD_INTRA says which slot holds DIMM L).
 */
void ps_imc_intel_channel(enum ps_imc_intel_gen gen, u32 mad_inter, u32 mad_intra,
			  u32 mad_dimm, struct probestick_imc_channel *ch);

/* UMCs per node of an AMD family 17h/19h model, 0 when unknown; v2: DDR5-era layout. */
unsigned int ps_imc_zen_umcs(u8 family, u8 model, bool *v2);

/* SMN offsets of a UMC's registers (UMC base 0x50000 + channel << 20). */
#define PS_ZEN_UMC_BASE(ch)		(0x50000U + ((u32)(ch) << 20))
#define PS_ZEN_UMC_CS_BASE		0x00	/* 4 chip selects, primary */
#define PS_ZEN_UMC_CS_BASE_SEC		0x10	/* and secondary */
#define PS_ZEN_UMC_DIMM_CFG		0x80
#define PS_ZEN_UMC_DIMM_CFG_V2		0x90
#define PS_ZEN_UMC_CFG			0x100
#define PS_ZEN_UMC_SDP_CTRL		0x104

/*
 * One UMC from SdpCtrl (bit 31 SdpInit: the channel is initialised, DIMMs
 * present), UmcCfg (DDR type, bit 12 DimmEccEn), DimmCfg (registered,
 * load-reduced) and its chip-select base registers (bit 0 CSEnable; chip
 * selects 0-1 are DIMM 0, 2-3 DIMM 1).
 */
void ps_imc_zen_channel(u32 sdp_ctrl, u32 umc_cfg, u32 dimm_cfg, const u32 cs[4],
			const u32 cs_sec[4], bool v2, struct probestick_imc_channel *ch);

#endif /* PROBESTICK_IMC_DECODE_H */
