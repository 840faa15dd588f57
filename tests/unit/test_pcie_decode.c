/* test_pcie_decode.c - PCIe decoders: sysfs link texts, config space capability
 * walk, LnkCap/LnkSta/LnkCap2 fields, the link verdict, the Device Serial
 * Number, module table entries. */
#include "check.h"
#include "decode/decode.h"
#include "hw/inventory.h"
#include "hw/readers.h"
#include "probestick.h"

#include "../../kmod/pcie_verdict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

static void test_sysfs_speed(void)
{
	static const struct {
		const char *text;
		int speed;
	} t[] = {
	    {"2.5 GT/s PCIe", 1},
	    {"5.0 GT/s PCIe", 2},
	    {"8.0 GT/s PCIe", 3},
	    {"16.0 GT/s PCIe", 4},
	    {"32.0 GT/s PCIe", 5},
	    {"64.0 GT/s PCIe", 6},
	    {"2.5 GT/s", 1}, /* 4.x kernels */
	    {"5 GT/s", 2},
	    {"8 GT/s", 3},
	    {"Unknown", 0},
	    {"Unknown speed", 0},
	    {"", 0},
	    {"fast", 0},
	    {"8.0", 0},
	    {"3.0 GT/s", 0},
	    {"8.0 Gbps", 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK_INT(ps_pcie_parse_sysfs_speed(t[i].text), t[i].speed);
	CHECK_INT(ps_pcie_parse_sysfs_speed(NULL), 0);
}

static void test_sysfs_width(void)
{
	CHECK_INT(ps_pcie_parse_sysfs_width("4"), 4);
	CHECK_INT(ps_pcie_parse_sysfs_width("16"), 16);
	CHECK_INT(ps_pcie_parse_sysfs_width("x8"), 8);
	CHECK_INT(ps_pcie_parse_sysfs_width("0"), 0);
	CHECK_INT(ps_pcie_parse_sysfs_width("255"), -1);
	CHECK_INT(ps_pcie_parse_sysfs_width("wide"), -1);
	CHECK_INT(ps_pcie_parse_sysfs_width("4 lanes"), -1);
	CHECK_INT(ps_pcie_parse_sysfs_width("-4"), -1);
	CHECK_INT(ps_pcie_parse_sysfs_width(""), -1);
	CHECK_INT(ps_pcie_parse_sysfs_width(NULL), -1);
}

static void test_port_types(void)
{
	CHECK_STR(ps_pcie_port_type_name(0), "endpoint");
	CHECK_STR(ps_pcie_port_type_name(4), "root_port");
	CHECK_STR(ps_pcie_port_type_name(7), "pcie_to_pci_bridge");
	CHECK_STR(ps_pcie_port_type_name(10), "rc_event_collector");
	CHECK(ps_pcie_port_type_name(2) == NULL);
	CHECK(ps_pcie_port_type_name(11) == NULL);
	CHECK(ps_pcie_port_type_name(-1) == NULL);
	CHECK(ps_pcie_port_type_has_link(0));
	CHECK(!ps_pcie_port_type_has_link(9));
	CHECK(!ps_pcie_port_type_has_link(3));
	CHECK(ps_pcie_port_faces_down(4) && ps_pcie_port_faces_down(6));
	CHECK(!ps_pcie_port_faces_down(5) && !ps_pcie_port_faces_down(0));
}

/* Registers as lspci -vvv showed them on real machines. */
static void test_link_regs(void)
{
	static const struct {
		uint32_t lnkcap;
		uint16_t lnksta;
		uint32_t lnkcap2;
		int cap_speed, cap_width, sta_speed, sta_width;
		uint32_t speeds;
	} t[] = {
	    /* Samsung 970 EVO Plus: Speed 8GT/s, Width x4; trained x2 */
	    {0x00477843, 0x1023, 0x0000000e, 3, 4, 3, 2, 0x7},
	    /* 82574L: 2.5GT/s x1, capability version 1 (no LnkCap2) */
	    {0x00036c11, 0x1011, 0, 1, 1, 1, 1, 0x1},
	    /* Gen4 x16 GPU in a Gen3 slot: LnkCap2 vector 2.5-16 */
	    {0x0070d104, 0x7103, 0x0000001e, 4, 16, 3, 16, 0xf},
	    /* root port with nothing attached: width 0 */
	    {0x01357c13, 0x0001, 0x0000000e, 3, 1, 1, 0, 0x7},
	    /* function in D3cold: LnkSta reads all ones */
	    {0x00477843, 0xffff, 0x0000000e, 3, 4, 0, -1, 0x7},
	    /* garbage speed codes */
	    {0x0000004f, 0x004f, 0, 0, 4, 0, 4, 0},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ps_pcie_link l;

		ps_pcie_link_from_regs(t[i].lnkcap, t[i].lnksta, t[i].lnkcap2, &l);
		CHECK_INT(l.cap_speed, t[i].cap_speed);
		CHECK_INT(l.cap_width, t[i].cap_width);
		CHECK_INT(l.sta_speed, t[i].sta_speed);
		CHECK_INT(l.sta_width, t[i].sta_width);
		CHECK_INT(l.speeds, t[i].speeds);
	}
	CHECK(ps_pcie_speed_gts(1) == 2.5 && ps_pcie_speed_gts(4) == 16.0);
	CHECK(ps_pcie_speed_gts(0) == 0.0 && ps_pcie_speed_gts(7) == 0.0);
	CHECK_INT(ps_pcie_speeds_upto(3), 0x7);
	CHECK_INT(ps_pcie_speeds_upto(0), 0);
}

/* A function of a hand-built table: address, port type, caps, trained link. */
static void fn_set(struct ps_pcie_dev *d, const char *addr, const char *up, int type, int cs,
		   int cw, int ss, int sw)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->fn.address, sizeof(d->fn.address), "%s", addr);
	snprintf(d->fn.upstream, sizeof(d->fn.upstream), "%s", up);
	d->fn.is_pcie = type >= 0;
	d->fn.port_type = type;
	d->fn.has_link = type >= 0 && ps_pcie_port_type_has_link(type);
	d->fn.class = type == 4 ? 0x060400 : 0x010802;
	d->fn.link.cap_speed = cs;
	d->fn.link.cap_width = cw;
	d->fn.link.sta_speed = ss;
	d->fn.link.sta_width = sw;
	d->up_index = -1;
}

