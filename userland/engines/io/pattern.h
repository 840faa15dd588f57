/*
 * pattern.h - the data disk_write writes and verifies: every logical sector
 * carries a header with its own LBA, the pass that wrote it and the drive's
 * tag, and a filler derived from the same, so that a read-back tells a
 * misdirected write (another LBA's sector), a lost one (an older pass, or
 * never written) and corrupted data apart. Pure.
 */
#ifndef PS_IO_PATTERN_H
#define PS_IO_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define PS_PATTERN_MAGIC 0x3154495257535050ULL /* "PPSWRIT1" little-endian */

struct ps_pattern {
	unsigned int lsec; /* logical sector: 512 or 4096 */
	uint64_t pass;	   /* differs between runs, so a stale sector is told apart */
	uint64_t tag;	   /* the drive's (its serial hashed) */
};

/* Fill len bytes (whole sectors) for the sectors from byte offset off on. */
void ps_pattern_fill(const struct ps_pattern *p, unsigned char *buf, uint64_t off, size_t len);

struct ps_pattern_check {
	uint64_t sectors, ok;
	uint64_t misdirected;	/* a sector of this pass and drive, but of another LBA */
	uint64_t stale;		/* our header of another pass: a write that did not land */
	uint64_t foreign;	/* no header of ours at all: never written, or overwritten */
	uint64_t corrupt;	/* our header, wrong filler */
	uint64_t first_bad_lba; /* UINT64_MAX when none */
	uint64_t found_lba;	/* the LBA the first misdirected sector claims, UINT64_MAX */
};

void ps_pattern_check_init(struct ps_pattern_check *c);
/* Check len bytes read at byte offset off against what fill wrote there; adds to c. */
void ps_pattern_verify(const struct ps_pattern *p, const unsigned char *buf, uint64_t off,
		       size_t len, struct ps_pattern_check *c);
/* FNV-1a of a string: a drive's tag from its serial. */
uint64_t ps_pattern_tag(const char *s);

#endif
