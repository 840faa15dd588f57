/*
 * ata_capacity.c - pure decoders of what an ATA drive hides: the IDENTIFY
 * words of the HPA, Accessible Max Address and DCO feature sets (ACS-3
 * 7.12.7; word numbers of ACS-3), the read-only commands' ATA PASS-THROUGH
 * (16) CDBs (SAT-3), the ATA Status Return descriptor they answer with, the
 * DEVICE CONFIGURATION IDENTIFY data (ACS-2 7.9.5), and the judgement.
 */
#include "decode/ata_capacity.h"

#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ATA_PT16       0x85
#define PROTO_NON_DATA 3
#define PROTO_PIO_IN   4
#define CK_COND	       0x20
#define T_DIR_IN       0x08
#define BYTE_BLOCK     0x04
#define T_LEN_COUNT    0x02
#define DEV_LBA	       0x40
#define ATA_STATUS_ERR 0x01
#define ATA_STATUS_DF  0x20
#define ATA_STATUS_BSY 0x80
#define SENSE_DESC_ATA 0x09

static const struct {
	const char *name, *file;
	uint8_t command;
	uint16_t feature;
	uint8_t protocol;
	bool extend;
} cmds[PS_ATA_RO_CMDS] = {
    [PS_ATA_READ_NATIVE_MAX] = {"READ NATIVE MAX ADDRESS", "read_native_max", 0xf8, 0,
				PROTO_NON_DATA, false},
    [PS_ATA_READ_NATIVE_MAX_EXT] = {"READ NATIVE MAX ADDRESS EXT", "read_native_max_ext", 0x27, 0,
				    PROTO_NON_DATA, true},
    [PS_ATA_GET_NATIVE_MAX_EXT] = {"GET NATIVE MAX ADDRESS EXT", "get_native_max_ext", 0x78, 0x0000,
				   PROTO_NON_DATA, true},
    [PS_ATA_DCO_IDENTIFY] = {"DEVICE CONFIGURATION IDENTIFY", "dco_identify", 0xb1, 0x00c2,
			     PROTO_PIO_IN, false},
};

const char *ps_ata_ro_cmd_name(enum ps_ata_ro_cmd c)
{
	return (unsigned int)c < PS_ATA_RO_CMDS ? cmds[c].name : NULL;
}

const char *ps_ata_ro_cmd_file(enum ps_ata_ro_cmd c)
{
	return (unsigned int)c < PS_ATA_RO_CMDS ? cmds[c].file : NULL;
}

void ps_ata_ro_cdb(enum ps_ata_ro_cmd c, uint8_t cdb[PS_ATA_CDB_LEN])
{
	memset(cdb, 0, PS_ATA_CDB_LEN);
	if ((unsigned int)c >= PS_ATA_RO_CMDS)
		return;
	cdb[0] = ATA_PT16;
	cdb[1] = (uint8_t)(cmds[c].protocol << 1 | (cmds[c].extend ? 1 : 0));
	if (cmds[c].protocol == PROTO_PIO_IN) {
		cdb[2] = T_DIR_IN | BYTE_BLOCK | T_LEN_COUNT; /* one 512-byte block in */
		cdb[6] = 1;
	} else {
		cdb[2] = CK_COND; /* the answer is in the registers: return them */
	}
	cdb[3] = (uint8_t)(cmds[c].feature >> 8);
	cdb[4] = (uint8_t)cmds[c].feature;
	cdb[13] = DEV_LBA;
	cdb[14] = cmds[c].command;
}

bool ps_ata_cdb_read_only(const uint8_t *cdb, size_t len)
{
	uint8_t mine[PS_ATA_CDB_LEN];

	if (!cdb || len != PS_ATA_CDB_LEN)
		return false;
	/* exactly one of the CDBs ps_ata_ro_cdb builds, byte for byte */
	for (int c = 0; c < PS_ATA_RO_CMDS; c++) {
		ps_ata_ro_cdb((enum ps_ata_ro_cmd)c, mine);
		if (memcmp(cdb, mine, sizeof(mine)) == 0)
			return true;
	}
	return false;
}