/*
 * The userland side of the one verdict (kmod/pcie_verdict.h): which end is
 * the partner (the port above an endpoint, the function below a port), an
 * empty slot, a link that is down, the bandwidth a degraded link loses.
 */
static void test_verdict(void)
{
	struct ps_pcie_dev devs[7];
	struct ps_inventory inv = {.pcie = devs, .n_pcie = 7};

	/* 00:01.0 Gen4 x4 root port with a Gen4 x4 NVMe trained Gen3 x4: degraded */
	fn_set(&devs[0], "0000:00:01.0", "", 4, 4, 4, 3, 4);
	fn_set(&devs[1], "0000:01:00.0", "0000:00:01.0", 0, 4, 4, 3, 4);
	devs[1].up_index = 0;
	/* 00:1c.0 Gen3 x4 root port, a Gen1 x1 NIC below at full speed: limited / ok */
	fn_set(&devs[2], "0000:00:1c.0", "", 4, 3, 4, 1, 1);
	fn_set(&devs[3], "0000:02:00.0", "0000:00:1c.0", 0, 1, 1, 1, 1);
	devs[3].up_index = 2;
	/* 00:1c.4 an empty slot: the link is down, nothing to train with */
	fn_set(&devs[4], "0000:00:1c.4", "", 4, 3, 1, 1, 0);
	/* 00:1d.0 a port whose device is there but whose link is down */
	fn_set(&devs[5], "0000:00:1d.0", "", 4, 3, 1, 1, 0);
	fn_set(&devs[6], "0000:05:00.0", "0000:00:1d.0", -1, 0, -1, 0, -1); /* conventional */
	devs[6].up_index = 5;
	for (size_t i = 0; i < inv.n_pcie; i++)
		ps_pcie_judge(&inv, i);
	CHECK_INT(devs[1].verdict, PS_LINK_DEGRADED);
	/* 4 lanes of 16 GT/s less 4 of 8 GT/s, 128b/130b: 7.877 - 3.938 GB/s */
	CHECK(fabs(devs[1].lost_gbps - 3.93846) < 1e-4);
	CHECK_INT(devs[0].verdict, PS_LINK_DEGRADED); /* both ends say so */
	CHECK_INT(devs[2].verdict, PS_LINK_LIMITED);
	CHECK(isnan(devs[2].lost_gbps));
	/* the same link from the NIC: at its own best, ok (docs/report.md) */
	CHECK_INT(devs[3].verdict, PS_LINK_OK);
	CHECK_INT(devs[4].verdict, PS_LINK_NONE);
	CHECK_INT(devs[5].verdict, PS_LINK_DOWN);
	CHECK_INT(devs[6].verdict, PS_LINK_NONE);
	CHECK_STR(ps_link_verdict_name(devs[1].verdict), "degraded");
	CHECK_STR(ps_link_verdict_name(devs[2].verdict), "limited");
	CHECK_STR(ps_link_verdict_name(devs[5].verdict), "down");
	CHECK(ps_link_verdict_name(PS_LINK_NONE) == NULL);

	/* still training: not judged until it settles */
	devs[1].fn.link.training = true;
	ps_pcie_judge(&inv, 1);
	CHECK_INT(devs[1].verdict, PS_LINK_NONE);
	/* unknown own capability (sysfs "Unknown"): no verdict, not a guess */
	devs[1].fn.link.training = false;
	devs[1].fn.link.cap_speed = 0;
	ps_pcie_judge(&inv, 1);
	CHECK_INT(devs[1].verdict, PS_LINK_NONE);

	/* the same header in userland: Gen5 x16 card at Gen5 x8 in a Gen5 x16 slot */
	{
		struct ps_pcie_link_ends e = {.has_link = true,
					      .partner_present = true,
					      .cap_speed = 5,
					      .cap_width = 16,
					      .partner_speed = 5,
					      .partner_width = 16,
					      .sta_speed = 5,
					      .sta_width = 8};

		CHECK_INT(ps_pcie_verdict(&e), PS_PCIE_VERDICT_DEGRADED);
		CHECK_INT(ps_pcie_lost_kbps(&e), 3938461U * 8);
		e.sta_width = 16;
		CHECK_INT(ps_pcie_verdict(&e), PS_PCIE_VERDICT_OK);
		CHECK_INT(ps_pcie_lost_kbps(&e), 0);
	}
}

