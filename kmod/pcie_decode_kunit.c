// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for pcie_decode.c, fed with register values as real hardware
 * (and QEMU) report them; each value's fields are spelled out beside it.
 */
#include <kunit/test.h>
#include <linux/pci_regs.h>
#include <linux/string.h>

#include "pcie_decode.h"
#include "pcie_fields.h"

/*
 * Real LnkCap values, decomposed per PCIe r6.0 7.5.3.6: Port Number 31:24,
 * ASPM Optionality 22, BW Notification 21, DLL Active Reporting 20,
 * Surprise Down 19, Clock PM 18, L1 exit 17:15, L0s exit 14:12, ASPM 11:10,
 * Max Link Width 9:4, Max Link Speed 3:0.
 */
/* Port 1, 8 GT/s x16, L0s+L1, L0s 256ns (3), L1 8us (4), DLL+ BW+ Opt+. */
#define LNKCAP_GEN3_X16_ROOT_PORT	0x01723d03
/*
 * Read from QEMU 7.2 (q35) guests running the Debian kernel and this module:
 * pcie-root-port defaults: port 0, 16 GT/s x32, L0s, DLL+ BW+;
 * pcie-root-port x-speed=8,x-width=4: 8 GT/s x4;
 * xio3130-downstream: L0s only, no speed and no width at all (sysfs says
 * "Unknown x0"), an odd port the decoder must survive.
 */
#define LNKCAP_QEMU_ROOT_PORT		0x00300604
#define LNKCAP_QEMU_ROOT_PORT_GEN3_X4	0x00300443
#define LNKCAP_QEMU_XIO3130_DOWNSTREAM	0x00000400
/* QEMU e1000e/virtio endpoint (pcie_cap_v1_fill): port 0, 2.5 GT/s x1, L0s. */
#define LNKCAP_QEMU_GEN1_X1		0x00000411
/* Gen4 NVMe SSD: port 0, 16 GT/s x4, L1, L1 <64us (6), ClockPM+ Opt+. */
#define LNKCAP_NVME_GEN4_X4		0x00470844
/* AMD CPU root port for M.2: port 0, 16 GT/s x4, L1 <64us, DLL+ BW+ Opt+. */
#define LNKCAP_GEN4_X4_ROOT_PORT	0x00730844
/* Intel PCH root port: port 9, 8 GT/s x4, L0s <1us (5), L1 <16us (5), DLL+ BW+ Opt+. */
#define LNKCAP_GEN3_X4_ROOT_PORT	0x0972dc43
/* Gen3 x16 graphics card: port 0, L0s <1us, L1 <4us (3), ClockPM+ Opt+. */
#define LNKCAP_GPU_GEN3_X16		0x0045dd03
/* Gen5 x16 switch downstream port: port 2, 32 GT/s x16, L1, DLL+ BW+. */
#define LNKCAP_GEN5_X16_PORT		0x02300905
/* A function gone from the bus: config reads return all ones. */
#define LNKCAP_ALL_ONES			0xffffffff

/* LnkSta: Link Training 11, Slot Clock 12, DLL Active 13, width 9:4, speed 3:0. */
#define LNKSTA_GEN1_X1			0x0011	/* QEMU endpoint */
#define LNKSTA_GEN3_X4_SLOTCLK		0x1043	/* Gen4 NVMe trained at Gen3 */
#define LNKSTA_GEN4_X4_SLOTCLK		0x1044
#define LNKSTA_GEN3_X1_SLOTCLK		0x1013	/* x16 card trained at x1 */
#define LNKSTA_GEN1_X16_SLOTCLK		0x1101	/* seed 000's taped GPU */
#define LNKSTA_GEN3_X16_SLOTCLK		0x1103
#define LNKSTA_GEN3_X4_TRAINING		0x0843	/* Link Training still set */
#define LNKSTA_GEN5_X16_DLLLA		0x2105	/* port side: DLL Link Active */
#define LNKSTA_LINK_DOWN		0x0000

/* LnkCap2 Supported Link Speeds Vector 7:1, Crosslink 8, DRS 31. */
#define LNKCAP2_UP_TO_2_5GT		0x00000002
#define LNKCAP2_UP_TO_8GT		0x0000000e
#define LNKCAP2_UP_TO_16GT		0x0000001e
#define LNKCAP2_UP_TO_32GT_XLINK	0x0000013e
#define LNKCAP2_UP_TO_64GT_DRS		0x8000007e

/* PCIe Capabilities register: version 2, type 7:4, IRQ message number 13:9. */
#define EXP_FLAGS(type)			(0x0002 | ((type) << 4))
#define EXP_FLAGS_SLOT			0x0100
#define EXP_FLAGS_IRQ3			(3 << 9)

/* ---------------------------------------------------- speed and width -- */

struct code_case {
	const char *name;
	u32 code;
	u32 want;
};

static void code_case_desc(const struct code_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct code_case speed_cases[] = {
	{ "0 reserved", 0, PROBESTICK_SPEED_UNKNOWN },
	{ "1 2.5GT", 1, PROBESTICK_SPEED_2_5GT },
	{ "2 5GT", 2, PROBESTICK_SPEED_5GT },
	{ "3 8GT", 3, PROBESTICK_SPEED_8GT },
	{ "4 16GT", 4, PROBESTICK_SPEED_16GT },
	{ "5 32GT", 5, PROBESTICK_SPEED_32GT },
	{ "6 64GT", 6, PROBESTICK_SPEED_64GT },
	{ "7 reserved", 7, PROBESTICK_SPEED_UNKNOWN },
	{ "15 reserved", 15, PROBESTICK_SPEED_UNKNOWN },
	{ "beyond the field", 0x13, PROBESTICK_SPEED_UNKNOWN },
};

KUNIT_ARRAY_PARAM(speed, speed_cases, code_case_desc);

static void speed_decode_spec_codes(struct kunit *test)
{
	const struct code_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, (u32)probestick_pcie_speed_decode(c->code), c->want);
}

static const struct code_case width_cases[] = {
	{ "x0 link down", 0, 0 },
	{ "x1", 1, 1 },
	{ "x2", 2, 2 },
	{ "x3 reserved", 3, 0 },
	{ "x4", 4, 4 },
	{ "x8", 8, 8 },
	{ "x12", 12, 12 },
	{ "x16", 16, 16 },
	{ "x24 reserved", 24, 0 },
	{ "x32", 32, 32 },
	{ "63 all ones", 63, 0 },
};

KUNIT_ARRAY_PARAM(width, width_cases, code_case_desc);

static void width_decode_spec_widths(struct kunit *test)
{
	const struct code_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, (u32)probestick_pcie_width_decode(c->code), c->want);
}

/* ------------------------------------------------ register field decode -- */

struct reg_case {
	const char *name;
	u32 reg;
	u8 speed;
	u8 width;
};

static void reg_case_desc(const struct reg_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct reg_case lnkcap_cases[] = {
	{ "Gen3 x16 root port", LNKCAP_GEN3_X16_ROOT_PORT, PROBESTICK_SPEED_8GT, 16 },
	{ "QEMU root port Gen4 x32", LNKCAP_QEMU_ROOT_PORT, PROBESTICK_SPEED_16GT, 32 },
	{ "QEMU root port Gen3 x4", LNKCAP_QEMU_ROOT_PORT_GEN3_X4, PROBESTICK_SPEED_8GT, 4 },
	{ "QEMU endpoint Gen1 x1", LNKCAP_QEMU_GEN1_X1, PROBESTICK_SPEED_2_5GT, 1 },
	{ "QEMU xio3130 downstream port", LNKCAP_QEMU_XIO3130_DOWNSTREAM,
	  PROBESTICK_SPEED_UNKNOWN, 0 },
	{ "NVMe Gen4 x4", LNKCAP_NVME_GEN4_X4, PROBESTICK_SPEED_16GT, 4 },
	{ "PCH root port Gen3 x4", LNKCAP_GEN3_X4_ROOT_PORT, PROBESTICK_SPEED_8GT, 4 },
	{ "GPU Gen3 x16", LNKCAP_GPU_GEN3_X16, PROBESTICK_SPEED_8GT, 16 },
	{ "Gen5 x16 port", LNKCAP_GEN5_X16_PORT, PROBESTICK_SPEED_32GT, 16 },
	{ "reserved speed 7, x4", 0x00000047, PROBESTICK_SPEED_UNKNOWN, 4 },
	{ "reserved width x5", 0x00000053, PROBESTICK_SPEED_8GT, 0 },
	{ "all ones", LNKCAP_ALL_ONES, PROBESTICK_SPEED_UNKNOWN, 0 },
	{ "zero", 0, PROBESTICK_SPEED_UNKNOWN, 0 },
};

KUNIT_ARRAY_PARAM(lnkcap, lnkcap_cases, reg_case_desc);

static void lnkcap_decode_real_registers(struct kunit *test)
{
	const struct reg_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, probestick_pcie_lnkcap_speed(c->reg), c->speed);
	KUNIT_EXPECT_EQ(test, probestick_pcie_lnkcap_width(c->reg), c->width);
}

