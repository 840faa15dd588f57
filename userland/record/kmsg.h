/*
 * kmsg.h - the third per-step recorder: the kernel log (/dev/kmsg) during
 * one step, kept bounded in the report, with its errors and warnings
 * summarised per device (steps[].kmsg, docs/report.md). The decoders are
 * pure functions over one record's text (decode/kmsg.h).
 */
#ifndef PS_KMSG_H
#define PS_KMSG_H

#include "decode/kmsg.h"
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

/* ---- the summary, fed by hand in tests (kmsg.c; the decoders are decode/kmsg.h) ---- */

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
