// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for pcie_decode.c, fed with register values as real hardware
 * (and QEMU) report them; each value's fields are spelled out beside it.
 */
#include <kunit/test.h>
#include <linux/pci_regs.h>
#include <linux/string.h>

#include "pcie_decode.h"

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

	KUNIT_EXPECT_EQ(test, link.flags, c->flags);
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

kunit_test_suites(&probestick_pcie_decode_suite, &probestick_pcie_link_suite);

MODULE_LICENSE("GPL");
