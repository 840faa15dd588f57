/*
 * drivers.c - a device without a driver is a finding, not a silence: every
 * PCI function and USB device no driver took, named, with the module of the
 * full kernel that would drive it and why this image has none (hw/drivers.c);
 * and firmware that failed to load at boot for devices that have their driver.
 */
/* clang-format off */
//config:config STEP_DRIVERS
//config:	bool "drivers: devices without a driver, and why"
//config:	default y
//config:	help
//config:	  Every PCI function and USB device that no driver took, named from
//config:	  pci.ids and usb.ids, with the module of the full kernel that would
//config:	  drive it (its modules.alias ships in the image) and why this image
//config:	  has none: its family is off in .config, no family includes it, it
//config:	  failed to load, its firmware is missing or did not load, its probe
//config:	  failed. Also firmware that failed to load at boot.
//kbuild:step-$(CONFIG_STEP_DRIVERS) += drivers.o
/* clang-format on */

#include "core/step.h"
#include "hw/drivers.h"
#include "hw/inventory.h"
#include "lib/json.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DATA_VERSION 1

/* ---- the result: data{} as a struct, described once ---- */

struct device_row {
	char bus[4];
	char address[32];
	const char *device; /* the inventory's id, NULL */
	char vendor_id[8], device_id[8], class[8];
	char vendor[96], name[128], class_name[64], modalias[160], module[32];
	json_object *candidates; /* the module names that claim it */
	int why;		 /* enum ps_nodrv_why */
	char family[32], firmware[96], detail[192];
	char message[1024];
};

struct fw_row {
	char device[40], file[96], error[16], detail[192];
};

/* A display controller and the driver that took it. */
struct display_row {
	char address[32];
	const char *device; /* the inventory's id, NULL */
	char vendor_id[8], device_id[8];
	char vendor[96], name[128], driver[64];
};

struct drivers_result {
	char kernel[64];
	char alias_source[160], pci_ids_source[160], usb_ids_source[160];
	bool kernel_log;
	size_t pci_functions, pci_bound, usb_devices, usb_bound, unbound;
	struct device_row *devices;
	size_t n_devices;
	struct fw_row *firmware_failed;
	size_t n_firmware_failed;
	struct display_row *displays;
	size_t n_displays;
	bool nomodeset;
	char framebuffer[64]; /* fb0's name; empty: the VGA text console */
};

static const char *const bus_names[] = {"pci", "usb", NULL};

static const struct ps_field device_f[] = {
    PS_FIELD(struct device_row, bus, "bus", .names = bus_names),
    PS_FIELD(struct device_row, address, "address"),
    PS_FIELD(struct device_row, device, "device", .flags = PS_FLD_NULL),
    PS_FIELD(struct device_row, vendor_id, "vendor_id", .help = "hex"),
    PS_FIELD(struct device_row, device_id, "device_id", .help = "hex"),
    PS_FIELD(struct device_row, class, "class", .help = "hex: PCI 24 bits, USB 8"),
    PS_FIELD(struct device_row, vendor, "vendor", .flags = PS_FLD_NULL),
    PS_FIELD(struct device_row, name, "name", .flags = PS_FLD_NULL),
    PS_FIELD(struct device_row, class_name, "class_name", .flags = PS_FLD_NULL),
    PS_FIELD(struct device_row, modalias, "modalias", .flags = PS_FLD_NULL),
    PS_FIELD(struct device_row, module, "module", .flags = PS_FLD_NULL),
    PS_FIELD(struct device_row, candidates, "candidates",
	     .schema = "{\"type\": \"array\", \"items\": {\"type\": \"string\"}}"),
    PS_FIELD_ENUM(struct device_row, why, "why", ps_nodrv_why_names),
    PS_FIELD(struct device_row, family, "family", .flags = PS_FLD_NULL),
    PS_FIELD(struct device_row, firmware, "firmware", .flags = PS_FLD_NULL),
    PS_FIELD(struct device_row, detail, "detail", .flags = PS_FLD_NULL),
    PS_FIELD(struct device_row, message, "message"),
};
static const struct ps_fields device_fields = PS_FIELDS(struct device_row, device_f);

static const struct ps_field fw_f[] = {
    PS_FIELD(struct fw_row, device, "device"),
    PS_FIELD(struct fw_row, file, "file"),
    PS_FIELD(struct fw_row, error, "error", .flags = PS_FLD_NULL),
    PS_FIELD(struct fw_row, detail, "detail", .flags = PS_FLD_NULL),
};
static const struct ps_fields fw_fields = PS_FIELDS(struct fw_row, fw_f);

