/*
 * inspector_inventory.c - the typed inventory in ironic-python-agent's
 * inventory format (its "Hardware Inventory", as ironic-inspector 11.1's
 * hooks read it: scheduler, root_disk_selection, validate_interfaces).
 */
#include "collect/inspector_data.h"
#include "lib/json.h"
#include "version.h"

#include <stdio.h>
#include <string.h>

/* The architecture this program was built for is the one it runs on. */
#if defined(__x86_64__)
#define ARCH "x86_64"
#elif defined(__aarch64__)
#define ARCH "aarch64"
#else
#define ARCH NULL
#endif

#define MIB (1024LL * 1024)

static json_object *cpu(const struct ps_inventory *inv)
{
	const struct ps_machine *m = &inv->machine;
	const struct ps_environment *env = &inv->environment;
	json_object *o = json_object_new_object();
	char mhz[24] = "";

	ps_json_set_str(o, "model_name", m->cpu_model);
	/* the agent gives lscpu's "CPU max MHz" as text; cpufreq's limit is that figure */
	if (env->read && env->hw_max_khz > 0)
		snprintf(mhz, sizeof(mhz), "%.4f", (double)env->hw_max_khz / 1000.0);
	ps_json_set_str(o, "frequency", mhz);
	ps_json_set_count(o, "count", m->cpu_logical);
	ps_json_set_str(o, "architecture", ARCH);
	/* inspector's capabilities hook maps them (vmx, svm: cpu_vt; aes: cpu_aes; ...) */
	if (m->cpu_flags_known) {
		json_object *flags = json_object_new_array();
		const char *p = m->cpu_flags;

		while (*p) {
			size_t n = strcspn(p, " \t");

			if (n)
				json_object_array_add(flags, json_object_new_string_len(p, (int)n));
			p += n;
			p += strspn(p, " \t");
		}
		ps_json_set(o, "flags", flags);
	} else {
		ps_json_set(o, "flags", NULL); /* unknown, not "none" */
	}
	return o;
}

/* What the DIMM slots hold, MiB: the figure the agent takes from lshw. -1 unknown. */
static int64_t physical_mb(const struct ps_memory *mem)
{
	int64_t bytes = 0;
	size_t populated = 0;

	for (size_t i = 0; i < mem->n_dimms; i++) {
		const struct ps_dimm *d = &mem->dimms[i].d;

		if (!d->populated)
			continue;
		if (d->size_bytes <= 0)
			return -1; /* a populated slot of unknown size: the sum is not known */
		bytes += d->size_bytes;
		populated++;
	}
	return populated ? bytes / MIB : -1;
}

static json_object *memory(const struct ps_inventory *inv)
{
	json_object *o = json_object_new_object();
	int64_t total =
	    inv->memory.total_bytes >= 0 ? inv->memory.total_bytes : inv->machine.memory_bytes;

	ps_json_set_count(o, "total", total);
	ps_json_set_count(o, "physical_mb", physical_mb(&inv->memory));
	return o;
}

static json_object *disk(const struct ps_drive *d)
{
	json_object *o = json_object_new_object();

	ps_json_set_str(o, "name", d->path);
	ps_json_set_str(o, "model", d->model);
	ps_json_set_count(o, "size", d->size_bytes);
	ps_json_set_tri(o, "rotational", d->rotational);
	ps_json_set_str(o, "wwn", d->wwn);
	ps_json_set_str(o, "serial", d->serial);
	ps_json_set_str(o, "vendor", d->vendor);
	ps_json_set_str(o, "wwn_with_extension", d->wwn);
	ps_json_set(o, "wwn_vendor_extension", NULL);
	ps_json_set(o, "hctl", NULL);
	ps_json_set(o, "by_path", NULL);
	return o;
}

static bool machine_disk(const struct ps_inventory *inv, const struct ps_drive *d)
{
	return !d->boot_device && !(inv->boot_disk[0] && strcmp(d->name, inv->boot_disk) == 0);
}

static json_object *disks(const struct ps_inventory *inv)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < inv->n_drives; i++)
		if (machine_disk(inv, &inv->drives[i]))
			json_object_array_add(a, disk(&inv->drives[i]));
	return a;
}

const struct ps_drive *ps_inspector_root_disk(const struct ps_inventory *inv)
{
	const struct ps_drive *best = NULL;

	for (size_t i = 0; i < inv->n_drives; i++) {
		const struct ps_drive *d = &inv->drives[i];

		if (!machine_disk(inv, d) || d->size_bytes < PS_INSPECTOR_ROOT_MIN_BYTES)
			continue;
		if (!best || d->size_bytes < best->size_bytes ||
		    (d->size_bytes == best->size_bytes && strcmp(d->path, best->path) < 0))
			best = d;
	}
	return best;
}

