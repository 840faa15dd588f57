/*
 * platform.c - what the platform recorders share: a finding as a recorder
 * states it, and the inventory's device at a PCI address.
 */
#include "record/platform.h"
#include "lib/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

void ps_rec_find(json_object *findings, const char *severity, const char *rule,
		 const struct ps_dev_ref *dev, double value, double limit, const char *unit,
		 const char *fmt, ...)
{
	json_object *f = json_object_new_object();
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ps_json_set_str(f, "severity", severity);
	ps_json_set_str(f, "rule", rule);
	ps_json_set_str(f, "kind", dev ? ps_dev_kind_name(dev->kind) : NULL);
	ps_json_set_str(f, "device", dev ? dev->id : NULL);
	ps_json_set_str(f, "subject", dev ? dev->name : NULL);
	ps_json_set_str(f, "message", msg);
	ps_json_set_num(f, "value", value, 3);
	ps_json_set_num(f, "limit", limit, 3);
	ps_json_set_str(f, "unit", unit);
	json_object_array_add(findings, f);
}

struct ps_dev_ref ps_rec_pci_ref(const struct ps_inventory *inv, const char *address)
{
	const struct ps_pcie_dev *p = ps_inventory_pcie(inv, address);

	if (p)
		return ps_pcie_ref(p);
	return (struct ps_dev_ref){PS_DEV_LINK, NULL, address};
}
