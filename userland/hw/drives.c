/*
 * drives.c - the drives of the inventory: every whole disk with its identity
 * (as smartctl and lsblk give it), geometry, rotation, transport and
 * negotiated link; and which disk is the boot stick.
 */
#include "decode/decode.h"
#include "hw/ata_native.h"
#include "hw/hw_util.h"
#include "hw/hw.h"
#include "hw/readers.h"
#include "lib/util.h"

#include <errno.h>
#include <stddef.h>
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

/* A sysfs text attribute, trimmed at both ends; "" when absent. */
static void read_text(const char *path, char *out, size_t len)
{
	char buf[512];
	const char *p = buf;
	int n = ps_read_str(path, buf, sizeof(buf));

	out[0] = '\0';
	if (n <= 0)
		return;
	while (*p == ' ' || *p == '\t')
		p++;
	ps_copy_str(out, len, p);
}

static int64_t read_count(const char *path, uint64_t mult)
{
	uint64_t v;

	if (ps_read_u64(path, &v) < 0 || v > (uint64_t)INT64_MAX / mult)
		return PS_UNKNOWN;
	return (int64_t)(v * mult);
}

static ps_tri read_bool(const char *path)
{
	uint64_t v;

	return ps_read_u64(path, &v) == 0 && v <= 1 ? (ps_tri)v : PS_TRI_UNKNOWN;
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
			ps_copy_str(ctrl, len, sub);
			ps_dir_free(&list);
			return 0;
		}
	}
	ps_dir_free(&list);
	return -ENOENT;
}

/* A binary sysfs attribute (a VPD page): 0, or -errno / -ENODATA when absent or empty. */
static int read_page(const char *path, char **data, size_t *len)
{
	int r = ps_read_all(path, data, len);

	if (r == 0 && *len == 0) {
		free(*data);
		return -ENODATA;
	}
	return r;
}

static void set_rotation(struct ps_drive *d, int rpm, const char *source)
{
	d->rotation_rpm = rpm;
	d->rotational = rpm == PS_UNKNOWN ? PS_TRI_UNKNOWN : rpm > 1;
	ps_copy_str(d->rotation_source, sizeof(d->rotation_source),
		    rpm == PS_UNKNOWN ? "" : source);
}

/*
 * The disk's identity from its ATA IDENTIFY data, which libata exposes as
 * VPD page 0x89: the full model and firmware (the SCSI translation keeps 16
 * and 4 characters of them), the serial, WWN and rotation rate.
 */
static bool ata_identity(const char *dev, struct ps_drive *d)
{
	char path[PATH_MAX], *page;
	size_t len;
	int r;

	if (read_page(ps_path(path, sizeof(path), "", "%s/vpd_pg89", dev), &page, &len) < 0)
		return false;
	r = ps_vpd_pg89_identify((const uint8_t *)page, len, &d->ata);
	free(page);
	if (r < 0)
		return false;
	d->has_ata = true;
	ps_copy_str(d->model, sizeof(d->model), d->ata.model);
	ps_copy_str(d->firmware, sizeof(d->firmware), d->ata.firmware);
	snprintf(d->identity_source, sizeof(d->identity_source), "ata");
	if (d->ata.serial[0]) {
		ps_copy_str(d->serial, sizeof(d->serial), d->ata.serial);
		snprintf(d->serial_source, sizeof(d->serial_source), "ata");
	}
	ps_wwn_text(d->ata.wwn, d->wwn, sizeof(d->wwn));
	set_rotation(d, d->ata.rotation_rpm, "ata");
	return true;
}

/* The USB device's iSerial (what udev and lsblk show for a USB drive). */
static void usb_serial(const char *real, struct ps_drive *d)
{
	char path[PATH_MAX];
	size_t n = strlen(d->usb_path);

	if (!n)
		return;
	/* the directory of the USB device itself: "/2-1/" or "/2-1" at the end */
	for (const char *at = strstr(real, d->usb_path); at; at = strstr(at + 1, d->usb_path)) {
		if (at[-1] != '/' || (at[n] != '/' && at[n] != '\0'))
			continue;
		if (snprintf(path, sizeof(path), "%.*s/serial", (int)(at - real + (ptrdiff_t)n),
			     real) >= (int)sizeof(path))
			return;
		read_text(path, d->serial, sizeof(d->serial));
		if (d->serial[0])
			snprintf(d->serial_source, sizeof(d->serial_source), "usb");
		return;
	}
}

