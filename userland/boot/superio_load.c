/*
 * superio_load.c - the board's own hardware monitor (fans, voltages, board
 * temperatures), loaded the way sensors-detect decides: the Super I/O
 * chip's ID read through /dev/port (decode/superio.h) names the one driver to
 * load. Where the kernel refuses the ports (lockdown under Secure Boot)
 * each driver is loaded by name and probes for its chip itself. A driver
 * that finds no chip is unloaded again, with the helpers it pulled in
 * (nct6775_core, hwmon_vid), and coldplug.json says which driver claimed
 * which chip.
 */
#include "boot/coldplug.h"
#include "lib/util.h"
#include "decode/superio.h"

#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Every Super I/O monitor driver the image holds (initramfs/modules.conf), in load order. */
static const char *const drivers[] = {"nct6775", "nct6683", "it87", "f71882fg", "w83627ehf"};

#define MAX_CHIPS 4
#define MAX_DEPS  16

static int port_inb(void *arg, uint16_t port)
{
	uint8_t v;

	return pread(*(int *)arg, &v, 1, port) == 1 ? v : -errno;
}

static int port_outb(void *arg, uint16_t port, uint8_t v)
{
	return pwrite(*(int *)arg, &v, 1, port) == 1 ? 0 : -errno;
}

/* Read the chip IDs through root's /dev/port: how many, or -errno when the ports are refused. */
static int probe_chips(const char *root, struct ps_sio_found *found, char *why, size_t len)
{
	char path[PATH_MAX];
	int fd = open(ps_path(path, sizeof(path), root, "/dev/port"), O_RDWR | O_CLOEXEC);
	struct ps_sio_ports io = {port_inb, port_outb, &fd};
	int n;

	if (fd < 0) {
		n = -errno;
		snprintf(why, len,
			 "%.200s: %s%s: each Super I/O driver was loaded by name and probed for "
			 "its chip itself",
			 path, strerror(-n),
			 n == -EPERM ? " (the kernel's lockdown refuses raw port access)" : "");
		return n;
	}
	n = ps_sio_probe(&io, found, MAX_CHIPS);
	close(fd);
	if (n < 0)
		snprintf(why, len,
			 "reading the configuration ports 0x2e/0x4e failed: %s: each Super I/O "
			 "driver was loaded by name and probed for its chip itself",
			 strerror(-n));
	return n;
}

/* The modules mod depends on, all the way down, with whether each was live before. */
struct deps {
	struct kmod_module *m[MAX_DEPS];
	bool live[MAX_DEPS];
	size_t n;
};

static bool is_live(struct kmod_module *m)
{
	int st = kmod_module_get_initstate(m);

	return st == KMOD_MODULE_LIVE || st == KMOD_MODULE_COMING || st == KMOD_MODULE_BUILTIN;
}

static void deps_collect(struct kmod_module *mod, struct deps *d)
{
	struct kmod_list *list = kmod_module_get_dependencies(mod), *l;

	kmod_list_foreach(l, list)
	{
		struct kmod_module *m = kmod_module_get_module(l);
		bool seen = false;

		for (size_t i = 0; i < d->n && !seen; i++)
			seen = strcmp(kmod_module_get_name(d->m[i]), kmod_module_get_name(m)) == 0;
		if (seen || d->n == MAX_DEPS) {
			kmod_module_unref(m);
			continue;
		}
		d->live[d->n] = is_live(m);
		d->m[d->n++] = m;
		deps_collect(m, d);
	}
	kmod_module_unref_list(list);
}

/* Remove what the load pulled in and nothing uses now; their names into removed. */
static void unload_leftovers(struct kmod_module *mod, bool remove_mod, struct deps *d,
			     json_object *removed)
{
	bool progress = true;

	if (remove_mod && kmod_module_remove_module(mod, 0) == 0)
		json_object_array_add(removed, json_object_new_string(kmod_module_get_name(mod)));
	/* a helper is free once the module above it is gone: repeat until nothing moves */
	while (progress) {
		progress = false;
		for (size_t i = 0; i < d->n; i++) {
			if (d->live[i] || !is_live(d->m[i]) || kmod_module_get_refcnt(d->m[i]) != 0)
				continue;
			if (kmod_module_remove_module(d->m[i], 0) == 0) {
				json_object_array_add(
				    removed, json_object_new_string(kmod_module_get_name(d->m[i])));
				progress = true;
			}
		}
	}
}

/* The hwmon devices a platform driver has bound: its claim on a chip. */
static size_t claims(const char *root, const char *driver, json_object *out)
{
	char dir[PATH_MAX];
	struct ps_dirlist devs;
	size_t n = 0;

	if (ps_dir_list(ps_path(dir, sizeof(dir), root, "/sys/bus/platform/drivers/%s", driver),
			&devs) < 0)
		return 0;
	for (size_t i = 0; i < devs.n; i++) {
		char path[PATH_MAX];
		struct ps_dirlist hw;

		if (strchr(devs.names[i], '.') == NULL) /* bind, unbind, module, uevent */
			continue;
		if (ps_dir_list(ps_path(path, sizeof(path), "", "%s/%s/hwmon", dir, devs.names[i]),
				&hw) < 0)
			continue;
		for (size_t j = 0; j < hw.n; j++) {
			json_object *c = json_object_new_object();
			char name[64] = "";

			ps_read_str(ps_path(path, sizeof(path), "", "%s/%s/hwmon/%s/name", dir,
					    devs.names[i], hw.names[j]),
				    name, sizeof(name));
			json_object_object_add(c, "driver", json_object_new_string(driver));
			json_object_object_add(c, "device", json_object_new_string(devs.names[i]));
			json_object_object_add(c, "hwmon", json_object_new_string(hw.names[j]));
			json_object_object_add(c, "name",
					       name[0] ? json_object_new_string(name) : NULL);
			json_object_array_add(out, c);
			n++;
		}
		ps_dir_free(&hw);
	}
	ps_dir_free(&devs);
	return n;
}

