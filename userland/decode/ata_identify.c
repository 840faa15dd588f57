/*
 * ata_identify.c - drive identity decoders, pure: ATA IDENTIFY DEVICE (as
 * libata exposes it in SCSI VPD page 0x89), and the SCSI VPD pages 0x83
 * (WWN) and 0xB1 (rotation rate). Word numbers are those of ACS-3.
 */
#include "decode/decode.h"

#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define W_CONFIG	0
#define W_SERIAL	10
#define W_FIRMWARE	23
#define W_MODEL		27
#define W_LBA28		60
#define W_QUEUE_DEPTH	75
#define W_SATA_CAP	76
#define W_SATA_CAP2	77
#define W_CMDSET2	83
#define W_CMDSET_EXT	84
#define W_CMDSET_EXT_EN 87
#define W_LBA48		100
#define W_SECTOR_SIZE	106
#define W_WWN		108
#define W_LOGICAL_SIZE	117
#define W_FORM_FACTOR	168
#define W_DSM		169
#define W_ROTATION	217
#define W_INTEGRITY	255

#define PG89_LEN       572 /* 4 + 0x238 */
#define PG89_CMD       56
#define PG89_IDENTIFY  60
#define ATA_CMD_ID_ATA 0xec

static unsigned int word(const uint8_t *id, unsigned int w)
{
	return (unsigned int)id[2 * w] | (unsigned int)id[2 * w + 1] << 8;
}

/* A word whose value is defined: neither 0000h nor FFFFh. */
static bool word_valid(unsigned int v)
{
	return v != 0 && v != 0xffff;
}

/* Words 82-87 style: bits 15:14 = 01 says the word is filled in. */
static bool word_signed(unsigned int v)
{
	return (v & 0xc000) == 0x4000;
}

/*
 * An ATA string: two characters per word, the first in the high byte;
 * trimmed of the space (or NUL) padding. -EINVAL for control bytes.
 */