static const struct ps_field display_f[] = {
    PS_FIELD(struct display_row, address, "address"),
    PS_FIELD(struct display_row, device, "device", .flags = PS_FLD_NULL),
    PS_FIELD(struct display_row, vendor_id, "vendor_id", .help = "hex"),
    PS_FIELD(struct display_row, device_id, "device_id", .help = "hex"),
    PS_FIELD(struct display_row, vendor, "vendor", .flags = PS_FLD_NULL),
    PS_FIELD(struct display_row, name, "name", .flags = PS_FLD_NULL),
    PS_FIELD(struct display_row, driver, "driver", .flags = PS_FLD_NULL),
};
static const struct ps_fields display_fields = PS_FIELDS(struct display_row, display_f);

static const struct ps_field drivers_f[] = {
    PS_FIELD(struct drivers_result, kernel, "kernel", .flags = PS_FLD_NULL),
    PS_FIELD(struct drivers_result, alias_source, "alias_source", .flags = PS_FLD_NULL),
    PS_FIELD(struct drivers_result, pci_ids_source, "pci_ids_source", .flags = PS_FLD_NULL),
    PS_FIELD(struct drivers_result, usb_ids_source, "usb_ids_source", .flags = PS_FLD_NULL),
    PS_FIELD(struct drivers_result, kernel_log, "kernel_log"),
    PS_FIELD(struct drivers_result, pci_functions, "pci_functions"),
    PS_FIELD(struct drivers_result, pci_bound, "pci_bound"),
    PS_FIELD(struct drivers_result, usb_devices, "usb_devices"),
    PS_FIELD(struct drivers_result, usb_bound, "usb_bound"),
    PS_FIELD(struct drivers_result, unbound, "unbound"),
    PS_FIELD_ARRAY(struct drivers_result, devices, n_devices, "devices", &device_fields),
    PS_FIELD_ARRAY(struct drivers_result, firmware_failed, n_firmware_failed, "firmware_failed",
		   &fw_fields),
    /* the Safe graphics entry's facts, newer than data version 1 */
    PS_FIELD_ARRAY(struct drivers_result, displays, n_displays, "displays", &display_fields,
		   .flags = PS_FLD_NEWER),
    PS_FIELD(struct drivers_result, nomodeset, "nomodeset", .flags = PS_FLD_NEWER),
    PS_FIELD(struct drivers_result, framebuffer, "framebuffer",
	     .flags = PS_FLD_NULL | PS_FLD_NEWER),
};
static const struct ps_fields drivers_fields = PS_FIELDS(struct drivers_result, drivers_f);

static json_object *word_list(const char *list)
{
	json_object *a = json_object_new_array();
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		json_object_array_add(a, json_object_new_string(w));
	return a;
}

static void device_row(struct device_row *o, const struct ps_nodrv_dev *d)
{
	bool pci = strcmp(d->bus, "pci") == 0;

	snprintf(o->bus, sizeof(o->bus), "%s", d->bus);
	snprintf(o->address, sizeof(o->address), "%s", d->address);
	o->device = d->id;
	snprintf(o->vendor_id, sizeof(o->vendor_id), "%04x", d->vendor);
	snprintf(o->device_id, sizeof(o->device_id), "%04x", d->device);
	snprintf(o->class, sizeof(o->class), "%0*x", pci ? 6 : 2, d->class);
	snprintf(o->vendor, sizeof(o->vendor), "%s", d->vendor_name);
	snprintf(o->name, sizeof(o->name), "%s", d->device_name);
	snprintf(o->class_name, sizeof(o->class_name), "%s", d->class_name);
	snprintf(o->modalias, sizeof(o->modalias), "%s", d->modalias);
	snprintf(o->module, sizeof(o->module), "%s", d->module);
	o->candidates = word_list(d->candidates);
	o->why = (int)d->why;
	snprintf(o->family, sizeof(o->family), "%s", d->family);
	snprintf(o->firmware, sizeof(o->firmware), "%s", d->firmware);
	snprintf(o->detail, sizeof(o->detail), "%s", d->detail);
	snprintf(o->message, sizeof(o->message), "%s", d->message);
}

/* A PCI function as the inventory names it; a USB device by its port path. */
static struct ps_dev_ref device_ref(const struct ps_ctx *ctx, const char *bus, const char *address,
				    const char *id, char *name, size_t len)
{
	const struct ps_pcie_dev *p;

	if (strcmp(bus, "pci") == 0) {
		p = ps_inventory_pcie(ctx->inv, address);
		if (p)
			return ps_pcie_ref(p);
		return (struct ps_dev_ref){PS_DEV_LINK, id, address};
	}
	snprintf(name, len, "usb %s", address);
	return (struct ps_dev_ref){PS_DEV_NONE, NULL, name};
}

