/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * SMBIOS type 17 (Memory Device, DSP0134 7.18) decoder, plain C shared by
 * probestick.ko (dmi_walk()) and the userland (its sysfs fallback reads
 * /sys/firmware/dmi/entries/17-N/raw): one decoder, wherever the bytes
 * come from. Pure: the formatted area and the string table that follows it.
 */
#ifndef PROBESTICK_SMBIOS17_H
#define PROBESTICK_SMBIOS17_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#include "uapi/probestick.h"
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "probestick.h"
#endif

/* Offsets in the formatted area, with the spec version that added them. */
#define PS_T17_HANDLE		0x02
#define PS_T17_ARRAY		0x04	/* 2.1 */
#define PS_T17_TOTAL_WIDTH	0x08
#define PS_T17_DATA_WIDTH	0x0a
#define PS_T17_SIZE		0x0c
#define PS_T17_FORM_FACTOR	0x0e
#define PS_T17_LOCATOR		0x10
#define PS_T17_BANK		0x11
#define PS_T17_TYPE		0x12
#define PS_T17_TYPE_DETAIL	0x13
#define PS_T17_SPEED		0x15	/* 2.3 */
#define PS_T17_MANUFACTURER	0x17
#define PS_T17_SERIAL		0x18
#define PS_T17_ASSET		0x19
#define PS_T17_PART		0x1a
#define PS_T17_ATTRIBUTES	0x1b	/* 2.6: rank in bits 3:0 */
#define PS_T17_EXT_SIZE		0x1c	/* 2.7 */
#define PS_T17_CONF_SPEED	0x20	/* 2.7 */
#define PS_T17_CONF_VOLTAGE	0x26	/* 2.8 */
#define PS_T17_EXT_SPEED	0x54	/* 3.3 */
#define PS_T17_EXT_CONF_SPEED	0x58	/* 3.3 */
#define PS_T17_MIN_LEN		0x15	/* 2.1: up to the type detail word */

static inline uint16_t ps_t17_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ps_t17_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * How many bytes the structure at raw occupies with its string table (the
 * double NUL included), reading at most len bytes; 0 when it does not end
 * within them.
 */
static inline size_t ps_smbios_struct_len(const uint8_t *raw, size_t len)
{
	size_t pos;

	if (len < 4 || raw[1] < 4 || raw[1] > len)
		return 0;
	for (pos = raw[1]; pos + 1 < len; pos++)
		if (raw[pos] == 0 && raw[pos + 1] == 0)
			return pos + 2;
	return 0;
}

/*
 * String number idx (1-based) of the table after the formatted area of
 * hdr_len bytes, trimmed (part numbers come space-padded), bytes outside
 * printable ASCII as '?'; "" when idx is 0, out of the table, or cut off.
 */
