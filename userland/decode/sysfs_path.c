/*
 * sysfs_path.c - what a resolved /sys/devices path says about a device:
 * its PCI ancestors and the transport of a disk. Pure string work.
 */
#include "decode/decode.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

bool ps_is_pci_address(const char *s, size_t n)
{
	/* DOMAIN:BB:DD.F with a domain of 4 or more hex digits (VMD uses 5) */
	const char *t;

	if (n < 12 || n > 15)
		return false;
	t = s + n - 8;
	return all_hex(s, n - 8) && t[0] == ':' && all_hex(t + 1, 2) && t[3] == ':' &&
	       all_hex(t + 4, 2) && t[6] == '.' && t[7] >= '0' && t[7] <= '7';
}

int ps_pci_ancestor(const char *devpath, int skip, char *out, size_t len)
{
	const char *end = devpath + strlen(devpath);

	while (end > devpath) {
		const char *start = end;

		while (start > devpath && start[-1] != '/')
			start--;
		if (ps_is_pci_address(start, (size_t)(end - start)) && skip-- == 0) {
			snprintf(out, len, "%.*s", (int)(end - start), start);
			return 0;
		}
		end = start > devpath ? start - 1 : devpath;
	}
	if (len)
		out[0] = '\0';
	return -ENOENT;
}

/* "usb3" matches prefix "usb" followed by digits only. */
static bool prefix_num(const char *comp, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	if (n <= p || strncmp(comp, prefix, p) != 0)
		return false;
	for (size_t i = p; i < n; i++)
		if (!isdigit((unsigned char)comp[i]))
			return false;
	return true;
}

enum ps_transport ps_drive_transport(const char *devpath, int *ata_port)
{
	bool usb = false, nvme = false, mmc = false, virtio = false, scsi = false;
	int ata = -1;
	const char *p = devpath;

	while (*p) {
		const char *comp;
		size_t n;

		while (*p == '/')
			p++;
		comp = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - comp);
		if (prefix_num(comp, n, "usb"))
			usb = true;
		else if (prefix_num(comp, n, "ata"))
			ata = (int)strtol(comp + 3, NULL, 10);
		else if ((n == 4 && strncmp(comp, "nvme", 4) == 0) ||
			 (n > 11 && strncmp(comp, "nvme-subsys", 11) == 0))
			nvme = true;
		else if (n == 8 && strncmp(comp, "mmc_host", 8) == 0)
			mmc = true;
		else if (prefix_num(comp, n, "virtio"))
			virtio = true;
		else if (prefix_num(comp, n, "host"))
			scsi = true;
	}
	if (ata_port)
		*ata_port = usb ? -1 : ata;
	/* USB first: a USB-SATA bridge also shows a SCSI host */
	if (usb)
		return PS_TR_USB;
	if (ata >= 0)
		return PS_TR_ATA;
	if (nvme)
		return PS_TR_NVME;
	if (mmc)
		return PS_TR_MMC;
	/* a SCSI host below virtio is virtio-scsi: a SCSI disk, not virtio-blk */
	if (scsi)
		return PS_TR_SCSI;
	if (virtio)
		return PS_TR_VIRTIO;
	return PS_TR_UNKNOWN;
}

const char *ps_transport_name(enum ps_transport t)
{
	static const char *const names[] = {
	    [PS_TR_UNKNOWN] = "unknown", [PS_TR_SATA] = "sata",	    [PS_TR_ATA] = "ata",
	    [PS_TR_NVME] = "nvme",	 [PS_TR_VIRTIO] = "virtio", [PS_TR_USB] = "usb",
	    [PS_TR_SCSI] = "scsi",	 [PS_TR_MMC] = "mmc",
	};

	if ((unsigned int)t >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[t];
}

/* "2-1", "1-1.4": a USB device (not an interface, which has a ':'). */
static bool usb_device_name(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i == 0 || i >= n || s[i] != '-')
		return false;
	i++;
	for (;;) { /* port numbers separated by dots */
		size_t first = i;

		while (i < n && isdigit((unsigned char)s[i]))
			i++;
		if (i == first)
			return false;
		if (i == n)
			return true;
		if (s[i] != '.')
			return false;
		i++;
	}
}

int ps_usb_device(const char *devpath, char *out, size_t len)
{
	const char *end = devpath + strlen(devpath);

	while (end > devpath) {
		const char *start = end;

		while (start > devpath && start[-1] != '/')
			start--;
		if (usb_device_name(start, (size_t)(end - start))) {
			snprintf(out, len, "%.*s", (int)(end - start), start);
			return 0;
		}
		end = start > devpath ? start - 1 : devpath;
	}
	if (len)
		out[0] = '\0';
	return -ENOENT;
}

/* The component after "/<prefix>" that names an ATA port or SCSI address. */
static bool component_after(const char *devpath, const char *prefix, char *out, size_t len)
{
	size_t p = strlen(prefix);

	for (const char *s = strchr(devpath, '/'); s; s = strchr(s + 1, '/')) {
		const char *c = s + 1, *e = strchrnul(c, '/');

		if ((size_t)(e - c) > p && strncmp(c, prefix, p) == 0 &&
		    strspn(c + p, "0123456789:") == (size_t)(e - c) - p) {
			snprintf(out, len, "%.*s", (int)(e - c - (ptrdiff_t)p), c + p);
			return true;
		}
	}
	return false;
}

void ps_drive_location(const char *devpath, const char *name, char *out, size_t len)
{
	char pci[16], part[64] = "";
	int ata = -1;
	enum ps_transport t = ps_drive_transport(devpath, &ata);

	if (len)
		out[0] = '\0';
	if (ps_pci_ancestor(devpath, 0, pci, sizeof(pci)) < 0)
		return;
	switch (t) {
	case PS_TR_USB: {
		char usb[32];

		if (ps_usb_device(devpath, usb, sizeof(usb)) == 0)
			snprintf(part, sizeof(part), "-usb-%s", usb);
		break;
	}
	case PS_TR_ATA:
	case PS_TR_SATA:
		if (ata >= 0)
			snprintf(part, sizeof(part), "-ata-%d", ata);
		break;
	case PS_TR_NVME: {
		const char *n = name ? strrchr(name, 'n') : NULL;

		/* the namespace id: nvme0n1 -> 1 (controller numbers change between boots) */
		if (n && n[1] && strspn(n + 1, "0123456789") == strlen(n + 1))
			snprintf(part, sizeof(part), "-nvme-%s", n + 1);
		break;
	}
	case PS_TR_SCSI: {
		char hctl[48];

		if (component_after(devpath, "target", hctl, sizeof(hctl)))
			snprintf(part, sizeof(part), "-scsi-%s", hctl);
		break;
	}
	default:
		break;
	}
	snprintf(out, len, "pci-%s%s", pci, part);
}
