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

/* Parse the file as an unsigned integer (base 0: "0x1f", "42"). 0 or -errno. */
int ps_read_u64(const char *path, uint64_t *val);

/* Parse the file as a signed decimal integer (sysfs's "-1" for unknown). 0 or -errno. */
int ps_read_s64(const char *path, int64_t *val);

/* Read a whole file (binary allowed) into a malloc'd buffer; -errno on error. */
int ps_read_all(const char *path, char **data, size_t *len);

/* Basename of a symlink's target (e.g. the driver of a device), or -errno. */
int ps_link_name(const char *path, char *buf, size_t len);

/*
 * Write data to dir/name so that a crash leaves either the old file or the
 * new one, never a torn one: temporary file, fsync, rename, fsync(dir).
 */
int ps_write_atomic(const char *dir, const char *name, const void *data, size_t len);

/* mkdir -p; 0 or -errno. */
int ps_mkdirs(const char *path, unsigned int mode);

#endif