static inline void ps_t17_string(const uint8_t *raw, size_t len, size_t hdr_len,
				 unsigned int idx, char *out, size_t outlen)
{
	size_t pos = hdr_len, start = hdr_len, n, i;
	unsigned int k;

	out[0] = '\0';
	if (idx == 0)
		return;
	for (k = 1; pos < len; k++) {
		start = pos;
		while (pos < len && raw[pos] != '\0')
			pos++;
		if (pos >= len || pos == start)
			return;	/* cut off, or the empty string that ends the table */
		if (k == idx)
			break;
		pos++;
	}
	if (pos >= len)
		return;
	while (start < pos && (raw[start] == ' ' || raw[start] == '\t'))
		start++;
	while (pos > start && (raw[pos - 1] == ' ' || raw[pos - 1] == '\t'))
		pos--;
	n = pos - start;
	if (n >= outlen)
		n = outlen - 1;
	while (n > 0 && (raw[start + n - 1] == ' ' || raw[start + n - 1] == '\t'))
		n--;	/* the cut may end on padding too */
	for (i = 0; i < n; i++) {
		uint8_t c = raw[start + i];

		out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[n] = '\0';
}

/* A speed field and its 3.3 extension: MT/s, 0 unknown. */
static inline uint32_t ps_t17_speed(const uint8_t *raw, size_t hdr_len, size_t off,
				    size_t ext_off)
{
	uint16_t v;

	if (hdr_len < off + 2)
		return 0;
	v = ps_t17_le16(raw + off);
	if (v == 0xffff)
		return hdr_len >= ext_off + 4 ? ps_t17_le32(raw + ext_off) & 0x7fffffff : 0;
	return v;
}

/*
 * Decode one type 17 structure (raw: its formatted area and string table,
 * len bytes). 0, -EINVAL when it is not a type 17 structure, -ENODATA when
 * len is shorter than its formatted area says.
 */
static inline int ps_smbios17_parse(const uint8_t *raw, size_t len, struct probestick_dimm *out)
{
	size_t hdr;
	uint16_t size;

	memset(out, 0, sizeof(*out));
	out->total_width = out->data_width = 0xffff;
	if (len < 2 || raw[0] != 17)
		return -EINVAL;
	hdr = raw[1];
	if (hdr < PS_T17_MIN_LEN)
		return -EINVAL;
	if (len < hdr)
		return -ENODATA;
	out->length = (uint8_t)hdr;
	out->handle = ps_t17_le16(raw + PS_T17_HANDLE);
	out->array_handle = ps_t17_le16(raw + PS_T17_ARRAY);
	out->total_width = ps_t17_le16(raw + PS_T17_TOTAL_WIDTH);
	out->data_width = ps_t17_le16(raw + PS_T17_DATA_WIDTH);
	size = ps_t17_le16(raw + PS_T17_SIZE);
	if (size == 0) {
		out->flags = PROBESTICK_DIMM_SIZE_KNOWN;	/* no device installed */
	} else if (size == 0xffff) {
		out->flags = PROBESTICK_DIMM_POPULATED;	/* installed, size unknown */
	} else if (size == 0x7fff && hdr >= PS_T17_EXT_SIZE + 4) {
		/* 2.7: Extended Size, MiB in bits 30:0 */
		out->size_bytes = (uint64_t)(ps_t17_le32(raw + PS_T17_EXT_SIZE) &
					     0x7fffffff) << 20;
		out->flags = PROBESTICK_DIMM_POPULATED | PROBESTICK_DIMM_SIZE_KNOWN;
	} else {
		/* bit 15 set: the value counts KiB, else MiB (0x7fff before 2.7 too) */
		out->size_bytes = (size & 0x8000) ? (uint64_t)(size & 0x7fff) << 10 :
						    (uint64_t)size << 20;
		out->flags = PROBESTICK_DIMM_POPULATED | PROBESTICK_DIMM_SIZE_KNOWN;
	}
	out->form_factor = raw[PS_T17_FORM_FACTOR];
	out->type = raw[PS_T17_TYPE];
	out->type_detail = ps_t17_le16(raw + PS_T17_TYPE_DETAIL);
	ps_t17_string(raw, len, hdr, raw[PS_T17_LOCATOR], out->locator, sizeof(out->locator));
	ps_t17_string(raw, len, hdr, raw[PS_T17_BANK], out->bank, sizeof(out->bank));
	out->speed_mts = ps_t17_speed(raw, hdr, PS_T17_SPEED, PS_T17_EXT_SPEED);
	if (hdr > PS_T17_PART) {
		ps_t17_string(raw, len, hdr, raw[PS_T17_MANUFACTURER], out->manufacturer,
			      sizeof(out->manufacturer));
		ps_t17_string(raw, len, hdr, raw[PS_T17_SERIAL], out->serial, sizeof(out->serial));
		ps_t17_string(raw, len, hdr, raw[PS_T17_ASSET], out->asset_tag,
			      sizeof(out->asset_tag));
		ps_t17_string(raw, len, hdr, raw[PS_T17_PART], out->part_number,
			      sizeof(out->part_number));
	}
	if (hdr > PS_T17_ATTRIBUTES)
		out->rank = raw[PS_T17_ATTRIBUTES] & 0x0f;
	out->configured_speed_mts = ps_t17_speed(raw, hdr, PS_T17_CONF_SPEED,
						 PS_T17_EXT_CONF_SPEED);
	if (hdr >= PS_T17_CONF_VOLTAGE + 2)
		out->configured_voltage_mv = ps_t17_le16(raw + PS_T17_CONF_VOLTAGE);
	return 0;
}

#endif /* PROBESTICK_SMBIOS17_H */