static const struct reg_case lnksta_cases[] = {
	{ "QEMU Gen1 x1", LNKSTA_GEN1_X1, PROBESTICK_SPEED_2_5GT, 1 },
	{ "Gen3 x4 slot clock", LNKSTA_GEN3_X4_SLOTCLK, PROBESTICK_SPEED_8GT, 4 },
	{ "Gen3 x1 slot clock", LNKSTA_GEN3_X1_SLOTCLK, PROBESTICK_SPEED_8GT, 1 },
	{ "Gen1 x16 slot clock", LNKSTA_GEN1_X16_SLOTCLK, PROBESTICK_SPEED_2_5GT, 16 },
	{ "Gen3 x4 training", LNKSTA_GEN3_X4_TRAINING, PROBESTICK_SPEED_8GT, 4 },
	{ "Gen5 x16 DLL active", LNKSTA_GEN5_X16_DLLLA, PROBESTICK_SPEED_32GT, 16 },
	{ "BW status bits set", 0xc013, PROBESTICK_SPEED_8GT, 1 },
	{ "link down", LNKSTA_LINK_DOWN, PROBESTICK_SPEED_UNKNOWN, 0 },
	{ "all ones", 0xffff, PROBESTICK_SPEED_UNKNOWN, 0 },
};

KUNIT_ARRAY_PARAM(lnksta, lnksta_cases, reg_case_desc);

static void lnksta_decode_real_registers(struct kunit *test)
{
	const struct reg_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, probestick_pcie_lnksta_speed(c->reg), c->speed);
	KUNIT_EXPECT_EQ(test, probestick_pcie_lnksta_width(c->reg), c->width);
}

static const struct code_case lnkcap2_cases[] = {
	{ "not implemented", 0, 0 },
	{ "QEMU 2.5GT only", LNKCAP2_UP_TO_2_5GT, 0x01 },
	{ "up to 8GT", LNKCAP2_UP_TO_8GT, 0x07 },
	{ "NVMe up to 16GT", LNKCAP2_UP_TO_16GT, 0x0f },
	{ "up to 32GT with crosslink", LNKCAP2_UP_TO_32GT_XLINK, 0x1f },
	{ "up to 64GT with DRS", LNKCAP2_UP_TO_64GT_DRS, 0x3f },
	{ "reserved bit 0 only", 0x00000001, 0 },
	{ "all ones", 0xffffffff, 0x7f },
};

KUNIT_ARRAY_PARAM(lnkcap2, lnkcap2_cases, code_case_desc);

static void lnkcap2_speeds_real_registers(struct kunit *test)
{
	const struct code_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, probestick_pcie_lnkcap2_speeds(c->code), c->want);
}

/* ---------------------------------------------------------- port types -- */

struct type_case {
	const char *name;
	u16 exp_flags;
	u8 type;
	bool has_link;
};

static void type_case_desc(const struct type_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct type_case type_cases[] = {
	{ "endpoint", EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), PCI_EXP_TYPE_ENDPOINT, true },
	{ "endpoint, version 1", 0x0001, PCI_EXP_TYPE_ENDPOINT, true },
	{ "legacy endpoint", EXP_FLAGS(PCI_EXP_TYPE_LEG_END), PCI_EXP_TYPE_LEG_END, true },
	{ "root port with slot, MSI 3",
	  EXP_FLAGS(PCI_EXP_TYPE_ROOT_PORT) | EXP_FLAGS_SLOT | EXP_FLAGS_IRQ3,
	  PCI_EXP_TYPE_ROOT_PORT, true },
	{ "switch upstream port", EXP_FLAGS(PCI_EXP_TYPE_UPSTREAM), PCI_EXP_TYPE_UPSTREAM, true },
	{ "switch downstream port with slot",
	  EXP_FLAGS(PCI_EXP_TYPE_DOWNSTREAM) | EXP_FLAGS_SLOT,
	  PCI_EXP_TYPE_DOWNSTREAM, true },
	{ "PCIe to PCI bridge", EXP_FLAGS(PCI_EXP_TYPE_PCI_BRIDGE), PCI_EXP_TYPE_PCI_BRIDGE, true },
	{ "PCI to PCIe bridge", EXP_FLAGS(PCI_EXP_TYPE_PCIE_BRIDGE), PCI_EXP_TYPE_PCIE_BRIDGE, true },
	{ "RC integrated endpoint", EXP_FLAGS(PCI_EXP_TYPE_RC_END), PCI_EXP_TYPE_RC_END, false },
	{ "RC event collector", EXP_FLAGS(PCI_EXP_TYPE_RC_EC), PCI_EXP_TYPE_RC_EC, false },
	{ "reserved type 2", EXP_FLAGS(2), 2, false },
	{ "reserved type 15", EXP_FLAGS(15), 15, false },
};

KUNIT_ARRAY_PARAM(port_type, type_cases, type_case_desc);

static void port_type_real_flags(struct kunit *test)
{
	const struct type_case *c = test->param_value;
	u8 type = probestick_pcie_port_type(c->exp_flags);

	KUNIT_EXPECT_EQ(test, type, c->type);
	KUNIT_EXPECT_EQ(test, probestick_pcie_type_has_link(type), c->has_link);
}

struct partner_case {
	const char *name;
	u8 type;
	u8 up_type;
	bool partner;
};

static void partner_case_desc(const struct partner_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct partner_case partner_cases[] = {
	{ "endpoint below root port", PCI_EXP_TYPE_ENDPOINT, PCI_EXP_TYPE_ROOT_PORT, true },
	{ "endpoint below switch downstream port",
	  PCI_EXP_TYPE_ENDPOINT, PCI_EXP_TYPE_DOWNSTREAM, true },
	{ "legacy endpoint below root port", PCI_EXP_TYPE_LEG_END, PCI_EXP_TYPE_ROOT_PORT, true },
	{ "switch upstream port below root port",
	  PCI_EXP_TYPE_UPSTREAM, PCI_EXP_TYPE_ROOT_PORT, true },
	{ "PCIe to PCI bridge below root port",
	  PCI_EXP_TYPE_PCI_BRIDGE, PCI_EXP_TYPE_ROOT_PORT, true },
	{ "endpoint below PCI to PCIe bridge",
	  PCI_EXP_TYPE_ENDPOINT, PCI_EXP_TYPE_PCIE_BRIDGE, true },
	{ "downstream port inside its switch",
	  PCI_EXP_TYPE_DOWNSTREAM, PCI_EXP_TYPE_UPSTREAM, false },
	{ "endpoint below switch upstream port",
	  PCI_EXP_TYPE_ENDPOINT, PCI_EXP_TYPE_UPSTREAM, false },
	{ "root port below a bridge", PCI_EXP_TYPE_ROOT_PORT, PCI_EXP_TYPE_ROOT_PORT, false },
	{ "RC integrated endpoint", PCI_EXP_TYPE_RC_END, PCI_EXP_TYPE_ROOT_PORT, false },
	{ "endpoint below endpoint", PCI_EXP_TYPE_ENDPOINT, PCI_EXP_TYPE_ENDPOINT, false },
};

KUNIT_ARRAY_PARAM(partner, partner_cases, partner_case_desc);

static void is_link_partner_port_pairs(struct kunit *test)
{
	const struct partner_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, probestick_pcie_is_link_partner(c->type, c->up_type),
			c->partner);
}

static struct kunit_case probestick_pcie_decode_cases[] = {
	KUNIT_CASE_PARAM(speed_decode_spec_codes, speed_gen_params),
	KUNIT_CASE_PARAM(width_decode_spec_widths, width_gen_params),
	KUNIT_CASE_PARAM(lnkcap_decode_real_registers, lnkcap_gen_params),
	KUNIT_CASE_PARAM(lnksta_decode_real_registers, lnksta_gen_params),
	KUNIT_CASE_PARAM(lnkcap2_speeds_real_registers, lnkcap2_gen_params),
	KUNIT_CASE_PARAM(port_type_real_flags, port_type_gen_params),
	KUNIT_CASE_PARAM(is_link_partner_port_pairs, partner_gen_params),
	{}
};

static struct kunit_suite probestick_pcie_decode_suite = {
	.name = "probestick_pcie_decode",
	.test_cases = probestick_pcie_decode_cases,
};

/* ------------------------------------------------------- whole links -- */

#define F_PCIE		PROBESTICK_LINK_IS_PCIE
#define F_LINK		PROBESTICK_LINK_HAS_LINK
#define F_UP		PROBESTICK_LINK_HAS_UP
#define F_TRAIN		PROBESTICK_LINK_TRAINING
#define F_DOWN		PROBESTICK_LINK_DOWNGRADED
#define F_PART		PROBESTICK_LINK_PARTNER	/* set with the upstream port's LnkCap */

struct link_case {
	const char *name;
	u16 exp_flags;
	u32 lnkcap;
	u16 lnksta;
	u32 lnkcap2;
	bool has_up;
	u32 up_lnkcap;
	/* expected */
	u32 flags;
	u8 cap_speed, cap_width, sta_speed, sta_width;
	u8 up_cap_speed, up_cap_width;
	u32 cap2_speeds;
};

