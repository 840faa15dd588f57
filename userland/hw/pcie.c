/*
 * pcie.c - the PCIe section of the inventory: every PCI function, its link
 * capability against the link it trained to, its upstream port and the one
 * link verdict (kmod/pcie_verdict.h); from probestick.ko's table when the
 * module is there, else from sysfs and config space.
 */
#include "decode/decode.h"
#include "hw/hw_util.h"
#include "hw/readers.h"
#include "lib/util.h"

#include "../../kmod/pcie_fields.h"
#include "../../kmod/pcie_verdict.h"
#include "probestick.h"

#include <math.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define PCI_CLASS_BRIDGE_PCI 0x0604

struct fn_table {
	struct ps_pcie_fn *v;
	size_t n;
};

/* The Device Serial Number from config space: root reads all 4 KiB of it. */
static void sysfs_dsn(const char *root, struct ps_pcie_fn *fn)
{
	char path[PATH_MAX], *data;
	size_t len;

	fn->dsn = 0;
	if (!fn->is_pcie || ps_read_all(ps_path(path, sizeof(path), root,
						"/sys/bus/pci/devices/%s/config", fn->address),
					&data, &len) < 0)
		return;
	if (ps_pcie_decode_dsn((const uint8_t *)data, len, &fn->dsn) < 0)
		fn->dsn = 0;
	free(data);
}

/* Driver and upstream function: sysfs knows them, whatever the source. */
static void sysfs_topology(const char *root, struct ps_pcie_fn *fn)
{
	char path[PATH_MAX], real[PATH_MAX];

	ps_path(path, sizeof(path), root, "/sys/bus/pci/devices/%s/driver", fn->address);
	if (ps_link_name(path, fn->driver, sizeof(fn->driver)) < 0)
		fn->driver[0] = '\0';
	ps_path(path, sizeof(path), root, "/sys/bus/pci/devices/%s", fn->address);
	if (!realpath(path, real) || ps_pci_ancestor(real, 1, fn->upstream, sizeof(fn->upstream)))
		fn->upstream[0] = '\0';
}

static int collect_module(const char *root, int fd, struct fn_table *t)
{
	struct probestick_pcie_link *links = NULL;
	struct probestick_pcie_table tbl;
	uint32_t room = 64;

	/* functions can appear between two calls (hotplug): retry a few times */
	for (int attempt = 0; attempt < 4; attempt++) {
		struct probestick_pcie_link *bigger = realloc(links, room * sizeof(*links));

		if (!bigger) {
			free(links);
			return -ENOMEM;
		}
		links = bigger;
		memset(&tbl, 0, sizeof(tbl));
		tbl.count = room;
		tbl.entry_size = sizeof(*links);
		tbl.links = (uintptr_t)links;
		if (ioctl(fd, PROBESTICK_IOC_PCIE_LINKS, &tbl) < 0) {
			int err = -errno;

			free(links);
			return err;
		}
		if (tbl.count <= room)
			break;
		if (tbl.count > PROBESTICK_PCIE_LINKS_MAX) {
			free(links);
			return -EOVERFLOW;
		}
		room = tbl.count;
	}
	if (tbl.count > room)
		tbl.count = room;
	t->v = calloc(tbl.count ? tbl.count : 1, sizeof(*t->v));
	if (!t->v) {
		free(links);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < tbl.count; i++) {
		ps_pcie_from_module(&links[i], &t->v[i]);
		sysfs_topology(root, &t->v[i]);
		sysfs_dsn(root, &t->v[i]);
	}
	t->n = tbl.count;
	free(links);
	return 0;
}

