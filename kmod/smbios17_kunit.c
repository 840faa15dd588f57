// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for smbios17.h, the type 17 decoder shared by the module's
 * dmi_walk() table and the userland's sysfs fallback: raw structures as
 * firmwares write them, by spec version (DSP0134 2.1 to 3.3), with empty
 * slots, extended sizes and speeds, and strings that are missing.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "smbios17.h"

/* One structure in a buffer: the formatted area of len bytes, then strings. */
struct t17 {
	u8 len;
	u16 handle;
	u16 total_width, data_width;
	u16 size;
	u8 form_factor, type;
	u16 speed, conf_speed;
	u8 attributes;
	u32 ext_size, ext_speed, ext_conf_speed;
	u16 voltage;
	u8 s_loc, s_bank, s_man, s_ser, s_asset, s_part;
	const char *strings[6];	/* the string table, in order; NULL ends it */
};

static size_t t17_build(const struct t17 *t, u8 *b, size_t room)
{
	size_t pos, n;
	unsigned int i;

	memset(b, 0, room);
	b[0] = 17;
	b[1] = t->len;
	b[2] = t->handle & 0xff;
	b[3] = t->handle >> 8;
	b[4] = 0x00;		/* array handle 0x1000, as QEMU writes it */
	b[5] = 0x10;
	b[0x08] = t->total_width & 0xff;
	b[0x09] = t->total_width >> 8;
	b[0x0a] = t->data_width & 0xff;
	b[0x0b] = t->data_width >> 8;
	b[0x0c] = t->size & 0xff;
	b[0x0d] = t->size >> 8;
	b[0x0e] = t->form_factor;
	b[0x10] = t->s_loc;
	b[0x11] = t->s_bank;
	b[0x12] = t->type;
	b[0x13] = 0x80;		/* type detail: synchronous */
	if (t->len > 0x16) {
		b[0x15] = t->speed & 0xff;
		b[0x16] = t->speed >> 8;
	}
	if (t->len > 0x1a) {
		b[0x17] = t->s_man;
		b[0x18] = t->s_ser;
		b[0x19] = t->s_asset;
		b[0x1a] = t->s_part;
	}
	if (t->len > 0x1b)
		b[0x1b] = t->attributes;
	if (t->len >= 0x22) {
		memcpy(b + 0x1c, &t->ext_size, 4);	/* KUnit runs little-endian (UML x86) */
		b[0x20] = t->conf_speed & 0xff;
		b[0x21] = t->conf_speed >> 8;
	}
	if (t->len >= 0x28) {
		b[0x26] = t->voltage & 0xff;
		b[0x27] = t->voltage >> 8;
	}
	if (t->len >= 0x5c) {
		memcpy(b + 0x54, &t->ext_speed, 4);
		memcpy(b + 0x58, &t->ext_conf_speed, 4);
	}
	pos = t->len;
	for (i = 0; i < ARRAY_SIZE(t->strings) && t->strings[i]; i++) {
		n = strlen(t->strings[i]);
		memcpy(b + pos, t->strings[i], n);
		pos += n + 1;
	}
	if (i == 0)
		pos++;		/* no strings at all: the table is two NULs */
	return pos + 1;
}

struct t17_case {
	const char *name;
	struct t17 in;
	int ret;
	u32 flags;
	u64 size;
	u32 speed, conf_speed;
	u8 rank;
	u16 total_width, data_width;
	const char *locator, *bank, *manufacturer, *serial, *part;
};

