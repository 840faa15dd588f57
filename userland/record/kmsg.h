/*
 * kmsg.h - the third per-step recorder: the kernel log (/dev/kmsg) during
 * one step, kept bounded in the report, with its errors and warnings
 * summarised per device (steps[].kmsg, docs/report.md). The decoders below
 * are pure functions over one record's text (kmsg_decode.c).
 */
#ifndef PS_KMSG_H
#define PS_KMSG_H

#include "hw/inventory.h"
#include "report/view.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_KMSG_KEEP_RECORDS 256	 /* records[]: the last ones of the step */
#define PS_KMSG_KEEP_BYTES   (64 * 1024) /* and at most this much text */
#define PS_KMSG_EVENTS_MAX   64		 /* distinct (rule, device) events */
#define PS_KMSG_RANGES_MAX   16		 /* lba_ranges[] of one event */
#define PS_KMSG_TEXT_MAX     1024	 /* one record's text, unescaped (the kernel's limit) */

struct ps_kmsg;

/*
 * Position at the end of root's /dev/kmsg now (records before the step are
 * not the step's). NULL only when out of memory; a missing or unreadable
 * /dev/kmsg gives a handle whose stop says so. On the live device a thread
 * drains the log while the step runs, so that a long step loses nothing to
 * the kernel's ring buffer; a regular file (a fixture under --root) is read
 * at stop: what was appended after start.
 */
struct ps_kmsg *ps_kmsg_start(const char *root);

/*
 * Read every record since start (non-blocking), keep them bounded and
 * return the step's "kmsg" object; inv maps kernel names (ata3, sda, nvme0,
 * eth0, 0000:01:00.0) to the inventory's devices and may be NULL. Names the
 * inventory does not carry (an ATA port, an NVMe controller) are resolved
 * through root's /sys and mapped back to its device of that name; without
 * an inventory events carry no device id.
 * Frees k. ps_kmsg_stop(NULL, ...) gives {"available": false}.
 */
json_object *ps_kmsg_stop(struct ps_kmsg *k, const struct ps_inventory *inv);

/*
 * While probestick owns the console: kernel messages below KERN_CRIT stop
 * reaching it (klogctl SYSLOG_ACTION_CONSOLE_LEVEL); they are in the
 * report instead. Left alone when the kernel command line asks for kernel
 * messages (loglevel=, debug, ignore_loglevel), as /init does.
 * ps_kmsg_console_restore() puts the previous level back. 0 or -errno.
 */
int ps_kmsg_console_quiet(void);
int ps_kmsg_console_restore(void);

extern const struct ps_view ps_kmsg_view;

/* ---- the pure part: records, decoders, the summary (kmsg_decode.c, kmsg.c) ---- */

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

/*
 * The summary behind ps_kmsg_stop, fed by hand with recorded records (unit
 * tests, replays). feed() splits a byte stream in /dev/kmsg's format (one
 * record per line, continuation lines start with a space); add() takes one
 * parsed record; lost() counts records the kernel overwrote before they
 * were read; end() tells when the step ended (0, unknown: a NIC link down
 * at the end is not judged). finish() builds the "kmsg" object and frees acc; inv may be
 * NULL (names stay the kernel's, no device ids).
 */
struct ps_kmsg_acc;
struct ps_kmsg_acc *ps_kmsg_acc_new(void);
void ps_kmsg_acc_add(struct ps_kmsg_acc *acc, const struct ps_kmsg_record *r);
void ps_kmsg_acc_feed(struct ps_kmsg_acc *acc, const char *buf, size_t len);
void ps_kmsg_acc_lost(struct ps_kmsg_acc *acc, uint64_t n);
/* The step's end on the log's clock (us since boot): a NIC link still down then is judged. */
void ps_kmsg_acc_end(struct ps_kmsg_acc *acc, uint64_t usec);
json_object *ps_kmsg_acc_finish(struct ps_kmsg_acc *acc, const struct ps_inventory *inv);

/* {"available": false, "reason": reason, ...}: no /dev/kmsg to read. */
json_object *ps_kmsg_unavailable(const char *reason);

#endif
