/*
 * drives.c - drives[] of the report: every whole disk with its identity,
 * geometry, transport and negotiated link; and which disk is the boot stick.
 */
#include "decode.h"
#include "probe_util.h"
#include "probes.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Not drives: virtual, optical, floppy, and eMMC boot/RPMB areas. */
static bool skip_name(const char *name)
{
	static const char *const prefixes[] = {"loop", "ram", "zram", "dm-", "md",
					       "nbd",  "sr",  "fd",   "zd"};

	for (size_t i = 0; i < PS_ARRAY_SIZE(prefixes); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return strncmp(name, "mmcblk", 6) == 0 && (strstr(name, "boot") || strstr(name, "rpmb"));
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void add_bool_file(json_object *o, const char *key, const char *path)
{
	uint64_t v;

	json_object_object_add(
	    o, key, ps_read_u64(path, &v) == 0 && v <= 1 ? json_object_new_boolean(v) : NULL);
}

static void add_u64_file(json_object *o, const char *key, const char *path, uint64_t mult)
{
	uint64_t v;

	ps_json_add_int(
	    o, key, ps_read_u64(path, &v) == 0 && v <= INT64_MAX / mult ? (int64_t)(v * mult) : -1);
}

/* "PCIe 8.0 GT/s x2" from the controller function's sysfs attributes. */
static void pcie_link_text(const char *root, const char *pci, char *out, size_t len)
{
	char path[PATH_MAX], speed[64], width[64];
	int s, w;

	out[0] = '\0';
	ps_read_str(
	    ps_path(path, sizeof(path), root, "/sys/bus/pci/devices/%s/current_link_speed", pci),
	    speed, sizeof(speed));
	ps_read_str(
	    ps_path(path, sizeof(path), root, "/sys/bus/pci/devices/%s/current_link_width", pci),
	    width, sizeof(width));
	s = ps_pcie_parse_sysfs_speed(speed);
	w = ps_pcie_parse_sysfs_width(width);
	if (s > 0 && w > 0)
		snprintf(out, len, "PCIe %.1f GT/s x%d", ps_pcie_speed_gts(s), w);
}

/* The NVMe controller directory of a namespace (multipath heads sit on a subsystem). */
static int nvme_controller(const char *root, const char *name, char *ctrl, size_t len)
{
	char path[PATH_MAX];
	struct ps_dirlist list;
	const char *base;

	ps_path(path, sizeof(path), root, "/sys/class/block/%s/device", name);
	if (!realpath(path, ctrl))
		return -errno;
	base = strrchr(ctrl, '/');
	if (!base || strncmp(base + 1, "nvme-subsys", 11) != 0)
		return 0;
	if (ps_dir_list(ctrl, &list) < 0)
		return -ENOENT;
	for (size_t i = 0; i < list.n; i++) {
		char sub[PATH_MAX];

		if (strncmp(list.names[i], "nvme", 4) != 0 ||
		    strspn(list.names[i] + 4, "0123456789") != strlen(list.names[i] + 4) ||
		    !list.names[i][4])
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", ctrl, list.names[i]) <
			(int)sizeof(path) &&
		    realpath(path, sub)) {
			snprintf(ctrl, len, "%s", sub);
			ps_dir_free(&list);
			return 0;
		}
	}
	ps_dir_free(&list);
	return -ENOENT;
}

static void scsi_identity(const char *dev, json_object *o)
{
	char path[PATH_MAX], vendor[64] = "", model[128] = "", both[200], serial[128];
	char *page;
	size_t len;

	ps_read_str(ps_path(path, sizeof(path), "", "%s/vendor", dev), vendor, sizeof(vendor));
	ps_read_str(ps_path(path, sizeof(path), "", "%s/model", dev), model, sizeof(model));
	/* libata says "ATA" for every disk: the model alone names it */
	if (vendor[0] && strcmp(vendor, "ATA") != 0 && model[0])
		snprintf(both, sizeof(both), "%s %s", vendor, model);
	else
		snprintf(both, sizeof(both), "%s", model);
	ps_json_add_str(o, "model", both);
	serial[0] = '\0';
	if (ps_read_all(ps_path(path, sizeof(path), "", "%s/vpd_pg80", dev), &page, &len) == 0) {
		if (ps_vpd_pg80_serial((const uint8_t *)page, len, serial, sizeof(serial)) < 0)
			serial[0] = '\0';
		free(page);
	}
	ps_json_add_str(o, "serial", serial);
	ps_json_add_file(o, "firmware", ps_path(path, sizeof(path), "", "%s/rev", dev));
}

static json_object *drive_json(const char *root, const char *name, const char *boot_disk)
{
	char path[PATH_MAX], real[PATH_MAX] = "", dev[PATH_MAX], pci[32] = "", link[64] = "";
	json_object *o = json_object_new_object();
	enum ps_transport tr;
	int ata = -1;

	ps_path(path, sizeof(path), root, "/sys/class/block/%s", name);
	if (!realpath(path, real))
		real[0] = '\0';
	tr = ps_drive_transport(real, &ata);
	ps_path(dev, sizeof(dev), root, "/sys/class/block/%s/device", name);

	json_object_object_add(o, "name", json_object_new_string(name));
	snprintf(path, sizeof(path), "/dev/%s", name);
	json_object_object_add(o, "path", json_object_new_string(path));

	if (tr == PS_TR_NVME) {
		char ctrl[PATH_MAX];

		if (nvme_controller(root, name, ctrl, sizeof(ctrl)) == 0) {
			ps_json_add_file(o, "model",
					 ps_path(path, sizeof(path), "", "%s/model", ctrl));
			ps_json_add_file(o, "serial",
					 ps_path(path, sizeof(path), "", "%s/serial", ctrl));
			ps_json_add_file(o, "firmware",
					 ps_path(path, sizeof(path), "", "%s/firmware_rev", ctrl));
			ps_pci_ancestor(ctrl, 0, pci, sizeof(pci));
		} else {
			ps_json_add_str(o, "model", NULL);
			ps_json_add_str(o, "serial", NULL);
			ps_json_add_str(o, "firmware", NULL);
		}
	} else if (tr == PS_TR_MMC) {
		ps_json_add_file(o, "model", ps_path(path, sizeof(path), "", "%s/name", dev));
		ps_json_add_file(o, "serial", ps_path(path, sizeof(path), "", "%s/serial", dev));
		ps_json_add_file(o, "firmware", ps_path(path, sizeof(path), "", "%s/fwrev", dev));
	} else if (file_exists(ps_path(path, sizeof(path), "", "%s/model", dev))) {
		scsi_identity(dev, o);
	} else {
		/* virtio-blk: no model or firmware, a serial beside the disk */
		ps_json_add_str(o, "model", NULL);
		ps_json_add_file(
		    o, "serial",
		    ps_path(path, sizeof(path), root, "/sys/class/block/%s/serial", name));
		ps_json_add_str(o, "firmware", NULL);
	}

	add_u64_file(o, "size_bytes",
		     ps_path(path, sizeof(path), root, "/sys/class/block/%s/size", name), 512);
	add_u64_file(
	    o, "logical_sector",
	    ps_path(path, sizeof(path), root, "/sys/class/block/%s/queue/logical_block_size", name),
	    1);
	add_u64_file(o, "physical_sector",
		     ps_path(path, sizeof(path), root,
			     "/sys/class/block/%s/queue/physical_block_size", name),
		     1);
	add_bool_file(
	    o, "rotational",
	    ps_path(path, sizeof(path), root, "/sys/class/block/%s/queue/rotational", name));
	add_bool_file(o, "removable",
		      ps_path(path, sizeof(path), root, "/sys/class/block/%s/removable", name));

	if (tr == PS_TR_ATA && ata >= 0) {
		char spd[64];

		if (ps_read_str(ps_path(path, sizeof(path), root,
					"/sys/class/ata_link/link%d/sata_spd", ata),
				spd, sizeof(spd)) > 0 &&
		    ps_sata_link_text(spd, link, sizeof(link)) == 0)
			tr = PS_TR_SATA;
		else
			link[0] = '\0';
	}
	if (!pci[0])
		ps_pci_ancestor(real, 0, pci, sizeof(pci));
	if (tr == PS_TR_NVME && pci[0])
		pcie_link_text(root, pci, link, sizeof(link));
	json_object_object_add(o, "transport", json_object_new_string(ps_transport_name(tr)));
	ps_json_add_str(o, "link", link);
	add_u64_file(o, "queue_depth", ps_path(path, sizeof(path), "", "%s/queue_depth", dev), 1);
	ps_json_add_str(o, "pci_address", pci);
	json_object_object_add(o, "boot_device",
			       json_object_new_boolean(boot_disk && strcmp(boot_disk, name) == 0));
	return o;
}

int ps_probe_drives(const char *root, const char *boot_disk, json_object *drives)
{
	char path[PATH_MAX];
	struct ps_dirlist list;
	int r = ps_dir_list(ps_path(path, sizeof(path), root, "/sys/class/block"), &list);

	if (r < 0)
		return r;
	for (size_t i = 0; i < list.n; i++) {
		const char *name = list.names[i];
		uint64_t hidden = 0;

		if (skip_name(name) || file_exists(ps_path(path, sizeof(path), root,
							   "/sys/class/block/%s/partition", name)))
			continue;
		/* per-path namespaces of NVMe multipath (nvme0c0n1) */
		ps_read_u64(ps_path(path, sizeof(path), root, "/sys/class/block/%s/hidden", name),
			    &hidden);
		if (hidden)
			continue;
		json_object_array_add(drives, drive_json(root, name, boot_disk));
	}
	ps_dir_free(&list);
	return 0;
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

int ps_boot_disk(const char *root, const char *dir, char *disk, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX], *data, *save = NULL;
	unsigned int major = 0, minor = 0;
	bool found = false;
	size_t dlen;
	int r;

	if (!dir || !dir[0])
		return -EINVAL;
	r = ps_read_all(ps_path(path, sizeof(path), root, "/proc/self/mountinfo"), &data, &dlen);
	if (r < 0)
		return r;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char mnt[PATH_MAX];
		unsigned int ma, mi;

		/* "36 25 8:17 / /stick rw,... - vfat /dev/sdb1 rw" */
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3)
			continue;
		unescape(mnt);
		if (strcmp(mnt, dir) == 0) {
			/* the last one wins: it hides the ones below */
			major = ma;
			minor = mi;
			found = true;
		}
	}
	free(data);
	if (!found)
		return -ENOENT;
	ps_path(path, sizeof(path), root, "/sys/dev/block/%u:%u", major, minor);
	if (!realpath(path, real))
		return -errno;
	if (file_exists(ps_path(path, sizeof(path), "", "%s/partition", real))) {
		char *slash = strrchr(real, '/');

		if (!slash)
			return -EINVAL;
		*slash = '\0';
	}
	snprintf(disk, len, "%s", strrchr(real, '/') ? strrchr(real, '/') + 1 : real);
	return 0;
}
