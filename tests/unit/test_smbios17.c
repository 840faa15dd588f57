/* test_smbios17.c - SMBIOS type 17 decoder over raw structures as firmware ships them. */
#include "check.h"
#include "decode/decode.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/*
 * A DDR4 UDIMM as a Z390 board's SMBIOS 3.2 shows it (length 0x28), with its
 * string table: 8 GiB, 2666 MT/s rated, 2400 configured, single rank.
 */
static const uint8_t ddr4[] = {
    0x11, 0x28, 0x40, 0x00, 0x3f, 0x00, 0xfe, 0xff, 0x40, 0x00, 0x40, 0x00, 0x00, 0x20, 0x09,
    0x00, 0x01, 0x02, 0x1a, 0x80, 0x00, 0x6a, 0x0a, 0x03, 0x04, 0x05, 0x06, 0x01, 0x00, 0x00,
    0x00, 0x00, 0x60, 0x09, 0xb0, 0x04, 0xb0, 0x04, 0xb0, 0x04, 'C',  'h',  'a',  'n',	'n',
    'e',  'l',	'A',  '-',  'D',  'I',	'M',  'M',  '0',  0,	'B',  'A',  'N',  'K',	' ',
    '0',  0,	'S',  'a',  'm',  's',	'u',  'n',  'g',  0,	'1',  '2',  '3',  '4',	'5',
    '6',  '7',	'8',  0,    '9',  '8',	'7',  '6',  0,	  'M',	'3',  '7',  '8',  'A',	'1',
    'K',  '4',	'3',  'C',  'B',  '2',	'-',  'C',  'T',  'D',	' ',  ' ',  0,	  0,
};

static void set16(uint8_t *b, int off, uint16_t v)
{
	b[off] = v & 0xff;
	b[off + 1] = v >> 8;
}

static void set32(uint8_t *b, int off, uint32_t v)
{
	set16(b, off, v & 0xffff);
	set16(b, off + 2, v >> 16);
}

static void test_ddr4(void)
{
	struct ps_dimm d;

	CHECK_INT(ps_smbios17_decode(ddr4, sizeof(ddr4), &d), 0);
	CHECK(d.populated);
	CHECK_INT(d.size_bytes, 8LL << 30);
	CHECK_STR(d.type, "DDR4");
	CHECK_STR(d.form_factor, "DIMM");
	CHECK_STR(d.locator, "ChannelA-DIMM0");
	CHECK_STR(d.bank, "BANK 0");
	CHECK_INT(d.speed_mts, 2666);
	CHECK_INT(d.configured_speed_mts, 2400);
	CHECK_INT(d.rank, 1);
	CHECK_STR(d.manufacturer, "Samsung");
	CHECK_STR(d.serial, "12345678");
	CHECK_STR(d.part_number, "M378A1K43CB2-CTD");
}

static void test_sizes(void)
{
	uint8_t b[sizeof(ddr4)];
	struct ps_dimm d;

	/* empty slot */
	memcpy(b, ddr4, sizeof(b));
	set16(b, 0x0c, 0);
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), 0);
	CHECK(!d.populated);
	CHECK_INT(d.size_bytes, 0);

	/* unknown size: installed */
	set16(b, 0x0c, 0xffff);
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), 0);
	CHECK(d.populated);
	CHECK_INT(d.size_bytes, -1);

	/* KiB granularity: 512 KiB */
	set16(b, 0x0c, 0x8000 | 512);
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), 0);
	CHECK_INT(d.size_bytes, 512 * 1024);

	/* 64 GiB: 0x7fff and the extended size in MiB */
	set16(b, 0x0c, 0x7fff);
	set32(b, 0x1c, 65536);
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), 0);
	CHECK_INT(d.size_bytes, 64LL << 30);

	/* 32767 MiB exactly, spelled the old way */
	set16(b, 0x0c, 0x7ffe);
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), 0);
	CHECK_INT(d.size_bytes, 0x7ffeLL << 20);
}

