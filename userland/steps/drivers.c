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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "kernel": {"type": ["string", "null"]},
//schema:    "alias_source": {"type": ["string", "null"]},
//schema:    "pci_ids_source": {"type": ["string", "null"]},
//schema:    "usb_ids_source": {"type": ["string", "null"]},
//schema:    "kernel_log": {"type": "boolean"},
//schema:    "pci_functions": {"type": "integer", "minimum": 0},
//schema:    "pci_bound": {"type": "integer", "minimum": 0},
//schema:    "usb_devices": {"type": "integer", "minimum": 0},
//schema:    "usb_bound": {"type": "integer", "minimum": 0},
//schema:    "unbound": {"type": "integer", "minimum": 0},
//schema:    "devices": {"type": "array", "items": {
//schema:      "type": "object",
//schema:      "properties": {
//schema:        "bus": {"enum": ["pci", "usb"]},
//schema:        "address": {"type": "string"},
//schema:        "device": {"type": ["string", "null"]},
//schema:        "vendor_id": {"type": "string"},
//schema:        "device_id": {"type": "string"},
//schema:        "class": {"type": "string"},
//schema:        "vendor": {"type": ["string", "null"]},
//schema:        "name": {"type": ["string", "null"]},
//schema:        "class_name": {"type": ["string", "null"]},
//schema:        "modalias": {"type": ["string", "null"]},
//schema:        "module": {"type": ["string", "null"]},
//schema:        "candidates": {"type": "array", "items": {"type": "string"}},
//schema:        "why": {"enum": ["no_module", "family_off", "no_family", "dropped", "load_failed",
//schema:                         "firmware_failed", "firmware_left_out", "probe_failed",
//schema:                         "not_loaded", "not_bound", "firmware_mode", "nomodeset"]},
//schema:        "family": {"type": ["string", "null"]},
//schema:        "firmware": {"type": ["string", "null"]},
//schema:        "detail": {"type": ["string", "null"]},
//schema:        "message": {"type": "string"}
//schema:      },
//schema:      "required": ["bus", "address", "vendor_id", "device_id", "module", "why", "message"]
//schema:    }},
//schema:    "firmware_failed": {"type": "array", "items": {
//schema:      "type": "object",
//schema:      "properties": {
//schema:        "device": {"type": "string"}, "file": {"type": "string"},
//schema:        "error": {"type": ["string", "null"]}, "detail": {"type": ["string", "null"]}
//schema:      },
//schema:      "required": ["device", "file"]
//schema:    }},
//schema:    "nomodeset": {"type": "boolean"},
//schema:    "framebuffer": {"type": ["string", "null"]},
//schema:    "displays": {"type": "array", "items": {
//schema:      "type": "object",
//schema:      "properties": {
//schema:        "address": {"type": "string"}, "device": {"type": ["string", "null"]},
//schema:        "vendor_id": {"type": "string"}, "device_id": {"type": "string"},
//schema:        "vendor": {"type": ["string", "null"]}, "name": {"type": ["string", "null"]},
//schema:        "driver": {"type": ["string", "null"]}
//schema:      },
//schema:      "required": ["address", "vendor_id", "device_id", "driver"]
//schema:    }}
//schema:  },
//schema:  "required": ["pci_functions", "usb_devices", "unbound", "devices", "firmware_failed"]
//schema:}
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

static json_object *hex(unsigned int v, int digits)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%0*x", digits, v);
	return json_object_new_string(buf);
}

static json_object *word_list(const char *list)
{
	json_object *a = json_object_new_array();
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		json_object_array_add(a, json_object_new_string(w));
	return a;
}

