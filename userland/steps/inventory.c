/*
 * inventory.c - the first step of every plan: the typed inventory every
 * later step works from (machine, PCIe functions, drives, NICs, DIMMs), the
 * verdict of each PCIe link, and findings for what looks wrong.
 */
/* clang-format off */
//config:config STEP_INVENTORY
//config:	bool "inventory: machine, PCIe, drives, NICs, memory"
//config:	default y
//config:	help
//config:	  DMI identity, CPU and memory size; every PCI function with the
//config:	  PCIe link it trained to against its capability; drives with
//config:	  their negotiated link; NICs with queues, vectors and coalescing;
//config:	  SMBIOS DIMM slots. Its findings flag degraded PCIe links.
//kbuild:step-$(CONFIG_STEP_INVENTORY) += inventory.o
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "engines/net/ports.h"
#include "hw/drive_identity.h"
#include "hw/hw.h"
#include "hw/inventory.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DATA_VERSION 1

/* ---- the result: how much the inventory found (the devices are the report's machine, pcie,
 * drives, nics and memory sections, from the typed inventory) ---- */

struct inventory_result {
	size_t pcie_functions, drives, nics, dimms;
	char boot_disk[64];	 /* the stick's kernel name; "": not known */
	const char *pcie_source; /* "module" or "sysfs" */
};

static const char *const pcie_sources[] = {"module", "sysfs", NULL};

static const struct ps_field inventory_f[] = {
    PS_FIELD(struct inventory_result, pcie_functions, "pcie_functions"),
    PS_FIELD(struct inventory_result, drives, "drives"),
    PS_FIELD(struct inventory_result, nics, "nics"),
    PS_FIELD(struct inventory_result, dimms, "dimms"),
    PS_FIELD(struct inventory_result, boot_disk, "boot_disk", .flags = PS_FLD_NULL,
	     .help = "the boot stick's kernel name"),
    PS_FIELD(struct inventory_result, pcie_source, "pcie_source", .names = pcie_sources,
	     .flags = PS_FLD_NULL | PS_FLD_NEWER,
	     .help = "where the PCIe links were read: probestick.ko or sysfs"),
};
static const struct ps_fields inventory_fields = PS_FIELDS(struct inventory_result, inventory_f);

/* How the identity correction runs smartctl: NULL, itself; tests/unit/test_inventory.c fakes it. */
static ps_smartctl_fn *inventory_smartctl;
static void *inventory_smartctl_arg;

static void section_failed(struct ps_ctx *ctx, enum ps_inv_section s, int err)
{
	const char *name = ps_inv_section_name(s), *hint;
	enum ps_severity sev = PS_SEV_WARN;

	switch (-err) {
	case EACCES:
	case EPERM:
		hint = "run probestick as root to read it";
		break;
	case ENOENT:
		if (s == PS_INV_MACHINE) {
			hint = "no DMI tables in /sys/class/dmi/id (virtual machine or non-PC "
			       "firmware): identity fields are null and the machine-id comes from "
			       "the serial or the NIC MAC";
			sev = PS_SEV_INFO;
		} else if (s == PS_INV_MEMORY) {
			hint = "no SMBIOS tables in /sys/firmware/dmi/entries: DIMM slots are "
			       "unknown; check the firmware exposes SMBIOS (dmi_sysfs module)";
			sev = PS_SEV_INFO;
		} else {
			hint = "check that /sys and /proc are mounted";
		}
		break;
	default:
		hint = "the other sections of the inventory are still complete; report this "
		       "machine's model with the message";
	}
	ps_findf(ctx, sev, (struct ps_dev_ref){0}, "section_failed", "%s: %s; %s", name,
		 strerror(-err), hint);
}

/* "8.0 GT/s x4" of a link end, "?" parts unknown. */
static void speed_width(int speed, int width, char *buf, size_t len)
{
	char sp[16] = "?", wd[16] = "?";

	if (speed > 0)
		snprintf(sp, sizeof(sp), "%.1f", ps_pcie_speed_gts(speed));
	if (width > 0)
		snprintf(wd, sizeof(wd), "%d", width);
	snprintf(buf, len, "%s GT/s x%s", sp, wd);
}

/* A port whose link is already judged by the function below it. */
static bool judged_below(const struct ps_inventory *inv, size_t port)
{
	if (!ps_pcie_port_faces_down(inv->pcie[port].fn.port_type))
		return false;
	for (size_t i = 0; i < inv->n_pcie; i++)
		if (inv->pcie[i].up_index == (int)port && inv->pcie[i].verdict != PS_LINK_NONE)
			return true;
	return false;
}

