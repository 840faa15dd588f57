/*
 * ata_link.c - disk identity and link texts, pure: libata's sata_spd and the
 * SCSI unit serial number VPD page (0x80) that sd exposes as vpd_pg80.
 */
#include "decode/decode.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int ps_sata_link_text(const char *sata_spd, char *out, size_t len)
{
	/* libata prints "1.5 Gbps", "3.0 Gbps", "6.0 Gbps" or "<unknown>" */
	const char *s = sata_spd;
	size_t digits = 0;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	while (isdigit((unsigned char)s[digits]))
		digits++;
	if (s[digits] != '.' || !isdigit((unsigned char)s[digits + 1]) ||
	    strcmp(s + digits + 2, " Gbps") != 0)
		return -EINVAL;
	snprintf(out, len, "SATA %.*s Gb/s", (int)(digits + 2), s);
	return 0;
}

int ps_vpd_pg80_serial(const uint8_t *page, size_t len, char *out, size_t outlen)
{
	size_t plen, start = 4, end;

	if (outlen == 0)
		return -EINVAL;
	out[0] = '\0';
	if (len < 4 || page[1] != 0x80)
		return -EINVAL;
	plen = (size_t)page[2] << 8 | page[3];
	end = 4 + plen;
	if (end > len)
		return -ENODATA; /* truncated page: do not guess the rest */
	/* the serial is left-padded with spaces (SAT) or NUL-padded */
	while (start < end && (page[start] == ' ' || page[start] == '\0'))
		start++;
	while (end > start && (page[end - 1] == ' ' || page[end - 1] == '\0'))
		end--;
	if (start == end)
		return -ENODATA;
	for (size_t i = start; i < end; i++)
		if (page[i] < 0x20 || page[i] > 0x7e)
			return -EINVAL;
	if (end - start >= outlen)
		end = start + outlen - 1;
	while (end > start && page[end - 1] == ' ')
		end--; /* the cut may end on inner spaces */
	memcpy(out, page + start, end - start);
	out[end - start] = '\0';
	return 0;
}
