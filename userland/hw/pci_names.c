/*
 * pci_names.c - vendor, device and class names from pci.ids through libpci,
 * so the inventory says "Samsung Electronics Co Ltd NVMe SSD Controller 980"
 * where the registers say 144d:a809.
 */
#include "decode/decode.h"
#include "hw/hw_util.h"
#include "lib/util.h"

#include <pci/pci.h>

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ps_pci_names {
	struct pci_access *pacc;
	char path[PATH_MAX];
};

/* libpci reports a damaged pci.ids as a warning: names are then simply unknown. */
static void quiet(char *msg, ...)
{
}

struct ps_pci_names *ps_pci_names_open(const char *root)
{
	static const char *const files[] = {"/usr/share/misc/pci.ids.gz", "/usr/share/misc/pci.ids",
					    "/usr/share/hwdata/pci.ids"};
	struct ps_pci_names *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	for (size_t i = 0; i < PS_ARRAY_SIZE(files) && !n->path[0]; i++) {
		ps_path(n->path, sizeof(n->path), root, "%s", files[i]);
		if (access(n->path, R_OK) != 0)
			n->path[0] = '\0';
	}
	if (!n->path[0] || !(n->pacc = pci_alloc())) {
		free(n);
		return NULL;
	}
	n->pacc->warning = quiet;
	n->pacc->debug = quiet;
	pci_set_name_list_path(n->pacc, n->path, 0);
	return n;
}

static void lookup(struct ps_pci_names *n, char *out, size_t len, int flags, ...)
{
	char buf[256];
	const char *name;
	va_list ap;
	int a, b;

	va_start(ap, flags);
	a = va_arg(ap, int);
	b = va_arg(ap, int);
	va_end(ap);
	out[0] = '\0';
	/* No numbers for what pci.ids lacks (unknown is "", not "Device 1234"), no udev hwdb. */
	name = pci_lookup_name(n->pacc, buf, sizeof(buf),
			       flags | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, a, b);
	if (name)
		ps_copy_str(out, len, name);
}

void ps_pci_names_lookup(struct ps_pci_names *n, struct ps_pcie_fn *fn)
{
	fn->vendor_name[0] = fn->device_name[0] = fn->class_name[0] = '\0';
	if (!n || !fn->ids_known)
		return;
	lookup(n, fn->vendor_name, sizeof(fn->vendor_name), PCI_LOOKUP_VENDOR, (int)fn->vendor, 0);
	lookup(n, fn->device_name, sizeof(fn->device_name), PCI_LOOKUP_DEVICE, (int)fn->vendor,
	       (int)fn->device);
	lookup(n, fn->class_name, sizeof(fn->class_name), PCI_LOOKUP_CLASS, (int)(fn->class >> 8),
	       0);
}

void ps_pci_names_close(struct ps_pci_names *n)
{
	if (!n)
		return;
	pci_cleanup(n->pacc);
	free(n);
}