static void link_case_desc(const struct link_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct link_case link_cases[] = {
	{ "QEMU Gen1 x1 endpoint below QEMU root port: full speed",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_QEMU_GEN1_X1, LNKSTA_GEN1_X1,
	  LNKCAP2_UP_TO_2_5GT, true, LNKCAP_QEMU_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP, 1, 1, 1, 1, 4, 32, 0x01 },
	{ "QEMU NVMe Gen1 x1 below a Gen3 x4 root port: full speed",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_QEMU_GEN1_X1, LNKSTA_GEN1_X1,
	  0, true, LNKCAP_QEMU_ROOT_PORT_GEN3_X4,
	  F_PCIE | F_LINK | F_UP, 1, 1, 1, 1, 3, 4, 0 },
	{ "QEMU endpoint below xio3130 downstream port: not judged",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_QEMU_GEN1_X1, LNKSTA_GEN1_X1,
	  0, true, LNKCAP_QEMU_XIO3130_DOWNSTREAM,
	  F_PCIE | F_LINK | F_UP, 1, 1, 1, 1, 0, 0, 0 },
	{ "Gen4 x4 NVMe trained Gen3 x4 on a Gen4 port: downgraded",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_NVME_GEN4_X4, LNKSTA_GEN3_X4_SLOTCLK,
	  LNKCAP2_UP_TO_16GT, true, LNKCAP_GEN4_X4_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP | F_DOWN, 4, 4, 3, 4, 4, 4, 0x0f },
	{ "Gen4 x4 NVMe trained Gen3 x4 on a Gen3 port: as good as it gets",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_NVME_GEN4_X4, LNKSTA_GEN3_X4_SLOTCLK,
	  LNKCAP2_UP_TO_16GT, true, LNKCAP_GEN3_X4_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP, 4, 4, 3, 4, 3, 4, 0x0f },
	{ "Gen4 x4 NVMe at Gen4 x4: full speed",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_NVME_GEN4_X4, LNKSTA_GEN4_X4_SLOTCLK,
	  LNKCAP2_UP_TO_16GT, true, LNKCAP_GEN4_X4_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP, 4, 4, 4, 4, 4, 4, 0x0f },
	{ "x16 GPU trained x1 in an x16 slot: downgraded",
	  EXP_FLAGS(PCI_EXP_TYPE_LEG_END), LNKCAP_GPU_GEN3_X16, LNKSTA_GEN3_X1_SLOTCLK,
	  LNKCAP2_UP_TO_8GT, true, LNKCAP_GEN3_X16_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP | F_DOWN, 3, 16, 3, 1, 3, 16, 0x07 },
	{ "x16 GPU at Gen1 x16 in a Gen3 slot: downgraded",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_GPU_GEN3_X16, LNKSTA_GEN1_X16_SLOTCLK,
	  LNKCAP2_UP_TO_8GT, true, LNKCAP_GEN3_X16_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP | F_DOWN, 3, 16, 1, 16, 3, 16, 0x07 },
	{ "x16 GPU at x4 in an x4 slot: full width for that slot",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_GPU_GEN3_X16, 0x1043,
	  LNKCAP2_UP_TO_8GT, true, LNKCAP_GEN3_X4_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP, 3, 16, 3, 4, 3, 4, 0x07 },
	{ "x16 GPU at Gen3 x16: full speed",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_GPU_GEN3_X16, LNKSTA_GEN3_X16_SLOTCLK,
	  LNKCAP2_UP_TO_8GT, true, LNKCAP_GEN3_X16_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP, 3, 16, 3, 16, 3, 16, 0x07 },
	{ "NVMe still training below capability: not judged",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_NVME_GEN4_X4, LNKSTA_GEN3_X4_TRAINING,
	  LNKCAP2_UP_TO_16GT, true, LNKCAP_GEN4_X4_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP | F_TRAIN, 4, 4, 3, 4, 4, 4, 0x0f },
	{ "NVMe without upstream capability: not judged",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_NVME_GEN4_X4, LNKSTA_GEN3_X4_SLOTCLK,
	  LNKCAP2_UP_TO_16GT, false, 0,
	  F_PCIE | F_LINK, 4, 4, 3, 4, 0, 0, 0x0f },
	{ "upstream LnkCap with reserved speed: not judged",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_NVME_GEN4_X4, LNKSTA_GEN3_X4_SLOTCLK,
	  LNKCAP2_UP_TO_16GT, true, 0x00000047,
	  F_PCIE | F_LINK | F_UP, 4, 4, 3, 4, 0, 4, 0x0f },
	{ "own LnkCap with reserved speed: not judged",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), 0x00000047, LNKSTA_GEN1_X1,
	  0, true, LNKCAP_GEN3_X4_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP, 0, 4, 1, 1, 3, 4, 0 },
	{ "link down (LnkSta 0): not judged",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_NVME_GEN4_X4, LNKSTA_LINK_DOWN,
	  LNKCAP2_UP_TO_16GT, true, LNKCAP_GEN4_X4_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP, 4, 4, 0, 0, 4, 4, 0x0f },
	{ "function gone (all ones): not judged",
	  EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT), LNKCAP_ALL_ONES, 0xffff,
	  0xffffffff, true, LNKCAP_GEN4_X4_ROOT_PORT,
	  F_PCIE | F_LINK | F_UP | F_TRAIN, 0, 0, 0, 0, 4, 4, 0x7f },
	{ "Gen5 x16 switch downstream port, no partner above",
	  EXP_FLAGS(PCI_EXP_TYPE_DOWNSTREAM) | EXP_FLAGS_SLOT, LNKCAP_GEN5_X16_PORT,
	  LNKSTA_GEN5_X16_DLLLA, LNKCAP2_UP_TO_32GT_XLINK, false, 0,
	  F_PCIE | F_LINK, 5, 16, 5, 16, 0, 0, 0x1f },
	{ "RC integrated endpoint: no link",
	  EXP_FLAGS(PCI_EXP_TYPE_RC_END), 0, 0, 0, true, LNKCAP_GEN3_X16_ROOT_PORT,
	  F_PCIE, 0, 0, 0, 0, 0, 0, 0 },
	{ "RC integrated endpoint with stray register bits: no link",
	  EXP_FLAGS(PCI_EXP_TYPE_RC_END), LNKCAP_GEN3_X16_ROOT_PORT, LNKSTA_GEN1_X1,
	  LNKCAP2_UP_TO_8GT, false, 0,
	  F_PCIE, 0, 0, 0, 0, 0, 0, 0 },
};

KUNIT_ARRAY_PARAM(link, link_cases, link_case_desc);

static void link_decode_real_links(struct kunit *test)
{
	const struct link_case *c = test->param_value;
	struct probestick_pcie_link link;

	/* Stale values from a previous use must not leak into the result. */
	memset(&link, 0xa5, sizeof(link));
	link.flags = F_LINK | F_UP | F_TRAIN | F_DOWN;

	probestick_pcie_link_decode(&link, c->exp_flags, c->lnkcap, c->lnksta,
				    c->lnkcap2);
	if (c->has_up)
		probestick_pcie_link_set_upstream(&link, c->up_lnkcap);

	KUNIT_EXPECT_EQ(test, link.flags, c->flags | (c->flags & F_UP ? F_PART : 0));
	KUNIT_EXPECT_EQ(test, link.port_type, probestick_pcie_port_type(c->exp_flags));
	KUNIT_EXPECT_EQ(test, link.cap_speed, c->cap_speed);
	KUNIT_EXPECT_EQ(test, link.cap_width, c->cap_width);
	KUNIT_EXPECT_EQ(test, link.sta_speed, c->sta_speed);
	KUNIT_EXPECT_EQ(test, link.sta_width, c->sta_width);
	KUNIT_EXPECT_EQ(test, link.up_cap_speed, c->up_cap_speed);
	KUNIT_EXPECT_EQ(test, link.up_cap_width, c->up_cap_width);
	KUNIT_EXPECT_EQ(test, link.cap2_speeds, c->cap2_speeds);
	/* The raw registers are always kept, decoded or not. */
	KUNIT_EXPECT_EQ(test, link.lnkcap, c->lnkcap);
	KUNIT_EXPECT_EQ(test, link.lnksta, c->lnksta);
	KUNIT_EXPECT_EQ(test, link.lnkcap2, c->lnkcap2);
	KUNIT_EXPECT_EQ(test, probestick_pcie_link_downgraded(&link),
			!!(c->flags & F_DOWN));
}

/*
 * Re-reading the upstream port after a retrain must be able to clear an
 * earlier verdict, not only set one.
 */
static void link_set_upstream_retrained_clears_downgraded(struct kunit *test)
{
	struct probestick_pcie_link link = {};

	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT),
				    LNKCAP_NVME_GEN4_X4, LNKSTA_GEN3_X4_SLOTCLK,
				    LNKCAP2_UP_TO_16GT);
	probestick_pcie_link_set_upstream(&link, LNKCAP_GEN4_X4_ROOT_PORT);
	KUNIT_EXPECT_TRUE(test, link.flags & F_DOWN);

	probestick_pcie_link_set_upstream(&link, LNKCAP_GEN3_X4_ROOT_PORT);
	KUNIT_EXPECT_FALSE(test, link.flags & F_DOWN);
	KUNIT_EXPECT_EQ(test, link.up_cap_speed, (u8)PROBESTICK_SPEED_8GT);
}

static void link_set_upstream_no_link_ignored(struct kunit *test)
{
	struct probestick_pcie_link link = {};

	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_RC_END), 0, 0, 0);
	probestick_pcie_link_set_upstream(&link, LNKCAP_GEN3_X16_ROOT_PORT);
	KUNIT_EXPECT_EQ(test, link.flags, (u32)F_PCIE);
	KUNIT_EXPECT_EQ(test, link.up_cap_speed, 0);
	KUNIT_EXPECT_EQ(test, link.up_cap_width, 0);
}

