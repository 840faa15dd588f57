/* label.c - a device's label from the report's inventory (label.h). */
#include "report/label.h"
#include "lib/json.h"

#include <stdio.h>
#include <string.h>

/* The entry of arr whose id is device, else whose name key is subject; NULL none. */
static json_object *find(json_object *arr, const char *name_key, const char *device,
			 const char *subject)
{
	for (size_t i = 0; device && i < ps_json_len(arr); i++)
		if (strcmp(ps_json_str_or(ps_json_at(arr, i), "id", ""), device) == 0)
			return ps_json_at(arr, i);
	for (size_t i = 0; subject && i < ps_json_len(arr); i++)
		if (strcmp(ps_json_str_or(ps_json_at(arr, i), name_key, ""), subject) == 0)
			return ps_json_at(arr, i);
	return NULL;
}

static bool is(const char *kind, const char *want)
{
	return !kind || strcmp(kind, want) == 0;
}

static const char *or_unknown(json_object *o, const char *key)
{
	const char *s = ps_json_str(o, key);

	return s && *s ? s : "unknown";
}

size_t ps_device_label(json_object *report, const char *kind, const char *device,
		       const char *subject, char *buf, size_t len)
{
	json_object *o;
	int n;

	if (!len)
		return 0;
	if (is(kind, "drive") && (o = find(ps_json_arr(report, "drives"), "name", device, subject)))
		n = snprintf(buf, len, "%s S/N %s (%s)", or_unknown(o, "model"),
			     or_unknown(o, "serial"), or_unknown(o, "name"));
	else if (is(kind, "nic") &&
		 (o = find(ps_json_arr(report, "nics"), "name", device, subject)))
		n = snprintf(buf, len, "NIC %s in PCI %s (%s)",
			     ps_json_str(o, "perm_mac") ? or_unknown(o, "perm_mac")
							: or_unknown(o, "mac"),
			     or_unknown(o, "bus_info"), or_unknown(o, "name"));
	else if (is(kind, "link") &&
		 (o = find(ps_json_arr(report, "pcie"), "address", device, subject)))
		n = ps_json_str(o, "device_name")
			? snprintf(buf, len, "PCI %s %s (%s)", or_unknown(o, "address"),
				   or_unknown(o, "device_name"),
				   ps_json_str_or(o, "driver", "no driver"))
			: snprintf(buf, len, "PCI %s device %s:%s (%s)", or_unknown(o, "address"),
				   or_unknown(o, "vendor_id"), or_unknown(o, "device_id"),
				   ps_json_str_or(o, "driver", "no driver"));
	else if (is(kind, "dimm") && (o = find(ps_json_arr(ps_json_get(report, "memory"), "dimms"),
					       "locator", device, subject)))
		n = snprintf(buf, len, "DIMM %s", or_unknown(o, "locator"));
	else if (kind && strcmp(kind, "machine") == 0 && (o = ps_json_get(report, "machine")))
		n = snprintf(buf, len, "machine %s %s (id %s)", or_unknown(o, "vendor"),
			     or_unknown(o, "product"), or_unknown(o, "id"));
	else
		n = snprintf(buf, len, "%s %s", kind ? kind : "device",
			     subject  ? subject
			     : device ? device
				      : "unknown");
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}