static void pci_id(json_object *o, const char *key, bool known, unsigned int id)
{
	char text[8];

	snprintf(text, sizeof(text), "0x%04x", id);
	ps_json_set_str(o, key, known ? text : NULL);
}

static json_object *interfaces(const struct ps_inventory *inv, const struct ps_inspector_port *boot)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < inv->n_nics; i++) {
		const struct ps_nic *n = &inv->nics[i];
		const struct ps_pcie_dev *p =
		    n->pci_address[0] ? ps_inventory_pcie(inv, n->pci_address) : NULL;
		bool ids = p && p->fn.ids_known;
		json_object *o = json_object_new_object();

		ps_json_set_str(o, "name", n->name);
		ps_json_set_str(o, "mac_address", n->mac);
		/* the one address this machine was given: the boot port's */
		ps_json_set_str(
		    o, "ipv4_address",
		    boot && boot->ipv4[0] && strcmp(boot->name, n->name) == 0 ? boot->ipv4 : NULL);
		ps_json_set(o, "ipv6_address", NULL);
		ps_json_set_tri(o, "has_carrier", n->carrier);
		ps_json_set(o, "lldp", NULL);
		pci_id(o, "vendor", ids, ids ? p->fn.vendor : 0);
		pci_id(o, "product", ids, ids ? p->fn.device : 0);
		ps_json_set(o, "client_id", NULL);
		ps_json_set(o, "biosdevname", NULL);
		ps_json_set_count(o, "speed_mbps", n->speed_mbps);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *system_vendor(const struct ps_machine *m)
{
	json_object *o = json_object_new_object(), *fw = json_object_new_object();

	ps_json_set_str(o, "product_name", m->product);
	ps_json_set_str(o, "serial_number", m->serial);
	ps_json_set_str(o, "manufacturer", m->vendor);
	ps_json_set_str(fw, "vendor", m->bios_vendor);
	ps_json_set_str(fw, "version", m->bios_version);
	ps_json_set_str(fw, "build_date", m->bios_date);
	ps_json_set(o, "firmware", fw);
	return o;
}

json_object *ps_inspector_inventory(const struct ps_inventory *inv,
				    const struct ps_inspector_port *boot)
{
	json_object *o = json_object_new_object(), *b = json_object_new_object();

	ps_json_set(o, "interfaces", interfaces(inv, boot));
	ps_json_set(o, "cpu", cpu(inv));
	ps_json_set(o, "disks", disks(inv));
	ps_json_set(o, "memory", memory(inv));
	ps_json_set(o, "bmc_address", NULL);
	ps_json_set(o, "bmc_v6address", NULL);
	ps_json_set(o, "system_vendor", system_vendor(&inv->machine));
	ps_json_set_str(b, "current_boot_mode", inv->boot.read ? inv->boot.firmware : NULL);
	ps_json_set_str(b, "pxe_interface", boot ? boot->mac : NULL);
	ps_json_set(o, "boot", b);
	ps_json_set(o, "hostname", NULL);
	return o;
}

json_object *ps_inspector_data(const struct ps_inventory *inv, const struct ps_inspector_port *boot,
			       json_object *extra)
{
	json_object *o = json_object_new_object(), *conf = json_object_new_object();
	json_object *names = json_object_new_array(), *mgrs = json_object_new_array();
	json_object *mgr = json_object_new_object();
	const struct ps_drive *root = ps_inspector_root_disk(inv);

	ps_json_set(o, "inventory", ps_inspector_inventory(inv, boot));
	/* inspector 11.1's root_disk_selection and scheduler hooks: local_gb */
	ps_json_set(o, "root_disk", root ? disk(root) : NULL);
	/* its validate_interfaces hook: the port that booted gets the node's port */
	ps_json_set_str(o, "boot_interface", boot ? boot->mac : NULL);
	json_object_array_add(names, json_object_new_string("probestick"));
	ps_json_set(conf, "collectors", names);
	ps_json_set_str(mgr, "name", "probestick");
	ps_json_set_str(mgr, "version", PS_VERSION);
	json_object_array_add(mgrs, mgr);
	ps_json_set(conf, "managers", mgrs);
	ps_json_set(o, "configuration", conf);
	/* the ramdisk_error hook fails the introspection on a non-empty error */
	ps_json_set(o, "error", NULL);
	ps_json_set(o, "probestick", extra);
	return o;
}