static unsigned int word(const uint8_t *id, unsigned int w)
{
	return (unsigned int)id[2 * w] | (unsigned int)id[2 * w + 1] << 8;
}

/* Words 83, 84, 87, 106, 119: bits 15:14 = 01 say the word is filled in. */
static bool signed_word(const uint8_t *id, unsigned int w)
{
	return (word(id, w) & 0xc000) == 0x4000;
}

static bool bit(const uint8_t *id, unsigned int w, unsigned int b)
{
	return (word(id, w) >> b) & 1;
}

int ps_ata_cap_id_decode(const uint8_t *id, size_t len, struct ps_ata_cap_id *out)
{
	struct ps_ata_identify a;
	int r;

	memset(out, 0, sizeof(*out));
	out->sectors = PS_UNKNOWN;
	out->logical_sector = 512;
	if (!id)
		return -ENODATA;
	r = ps_ata_identify_decode(id, len, &a);
	if (r < 0)
		return r;
	out->sectors = a.sectors;
	if (a.logical_sector > 0)
		out->logical_sector = a.logical_sector;
	/* word 83's signature covers words 82-83, word 87's covers 85-87 (libata's rule) */
	out->lba48 = signed_word(id, 83) && bit(id, 83, 10);
	out->hpa = signed_word(id, 83) && signed_word(id, 87) && bit(id, 82, 10) && bit(id, 85, 10);
	out->amac = signed_word(id, 119) && bit(id, 119, 8);
	out->dco =
	    (signed_word(id, 83) && bit(id, 83, 11)) || (signed_word(id, 87) && bit(id, 86, 11));
	return 0;
}

enum ps_ata_ro_cmd ps_ata_native_max_cmd(const struct ps_ata_cap_id *id)
{
	if (id->amac) /* ACS-3's way; its drives may keep HPA's commands, or not */
		return PS_ATA_GET_NATIVE_MAX_EXT;
	if (id->hpa)
		return id->lba48 ? PS_ATA_READ_NATIVE_MAX_EXT : PS_ATA_READ_NATIVE_MAX;
	return PS_ATA_RO_CMDS;
}

int ps_ata_sense_regs(const uint8_t *sense, size_t len, struct ps_ata_regs *out)
{
	size_t end, pos;
	unsigned int code;

	memset(out, 0, sizeof(*out));
	if (!sense || len < 8 || sense[0] == 0)
		return -ENODATA;
	code = sense[0] & 0x7f;
	if (code == 0x70 || code == 0x71)
		return -EPROTO;
	if (code != 0x72 && code != 0x73)
		return -EINVAL;
	end = 8 + (size_t)sense[7];
	if (end > len)
		end = len;
	for (pos = 8; pos + 2 <= end; pos += 2 + (size_t)sense[pos + 1]) {
		const uint8_t *d = sense + pos;

		if (d[0] != SENSE_DESC_ATA)
			continue;
		if (d[1] < 12 || pos + 2 + (size_t)d[1] > end)
			return -EINVAL; /* shorter than SAT's 12 bytes, or cut off */
		out->extend = d[2] & 1;
		out->error = d[3];
		out->count = (uint16_t)(d[5] | (out->extend ? d[4] << 8 : 0));
		out->lba = (uint64_t)d[7] | (uint64_t)d[9] << 8 | (uint64_t)d[11] << 16;
		if (out->extend)
			out->lba |=
			    (uint64_t)d[6] << 24 | (uint64_t)d[8] << 32 | (uint64_t)d[10] << 40;
		out->device = d[12];
		out->status = d[13];
		return 0;
	}
	return -ENODATA;
}

int ps_sense_key(const uint8_t *sense, size_t len)
{
	unsigned int code;

	if (!sense || len < 3)
		return -1;
	code = sense[0] & 0x7f;
	if (code == 0x72 || code == 0x73)
		return sense[1] & 0x0f;
	if (code == 0x70 || code == 0x71)
		return sense[2] & 0x0f;
	return -1;
}