/*
 * A function whose device has a lower-numbered function with a verdict: a
 * multi-function card (a graphics card and its audio) has one link, which
 * its first function speaks for.
 */
static bool judged_by_sibling(const struct ps_inventory *inv, size_t i)
{
	const char *a = inv->pcie[i].fn.address;
	size_t n = strlen(a);

	for (size_t k = 0; k < inv->n_pcie; k++) {
		const char *b = inv->pcie[k].fn.address;

		if (k != i && n > 1 && strlen(b) == n && strncmp(a, b, n - 1) == 0 &&
		    b[n - 1] < a[n - 1] && inv->pcie[k].verdict != PS_LINK_NONE)
			return true;
	}
	return false;
}

/* The other end of fn's link: the port above an endpoint, the function below a port. */
static const struct ps_pcie_fn *partner_of(const struct ps_inventory *inv, size_t i)
{
	const struct ps_pcie_dev *p = &inv->pcie[i];

	if (ps_pcie_port_faces_down(p->fn.port_type)) {
		for (size_t k = 0; k < inv->n_pcie; k++)
			if (inv->pcie[k].up_index == (int)i && inv->pcie[k].fn.has_link)
				return &inv->pcie[k].fn;
		return NULL;
	}
	return p->up_index >= 0 && inv->pcie[p->up_index].fn.has_link ? &inv->pcie[p->up_index].fn
								      : NULL;
}

/* "Samsung ... NVMe SSD Controller 980 (nvme)", or the ids and driver when pci.ids has no name. */
static void who(const struct ps_pcie_fn *fn, char *buf, size_t len)
{
	const char *drv = fn->driver[0] ? fn->driver : "no driver";

	if (fn->device_name[0])
		snprintf(buf, len, "%s %s (%s)", fn->vendor_name, fn->device_name, drv);
	else
		snprintf(buf, len, "%04x:%04x (%s)", fn->vendor, fn->device, drv);
}

/* One verdict per link: the function below a link speaks for it, not its port. */
static void pcie_verdicts(struct ps_ctx *ctx)
{
	const struct ps_inventory *inv = ctx->inv;

	for (size_t i = 0; i < inv->n_pcie; i++) {
		const struct ps_pcie_dev *p = &inv->pcie[i];
		const struct ps_pcie_fn *fn = &p->fn, *other = partner_of(inv, i);
		char trained[40], cap[40], ocap[40], name[320];
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = ps_pcie_ref(p),
				       .rule = "pcie_degraded",
				       .value = p->lost_gbps,
				       .limit = 0,
				       .unit = "GB/s lost"};

		if (p->verdict == PS_LINK_NONE || judged_below(inv, i) || judged_by_sibling(inv, i))
			continue;
		speed_width(fn->link.sta_speed, fn->link.sta_width, trained, sizeof(trained));
		speed_width(fn->link.cap_speed, fn->link.cap_width, cap, sizeof(cap));
		if (other)
			speed_width(other->link.cap_speed, other->link.cap_width, ocap,
				    sizeof(ocap));
		else
			snprintf(ocap, sizeof(ocap), "unknown");
		who(fn, name, sizeof(name));
		switch (p->verdict) {
		case PS_LINK_DEGRADED:
			ps_find(ctx, &f,
				"%s trained at %s, below what both ends support (it: %s, the other "
				"end: %s), losing %.2f GB/s each way: reseat the card, try another "
				"slot, check the BIOS lane and speed settings",
				name, trained, cap, ocap, p->lost_gbps);
			break;
		case PS_LINK_DOWN:
			f.rule = "pcie_link_down";
			f.severity = PS_SEV_INFO;
			f.value = f.limit = PS_NO_VALUE;
			f.unit = NULL;
			ps_find(ctx, &f, "the link is down (nothing trained below this port)");
			break;
		case PS_LINK_IDLE:
			ps_examined(
			    ctx, ps_pcie_ref(p), "pcie_idle",
			    "%s at %s, below its best of %.1f GT/s at full width: power "
			    "management lowers it at idle (a graphics card, or the port says "
			    "the hardware changed it on its own); not a fault, and each step "
			    "reads it again",
			    name, trained, ps_pcie_speed_gts(p->best_speed));
			break;
		case PS_LINK_LIMITED:
			if (other && p->best_speed > 0 && p->best_speed < fn->link.cap_speed &&
			    p->best_speed < other->link.cap_speed)
				ps_examined(ctx, ps_pcie_ref(p), "pcie_limited",
					    "%s at %s: the port's Target Link Speed holds it at "
					    "%.1f GT/s (it: %s, the other end: %s), a firmware or "
					    "OS setting, not a fault of the hardware",
					    name, trained, ps_pcie_speed_gts(p->best_speed), cap,
					    ocap);
			else
				ps_examined(ctx, ps_pcie_ref(p), "pcie_limited",
					    "%s at %s: the best the weaker end supports (it: %s, "
					    "the other end: %s); not a fault",
					    name, trained, cap, ocap);
			break;
		default:
			ps_examined(ctx, ps_pcie_ref(p), "pcie_ok", "%s trained at %s, its best",
				    name, trained);
		}
	}
}