static void scsi_identity(const char *dev, const char *real, struct ps_drive *d)
{
	char path[PATH_MAX], vendor[64], *page;
	size_t len;
	int rpm;

	read_text(ps_path(path, sizeof(path), "", "%s/vendor", dev), vendor, sizeof(vendor));
	/* libata says "ATA" for every disk: not a vendor */
	ps_copy_str(d->vendor, sizeof(d->vendor), strcmp(vendor, "ATA") == 0 ? "" : vendor);
	if (!ata_identity(dev, d)) {
		read_text(ps_path(path, sizeof(path), "", "%s/model", dev), d->model,
			  sizeof(d->model));
		read_text(ps_path(path, sizeof(path), "", "%s/rev", dev), d->firmware,
			  sizeof(d->firmware));
		if (d->model[0] || d->firmware[0])
			snprintf(d->identity_source, sizeof(d->identity_source), "scsi");
	}
	if (!d->serial[0] &&
	    read_page(ps_path(path, sizeof(path), "", "%s/vpd_pg80", dev), &page, &len) == 0) {
		if (ps_vpd_pg80_serial((const uint8_t *)page, len, d->serial, sizeof(d->serial)) ==
		    0)
			snprintf(d->serial_source, sizeof(d->serial_source), "vpd80");
		else
			d->serial[0] = '\0';
		free(page);
	}
	if (!d->serial[0] && d->transport == PS_TR_USB)
		usb_serial(real, d); /* usb-storage skips the VPD pages of most bridges */
	if (!d->wwn[0] &&
	    read_page(ps_path(path, sizeof(path), "", "%s/vpd_pg83", dev), &page, &len) == 0) {
		if (ps_vpd_pg83_wwn((const uint8_t *)page, len, d->wwn, sizeof(d->wwn)) < 0)
			d->wwn[0] = '\0';
		free(page);
	}
	if (!d->wwn[0]) {
		char wwid[256];

		read_text(ps_path(path, sizeof(path), "", "%s/wwid", dev), wwid, sizeof(wwid));
		if (!wwid[0] || ps_scsi_wwid_wwn(wwid, d->wwn, sizeof(d->wwn)) < 0)
			d->wwn[0] = '\0';
	}
	if (d->rotation_rpm == PS_UNKNOWN &&
	    read_page(ps_path(path, sizeof(path), "", "%s/vpd_pgb1", dev), &page, &len) == 0) {
		if (ps_vpd_pgb1_rotation((const uint8_t *)page, len, &rpm) == 0)
			set_rotation(d, rpm, "vpd_b1");
		free(page);
	}
}

static void drive_read(const char *root, const char *name, const char *boot_disk,
		       struct ps_drive *d)
{
	char path[PATH_MAX], real[PATH_MAX] = "", dev[PATH_MAX], location[128];
	int ata = -1;

	memset(d, 0, sizeof(*d));
	d->size_bytes = PS_UNKNOWN;
	d->logical_sector = d->physical_sector = d->queue_depth = PS_UNKNOWN;
	d->rotation_rpm = d->ata_port = PS_UNKNOWN;
	d->rotational = d->removable = PS_TRI_UNKNOWN;
	ps_copy_str(d->name, sizeof(d->name), name);
	snprintf(d->path, sizeof(d->path), "/dev/%s", name);

	ps_path(path, sizeof(path), root, "/sys/class/block/%s", name);
	if (!realpath(path, real))
		real[0] = '\0';
	d->transport = ps_drive_transport(real, &ata);
	d->ata_port = ata >= 0 ? ata : PS_UNKNOWN;
	if (d->transport == PS_TR_USB)
		ps_usb_device(real, d->usb_path, sizeof(d->usb_path));
	ps_path(dev, sizeof(dev), root, "/sys/class/block/%s/device", name);