int ps_ata_native_max(enum ps_ata_ro_cmd c, const struct ps_ata_regs *r, uint64_t *lba)
{
	*lba = 0;
	if (c != PS_ATA_READ_NATIVE_MAX && c != PS_ATA_READ_NATIVE_MAX_EXT &&
	    c != PS_ATA_GET_NATIVE_MAX_EXT)
		return -EINVAL;
	if (r->status & (ATA_STATUS_ERR | ATA_STATUS_DF | ATA_STATUS_BSY))
		return -EIO;
	if (c == PS_ATA_READ_NATIVE_MAX) {
		/* LBA 27:24 in the device register's low nibble */
		*lba = (r->lba & 0xffffff) | (uint64_t)(r->device & 0x0f) << 24;
		return 0;
	}
	if (!r->extend)
		return -EPROTO; /* a 48-bit answer without its upper half */
	*lba = r->lba;
	return 0;
}

int ps_ata_dco_decode(const uint8_t *page, size_t len, struct ps_ata_dco *out)
{
	memset(out, 0, sizeof(*out));
	out->checksum_ok = PS_TRI_UNKNOWN;
	if (!page || len < 512)
		return -ENODATA;
	if ((word(page, 255) & 0xff) == 0xa5) {
		uint8_t sum = 0;

		for (size_t i = 0; i < 512; i++)
			sum = (uint8_t)(sum + page[i]);
		out->checksum_ok = sum == 0;
		if (!out->checksum_ok)
			return -EINVAL; /* as IDENTIFY: a block failing its own checksum is not used
					 */
	}
	out->revision = word(page, 0);
	if (out->revision == 0 || out->revision == 0xffff)
		return -EINVAL;
	for (int i = 3; i >= 0; i--)
		out->max_lba = out->max_lba << 16 | word(page, 3 + (unsigned int)i);
	if (out->max_lba == 0 || out->max_lba >= 1ULL << 48)
		return -EINVAL;
	out->features1 = (uint16_t)word(page, 7);
	out->sata = (uint16_t)word(page, 8);
	out->features2 = (uint16_t)word(page, 21);
	return 0;
}

/*
 * A DCO feature and the IDENTIFY bit that says the drive has it now (ACS-2
 * Table 48 against ACS-3's IDENTIFY DEVICE words). Features IDENTIFY has no
 * bit for (SMART selective and conveyance self-tests, which SMART data
 * tells; Time Limited Commands; NV Cache) are not compared.
 */
static const struct {
	uint8_t dco_word, dco_bit; /* 7, 8 or 21 */
	uint8_t id_word, id_bit;
	uint8_t
	    valid; /* 83 (covers 82-83), 84, 87, 119, 48: its signature must hold; 76: non-zero */
	const char *name;
} features[] = {
    {7, 0, 82, 0, 83, "SMART"},
    {7, 1, 84, 1, 84, "SMART self-test"},
    {7, 2, 84, 0, 84, "SMART error log"},
    {7, 3, 82, 1, 83, "Security"},
    {7, 4, 83, 5, 83, "Power-Up In Standby"},
    {7, 7, 82, 10, 83, "HPA"},
    {7, 8, 83, 10, 83, "48-bit addresses"},
    {7, 9, 84, 4, 84, "Streaming"},
    {7, 11, 84, 6, 84, "FUA"},
    {7, 14, 119, 1, 119, "Write-Read-Verify"},
    {8, 0, 76, 8, 76, "NCQ"},
    {8, 1, 78, 1, 76, "non-zero buffer offsets"},
    {8, 4, 78, 6, 76, "Software Settings Preservation"},
    {21, 9, 119, 7, 119, "Extended Power Conditions"},
    {21, 10, 169, 0, 0, "TRIM"},
    {21, 11, 119, 5, 119, "Free-fall Control"},
    {21, 12, 48, 0, 48, "Trusted Computing"},
    {21, 13, 119, 2, 119, "WRITE UNCORRECTABLE"},
};