static void nic_findings(struct ps_ctx *ctx)
{
	for (size_t i = 0; i < ctx->inv->n_nics; i++) {
		const struct ps_nic *n = &ctx->inv->nics[i];

		if (n->carrier == 1)
			continue;
		if (n->carrier == 0)
			ps_findf(ctx, PS_SEV_INFO, ps_nic_ref(n), "nic_no_carrier",
				 "no carrier: no cable, or the other end is off");
		else
			ps_findf(ctx, PS_SEV_INFO, ps_nic_ref(n), "nic_no_carrier",
				 "no carrier: the interface is %s, link unknown",
				 n->operstate[0] ? n->operstate : "down");
	}
}

static void drive_findings(struct ps_ctx *ctx)
{
	for (size_t i = 0; i < ctx->inv->n_drives; i++) {
		const struct ps_drive *d = &ctx->inv->drives[i];

		if (!d->serial[0])
			ps_findf(ctx, PS_SEV_INFO, ps_drive_ref(d), "drive_no_serial",
				 "reports no serial number: later reports cannot tell it from an "
				 "identical drive");
	}
}

/* "1.1 MB", "320.1 GB": sizes as drive makers label them. */
static void size_text(int64_t bytes, char *out, size_t len)
{
	if (bytes >= 1000000000)
		snprintf(out, len, "%.1f GB", (double)bytes / 1e9);
	else
		snprintf(out, len, "%.1f MB", (double)bytes / 1e6);
}

/*
 * What an HPA or a DCO hides from a drive (drives[].capacity): the sectors
 * above the size it shows, and the features a DCO took away. probestick
 * never changes either; the message says what shows them and what opens them.
 */
static void capacity_findings(struct ps_ctx *ctx)
{
	for (size_t i = 0; i < ctx->inv->n_drives; i++) {
		const struct ps_drive *d = &ctx->inv->drives[i];
		const struct ps_ata_capacity *c = &d->capacity;
		int64_t hidden = c->hidden_sectors >= 0 ? c->hidden_sectors : c->hpa_hidden;
		int64_t by_dco = hidden - (c->hpa_hidden > 0 ? c->hpa_hidden : 0);
		char who[256], size[32], hpa[96] = "", dco[96] = "", show[64] = "", open[64] = "";

		if (!c->examined)
			continue;
		snprintf(who, sizeof(who), "%s%s%s%s", d->model[0] ? d->model : "the drive",
			 d->serial[0] ? " (serial " : "", d->serial, d->serial[0] ? ")" : "");
		if (hidden > 0) {
			struct ps_finding f = {.severity = PS_SEV_WARN,
					       .dev = ps_drive_ref(d),
					       .rule = "hidden_capacity",
					       .value = (double)hidden,
					       .limit = 0,
					       .unit = "sectors"};

			size_text(hidden * c->logical_sector, size, sizeof(size));
			if (c->hpa_hidden > 0) {
				snprintf(hpa, sizeof(hpa), "a Host Protected Area hides %lld (%s)",
					 (long long)c->hpa_hidden, c->native_command);
				snprintf(show, sizeof(show), "hdparm -N");
				snprintf(open, sizeof(open), "hdparm -N p%lld",
					 (long long)c->native_sectors);
			}
			if (by_dco > 0) {
				snprintf(dco, sizeof(dco),
					 "%sa Device Configuration Overlay hides %lld%s",
					 hpa[0] ? " and " : "", (long long)by_dco,
					 hpa[0] ? " more" : "");
				snprintf(show + strlen(show), sizeof(show) - strlen(show),
					 "%shdparm --dco-identify", show[0] ? " and " : "");
				snprintf(open + strlen(open), sizeof(open) - strlen(open),
					 "%shdparm --dco-restore", open[0] ? " then " : "");
			}
			ps_find(
			    ctx, &f,
			    "%s shows %lld sectors but has %lld: %s%s, %s in all. A BIOS's "
			    "recovery "
			    "area, a RAID controller's metadata, or a drive made to look smaller; "
			    "a "
			    "wipe or a surface scan misses them. probestick never changes it: %s "
			    "shows it, %s opens it before a full wipe",
			    who, (long long)c->current_sectors,
			    (long long)(c->current_sectors + hidden), hpa, dco, size, show, open);
		}
		if (c->dco_features[0])
			ps_findf(
			    ctx, PS_SEV_WARN, ps_drive_ref(d), "dco_features",
			    "%s has features a Device Configuration Overlay hides: %s (DEVICE "
			    "CONFIGURATION IDENTIFY against IDENTIFY DEVICE): set up to pass as "
			    "another model. probestick never changes it: hdparm --dco-identify "
			    "shows it",
			    who, c->dco_features);
	}
}

