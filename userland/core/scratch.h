/*
 * scratch.h - which drives a step may write: a scratch drive is named by its
 * serial (probestick.cfg scratch=SERIAL[,SERIAL], --scratch SERIAL, or the
 * menu's typed confirmation) and is refused, with the reason, when it is the
 * boot stick, holds a mounted filesystem or swap, or is an active md/LVM/dm
 * member. One decision for every writing step (disk_write, arrays).
 */
#ifndef PS_CORE_SCRATCH_H
#define PS_CORE_SCRATCH_H

#include "core/config.h"
#include "hw/drive_use.h"
#include "hw/inventory.h"

#include <stdbool.h>
#include <stddef.h>

enum ps_scratch_verdict {
	PS_SCRATCH_OK = 0,
	PS_SCRATCH_NOT_NAMED, /* no confirmation named this drive's serial */
	PS_SCRATCH_NO_SERIAL, /* the drive reports no serial: it cannot be named */
	PS_SCRATCH_BOOT,      /* the stick probestick booted from */
	PS_SCRATCH_MOUNTED,   /* a filesystem on it is mounted */
	PS_SCRATCH_SWAP,      /* swap is on it */
	PS_SCRATCH_HELD,      /* an active md array or dm/LVM device sits on it */
	PS_SCRATCH_UNREAD,    /* what it holds could not be read, so it cannot be shown */
};

/* "ok", "not_named", "no_serial", "boot_stick", "mounted", "swap", "in_use", "unread". */
const char *ps_scratch_verdict_name(enum ps_scratch_verdict v);

/*
 * Parse a scratch= value: serials separated by commas, blanks around them
 * dropped. 0, or -EINVAL with why (an empty serial, a control byte, too
 * many, too long). Pure.
 */
int ps_scratch_parse(const char *csv, struct ps_scratch_list *l, char *why, size_t whylen);

/* True when cfg names at least one scratch serial (the step can have a target). */
bool ps_scratch_named(const struct ps_config *cfg);

/* True when serial is in the list (exact, after trimming blanks). */
bool ps_scratch_listed(const struct ps_scratch_list *l, const char *serial);

/*
 * Split the named serials into those some drive of drives[n] carries (its
 * serial, or what sysfs said before smartctl's identity) and those no drive
 * here has (scratch=NOPE, a drive taken out): returns how many are missing.
 * Pure.
 */
size_t ps_scratch_split(const struct ps_scratch_list *named, const struct ps_drive *drives,
			size_t n, struct ps_scratch_list *found, struct ps_scratch_list *missing);

/*
 * May drive d be written? Pure: d is the inventory's drive, use what it holds
 * and how it is used (hw/drive_use.h), named the confirmed serials. The reason
 * a person reads goes to why. Refusals win over a confirmation: the boot stick,
 * a mounted or swap or held drive is refused even when named.
 */
enum ps_scratch_verdict ps_scratch_decide(const struct ps_drive *d, const struct ps_drive_use *use,
					  const struct ps_scratch_list *named, char *why,
					  size_t whylen);

struct ps_ctx;

/*
 * The decision a writing step records for one of its drives: what drive d
 * holds, read into *use (path: its device node under ctx's root), the
 * verdict with its reason in why; held_by (NULL: none) names an array that
 * was there before the step and holds d, which refuses a drive the rest let
 * be written. A drive named as scratch and refused anyway is a warn
 * finding "refused", so the person who named it learns why.
 */
enum ps_scratch_verdict ps_scratch_decide_for(struct ps_ctx *ctx, const struct ps_drive *d,
					      const char *path, const char *held_by,
					      struct ps_drive_use *use, char *why, size_t whylen);

/* The view's table of every drive's decision (data.drives[]: name, decision, reason). */
#define PS_SCRATCH_DECISIONS_BLOCK(table)                                                          \
	{                                                                                          \
		.kind = PS_BLOCK_TABLE, .id = "decisions", .title = "Which drives may be written", \
		.rows = "/drives", .cols = (table), .ncols = 3                                     \
	}
#define PS_SCRATCH_DECISION_COLS                                                                   \
	{.path = "/name", .title = "drive", .flags = PS_COL_KEY},                                  \
	    {.path = "/decision", .title = "decision"},                                            \
	{                                                                                          \
		.path = "/reason", .title = "why", .flags = PS_COL_WIDE                            \
	}

#endif