/* Extended capabilities from 0x100: AER, then the Device Serial Number. */
static void test_dsn(void)
{
	static uint8_t c[4096];
	uint64_t dsn;

	memset(c, 0, sizeof(c));
	/* AER (ID 1, version 2) at 0x100, next 0x140; DSN (ID 3, version 1) at 0x140 */
	c[0x100] = 0x01, c[0x102] = 0x02, c[0x103] = 0x14;
	c[0x140] = 0x03, c[0x142] = 0x01;
	/* Intel i210's DSN as lspci shows it: a0-36-9f-ff-ff-12-34-56 */
	c[0x144] = 0x56, c[0x145] = 0x34, c[0x146] = 0x12, c[0x147] = 0xff;
	c[0x148] = 0xff, c[0x149] = 0x9f, c[0x14a] = 0x36, c[0x14b] = 0xa0;
	CHECK_INT(ps_pcie_decode_dsn(c, sizeof(c), &dsn), 0);
	CHECK(dsn == 0xa0369fffff123456ULL);
	/* 256 bytes (no ECAM, or a conventional device): no extended space */
	CHECK_INT(ps_pcie_decode_dsn(c, 256, &dsn), -ENODATA);
	CHECK(dsn == 0);
	/* cut inside the DSN capability */
	CHECK_INT(ps_pcie_decode_dsn(c, 0x148, &dsn), -ENODATA);
	/* no DSN in the list */
	c[0x140] = 0x0b;
	CHECK_INT(ps_pcie_decode_dsn(c, sizeof(c), &dsn), -ENOENT);
	/* an empty extended space, or one that reads all ones */
	memset(c + 0x100, 0, 8);
	CHECK_INT(ps_pcie_decode_dsn(c, sizeof(c), &dsn), -ENOENT);
	memset(c + 0x100, 0xff, 4);
	CHECK_INT(ps_pcie_decode_dsn(c, sizeof(c), &dsn), -ENOENT);
	/* a next pointer into the legacy space, and one to itself */
	memset(c, 0, sizeof(c));
	c[0x100] = 0x01, c[0x103] = 0x04; /* next 0x040 */
	CHECK_INT(ps_pcie_decode_dsn(c, sizeof(c), &dsn), -EINVAL);
	c[0x103] = 0x10; /* next 0x100 */
	CHECK_INT(ps_pcie_decode_dsn(c, sizeof(c), &dsn), -EINVAL);
}

