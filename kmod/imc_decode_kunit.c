// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for imc_decode.c: register values as the datasheets define
 * their fields (Intel 6th-13th generation client datasheets vol. 2,
 * MAD_INTER_CHANNEL / MAD_INTRA_CH / MAD_DIMM_CH; AMD family 17h/19h PPRs,
 * UMC::SdpCtrl, UmcCfg, DimmCfg, CsBaseAddr), each spelled out beside it.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "imc_decode.h"

#define PRESENT		PROBESTICK_IMC_CH_PRESENT
#define POPULATED	PROBESTICK_IMC_CH_POPULATED

struct intel_case {
	const char *name;
	enum ps_imc_intel_gen gen;
	u32 inter, intra, dimm;
	u8 flags, ddr;
	u32 size0, size1;	/* MiB of slot 0 and slot 1 */
	u8 width0, width1, ranks0, ranks1;
};

static void intel_case_desc(const struct intel_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

/*
 * SKL MAD_DIMM_CH: DIMM_L_SIZE 5:0 GB, DLW 9:8, DLNOR 10, DIMM_S_SIZE 21:16,
 * DSW 25:24, DSNOR 26. TGL/ADL: DIMM_L_SIZE 6:0 in 512 MiB, DLW 8:7,
 * DIMM_S_SIZE 22:16, DSW 25:24. MAD_INTRA bit 0: DIMM L is in slot 1.
 */
static const struct intel_case intel_cases[] = {
	{ "SKL DDR4, two 8 GB x8 dual-rank DIMMs", PS_IMC_INTEL_SKL,
	  0x00000000, 0x00000000, 0x04080408, PRESENT | POPULATED, PROBESTICK_IMC_DDR4,
	  8192, 8192, 8, 8, 2, 2 },
	{ "SKL DDR4, one 16 GB x8 DIMM in slot 1 (L_MAP 1)", PS_IMC_INTEL_SKL,
	  0x00000000, 0x00000001, 0x00000410, PRESENT | POPULATED, PROBESTICK_IMC_DDR4,
	  0, 16384, 0, 8, 0, 2 },
	{ "SKL channel with no DIMM", PS_IMC_INTEL_SKL,
	  0x00000000, 0x00000000, 0x00000000, PRESENT, PROBESTICK_IMC_DDR4, 0, 0, 0, 0, 0, 0 },
	{ "SKL DDR3L x16 single-rank 4 GB", PS_IMC_INTEL_SKL,
	  0x00000001, 0x00000000, 0x00000104, PRESENT | POPULATED, PROBESTICK_IMC_DDR3,
	  4096, 0, 16, 0, 1, 0 },
	{ "SKL LPDDR3 (soldered): 8 GB, x32", PS_IMC_INTEL_SKL,
	  0x00000002, 0x00000000, 0x00000208, PRESENT | POPULATED, PROBESTICK_IMC_LPDDR3,
	  8192, 0, 32, 0, 1, 0 },
	{ "TGL DDR4 16 GiB L + 8 GiB S, x8", PS_IMC_INTEL_TGL,
	  0x00000000, 0x00000000, 0x00100020, PRESENT | POPULATED, PROBESTICK_IMC_DDR4,
	  16384, 8192, 8, 8, 0, 0 },
	{ "ADL DDR5 32 GiB x8 in slot 1", PS_IMC_INTEL_ADL,
	  0x00000001, 0x00000001, 0x00000040, PRESENT | POPULATED, PROBESTICK_IMC_DDR5,
	  0, 32768, 0, 8, 0, 0 },
	{ "ADL LPDDR5 x16 8 GiB", PS_IMC_INTEL_ADL,
	  0x00000002, 0x00000000, 0x00000090, PRESENT | POPULATED, PROBESTICK_IMC_LPDDR5,
	  8192, 0, 16, 0, 0, 0 },
	{ "ADL empty channel", PS_IMC_INTEL_ADL,
	  0x00000001, 0x00000000, 0x00000000, PRESENT, PROBESTICK_IMC_DDR5, 0, 0, 0, 0, 0, 0 },
};

KUNIT_ARRAY_PARAM(intel, intel_cases, intel_case_desc);

static void imc_intel_channel_mad_registers(struct kunit *test)
{
	const struct intel_case *c = test->param_value;
	struct probestick_imc_channel ch;

	memset(&ch, 0xa5, sizeof(ch));
	ps_imc_intel_channel(c->gen, c->inter, c->intra, c->dimm, &ch);
	KUNIT_EXPECT_EQ(test, ch.flags, c->flags);
	KUNIT_EXPECT_EQ(test, ch.ddr, c->ddr);
	KUNIT_EXPECT_EQ(test, ch.dimms[0].size_mib, c->size0);
	KUNIT_EXPECT_EQ(test, ch.dimms[1].size_mib, c->size1);
	KUNIT_EXPECT_EQ(test, ch.dimms[0].present, (u8)!!c->size0);
	KUNIT_EXPECT_EQ(test, ch.dimms[1].present, (u8)!!c->size1);
	KUNIT_EXPECT_EQ(test, ch.dimms[0].width, c->width0);
	KUNIT_EXPECT_EQ(test, ch.dimms[1].width, c->width1);
	KUNIT_EXPECT_EQ(test, ch.dimms[0].ranks, c->ranks0);
	KUNIT_EXPECT_EQ(test, ch.dimms[1].ranks, c->ranks1);
	KUNIT_EXPECT_EQ(test, ch.regs[2], c->dimm);
}

static void imc_intel_gen_by_model(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, (int)ps_imc_intel_gen(0x5e), (int)PS_IMC_INTEL_SKL);
	KUNIT_EXPECT_EQ(test, (int)ps_imc_intel_gen(0x9e), (int)PS_IMC_INTEL_SKL);
	KUNIT_EXPECT_EQ(test, (int)ps_imc_intel_gen(0xa5), (int)PS_IMC_INTEL_SKL);
	KUNIT_EXPECT_EQ(test, (int)ps_imc_intel_gen(0x8c), (int)PS_IMC_INTEL_TGL);
	KUNIT_EXPECT_EQ(test, (int)ps_imc_intel_gen(0x97), (int)PS_IMC_INTEL_ADL);
	KUNIT_EXPECT_EQ(test, (int)ps_imc_intel_gen(0xb7), (int)PS_IMC_INTEL_ADL);
	/* X58's Bloomfield (seed 000) and Xeon servers have no reader here */
	KUNIT_EXPECT_EQ(test, (int)ps_imc_intel_gen(0x1a), (int)PS_IMC_INTEL_NONE);
	KUNIT_EXPECT_EQ(test, (int)ps_imc_intel_gen(0x55), (int)PS_IMC_INTEL_NONE);
	KUNIT_EXPECT_EQ(test, ps_imc_intel_mad_base(PS_IMC_INTEL_SKL), 0x5000U);
	KUNIT_EXPECT_EQ(test, ps_imc_intel_mad_base(PS_IMC_INTEL_ADL), 0xd800U);
	KUNIT_EXPECT_EQ(test, ps_imc_intel_controllers(PS_IMC_INTEL_SKL), 1U);
	KUNIT_EXPECT_EQ(test, ps_imc_intel_controllers(PS_IMC_INTEL_TGL), 2U);
}