/* Link from the sysfs attributes, when config space could not tell. */
static void sysfs_link(const char *dir, struct ps_pcie_fn *fn)
{
	char path[PATH_MAX], cap_speed[64], cap_width[64], speed[64], width[64];
	bool present;

	present = ps_read_str(ps_path(path, sizeof(path), "", "%s/max_link_speed", dir), cap_speed,
			      sizeof(cap_speed)) >= 0;
	present |= ps_read_str(ps_path(path, sizeof(path), "", "%s/max_link_width", dir), cap_width,
			       sizeof(cap_width)) >= 0;
	ps_read_str(ps_path(path, sizeof(path), "", "%s/current_link_speed", dir), speed,
		    sizeof(speed));
	ps_read_str(ps_path(path, sizeof(path), "", "%s/current_link_width", dir), width,
		    sizeof(width));
	/* Kernels since 4.x show these only for PCIe; older ones say 255 for PCI */
	fn->is_pcie = present && strcmp(cap_width, "255") != 0;
	fn->port_type = -1;
	fn->link.cap_speed = ps_pcie_parse_sysfs_speed(cap_speed);
	fn->link.cap_width = ps_pcie_parse_sysfs_width(cap_width);
	fn->link.sta_speed = ps_pcie_parse_sysfs_speed(speed);
	fn->link.sta_width = ps_pcie_parse_sysfs_width(width);
	fn->link.speeds = ps_pcie_speeds_upto(fn->link.cap_speed);
	fn->has_link = fn->is_pcie && fn->link.cap_width > 0;
}

static void sysfs_function(const char *root, const char *name, struct ps_pcie_fn *fn)
{
	char dir[PATH_MAX], path[PATH_MAX];
	uint64_t vendor = 0, device = 0, class = 0;
	struct ps_pcie_config cfg;
	char *data = NULL;
	size_t len = 0;
	int r = -ENODATA;

	memset(fn, 0, sizeof(*fn));
	snprintf(fn->address, sizeof(fn->address), "%s", name);
	ps_path(dir, sizeof(dir), root, "/sys/bus/pci/devices/%s", name);
	fn->ids_known =
	    ps_read_u64(ps_path(path, sizeof(path), "", "%s/vendor", dir), &vendor) == 0 &&
	    ps_read_u64(ps_path(path, sizeof(path), "", "%s/device", dir), &device) == 0 &&
	    ps_read_u64(ps_path(path, sizeof(path), "", "%s/class", dir), &class) == 0 &&
	    vendor <= 0xffff && device <= 0xffff && class <= 0xffffff;
	fn->vendor = (unsigned int)vendor;
	fn->device = (unsigned int)device;
	fn->class = (unsigned int)class;
	fn->source = "sysfs"; /* judged in ps_pcie_judge(), by the rule the module applies */

	/* as non-root, config gives 64 bytes: the capability list is cut off */
	if (ps_read_all(ps_path(path, sizeof(path), "", "%s/config", dir), &data, &len) == 0) {
		r = ps_pcie_decode_config((const uint8_t *)data, len, &cfg);
		if (r == 0 && cfg.is_pcie &&
		    ps_pcie_decode_dsn((const uint8_t *)data, len, &fn->dsn) < 0)
			fn->dsn = 0;
		free(data);
	}
	if (r == 0) {
		fn->is_pcie = cfg.is_pcie;
		fn->port_type = cfg.port_type;
		fn->has_link = cfg.is_pcie && ps_pcie_port_type_has_link(cfg.port_type);
		if (fn->has_link)
			ps_pcie_link_from_regs(cfg.lnkcap, cfg.lnksta, cfg.lnkcap2, &fn->link);
		if (cfg.is_pcie)
			fn->regs = (struct ps_pcie_regs){.known = true,
							 .lnkcap = cfg.lnkcap,
							 .lnkcap2 = cfg.lnkcap2,
							 .lnkctl = cfg.lnkctl,
							 .lnkctl2 = cfg.lnkctl2,
							 .lnksta = cfg.lnksta,
							 .lnksta2 = cfg.lnksta2};
	} else {
		sysfs_link(dir, fn);
	}
	sysfs_topology(root, fn);
}

