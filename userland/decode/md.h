/*
 * md.h - the kernel's md software RAID as the array step reads it: the
 * levels it builds and how many drives each needs, the sizes of
 * probestick.cfg's array_chunk= and array_extrapolate=, the progress files
 * of /sys/block/mdX/md (sync_completed, sync_speed, sync_action) and
 * /proc/mdstat. Pure functions, no I/O; tests feed them recorded files.
 */
#ifndef PS_HW_MD_H
#define PS_HW_MD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_MD_MAX_LEVELS  8
#define PS_MD_MAX_ARRAYS  32
#define PS_MD_MAX_MEMBERS 32

/* Levels the array step builds: RAID 0, 1, 5, 6, 10. */
struct ps_md_levels {
	int level[PS_MD_MAX_LEVELS];
	size_t n;
};

/*
 * Parse array=: levels separated by commas ("1,5,6", "raid5" is taken as 5),
 * blanks dropped, each at most once, in the order given. "" gives n = 0.
 * 0, or -EINVAL with why (a level md has no step for, a repeat, too many).
 */
int ps_md_levels_parse(const char *csv, struct ps_md_levels *out, char *why, size_t whylen);

/* The fewest members the step builds a level with: 0 and 1 need 2, 5 needs 3, 6 and 10 need 4;
 * -1 for a level it does not build. */
int ps_md_level_min_drives(int level);

/* Members a level may lose and still serve data: 0 for RAID 0, 1 for 1, 5 and 10, 2 for 6. */
int ps_md_level_redundancy(int level);

/*
 * Parse a size: a number with an optional unit, decimal K/M/G/T/P (also KB,
 * MB...) or binary KiB/MiB/GiB/TiB, B for bytes ("2TB", "512K", "1.5T",
 * "4096"). Case-insensitive for the letter; bytes in *out. 0 or -EINVAL.
 */
int ps_md_size_parse(const char *s, uint64_t *out);

/* array_chunk=: a size from 4K to 64M, a power of two (md's rule); 0 or -EINVAL with why. */
int ps_md_chunk_parse(const char *s, uint64_t *bytes, char *why, size_t whylen);

/* sync_completed: "done / total" in 512-byte sectors, "none" (no sync running) or "delayed". */
enum ps_md_sync_state { PS_MD_SYNC_NONE = 0, PS_MD_SYNC_RUNNING, PS_MD_SYNC_DELAYED };
struct ps_md_sync {
	enum ps_md_sync_state state;
	uint64_t done, total; /* sectors; 0 unless running */
};
/* 0, or -EINVAL for text that is none of these. */
int ps_md_sync_completed_parse(const char *text, struct ps_md_sync *out);

/* sync_speed: KiB/s (md's "K/sec") over the last moments, or "none"; -1 for none, -EINVAL. */
int ps_md_sync_speed_parse(const char *text, int64_t *kib_s);

/* Seconds left at speed for what sync says is left; NAN when either is unknown. */
double ps_md_sync_eta_s(const struct ps_md_sync *sync, int64_t kib_s);

/* One array of /proc/mdstat. */
struct ps_mdstat_array {
	char name[32];	/* "md0" */
	bool active;	/* "active" (or "active (auto-read-only)"), false for "inactive" */
	char level[16]; /* "raid5", "" when inactive */
	char members[PS_MD_MAX_MEMBERS][32]; /* "vdb", in the order mdstat lists them */
	bool faulty[PS_MD_MAX_MEMBERS];	     /* "(F)" */
	bool spare[PS_MD_MAX_MEMBERS];	     /* "(S)" */
	size_t n_members;
	int raid_disks, working; /* [4/3]; -1 when not shown */
	char action[16];	 /* "resync", "recovery", "reshape", "check", "" when none */
	double progress_pct;	 /* of the action; NAN when none */
	double finish_min;	 /* finish=1.2min; NAN when none */
	int64_t speed_kib_s;	 /* speed=1234K/sec; -1 when none */
};

struct ps_mdstat {
	struct ps_mdstat_array a[PS_MD_MAX_ARRAYS];
	size_t n;
	char personalities[128]; /* "[raid1] [raid6] [raid5] [raid4]" */
};

/* Parse /proc/mdstat text (len bytes). 0, or -EINVAL when it does not look like mdstat. */
int ps_mdstat_parse(const char *text, size_t len, struct ps_mdstat *out);

/* The array a member (a disk name: "vdb", also matched as "vdb1") belongs to, or NULL. */
const struct ps_mdstat_array *ps_mdstat_member_of(const struct ps_mdstat *st, const char *disk);

/*
 * A rebuild time scaled to another member size: seconds * to_bytes /
 * from_bytes (a rebuild reads and writes each member's whole data area, so
 * it grows with the member size at the same rate). NAN when unknown or 0.
 */
double ps_md_extrapolate_s(double seconds, uint64_t from_bytes, uint64_t to_bytes);

#endif
