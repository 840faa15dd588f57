/*
 * kmsg.h - the kernel log's records and what one record means, pure: no I/O,
 * no state (kmsg.c). The per-step recorder that reads /dev/kmsg and sums the
 * hits up per device is record/kmsg.h.
 */
#ifndef PS_DECODE_KMSG_H
#define PS_DECODE_KMSG_H

#include "decode/decode.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_KMSG_TEXT_MAX 1024 /* one record's text, unescaped (the kernel's limit) */

/* One /dev/kmsg record: "PRI,SEQ,USEC,FLAGS[,...];TEXT" and " KEY=VALUE" lines. */
struct ps_kmsg_record {
	uint64_t seq;
	uint64_t usec;		     /* since boot */
	int level;		     /* 0 emerg .. 7 debug */
	int facility;		     /* 0 kern, 1 user, ... */
	char text[PS_KMSG_TEXT_MAX]; /* \xNN escapes undone; may hold a newline */
	size_t len;
};

/* Parse one record (the bytes one read() of /dev/kmsg returns). 0 or -EINVAL. */
int ps_kmsg_parse(const char *buf, size_t len, struct ps_kmsg_record *r);

/* "err", "warning", ...; "kern", "user", ..., "local7"; NULL out of range. */
const char *ps_kmsg_level_name(int level);
const char *ps_kmsg_facility_name(int facility);

enum ps_kmsg_sev { PS_KMSG_INFO = 0, PS_KMSG_WARN, PS_KMSG_FAIL };
const char *ps_kmsg_sev_name(enum ps_kmsg_sev s); /* "info", "warn", "fail" */

/* What name space a record's device name is in, so the summary can map it. */
enum ps_kmsg_ns {
	PS_KNS_NONE = 0, /* the machine: MCE, EDAC, kernel warnings */
	PS_KNS_ATA,	 /* "ata3" (link) or "ata3.00" (device): ata_port 3 */
	PS_KNS_SCSI,	 /* "2:0:0:0" of an sd line without a [disk] name */
	PS_KNS_BLOCK,	 /* a disk or partition: "sda", "sda1", "nvme0n1" */
	PS_KNS_NVME,	 /* a controller: "nvme0" */
	PS_KNS_NETDEV,	 /* "eth0" */
	PS_KNS_PCI,	 /* "0000:01:00.0" */
	PS_KNS_USB,	 /* "2-1" */
	PS_KNS_OTHER,	 /* a device of another bus ("hci0"): not mapped */
};

/* What lba_first/lba_last of a hit count in. */
enum ps_kmsg_lba_unit {
	PS_KLBA_DEVICE = 0, /* the device's own LBA (logical sectors): ATA taskfile, CDB, NVMe */
	PS_KLBA_512,	    /* the block layer's 512-byte sectors */
};

/* What one record means, when it matters. */
struct ps_kmsg_hit {
	const char *rule; /* "ata_error", "io_error", ... (static) */
	enum ps_kmsg_sev severity;
	enum ps_dev_kind kind; /* PS_DEV_DRIVE, _NIC, _LINK, _MACHINE */
	enum ps_kmsg_ns ns;
	char name[40];	   /* the kernel's name of the device, in ns */
	char scsi[24];	   /* "2:0:0:0" of an sd line that also names its disk */
	int64_t lba_first; /* -1: none */
	int64_t lba_last;
	enum ps_kmsg_lba_unit lba_unit;
	bool lba_start_only; /* a block-layer error: the request's first sector, length unknown */
	bool detail; /* belongs to an event another line counts ("cmd ...", "error: { UNC }") */
	unsigned int count; /* what the line stands for, usually 1 ("3 CE" on EDAC) */
	double speed;	    /* a link speed the line reports (Gb/s SATA, Mb/s NIC), or NAN */
	char what[96];	    /* what happened, for the message: "failed command: READ DMA" */
	char note[64];	    /* a detail the event lists once: "UNC", "Medium Error", "RxErr" */
};

/*
 * The decoders: one record's text (kernel facility) to a hit. false for a
 * line that is no error, warning or event of note. Pure: no I/O, no state.
 */
bool ps_kmsg_decode(const char *text, struct ps_kmsg_hit *hit);

#endif
