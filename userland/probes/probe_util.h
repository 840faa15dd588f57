/* probe_util.h - helpers the inventory probes share: sorted directory listings
 * and JSON fields that become null when sysfs has nothing to say. */
#ifndef PS_PROBE_UTIL_H
#define PS_PROBE_UTIL_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/* Entries of dir (no "." / ".."), in natural order (sda, sdb, sdaa; nvme2 < nvme10). */
struct ps_dirlist {
	char **names;
	size_t n;
};
int ps_dir_list(const char *dir, struct ps_dirlist *list);
void ps_dir_free(struct ps_dirlist *list);

/* Add key = string s, or null when s is NULL or empty. */
void ps_json_add_str(json_object *obj, const char *key, const char *s);
/* Add key = the trimmed text of the file at path, or null; returns the length or -errno. */
int ps_json_add_file(json_object *obj, const char *key, const char *path);
/* Add key = v, or null when v < 0. */
void ps_json_add_int(json_object *obj, const char *key, int64_t v);
/* Count dir's entries whose name starts with prefix ("" for all); -errno if dir is missing. */
int ps_dir_count(const char *dir, const char *prefix);
/* MemTotal of root's /proc/meminfo in bytes, or -errno. */
int64_t ps_meminfo_total(const char *root);

#endif