static void link_downgraded_conventional_pci_false(struct kunit *test)
{
	struct probestick_pcie_link link = {
		.sta_speed = 1, .sta_width = 1,
		.cap_speed = 3, .cap_width = 16,
		.up_cap_speed = 3, .up_cap_width = 16,
	};

	KUNIT_EXPECT_FALSE(test, probestick_pcie_link_downgraded(&link));
	link.flags = F_PCIE | F_LINK | F_UP;
	KUNIT_EXPECT_TRUE(test, probestick_pcie_link_downgraded(&link));
}

static struct kunit_case probestick_pcie_link_cases[] = {
	KUNIT_CASE_PARAM(link_decode_real_links, link_gen_params),
	KUNIT_CASE(link_set_upstream_retrained_clears_downgraded),
	KUNIT_CASE(link_set_upstream_no_link_ignored),
	KUNIT_CASE(link_downgraded_conventional_pci_false),
	{}
};

static struct kunit_suite probestick_pcie_link_suite = {
	.name = "probestick_pcie_link",
	.test_cases = probestick_pcie_link_cases,
};

/* ------------------------------------------------ verdict and bandwidth -- */

/*
 * Usable bandwidth per lane and direction in kB/s, worked out by hand from
 * each generation's line code: 2.5 GT/s * 8/10 / 8 bits = 250 MB/s;
 * 8 GT/s * 128/130 / 8 = 984.615 MB/s; 64 GT/s * 242/256 / 8 = 7562.5 MB/s.
 */
#define L1	250000U
#define L2	500000U
#define L3	984615U
#define L4	1969230U
#define L5	3938461U
#define L6	7562500U

static const u32 lane_kbps_want[PS_PCIE_GEN_MAX + 1] = { 0, L1, L2, L3, L4, L5, L6 };

static void lane_kbps_each_generation(struct kunit *test)
{
	int g;

	for (g = 0; g <= PS_PCIE_GEN_MAX; g++)
		KUNIT_EXPECT_EQ_MSG(test, ps_pcie_lane_kbps(g), lane_kbps_want[g],
				    "speed code %d", g);
	KUNIT_EXPECT_EQ(test, ps_pcie_lane_kbps(7), 0U);
	KUNIT_EXPECT_EQ(test, ps_pcie_lane_kbps(-1), 0U);
	/* x32 at 64 GT/s: 242 GB/s, still within 32 bits */
	KUNIT_EXPECT_EQ(test, ps_pcie_link_kbps(6, 32), 242000000U);
	KUNIT_EXPECT_EQ(test, ps_pcie_link_kbps(3, 16), 15753840U);
	KUNIT_EXPECT_EQ(test, ps_pcie_link_kbps(3, 0), 0U);
	KUNIT_EXPECT_EQ(test, ps_pcie_link_kbps(3, 33), 0U);
}

enum { V_NONE, V_OK, V_LIMITED, V_DEGRADED, V_DOWN, V_IDLE };

struct verdict_case {
	bool has_link, training, partner_present;
	int cap_speed, cap_width, partner_speed, partner_width;
	int sta_speed, sta_width;
	int verdict;
	u32 lost_kbps;
	bool link_inactive;	/* DLActive reported and clear */
};

static void verdict_case_desc(const struct verdict_case *c, char *desc)
{
	static const char *const names[] = { "none", "ok", "limited", "degraded", "down",
					      "idle" };

	snprintf(desc, KUNIT_PARAM_DESC_SIZE,
		 "own %d/x%d partner %d/x%d trained %d/x%d%s%s%s%s: %s, lost %u",
		 c->cap_speed, c->cap_width, c->partner_speed, c->partner_width,
		 c->sta_speed, c->sta_width, c->has_link ? "" : " no-link",
		 c->training ? " training" : "",
		 c->partner_present ? "" : " no-partner", c->link_inactive ? " dl-inactive" : "",
		 names[c->verdict],
		 c->lost_kbps);
}

/*
 * Own capability (g, w), the partner's (pg, pw), trained at (tg, tw). The
 * expected kB/s lost were computed apart from the code under test, from the
 * per-lane figures above (floor(rate * 1000 / 8 * code rate) times lanes).
 */
#define ENDS(g, w, pg, pw, tg, tw, v, lost) \
	{ true, false, true, g, w, pg, pw, tg, tw, v, lost }

