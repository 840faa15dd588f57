/*
 * pcie.c - PCIe link decoding, pure: config space capability
 * walk, LnkCap/LnkSta/LnkCap2 fields, sysfs link texts, module table entries.
 */
#include "decode/decode.h"

#include "probestick.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CFG_STATUS	0x06
#define CFG_STATUS_CAPS 0x10
#define CFG_HEADER_TYPE 0x0e
#define CFG_CAP_PTR	0x34
#define CFG_CB_CAP_PTR	0x14 /* CardBus bridges keep it elsewhere */
#define CAP_ID_EXP	0x10
#define EXP_FLAGS	0x02
#define EXP_LNKCAP	0x0c
#define EXP_LNKCTL	0x10
#define EXP_LNKSTA	0x12
#define EXP_LNKSTA_LT	0x0800 /* Link Training */
#define EXP_LNKCAP2	0x2c
#define EXP_LNKCTL2	0x30
#define EXP_LNKSTA2	0x32
#define EXP_V1_END	(EXP_LNKSTA + 2)
#define EXP_V2_END	(EXP_LNKCAP2 + 4)
#define MAX_CAPS	48 /* (256 - 64) / 4: more means a loop */
#define EXT_CAP_START	0x100
#define EXT_CAP_ID_DSN	0x0003
#define EXT_MAX_CAPS	960 /* (4096 - 256) / 4 */
#define PCIE_MAX_WIDTH	32

static const double speed_gts[PS_PCIE_SPEED_MAX + 1] = {0.0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};

double ps_pcie_speed_gts(int speed)
{
	if (speed < 1 || speed > PS_PCIE_SPEED_MAX)
		return 0.0;
	return speed_gts[speed];
}

int ps_pcie_parse_sysfs_speed(const char *s)
{
	char *end;
	double v;

	if (!s)
		return 0;
	/* "8.0 GT/s PCIe" (5.x and later), "8 GT/s" (older), "Unknown" */
	v = strtod(s, &end);
	if (end == s || strncmp(end, " GT/s", 5) != 0)
		return 0;
	for (int i = 1; i <= PS_PCIE_SPEED_MAX; i++)
		if (v == speed_gts[i])
			return i;
	return 0;
}

int ps_pcie_parse_sysfs_width(const char *s)
{
	char *end;
	long v;

	if (!s)
		return -1;
	if (*s == 'x')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v > PCIE_MAX_WIDTH)
		return -1; /* 255: conventional PCI, no link at all */
	return (int)v;
}

static const char *const port_types[] = {
    [0] = "endpoint",		[1] = "legacy_endpoint",	[4] = "root_port",
    [5] = "upstream_port",	[6] = "downstream_port",	[7] = "pcie_to_pci_bridge",
    [8] = "pci_to_pcie_bridge", [9] = "rc_integrated_endpoint", [10] = "rc_event_collector",
};

const char *ps_pcie_port_type_name(int type)
{
	if (type < 0 || (size_t)type >= sizeof(port_types) / sizeof(port_types[0]))
		return NULL;
	return port_types[type];
}

bool ps_pcie_port_type_has_link(int type)
{
	return ps_pcie_port_type_name(type) && type != 9 && type != 10;
}