	if (d->transport == PS_TR_NVME) {
		char ctrl[PATH_MAX], wwid[256];

		if (nvme_controller(root, name, ctrl, sizeof(ctrl)) == 0) {
			read_text(ps_path(path, sizeof(path), "", "%s/model", ctrl), d->model,
				  sizeof(d->model));
			read_text(ps_path(path, sizeof(path), "", "%s/serial", ctrl), d->serial,
				  sizeof(d->serial));
			read_text(ps_path(path, sizeof(path), "", "%s/firmware_rev", ctrl),
				  d->firmware, sizeof(d->firmware));
			ps_pci_ancestor(ctrl, 0, d->pci_address, sizeof(d->pci_address));
			ps_copy_str(d->nvme_ctrl, sizeof(d->nvme_ctrl), strrchr(ctrl, '/') + 1);
			snprintf(d->identity_source, sizeof(d->identity_source), "nvme");
			if (d->serial[0])
				snprintf(d->serial_source, sizeof(d->serial_source), "nvme");
		}
		/* eui.*, nvme.* or uuid.*: what lsblk shows as its WWN */
		read_text(ps_path(path, sizeof(path), root, "/sys/class/block/%s/wwid", name), wwid,
			  sizeof(wwid));
		ps_copy_str(d->wwn, sizeof(d->wwn), wwid);
		/* NVMe (before 2.0's rotational media) is flash by definition */
		set_rotation(d, 1, "nvme");
	} else if (d->transport == PS_TR_MMC) {
		read_text(ps_path(path, sizeof(path), "", "%s/name", dev), d->model,
			  sizeof(d->model));
		read_text(ps_path(path, sizeof(path), "", "%s/serial", dev), d->serial,
			  sizeof(d->serial));
		read_text(ps_path(path, sizeof(path), "", "%s/fwrev", dev), d->firmware,
			  sizeof(d->firmware));
		snprintf(d->identity_source, sizeof(d->identity_source), "mmc");
		if (d->serial[0])
			snprintf(d->serial_source, sizeof(d->serial_source), "mmc");
		set_rotation(d, 1, "mmc");
	} else if (file_exists(ps_path(path, sizeof(path), "", "%s/model", dev))) {
		scsi_identity(dev, real, d);
	} else {
		/* virtio-blk: no model or firmware, a serial beside the disk */
		read_text(ps_path(path, sizeof(path), root, "/sys/class/block/%s/serial", name),
			  d->serial, sizeof(d->serial));
		if (d->serial[0])
			snprintf(d->serial_source, sizeof(d->serial_source), "virtio");
	}

	d->size_bytes =
	    read_count(ps_path(path, sizeof(path), root, "/sys/class/block/%s/size", name), 512);
	d->logical_sector = (int)read_count(
	    ps_path(path, sizeof(path), root, "/sys/class/block/%s/queue/logical_block_size", name),
	    1);
	d->physical_sector =
	    (int)read_count(ps_path(path, sizeof(path), root,
				    "/sys/class/block/%s/queue/physical_block_size", name),
			    1);
	d->removable =
	    read_bool(ps_path(path, sizeof(path), root, "/sys/class/block/%s/removable", name));

	if (d->transport == PS_TR_ATA && ata >= 0) {
		char spd[64];

		if (ps_read_str(ps_path(path, sizeof(path), root,
					"/sys/class/ata_link/link%d/sata_spd", ata),
				spd, sizeof(spd)) > 0 &&
		    ps_sata_link_text(spd, d->link, sizeof(d->link)) == 0)
			d->transport = PS_TR_SATA;
		else
			d->link[0] = '\0';
	}
	if (!d->pci_address[0])
		ps_pci_ancestor(real, 0, d->pci_address, sizeof(d->pci_address));
	if (d->transport == PS_TR_NVME && d->pci_address[0])
		pcie_link_text(root, d->pci_address, d->link, sizeof(d->link));
	d->queue_depth = (int)read_count(ps_path(path, sizeof(path), "", "%s/queue_depth", dev), 1);
	d->boot_device = boot_disk && strcmp(boot_disk, name) == 0;
	/* HPA and DCO, with read-only commands, where libata passes them on */
	if (d->has_ata && !d->boot_device &&
	    (d->transport == PS_TR_SATA || d->transport == PS_TR_ATA))
		ps_ata_capacity_read(root, name, &d->capacity);
	ps_drive_location(real, name, location, sizeof(location));
	ps_drive_identity(d->wwn, d->model, d->serial, location, d->id, sizeof(d->id));
}

int ps_read_drives(const char *root, const char *boot_disk, struct ps_drive **drives, size_t *n)
{
	char path[PATH_MAX];
	struct ps_dirlist list;
	int r = ps_dir_list(ps_path(path, sizeof(path), root, "/sys/class/block"), &list);

	*drives = NULL;
	*n = 0;
	if (r < 0)
		return r;
	*drives = calloc(list.n ? list.n : 1, sizeof(**drives));
	if (!*drives) {
		ps_dir_free(&list);
		return -ENOMEM;
	}
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
		drive_read(root, name, boot_disk, &(*drives)[(*n)++]);
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
	ps_copy_str(disk, len, strrchr(real, '/') ? strrchr(real, '/') + 1 : real);
	return 0;
}