/* probestick.ko refused by the kernel: why, and what gets the probes back. */
static void module_finding(struct ps_ctx *ctx)
{
	const struct ps_boot *b = &ctx->inv->boot;
	const char *fix;

	if (!b->read || !b->module_refused[0])
		return;
	if (b->secure_boot != 1 && b->sig_enforce != 1) {
		ps_findf(
		    ctx, PS_SEV_INFO, (struct ps_dev_ref){0}, "module_refused",
		    "the kernel refused probestick.ko (%s); every step falls back to sysfs and "
		    "/proc: no interrupt-path histograms, PCIe links from sysfs",
		    b->module_refused);
		return;
	}
	fix = b->module_signed == 1
		  ? "it is signed, but with a key this machine does not trust: enrol the stick's "
		    "key once (boot menu: Enrol the probes' key on this machine)"
		  : "this image's probestick.ko is not signed: sign it with your own key (make "
		    "mok) and enrol that key once on this machine (README: Secure Boot)";
	ps_findf(ctx, PS_SEV_INFO, (struct ps_dev_ref){0}, "module_refused",
		 "the kernel refused probestick.ko (%s): %s, so the kernel loads only modules "
		 "signed with a key it trusts (lockdown: %s); %s. Every step falls back to sysfs "
		 "and /proc: no interrupt-path histograms, PCIe links from sysfs",
		 b->module_refused,
		 b->secure_boot == 1 ? "Secure Boot is on" : "module.sig_enforce is set",
		 b->lockdown[0] ? b->lockdown : "unknown", fix);
}

static int run(struct ps_ctx *ctx)
{
	const struct ps_config *cfg = ctx->cfg;
	struct inventory_result *r = ctx->result;
	struct ps_inventory_opts o = {.root = ctx->root, .module_fd = ctx->module_fd};
	char *boot_disk = r->boot_disk;
	int ret;

	if (cfg && cfg->boot_disk[0])
		snprintf(boot_disk, sizeof(r->boot_disk), "%s", cfg->boot_disk);
	else if (cfg && cfg->stick[0] &&
		 ps_boot_disk(ctx->root, cfg->stick, boot_disk, sizeof(r->boot_disk)) < 0)
		boot_disk[0] = '\0';
	o.boot_disk = boot_disk;
	/* A new plan: what the last one learned of the ports (cabling, the carrier
	 * changes its steps caused) is about another start. */
	ps_ports_cabling_reset();
	ps_port_ledger_reset();
	ret = ps_inventory_take(ctx->inventory, &o);
	if (ret < 0)
		return ret;
	/* what smartctl reads behind a USB bridge (the drive, not the bridge) wins, before
	 * the inventory is frozen for the later steps */
	ps_inventory_smartctl_identity(ctx->inventory, ctx->root, inventory_smartctl,
				       inventory_smartctl_arg);
	/* what can change a figure besides the hardware: the report's environment{} */
	ps_environment_read(ctx->root, &ctx->inventory->environment);
	/* how the machine booted, and whether the kernel took probestick.ko: boot{} */
	ps_boot_read(ctx->root, &ctx->inventory->boot);
	for (int s = 0; s < PS_INV_SECTIONS; s++)
		if (ctx->inv->err[s] < 0)
			section_failed(ctx, (enum ps_inv_section)s, ctx->inv->err[s]);
	module_finding(ctx);
	pcie_verdicts(ctx);
	nic_findings(ctx);
	drive_findings(ctx);
	capacity_findings(ctx);

	r->pcie_functions = ctx->inv->n_pcie;
	r->drives = ctx->inv->n_drives;
	r->nics = ctx->inv->n_nics;
	r->dimms = ctx->inv->memory.n_dimms;
	r->pcie_source = ctx->inv->pcie_source;
	return PS_PASS;
}

/* ---- how the inventory is shown: its paths start at the report's top level ---- */