static bool id_word_valid(const uint8_t *id, unsigned int w)
{
	unsigned int v;

	switch (w) {
	case 0:
		return true;
	case 76:
		v = word(id, 76);
		return v != 0 && v != 0xffff; /* a SATA drive: words 76-79 filled in */
	default:
		return signed_word(id, w);
	}
}

int ps_ata_dco_hidden_features(const struct ps_ata_dco *dco, const uint8_t *id, size_t id_len,
			       char *out, size_t len)
{
	size_t w = 0;
	int n = 0;

	if (len)
		out[0] = '\0';
	if (!id || id_len < PS_ATA_IDENTIFY_LEN)
		return 0;
	for (size_t i = 0; i < PS_ARRAY_SIZE(features); i++) {
		uint16_t dw = features[i].dco_word == 7	  ? dco->features1
			      : features[i].dco_word == 8 ? dco->sata
							  : dco->features2;
		int k;

		if (!((dw >> features[i].dco_bit) & 1) || !id_word_valid(id, features[i].valid) ||
		    bit(id, features[i].id_word, features[i].id_bit))
			continue;
		n++;
		k = snprintf(out + w, len > w ? len - w : 0, "%s%s", w ? ", " : "",
			     features[i].name);
		if (k > 0)
			w = w + (size_t)k < len ? w + (size_t)k : len ? len - 1 : 0;
	}
	return n;
}

static const char *const hpa_names[] = {
    [PS_HPA_UNKNOWN] = NULL,
    [PS_HPA_UNSUPPORTED] = "unsupported",
    [PS_HPA_NONE] = "none",
    [PS_HPA_SET] = "set",
};
static const char *const dco_names[] = {
    [PS_DCO_UNKNOWN] = NULL,	      [PS_DCO_UNSUPPORTED] = "unsupported", [PS_DCO_NONE] = "none",
    [PS_DCO_RESTRICTS] = "restricts", [PS_DCO_FROZEN] = "frozen",
};

const char *ps_hpa_state_name(enum ps_hpa_state s)
{
	return (unsigned int)s < PS_ARRAY_SIZE(hpa_names) ? hpa_names[s] : NULL;
}

const char *ps_dco_state_name(enum ps_dco_state s)
{
	return (unsigned int)s < PS_ARRAY_SIZE(dco_names) ? dco_names[s] : NULL;
}

/*
 * Drives that answer READ NATIVE MAX ADDRESS with their number of sectors,
 * one above the address (libata's ATA_HORKAGE_HPA_SIZE list).
 */
static bool native_is_count(const char *model)
{
	static const char *const models[] = {"ST340823A", "ST320413A", "ST310211A"};

	for (size_t i = 0; model && i < PS_ARRAY_SIZE(models); i++)
		if (strcmp(model, models[i]) == 0)
			return true;
	return false;
}

static void add_reason(struct ps_ata_capacity *c, const char *fmt, const char *what, int err)
{
	size_t n = strlen(c->reason);
	char one[128];

	snprintf(one, sizeof(one), fmt, what, strerror(err > 0 ? err : -err));
	snprintf(c->reason + n, sizeof(c->reason) - n, "%s%s", n ? "; " : "", one);
}

static void judge_native(const struct ps_ata_answers *a, const struct ps_ata_cap_id *id,
			 struct ps_ata_capacity *c)
{
	uint64_t n;

	if (a->native_ret == -ENOTSUP || (a->native_cmd != PS_ATA_READ_NATIVE_MAX &&
					  a->native_cmd != PS_ATA_READ_NATIVE_MAX_EXT &&
					  a->native_cmd != PS_ATA_GET_NATIVE_MAX_EXT)) {
		c->hpa = PS_HPA_UNSUPPORTED;
		return;
	}
	c->native_command = ps_ata_ro_cmd_name(a->native_cmd);
	if (a->native_ret == -EIO) {
		add_reason(c, "the drive aborted %s (%s)", c->native_command, EIO);
		return;
	}
	if (a->native_ret < 0) {
		add_reason(c, "%s: %s", c->native_command, a->native_ret);
		return;
	}
	n = a->native_lba + 1;
	if (a->native_cmd == PS_ATA_READ_NATIVE_MAX && native_is_count(a->model))
		n--;
	if (id->sectors < 0 || n < (uint64_t)id->sectors || n >= 1ULL << 48) {
		add_reason(c, "%s answered an address below the accessible size (%s)",
			   c->native_command, EPROTO);
		return;
	}
	c->native_sectors = (int64_t)n;
	c->hpa_hidden = c->native_sectors - id->sectors;
	c->hpa = c->hpa_hidden > 0 ? PS_HPA_SET : PS_HPA_NONE;
}

