/*
 * pcie.c - pcie[] of the report: every PCI function, its link capability
 * against the link it trained to, and its upstream port; from probestick.ko's
 * table when the module is there, else from sysfs and config space.
 */
#include "decode.h"
#include "probe_util.h"
#include "probes.h"
#include "util.h"

#include "probestick.h"

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
	fn->source = "sysfs";

	/* as non-root, config gives 64 bytes: the capability list is cut off */
	if (ps_read_all(ps_path(path, sizeof(path), "", "%s/config", dir), &data, &len) == 0) {
		r = ps_pcie_decode_config((const uint8_t *)data, len, &cfg);
		free(data);
	}
	if (r == 0) {
		fn->is_pcie = cfg.is_pcie;
		fn->port_type = cfg.port_type;
		fn->has_link = cfg.is_pcie && ps_pcie_port_type_has_link(cfg.port_type);
		if (fn->has_link)
			ps_pcie_link_from_regs(cfg.lnkcap, cfg.lnksta, cfg.lnkcap2, &fn->link);
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

static const struct ps_pcie_fn *find(const struct fn_table *t, const char *address)
{
	struct ps_pcie_fn key;

	if (!address[0])
		return NULL;
	snprintf(key.address, sizeof(key.address), "%s", address);
	return bsearch(&key, t->v, t->n, sizeof(*t->v), by_address);
}

static const struct ps_pcie_fn *first_child_with_link(const struct fn_table *t,
						      const struct ps_pcie_fn *fn)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].has_link && strcmp(t->v[i].upstream, fn->address) == 0)
			return &t->v[i];
	return NULL;
}

/*
 * The other end of fn's link: the function below a root or downstream port,
 * the port above anything else. Without the port type (non-root sysfs) a
 * PCI bridge is taken as a downstream-facing port.
 */
static const struct ps_pcie_fn *link_partner(const struct fn_table *t, const struct ps_pcie_fn *fn)
{
	bool down = fn->port_type >= 0 ? ps_pcie_port_faces_down(fn->port_type)
				       : (fn->class >> 8) == PCI_CLASS_BRIDGE_PCI;
	const struct ps_pcie_fn *p = down ? first_child_with_link(t, fn) : find(t, fn->upstream);

	return p && p->has_link ? p : NULL;
}

static bool downgraded(const struct fn_table *t, const struct ps_pcie_fn *fn)
{
	bool down = fn->port_type >= 0 ? ps_pcie_port_faces_down(fn->port_type)
				       : (fn->class >> 8) == PCI_CLASS_BRIDGE_PCI;
	const struct ps_pcie_fn *p = link_partner(t, fn);

	if (!fn->has_link)
		return false;
	if (down && !p)
		return false; /* an empty slot: nothing to train with */
	return ps_pcie_link_downgraded(&fn->link, p ? p->link.cap_speed : 0,
				       p ? p->link.cap_width : 0);
}

static void add_gts(json_object *obj, const char *key, int speed)
{
	json_object_object_add(obj, key,
			       speed > 0 ? json_object_new_double(ps_pcie_speed_gts(speed)) : NULL);
}

static json_object *link_json(const struct ps_pcie_fn *fn)
{
	json_object *link, *speeds;

	if (!fn->has_link)
		return NULL;
	link = json_object_new_object();
	add_gts(link, "cap_speed_gts", fn->link.cap_speed);
	ps_json_add_int(link, "cap_width", fn->link.cap_width);
	/* a link that is down has a width of 0 and no meaningful speed */
	add_gts(link, "speed_gts", fn->link.sta_width > 0 ? fn->link.sta_speed : 0);
	ps_json_add_int(link, "width", fn->link.sta_width);
	speeds = json_object_new_array();
	for (int s = 1; s <= PS_PCIE_SPEED_MAX; s++)
		if (fn->link.speeds & (1U << (s - 1)))
			json_object_array_add(speeds, json_object_new_double(ps_pcie_speed_gts(s)));
	json_object_object_add(link, "supported_speeds_gts", speeds);
	return link;
}

static json_object *fn_json(const struct fn_table *t, const struct ps_pcie_fn *fn)
{
	json_object *o = json_object_new_object();
	const struct ps_pcie_fn *up = find(t, fn->upstream);
	char hex[16];

	json_object_object_add(o, "address", json_object_new_string(fn->address));
	snprintf(hex, sizeof(hex), "%04x", fn->vendor);
	ps_json_add_str(o, "vendor_id", fn->ids_known ? hex : NULL);
	snprintf(hex, sizeof(hex), "%04x", fn->device);
	ps_json_add_str(o, "device_id", fn->ids_known ? hex : NULL);
	snprintf(hex, sizeof(hex), "%06x", fn->class);
	ps_json_add_str(o, "class", fn->ids_known ? hex : NULL);
	ps_json_add_str(o, "driver", fn->driver);
	json_object_object_add(o, "is_pcie", json_object_new_boolean(fn->is_pcie));
	ps_json_add_str(o, "port_type", fn->is_pcie ? ps_pcie_port_type_name(fn->port_type) : NULL);
	json_object_object_add(o, "link", link_json(fn));
	if (fn->upstream[0]) {
		json_object *u = json_object_new_object();
		bool known = up && up->has_link;

		json_object_object_add(u, "address", json_object_new_string(fn->upstream));
		add_gts(u, "cap_speed_gts", known ? up->link.cap_speed : 0);
		ps_json_add_int(u, "cap_width", known ? up->link.cap_width : -1);
		json_object_object_add(o, "upstream", u);
	} else {
		json_object_object_add(o, "upstream", NULL);
	}
	json_object_object_add(o, "downgraded", json_object_new_boolean(downgraded(t, fn)));
	json_object_object_add(o, "source", json_object_new_string(fn->source));
	return o;
}

int ps_probe_pcie(const char *root, int module_fd, json_object *pcie)
{
	struct fn_table t = {NULL, 0};
	int r = -ENODEV;

	if (module_fd >= 0)
		r = collect_module(root, module_fd, &t);
	if (r < 0) /* no module, or an older one: sysfs tells almost as much */
		r = collect_sysfs(root, &t);
	if (r < 0)
		return r;
	qsort(t.v, t.n, sizeof(*t.v), by_address);
	for (size_t i = 0; i < t.n; i++)
		json_object_array_add(pcie, fn_json(&t, &t.v[i]));
	free(t.v);
	return 0;
}