static json_object *device_json(const struct ps_nodrv_dev *d)
{
	json_object *o = json_object_new_object();
	bool pci = strcmp(d->bus, "pci") == 0;

	ps_json_set_str(o, "bus", d->bus);
	ps_json_set_str(o, "address", d->address);
	ps_json_set_str(o, "device", d->id);
	ps_json_set(o, "vendor_id", hex(d->vendor, 4));
	ps_json_set(o, "device_id", hex(d->device, 4));
	ps_json_set(o, "class", hex(d->class, pci ? 6 : 2));
	ps_json_set_str(o, "vendor", d->vendor_name);
	ps_json_set_str(o, "name", d->device_name);
	ps_json_set_str(o, "class_name", d->class_name);
	ps_json_set_str(o, "modalias", d->modalias);
	ps_json_set_str(o, "module", d->module);
	ps_json_set(o, "candidates", word_list(d->candidates));
	ps_json_set_str(o, "why", ps_nodrv_why_name(d->why));
	ps_json_set_str(o, "family", d->family);
	ps_json_set_str(o, "firmware", d->firmware);
	ps_json_set_str(o, "detail", d->detail);
	ps_json_set_str(o, "message", d->message);
	return o;
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

/*
 * Every display controller and the driver that took it, with the console the
 * kernel draws on: what a blank screen on a server (a BMC's ASPEED or Matrox
 * VGA, driven by ast or mgag200) comes down to, and whether the Safe
 * graphics entry (nomodeset) kept the firmware's console.
 */
static void displays(struct ps_ctx *ctx, const struct ps_drivers *d)
{
	json_object *a = ps_json_reset_arr(ctx->data, "displays");
	char path[4096], fb[64];

	for (size_t i = 0; ctx->inv && i < ctx->inv->n_pcie; i++) {
		const struct ps_pcie_dev *p = &ctx->inv->pcie[i];
		json_object *o;

		if (!p->fn.ids_known || p->fn.class >> 16 != 0x03)
			continue;
		o = json_object_new_object();
		ps_json_set_str(o, "address", p->fn.address);
		ps_json_set_str(o, "device", p->id);
		ps_json_set(o, "vendor_id", hex(p->fn.vendor, 4));
		ps_json_set(o, "device_id", hex(p->fn.device, 4));
		ps_json_set_str(o, "vendor", p->fn.vendor_name);
		ps_json_set_str(o, "name", p->fn.device_name);
		ps_json_set_str(o, "driver", p->fn.driver);
		json_object_array_add(a, o);
	}
	ps_json_set(ctx->data, "nomodeset", json_object_new_boolean(d->nomodeset));
	/* fb0's name ("EFI VGA", "astdrmfb"); none: the VGA text console */
	if (ps_read_str(ps_path(path, sizeof(path), ctx->root, "/sys/class/graphics/fb0/name"), fb,
			sizeof(fb)) <= 0)
		fb[0] = '\0';
	ps_json_set_str(ctx->data, "framebuffer", fb);
}

static int run(struct ps_ctx *ctx)
{
	struct ps_drivers d;
	json_object *devs, *fw;
	int ret = ps_drivers_read(ctx->root, ctx->inv, &d);

	if (ret < 0)
		return ret;
	ps_json_set_str(ctx->data, "kernel", d.release);
	ps_json_set_str(ctx->data, "alias_source", d.alias_source);
	ps_json_set_str(ctx->data, "pci_ids_source", d.pci_ids_source);
	ps_json_set_str(ctx->data, "usb_ids_source", d.usb_ids_source);
	ps_json_set(ctx->data, "kernel_log", json_object_new_boolean(d.kmsg_read));
	ps_json_set_count(ctx->data, "pci_functions", (int64_t)d.pci_total);
	ps_json_set_count(ctx->data, "pci_bound", (int64_t)d.pci_bound);
	ps_json_set_count(ctx->data, "usb_devices", (int64_t)d.usb_total);
	ps_json_set_count(ctx->data, "usb_bound", (int64_t)d.usb_bound);
	ps_json_set_count(ctx->data, "unbound", (int64_t)d.n);
	devs = ps_json_reset_arr(ctx->data, "devices");
	fw = ps_json_reset_arr(ctx->data, "firmware_failed");

	if (!d.alias_source[0])
		ps_findf(ctx, PS_SEV_INFO, (struct ps_dev_ref){0}, "no_aliases",
			 "neither the image's list of module aliases (/usr/share/probestick/"
			 "modules.alias.zst) nor the kernel's modules.alias could be read: devices "
			 "without a driver are listed without the module that would drive them");
	for (size_t i = 0; i < d.n; i++) {
		const struct ps_nodrv_dev *n = &d.devs[i];
		char name[48];

		json_object_array_add(devs, device_json(n));
		ps_findf(ctx, n->matters ? PS_SEV_WARN : PS_SEV_INFO,
			 device_ref(ctx, n->bus, n->address, n->id, name, sizeof(name)),
			 "no_driver", "%s", n->message);
	}
	for (size_t i = 0; i < d.n_fw; i++) {
		const struct ps_fw_failure *f = &d.fw[i];
		json_object *o = json_object_new_object();
		char name[48];
		bool pci =
		    strchr(f->device, ':') && strchr(f->device, '.') && strlen(f->device) == 12;

		ps_json_set_str(o, "device", f->device);
		ps_json_set_str(o, "file", f->file);
		ps_json_set_str(o, "error", f->error);
		ps_json_set_str(o, "detail", f->detail);
		json_object_array_add(fw, o);
		ps_findf(ctx, PS_SEV_WARN,
			 device_ref(ctx, pci ? "pci" : "usb", f->device, NULL, name, sizeof(name)),
			 "firmware_failed",
			 "firmware %s did not load (error %s) although its driver took the device: "
			 "it may run without its fixes or features%s%s",
			 f->file, f->error[0] ? f->error : "?",
			 f->detail[0] ? "; the image left it out: " : "", f->detail);
	}
	displays(ctx, &d);
	ps_drivers_free(&d);
	return PS_PASS;
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
    .run = run,
    .estimate_s = estimate_s,
};
PS_STEP_REGISTER(drivers_ops);
