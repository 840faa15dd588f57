/*
 * ata_capacity.h - capacity an ATA drive hides: a Host Protected Area (the
 * native max address above the accessible one IDENTIFY reports) and a Device
 * Configuration Overlay (a factory maximum and features a DCO took away).
 * Read with read-only commands only; probestick never changes either.
 * Pure decoders and the judgement here; the reader (SG_IO ATA PASS-THROUGH,
 * or the answers a fixture tree recorded) is hw/ata_native.h.
 */
#ifndef PS_DECODE_ATA_CAPACITY_H
#define PS_DECODE_ATA_CAPACITY_H

#include "decode/decode.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The only ATA commands probestick sends for this, each of which only reads.
 * SET MAX ADDRESS (EXT), SET ACCESSIBLE MAX ADDRESS EXT, FREEZE ACCESSIBLE
 * MAX ADDRESS EXT and DEVICE CONFIGURATION SET/RESTORE/FREEZE LOCK have no
 * value here, and ps_ata_cdb_read_only() refuses their CDBs.
 */
enum ps_ata_ro_cmd {
	PS_ATA_READ_NATIVE_MAX,	    /* F8h: 28-bit, HPA feature set (obsolete in ACS-3) */
	PS_ATA_READ_NATIVE_MAX_EXT, /* 27h: 48-bit, HPA feature set (obsolete in ACS-3) */
	PS_ATA_GET_NATIVE_MAX_EXT,  /* 78h/0000h: Accessible Max Address Configuration (ACS-3) */
	PS_ATA_DCO_IDENTIFY,	    /* B1h/C2h: DEVICE CONFIGURATION IDENTIFY, 512 bytes in */
	PS_ATA_RO_CMDS
};
/* "READ NATIVE MAX ADDRESS EXT"; NULL out of range. */
const char *ps_ata_ro_cmd_name(enum ps_ata_ro_cmd c);
/* "read_native_max_ext": the name of its recorded answer in a fixture tree. */
const char *ps_ata_ro_cmd_file(enum ps_ata_ro_cmd c);

#define PS_ATA_CDB_LEN	 16
#define PS_ATA_SENSE_LEN 32
/* ATA PASS-THROUGH (16) of c, asking for the result registers (CK_COND). */
void ps_ata_ro_cdb(enum ps_ata_ro_cmd c, uint8_t cdb[PS_ATA_CDB_LEN]);
/* True only for an ATA PASS-THROUGH (16) CDB of one of the commands above. */
bool ps_ata_cdb_read_only(const uint8_t *cdb, size_t len);

/* What IDENTIFY DEVICE says about the accessible capacity and who can limit it. */
struct ps_ata_cap_id {
	int64_t sectors;    /* words 100-103 with 48-bit addressing, else 60-61; PS_UNKNOWN */
	bool lba48;	    /* word 83 bit 10 */
	bool hpa;	    /* HPA feature set supported and enabled: words 82/85 bit 10 */
	bool amac;	    /* Accessible Max Address Configuration: word 119 bit 8 */
	bool dco;	    /* DCO feature set: word 83 or 86 bit 11 */
	int logical_sector; /* bytes (words 106, 117-118), 512 when not said */
};
/* A 512-byte IDENTIFY DEVICE block. 0, -ENODATA (short), -EINVAL (not an ATA device). */
int ps_ata_cap_id_decode(const uint8_t *id, size_t len, struct ps_ata_cap_id *out);
/* The command that reads the native max address of such a drive; PS_ATA_RO_CMDS when none. */
enum ps_ata_ro_cmd ps_ata_native_max_cmd(const struct ps_ata_cap_id *id);

/* The task file of a SAT ATA Status Return descriptor (code 09h). */
struct ps_ata_regs {
	uint8_t status, error, device;
	uint16_t count;
	uint64_t lba; /* bits 47:0 with extend, else 23:0 */
	bool extend;
};
/*
 * The registers a pass-through command with CK_COND left in its sense data:
 * 0 from descriptor format (72h/73h) with descriptor 09h; -EPROTO for fixed
 * format (it cannot carry a 48-bit LBA); -ENODATA for descriptor format
 * without 09h or no sense; -EINVAL for garbage.
 */