static void t17_case_desc(const struct t17_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

#define POP	PROBESTICK_DIMM_POPULATED
#define KNOWN	PROBESTICK_DIMM_SIZE_KNOWN
#define GIB(n)	((u64)(n) << 30)
#define STRS(...) { __VA_ARGS__, NULL }

static const struct t17_case t17_cases[] = {
	{ "DDR4-3200 16 GiB ECC RDIMM, SMBIOS 3.2",
	  { 0x54, 0x1100, 72, 64, 0x4000, 0x09, 0x1a, 3200, 2933, 0x02, 0, 0, 0, 1200,
	    1, 2, 3, 4, 0, 5, STRS("DIMM A1", "P0 CHANNEL A", "Samsung", "1A2B3C4D",
				    "M393A2K43DB3-CWE    ") },
	  0, POP | KNOWN, GIB(16), 3200, 2933, 2, 72, 64,
	  "DIMM A1", "P0 CHANNEL A", "Samsung", "1A2B3C4D", "M393A2K43DB3-CWE" },
	{ "empty slot with placeholder strings",
	  { 0x28, 0x1101, 0xffff, 0xffff, 0, 0x02, 0x02, 0, 0, 0, 0, 0, 0, 0,
	    1, 2, 3, 4, 0, 5, STRS("DIMM A2", "P0 CHANNEL A", "NO DIMM", "NO DIMM",
				    "NO DIMM") },
	  0, KNOWN, 0, 0, 0, 0, 0xffff, 0xffff,
	  "DIMM A2", "P0 CHANNEL A", "NO DIMM", "NO DIMM", "NO DIMM" },
	{ "extended size: 64 GiB in 0x1c",
	  { 0x28, 0x1102, 64, 64, 0x7fff, 0x09, 0x1a, 2666, 2666, 0x04, 65536, 0, 0, 1200,
	    1, 2, 0, 0, 0, 0, STRS("ChannelA-DIMM0", "BANK 0") },
	  0, POP | KNOWN, GIB(64), 2666, 2666, 4, 64, 64,
	  "ChannelA-DIMM0", "BANK 0", "", "", "" },
	{ "SMBIOS 2.6 structure: 0x7fff is 32767 MiB, no extended size",
	  { 0x1c, 0x110b, 72, 64, 0x7fff, 0x09, 0x18, 1333, 0, 0x02, 0, 0, 0, 0,
	    1, 2, 0, 0, 0, 0, STRS("DIMM_A1", "NODE 0 CHANNEL 0 DIMM 0") },
	  0, POP | KNOWN, (u64)32767 << 20, 1333, 0, 2, 72, 64,
	  "DIMM_A1", "NODE 0 CHANNEL 0 DIMM 0", "", "", "" },
	{ "size in KiB (bit 15): 512 KiB",
	  { 0x1b, 0x1103, 8, 8, 0x8000 | 512, 0x05, 0x07, 0, 0, 0, 0, 0, 0, 0,
	    1, 0, 0, 0, 0, 0, STRS("U1") },
	  0, POP | KNOWN, 512 << 10, 0, 0, 0, 8, 8, "U1", "", "", "", "" },
	{ "installed, size unknown (0xffff)",
	  { 0x28, 0x1104, 64, 64, 0xffff, 0x09, 0x1a, 2400, 2400, 0x01, 0, 0, 0, 0,
	    1, 0, 0, 0, 0, 0, STRS("DIMM_B1") },
	  0, POP, 0, 2400, 2400, 1, 64, 64, "DIMM_B1", "", "", "", "" },
	{ "DDR5-8400: extended speeds of SMBIOS 3.3",
	  { 0x5c, 0x1105, 80, 64, 0x6000, 0x09, 0x22, 0xffff, 0xffff, 0x02, 0,
	    8400, 8000, 1100, 1, 2, 3, 0, 0, 0, STRS("DIMM 0", "CHANNEL A", "SK Hynix") },
	  0, POP | KNOWN, GIB(24), 8400, 8000, 2, 80, 64,
	  "DIMM 0", "CHANNEL A", "SK Hynix", "", "" },
	{ "0xffff speeds without the 3.3 fields: unknown",
	  { 0x28, 0x1106, 64, 64, 0x2000, 0x09, 0x1a, 0xffff, 0xffff, 0x01, 0, 0, 0, 0,
	    1, 0, 0, 0, 0, 0, STRS("DIMM1") },
	  0, POP | KNOWN, GIB(8), 0, 0, 1, 64, 64, "DIMM1", "", "", "", "" },
	{ "missing strings: indexes past the table, no table at all",
	  { 0x28, 0x1107, 64, 64, 0x1000, 0x09, 0x18, 1333, 1066, 0x02, 0, 0, 0, 0,
	    4, 0, 7, 8, 0, 9, { NULL } },
	  0, POP | KNOWN, GIB(4), 1333, 1066, 2, 64, 64, "", "", "", "", "" },
	{ "one string short: the bank's index ends the table",
	  { 0x28, 0x1108, 64, 64, 0x1000, 0x09, 0x18, 1600, 1600, 0x01, 0, 0, 0, 0,
	    1, 3, 2, 0, 0, 0, STRS("DIMM_C1", "Kingston") },
	  0, POP | KNOWN, GIB(4), 1600, 1600, 1, 64, 64, "DIMM_C1", "", "Kingston", "", "" },
	{ "SMBIOS 2.1 structure: no speed, no part number",
	  { 0x15, 0x1109, 64, 64, 0x0400, 0x09, 0x12, 0, 0, 0, 0, 0, 0, 0,
	    1, 2, 0, 0, 0, 0, STRS("DIMM0", "BANK0") },
	  0, POP | KNOWN, GIB(1), 0, 0, 0, 64, 64, "DIMM0", "BANK0", "", "", "" },
	{ "formatted area shorter than 2.1: refused",
	  { 0x14, 0x110a, 64, 64, 0x0400, 0x09, 0x12, 0, 0, 0, 0, 0, 0, 0,
	    1, 0, 0, 0, 0, 0, STRS("X") },
	  -EINVAL },
};

KUNIT_ARRAY_PARAM(t17, t17_cases, t17_case_desc);

static void smbios17_parse_raw_structures(struct kunit *test)
{
	const struct t17_case *c = test->param_value;
	struct probestick_dimm d;
	u8 buf[256];
	size_t len = t17_build(&c->in, buf, sizeof(buf));

	KUNIT_ASSERT_EQ(test, ps_smbios_struct_len(buf, sizeof(buf)),
			c->in.len >= 4 ? len : 0);
	KUNIT_ASSERT_EQ(test, ps_smbios17_parse(buf, len, &d), c->ret);
	if (c->ret)
		return;
	KUNIT_EXPECT_EQ(test, d.flags, c->flags);
	KUNIT_EXPECT_EQ(test, d.size_bytes, c->size);
	KUNIT_EXPECT_EQ(test, d.speed_mts, c->speed);
	KUNIT_EXPECT_EQ(test, d.configured_speed_mts, c->conf_speed);
	KUNIT_EXPECT_EQ(test, d.rank, c->rank);
	KUNIT_EXPECT_EQ(test, d.total_width, c->total_width);
	KUNIT_EXPECT_EQ(test, d.data_width, c->data_width);
	KUNIT_EXPECT_EQ(test, d.handle, c->in.handle);
	KUNIT_EXPECT_EQ(test, d.array_handle, 0x1000);
	KUNIT_EXPECT_EQ(test, d.length, c->in.len);
	KUNIT_EXPECT_EQ(test, d.type, c->in.type);
	KUNIT_EXPECT_STREQ(test, d.locator, c->locator);
	KUNIT_EXPECT_STREQ(test, d.bank, c->bank);
	KUNIT_EXPECT_STREQ(test, d.manufacturer, c->manufacturer);
	KUNIT_EXPECT_STREQ(test, d.serial, c->serial);
	KUNIT_EXPECT_STREQ(test, d.part_number, c->part);
	if (c->in.len >= 0x28)
		KUNIT_EXPECT_EQ(test, d.configured_voltage_mv, c->in.voltage);
}

/* What is not a whole type 17 structure is refused, never read past its end. */
static void smbios17_parse_refuses_cut_and_foreign(struct kunit *test)
{
	struct t17 t = { 0x28, 0x1200, 64, 64, 0x1000, 0x09, 0x1a, 2400, 2400, 1, 0, 0, 0, 0,
			 1, 0, 0, 0, 0, 0, STRS("DIMM A1") };
	struct probestick_dimm d;
	u8 buf[128];
	size_t len = t17_build(&t, buf, sizeof(buf));

	KUNIT_EXPECT_EQ(test, ps_smbios17_parse(buf, 0x20, &d), -ENODATA);
	KUNIT_EXPECT_EQ(test, ps_smbios17_parse(buf, 1, &d), -EINVAL);
	/* the string table cut in the middle: the locator is unknown, not garbage */
	KUNIT_EXPECT_EQ(test, ps_smbios17_parse(buf, 0x28 + 3, &d), 0);
	KUNIT_EXPECT_STREQ(test, d.locator, "");
	KUNIT_EXPECT_EQ(test, ps_smbios_struct_len(buf, 0x28 + 3), (size_t)0);
	buf[0] = 16;	/* a type 16 physical memory array */
	KUNIT_EXPECT_EQ(test, ps_smbios17_parse(buf, len, &d), -EINVAL);
}

/* Strings are kept printable: what a firmware leaves there is not passed on raw. */
static void smbios17_string_control_bytes(struct kunit *test)
{
	struct t17 t = { 0x28, 0x1201, 64, 64, 0x1000, 0x09, 0x1a, 2400, 2400, 1, 0, 0, 0, 0,
			 1, 0, 2, 0, 0, 0, STRS("DIMM\x1b[2J", "\tCrucial\xff ") };
	struct probestick_dimm d;
	u8 buf[128];
	size_t len = t17_build(&t, buf, sizeof(buf));

	KUNIT_ASSERT_EQ(test, ps_smbios17_parse(buf, len, &d), 0);
	KUNIT_EXPECT_STREQ(test, d.locator, "DIMM?[2J");
	KUNIT_EXPECT_STREQ(test, d.manufacturer, "Crucial?");
}

static struct kunit_case probestick_smbios17_cases[] = {
	KUNIT_CASE_PARAM(smbios17_parse_raw_structures, t17_gen_params),
	KUNIT_CASE(smbios17_parse_refuses_cut_and_foreign),
	KUNIT_CASE(smbios17_string_control_bytes),
	{}
};

static struct kunit_suite probestick_smbios17_suite = {
	.name = "probestick_smbios17",
	.test_cases = probestick_smbios17_cases,
};

kunit_test_suites(&probestick_smbios17_suite);

MODULE_LICENSE("GPL");
