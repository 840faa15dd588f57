/*
 * hw_sections.c - the hw.h wrappers: one inventory section read typed and
 * serialized, for callers that have not moved to ps_inventory_take() yet.
 */
#include "hw/hw.h"
#include "hw/readers.h"

#include <string.h>

int ps_probe_machine(const char *root, json_object *machine)
{
	struct ps_inventory inv;
	int r;

	memset(&inv, 0, sizeof(inv));
	r = ps_read_machine(root, &inv.machine);
	ps_machine_to_json(&inv.machine, machine);
	return r;
}

int ps_probe_pcie(const char *root, int module_fd, json_object *pcie)
{
	struct ps_inventory inv;
	int r;

	memset(&inv, 0, sizeof(inv));
	r = ps_read_pcie(root, module_fd, &inv);
	ps_pcie_to_json(&inv, pcie);
	ps_inventory_free(&inv);
	return r;
}

int ps_probe_drives(const char *root, const char *boot_disk, json_object *drives)
{
	struct ps_inventory inv;
	int r;

	memset(&inv, 0, sizeof(inv));
	r = ps_read_drives(root, boot_disk, &inv.drives, &inv.n_drives);
	ps_drives_to_json(&inv, drives);
	ps_inventory_free(&inv);
	return r;
}

int ps_probe_nics(const char *root, json_object *nics)
{
	struct ps_inventory inv;
	int r;

	memset(&inv, 0, sizeof(inv));
	r = ps_read_nics(root, &inv.nics, &inv.n_nics);
	ps_nics_to_json(&inv, nics);
	ps_inventory_free(&inv);
	return r;
}

int ps_probe_memory(const char *root, json_object *memory)
{
	struct ps_inventory inv;
	int r;

	memset(&inv, 0, sizeof(inv));
	r = ps_read_memory(root, -1, &inv.memory);
	ps_memory_to_json(&inv.memory, memory);
	ps_inventory_free(&inv);
	return r;
}