static void test_versions(void)
{
	uint8_t b[0x5c + 2];
	struct ps_dimm d;

	/* SMBIOS 2.1: 0x15 bytes, no speed, manufacturer, rank */
	memset(b, 0, sizeof(b));
	b[0] = 17;
	b[1] = 0x15;
	set16(b, 0x0c, 256);
	b[0x0e] = 0x0d;
	b[0x10] = 1;
	b[0x12] = 0x12;
	memcpy(b + 0x15, "SODIMM0\0\0", 9);
	CHECK_INT(ps_smbios17_decode(b, 0x15 + 9, &d), 0);
	CHECK_STR(d.locator, "SODIMM0");
	CHECK_STR(d.bank, "");
	CHECK_STR(d.type, "DDR");
	CHECK_STR(d.form_factor, "SODIMM");
	CHECK_INT(d.size_bytes, 256LL << 20);
	CHECK_INT(d.speed_mts, -1);
	CHECK_INT(d.rank, -1);
	CHECK_INT(d.configured_speed_mts, -1);
	CHECK_STR(d.manufacturer, "");

	/* SMBIOS 3.3 DDR5 at 0xffff: extended speeds */
	memset(b, 0, sizeof(b));
	b[0] = 17;
	b[1] = 0x5c;
	set16(b, 0x0c, 16384);
	b[0x0e] = 0x09;
	b[0x12] = 0x22;
	set16(b, 0x15, 0xffff);
	set16(b, 0x20, 0xffff);
	set32(b, 0x54, 70000);
	set32(b, 0x58, 68000);
	b[0x1b] = 0x02;
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), 0);
	CHECK_STR(d.type, "DDR5");
	CHECK_INT(d.speed_mts, 70000);
	CHECK_INT(d.configured_speed_mts, 68000);
	CHECK_INT(d.rank, 2);
	CHECK_STR(d.locator, ""); /* string 0: none */

	/* 0xffff without the 3.3 fields: unknown */
	b[1] = 0x28;
	CHECK_INT(ps_smbios17_decode(b, 0x28 + 2, &d), 0);
	CHECK_INT(d.speed_mts, -1);
	CHECK_INT(d.configured_speed_mts, -1);

	/* type and form factor codes */
	CHECK_STR(ps_smbios17_type_name(0x18), "DDR3");
	CHECK_STR(ps_smbios17_type_name(0x1e), "LPDDR4");
	CHECK(ps_smbios17_type_name(0x02) == NULL);
	CHECK(ps_smbios17_type_name(0x16) == NULL);
	CHECK(ps_smbios17_type_name(0xff) == NULL);
	CHECK_STR(ps_smbios17_form_factor_name(0x0d), "SODIMM");
	CHECK(ps_smbios17_form_factor_name(0x02) == NULL);
}

static void test_bad(void)
{
	uint8_t b[sizeof(ddr4)];
	struct ps_dimm d;

	CHECK_INT(ps_smbios17_decode(ddr4, 0, &d), -EINVAL);
	CHECK_INT(ps_smbios17_decode(ddr4, 1, &d), -EINVAL);
	CHECK_INT(ps_smbios17_decode(ddr4, 10, &d), -ENODATA);
	CHECK_INT(d.size_bytes, -1);
	CHECK_INT(d.speed_mts, -1);

	/* cut in the string table: strings up to the cut, the rest empty */
	CHECK_INT(ps_smbios17_decode(ddr4, 0x28 + 20, &d), 0);
	CHECK_STR(d.locator, "ChannelA-DIMM0");
	CHECK_STR(d.bank, "");
	CHECK_STR(d.part_number, "");
	CHECK_INT(d.size_bytes, 8LL << 30);

	/* wrong type */
	memcpy(b, ddr4, sizeof(b));
	b[0] = 16;
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), -EINVAL);
	/* formatted length too short for any version */
	memcpy(b, ddr4, sizeof(b));
	b[1] = 0x04;
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), -EINVAL);
	/* string numbers past the table */
	memcpy(b, ddr4, sizeof(b));
	b[0x10] = 9;
	b[0x1a] = 200;
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), 0);
	CHECK_STR(d.locator, "");
	CHECK_STR(d.part_number, "");
	CHECK_STR(d.manufacturer, "Samsung");
	/* control characters in a string come out as '?' */
	memcpy(b, ddr4, sizeof(b));
	b[0x28 + 2] = 0x07;
	CHECK_INT(ps_smbios17_decode(b, sizeof(b), &d), 0);
	CHECK_STR(d.locator, "Ch?nnelA-DIMM0");
	/* a string cut to PS_DMI_STR - 1 on an inner space stays trimmed */
	{
		uint8_t big[0x28 + PS_DMI_STR + 16] = {0};

		memcpy(big, ddr4, 0x28);
		memset(big + 0x28, 'A', PS_DMI_STR - 2);
		memcpy(big + 0x28 + PS_DMI_STR - 2, " BBB", 4);
		CHECK_INT(ps_smbios17_decode(big, sizeof(big), &d), 0);
		CHECK_INT(strlen(d.locator), PS_DMI_STR - 2);
		CHECK(d.locator[PS_DMI_STR - 3] == 'A');
	}
}

int main(void)
{
	test_ddr4();
	test_sizes();
	test_versions();
	test_bad();
	return check_done("test_smbios17");
}