bool ps_pcie_port_faces_down(int type)
{
	return type == 4 || type == 6 || type == 8;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int ps_pcie_decode_config(const uint8_t *cfg, size_t len, struct ps_pcie_config *out)
{
	unsigned int ptr, vendor;

	memset(out, 0, sizeof(*out));
	out->port_type = -1;
	if (len < CFG_CAP_PTR + 1)
		return -ENODATA;
	vendor = le16(cfg);
	if (vendor == 0xffff || vendor == 0)
		return -EINVAL;
	if (!(le16(cfg + CFG_STATUS) & CFG_STATUS_CAPS))
		return 0; /* no capability list: certainly conventional PCI */
	ptr = cfg[(cfg[CFG_HEADER_TYPE] & 0x7f) == 2 ? CFG_CB_CAP_PTR : CFG_CAP_PTR];
	for (int n = 0; n < MAX_CAPS; n++) {
		ptr &= 0xfc;
		if (ptr == 0)
			return 0;
		if (ptr < 0x40)
			return -EINVAL;
		if (ptr + 2 > len)
			return -ENODATA;
		if (cfg[ptr] == CAP_ID_EXP) {
			uint16_t flags;

			if (ptr + EXP_V1_END > len)
				return -ENODATA;
			flags = le16(cfg + ptr + EXP_FLAGS);
			out->cap_version = flags & 0xf;
			if (out->cap_version >= 2 && ptr + EXP_V2_END > len)
				return -ENODATA;
			out->is_pcie = true;
			out->port_type = (flags >> 4) & 0xf;
			out->lnkcap = le32(cfg + ptr + EXP_LNKCAP);
			out->lnkctl = le16(cfg + ptr + EXP_LNKCTL);
			out->lnksta = le16(cfg + ptr + EXP_LNKSTA);
			if (out->cap_version >= 2)
				out->lnkcap2 = le32(cfg + ptr + EXP_LNKCAP2);
			if (out->cap_version >= 2 && ptr + EXP_LNKSTA2 + 2 <= len) {
				out->lnkctl2 = le16(cfg + ptr + EXP_LNKCTL2);
				out->lnksta2 = le16(cfg + ptr + EXP_LNKSTA2);
			}
			return 0;
		}
		ptr = cfg[ptr + 1];
	}
	return -EINVAL;
}

int ps_pcie_decode_dsn(const uint8_t *cfg, size_t len, uint64_t *dsn)
{
	unsigned int ptr = EXT_CAP_START;

	*dsn = 0;
	if (len < EXT_CAP_START + 4)
		return -ENODATA;
	/* an extended header: ID 15:0, version 19:16, next 31:20 */
	for (int n = 0; n < EXT_MAX_CAPS; n++) {
		uint32_t hdr;

		if (ptr < EXT_CAP_START)
			return -EINVAL;
		if (ptr + 4 > len)
			return -ENODATA;
		hdr = le32(cfg + ptr);
		if (hdr == 0 || hdr == 0xffffffff)
			return -ENOENT; /* no extended capabilities at all */
		if ((hdr & 0xffff) == EXT_CAP_ID_DSN) {
			if (ptr + 12 > len)
				return -ENODATA;
			*dsn = (uint64_t)le32(cfg + ptr + 8) << 32 | le32(cfg + ptr + 4);
			return 0;
		}
		ptr = (hdr >> 20) & 0xffc;
		if (ptr == 0)
			return -ENOENT;
	}
	return -EINVAL;
}

uint32_t ps_pcie_speeds_upto(int cap_speed)
{
	if (cap_speed < 1 || cap_speed > PS_PCIE_SPEED_MAX)
		return 0;
	return (1U << cap_speed) - 1;
}

static int speed_code(unsigned int v)
{
	return v >= 1 && v <= PS_PCIE_SPEED_MAX ? (int)v : 0;
}

static int width_lanes(unsigned int v, bool zero_is_down)
{
	if (v > PCIE_MAX_WIDTH || (v == 0 && !zero_is_down))
		return -1;
	return (int)v;
}

void ps_pcie_link_from_regs(uint32_t lnkcap, uint16_t lnksta, uint32_t lnkcap2,
			    struct ps_pcie_link *out)
{
	out->cap_speed = speed_code(lnkcap & 0xf);
	out->cap_width = width_lanes((lnkcap >> 4) & 0x3f, false);
	out->training = false;
	if (lnksta == 0xffff) {
		/* all ones: the function did not answer (D3cold, surprise removal) */
		out->sta_speed = 0;
		out->sta_width = -1;
	} else {
		out->sta_speed = speed_code(lnksta & 0xf);
		out->sta_width = width_lanes((lnksta >> 4) & 0x3f, true);
		out->training = lnksta & EXP_LNKSTA_LT;
	}
	/* LnkCap2 bit 1 is 2.5 GT/s; pre-3.0 functions leave it zero */
	out->speeds = (lnkcap2 >> 1) & 0x7f;
	if (!out->speeds)
		out->speeds = ps_pcie_speeds_upto(out->cap_speed);
}

void ps_pcie_from_module(const struct probestick_pcie_link *m, struct ps_pcie_fn *fn)
{
	memset(fn, 0, sizeof(*fn));
	snprintf(fn->address, sizeof(fn->address), "%04x:%02x:%02x.%x", m->domain, m->bus,
		 m->devfn >> 3, m->devfn & 7);
	fn->vendor = m->vendor;
	fn->device = m->device;
	fn->class = m->class & 0xffffff;
	fn->ids_known = true;
	fn->is_pcie = m->flags & PROBESTICK_LINK_IS_PCIE;
	fn->port_type = fn->is_pcie ? m->port_type : -1;
	fn->has_link = fn->is_pcie && (m->flags & PROBESTICK_LINK_HAS_LINK);
	fn->link.cap_speed = speed_code(m->cap_speed);
	fn->link.cap_width = width_lanes(m->cap_width, false);
	fn->link.sta_speed = speed_code(m->sta_speed);
	fn->link.sta_width = width_lanes(m->sta_width, true);
	fn->link.speeds = m->cap2_speeds & 0x7f;
	if (!fn->link.speeds)
		fn->link.speeds = ps_pcie_speeds_upto(fn->link.cap_speed);
	fn->link.training = m->flags & PROBESTICK_LINK_TRAINING;
	if (fn->is_pcie) {
		fn->regs = (struct ps_pcie_regs){.known = true,
						 .lnkcap = m->lnkcap,
						 .lnkcap2 = m->lnkcap2,
						 .lnkctl = m->lnkctl,
						 .lnkctl2 = m->lnkctl2,
						 .lnksta = m->lnksta,
						 .lnksta2 = m->lnksta2};
		fn->judged = true;
		fn->verdict = m->verdict;
		fn->lost_kbps = m->lost_kbps;
	}
	if (m->flags & PROBESTICK_LINK_UP_REGS)
		fn->up_regs = (struct ps_pcie_regs){.known = true,
						    .lnkcap = m->up_lnkcap,
						    .lnkcap2 = m->up_lnkcap2,
						    .lnkctl = m->up_lnkctl,
						    .lnkctl2 = m->up_lnkctl2,
						    .lnksta = m->up_lnksta,
						    .lnksta2 = m->up_lnksta2};
	fn->source = "module";
}