struct lists {
	json_object *loaded, *unused, *failed; /* coldplug.json's own lists */
	json_object *drivers, *claims;	       /* superio.drivers, superio.claims */
};

static void note(struct lists *l, const char *module, const char *result, const char *error,
		 json_object *removed)
{
	json_object *d = json_object_new_object();

	json_object_object_add(d, "module", json_object_new_string(module));
	json_object_object_add(d, "result", json_object_new_string(result));
	json_object_object_add(d, "error", error ? json_object_new_string(error) : NULL);
	json_object_object_add(d, "unloaded", removed);
	json_object_array_add(l->drivers, d);
}

static void failed(struct lists *l, const char *module, const char *error)
{
	json_object *f = json_object_new_object();

	json_object_object_add(f, "module", json_object_new_string(module));
	json_object_object_add(f, "error", json_object_new_string(error));
	json_object_array_add(l->failed, f);
}

/*
 * Load one driver; chip: the chip its ID named (NULL when loaded by name).
 * A driver that attaches to nothing is removed again with its helpers.
 */
static void load_one(struct kmod_ctx *ctx, const char *root, const char *name, const char *chip,
		     struct lists *l)
{
	struct kmod_list *list = NULL;
	struct kmod_module *mod;
	struct deps d = {.n = 0};
	json_object *removed = json_object_new_array();
	const char *missed = chip ? "did not attach to the chip its ID names (the kernel log "
				    "says why; often the firmware's ACPI reserves the chip's "
				    "ports): unloaded"
				  : "no chip of its own: unloaded";
	int ret = kmod_module_new_from_lookup(ctx, name, &list), err;

	if (ret < 0 || !list) {
		const char *why = ret < 0 ? strerror(-ret) : "not in the module tree (modules.dep)";

		failed(l, name, why);
		note(l, name, "failed", why, removed);
		return;
	}
	mod = kmod_module_get_module(list);
	kmod_module_unref_list(list);
	if (is_live(mod)) {
		claims(root, name, l->claims);
		note(l, name, "already loaded", NULL, removed);
		kmod_module_unref(mod);
		return;
	}
	deps_collect(mod, &d);
	err = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL, NULL,
					      NULL);
	if (err == 0 && claims(root, name, l->claims) == 0) {
		/* loaded, but bound to no device: it found nothing to drive */
		unload_leftovers(mod, true, &d, removed);
		json_object_array_add(l->unused, json_object_new_string(name));
		note(l, name, missed, NULL, removed);
	} else if (err == 0) {
		json_object_array_add(l->loaded, json_object_new_string(name));
		note(l, name, "claimed", NULL, removed);
	} else if (err == -ENODEV || err == -ENXIO) {
		unload_leftovers(mod, false, &d, removed);
		json_object_array_add(l->unused, json_object_new_string(name));
		note(l, name, missed, NULL, removed);
	} else if (err > 0) {
		note(l, name, "blacklisted", NULL, removed);
	} else {
		unload_leftovers(mod, false, &d, removed);
		failed(l, name, strerror(-err));
		note(l, name, "failed", strerror(-err), removed);
	}
	for (size_t i = 0; i < d.n; i++)
		kmod_module_unref(d.m[i]);
	kmod_module_unref(mod);
}

json_object *ps_superio_load(struct kmod_ctx *ctx, const char *root, json_object *loaded,
			     json_object *unused, json_object *failed_list)
{
	struct ps_sio_found found[MAX_CHIPS];
	json_object *o = json_object_new_object(), *chips = json_object_new_array();
	struct lists l = {loaded, unused, failed_list, json_object_new_array(),
			  json_object_new_array()};
	char why[512] = "";
	int n = probe_chips(root ? root : "", found, why, sizeof(why));

	json_object_object_add(o, "method", json_object_new_string(n >= 0 ? "chip_id" : "by_name"));
	json_object_object_add(o, "reason", why[0] ? json_object_new_string(why) : NULL);
	for (int i = 0; i < n; i++) {
		json_object *c = json_object_new_object();
		char hex[8];

		snprintf(hex, sizeof(hex), "0x%02x", found[i].port);
		json_object_object_add(c, "port", json_object_new_string(hex));
		snprintf(hex, sizeof(hex), "0x%04x", found[i].devid);
		json_object_object_add(c, "id", json_object_new_string(hex));
		json_object_object_add(c, "vendor",
				       json_object_new_string(found[i].family == PS_SIO_ITE ? "ITE"
							      : found[i].vendor == 0x1934
								  ? "Fintek"
								  : "Winbond/Nuvoton"));
		json_object_object_add(
		    c, "chip", found[i].chip ? json_object_new_string(found[i].chip->name) : NULL);
		json_object_object_add(c, "driver",
				       found[i].chip && found[i].chip->driver
					   ? json_object_new_string(found[i].chip->driver)
					   : NULL);
		json_object_array_add(chips, c);
	}
	json_object_object_add(o, "chips", chips);
	for (size_t k = 0; ctx && k < sizeof(drivers) / sizeof(drivers[0]); k++) {
		const char *chip = NULL;

		for (int i = 0; i < n && !chip; i++)
			if (found[i].chip && found[i].chip->driver &&
			    strcmp(found[i].chip->driver, drivers[k]) == 0)
				chip = found[i].chip->name;
		if (n < 0 || chip)
			load_one(ctx, root ? root : "", drivers[k], chip, &l);
	}
	json_object_object_add(o, "drivers", l.drivers);
	json_object_object_add(o, "claims", l.claims);
	return o;
}
