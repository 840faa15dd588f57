/*
 * inventory.c - take the typed inventory (hw/inventory.h) once: every
 * section's reader in turn, the stable identities, the boot stick; and the
 * lookups and device references steps and findings use.
 */
#include "hw/inventory.h"
#include "hw/hw_util.h"
#include "lib/util.h"
#include "hw/readers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ps_dev_kind_name(enum ps_dev_kind k)
{
	static const char *const names[PS_DEV_KINDS] = {
	    [PS_DEV_MACHINE] = "machine", [PS_DEV_DRIVE] = "drive", [PS_DEV_NIC] = "nic",
	    [PS_DEV_LINK] = "link",	  [PS_DEV_DIMM] = "dimm",
	};

	return (unsigned int)k < PS_DEV_KINDS ? names[k] : NULL;
}

const char *ps_link_verdict_name(enum ps_link_verdict v)
{
	switch (v) {
	case PS_LINK_OK:
		return "ok";
	case PS_LINK_LIMITED:
		return "limited";
	case PS_LINK_DEGRADED:
		return "degraded";
	case PS_LINK_DOWN:
		return "down";
	case PS_LINK_IDLE:
		return "idle";
	default:
		return NULL; /* no verdict: null in the report */
	}
}

const char *ps_inv_section_name(enum ps_inv_section s)
{
	static const char *const names[PS_INV_SECTIONS] = {
	    [PS_INV_MACHINE] = "machine", [PS_INV_PCIE] = "pcie",     [PS_INV_DRIVES] = "drives",
	    [PS_INV_NICS] = "nics",	  [PS_INV_MEMORY] = "memory",
	};

	return (unsigned int)s < PS_INV_SECTIONS ? names[s] : NULL;
}

void ps_inventory_free(struct ps_inventory *inv)
{
	free(inv->pcie);
	free(inv->drives);
	free(inv->nics);
	free(inv->memory.dimms);
	ps_edac_free(&inv->memory.edac);
	memset(inv, 0, sizeof(*inv));
}

static void inventory_reset(struct ps_inventory *inv)
{
	ps_inventory_free(inv);
	inv->machine.cpu_logical = inv->machine.cpu_cores = inv->machine.cpu_packages = PS_UNKNOWN;
	inv->machine.memory_bytes = PS_UNKNOWN;
	inv->memory.total_bytes = PS_UNKNOWN;
	inv->memory.slots_total = inv->memory.slots_populated = PS_UNKNOWN;
	inv->memory.channels_smbios = inv->memory.channels_imc = PS_UNKNOWN;
	inv->memory.channels_present = PS_UNKNOWN;
}

/* A reader that could not even start leaves an empty section, never a crash. */
static bool out_of_memory(const struct ps_inventory *inv)
{
	for (int s = 0; s < PS_INV_SECTIONS; s++)
		if (inv->err[s] == -ENOMEM)
			return true;
	return false;
}

int ps_inventory_identify(struct ps_inventory *inv, const char *root)
{
	inventory_reset(inv);
	inv->err[PS_INV_MACHINE] = ps_read_machine(root ? root : "", &inv->machine);
	inv->err[PS_INV_NICS] = ps_read_nics(root ? root : "", &inv->nics, &inv->n_nics);
	return out_of_memory(inv) ? -ENOMEM : 0;
}

int ps_inventory_take(struct ps_inventory *inv, const struct ps_inventory_opts *o)
{
	const char *root = o && o->root ? o->root : "";
	const char *boot = o && o->boot_disk && o->boot_disk[0] ? o->boot_disk : NULL;

	inventory_reset(inv);
	if (boot)
		ps_copy_str(inv->boot_disk, sizeof(inv->boot_disk), boot);
	inv->err[PS_INV_MACHINE] = ps_read_machine(root, &inv->machine);
	inv->err[PS_INV_PCIE] = ps_read_pcie(root, o ? o->module_fd : -1, inv);
	inv->err[PS_INV_DRIVES] = ps_read_drives(root, boot, &inv->drives, &inv->n_drives);
	inv->err[PS_INV_NICS] = ps_read_nics(root, &inv->nics, &inv->n_nics);
	inv->err[PS_INV_MEMORY] = ps_read_memory(root, o ? o->module_fd : -1, &inv->memory);
	inv->taken = true;
	return out_of_memory(inv) ? -ENOMEM : 0;
}

const struct ps_drive *ps_inventory_drive(const struct ps_inventory *inv, const char *name)
{
	for (size_t i = 0; inv && name && i < inv->n_drives; i++)
		if (strcmp(inv->drives[i].name, name) == 0)
			return &inv->drives[i];
	return NULL;
}

const struct ps_nic *ps_inventory_nic(const struct ps_inventory *inv, const char *name)
{
	for (size_t i = 0; inv && name && i < inv->n_nics; i++)
		if (strcmp(inv->nics[i].name, name) == 0)
			return &inv->nics[i];
	return NULL;
}

const struct ps_pcie_dev *ps_inventory_pcie(const struct ps_inventory *inv, const char *address)
{
	for (size_t i = 0; inv && address && i < inv->n_pcie; i++)
		if (strcmp(inv->pcie[i].fn.address, address) == 0)
			return &inv->pcie[i];
	return NULL;
}

static const char *id_or_null(const char *id)
{
	return id && id[0] ? id : NULL;
}

struct ps_dev_ref ps_drive_ref(const struct ps_drive *d)
{
	return (struct ps_dev_ref){PS_DEV_DRIVE, id_or_null(d->id), d->name};
}

struct ps_dev_ref ps_nic_ref(const struct ps_nic *n)
{
	return (struct ps_dev_ref){PS_DEV_NIC, id_or_null(n->id), n->name};
}

struct ps_dev_ref ps_pcie_ref(const struct ps_pcie_dev *p)
{
	return (struct ps_dev_ref){PS_DEV_LINK, id_or_null(p->id), p->fn.address};
}

struct ps_dev_ref ps_dimm_ref(const struct ps_dimm_slot *s)
{
	return (struct ps_dev_ref){PS_DEV_DIMM, id_or_null(s->id),
				   s->d.locator[0] ? s->d.locator : s->d.bank};
}
