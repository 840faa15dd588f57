/* drive_use.c - what a drive holds (libblkid, read-only) and whether the running
 * system uses it (mountinfo, sysfs holders, swaps): drive_use.h. */
#include "hw/drive_use.h"
#include "decode/decode.h"
#include "hw/hw_util.h"
#include "lib/util.h"
#include "lib/json.h"

#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct part_dev {
	char name[64];
	unsigned int major, minor;
};

/* The disk and its partitions as sysfs lists them, with their device numbers. */
static size_t list_devs(const char *root, const char *name, struct part_dev *out, size_t max)
{
	char path[PATH_MAX], dev[32];
	struct ps_dirlist list;
	size_t n = 0;

	ps_path(path, sizeof(path), root, "/sys/class/block/%s/dev", name);
	if (ps_read_str(path, dev, sizeof(dev)) > 0 &&
	    sscanf(dev, "%u:%u", &out[0].major, &out[0].minor) == 2) {
		snprintf(out[0].name, sizeof(out[0].name), "%s", name);
		n = 1;
	}
	if (ps_dir_list(ps_path(path, sizeof(path), root, "/sys/class/block/%s", name), &list) < 0)
		return n;
	for (size_t i = 0; i < list.n && n < max; i++) {
		const char *p = list.names[i];

		if (strncmp(p, name, strlen(name)) != 0)
			continue;
		ps_path(path, sizeof(path), root, "/sys/class/block/%s/%s/partition", name, p);
		if (access(path, F_OK) != 0)
			continue;
		ps_path(path, sizeof(path), root, "/sys/class/block/%s/%s/dev", name, p);
		if (ps_read_str(path, dev, sizeof(dev)) <= 0 ||
		    sscanf(dev, "%u:%u", &out[n].major, &out[n].minor) != 2)
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "%s", p);
		n++;
	}
	ps_dir_free(&list);
	return n;
}

static void read_mounts(const char *root, const struct part_dev *devs, size_t n,
			struct ps_drive_use *u)
{
	char path[PATH_MAX], *data, *save = NULL;
	size_t len;

	if (ps_read_all(ps_path(path, sizeof(path), root, "/proc/self/mountinfo"), &data, &len) < 0)
		return;
	for (char *line = strtok_r(data, "\n", &save); line && !u->mounted;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int ma, mi;
		char mnt[200];

		if (sscanf(line, "%*u %*u %u:%u %*s %199s", &ma, &mi, mnt) != 3)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (devs[i].major != ma || devs[i].minor != mi)
				continue;
			u->mounted = true;
			snprintf(u->mount_point, sizeof(u->mount_point), "%.180s (%.60s)", mnt,
				 devs[i].name);
			break;
		}
	}
	free(data);
}

static void read_holders(const char *root, const char *disk, const struct part_dev *devs, size_t n,
			 struct ps_drive_use *u)
{
	for (size_t i = 0; i < n && !u->held; i++) {
		char path[PATH_MAX], dmname[64] = "";
		struct ps_dirlist list;

		if (i == 0)
			ps_path(path, sizeof(path), root, "/sys/class/block/%s/holders", disk);
		else
			ps_path(path, sizeof(path), root, "/sys/class/block/%s/%s/holders", disk,
				devs[i].name);
		if (ps_dir_list(path, &list) < 0)
			continue;
		if (list.n) {
			u->held = true;
			ps_path(path, sizeof(path), root, "/sys/class/block/%s/dm/name",
				list.names[0]);
			ps_read_str(path, dmname, sizeof(dmname));
			snprintf(u->holder, sizeof(u->holder), "%.16s%s%.24s%s on %.12s",
				 list.names[0], dmname[0] ? " (" : "", dmname, dmname[0] ? ")" : "",
				 devs[i].name);
		}
		ps_dir_free(&list);
	}
}

static void read_swaps(const char *root, const struct part_dev *devs, size_t n,
		       struct ps_drive_use *u)
{
	char path[PATH_MAX], *data, *save = NULL;
	size_t len;