static void put16(uint8_t *c, int off, uint16_t v)
{
	c[off] = v & 0xff;
	c[off + 1] = v >> 8;
}

static void put32(uint8_t *c, int off, uint32_t v)
{
	put16(c, off, v & 0xffff);
	put16(c, off + 2, v >> 16);
}

/* Endpoint config: PM at 0x40, MSI at 0x50, PCIe v2 at 0x70, MSI-X at 0xb0. */
static void nvme_config(uint8_t *c)
{
	memset(c, 0, 256);
	put16(c, 0, 0x144d);
	put16(c, 2, 0xa808);
	put16(c, 6, 0x0010);
	c[0x34] = 0x40;
	c[0x40] = 0x01;
	c[0x41] = 0x50;
	c[0x50] = 0x05;
	c[0x51] = 0x70;
	c[0x70] = 0x10;
	c[0x71] = 0xb0;
	put16(c, 0x72, 0x0002); /* version 2, endpoint */
	put32(c, 0x7c, 0x00477843);
	put16(c, 0x82, 0x1023);
	put32(c, 0x9c, 0x0000000e);
	c[0xb0] = 0x11;
}

static void test_config(void)
{
	uint8_t c[256];
	struct ps_pcie_config cfg;

	nvme_config(c);
	CHECK_INT(ps_pcie_decode_config(c, sizeof(c), &cfg), 0);
	CHECK(cfg.is_pcie);
	CHECK_INT(cfg.port_type, 0);
	CHECK_INT(cfg.cap_version, 2);
	CHECK_INT(cfg.lnkcap, 0x00477843);
	CHECK_INT(cfg.lnksta, 0x1023);
	CHECK_INT(cfg.lnkcap2, 0xe);

	/* what a non-root reader gets: 64 bytes, the list starts beyond */
	CHECK_INT(ps_pcie_decode_config(c, 64, &cfg), -ENODATA);
	CHECK(!cfg.is_pcie);
	/* cut inside the PCIe capability */
	CHECK_INT(ps_pcie_decode_config(c, 0x80, &cfg), -ENODATA);
	CHECK_INT(ps_pcie_decode_config(c, 0x20, &cfg), -ENODATA);

	/* version 1 capability: no LnkCap2 read even when bytes are there */
	put16(c, 0x72, 0x0001);
	CHECK_INT(ps_pcie_decode_config(c, sizeof(c), &cfg), 0);
	CHECK_INT(cfg.lnkcap2, 0);

	/* root port type 4 */
	put16(c, 0x72, 0x0042);
	CHECK_INT(ps_pcie_decode_config(c, sizeof(c), &cfg), 0);
	CHECK_INT(cfg.port_type, 4);

	/* no capability list at all: certain, conventional */
	nvme_config(c);
	put16(c, 6, 0x0000);
	CHECK_INT(ps_pcie_decode_config(c, 64, &cfg), 0);
	CHECK(!cfg.is_pcie);
	CHECK_INT(cfg.port_type, -1);

	/* capabilities but no PCIe one */
	nvme_config(c);
	c[0x51] = 0x00;
	CHECK_INT(ps_pcie_decode_config(c, sizeof(c), &cfg), 0);
	CHECK(!cfg.is_pcie);

	/* a list that points back at itself */
	nvme_config(c);
	c[0x51] = 0x40;
	CHECK_INT(ps_pcie_decode_config(c, sizeof(c), &cfg), -EINVAL);

	/* pointer into the header */
	nvme_config(c);
	c[0x34] = 0x20;
	CHECK_INT(ps_pcie_decode_config(c, sizeof(c), &cfg), -EINVAL);

	/* absent device */
	memset(c, 0xff, sizeof(c));
	CHECK_INT(ps_pcie_decode_config(c, sizeof(c), &cfg), -EINVAL);

	/* CardBus bridge keeps its pointer at 0x14 */
	nvme_config(c);
	c[0x0e] = 0x02;
	c[0x34] = 0x00;
	c[0x14] = 0x70;
	CHECK_INT(ps_pcie_decode_config(c, sizeof(c), &cfg), 0);
	CHECK(cfg.is_pcie);

	/* low two bits of a pointer are reserved */
	nvme_config(c);
	c[0x34] = 0x43;
	CHECK_INT(ps_pcie_decode_config(c, sizeof(c), &cfg), 0);
	CHECK(cfg.is_pcie);
}

