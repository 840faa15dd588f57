/*
 * drive_use.h - what a drive holds and whether the running system uses it:
 * its partition table, filesystems with labels and sizes, md/LVM/ZFS
 * signatures (libblkid), mounted filesystems (/proc/self/mountinfo), holders
 * such as an assembled md array or an LVM/dm device (/sys/.../holders) and
 * swap (/proc/swaps). Shown before a drive is confirmed as scratch, and the
 * facts core/scratch.c decides on.
 */
#ifndef PS_HW_DRIVE_USE_H
#define PS_HW_DRIVE_USE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_USE_PARTS 16

/* One signature libblkid found: on the whole disk, or in a partition. */
struct ps_blk_content {
	char where[32]; /* "sdb1", or the disk's own name for a whole-disk signature */
	char type[32];	/* "ext4", "vfat", "linux_raid_member", "LVM2_member", "zfs_member", "" */
	char label[64]; /* "" when none */
	char uuid[64];	/* "" when none */
	int64_t bytes;	/* the partition's (or the disk's) size, PS_UNKNOWN (-1) */
	int partno;	/* 0 for the whole disk */
	char part_type[48]; /* partition type ("0x83", GPT type GUID), "" */
};

struct ps_drive_use {
	/* how the running system uses it */
	bool mounted;
	char mount_point[256]; /* the first mount found, "/stick (sdb1)" */
	bool held;	       /* a holder (md, dm: LVM, dm-crypt, multipath) sits on it or a
				  partition: an active array or volume member */
	char holder[64];       /* "md0 (on sdb1)" */
	bool swap;
	char swap_dev[64];
	/* what it holds */
	bool probed;	 /* libblkid read the disk */
	int probe_error; /* 0, or the negative errno of opening or probing */
	char ptable[16]; /* "gpt", "dos", "" when none */
	struct ps_blk_content parts[PS_USE_PARTS + 1]; /* [0] may be the whole disk */
	size_t n_parts;
	size_t n_partitions; /* the table's entries, even past PS_USE_PARTS */
};

/*
 * Read the use and contents of disk name ("sdb", "nvme0n1") below root ("" live):
 * mountinfo and holders of the disk and its partitions, swaps, and a read-only
 * libblkid probe of dev_path. 0 (probe errors are recorded in u->probe_error).
 */
int ps_drive_use_read(const char *root, const char *name, const char *dev_path,
		      struct ps_drive_use *u);

/* One line per signature, for the menu and the report: "sdb1 ext4 'data' 500.1 GB". */
void ps_drive_use_text(const struct ps_drive_use *u, char *out, size_t len);

/* The same as JSON for a step's data: {"partition_table", "contents":[...], "mounted", ...}. */
json_object *ps_drive_use_json(const struct ps_drive_use *u);

#endif