static int collect_sysfs(const char *root, struct fn_table *t)
{
	char path[PATH_MAX];
	struct ps_dirlist list;
	size_t n = 0;
	int r = ps_dir_list(ps_path(path, sizeof(path), root, "/sys/bus/pci/devices"), &list);

	if (r < 0)
		return r;
	t->v = calloc(list.n ? list.n : 1, sizeof(*t->v));
	if (!t->v) {
		ps_dir_free(&list);
		return -ENOMEM;
	}
	for (size_t i = 0; i < list.n; i++)
		if (ps_is_pci_address(list.names[i], strlen(list.names[i])))
			sysfs_function(root, list.names[i], &t->v[n++]);
	t->n = n;
	ps_dir_free(&list);
	return 0;
}

static int by_address(const void *a, const void *b)
{
	return strcmp(((const struct ps_pcie_fn *)a)->address,
		      ((const struct ps_pcie_fn *)b)->address);
}

static int index_of(const struct ps_inventory *inv, const char *address)
{
	size_t lo = 0, hi = inv->n_pcie;

	if (!address[0])
		return -1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(inv->pcie[mid].fn.address, address);

		if (c == 0)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * Which way fn's link faces: root and downstream ports have their partner
 * below them. Without the port type (non-root sysfs) a PCI bridge is taken
 * as a downstream-facing port.
 */
static bool faces_down(const struct ps_pcie_fn *fn)
{
	return fn->port_type >= 0 ? ps_pcie_port_faces_down(fn->port_type)
				  : (fn->class >> 8) == PCI_CLASS_BRIDGE_PCI;
}

static int known(int v)
{
	return v > 0 ? v : 0;
}

/* A graphics card: it scales its link speed with its load. */
static bool display_class(unsigned int class)
{
	return (class >> 16) == 0x03;
}

/* fn, or function 0 of its device (a card's audio function shares its link), is one. */
static bool on_display_device(const struct ps_inventory *inv, const struct ps_pcie_fn *fn)
{
	char fn0[sizeof(fn->address)];
	size_t n = strlen(fn->address);
	int k;

	if (display_class(fn->class))
		return true;
	if (n < 2 || fn->address[n - 2] != '.')
		return false;
	memcpy(fn0, fn->address, n + 1);
	fn0[n - 1] = '0';
	k = index_of(inv, fn0);
	return k >= 0 && display_class(inv->pcie[k].fn.class);
}

static int speed_code_of(unsigned int v)
{
	return v >= 1 && v <= PS_PCIE_SPEED_MAX ? (int)v : 0;
}

void ps_pcie_judge(struct ps_inventory *inv, size_t i)
{
	struct ps_pcie_dev *dev = &inv->pcie[i];
	const struct ps_pcie_fn *fn = &dev->fn, *partner = NULL;
	const struct ps_pcie_regs *port;
	struct ps_pcie_link_ends e;
	bool present = false, down = faces_down(fn);

	if (down) {
		/* the function below: the first with a link of its own */
		for (size_t k = 0; k < inv->n_pcie; k++) {
			if (strcmp(inv->pcie[k].fn.upstream, fn->address) != 0)
				continue;
			present = true;
			if (inv->pcie[k].fn.has_link) {
				partner = &inv->pcie[k].fn;
				break;
			}
		}
	} else if (dev->up_index >= 0) {
		present = true;
		if (inv->pcie[dev->up_index].fn.has_link)
			partner = &inv->pcie[dev->up_index].fn;
	}
	/* the downstream port of the link: fn itself, or the port above */
	port = down ? &fn->regs : &fn->up_regs;
	e.has_link = fn->has_link;
	e.training = fn->link.training;
	e.link_inactive = fn->regs.known && (fn->regs.lnkcap & PS_LNKCAP_DLLLA_REPORT) &&
			  !(fn->regs.lnksta & PS_LNKSTA_DLLLA);
	e.link_active = fn->regs.known && (fn->regs.lnkcap & PS_LNKCAP_DLLLA_REPORT) &&
			(fn->regs.lnksta & PS_LNKSTA_DLLLA);
	e.faces_down = down;
	e.partner_present = present;
	e.cap_speed = known(fn->link.cap_speed);
	e.cap_width = known(fn->link.cap_width);
	e.partner_speed = partner ? known(partner->link.cap_speed) : 0;
	e.partner_width = partner ? known(partner->link.cap_width) : 0;
	e.sta_speed = known(fn->link.sta_speed);
	e.sta_width = fn->link.sta_width;
	e.target_speed = port->known ? speed_code_of(PS_LNKCTL2_TARGET(port->lnkctl2)) : 0;
	e.labs = port->known && (port->lnksta & PS_LNKSTA_LABS);
	e.managed = down ? partner && on_display_device(inv, partner) : on_display_device(inv, fn);
	/* the module judged it, with the same rule, from the same registers */
	switch (fn->judged ? (enum ps_pcie_verdict)fn->verdict : ps_pcie_verdict(&e)) {
	case PS_PCIE_VERDICT_OK:
		dev->verdict = PS_LINK_OK;
		break;
	case PS_PCIE_VERDICT_LIMITED:
		dev->verdict = PS_LINK_LIMITED;
		break;
	case PS_PCIE_VERDICT_DEGRADED:
		dev->verdict = PS_LINK_DEGRADED;
		break;
	case PS_PCIE_VERDICT_DOWN:
		dev->verdict = PS_LINK_DOWN;
		break;
	case PS_PCIE_VERDICT_IDLE:
		dev->verdict = PS_LINK_IDLE;
		break;
	default:
		dev->verdict = PS_LINK_NONE;
	}
	dev->best_speed = ps_pcie_best_speed(&e);
	if (dev->verdict != PS_LINK_DEGRADED)
		dev->lost_gbps = NAN;
	else
		dev->lost_gbps = (fn->judged ? fn->lost_kbps : ps_pcie_lost_kbps(&e)) / 1e6;
}

int ps_read_pcie(const char *root, int module_fd, struct ps_inventory *inv)
{
	struct fn_table t = {NULL, 0};
	const char *source = "module";
	struct ps_pci_names *names;
	int r = -ENODEV;

	if (module_fd >= 0)
		r = collect_module(root, module_fd, &t);
	if (r < 0) { /* no module, or an older one: sysfs tells almost as much */
		source = "sysfs";
		r = collect_sysfs(root, &t);
	}
	if (r < 0)
		return r;
	qsort(t.v, t.n, sizeof(*t.v), by_address);
	inv->pcie = calloc(t.n ? t.n : 1, sizeof(*inv->pcie));
	if (!inv->pcie) {
		free(t.v);
		return -ENOMEM;
	}
	inv->n_pcie = t.n;
	inv->pcie_source = source;
	for (size_t i = 0; i < t.n; i++)
		inv->pcie[i].fn = t.v[i];
	free(t.v);
	for (size_t i = 0; i < inv->n_pcie; i++) {
		struct ps_pcie_dev *dev = &inv->pcie[i];

		dev->up_index = index_of(inv, dev->fn.upstream);
		ps_pcie_identity(dev->fn.address, dev->fn.ids_known ? dev->fn.vendor : 0xffff,
				 dev->fn.ids_known ? dev->fn.device : 0xffff, dev->fn.dsn, dev->id,
				 sizeof(dev->id));
	}
	names = ps_pci_names_open(root);
	for (size_t i = 0; i < inv->n_pcie; i++) {
		struct ps_pcie_dev *dev = &inv->pcie[i];

		/* sysfs: the port above is in the table, with the registers root read */
		if (!dev->fn.up_regs.known && dev->up_index >= 0)
			dev->fn.up_regs = inv->pcie[dev->up_index].fn.regs;
		ps_pci_names_lookup(names, &dev->fn);
		ps_pcie_judge(inv, i);
	}
	ps_pci_names_close(names);
	return 0;
}