static const struct verdict_case verdict_cases[] = {
	/* both ends alike, trained at their best: ok, at every generation and width */
	ENDS(1, 1, 1, 1, 1, 1, V_OK, 0), ENDS(1, 2, 1, 2, 1, 2, V_OK, 0),
	ENDS(1, 4, 1, 4, 1, 4, V_OK, 0), ENDS(1, 8, 1, 8, 1, 8, V_OK, 0),
	ENDS(1, 12, 1, 12, 1, 12, V_OK, 0), ENDS(1, 16, 1, 16, 1, 16, V_OK, 0),
	ENDS(1, 32, 1, 32, 1, 32, V_OK, 0),
	ENDS(2, 1, 2, 1, 2, 1, V_OK, 0), ENDS(2, 2, 2, 2, 2, 2, V_OK, 0),
	ENDS(2, 4, 2, 4, 2, 4, V_OK, 0), ENDS(2, 8, 2, 8, 2, 8, V_OK, 0),
	ENDS(2, 12, 2, 12, 2, 12, V_OK, 0), ENDS(2, 16, 2, 16, 2, 16, V_OK, 0),
	ENDS(2, 32, 2, 32, 2, 32, V_OK, 0),
	ENDS(3, 1, 3, 1, 3, 1, V_OK, 0), ENDS(3, 2, 3, 2, 3, 2, V_OK, 0),
	ENDS(3, 4, 3, 4, 3, 4, V_OK, 0), ENDS(3, 8, 3, 8, 3, 8, V_OK, 0),
	ENDS(3, 12, 3, 12, 3, 12, V_OK, 0), ENDS(3, 16, 3, 16, 3, 16, V_OK, 0),
	ENDS(3, 32, 3, 32, 3, 32, V_OK, 0),
	ENDS(4, 1, 4, 1, 4, 1, V_OK, 0), ENDS(4, 2, 4, 2, 4, 2, V_OK, 0),
	ENDS(4, 4, 4, 4, 4, 4, V_OK, 0), ENDS(4, 8, 4, 8, 4, 8, V_OK, 0),
	ENDS(4, 12, 4, 12, 4, 12, V_OK, 0), ENDS(4, 16, 4, 16, 4, 16, V_OK, 0),
	ENDS(4, 32, 4, 32, 4, 32, V_OK, 0),
	ENDS(5, 1, 5, 1, 5, 1, V_OK, 0), ENDS(5, 2, 5, 2, 5, 2, V_OK, 0),
	ENDS(5, 4, 5, 4, 5, 4, V_OK, 0), ENDS(5, 8, 5, 8, 5, 8, V_OK, 0),
	ENDS(5, 12, 5, 12, 5, 12, V_OK, 0), ENDS(5, 16, 5, 16, 5, 16, V_OK, 0),
	ENDS(5, 32, 5, 32, 5, 32, V_OK, 0),
	ENDS(6, 1, 6, 1, 6, 1, V_OK, 0), ENDS(6, 2, 6, 2, 6, 2, V_OK, 0),
	ENDS(6, 4, 6, 4, 6, 4, V_OK, 0), ENDS(6, 8, 6, 8, 6, 8, V_OK, 0),
	ENDS(6, 12, 6, 12, 6, 12, V_OK, 0), ENDS(6, 16, 6, 16, 6, 16, V_OK, 0),
	ENDS(6, 32, 6, 32, 6, 32, V_OK, 0),
	/* lanes lost (a contact, a riser, a card not fully seated): degraded */
	ENDS(1, 2, 1, 2, 1, 1, V_DEGRADED, 250000),
	ENDS(1, 4, 1, 4, 1, 2, V_DEGRADED, 500000),
	ENDS(1, 8, 1, 8, 1, 4, V_DEGRADED, 1000000),
	ENDS(1, 12, 1, 12, 1, 8, V_DEGRADED, 1000000),
	ENDS(1, 16, 1, 16, 1, 4, V_DEGRADED, 3000000),
	ENDS(1, 32, 1, 32, 1, 16, V_DEGRADED, 4000000),
	ENDS(2, 2, 2, 2, 2, 1, V_DEGRADED, 500000),
	ENDS(2, 4, 2, 4, 2, 2, V_DEGRADED, 1000000),
	ENDS(2, 8, 2, 8, 2, 4, V_DEGRADED, 2000000),
	ENDS(2, 12, 2, 12, 2, 8, V_DEGRADED, 2000000),
	ENDS(2, 16, 2, 16, 2, 4, V_DEGRADED, 6000000),
	ENDS(2, 32, 2, 32, 2, 16, V_DEGRADED, 8000000),
	ENDS(3, 2, 3, 2, 3, 1, V_DEGRADED, 984615),
	ENDS(3, 4, 3, 4, 3, 2, V_DEGRADED, 1969230),
	ENDS(3, 8, 3, 8, 3, 4, V_DEGRADED, 3938460),
	ENDS(3, 12, 3, 12, 3, 8, V_DEGRADED, 3938460),
	ENDS(3, 16, 3, 16, 3, 4, V_DEGRADED, 11815380),
	ENDS(3, 32, 3, 32, 3, 16, V_DEGRADED, 15753840),
	ENDS(4, 2, 4, 2, 4, 1, V_DEGRADED, 1969230),
	ENDS(4, 4, 4, 4, 4, 2, V_DEGRADED, 3938460),
	ENDS(4, 8, 4, 8, 4, 4, V_DEGRADED, 7876920),
	ENDS(4, 12, 4, 12, 4, 8, V_DEGRADED, 7876920),
	ENDS(4, 16, 4, 16, 4, 4, V_DEGRADED, 23630760),
	ENDS(4, 32, 4, 32, 4, 16, V_DEGRADED, 31507680),
	ENDS(5, 2, 5, 2, 5, 1, V_DEGRADED, 3938461),
	ENDS(5, 4, 5, 4, 5, 2, V_DEGRADED, 7876922),
	ENDS(5, 8, 5, 8, 5, 4, V_DEGRADED, 15753844),
	ENDS(5, 12, 5, 12, 5, 8, V_DEGRADED, 15753844),
	ENDS(5, 16, 5, 16, 5, 4, V_DEGRADED, 47261532),
	ENDS(5, 32, 5, 32, 5, 16, V_DEGRADED, 63015376),
	ENDS(6, 2, 6, 2, 6, 1, V_DEGRADED, 7562500),
	ENDS(6, 4, 6, 4, 6, 2, V_DEGRADED, 15125000),
	ENDS(6, 8, 6, 8, 6, 4, V_DEGRADED, 30250000),
	ENDS(6, 12, 6, 12, 6, 8, V_DEGRADED, 30250000),
	ENDS(6, 16, 6, 16, 6, 4, V_DEGRADED, 90750000),
	ENDS(6, 32, 6, 32, 6, 16, V_DEGRADED, 121000000),
	/* one generation down (the taped GPU of seed 000, a BIOS speed limit): degraded */
	ENDS(2, 1, 2, 1, 1, 1, V_DEGRADED, 250000),
	ENDS(2, 2, 2, 2, 1, 2, V_DEGRADED, 500000),
	ENDS(2, 4, 2, 4, 1, 4, V_DEGRADED, 1000000),
	ENDS(2, 8, 2, 8, 1, 8, V_DEGRADED, 2000000),
	ENDS(2, 12, 2, 12, 1, 12, V_DEGRADED, 3000000),
	ENDS(2, 16, 2, 16, 1, 16, V_DEGRADED, 4000000),
	ENDS(2, 32, 2, 32, 1, 32, V_DEGRADED, 8000000),
	ENDS(3, 1, 3, 1, 2, 1, V_DEGRADED, 484615),
	ENDS(3, 2, 3, 2, 2, 2, V_DEGRADED, 969230),
	ENDS(3, 4, 3, 4, 2, 4, V_DEGRADED, 1938460),
	ENDS(3, 8, 3, 8, 2, 8, V_DEGRADED, 3876920),
	ENDS(3, 12, 3, 12, 2, 12, V_DEGRADED, 5815380),
	ENDS(3, 16, 3, 16, 2, 16, V_DEGRADED, 7753840),
	ENDS(3, 32, 3, 32, 2, 32, V_DEGRADED, 15507680),
	ENDS(4, 1, 4, 1, 3, 1, V_DEGRADED, 984615),
	ENDS(4, 2, 4, 2, 3, 2, V_DEGRADED, 1969230),
	ENDS(4, 4, 4, 4, 3, 4, V_DEGRADED, 3938460),
	ENDS(4, 8, 4, 8, 3, 8, V_DEGRADED, 7876920),
	ENDS(4, 12, 4, 12, 3, 12, V_DEGRADED, 11815380),
	ENDS(4, 16, 4, 16, 3, 16, V_DEGRADED, 15753840),
	ENDS(4, 32, 4, 32, 3, 32, V_DEGRADED, 31507680),
	ENDS(5, 1, 5, 1, 4, 1, V_DEGRADED, 1969231),
	ENDS(5, 2, 5, 2, 4, 2, V_DEGRADED, 3938462),
	ENDS(5, 4, 5, 4, 4, 4, V_DEGRADED, 7876924),
	ENDS(5, 8, 5, 8, 4, 8, V_DEGRADED, 15753848),
	ENDS(5, 12, 5, 12, 4, 12, V_DEGRADED, 23630772),
	ENDS(5, 16, 5, 16, 4, 16, V_DEGRADED, 31507696),
	ENDS(5, 32, 5, 32, 4, 32, V_DEGRADED, 63015392),
	ENDS(6, 1, 6, 1, 5, 1, V_DEGRADED, 3624039),
	ENDS(6, 2, 6, 2, 5, 2, V_DEGRADED, 7248078),
	ENDS(6, 4, 6, 4, 5, 4, V_DEGRADED, 14496156),
	ENDS(6, 8, 6, 8, 5, 8, V_DEGRADED, 28992312),
	ENDS(6, 12, 6, 12, 5, 12, V_DEGRADED, 43488468),
	ENDS(6, 16, 6, 16, 5, 16, V_DEGRADED, 57984624),
	ENDS(6, 32, 6, 32, 5, 32, V_DEGRADED, 115969248),
	/* a Gen6 x32 port, a weaker device at its best: the port is limited, no fault */
	ENDS(6, 32, 1, 1, 1, 1, V_LIMITED, 0), ENDS(6, 32, 1, 2, 1, 2, V_LIMITED, 0),
	ENDS(6, 32, 1, 4, 1, 4, V_LIMITED, 0), ENDS(6, 32, 1, 8, 1, 8, V_LIMITED, 0),
	ENDS(6, 32, 1, 12, 1, 12, V_LIMITED, 0), ENDS(6, 32, 1, 16, 1, 16, V_LIMITED, 0),
	ENDS(6, 32, 2, 1, 2, 1, V_LIMITED, 0), ENDS(6, 32, 2, 2, 2, 2, V_LIMITED, 0),
	ENDS(6, 32, 2, 4, 2, 4, V_LIMITED, 0), ENDS(6, 32, 2, 8, 2, 8, V_LIMITED, 0),
	ENDS(6, 32, 2, 12, 2, 12, V_LIMITED, 0), ENDS(6, 32, 2, 16, 2, 16, V_LIMITED, 0),
	ENDS(6, 32, 3, 1, 3, 1, V_LIMITED, 0), ENDS(6, 32, 3, 2, 3, 2, V_LIMITED, 0),
	ENDS(6, 32, 3, 4, 3, 4, V_LIMITED, 0), ENDS(6, 32, 3, 8, 3, 8, V_LIMITED, 0),
	ENDS(6, 32, 3, 12, 3, 12, V_LIMITED, 0), ENDS(6, 32, 3, 16, 3, 16, V_LIMITED, 0),
	ENDS(6, 32, 4, 1, 4, 1, V_LIMITED, 0), ENDS(6, 32, 4, 2, 4, 2, V_LIMITED, 0),
	ENDS(6, 32, 4, 4, 4, 4, V_LIMITED, 0), ENDS(6, 32, 4, 8, 4, 8, V_LIMITED, 0),
	ENDS(6, 32, 4, 12, 4, 12, V_LIMITED, 0), ENDS(6, 32, 4, 16, 4, 16, V_LIMITED, 0),
	ENDS(6, 32, 5, 1, 5, 1, V_LIMITED, 0), ENDS(6, 32, 5, 2, 5, 2, V_LIMITED, 0),
	ENDS(6, 32, 5, 4, 5, 4, V_LIMITED, 0), ENDS(6, 32, 5, 8, 5, 8, V_LIMITED, 0),
	ENDS(6, 32, 5, 12, 5, 12, V_LIMITED, 0), ENDS(6, 32, 5, 16, 5, 16, V_LIMITED, 0),
	ENDS(6, 32, 6, 1, 6, 1, V_LIMITED, 0), ENDS(6, 32, 6, 2, 6, 2, V_LIMITED, 0),
	ENDS(6, 32, 6, 4, 6, 4, V_LIMITED, 0), ENDS(6, 32, 6, 8, 6, 8, V_LIMITED, 0),
	ENDS(6, 32, 6, 12, 6, 12, V_LIMITED, 0), ENDS(6, 32, 6, 16, 6, 16, V_LIMITED, 0),
	ENDS(6, 32, 5, 32, 5, 32, V_LIMITED, 0),
	/* the weaker device's own view of such links: at its best, ok */
	ENDS(1, 1, 6, 32, 1, 1, V_OK, 0), ENDS(1, 4, 6, 32, 1, 4, V_OK, 0),
	ENDS(1, 16, 6, 32, 1, 16, V_OK, 0),
	ENDS(3, 1, 6, 32, 3, 1, V_OK, 0), ENDS(3, 4, 6, 32, 3, 4, V_OK, 0),
	ENDS(3, 16, 6, 32, 3, 16, V_OK, 0),
	ENDS(5, 1, 6, 32, 5, 1, V_OK, 0), ENDS(5, 4, 6, 32, 5, 4, V_OK, 0),
	ENDS(5, 16, 6, 32, 5, 16, V_OK, 0),
	/* Gen3 x16 GPU at Gen1 x16 in a Gen3 x16 slot (seed 000): 12.1 GB/s lost */
	ENDS(3, 16, 3, 16, 1, 16, V_DEGRADED, (L3 - L1) * 16),
	/* Gen4 x4 NVMe at Gen3 x4 behind a Gen4 x4 root port */
	ENDS(4, 4, 4, 4, 3, 4, V_DEGRADED, (L4 - L3) * 4),
	/* Both short of the common best (Gen4 x8): speed and lanes lost */
	ENDS(5, 16, 4, 8, 3, 4, V_DEGRADED, L4 * 8 - L3 * 4),
	/* Limited in width by the slot, degraded in speed: degraded */
	ENDS(3, 16, 3, 4, 2, 4, V_DEGRADED, (L3 - L2) * 4),
	/* Trained above capability (odd registers): still its best */
	ENDS(2, 4, 2, 4, 3, 4, V_OK, 0),
	/* No partner known: at its own best it is ok, below it cannot be judged */
	{ true, false, false, 3, 4, 0, 0, 3, 4, V_OK, 0 },
	{ true, false, false, 3, 4, 0, 0, 1, 4, V_NONE, 0 },
	{ true, false, true, 3, 4, 0, 4, 3, 1, V_NONE, 0 },
	/* Link down: a fault with a device at the other end, an empty slot without */
	{ true, false, false, 3, 4, 0, 0, 3, 4, V_NONE, 0, true },
	/* DLActive clear, yet a function answers below: the speeds decide */
	{ true, false, true, 3, 4, 3, 4, 3, 4, V_OK, 0, true },
	{ true, false, true, 3, 4, 1, 1, 1, 1, V_LIMITED, 0, true },
	{ true, false, true, 3, 4, 3, 4, 0, 0, V_DOWN, 0 },
	{ true, false, false, 3, 16, 0, 0, 0, 0, V_NONE, 0 },
	/* Still training, status unreadable, capability unknown */
	{ true, true, true, 3, 4, 3, 4, 1, 1, V_NONE, 0 },
	{ true, false, true, 3, 4, 3, 4, 0, -1, V_NONE, 0 },
	{ true, false, true, 0, 4, 3, 4, 1, 4, V_NONE, 0 },
	{ true, false, true, 3, 0, 3, 4, 3, 1, V_NONE, 0 },
	/* Conventional PCI or an RC integrated endpoint: no link, no verdict */
	{ false, false, true, 3, 16, 3, 16, 1, 1, V_NONE, 0 },
	{ false, false, false, 0, 0, 0, 0, 0, 0, V_NONE, 0 },
};

