/* label.c - the one device label for people (label.h): model and serial, MAC and slot. */
#include "report/label.h"
#include "lib/json.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The member of arr whose key is want (id or name), or NULL. */
static json_object *find(json_object *report, const char *arr, const char *key, const char *want)
{
	json_object *a = ps_json_arr(report, arr);

	for (size_t i = 0; want && i < ps_json_len(a); i++) {
		json_object *o = ps_json_at(a, i);
		const char *v = ps_json_str(o, key);

		if (v && strcmp(v, want) == 0)
			return o;
	}
	return NULL;
}

static json_object *lookup(json_object *report, const char *arr, const char *device,
			   const char *subject, const char *name_key)
{
	json_object *o = find(report, arr, "id", device);

	return o ? o : find(report, arr, name_key, subject);
}

static const char *or_unknown(json_object *o, const char *key)
{
	const char *v = ps_json_str(o, key);

	return v && *v ? v : "unknown";
}

static size_t drive_label(json_object *d, const char *subject, char *buf, size_t len)
{
	const char *usb = ps_json_str(d, "usb_path");
	const char *name = subject ? subject : ps_json_str(d, "name");
	const char *model = ps_json_str(d, "model"), *bus = ps_json_str(d, "transport");
	char what[48];

	/* a virtio disk names no model: its bus says what it is */
	snprintf(what, sizeof(what), "%s disk", bus && strcmp(bus, "unknown") ? bus : "a");
	return (size_t)snprintf(buf, len, "%s S/N %s%s%s%s%s%s", model && *model ? model : what,
				or_unknown(d, "serial"), usb ? ", USB port " : "", usb ? usb : "",
				name ? " (" : "", name ? name : "", name ? ")" : "");
}

static size_t nic_label(json_object *report, json_object *n, const char *subject, char *buf,
			size_t len)
{
	const char *mac = ps_json_str(n, "perm_mac");
	const char *pci = ps_json_str(n, "pci_address");
	const char *name = subject ? subject : ps_json_str(n, "name");
	json_object *fn = find(report, "pcie", "address", pci);
	const char *model = ps_json_str(fn, "device_name");

	if (!mac || !*mac)
		mac = or_unknown(n, "mac");
	return (size_t)snprintf(buf, len, "NIC %s%s%s%s%s%s%s%s", mac, pci ? " in PCI " : "",
				pci ? pci : "", model ? " " : "", model ? model : "",
				name ? " (" : "", name ? name : "", name ? ")" : "");
}

static size_t link_label(json_object *f, const char *subject, char *buf, size_t len)
{
	const char *addr = ps_json_str(f, "address");
	const char *model = ps_json_str(f, "device_name");
	const char *drv = ps_json_str(f, "driver");
	char ids[16];

	if (!addr)
		addr = subject ? subject : "unknown";
	if (!model) {
		snprintf(ids, sizeof(ids), "%s:%s", or_unknown(f, "vendor_id"),
			 or_unknown(f, "device_id"));
		model = ids;
	}
	return (size_t)snprintf(buf, len, "PCI %s %s%s%s%s", addr, model, drv ? " (" : "",
				drv ? drv : "", drv ? ")" : "");
}

size_t ps_device_label(json_object *report, const char *kind, const char *device,
		       const char *subject, char *buf, size_t len)
{
	json_object *o;
	size_t n;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (!kind)
		n = (size_t)snprintf(buf, len, "%s", subject ? subject : "");
	else if (strcmp(kind, "drive") == 0 &&
		 (o = lookup(report, "drives", device, subject, "name")))
		n = drive_label(o, subject, buf, len);
	else if (strcmp(kind, "nic") == 0 && (o = lookup(report, "nics", device, subject, "name")))
		n = nic_label(report, o, subject, buf, len);
	else if (strcmp(kind, "link") == 0 &&
		 (o = lookup(report, "pcie", device, subject, "address")))
		n = link_label(o, subject, buf, len);
	else if (strcmp(kind, "dimm") == 0)
		n = (size_t)snprintf(buf, len, "DIMM %s", subject ? subject : "unknown");
	else if (strcmp(kind, "machine") == 0)
		n = (size_t)snprintf(buf, len, "machine");
	else
		n = (size_t)snprintf(buf, len, "%s %s", kind, subject ? subject : "unknown");
	return n < len ? n : len - 1;
}
