/* hw_util.h - helpers the inventory readers share: sorted directory listings
 * and MemTotal. */
#ifndef PS_PROBE_UTIL_H
#define PS_PROBE_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Entries of dir (no "." / ".."), in natural order (sda, sdb, sdaa; nvme2 < nvme10). */
struct ps_dirlist {
	char **names;
	size_t n;
};
int ps_dir_list(const char *dir, struct ps_dirlist *list);
void ps_dir_free(struct ps_dirlist *list);

/* Count dir's entries whose name starts with prefix ("" for all); -errno if dir is missing. */
int ps_dir_count(const char *dir, const char *prefix);

/* MemTotal of root's /proc/meminfo in bytes, or -errno. */
int64_t ps_meminfo_total(const char *root);

#endif