int ps_ata_sense_regs(const uint8_t *sense, size_t len, struct ps_ata_regs *out);
/* The sense key of fixed or descriptor format sense data, -1 when there is none. */
int ps_sense_key(const uint8_t *sense, size_t len);
/*
 * The native max LBA that c returned in r: 0; -EIO when the drive aborted it
 * (status ERR), -EINVAL for a command that returns none.
 */
int ps_ata_native_max(enum ps_ata_ro_cmd c, const struct ps_ata_regs *r, uint64_t *lba);

/* DEVICE CONFIGURATION IDENTIFY data (ACS-2 7.9.5; the feature set is obsolete in ACS-3). */
struct ps_ata_dco {
	unsigned int revision; /* word 0 */
	uint64_t max_lba;      /* words 3-6: the largest LBA the drive can be set to */
	uint16_t features1;    /* word 7: command set/feature set supported part 1 */
	uint16_t sata;	       /* word 8: Serial ATA command set/feature set supported */
	uint16_t features2;    /* word 21: part 2 */
	ps_tri checksum_ok;    /* word 255; unknown when it carries no signature */
};
/* 0; -ENODATA (short), -EINVAL (no revision, or a failed checksum). */
int ps_ata_dco_decode(const uint8_t *page, size_t len, struct ps_ata_dco *out);
/*
 * The features the DCO says the drive has whose IDENTIFY bits say it has not,
 * as names ("SMART self-test, Security") into out; their number.
 */
int ps_ata_dco_hidden_features(const struct ps_ata_dco *dco, const uint8_t *id, size_t id_len,
			       char *out, size_t len);

enum ps_hpa_state {
	PS_HPA_UNKNOWN = 0,
	PS_HPA_UNSUPPORTED, /* neither the HPA nor the Accessible Max Address feature set */
	PS_HPA_NONE,	    /* native max = accessible max */
	PS_HPA_SET,	    /* sectors above the accessible max */
};
enum ps_dco_state {
	PS_DCO_UNKNOWN = 0,
	PS_DCO_UNSUPPORTED, /* no DCO feature set */
	PS_DCO_NONE,	    /* the factory maximum and every feature are there */
	PS_DCO_RESTRICTS,   /* it hides sectors or features */
	PS_DCO_FROZEN,	    /* DEVICE CONFIGURATION IDENTIFY aborted: frozen (a BIOS does it) */
};
const char *ps_hpa_state_name(enum ps_hpa_state s);
const char *ps_dco_state_name(enum ps_dco_state s);

/* What one drive hides, as the inventory reports it (drives[].capacity). */
struct ps_ata_capacity {
	bool examined;		    /* an ATA drive this was read for */
	int64_t current_sectors;    /* accessible, from IDENTIFY */
	int64_t native_sectors;	    /* native max address + 1, PS_UNKNOWN */
	const char *native_command; /* the command that read it, NULL */
	enum ps_hpa_state hpa;
	int64_t hpa_hidden; /* native - current, PS_UNKNOWN */
	enum ps_dco_state dco;
	int64_t dco_sectors;	/* the DCO's maximum LBA + 1, PS_UNKNOWN */
	int64_t dco_hidden;	/* dco_sectors - native_sectors, PS_UNKNOWN */
	char dco_features[192]; /* features the DCO hides, "" none */
	int64_t hidden_sectors; /* all sectors hidden (HPA and DCO), PS_UNKNOWN */
	int logical_sector;	/* bytes */
	char reason[192];	/* why a part is unknown, "" */
};

/* What the reader got from a drive: each answer, or the negative errno of its failure. */
struct ps_ata_answers {
	const uint8_t *identify; /* 512 bytes */
	size_t identify_len;
	const char *model; /* for the drives that report a count as the max address */
	int native_ret;	   /* 0, -ENOTSUP (not sent), -EIO (aborted), ... */
	enum ps_ata_ro_cmd native_cmd;
	uint64_t native_lba;
	int dco_ret;		 /* 0, -ENOTSUP, -EIO (aborted: frozen), -EINVAL (bad page) */
	const uint8_t *dco_page; /* 512 bytes when dco_ret is 0 */
};
/* Pure: the judgement of what the answers say. */
void ps_ata_capacity_judge(const struct ps_ata_answers *a, struct ps_ata_capacity *out);

#endif