KUNIT_ARRAY_PARAM(verdict, verdict_cases, verdict_case_desc);

static void verdict_every_generation_and_width(struct kunit *test)
{
	const struct verdict_case *c = test->param_value;
	struct ps_pcie_link_ends e = {
		.has_link = c->has_link,
		.training = c->training,
		.partner_present = c->partner_present,
		.cap_speed = c->cap_speed,
		.cap_width = c->cap_width,
		.partner_speed = c->partner_speed,
		.partner_width = c->partner_width,
		.sta_speed = c->sta_speed,
		.sta_width = c->sta_width,
		.link_inactive = c->link_inactive,
	};

	KUNIT_EXPECT_EQ(test, (int)ps_pcie_verdict(&e), c->verdict);
	KUNIT_EXPECT_EQ(test, ps_pcie_lost_kbps(&e), c->lost_kbps);
}

/* The module's table entry goes through the same rule. */
static void link_verdict_from_module_entry(struct kunit *test)
{
	struct probestick_pcie_link link = {};

	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT),
				    LNKCAP_NVME_GEN4_X4, LNKSTA_GEN3_X4_SLOTCLK,
				    LNKCAP2_UP_TO_16GT);
	/* no upstream read yet: below its own capability, nothing known above */
	KUNIT_EXPECT_EQ(test, (int)probestick_pcie_link_verdict(&link), V_NONE);
	probestick_pcie_link_set_upstream(&link, LNKCAP_GEN4_X4_ROOT_PORT);
	KUNIT_EXPECT_EQ(test, (int)probestick_pcie_link_verdict(&link), V_DEGRADED);
	probestick_pcie_link_set_upstream(&link, LNKCAP_GEN3_X4_ROOT_PORT);
	KUNIT_EXPECT_EQ(test, (int)probestick_pcie_link_verdict(&link), V_LIMITED);

	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_ENDPOINT),
				    LNKCAP_QEMU_GEN1_X1, LNKSTA_GEN1_X1, 0);
	KUNIT_EXPECT_EQ(test, (int)probestick_pcie_link_verdict(&link), V_OK);
	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_RC_END), 0, 0, 0);
	KUNIT_EXPECT_EQ(test, (int)probestick_pcie_link_verdict(&link), V_NONE);
}

static struct kunit_case probestick_pcie_verdict_cases[] = {
	KUNIT_CASE(lane_kbps_each_generation),
	KUNIT_CASE_PARAM(verdict_every_generation_and_width, verdict_gen_params),
	KUNIT_CASE(link_verdict_from_module_entry),
	{}
};

static struct kunit_suite probestick_pcie_verdict_suite = {
	.name = "probestick_pcie_verdict",
	.test_cases = probestick_pcie_verdict_cases,
};


/* ----------------------------------------- the link from both its ends -- */

/*
 * Each end of a link has its own verdict: a port and the function below
 * see one link, each against its own capability. Own capability (g, w),
 * the other end's (pg, pw), trained at (tg, tw): the verdict of that end
 * (va) and of the other end (vb); the bandwidth lost is the link's.
 */
struct link_verdict_case {
	const char *name;
	int g, w, pg, pw, tg, tw;
	int va, vb;
};