static void judge_dco(const struct ps_ata_answers *a, const struct ps_ata_cap_id *id,
		      struct ps_ata_capacity *c)
{
	struct ps_ata_dco dco;
	int64_t top = c->native_sectors >= 0 ? c->native_sectors : id->sectors;
	int hidden;

	if (!id->dco || a->dco_ret == -ENOTSUP) {
		c->dco = PS_DCO_UNSUPPORTED;
		return;
	}
	if (a->dco_ret == -EIO) {
		/* DEVICE CONFIGURATION FREEZE LOCK makes it abort; many BIOSes issue it */
		c->dco = PS_DCO_FROZEN;
		return;
	}
	if (a->dco_ret < 0 || !a->dco_page) {
		add_reason(c, "%s: %s", ps_ata_ro_cmd_name(PS_ATA_DCO_IDENTIFY),
			   a->dco_ret < 0 ? a->dco_ret : -ENODATA);
		return;
	}
	if (ps_ata_dco_decode(a->dco_page, 512, &dco) < 0) {
		add_reason(c, "%s: %s (a malformed page or a failed checksum)",
			   ps_ata_ro_cmd_name(PS_ATA_DCO_IDENTIFY), EINVAL);
		return;
	}
	c->dco_sectors = (int64_t)dco.max_lba + 1;
	hidden = ps_ata_dco_hidden_features(&dco, a->identify, a->identify_len, c->dco_features,
					    sizeof(c->dco_features));
	if (top < 0 || c->dco_sectors < top) {
		add_reason(c, "the DCO's maximum is below the %s (%s)",
			   c->native_sectors >= 0 ? "native maximum" : "accessible size", EPROTO);
		return;
	}
	if (c->native_sectors >= 0)
		c->dco_hidden = c->dco_sectors - c->native_sectors;
	else if (c->hpa == PS_HPA_UNSUPPORTED) /* nothing else can lower it */
		c->dco_hidden = c->dco_sectors - id->sectors;
	c->dco = c->dco_sectors > top || hidden > 0 ? PS_DCO_RESTRICTS : PS_DCO_NONE;
}

void ps_ata_capacity_judge(const struct ps_ata_answers *a, struct ps_ata_capacity *c)
{
	struct ps_ata_cap_id id;

	memset(c, 0, sizeof(*c));
	c->current_sectors = c->native_sectors = c->hpa_hidden = PS_UNKNOWN;
	c->dco_sectors = c->dco_hidden = c->hidden_sectors = PS_UNKNOWN;
	c->logical_sector = 512;
	if (ps_ata_cap_id_decode(a->identify, a->identify_len, &id) < 0 || id.sectors < 0) {
		snprintf(c->reason, sizeof(c->reason), "no usable IDENTIFY data");
		return;
	}
	c->examined = true;
	c->current_sectors = id.sectors;
	c->logical_sector = id.logical_sector;
	judge_native(a, &id, c);
	judge_dco(a, &id, c);
	/* all that is hidden, when each part that can hide some is known */
	if (c->dco_sectors >= 0 && c->dco != PS_DCO_UNKNOWN)
		c->hidden_sectors = c->dco_sectors - c->current_sectors;
	else if (c->native_sectors >= 0 && (c->dco == PS_DCO_UNSUPPORTED))
		c->hidden_sectors = c->hpa_hidden;
	else if (c->hpa == PS_HPA_UNSUPPORTED && c->dco == PS_DCO_UNSUPPORTED)
		c->hidden_sectors = 0;
}
