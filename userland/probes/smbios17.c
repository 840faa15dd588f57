/*
 * smbios17.c - SMBIOS type 17 (Memory Device) decoder, pure: the formatted
 * area of every spec version from 2.1 to 3.x plus the string table after it.
 */
#include "decode.h"

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

/* Offsets in the formatted area (DSP0134 7.18) */
#define T17_SIZE	   0x0c
#define T17_FORM_FACTOR	   0x0e
#define T17_LOCATOR	   0x10
#define T17_BANK	   0x11
#define T17_TYPE	   0x12
#define T17_SPEED	   0x15 /* 2.3 */
#define T17_MANUFACTURER   0x17
#define T17_SERIAL	   0x18
#define T17_PART	   0x1a
#define T17_ATTRIBUTES	   0x1b /* 2.6 */
#define T17_EXT_SIZE	   0x1c /* 2.7 */
#define T17_CONF_SPEED	   0x20 /* 2.7 */
#define T17_EXT_SPEED	   0x54 /* 3.3 */
#define T17_EXT_CONF_SPEED 0x58 /* 3.3 */
#define T17_MIN_LEN	   0x15 /* 2.1: up to the type detail word */

static const char *const types[] = {
    [0x01] = "Other",	     [0x03] = "DRAM",	[0x04] = "EDRAM",
    [0x05] = "VRAM",	     [0x06] = "SRAM",	[0x07] = "RAM",
    [0x08] = "ROM",	     [0x09] = "Flash",	[0x0a] = "EEPROM",
    [0x0b] = "FEPROM",	     [0x0c] = "EPROM",	[0x0d] = "CDRAM",
    [0x0e] = "3DRAM",	     [0x0f] = "SDRAM",	[0x10] = "SGRAM",
    [0x11] = "RDRAM",	     [0x12] = "DDR",	[0x13] = "DDR2",
    [0x14] = "DDR2 FB-DIMM", [0x18] = "DDR3",	[0x19] = "FBD2",
    [0x1a] = "DDR4",	     [0x1b] = "LPDDR",	[0x1c] = "LPDDR2",
    [0x1d] = "LPDDR3",	     [0x1e] = "LPDDR4", [0x1f] = "Logical non-volatile device",
    [0x20] = "HBM",	     [0x21] = "HBM2",	[0x22] = "DDR5",
    [0x23] = "LPDDR5",	     [0x24] = "HBM3",
};

static const char *const form_factors[] = {
    [0x01] = "Other",
    [0x03] = "SIMM",
    [0x04] = "SIP",
    [0x05] = "Chip",
    [0x06] = "DIP",
    [0x07] = "ZIP",
    [0x08] = "Proprietary Card",
    [0x09] = "DIMM",
    [0x0a] = "TSOP",
    [0x0b] = "Row of chips",
    [0x0c] = "RIMM",
    [0x0d] = "SODIMM",
    [0x0e] = "SRIMM",
    [0x0f] = "FB-DIMM",
    [0x10] = "Die",
};

/* 0x02 "Unknown" stays NULL: unknown is null in the report. */
const char *ps_smbios17_type_name(unsigned int code)
{
	return code < PS_ARRAY_SIZE(types) ? types[code] : NULL;
}

const char *ps_smbios17_form_factor_name(unsigned int code)
{
	return code < PS_ARRAY_SIZE(form_factors) ? form_factors[code] : NULL;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * String number idx (1-based) of the table after the formatted area, copied
 * trimmed (part numbers come space-padded); "" when absent or out of bounds.
 */
static void dmi_string(const uint8_t *raw, size_t len, size_t hdr_len, unsigned int idx, char *out,
		       size_t outlen)
{
	size_t pos = hdr_len, n, start = hdr_len;

	out[0] = '\0';
	if (idx == 0)
		return;
	for (unsigned int i = 1; pos < len; i++) {
		start = pos;
		while (pos < len && raw[pos] != '\0')
			pos++;
		if (pos >= len)
			return; /* unterminated: the blob was cut */
		if (pos == start)
			return; /* empty string = end of table */
		if (i == idx)
			break;
		pos++;
	}
	if (pos >= len)
		return;
	while (start < pos && isspace(raw[start]))
		start++;
	while (pos > start && isspace(raw[pos - 1]))
		pos--;
	n = pos - start;
	if (n >= outlen)
		n = outlen - 1;
	for (size_t i = 0; i < n; i++)
		out[i] =
		    (raw[start + i] >= 0x20 && raw[start + i] < 0x7f) ? (char)raw[start + i] : '?';
	out[n] = '\0';
}

static int speed_field(const uint8_t *raw, size_t hdr_len, size_t off, size_t ext_off)
{
	uint16_t v;

	if (hdr_len < off + 2)
		return -1;
	v = le16(raw + off);
	if (v == 0xffff && hdr_len >= ext_off + 4)
		return (int)(le32(raw + ext_off) & 0x7fffffff);
	if (v == 0 || v == 0xffff)
		return -1;
	return v;
}

int ps_smbios17_decode(const uint8_t *raw, size_t len, struct ps_dimm *out)
{
	size_t hdr_len;
	uint16_t size;

	memset(out, 0, sizeof(*out));
	out->size_bytes = -1;
	out->speed_mts = out->configured_speed_mts = out->rank = -1;
	if (len < 2 || raw[0] != 17)
		return -EINVAL;
	hdr_len = raw[1];
	if (hdr_len < T17_MIN_LEN)
		return -EINVAL;
	if (len < hdr_len)
		return -ENODATA;

	size = le16(raw + T17_SIZE);
	if (size == 0) {
		out->populated = false;
		out->size_bytes = 0;
	} else if (size == 0xffff) {
		out->populated = true; /* installed, size unknown */
	} else if (size == 0x7fff && hdr_len >= T17_EXT_SIZE + 4) {
		out->populated = true;
		out->size_bytes = (int64_t)(le32(raw + T17_EXT_SIZE) & 0x7fffffff) << 20;
	} else {
		out->populated = true;
		/* bit 15 set: the value counts KiB, else MiB */
		out->size_bytes =
		    (size & 0x8000) ? (int64_t)(size & 0x7fff) << 10 : (int64_t)size << 20;
	}
	out->form_factor = ps_smbios17_form_factor_name(raw[T17_FORM_FACTOR]);
	out->type = ps_smbios17_type_name(raw[T17_TYPE]);
	dmi_string(raw, len, hdr_len, raw[T17_LOCATOR], out->locator, sizeof(out->locator));
	dmi_string(raw, len, hdr_len, raw[T17_BANK], out->bank, sizeof(out->bank));
	out->speed_mts = speed_field(raw, hdr_len, T17_SPEED, T17_EXT_SPEED);
	if (hdr_len > T17_PART) {
		dmi_string(raw, len, hdr_len, raw[T17_MANUFACTURER], out->manufacturer,
			   sizeof(out->manufacturer));
		dmi_string(raw, len, hdr_len, raw[T17_SERIAL], out->serial, sizeof(out->serial));
		dmi_string(raw, len, hdr_len, raw[T17_PART], out->part_number,
			   sizeof(out->part_number));
	}
	if (hdr_len > T17_ATTRIBUTES && (raw[T17_ATTRIBUTES] & 0x0f))
		out->rank = raw[T17_ATTRIBUTES] & 0x0f;
	out->configured_speed_mts = speed_field(raw, hdr_len, T17_CONF_SPEED, T17_EXT_CONF_SPEED);
	return 0;
}
