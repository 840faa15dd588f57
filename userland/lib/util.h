/* util.h - small file and sysfs helpers shared by the core and the probes. */
#ifndef PS_UTIL_H
#define PS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define PS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Every path the probes read goes through a root prefix: "" on a live
 * system, a recorded fixture tree (tests/fixtures/...) in unit tests.
 * ps_path() joins root and a printf-style path into buf; returns buf.
 */
char *ps_path(char *buf, size_t len, const char *root, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Read a small text file (sysfs attribute) into buf, NUL-terminated, with
 * trailing white space removed. Returns the length or a negative errno.
 */
int ps_read_str(const char *path, char *buf, size_t len);

/* Copy src into dst (room len), cut at len - 1 bytes, always terminated. */
void ps_copy_str(char *dst, size_t len, const char *src);

/* Parse the file as an unsigned integer (base 0: "0x1f", "42"). 0 or -errno. */
int ps_read_u64(const char *path, uint64_t *val);

/* Parse the file as a signed decimal integer (sysfs's "-1" for unknown). 0 or -errno. */
int ps_read_s64(const char *path, int64_t *val);

/*
 * The same parsers over an attribute's text as ps_read_str() leaves it
 * (at most 63 bytes are looked at, trailing white space ignored): 0,
 * -ENODATA when empty, -EINVAL when not a whole number in range. Pure.
 */
int ps_parse_u64(const char *text, uint64_t *val);
int ps_parse_s64(const char *text, int64_t *val);

/* Read a whole file (binary allowed) into a malloc'd buffer; -errno on error. */
int ps_read_all(const char *path, char **data, size_t *len);

/* Basename of a symlink's target (e.g. the driver of a device), or -errno. */
int ps_link_name(const char *path, char *buf, size_t len);

/*
 * Write data to dir/name so that a cut leaves either the old file or the
 * new one, never a torn one: ps_store_write() of the stick store
 * (lib/store.h), the one way files reach the stick; kept for its callers.
 */
int ps_write_atomic(const char *dir, const char *name, const void *data, size_t len);

/* mkdir -p, each new folder synced (ps_store_mkdirs); 0 or -errno. */
int ps_mkdirs(const char *path, unsigned int mode);

/* The prefix length of a netmask in host byte order (0xffffff00: 24), or -1 when its ones
 * are not contiguous. Pure. */
int ps_netmask_len(uint32_t mask);

/* Rounds to the given number of decimals (report values stay short and stable). */
double ps_round(double v, int decimals);

/* Seconds on CLOCK_MONOTONIC: durations, rates and deadlines. */
double ps_mono_now(void);

/*
 * A size with a unit (K, M, G, T: binary; "256M") into *bytes and *pct 0,
 * or "N%" (1..90) of the available memory into *pct and *bytes 0 (the
 * memtest= setting). Pure; -EINVAL.
 */
int ps_memtest_spec_parse(const char *s, uint64_t *bytes, unsigned int *pct);

/* "90s", "10m", "1h", "1h30m" (a bare number is seconds), 10 s to 7 days. Pure; -EINVAL. */
int ps_duration_parse(const char *s, unsigned int *seconds);

/* text as the index of one of names[] (NULL-terminated) into *out (an int); -EINVAL and why. */
int ps_parse_choice(const char *text, const char *const *names, void *out, char *why,
		    size_t whylen);

/* Entries of dir (no "." / ".."), in natural order (sda, sdb, sdaa; nvme2 < nvme10). */
struct ps_dirlist {
	char **names;
	size_t n;
};
int ps_dir_list(const char *dir, struct ps_dirlist *list);
void ps_dir_free(struct ps_dirlist *list);

/* Count dir's entries whose name starts with prefix ("" for all); -errno if dir is missing. */
int ps_dir_count(const char *dir, const char *prefix);

#endif
