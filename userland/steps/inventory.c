/*
 * inventory.c - the first step of every plan: machine, PCIe tree, drives,
 * NICs and memory into the report, and findings for what looks wrong.
 */
/* clang-format off */
//config:config STEP_INVENTORY
//config:	bool "inventory: machine, PCIe, drives, NICs, memory"
//config:	default y
//config:	help
//config:	  DMI identity, CPU and memory size; every PCI function with the
//config:	  PCIe link it trained to against its capability; drives with
//config:	  their negotiated link; NICs with queues, vectors and coalescing;
//config:	  SMBIOS DIMM slots. Its findings flag downgraded PCIe links.
//kbuild:step-$(CONFIG_STEP_INVENTORY) += inventory.o
/* clang-format on */

#include "config.h"
#include "probes.h"
#include "step.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Reset a report section (a re-run must not append twice), creating it if missing. */
static json_object *section(json_object *report, const char *key, json_type type)
{
	json_object *s;

	if (json_object_object_get_ex(report, key, &s) && json_object_is_type(s, type)) {
		if (type == json_type_array && json_object_array_length(s) > 0)
			json_object_array_del_idx(s, 0, json_object_array_length(s));
		return s;
	}
	s = type == json_type_array ? json_object_new_array() : json_object_new_object();
	json_object_object_add(report, key, s);
	return s;
}

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool is_true(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_boolean) &&
	       json_object_get_boolean(v);
}

/* "8.0 GT/s x4", "? GT/s x?" for unknown parts. */
static void speed_width(json_object *o, const char *speed_key, const char *width_key, char *buf,
			size_t len)
{
	json_object *s = NULL, *w = NULL;
	char sp[16] = "?", wd[16] = "?";

	if (o && json_object_object_get_ex(o, speed_key, &s) && s)
		snprintf(sp, sizeof(sp), "%.1f", json_object_get_double(s));
	if (o && json_object_object_get_ex(o, width_key, &w) && w)
		snprintf(wd, sizeof(wd), "%d", json_object_get_int(w));
	snprintf(buf, len, "%s GT/s x%s", sp, wd);
}

static void probe_failed(struct ps_ctx *ctx, const char *probe, int err, int *warns)
{
	const char *sev = "warn", *hint;

	switch (-err) {
	case EACCES:
	case EPERM:
		hint = "run probestick as root to read it";
		break;
	case ENOENT:
		if (strcmp(probe, "machine") == 0) {
			hint = "no DMI tables in /sys/class/dmi/id (virtual machine or non-PC "
			       "firmware): identity fields are null and the machine-id comes from "
			       "the serial or the NIC MAC";
			sev = "info";
		} else if (strcmp(probe, "memory") == 0) {
			hint = "no SMBIOS tables in /sys/firmware/dmi/entries: DIMM slots are "
			       "unknown; check the firmware exposes SMBIOS (dmi_sysfs module)";
			sev = "info";
		} else {
			hint = "check that /sys and /proc are mounted";
		}
		break;
	default:
		hint = "the other sections of the inventory are still complete; report this "
		       "machine's model with the message";
	}
	if (strcmp(sev, "warn") == 0)
		(*warns)++;
	ps_finding(ctx, sev, probe, "probe_failed", "%s probe: %s; %s", probe, strerror(-err),
		   hint);
}

/* A port whose downgraded link is already reported by the function below it. */
static bool reported_below(json_object *pcie, const char *addr)
{
	for (size_t i = 0; addr && i < json_object_array_length(pcie); i++) {
		json_object *fn = json_object_array_get_idx(pcie, i), *up = NULL;

		if (is_true(fn, "downgraded") && json_object_object_get_ex(fn, "upstream", &up) &&
		    up && str(up, "address") && strcmp(str(up, "address"), addr) == 0)
			return true;
	}
	return false;
}

/* One finding per downgraded link: both ends of it say so in pcie[]. */
static void pcie_findings(struct ps_ctx *ctx, json_object *pcie, int *warns)
{
	for (size_t i = 0; i < json_object_array_length(pcie); i++) {
		json_object *fn = json_object_array_get_idx(pcie, i), *link = NULL, *up = NULL;
		char trained[40], cap[40], upcap[40], upstream[128];
		const char *addr = str(fn, "address"), *drv = str(fn, "driver");

		if (!is_true(fn, "downgraded") || reported_below(pcie, addr))
			continue;
		json_object_object_get_ex(fn, "link", &link);
		json_object_object_get_ex(fn, "upstream", &up);
		speed_width(link, "speed_gts", "width", trained, sizeof(trained));
		speed_width(link, "cap_speed_gts", "cap_width", cap, sizeof(cap));
		speed_width(up, "cap_speed_gts", "cap_width", upcap, sizeof(upcap));
		if (up && str(up, "address"))
			snprintf(upstream, sizeof(upstream),
				 "; its upstream port %s is capable of %s", str(up, "address"),
				 upcap);
		else
			upstream[0] = '\0';
		(*warns)++;
		ps_finding(ctx, "warn", addr, "pcie_link_downgraded",
			   "%s (%s, %s:%s) trained at %s but is capable of %s%s: reseat the card, "
			   "try another slot, check the BIOS lane and speed settings",
			   addr ? addr : "?", drv ? drv : "no driver",
			   str(fn, "vendor_id") ? str(fn, "vendor_id") : "?",
			   str(fn, "device_id") ? str(fn, "device_id") : "?", trained, cap,
			   upstream);
	}
}