static void link_verdict_case_desc(const struct link_verdict_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct link_verdict_case link_verdict_cases[] = {
	/* seed 000's setup: the device at its best is ok, the port limited by it */
	{ "Gen1 x1 device behind Gen3 x4 port", 1, 1, 3, 4, 1, 1, V_OK, V_LIMITED },
	{ "QEMU e1000e behind pcie-root-port x-speed=8,x-width=4", 1, 1, 3, 4, 1, 1,
	  V_OK, V_LIMITED },
	{ "QEMU e1000e behind pcie-root-port 16 GT/s x32", 1, 1, 4, 32, 1, 1, V_OK, V_LIMITED },
	{ "QEMU e1000e behind pcie-root-port 2.5 GT/s x1", 1, 1, 1, 1, 1, 1, V_OK, V_OK },
	{ "Gen4 x4 NVMe in a Gen3 x4 slot at Gen3 x4", 4, 4, 3, 4, 3, 4, V_LIMITED, V_OK },
	{ "x16 GPU in an x4-wired slot at x4", 3, 16, 3, 4, 3, 4, V_LIMITED, V_OK },
	{ "alike ends at their best", 3, 16, 3, 16, 3, 16, V_OK, V_OK },
	{ "Gen5 both ends at Gen5 x16", 5, 16, 5, 16, 5, 16, V_OK, V_OK },
	{ "Gen6 x32 both ends at Gen6 x32", 6, 32, 6, 32, 6, 32, V_OK, V_OK },
	{ "Gen3 x16 both ends, trained Gen1 x16, nothing explains it", 3, 16, 3, 16, 1, 16,
	  V_DEGRADED, V_DEGRADED },
	{ "taped GPU: Gen2 x16 both ends, trained Gen2 x1", 2, 16, 2, 16, 2, 1,
	  V_DEGRADED, V_DEGRADED },
	{ "Gen4 x4 NVMe on a Gen4 port at Gen3 x4", 4, 4, 4, 4, 3, 4, V_DEGRADED, V_DEGRADED },
	{ "Gen5 x16 device in Gen4 x8 slot at Gen3 x8", 5, 16, 4, 8, 3, 8,
	  V_DEGRADED, V_DEGRADED },
	{ "Gen6 x8 both, at Gen6 x4", 6, 8, 6, 8, 6, 4, V_DEGRADED, V_DEGRADED },
	{ "x12 both, trained x8", 2, 12, 2, 12, 2, 8, V_DEGRADED, V_DEGRADED },
};

KUNIT_ARRAY_PARAM(link_verdict, link_verdict_cases, link_verdict_case_desc);

static void link_verdict_each_end(struct kunit *test)
{
	const struct link_verdict_case *c = test->param_value;
	struct ps_pcie_link_ends a = {
		.has_link = true, .partner_present = true,
		.cap_speed = c->g, .cap_width = c->w,
		.partner_speed = c->pg, .partner_width = c->pw,
		.sta_speed = c->tg, .sta_width = c->tw,
	};
	struct ps_pcie_link_ends b = a;

	b.cap_speed = c->pg;
	b.cap_width = c->pw;
	b.partner_speed = c->g;
	b.partner_width = c->w;
	KUNIT_EXPECT_EQ(test, (int)ps_pcie_verdict(&a), c->va);
	KUNIT_EXPECT_EQ(test, (int)ps_pcie_verdict(&b), c->vb);
	KUNIT_EXPECT_EQ(test, ps_pcie_lost_kbps(&a), ps_pcie_lost_kbps(&b));
}

/*
 * Links from real machines (tests/realworld/pci/corpus, lspci -vvnn of
 * linuxhw/LsPCI, CC BY 4.0), their registers as lspci decoded them: the
 * downstream port's LnkCap, LnkSta and LnkCtl2, the function below's
 * LnkCap and LnkSta. The port and the function below are each judged as
 * the module judges them: the port with the function below, the function
 * with the port above and its LnkSta/LnkCtl2 (UP_REGS).
 */
struct corpus_link_case {
	const char *name;
	u8 port_type;		/* PCI_EXP_TYPE_ROOT_PORT or _DOWNSTREAM */
	u32 lnkcap;
	u16 lnksta, lnkctl2;
	u8 below_type;		/* PCI_EXP_TYPE_ENDPOINT, _LEG_END, _UPSTREAM */
	u32 below_lnkcap;
	u16 below_lnksta;
	bool display;		/* the function below is a display controller */
	int v_port, v_below;
	u32 lost_kbps;
};

static void corpus_link_case_desc(const struct corpus_link_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static const struct corpus_link_case corpus_link_cases[] = {
	/* a graphics card idles at 2.5 GT/s x16, the port sets LABS: idle both ends */
	{ "hp-z440 00:02.0 GTX 1050 2.5GT/s x16 of 8GT/s, ABWMgmt+",
	  PCI_EXP_TYPE_ROOT_PORT, 0x03780103, 0xf101, 0x0003,
	  PCI_EXP_TYPE_LEG_END, 0x00440d03, 0x1101, true, V_IDLE, V_IDLE, 0 },
	/* the same registers with LABS clear: the display class still explains it */
	{ "hp-z440 00:02.0 GTX 1050, LABS clear",
	  PCI_EXP_TYPE_ROOT_PORT, 0x03780103, 0x3101, 0x0003,
	  PCI_EXP_TYPE_LEG_END, 0x00440d03, 0x1101, true, V_IDLE, V_IDLE, 0 },
	/* the same link with a storage controller below, nothing explains 2.5 GT/s */
	{ "hp-z440 00:02.0 registers, no display, no LABS: degraded",
	  PCI_EXP_TYPE_ROOT_PORT, 0x03780103, 0x3101, 0x0003,
	  PCI_EXP_TYPE_ENDPOINT, 0x00440d03, 0x1101, false, V_DEGRADED, V_DEGRADED,
	  (L3 - L1) * 16 },
	/* an idle card on 8 of its 16 lanes: the width is a fault, only it counts */
	{ "hp-z440 00:02.0 GTX 1050 trained 2.5GT/s x8: degraded, 8 lanes lost",
	  PCI_EXP_TYPE_ROOT_PORT, 0x03780103, 0xf081, 0x0003,
	  PCI_EXP_TYPE_LEG_END, 0x00440d03, 0x1081, true, V_DEGRADED, V_DEGRADED,
	  L3 * 8 },
	/* RTL8168 Gen1 x1 on a Gen2 x1 chipset port: the port limited, the NIC ok */
	{ "hp-z440 00:1c.1 Gen2 x1 port, RTL8168 at 2.5GT/s x1",
	  PCI_EXP_TYPE_ROOT_PORT, 0x02300012, 0x7011, 0x0002,
	  PCI_EXP_TYPE_ENDPOINT, 0x00040c11, 0x1011, false, V_LIMITED, V_OK, 0 },
	/* Gen3 x16 root port to an x8 switch, ABWMgmt+: the switch is the weaker end */
	{ "dell-r210ii 00:01.0 x16 port, ASM2824 x8 upstream port",
	  PCI_EXP_TYPE_ROOT_PORT, 0x02600d03, 0xd083, 0x0003,
	  PCI_EXP_TYPE_UPSTREAM, 0x00440883, 0x1083, false, V_LIMITED, V_OK, 0 },
	/* Gen4 x4 NVMe behind a Gen3 switch port: the drive limited, the port ok */
	{ "dell-r210ii 02:04.0 Gen3 x4 switch port, Gen4 x4 NVMe at 8GT/s",
	  PCI_EXP_TYPE_DOWNSTREAM, 0x047c0843, 0x7043, 0x0023,
	  PCI_EXP_TYPE_ENDPOINT, 0x00400844, 0x1043, false, V_OK, V_LIMITED, 0 },
	/* AQC107 x2 NIC on an x4 switch port */
	{ "dell-r210ii 02:00.0 Gen3 x4 switch port, AQC107 x2",
	  PCI_EXP_TYPE_DOWNSTREAM, 0x007c0843, 0x7023, 0x0023,
	  PCI_EXP_TYPE_ENDPOINT, 0x00440023, 0x1023, false, V_LIMITED, V_OK, 0 },
	/* Gen4 x16 card on a Gen3 x8 port, at 8GT/s x8 */
	{ "lenovo-legion5 00:01.1 Gen3 x8 port, RTX 3050 Ti Gen4 x16 at 8GT/s x8",
	  PCI_EXP_TYPE_ROOT_PORT, 0x01700083, 0x7083, 0x0003,
	  PCI_EXP_TYPE_LEG_END, 0x00440d04, 0x1083, true, V_OK, V_LIMITED, 0 },
	/* a Target Link Speed of 5 GT/s on a Gen3 port: limited, not degraded */
	{ "dell-r210ii 02:04.0 registers, LnkCtl2 target 5GT/s, NVMe at 5GT/s",
	  PCI_EXP_TYPE_DOWNSTREAM, 0x047c0843, 0x7042, 0x0022,
	  PCI_EXP_TYPE_ENDPOINT, 0x00400844, 0x1042, false, V_LIMITED, V_LIMITED, 0 },
	/* the port's Target Link Speed holds a Gen2 x8 RAID card at 2.5GT/s */
	{ "hp-dl180g6 00:03.0 Gen2 x16 port, target 2.5GT/s, P410 Gen2 x8 at 2.5GT/s x8",
	  PCI_EXP_TYPE_ROOT_PORT, 0x00380d02, 0x7081, 0x0001,
	  PCI_EXP_TYPE_ENDPOINT, 0x00000482, 0x1081, false, V_LIMITED, V_LIMITED, 0 },
	/* an x4 graphics card idle in an x16 slot: x4 is full width */
	{ "fujitsu-tx140s1p 00:01.0 Gen3 x16 port, GT 1030 Gen3 x4 at 2.5GT/s x4",
	  PCI_EXP_TYPE_ROOT_PORT, 0x02600d03, 0xd041, 0x0003,
	  PCI_EXP_TYPE_LEG_END, 0x00440c43, 0x1041, true, V_IDLE, V_IDLE, 0 },
	/* an x8 RAID card in an x4 port: the card limited, the port ok */
	{ "hp-dl360g7 00:01.0 Gen2 x4 port, P410i Gen2 x8 at 5GT/s x4",
	  PCI_EXP_TYPE_ROOT_PORT, 0x00380c42, 0x3042, 0x0002,
	  PCI_EXP_TYPE_ENDPOINT, 0x00000082, 0x1042, false, V_OK, V_LIMITED, 0 },
	/* the same card with a lane lost: x2 of the common x4 is a fault */
	{ "hp-dl360g7 00:01.0 registers, P410i at 5GT/s x2",
	  PCI_EXP_TYPE_ROOT_PORT, 0x00380c42, 0x3022, 0x0002,
	  PCI_EXP_TYPE_ENDPOINT, 0x00000082, 0x1022, false, V_DEGRADED, V_DEGRADED,
	  L2 * 2 },
};

KUNIT_ARRAY_PARAM(corpus_link, corpus_link_cases, corpus_link_case_desc);

static void corpus_link_both_ends(struct kunit *test)
{
	const struct corpus_link_case *c = test->param_value;
	struct probestick_pcie_link port = {}, below = {};

	probestick_pcie_link_decode(&port, EXP_FLAGS(c->port_type) | EXP_FLAGS_SLOT,
				    c->lnkcap, c->lnksta, 0);
	port.lnkctl2 = c->lnkctl2;
	if (c->display)
		port.flags |= PROBESTICK_LINK_MANAGED;
	probestick_pcie_link_set_below(&port, true, c->below_lnkcap);
	KUNIT_EXPECT_EQ(test, (int)port.verdict, c->v_port);
	KUNIT_EXPECT_EQ(test, port.lost_kbps, c->lost_kbps);

	probestick_pcie_link_decode(&below, EXP_FLAGS(c->below_type), c->below_lnkcap,
				    c->below_lnksta, 0);
	below.up_lnksta = c->lnksta;
	below.up_lnkctl2 = c->lnkctl2;
	below.flags |= PROBESTICK_LINK_UP_REGS;
	if (c->display)
		below.flags |= PROBESTICK_LINK_MANAGED;
	probestick_pcie_link_set_upstream(&below, c->lnkcap);
	KUNIT_EXPECT_EQ(test, (int)below.verdict, c->v_below);
	KUNIT_EXPECT_EQ(test, below.lost_kbps, c->lost_kbps);
	KUNIT_EXPECT_EQ(test, probestick_pcie_link_downgraded(&below),
			c->v_below == V_DEGRADED);
}

/* Without the other end the verdict is the one end's own. */
static void link_verdict_no_partner_own_view(struct kunit *test)
{
	struct ps_pcie_link_ends e = {
		.has_link = true, .cap_speed = 1, .cap_width = 1,
		.sta_speed = 1, .sta_width = 1,
	};

	KUNIT_EXPECT_EQ(test, (int)ps_pcie_verdict(&e), V_OK);
	e.sta_width = 0;
	KUNIT_EXPECT_EQ(test, (int)ps_pcie_verdict(&e), V_NONE);
	e.partner_present = true;	/* a device below, link down */
	KUNIT_EXPECT_EQ(test, (int)ps_pcie_verdict(&e), V_DOWN);
	/*
	 * A Thunderbolt 3 bridge's downstream port with nothing below (Dell
	 * Precision 3520 of the corpus, 05:00.0): LnkSta 2.5GT/s x4, its own
	 * capability, no DLActive reporting. An empty slot, not an ok link.
	 */
	e.faces_down = true;
	e.partner_present = false;
	e.cap_width = 4;
	e.sta_width = 4;
	KUNIT_EXPECT_EQ(test, (int)ps_pcie_verdict(&e), V_NONE);
	e.partner_present = true;	/* the NHI below, at 2.5GT/s x4 */
	e.partner_speed = 1;
	e.partner_width = 4;
	KUNIT_EXPECT_EQ(test, (int)ps_pcie_verdict(&e), V_OK);
}

/*
 * A root port judged against the function below it, as the module does
 * (probestick_pcie_link_set_below): QEMU's registers of a pcie-root-port
 * x-speed=8,x-width=4 with an e1000e below.
 */
static void link_set_below_port_limited(struct kunit *test)
{
	struct probestick_pcie_link link = {};

	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_ROOT_PORT) | EXP_FLAGS_SLOT,
				    LNKCAP_QEMU_ROOT_PORT_GEN3_X4, LNKSTA_GEN1_X1 | 0x2000,
				    LNKCAP2_UP_TO_8GT);
	probestick_pcie_link_judge(&link);
	/* alone, the port is below its own capability and cannot say why */
	KUNIT_EXPECT_EQ(test, (int)link.verdict, V_NONE);
	probestick_pcie_link_set_below(&link, true, LNKCAP_QEMU_GEN1_X1);
	KUNIT_EXPECT_EQ(test, (int)link.verdict, V_LIMITED);
	KUNIT_EXPECT_TRUE(test, link.flags & PROBESTICK_LINK_PARTNER_BELOW);
	KUNIT_EXPECT_EQ(test, link.partner_cap_speed, (u8)PROBESTICK_SPEED_2_5GT);
	KUNIT_EXPECT_EQ(test, link.partner_cap_width, 1);
	KUNIT_EXPECT_EQ(test, link.lost_kbps, 0U);
	/* a Gen3 x4 device below that trained at Gen1 x1: degraded, 3.69 GB/s lost */
	probestick_pcie_link_set_below(&link, true, LNKCAP_GEN3_X4_ROOT_PORT);
	KUNIT_EXPECT_EQ(test, (int)link.verdict, V_DEGRADED);
	KUNIT_EXPECT_TRUE(test, link.flags & F_DOWN);
	KUNIT_EXPECT_EQ(test, link.lost_kbps, L3 * 4 - L1);
	/* conventional PCI below a PCIe-to-PCI bridge: present, no link to judge by */
	probestick_pcie_link_set_below(&link, false, 0);
	KUNIT_EXPECT_EQ(test, (int)link.verdict, V_NONE);
	KUNIT_EXPECT_TRUE(test, link.flags & PROBESTICK_LINK_PRESENT_BELOW);
	KUNIT_EXPECT_FALSE(test, link.flags & PROBESTICK_LINK_PARTNER);
}