static const struct ps_col machine_cols[] = {
    {.path = "/machine/vendor", .title = "vendor"},
    {.path = "/machine/product", .title = "product"},
    {.path = "/machine/serial", .title = "serial"},
    {.path = "/machine/uuid", .title = "uuid"},
    {.path = "/machine/board_vendor", .title = "board vendor"},
    {.path = "/machine/board_product", .title = "board"},
    {.path = "/machine/bios_vendor", .title = "bios vendor"},
    {.path = "/machine/bios_version", .title = "bios version"},
    {.path = "/machine/bios_date", .title = "bios date"},
    {.path = "/machine/cpu_model", .title = "cpu"},
    {.path = "/machine/cpu_logical", .title = "logical cpus"},
    {.path = "/machine/cpu_cores", .title = "cores"},
    {.path = "/machine/cpu_packages", .title = "packages"},
    {.path = "/machine/microcode", .title = "microcode"},
    {.path = "/machine/memory_bytes", .title = "memory", .fmt = PS_FMT_IBYTES},
    {.path = "/probestick/kernel", .title = "kernel"},
    {.path = "/probestick/module_status", .title = "module"},
};

/* How the machine booted and what its kernel let load (hw/boot.c). */
static const struct ps_col boot_cols[] = {
    {.path = "/firmware", .title = "firmware"},
    {.path = "/secure_boot", .title = "secure boot", .fmt = PS_FMT_BOOL},
    {.path = "/setup_mode", .title = "setup mode", .fmt = PS_FMT_BOOL},
    {.path = "/lockdown", .title = "lockdown"},
    {.path = "/module_sig_enforce", .title = "signed modules only", .fmt = PS_FMT_BOOL},
    {.path = "/module_signed", .title = "probestick.ko signed", .fmt = PS_FMT_BOOL},
    {.path = "/module_refused", .title = "kernel refused it"},
};

static const struct ps_col pcie_cols[] = {
    {.path = "/address", .title = "address", .flags = PS_COL_KEY},
    {.path = "/id", .title = "id", .flags = PS_COL_DEVICE},
    {.path = "/class", .title = "class"},
    {.path = "/vendor_id", .title = "ven"},
    {.path = "/device_id", .title = "dev"},
    {.path = "/driver", .title = "driver"},
    {.path = "/link/speed_gts", .title = "GT/s", .decimals = 1, .better = PS_BETTER_HIGHER},
    {.path = "/link/width", .title = "x", .better = PS_BETTER_HIGHER},
    {.path = "/link/cap_speed_gts", .title = "cap GT/s", .decimals = 1},
    {.path = "/link/cap_width", .title = "cap x"},
    {.path = "/verdict", .title = "link", .bad = "degraded,down"},
    {.path = "/lost_gbps",
     .title = "lost GB/s",
     .decimals = 2,
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_OPTIONAL},
};

static const struct ps_col pcie_name_cols[] = {
    {.path = "/address", .title = "address", .flags = PS_COL_KEY},
    {.path = "/link/aspm_enabled", .title = "ASPM", .flags = PS_COL_OPTIONAL},
    {.path = "/vendor_name", .title = "vendor"},
    {.path = "/device_name", .title = "device", .flags = PS_COL_WIDE},
};

static const struct ps_col drive_cols[] = {
    {.path = "/name", .title = "name", .flags = PS_COL_KEY},
    {.path = "/id", .title = "id", .flags = PS_COL_DEVICE},
    {.path = "/transport", .title = "bus"},
    {.path = "/size_bytes", .title = "size", .fmt = PS_FMT_BYTES},
    {.path = "/logical_sector", .title = "lsec"},
    {.path = "/physical_sector", .title = "psec"},
    {.path = "/link", .title = "link"},
    {.path = "/rotational", .title = "rotating", .fmt = PS_FMT_BOOL},
    {.path = "/removable", .title = "removable", .fmt = PS_FMT_BOOL, .flags = PS_COL_OPTIONAL},
    {.path = "/boot_device", .title = "stick", .fmt = PS_FMT_BOOL},
};

static const struct ps_col drive_id_cols[] = {
    {.path = "/name", .title = "name", .flags = PS_COL_KEY},
    {.path = "/firmware", .title = "firmware"},
    {.path = "/serial", .title = "serial"},
    {.path = "/model", .title = "model", .flags = PS_COL_WIDE},
};