static void test_module_entry(void)
{
	struct probestick_pcie_link m;
	struct ps_pcie_fn fn;

	memset(&m, 0, sizeof(m));
	m.domain = 0;
	m.bus = 0x00;
	m.devfn = 0xe4; /* 1c.4 */
	m.vendor = 0x8086;
	m.device = 0xa294;
	m.class = 0x060400;
	m.flags = PROBESTICK_LINK_IS_PCIE | PROBESTICK_LINK_HAS_LINK;
	m.port_type = 4;
	m.cap_speed = PROBESTICK_SPEED_8GT;
	m.cap_width = 1;
	m.sta_speed = PROBESTICK_SPEED_2_5GT;
	m.sta_width = 1;
	m.cap2_speeds = 0x7;
	ps_pcie_from_module(&m, &fn);
	CHECK_STR(fn.address, "0000:00:1c.4");
	CHECK_INT(fn.vendor, 0x8086);
	CHECK_INT(fn.class, 0x060400);
	CHECK(fn.is_pcie && fn.has_link);
	CHECK_INT(fn.port_type, 4);
	CHECK_INT(fn.link.cap_speed, 3);
	CHECK_INT(fn.link.sta_speed, 1);
	CHECK_INT(fn.link.speeds, 0x7);
	CHECK(!fn.link.training);
	CHECK_STR(fn.source, "module");
	m.flags |= PROBESTICK_LINK_TRAINING;
	ps_pcie_from_module(&m, &fn);
	CHECK(fn.link.training); /* not settled: the verdict waits */
	m.flags &= ~PROBESTICK_LINK_TRAINING;

	/* domain 0x10000-style and an RCiEP without link; cap2 empty */
	m.domain = 0xffff;
	m.bus = 0xab;
	m.devfn = 0x01;
	m.flags = PROBESTICK_LINK_IS_PCIE;
	m.port_type = 9;
	m.cap2_speeds = 0;
	m.cap_speed = 9; /* out of range */
	ps_pcie_from_module(&m, &fn);
	CHECK_STR(fn.address, "ffff:ab:00.1");
	CHECK(fn.is_pcie && !fn.has_link);
	CHECK_INT(fn.link.cap_speed, 0);
	CHECK_INT(fn.link.speeds, 0);

	/* conventional PCI from the module */
	m.flags = 0;
	ps_pcie_from_module(&m, &fn);
	CHECK(!fn.is_pcie && !fn.has_link);
	CHECK_INT(fn.port_type, -1);
}

/* A port's own Link registers as root reads them: LnkSta and LnkCtl2. */
static void port_regs(struct ps_pcie_dev *d, uint16_t lnksta, uint16_t lnkctl2)
{
	d->fn.regs.known = true;
	d->fn.regs.lnksta = lnksta;
	d->fn.regs.lnkctl2 = lnkctl2;
}

/*
 * Idle against degraded, from real machines (tests/realworld/pci/corpus):
 * a graphics card idles at 2.5 GT/s at full width (HP Z440, GTX 1050 below
 * a Gen3 x16 root port, LnkSta 2.5GT/s x16, ABWMgmt+, LnkCtl2 target
 * 8GT/s); an NVMe drive at a lower speed with nothing to explain it is
 * degraded; a port whose Target Link Speed is set lower is limited; a card
 * with lanes missing is degraded and loses only the lanes.
 */