/* Every device without a driver: a row and a finding (warn where it matters). */
static int list_devices(struct ps_ctx *ctx, struct drivers_result *r, const struct ps_drivers *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct ps_nodrv_dev *n = &d->devs[i];
		struct device_row *row = ps_fields_grow(&device_fields, &r->devices, &r->n_devices);
		char name[48];

		if (!row)
			return -ENOMEM;
		device_row(row, n);
		ps_findf(ctx, n->matters ? PS_SEV_WARN : PS_SEV_INFO,
			 device_ref(ctx, n->bus, n->address, n->id, name, sizeof(name)),
			 "no_driver", "%s", n->message);
	}
	return 0;
}

/* Firmware that did not load for a device whose driver took it. */
static int list_firmware(struct ps_ctx *ctx, struct drivers_result *r, const struct ps_drivers *d)
{
	for (size_t i = 0; i < d->n_fw; i++) {
		const struct ps_fw_failure *f = &d->fw[i];
		struct fw_row *row =
		    ps_fields_grow(&fw_fields, &r->firmware_failed, &r->n_firmware_failed);
		char name[48];
		bool pci =
		    strchr(f->device, ':') && strchr(f->device, '.') && strlen(f->device) == 12;

		if (!row)
			return -ENOMEM;
		snprintf(row->device, sizeof(row->device), "%s", f->device);
		snprintf(row->file, sizeof(row->file), "%s", f->file);
		snprintf(row->error, sizeof(row->error), "%s", f->error);
		snprintf(row->detail, sizeof(row->detail), "%s", f->detail);
		ps_findf(ctx, PS_SEV_WARN,
			 device_ref(ctx, pci ? "pci" : "usb", f->device, NULL, name, sizeof(name)),
			 "firmware_failed",
			 "firmware %s did not load (error %s) although its driver took the device: "
			 "it may run without its fixes or features%s%s",
			 f->file, f->error[0] ? f->error : "?",
			 f->detail[0] ? "; the image left it out: " : "", f->detail);
	}
	return 0;
}

/*
 * Every display controller and the driver that took it, with the console the
 * kernel draws on: what a blank screen on a server (a BMC's ASPEED or Matrox
 * VGA, driven by ast or mgag200) comes down to, and whether the Safe
 * graphics entry (nomodeset) kept the firmware's console.
 */
static int list_displays(struct ps_ctx *ctx, struct drivers_result *r, const struct ps_drivers *d)
{
	char path[4096];

	for (size_t i = 0; ctx->inv && i < ctx->inv->n_pcie; i++) {
		const struct ps_pcie_dev *p = &ctx->inv->pcie[i];
		struct display_row *row;

		if (!p->fn.ids_known || p->fn.class >> 16 != 0x03)
			continue;
		row = ps_fields_grow(&display_fields, &r->displays, &r->n_displays);
		if (!row)
			return -ENOMEM;
		snprintf(row->address, sizeof(row->address), "%s", p->fn.address);
		row->device = p->id;
		snprintf(row->vendor_id, sizeof(row->vendor_id), "%04x", p->fn.vendor);
		snprintf(row->device_id, sizeof(row->device_id), "%04x", p->fn.device);
		snprintf(row->vendor, sizeof(row->vendor), "%s", p->fn.vendor_name);
		snprintf(row->name, sizeof(row->name), "%s", p->fn.device_name);
		snprintf(row->driver, sizeof(row->driver), "%s", p->fn.driver);
	}
	r->nomodeset = d->nomodeset;
	/* fb0's name ("EFI VGA", "astdrmfb"); none: the VGA text console */
	if (ps_read_str(ps_path(path, sizeof(path), ctx->root, "/sys/class/graphics/fb0/name"),
			r->framebuffer, sizeof(r->framebuffer)) <= 0)
		r->framebuffer[0] = '\0';
	return 0;
}