static const struct ps_col capacity_cols[] = {
    {.path = "/name", .title = "name", .flags = PS_COL_KEY},
    {.path = "/id", .title = "id", .flags = PS_COL_DEVICE},
    {.path = "/capacity/current_sectors", .title = "sectors"},
    {.path = "/capacity/native_sectors", .title = "native"},
    {.path = "/capacity/hpa", .title = "HPA", .bad = "set"},
    {.path = "/capacity/dco_sectors", .title = "DCO max", .flags = PS_COL_OPTIONAL},
    {.path = "/capacity/dco", .title = "DCO", .bad = "restricts"},
    {.path = "/capacity/hidden_bytes", .title = "hidden", .fmt = PS_FMT_BYTES},
    {.path = "/capacity/reason",
     .title = "unknown because",
     .flags = PS_COL_OPTIONAL | PS_COL_WIDE},
};

static const struct ps_col nic_cols[] = {
    {.path = "/name", .title = "name", .flags = PS_COL_KEY},
    {.path = "/id", .title = "id", .flags = PS_COL_DEVICE},
    {.path = "/driver", .title = "driver"},
    {.path = "/mac", .title = "mac"},
    {.path = "/carrier", .title = "link", .fmt = PS_FMT_BOOL},
    {.path = "/speed_mbps", .title = "Mb/s", .better = PS_BETTER_HIGHER},
    {.path = "/duplex", .title = "duplex"},
    {.path = "/mtu", .title = "mtu"},
    {.path = "/rx_queues", .title = "rxq", .flags = PS_COL_OPTIONAL},
    {.path = "/tx_queues", .title = "txq", .flags = PS_COL_OPTIONAL},
    {.path = "/msix_vectors", .title = "msix", .flags = PS_COL_OPTIONAL},
    {.path = "/firmware", .title = "firmware", .flags = PS_COL_OPTIONAL},
};

static const struct ps_col memory_cols[] = {
    {.path = "/memory/total_bytes", .title = "total", .fmt = PS_FMT_IBYTES},
    {.path = "/memory/slots_total", .title = "slots"},
    {.path = "/memory/slots_populated", .title = "populated"},
    {.path = "/memory/channels_smbios", .title = "channels (slot names)"},
    {.path = "/memory/channels_populated", .title = "channels (controller)"},
    {.path = "/memory/channels_present", .title = "controller channels"},
    {.path = "/memory/imc/family", .title = "controller registers"},
    {.path = "/memory/imc/reason", .title = "controller not read", .flags = PS_COL_WIDE},
    {.path = "/memory/source", .title = "slots read from"},
};

static const struct ps_col dimm_cols[] = {
    {.path = "/locator", .title = "slot", .flags = PS_COL_KEY},
    {.path = "/channel", .title = "ch"},
    {.path = "/size_bytes", .title = "size", .fmt = PS_FMT_IBYTES},
    {.path = "/type", .title = "type"},
    {.path = "/speed_mts", .title = "MT/s"},
    {.path = "/configured_speed_mts", .title = "at MT/s"},
    {.path = "/rank", .title = "rank", .flags = PS_COL_OPTIONAL},
    {.path = "/ecc", .title = "ECC", .fmt = PS_FMT_BOOL, .flags = PS_COL_OPTIONAL},
    {.path = "/manufacturer", .title = "maker"},
    {.path = "/part_number", .title = "part", .flags = PS_COL_WIDE},
};

static const struct ps_col imc_cols[] = {
    {.path = "/channel", .title = "channel", .flags = PS_COL_KEY},
    {.path = "/populated", .title = "populated", .fmt = PS_FMT_BOOL},
    {.path = "/type", .title = "type"},
    {.path = "/ecc", .title = "ECC", .fmt = PS_FMT_BOOL},
    {.path = "/dimms/0/present", .title = "DIMM 0", .fmt = PS_FMT_BOOL},
    {.path = "/dimms/0/size_bytes", .title = "size", .fmt = PS_FMT_IBYTES},
    {.path = "/dimms/1/present", .title = "DIMM 1", .fmt = PS_FMT_BOOL},
    {.path = "/dimms/1/size_bytes", .title = "size", .fmt = PS_FMT_IBYTES},
};

static const struct ps_col edac_cols[] = {
    {.path = "/mc", .title = "mc", .flags = PS_COL_KEY},
    {.path = "/name", .title = "dimm", .flags = PS_COL_KEY},
    {.path = "/ce", .title = "corrected", .better = PS_BETTER_LOWER},
    {.path = "/ue", .title = "uncorrected", .better = PS_BETTER_LOWER},
    {.path = "/label", .title = "label", .flags = PS_COL_WIDE},
};