	if (ps_read_all(ps_path(path, sizeof(path), root, "/proc/swaps"), &data, &len) < 0)
		return;
	for (char *line = strtok_r(data, "\n", &save); line && !u->swap;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[200];

		if (sscanf(line, "%199s", dev) != 1 || strncmp(dev, "/dev/", 5) != 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (strcmp(dev + 5, devs[i].name) == 0) {
				u->swap = true;
				ps_copy_str(u->swap_dev, sizeof(u->swap_dev), devs[i].name);
			}
	}
	free(data);
}

static void lookup(blkid_probe pr, const char *key, char *out, size_t len)
{
	const char *v = NULL;
	size_t n = 0;

	out[0] = '\0';
	if (blkid_probe_lookup_value(pr, key, &v, &n) == 0 && v)
		ps_text_clean(v, strnlen(v, n), NULL, out, len);
}

/* Superblock probe of [off, off + size) of fd into c; true when something was found. */
static bool probe_region(int fd, int64_t off, int64_t size, struct ps_blk_content *c)
{
	blkid_probe pr = blkid_new_probe();
	bool found = false;

	if (!pr)
		return false;
	if (blkid_probe_set_device(pr, fd, off, size) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
							  BLKID_SUBLKS_TYPE);
		blkid_probe_enable_partitions(pr, 0);
		if (blkid_do_safeprobe(pr) == 0) {
			lookup(pr, "TYPE", c->type, sizeof(c->type));
			lookup(pr, "LABEL", c->label, sizeof(c->label));
			lookup(pr, "UUID", c->uuid, sizeof(c->uuid));
			found = c->type[0] != '\0';
		}
	}
	blkid_free_probe(pr);
	return found;
}

static void part_name(const char *disk, int partno, char *out, size_t len)
{
	size_t n = strlen(disk);

	/* nvme0n1p1, mmcblk0p1, but sdb1 */
	if (n && disk[n - 1] >= '0' && disk[n - 1] <= '9')
		snprintf(out, len, "%sp%d", disk, partno);
	else
		snprintf(out, len, "%s%d", disk, partno);
}

static void probe_contents(const char *name, const char *dev_path, struct ps_drive_use *u)
{
	int fd = open(dev_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	blkid_probe pr;
	blkid_partlist pl;
	int64_t disk_bytes;

	if (fd < 0) {
		u->probe_error = -errno;
		return;
	}
	disk_bytes = (int64_t)lseek(fd, 0, SEEK_END);
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		u->probe_error = -ENOMEM;
		if (pr)
			blkid_free_probe(pr);
		close(fd);
		return;
	}
	u->probed = true;
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_enable_superblocks(pr, 0);
	pl = blkid_do_safeprobe(pr) == 0 ? blkid_probe_get_partitions(pr) : NULL;
	if (pl) {
		blkid_parttable t = blkid_partlist_get_table(pl);
		int np = blkid_partlist_numof_partitions(pl);

		if (t && blkid_parttable_get_type(t))
			snprintf(u->ptable, sizeof(u->ptable), "%s", blkid_parttable_get_type(t));
		u->n_partitions = np > 0 ? (size_t)np : 0;
		for (int i = 0; i < np && u->n_parts < PS_USE_PARTS; i++) {
			blkid_partition p = blkid_partlist_get_partition(pl, i);
			struct ps_blk_content *c = &u->parts[u->n_parts++];
			int64_t start = (int64_t)blkid_partition_get_start(p) * 512;
			int64_t size = (int64_t)blkid_partition_get_size(p) * 512;
			const char *ts = blkid_partition_get_type_string(p);

			memset(c, 0, sizeof(*c));
			c->partno = blkid_partition_get_partno(p);
			part_name(name, c->partno, c->where, sizeof(c->where));
			c->bytes = size;
			if (ts)
				snprintf(c->part_type, sizeof(c->part_type), "%s", ts);
			else
				snprintf(c->part_type, sizeof(c->part_type), "0x%x",
					 (unsigned int)blkid_partition_get_type(p));
			if (size > 0)
				probe_region(fd, start, size, c);
		}
	}
	blkid_free_probe(pr);
	if (!u->ptable[0]) {
		/* no partition table: a filesystem or a member signature on the whole disk */
		struct ps_blk_content *c = &u->parts[u->n_parts];

		memset(c, 0, sizeof(*c));
		snprintf(c->where, sizeof(c->where), "%s", name);
		c->bytes = disk_bytes > 0 ? disk_bytes : PS_UNKNOWN;
		if (probe_region(fd, 0, 0, c))
			u->n_parts++;
	}
	close(fd);
}