static int run(struct ps_ctx *ctx)
{
	struct drivers_result *r = ctx->result;
	struct ps_drivers d;
	int ret = ps_drivers_read(ctx->root, ctx->inv, &d);

	if (ret < 0)
		return ret;
	snprintf(r->kernel, sizeof(r->kernel), "%s", d.release);
	snprintf(r->alias_source, sizeof(r->alias_source), "%s", d.alias_source);
	snprintf(r->pci_ids_source, sizeof(r->pci_ids_source), "%s", d.pci_ids_source);
	snprintf(r->usb_ids_source, sizeof(r->usb_ids_source), "%s", d.usb_ids_source);
	r->kernel_log = d.kmsg_read;
	r->pci_functions = d.pci_total;
	r->pci_bound = d.pci_bound;
	r->usb_devices = d.usb_total;
	r->usb_bound = d.usb_bound;
	r->unbound = d.n;
	if (!d.alias_source[0])
		ps_findf(ctx, PS_SEV_INFO, (struct ps_dev_ref){0}, "no_aliases",
			 "neither the image's list of module aliases (/usr/share/probestick/"
			 "modules.alias.zst) nor the kernel's modules.alias could be read: devices "
			 "without a driver are listed without the module that would drive them");
	ret = list_devices(ctx, r, &d);
	if (ret == 0)
		ret = list_firmware(ctx, r, &d);
	if (ret == 0)
		ret = list_displays(ctx, r, &d);
	ps_drivers_free(&d);
	return ret < 0 ? ret : PS_PASS;
}

/* ---- how it is shown ---- */

static const struct ps_col summary_cols[] = {
    {.path = "/unbound", .title = "without a driver", .flags = PS_COL_HEADLINE},
    {.path = "/pci_functions", .title = "PCI functions"},
    {.path = "/pci_bound", .title = "with a driver"},
    {.path = "/usb_devices", .title = "USB devices"},
    {.path = "/usb_bound", .title = "with drivers"},
    {.path = "/kernel", .title = "kernel"},
    {.path = "/alias_source", .title = "aliases from"},
};

static const struct ps_col device_cols[] = {
    {.path = "/address", .title = "device", .flags = PS_COL_KEY},
    {.path = "/device", .title = "id", .flags = PS_COL_DEVICE},
    {.path = "/vendor_id", .title = "ven"},
    {.path = "/device_id", .title = "dev"},
    {.path = "/module", .title = "module"},
    {.path = "/why",
     .title = "why",
     .bad = "family_off,load_failed,firmware_failed,firmware_left_out,probe_failed,not_loaded"},
    {.path = "/name", .title = "name", .flags = PS_COL_WIDE},
};

static const struct ps_col fw_cols[] = {
    {.path = "/device", .title = "device", .flags = PS_COL_KEY},
    {.path = "/file", .title = "file", .flags = PS_COL_KEY},
    {.path = "/error", .title = "error"},
    {.path = "/detail", .title = "why it is missing", .flags = PS_COL_WIDE},
};

static const struct ps_col display_cols[] = {
    {.path = "/address", .title = "display", .flags = PS_COL_KEY},
    {.path = "/device", .title = "id", .flags = PS_COL_DEVICE},
    {.path = "/driver", .title = "driver"},
    {.path = "/vendor", .title = "vendor"},
    {.path = "/name", .title = "name", .flags = PS_COL_WIDE},
};

static const struct ps_col console_cols[] = {
    {.path = "/nomodeset", .title = "nomodeset", .fmt = PS_FMT_BOOL},
    {.path = "/framebuffer", .title = "framebuffer"},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV, .id = "summary", .rows = "", .cols = PS_COLS(summary_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "devices",
     .title = "Devices without a driver",
     .rows = "/devices",
     .cols = PS_COLS(device_cols),
     .empty = "none: every PCI function and USB device has its driver",
     .note = "why: no_module (Linux has none), family_off (.config leaves its family out), "
	     "no_family, load_failed, firmware_failed, probe_failed, not_bound, firmware_mode "
	     "(set in the firmware setup), nomodeset (safe graphics)"},
    {.kind = PS_BLOCK_TABLE,
     .id = "firmware_failed",
     .title = "Firmware that did not load at boot",
     .rows = "/firmware_failed",
     .cols = PS_COLS(fw_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "displays",
     .title = "Displays",
     .rows = "/displays",
     .cols = PS_COLS(display_cols),
     .empty = "no display controller",
     .note = "a server's BMC shows its VGA (ASPEED: ast, Matrox G200: mgag200); a blank "
	     "screen: boot the Safe graphics entry (nomodeset)"},
    {.kind = PS_BLOCK_KV, .id = "console", .rows = "", .cols = PS_COLS(console_cols)},
};

static const struct ps_view view = {
    .name = "drivers",
    .version = DATA_VERSION,
    .scope = PS_SCOPE_DATA,
    .blocks = PS_BLOCKS(blocks),
};

static double estimate_s(const struct ps_ctx *ctx)
{
	return 1.0;
}

static const struct ps_step_ops drivers_ops = {
    .abi = PS_STEP_ABI,
    .name = "drivers",
    .title = "devices without a driver, and why",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .order = 5,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &drivers_fields,
    .run = run,
    .estimate_s = estimate_s,
};
PS_STEP_REGISTER(drivers_ops);