/* What can change a figure besides the hardware: compare lists its differences. */
static const struct ps_col env_cols[] = {
    {.path = "/probestick/version", .title = "probestick"},
    {.path = "/probestick/image_manifest/probestick_version", .title = "image"},
    {.path = "/probestick/image_manifest/kernel/package_version", .title = "kernel package"},
    {.path = "/probestick/image_manifest/files/.config/sha256", .title = "build config"},
    {.path = "/machine/kernel_cmdline", .title = "command line"},
    {.path = "/environment/cpufreq/driver", .title = "cpufreq driver"},
    {.path = "/environment/cpufreq/governor", .title = "governor"},
    {.path = "/environment/cpufreq/min_khz", .title = "policy min", .unit = "kHz"},
    {.path = "/environment/cpufreq/max_khz", .title = "policy max", .unit = "kHz"},
    {.path = "/environment/cpufreq/hw_max_khz", .title = "cpu max", .unit = "kHz"},
    {.path = "/environment/cpufreq/boost", .title = "boost", .fmt = PS_FMT_BOOL},
    {.path = "/environment/cpufreq/energy_performance_preference", .title = "energy pref"},
    {.path = "/environment/cpuidle_driver", .title = "idle driver"},
    {.path = "/environment/smt/control", .title = "SMT"},
    {.path = "/environment/smt/active", .title = "SMT active", .fmt = PS_FMT_BOOL},
    {.path = "/environment/transparent_hugepage", .title = "huge pages"},
    {.path = "/probestick/plan_steps", .title = "plan steps"},
    {.path = "/probestick/config/stream", .title = "stream"},
};

static const struct ps_col mitigation_cols[] = {
    {.path = "/name", .title = "vulnerability", .flags = PS_COL_KEY},
    {.path = "/state", .title = "state", .flags = PS_COL_WIDE},
};

static const struct ps_col temp_cols[] = {
    {.path = "/sensor", .title = "sensor", .flags = PS_COL_KEY},
    {.path = "/max_c", .title = "max", .unit = "C", .better = PS_BETTER_LOWER},
};

static const struct ps_col coldplug_cols[] = {
    {.path = "/module", .title = "module", .flags = PS_COL_KEY},
    {.path = "/error", .title = "error", .flags = PS_COL_WIDE},
};

