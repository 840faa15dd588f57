/* test_pcie_decode.c - PCIe decoders: sysfs link texts, config space capability
 * walk, LnkCap/LnkSta/LnkCap2 fields, the downgrade rule, module table entries. */
#include "check.h"
#include "probes/decode.h"
#include "probestick.h"

#include <errno.h>
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

static void test_downgraded(void)
{
	static const struct {
		struct ps_pcie_link link;
		int partner_speed, partner_width;
		bool downgraded;
	} t[] = {
	    {{3, 4, 3, 2, 7}, 3, 4, true},	/* NVMe x4 at x2 */
	    {{3, 4, 3, 4, 7}, 3, 4, false},	/* as designed */
	    {{3, 4, 3, 2, 7}, 0, 0, true},	/* no partner known: own cap */
	    {{4, 16, 3, 16, 15}, 3, 16, false}, /* Gen4 card in a Gen3 slot: fine */
	    {{4, 16, 3, 16, 15}, 4, 16, true},	/* Gen4 both ends, trained Gen3 */
	    {{3, 1, 1, 1, 7}, 1, 1, false},	/* Gen3 root port, Gen1 NIC */
	    {{3, 16, 3, 8, 7}, 3, 8, false},	/* x16 slot wired x8 */
	    {{3, 4, 1, 0, 7}, 0, 0, false},	/* link down: not a downgrade */
	    {{3, 4, 0, 4, 7}, 0, 0, false},	/* speed unreadable */
	    {{0, -1, 2, 1, 0}, 3, 4, true},	/* own cap unknown: partner rules */
	    {{0, -1, 1, 1, 0}, 0, 0, false},	/* nothing known */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK_INT(
		    ps_pcie_link_downgraded(&t[i].link, t[i].partner_speed, t[i].partner_width),
		    t[i].downgraded);
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
	CHECK_STR(fn.source, "module");

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

int main(void)
{
	test_sysfs_speed();
	test_sysfs_width();
	test_port_types();
	test_link_regs();
	test_downgraded();
	test_config();
	test_module_entry();
	return check_done("test_pcie_decode");
}