static int run(struct ps_ctx *ctx)
{
	static const char *const names[] = {"machine", "pcie", "drives", "nics", "memory"};
	const struct ps_config *cfg = ctx->cfg;
	json_object *machine, *pcie, *drives, *nics, *memory, *data = NULL;
	char boot_disk[64] = "";
	int err[5], warns = 0;

	if (cfg && cfg->boot_disk[0])
		snprintf(boot_disk, sizeof(boot_disk), "%s", cfg->boot_disk);
	else if (cfg && cfg->stick[0] &&
		 ps_boot_disk(ctx->root, cfg->stick, boot_disk, sizeof(boot_disk)) < 0)
		boot_disk[0] = '\0';

	machine = section(ctx->report, "machine", json_type_object);
	pcie = section(ctx->report, "pcie", json_type_array);
	drives = section(ctx->report, "drives", json_type_array);
	nics = section(ctx->report, "nics", json_type_array);
	memory = section(ctx->report, "memory", json_type_object);

	err[0] = ps_probe_machine(ctx->root, machine);
	err[1] = ps_probe_pcie(ctx->root, ctx->module_fd, pcie);
	if (ps_should_abort(ctx))
		return PS_ABORTED;
	err[2] = ps_probe_drives(ctx->root, boot_disk[0] ? boot_disk : NULL, drives);
	err[3] = ps_probe_nics(ctx->root, nics);
	err[4] = ps_probe_memory(ctx->root, memory);

	for (size_t i = 0; i < 5; i++)
		if (err[i] < 0)
			probe_failed(ctx, names[i], err[i], &warns);
	pcie_findings(ctx, pcie, &warns);
	for (size_t i = 0; i < json_object_array_length(nics); i++) {
		json_object *nic = json_object_array_get_idx(nics, i), *carrier = NULL;
		const char *name = str(nic, "name");

		json_object_object_get_ex(nic, "carrier", &carrier);
		if (carrier && json_object_get_boolean(carrier))
			continue;
		if (carrier)
			ps_finding(ctx, "info", name, "nic_no_carrier",
				   "%s has no carrier: no cable, or the other end is off", name);
		else
			ps_finding(ctx, "info", name, "nic_no_carrier",
				   "%s has no carrier: the interface is %s, link unknown", name,
				   str(nic, "operstate") ? str(nic, "operstate") : "down");
	}
	for (size_t i = 0; i < json_object_array_length(drives); i++) {
		json_object *d = json_object_array_get_idx(drives, i);

		if (!str(d, "serial"))
			ps_finding(ctx, "info", str(d, "name"), "drive_no_serial",
				   "%s reports no serial number: later reports cannot tell it from "
				   "an identical drive",
				   str(d, "name"));
	}

	if (ctx->step && json_object_object_get_ex(ctx->step, "data", &data) &&
	    json_object_is_type(data, json_type_object)) {
		json_object *dimms = NULL;

		json_object_object_get_ex(memory, "dimms", &dimms);
		json_object_object_add(data, "pcie_functions",
				       json_object_new_int((int)json_object_array_length(pcie)));
		json_object_object_add(data, "drives",
				       json_object_new_int((int)json_object_array_length(drives)));
		json_object_object_add(data, "nics",
				       json_object_new_int((int)json_object_array_length(nics)));
		json_object_object_add(
		    data, "dimms",
		    json_object_new_int(dimms ? (int)json_object_array_length(dimms) : 0));
		json_object_object_add(data, "boot_disk",
				       boot_disk[0] ? json_object_new_string(boot_disk) : NULL);
	}
	return warns ? PS_WARN : PS_PASS;
}

static const struct ps_step_ops inventory_ops = {
    .abi = PS_STEP_ABI,
    .name = "inventory",
    .title = "machine, PCIe links, drives, NICs, memory",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .needs = 0,
    .order = 0,
    .run = run,
};
PS_STEP_REGISTER(inventory_ops);