static void test_verdict_idle(void)
{
	struct ps_pcie_dev devs[10];
	struct ps_inventory inv = {.pcie = devs, .n_pcie = 10};

	/* 00:02.0 Gen3 x16 port at 2.5 GT/s x16, LABS, target 8 GT/s; GPU + audio */
	fn_set(&devs[0], "0000:00:02.0", "", 4, 3, 16, 1, 16);
	port_regs(&devs[0], 0x1000 | 0x8000 | 0x2000 | 0x0101, 3);
	fn_set(&devs[1], "0000:02:00.0", "0000:00:02.0", 1, 3, 16, 1, 16);
	devs[1].fn.class = 0x030000;
	devs[1].up_index = 0;
	fn_set(&devs[2], "0000:02:00.1", "0000:00:02.0", 0, 3, 16, 1, 16);
	devs[2].fn.class = 0x040300;
	devs[2].up_index = 0;
	/* 00:1d.0 Gen3 x4 port, a Gen3 x4 NVMe at 2.5 GT/s x4, no LABS: degraded */
	fn_set(&devs[3], "0000:00:1d.0", "", 4, 3, 4, 1, 4);
	port_regs(&devs[3], 0x2000 | 0x0041, 3);
	fn_set(&devs[4], "0000:03:00.0", "0000:00:1d.0", 0, 3, 4, 1, 4);
	devs[4].up_index = 3;
	/* 00:1c.0 Gen3 x1 port, target 5 GT/s, a Gen3 x1 device at 5 GT/s: limited */
	fn_set(&devs[5], "0000:00:1c.0", "", 4, 3, 1, 2, 1);
	port_regs(&devs[5], 0x2000 | 0x0012, 2);
	fn_set(&devs[6], "0000:04:00.0", "0000:00:1c.0", 0, 3, 1, 2, 1);
	devs[6].up_index = 5;
	/* 00:01.0 Gen3 x16 port, a Gen3 x16 card at 2.5 GT/s x8: lanes missing */
	fn_set(&devs[7], "0000:00:01.0", "", 4, 3, 16, 1, 8);
	port_regs(&devs[7], 0x2000 | 0x0081, 3);
	fn_set(&devs[8], "0000:01:00.0", "0000:00:01.0", 1, 3, 16, 1, 8);
	devs[8].fn.class = 0x030000;
	devs[8].up_index = 7;
	/* the same card without root: sysfs has no LnkSta/LnkCtl2, the class decides */
	fn_set(&devs[9], "0000:05:00.0", "", 1, 3, 16, 1, 16);
	devs[9].fn.class = 0x030200;
	for (size_t i = 0; i < inv.n_pcie; i++)
		devs[i].fn.up_regs =
		    devs[i].up_index >= 0 ? devs[devs[i].up_index].fn.regs : devs[i].fn.up_regs;
	for (size_t i = 0; i < inv.n_pcie; i++)
		ps_pcie_judge(&inv, i);
	CHECK_INT(devs[0].verdict, PS_LINK_IDLE);
	CHECK_INT(devs[1].verdict, PS_LINK_IDLE);
	CHECK_INT(devs[2].verdict, PS_LINK_IDLE); /* the card's audio function shares its link */
	CHECK(isnan(devs[1].lost_gbps));
	CHECK_INT(devs[1].best_speed, 3);
	CHECK_STR(ps_link_verdict_name(devs[1].verdict), "idle");
	CHECK_INT(devs[3].verdict, PS_LINK_DEGRADED);
	CHECK_INT(devs[4].verdict, PS_LINK_DEGRADED);
	/* 4 lanes of 8 GT/s less 4 of 2.5 GT/s: 3.938 - 1.0 GB/s */
	CHECK(fabs(devs[4].lost_gbps - 2.93846) < 1e-4);
	CHECK_INT(devs[5].verdict, PS_LINK_LIMITED); /* by its Target Link Speed */
	CHECK_INT(devs[5].best_speed, 2);
	CHECK_INT(devs[6].verdict, PS_LINK_LIMITED);
	CHECK_INT(devs[7].verdict, PS_LINK_DEGRADED);
	CHECK_INT(devs[8].verdict, PS_LINK_DEGRADED);
	/* only the 8 missing lanes at 8 GT/s count, not the idle speed: 7.877 GB/s */
	CHECK(fabs(devs[8].lost_gbps - 7.87692) < 1e-4);
	/* no port above, no partner: at its own capability it would be ok, else no verdict */
	CHECK_INT(devs[9].verdict, PS_LINK_NONE);
}

int main(void)
{
	test_sysfs_speed();
	test_sysfs_width();
	test_port_types();
	test_link_regs();
	test_verdict();
	test_verdict_idle();
	test_dsn();
	test_config();
	test_module_entry();
	return check_done("test_pcie_decode");
}