static int ata_string(const uint8_t *id, unsigned int w, unsigned int words, char *out,
		      size_t outlen)
{
	char buf[96];
	size_t n = 0, start = 0, end;

	if (words * 2 >= sizeof(buf) || outlen <= words * 2)
		return -EINVAL;
	for (unsigned int i = 0; i < words; i++) {
		buf[n++] = (char)id[2 * (w + i) + 1];
		buf[n++] = (char)id[2 * (w + i)];
	}
	end = n;
	while (start < end && (buf[start] == ' ' || buf[start] == '\0'))
		start++;
	while (end > start && (buf[end - 1] == ' ' || buf[end - 1] == '\0'))
		end--;
	for (size_t i = start; i < end; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
			return -EINVAL;
	memcpy(out, buf + start, end - start);
	out[end - start] = '\0';
	return 0;
}

int ps_rotation_rate(unsigned int v)
{
	if (v == 1)
		return 1;
	if (v >= 0x0401 && v <= 0xfffe)
		return (int)v;
	return PS_UNKNOWN; /* 0: not reported; 2-400h and FFFFh reserved */
}

static const char *form_factor_name(unsigned int code)
{
	static const char *const names[] = {
	    [1] = "5.25 inches", [2] = "3.5 inches",	   [3] = "2.5 inches",
	    [4] = "1.8 inches",	 [5] = "below 1.8 inches", [6] = "mSATA",
	    [7] = "M.2",	 [8] = "MicroSSD",	   [9] = "CFast",
	};

	return code < PS_ARRAY_SIZE(names) ? names[code] : NULL;
}

int ps_ata_identify_decode(const uint8_t *id, size_t len, struct ps_ata_identify *out)
{
	unsigned int cap, cap2, ss, v;
	int r;

	memset(out, 0, sizeof(*out));
	out->rotation_rpm = PS_UNKNOWN;
	out->queue_depth = PS_UNKNOWN;
	out->ncq = out->trim = out->checksum_ok = PS_TRI_UNKNOWN;
	out->sectors = PS_UNKNOWN;
	out->logical_sector = out->physical_sector = PS_UNKNOWN;
	if (len < PS_ATA_IDENTIFY_LEN)
		return -ENODATA;
	v = word(id, W_CONFIG);
	if (v == 0xffff || (v & 0x8000))
		return -EINVAL; /* not an ATA device (a packet device, or no answer) */

	/* word 255: signature A5h in the low byte, then a checksum making the bytes sum to 0 */
	if ((word(id, W_INTEGRITY) & 0xff) == 0xa5) {
		uint8_t sum = 0;

		for (size_t i = 0; i < PS_ATA_IDENTIFY_LEN; i++)
			sum = (uint8_t)(sum + id[i]);
		out->checksum_ok = sum == 0;
	}
	if (out->checksum_ok == 0)
		return -EINVAL; /* a block that fails its own checksum is not trusted */
	r = ata_string(id, W_SERIAL, 10, out->serial, sizeof(out->serial));
	if (r == 0)
		r = ata_string(id, W_FIRMWARE, 4, out->firmware, sizeof(out->firmware));
	if (r == 0)
		r = ata_string(id, W_MODEL, 20, out->model, sizeof(out->model));
	if (r < 0)
		return r;

	cap = word(id, W_SATA_CAP);
	if (word_valid(cap)) {
		out->sata_gens = (uint8_t)((cap >> 1) & 0x7);
		out->ncq = (cap >> 8) & 1;
		if (out->ncq == 1)
			out->queue_depth = (int)(word(id, W_QUEUE_DEPTH) & 0x1f) + 1;
		cap2 = word(id, W_SATA_CAP2);
		if (word_valid(cap2) && ((cap2 >> 1) & 0x7) >= 1 && ((cap2 >> 1) & 0x7) <= 3)
			out->sata_gen = (int)((cap2 >> 1) & 0x7);
	}
	if (word_signed(word(id, W_CMDSET2)) && (word(id, W_CMDSET2) & (1U << 10))) {
		uint64_t s = 0;

		for (int i = 3; i >= 0; i--)
			s = s << 16 | word(id, W_LBA48 + (unsigned int)i);
		out->sectors = s > 0 && s < (1ULL << 48) ? (int64_t)s : PS_UNKNOWN;
	}
	if (out->sectors == PS_UNKNOWN) {
		uint32_t s = (uint32_t)word(id, W_LBA28) | (uint32_t)word(id, W_LBA28 + 1) << 16;

		out->sectors = s ? (int64_t)s : PS_UNKNOWN;
	}
	ss = word(id, W_SECTOR_SIZE);
	if (word_signed(ss)) {
		uint32_t lwords = (uint32_t)word(id, W_LOGICAL_SIZE) |
				  (uint32_t)word(id, W_LOGICAL_SIZE + 1) << 16;

		/* 2^(bits 3:0) logical sectors per physical one: a drive that claims
		 * more than 1 MiB (64 KiB logical sectors, 2^15 of them: 2 GiB) says
		 * nothing believable */
		uint64_t phys;

		out->logical_sector =
		    (ss & (1U << 12)) && lwords >= 256 && lwords <= 32768 ? (int)lwords * 2 : 512;
		phys = (uint64_t)out->logical_sector << ((ss & (1U << 13)) ? (ss & 0xf) : 0);
		out->physical_sector = phys <= PS_ATA_MAX_PHYSICAL_SECTOR ? (int)phys : PS_UNKNOWN;
	} else {
		out->logical_sector = out->physical_sector = 512;
	}
	/* WWN: supported in word 84, or the enabled copy in word 87 (ACS-2 on) */
	if ((word_signed(word(id, W_CMDSET_EXT)) && (word(id, W_CMDSET_EXT) & (1U << 8))) ||
	    (word_signed(word(id, W_CMDSET_EXT_EN)) && (word(id, W_CMDSET_EXT_EN) & (1U << 8)))) {
		uint64_t w = 0;

		for (unsigned int i = 0; i < 4; i++)
			w = w << 16 | word(id, W_WWN + i);
		out->wwn = w != UINT64_MAX ? w : 0;
	}
	out->rotation_rpm = ps_rotation_rate(word(id, W_ROTATION));
	out->form_factor = form_factor_name(word(id, W_FORM_FACTOR) & 0xf);
	v = word(id, W_DSM);
	if (v != 0xffff)
		out->trim = v & 1;
	return 0;
}

int ps_vpd_pg89_identify(const uint8_t *page, size_t len, struct ps_ata_identify *out)
{
	size_t plen;

	memset(out, 0, sizeof(*out));
	out->rotation_rpm = out->queue_depth = PS_UNKNOWN;
	out->sectors = out->logical_sector = out->physical_sector = PS_UNKNOWN;
	out->ncq = out->trim = out->checksum_ok = PS_TRI_UNKNOWN;
	if (len < 4 || page[1] != 0x89)
		return -EINVAL;
	plen = 4 + ((size_t)page[2] << 8 | page[3]);
	if (plen < PG89_LEN || len < PG89_LEN)
		return -ENODATA;
	if (page[PG89_CMD] != ATA_CMD_ID_ATA)
		return -EINVAL; /* IDENTIFY PACKET DEVICE: not a disk */
	return ps_ata_identify_decode(page + PG89_IDENTIFY, PS_ATA_IDENTIFY_LEN, out);
}

int ps_vpd_pgb1_rotation(const uint8_t *page, size_t len, int *rpm)
{
	*rpm = PS_UNKNOWN;
	if (len < 4 || page[1] != 0xb1)
		return -EINVAL;
	if (len < 6 || 4 + ((size_t)page[2] << 8 | page[3]) < 6)
		return -ENODATA;
	*rpm = ps_rotation_rate((unsigned int)page[4] << 8 | page[5]);
	return *rpm == PS_UNKNOWN ? -ENODATA : 0;
}

static void hex(const uint8_t *p, size_t n, char *out, size_t outlen)
{
	size_t w = 0;

	for (size_t i = 0; i < n && w + 3 <= outlen; i++)
		w += (size_t)snprintf(out + w, outlen - w, "%02x", p[i]);
}

int ps_vpd_pg83_wwn(const uint8_t *page, size_t len, char *out, size_t outlen)
{
	const uint8_t *eui = NULL;
	size_t end, pos = 4, eui_len = 0;

	if (outlen)
		out[0] = '\0';
	if (len < 4 || page[1] != 0x83 || outlen < 3)
		return -EINVAL;
	end = 4 + ((size_t)page[2] << 8 | page[3]);
	if (end > len)
		return -ENODATA;
	/* designators: code set 3:0 of byte 0, association 5:4 and type 3:0 of byte 1 */
	while (pos + 4 <= end) {
		size_t dlen = page[pos + 3];
		unsigned int assoc = (page[pos + 1] >> 4) & 3, type = page[pos + 1] & 0xf;
		const uint8_t *d = page + pos + 4;

		if (pos + 4 + dlen > end)
			return -EINVAL;
		if (assoc == 0 && (page[pos] & 0xf) == 1) { /* the logical unit, binary */
			if (type == 3 && (dlen == 8 || dlen == 16)) {
				snprintf(out, outlen, "0x");
				hex(d, dlen, out + 2, outlen - 2);
				return 0;
			}
			if (type == 2 && (dlen == 8 || dlen == 12 || dlen == 16) && !eui) {
				eui = d;
				eui_len = dlen;
			}
		}
		pos += 4 + dlen;
	}
	if (!eui)
		return -ENODATA;
	snprintf(out, outlen, "eui.");
	if (outlen > 4)
		hex(eui, eui_len, out + 4, outlen - 4);
	return 0;
}

int ps_scsi_wwid_wwn(const char *wwid, char *out, size_t outlen)
{
	size_t n;

	if (outlen)
		out[0] = '\0';
	if (!wwid || outlen < 3)
		return -EINVAL;
	n = strlen(wwid);
	while (n && isspace((unsigned char)wwid[n - 1]))
		n--;
	if (n > 4 && strncmp(wwid, "naa.", 4) == 0) {
		if (strspn(wwid + 4, "0123456789abcdefABCDEF") < n - 4 || n - 4 + 3 > outlen)
			return -EINVAL;
		snprintf(out, outlen, "0x%.*s", (int)(n - 4), wwid + 4);
		for (char *p = out; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		return 0;
	}
	if (n > 4 && strncmp(wwid, "eui.", 4) == 0) {
		if (n + 1 > outlen)
			return -EINVAL;
		snprintf(out, outlen, "%.*s", (int)n, wwid);
		return 0;
	}
	return -ENODATA;
}

void ps_wwn_text(uint64_t wwn, char *out, size_t outlen)
{
	if (wwn)
		snprintf(out, outlen, "0x%016llx", (unsigned long long)wwn);
	else if (outlen)
		out[0] = '\0';
}