/*
 * An empty slot: QEMU's pcie-root-port with nothing below shows its own
 * capability in LnkSta (16 GT/s x32) with DLActive clear; a port that
 * reports DLActive and has it clear has no data link, so no verdict. With
 * a device below, the same registers are a link that is down.
 */
static void link_port_empty_slot_none(struct kunit *test)
{
	struct probestick_pcie_link link = {};

	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_ROOT_PORT),
				    LNKCAP_QEMU_ROOT_PORT, 0x0204, LNKCAP2_UP_TO_16GT);
	probestick_pcie_link_judge(&link);
	KUNIT_EXPECT_EQ(test, (int)link.verdict, V_NONE);
	/*
	 * QEMU's x-speed=8,x-width=4 port with a Gen1 x1 device present at
	 * power-on: trained at Gen1 x1, DLActive never set. A function
	 * answers below, so the speeds decide: limited by the device.
	 */
	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_ROOT_PORT),
				    LNKCAP_QEMU_ROOT_PORT, LNKSTA_GEN1_X1, LNKCAP2_UP_TO_16GT);
	probestick_pcie_link_set_below(&link, true, LNKCAP_QEMU_GEN1_X1);
	KUNIT_EXPECT_EQ(test, (int)link.verdict, V_LIMITED);
	/* the same port with DLActive set: trained at its best, alone */
	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_ROOT_PORT),
				    LNKCAP_QEMU_ROOT_PORT, 0x2204, LNKCAP2_UP_TO_16GT);
	probestick_pcie_link_judge(&link);
	KUNIT_EXPECT_EQ(test, (int)link.verdict, V_OK);
	probestick_pcie_link_decode(&link, EXP_FLAGS(PCI_EXP_TYPE_ROOT_PORT),
				    LNKCAP_QEMU_ROOT_PORT, LNKSTA_LINK_DOWN, LNKCAP2_UP_TO_16GT);
	probestick_pcie_link_judge(&link);
	KUNIT_EXPECT_EQ(test, (int)link.verdict, V_NONE);
}

/* ---------------------------------------------------- register fields -- */

struct field_case {
	const char *name;
	u32 lnkcap;
	u16 lnkctl, lnksta, lnkctl2, lnksta2;
	u32 lnkcap2;
	const char *aspm_cap, *aspm_on;
	u8 target;
	bool dllla, lbms, labs, bw_notify, dll_report;
	u8 speeds;
};

static void field_case_desc(const struct field_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

/*
 * lspci -vv of the same functions: QEMU's root port x-speed=8,x-width=4
 * ("LnkCap: Speed 8GT/s, Width x4, ASPM L0s ... LnkCtl: ASPM Disabled ...
 * LnkCtl2: Target Link Speed: 8GT/s ... LnkSta2: Current De-emphasis
 * Level: -6dB"); a desktop NVMe with ASPM L1 enabled and equalization
 * done; a port that saw its bandwidth change (LBMS, LABS set).
 */
static const struct field_case field_cases[] = {
	{ "QEMU root port Gen3 x4", LNKCAP_QEMU_ROOT_PORT_GEN3_X4, 0x0000, 0x2011, 0x0003,
	  0x0000, LNKCAP2_UP_TO_8GT, "L0s", "", 3, true, false, false, true, true, 0x07 },
	{ "QEMU e1000e", LNKCAP_QEMU_GEN1_X1, 0x0000, LNKSTA_GEN1_X1, 0, 0, 0,
	  "L0s", "", 0, false, false, false, false, false, 0 },
	{ "NVMe Gen4 x4, L1 on, EQ complete", LNKCAP_NVME_GEN4_X4, 0x0142, LNKSTA_GEN4_X4_SLOTCLK,
	  0x0004, 0x001e, LNKCAP2_UP_TO_16GT, "L1", "L1", 4, false, false, false, false, false,
	  0x0f },
	{ "port after a bandwidth change", LNKCAP_GEN3_X16_ROOT_PORT, 0x0003, 0xf103, 0x0003,
	  0x0001, LNKCAP2_UP_TO_8GT, "L0s L1", "L0s L1", 3, true, true, true, true, true, 0x07 },
};

KUNIT_ARRAY_PARAM(field, field_cases, field_case_desc);

static void fields_decode_real_registers(struct kunit *test)
{
	const struct field_case *c = test->param_value;

	KUNIT_EXPECT_STREQ(test, ps_pcie_aspm_name(PS_LNKCAP_ASPM(c->lnkcap)), c->aspm_cap);
	KUNIT_EXPECT_STREQ(test, ps_pcie_aspm_name(PS_LNKCTL_ASPM(c->lnkctl)), c->aspm_on);
	KUNIT_EXPECT_EQ(test, PS_LNKCTL2_TARGET(c->lnkctl2), (u32)c->target);
	KUNIT_EXPECT_EQ(test, !!(c->lnksta & PS_LNKSTA_DLLLA), c->dllla);
	KUNIT_EXPECT_EQ(test, !!(c->lnksta & PS_LNKSTA_LBMS), c->lbms);
	KUNIT_EXPECT_EQ(test, !!(c->lnksta & PS_LNKSTA_LABS), c->labs);
	KUNIT_EXPECT_EQ(test, !!(c->lnkcap & PS_LNKCAP_BW_NOTIFY), c->bw_notify);
	KUNIT_EXPECT_EQ(test, !!(c->lnkcap & PS_LNKCAP_DLLLA_REPORT), c->dll_report);
	KUNIT_EXPECT_EQ(test, PS_LNKCAP2_SPEEDS(c->lnkcap2), (u32)c->speeds);
	KUNIT_EXPECT_EQ(test, PS_LNKSTA_SPEED(c->lnksta), (u32)probestick_pcie_lnksta_speed(c->lnksta));
	KUNIT_EXPECT_EQ(test, PS_LNKCAP_WIDTH(c->lnkcap), (u32)probestick_pcie_lnkcap_width(c->lnkcap));
}

static struct kunit_case probestick_pcie_link_ends_cases[] = {
	KUNIT_CASE_PARAM(corpus_link_both_ends, corpus_link_gen_params),
	KUNIT_CASE_PARAM(link_verdict_each_end, link_verdict_gen_params),
	KUNIT_CASE(link_verdict_no_partner_own_view),
	KUNIT_CASE(link_set_below_port_limited),
	KUNIT_CASE(link_port_empty_slot_none),
	KUNIT_CASE_PARAM(fields_decode_real_registers, field_gen_params),
	{}
};

static struct kunit_suite probestick_pcie_link_ends_suite = {
	.name = "probestick_pcie_link_ends",
	.test_cases = probestick_pcie_link_ends_cases,
};

kunit_test_suites(&probestick_pcie_decode_suite, &probestick_pcie_link_suite,
		  &probestick_pcie_verdict_suite, &probestick_pcie_link_ends_suite);

MODULE_LICENSE("GPL");