int ps_drive_use_read(const char *root, const char *name, const char *dev_path,
		      struct ps_drive_use *u)
{
	struct part_dev devs[64];
	size_t n;

	memset(u, 0, sizeof(*u));
	n = list_devs(root, name, devs, PS_ARRAY_SIZE(devs));
	read_mounts(root, devs, n, u);
	read_holders(root, name, devs, n, u);
	read_swaps(root, devs, n, u);
	probe_contents(name, dev_path, u);
	return 0;
}

static void size_text(int64_t b, char *out, size_t len)
{
	if (b < 0)
		snprintf(out, len, "size unknown");
	else if (b >= 1000000000000LL)
		snprintf(out, len, "%.1f TB", (double)b / 1e12);
	else if (b >= 1000000000LL)
		snprintf(out, len, "%.1f GB", (double)b / 1e9);
	else
		snprintf(out, len, "%.1f MB", (double)b / 1e6);
}

void ps_drive_use_text(const struct ps_drive_use *u, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
#define ADD(...) o += (size_t)snprintf(out + o, o < len ? len - o : 0, __VA_ARGS__)
	if (u->probe_error)
		ADD("  cannot read it: %s\n", strerror(-u->probe_error));
	if (u->ptable[0])
		ADD("  partition table: %s, %zu partitions\n", u->ptable, u->n_partitions);
	for (size_t i = 0; i < u->n_parts; i++) {
		const struct ps_blk_content *c = &u->parts[i];
		char sz[32];

		size_text(c->bytes, sz, sizeof(sz));
		ADD("  %-10s %-18s %s%s%s %s\n", c->where, c->type[0] ? c->type : "(no signature)",
		    c->label[0] ? "'" : "", c->label, c->label[0] ? "'" : "", sz);
	}
	if (u->probed && !u->ptable[0] && u->n_parts == 0)
		ADD("  no partition table and no filesystem or array signature found\n");
	if (u->mounted)
		ADD("  MOUNTED at %s\n", u->mount_point);
	if (u->held)
		ADD("  IN USE by %s\n", u->holder);
	if (u->swap)
		ADD("  SWAP on %s\n", u->swap_dev);
#undef ADD
}

json_object *ps_drive_use_json(const struct ps_drive_use *u)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	ps_json_set_str(o, "partition_table", u->ptable);
	for (size_t i = 0; i < u->n_parts; i++) {
		const struct ps_blk_content *c = &u->parts[i];
		json_object *e = json_object_new_object();

		ps_json_set_str(e, "where", c->where);
		ps_json_set(e, "partno", c->partno ? json_object_new_int(c->partno) : NULL);
		ps_json_set_str(e, "part_type", c->part_type);
		ps_json_set_str(e, "type", c->type);
		ps_json_set_str(e, "label", c->label);
		ps_json_set_str(e, "uuid", c->uuid);
		ps_json_set_count(e, "bytes", c->bytes);
		json_object_array_add(a, e);
	}
	ps_json_set(o, "contents", a);
	ps_json_set(o, "partitions", json_object_new_int((int)u->n_partitions));
	ps_json_set_str(o, "mounted_at", u->mounted ? u->mount_point : NULL);
	ps_json_set_str(o, "held_by", u->held ? u->holder : NULL);
	ps_json_set_str(o, "swap", u->swap ? u->swap_dev : NULL);
	if (u->probe_error)
		ps_json_set_str(o, "probe_error", strerror(-u->probe_error));
	return o;
}