struct zen_case {
	const char *name;
	bool v2;
	u32 sdp, cfg, dimm_cfg;
	u32 cs[4], cs_sec[4];
	u8 flags, ddr;
	u8 present0, present1, ranks0, ranks1;
};

static void zen_case_desc(const struct zen_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

#define ECC	(PROBESTICK_IMC_CH_ECC_KNOWN | PROBESTICK_IMC_CH_ECC)
#define ECC_KNOWN PROBESTICK_IMC_CH_ECC_KNOWN
/*
 * SdpCtrl bit 31 SdpInit; UmcCfg 2:0 DDR type (v2: 1 = DDR5), bit 12
 * DimmEccEn; CsBaseAddr bit 0 CSEnable, address in 31:1 (here 0x0 and
 * 0x400000 << 1 as firmwares lay ranks out).
 */
static const struct zen_case zen_cases[] = {
	{ "Matisse: one dual-rank UDIMM per channel", false,
	  0x80000000, 0x00000000, 0x00000000,
	  { 0x00000001, 0x00800001, 0, 0 }, { 0, 0, 0, 0 },
	  PRESENT | POPULATED | ECC_KNOWN, PROBESTICK_IMC_DDR4, 1, 0, 2, 0 },
	{ "Rome: two single-rank ECC RDIMMs", false,
	  0x80000000, 0x00001000, 0x00000010,
	  { 0x00000001, 0, 0x01000001, 0 }, { 0, 0, 0, 0 },
	  PRESENT | POPULATED | ECC, PROBESTICK_IMC_DDR4, 1, 1, 1, 1 },
	{ "empty UMC: SdpInit clear", false,
	  0x00000000, 0x00000000, 0x00000000,
	  { 0, 0, 0, 0 }, { 0, 0, 0, 0 },
	  PRESENT, PROBESTICK_IMC_DDR_UNKNOWN, 0, 0, 0, 0 },
	{ "Genoa DDR5 RDIMM, ECC, ranks on secondary CS", true,
	  0x80000000, 0x00001001, 0x00000010,
	  { 0x00000001, 0, 0, 0 }, { 0x00000001, 0, 0, 0 },
	  PRESENT | POPULATED | ECC, PROBESTICK_IMC_DDR5, 1, 0, 2, 0 },
	{ "v2 UMC with DDR4 type bits", true,
	  0x80000000, 0x00000000, 0x00000000,
	  { 0, 0, 0x00000001, 0x00000001 }, { 0, 0, 0, 0 },
	  PRESENT | POPULATED | ECC_KNOWN, PROBESTICK_IMC_DDR4, 0, 1, 0, 2 },
};

KUNIT_ARRAY_PARAM(zen, zen_cases, zen_case_desc);

static void imc_zen_channel_umc_registers(struct kunit *test)
{
	const struct zen_case *c = test->param_value;
	struct probestick_imc_channel ch;

	memset(&ch, 0x5a, sizeof(ch));
	ps_imc_zen_channel(c->sdp, c->cfg, c->dimm_cfg, c->cs, c->cs_sec, c->v2, &ch);
	KUNIT_EXPECT_EQ(test, ch.flags, c->flags);
	KUNIT_EXPECT_EQ(test, ch.ddr, c->ddr);
	KUNIT_EXPECT_EQ(test, ch.dimms[0].present, c->present0);
	KUNIT_EXPECT_EQ(test, ch.dimms[1].present, c->present1);
	KUNIT_EXPECT_EQ(test, ch.dimms[0].ranks, c->ranks0);
	KUNIT_EXPECT_EQ(test, ch.dimms[1].ranks, c->ranks1);
	KUNIT_EXPECT_EQ(test, ch.dimms[0].size_mib, 0U);	/* the masks are not decoded */
	KUNIT_EXPECT_EQ(test, ch.regs[0], c->sdp);
}

static void imc_zen_umcs_by_model(struct kunit *test)
{
	bool v2;

	KUNIT_EXPECT_EQ(test, ps_imc_zen_umcs(0x17, 0x01, &v2), 2U);	/* Zen (Naples die) */
	KUNIT_EXPECT_EQ(test, ps_imc_zen_umcs(0x17, 0x31, &v2), 8U);	/* Rome */
	KUNIT_EXPECT_FALSE(test, v2);
	KUNIT_EXPECT_EQ(test, ps_imc_zen_umcs(0x17, 0x71, &v2), 2U);	/* Matisse */
	KUNIT_EXPECT_EQ(test, ps_imc_zen_umcs(0x19, 0x01, &v2), 8U);	/* Milan */
	KUNIT_EXPECT_EQ(test, ps_imc_zen_umcs(0x19, 0x11, &v2), 12U);	/* Genoa */
	KUNIT_EXPECT_TRUE(test, v2);
	KUNIT_EXPECT_EQ(test, ps_imc_zen_umcs(0x19, 0x21, &v2), 2U);	/* Vermeer */
	/* QEMU's TCG CPU (family 0fh) and models without a known layout: no guess */
	KUNIT_EXPECT_EQ(test, ps_imc_zen_umcs(0x0f, 0x6b, &v2), 0U);
	KUNIT_EXPECT_EQ(test, ps_imc_zen_umcs(0x19, 0x61, &v2), 0U);
	KUNIT_EXPECT_EQ(test, ps_imc_zen_umcs(0x1a, 0x01, &v2), 0U);
}

static struct kunit_case probestick_imc_cases[] = {
	KUNIT_CASE_PARAM(imc_intel_channel_mad_registers, intel_gen_params),
	KUNIT_CASE(imc_intel_gen_by_model),
	KUNIT_CASE_PARAM(imc_zen_channel_umc_registers, zen_gen_params),
	KUNIT_CASE(imc_zen_umcs_by_model),
	{}
};

static struct kunit_suite probestick_imc_suite = {
	.name = "probestick_imc_decode",
	.test_cases = probestick_imc_cases,
};

kunit_test_suites(&probestick_imc_suite);

MODULE_LICENSE("GPL");