/* The wall meter's readings (by hand, seed 001) beside RAPL's figures of the run. */
static const struct ps_col power_cols[] = {
    {.path = "/power/wall/idle_w",
     .title = "wall, idle",
     .unit = "W",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/power/wall/load_w",
     .title = "wall, full load",
     .unit = "W",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/power/wall/source", .title = "wall read into"},
    {.path = "/power/rapl/low_w",
     .title = "RAPL lowest (1 s)",
     .unit = "W",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/power/rapl/load_w",
     .title = "RAPL load",
     .unit = "W",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/power/rapl/load_step", .title = "RAPL load in step"},
    {.path = "/power/rapl/peak_w", .title = "RAPL peak (1 s)", .unit = "W", .decimals = 1},
    {.path = "/power/rest_idle_w", .title = "wall - RAPL, idle", .unit = "W", .decimals = 1},
    {.path = "/power/rest_load_w", .title = "wall - RAPL, load", .unit = "W", .decimals = 1},
    {.path = "/power/rapl/reason", .title = "RAPL not measured", .flags = PS_COL_WIDE},
};

static const struct ps_col superio_cols[] = {
    {.path = "/port", .title = "port", .flags = PS_COL_KEY},
    {.path = "/id", .title = "chip id"},
    {.path = "/chip", .title = "chip"},
    {.path = "/driver", .title = "driver"},
    {.path = "/vendor", .title = "vendor", .flags = PS_COL_OPTIONAL},
};

static const struct ps_col superio_driver_cols[] = {
    {.path = "/module", .title = "driver", .flags = PS_COL_KEY},
    {.path = "/result", .title = "result", .flags = PS_COL_WIDE},
    {.path = "/error", .title = "error", .flags = PS_COL_OPTIONAL},
    {.path = "/unloaded", .title = "unloaded again", .flags = PS_COL_OPTIONAL},
};

static const struct ps_col superio_claim_cols[] = {
    {.path = "/driver", .title = "driver", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_KEY},
    {.path = "/hwmon", .title = "hwmon"},
    {.path = "/name", .title = "sensors chip"},
};

static const struct ps_col superio_how_cols[] = {
    {.path = "/coldplug/superio/method", .title = "decided by"},
    {.path = "/coldplug/superio/reason", .title = "why", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "machine",
     .title = "Machine",
     .rows = "",
     .cols = PS_COLS(machine_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_KV,
     .id = "boot",
     .title = "Boot and Secure Boot",
     .rows = "/boot",
     .cols = PS_COLS(boot_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "pcie",
     .title = "PCI functions",
     .rows = "/pcie",
     .cols = PS_COLS(pcie_cols),
     .flags = PS_BLOCK_ENV,
     .empty = "none found",
     .note = "link: ok, limited (the weaker end's best), idle (a power-managed lower speed), "
	     "degraded (lanes missing or slower: a fault)"},
    {.kind = PS_BLOCK_TABLE,
     .id = "pcie_names",
     .rows = "/pcie",
     .when = "/vendor_name",
     .cols = PS_COLS(pcie_name_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "drives",
     .title = "Drives",
     .rows = "/drives",
     .cols = PS_COLS(drive_cols),
     .flags = PS_BLOCK_ENV,
     .empty = "none found",
     .note = "the stick probestick booted from is never a test target"},
    {.kind = PS_BLOCK_TABLE,
     .id = "drive_ids",
     .rows = "/drives",
     .cols = PS_COLS(drive_id_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "drive_capacity",
     .title = "Hidden capacity",
     .rows = "/drives",
     .when = "/capacity",
     .cols = PS_COLS(capacity_cols),
     .flags = PS_BLOCK_ENV,
     .note = "HPA: native max (READ NATIVE MAX ADDRESS) above the sectors shown; DCO: its "
	     "maximum and features (DEVICE CONFIGURATION IDENTIFY); read only, never changed"},
    {.kind = PS_BLOCK_TABLE,
     .id = "nics",
     .title = "Network interfaces",
     .rows = "/nics",
     .cols = PS_COLS(nic_cols),
     .flags = PS_BLOCK_ENV,
     .empty = "none found"},
    {.kind = PS_BLOCK_KV,
     .id = "memory",
     .title = "Memory",
     .rows = "",
     .cols = PS_COLS(memory_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "dimms",
     .rows = "/memory/dimms",
     .when = "/populated",
     .cols = PS_COLS(dimm_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_KV,
     .id = "environment",
     .title = "Conditions of the run (what can change a figure)",
     .rows = "",
     .cols = PS_COLS(env_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "mitigations",
     .title = "CPU vulnerabilities and their mitigations",
     .rows = "/environment/mitigations",
     .cols = PS_COLS(mitigation_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "temperatures",
     .title = "Temperatures at the inventory (hottest input per sensor)",
     .rows = "/environment/temperatures",
     .cols = PS_COLS(temp_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "imc",
     .title = "Memory controller channels (its registers)",
     .rows = "/memory/imc/channels",
     .cols = PS_COLS(imc_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "edac",
     .title = "ECC errors since boot (EDAC)",
     .rows = "/memory/edac/dimms",
     .cols = PS_COLS(edac_cols)},
    {.kind = PS_BLOCK_KV,
     .id = "power",
     .title = "Power: the wall meter (read by hand) beside RAPL",
     .rows = "",
     .when = "/power",
     .cols = PS_COLS(power_cols),
     .note = "RAPL counts the CPU packages and DRAM; the wall the whole machine and its "
	     "supply's loss. wall= readings: probestick.cfg or the menu's p"},
    {.kind = PS_BLOCK_KV,
     .id = "superio",
     .title = "Board sensor chip (Super I/O)",
     .rows = "",
     .when = "/coldplug/superio",
     .cols = PS_COLS(superio_how_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "superio_chips",
     .rows = "/coldplug/superio/chips",
     .cols = PS_COLS(superio_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "superio_drivers",
     .rows = "/coldplug/superio/drivers",
     .cols = PS_COLS(superio_driver_cols),
     .flags = PS_BLOCK_ENV},
    {.kind = PS_BLOCK_TABLE,
     .id = "superio_claims",
     .rows = "/coldplug/superio/claims",
     .cols = PS_COLS(superio_claim_cols),
     .flags = PS_BLOCK_ENV,
     .note = "which driver claimed which chip: the hwmon device its sensors appear under"},
    {.kind = PS_BLOCK_TABLE,
     .id = "coldplug_failed",
     .title = "Drivers that failed to load",
     .rows = "/coldplug/failed",
     .cols = PS_COLS(coldplug_cols),
     .flags = PS_BLOCK_ENV},
};

static const struct ps_view view = {
    .name = "inventory",
    .version = DATA_VERSION,
    .scope = PS_SCOPE_REPORT,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops inventory_ops = {
    .abi = PS_STEP_ABI,
    .name = "inventory",
    .title = "machine, PCIe links, drives, NICs, memory",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .order = 0,
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &inventory_fields,
    .flags = PS_STEP_TAKES_INVENTORY,
    .run = run,
};
PS_STEP_REGISTER(inventory_ops);
