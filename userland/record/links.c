/*
 * links.c - the link watch: every PCIe link's speed, width and Data Link
 * Layer Link Active at the start and the end of each step, with the Link
 * Bandwidth Management and Autonomous Bandwidth status bits (read, never
 * cleared), so a link that retrains under load is a finding of that step.
 * Links the inventory judged idle (a power-managed lower speed at full
 * width) are read again during the step, with its load, on the sampler's
 * thread: the highest speed they reach tells power management from a link
 * that cannot train up.
 */
#include "record/platform.h"
#include "record/recorder.h"
#include "lib/util.h"
#include "decode/decode.h"
#include "hw/hw_util.h"
#include "lib/json.h"

#include "../../kmod/pcie_fields.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

/* An idle link watched during the step: its best speed and the highest it reached. */
struct ps_link_watch {
	char address[16];
	int best;	      /* the speed code it runs at when busy (inventory), 0 unknown */
	int peak, peak_width; /* the highest speed seen in the step, its width */
	unsigned int reads;   /* reads during the step */
};

struct ps_links {
	char root[PATH_MAX];
	int module_fd;
	struct ps_link_state *start;
	size_t n;
	const char *source;
	int err;
	struct ps_link_watch *watch;
	size_t nwatch;
	unsigned int ticks;
};

/* sysfs reads wake a runtime-suspended device: one read each this many ticks. */
#define PS_LINKS_SYSFS_EVERY 10

/* A state from the raw registers: the bandwidth bits only where the port has them. */
static void state_from_regs(struct ps_link_state *s, uint32_t lnkcap, uint16_t lnksta)
{
	if (lnksta == 0xffff) { /* the function did not answer */
		s->speed = 0;
		s->width = -1;
		s->dl_active = s->lbms = s->labs = s->training = -1;
		return;
	}
	s->speed = (int)PS_LNKSTA_SPEED(lnksta);
	if (s->speed > PS_PCIE_SPEED_MAX)
		s->speed = 0;
	s->width = (int)PS_LNKSTA_WIDTH(lnksta);
	s->training = !!(lnksta & PS_LNKSTA_TRAINING);
	s->dl_active = (lnkcap & PS_LNKCAP_DLLLA_REPORT) ? !!(lnksta & PS_LNKSTA_DLLLA) : -1;
	s->lbms = (lnkcap & PS_LNKCAP_BW_NOTIFY) ? !!(lnksta & PS_LNKSTA_LBMS) : -1;
	s->labs = (lnkcap & PS_LNKCAP_BW_NOTIFY) ? !!(lnksta & PS_LNKSTA_LABS) : -1;
}

static int read_module(int fd, struct ps_link_state **out, size_t *n)
{
	struct probestick_pcie_link *links = NULL, *grown;
	struct probestick_pcie_table t;
	uint32_t room = 64;
	size_t k = 0;

	for (int attempt = 0; attempt < 4; attempt++) {
		grown = realloc(links, room * sizeof(*links));
		if (!grown) {
			free(links);
			return -ENOMEM;
		}
		links = grown;
		memset(&t, 0, sizeof(t));
		t.count = room;
		t.entry_size = sizeof(*links);
		t.links = (uintptr_t)links;
		if (ioctl(fd, PROBESTICK_IOC_PCIE_LINKS, &t) < 0) {
			int err = -errno;

			free(links);
			return err;
		}
		if (t.count <= room)
			break;
		room = t.count > PROBESTICK_PCIE_LINKS_MAX ? PROBESTICK_PCIE_LINKS_MAX : t.count;
	}
	if (t.count > room)
		t.count = room;
	*out = calloc(t.count ? t.count : 1, sizeof(**out));
	if (!*out) {
		free(links);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t.count; i++) {
		const struct probestick_pcie_link *m = &links[i];
		struct ps_link_state *s = &(*out)[k];

		if (!(m->flags & PROBESTICK_LINK_HAS_LINK))
			continue;
		snprintf(s->address, sizeof(s->address), "%04x:%02x:%02x.%x", m->domain, m->bus,
			 m->devfn >> 3, m->devfn & 7);
		state_from_regs(s, m->lnkcap, m->lnksta);
		k++;
	}
	free(links);
	*n = k;
	return 0;
}

/*
 * One function's state from sysfs: config space (all of the capability as
 * root), else the link attributes. 1 with a link, 0 without, -errno.
 */
static int read_sysfs_fn(const char *dir, const char *name, struct ps_link_state *s)
{
	char path[PATH_MAX], buf[64];
	struct ps_pcie_config cfg;
	char *data = NULL;
	size_t len = 0;
	int r = -ENODATA;

	ps_copy_str(s->address, sizeof(s->address), name);
	if (ps_read_all(ps_path(path, sizeof(path), "", "%s/%s/config", dir, name), &data, &len) ==
	    0) {
		r = ps_pcie_decode_config((const uint8_t *)data, len, &cfg);
		free(data);
	}
	if (r == 0) {
		if (!cfg.is_pcie || !ps_pcie_port_type_has_link(cfg.port_type))
			return 0;
		state_from_regs(s, cfg.lnkcap, cfg.lnksta);
		return 1;
	}
	/* not root: speed and width only */
	if (ps_read_str(ps_path(path, sizeof(path), "", "%s/%s/current_link_width", dir, name), buf,
			sizeof(buf)) < 0 ||
	    ps_pcie_parse_sysfs_width(buf) < 0)
		return 0;
	s->width = ps_pcie_parse_sysfs_width(buf);
	if (ps_read_str(ps_path(path, sizeof(path), "", "%s/%s/current_link_speed", dir, name), buf,
			sizeof(buf)) < 0)
		buf[0] = '\0';
	s->speed = ps_pcie_parse_sysfs_speed(buf);
	s->dl_active = s->lbms = s->labs = s->training = -1;
	return 1;
}

/* sysfs: every function with a link. */
static int read_sysfs(const char *root, struct ps_link_state **out, size_t *n)
{
	char dir[PATH_MAX];
	struct ps_dirlist list;
	size_t k = 0;
	int r;

	r = ps_dir_list(ps_path(dir, sizeof(dir), root, "/sys/bus/pci/devices"), &list);
	if (r < 0)
		return r;
	*out = calloc(list.n ? list.n : 1, sizeof(**out));
	if (!*out) {
		ps_dir_free(&list);
		return -ENOMEM;
	}
	for (size_t i = 0; i < list.n; i++) {
		if (!ps_is_pci_address(list.names[i], strlen(list.names[i])))
			continue;
		if (read_sysfs_fn(dir, list.names[i], &(*out)[k]) == 1)
			k++;
	}
	ps_dir_free(&list);
	*n = k;
	return 0;
}

int ps_links_read(const char *root, int module_fd, struct ps_link_state **out, size_t *n,
		  const char **source)
{
	int r = -ENODEV;

	*out = NULL;
	*n = 0;
	if (module_fd >= 0) {
		r = read_module(module_fd, out, n);
		*source = "module";
	}
	if (r < 0) {
		free(*out);
		*out = NULL;
		r = read_sysfs(root ? root : "", out, n);
		*source = "sysfs";
	}
	return r;
}

/* The idle links of the inventory, each at its speed at the step's start. */
static void watch_idle(struct ps_links *l, const struct ps_inventory *inv)
{
	if (!inv || l->err)
		return;
	l->watch = calloc(inv->n_pcie ? inv->n_pcie : 1, sizeof(*l->watch));
	if (!l->watch)
		return;
	for (size_t i = 0; i < inv->n_pcie; i++) {
		const struct ps_pcie_dev *p = &inv->pcie[i];
		struct ps_link_watch *w = &l->watch[l->nwatch];

		if (p->verdict != PS_LINK_IDLE)
			continue;
		ps_copy_str(w->address, sizeof(w->address), p->fn.address);
		w->best = p->best_speed;
		for (size_t k = 0; k < l->n; k++)
			if (strcmp(l->start[k].address, w->address) == 0 && l->start[k].width > 0) {
				w->peak = l->start[k].speed;
				w->peak_width = l->start[k].width;
			}
		l->nwatch++;
	}
}

struct ps_links *ps_links_start(const char *root, int module_fd, const struct ps_inventory *inv)
{
	struct ps_links *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	ps_copy_str(l->root, sizeof(l->root), root ? root : "");
	l->module_fd = module_fd;
	l->err = ps_links_read(l->root, module_fd, &l->start, &l->n, &l->source);
	watch_idle(l, inv);
	return l;
}

static void watch_seen(struct ps_link_watch *w, const struct ps_link_state *s)
{
	w->reads++;
	if (s->width > 0 && s->speed > w->peak) {
		w->peak = s->speed;
		w->peak_width = s->width;
	}
}

void ps_links_sample(void *arg)
{
	struct ps_links *l = arg;
	struct ps_link_state *now = NULL;
	char dir[PATH_MAX];
	size_t n = 0;

	if (!l || !l->nwatch)
		return;
	l->ticks++;
	if (l->module_fd >= 0 && strcmp(l->source, "module") == 0) {
		/* live registers through the module: it does not wake the device */
		if (read_module(l->module_fd, &now, &n) < 0)
			return;
		for (size_t w = 0; w < l->nwatch; w++)
			for (size_t k = 0; k < n; k++)
				if (strcmp(now[k].address, l->watch[w].address) == 0)
					watch_seen(&l->watch[w], &now[k]);
		free(now);
		return;
	}
	if ((l->ticks - 1) % PS_LINKS_SYSFS_EVERY != 0)
		return;
	ps_path(dir, sizeof(dir), l->root, "/sys/bus/pci/devices");
	for (size_t w = 0; w < l->nwatch; w++) {
		struct ps_link_state s = {0};

		if (read_sysfs_fn(dir, l->watch[w].address, &s) == 1)
			watch_seen(&l->watch[w], &s);
	}
}

/*
 * The watched idle links into the step's links[]: the highest speed each
 * reached, and an info finding when it trained to its best (power
 * management, as the inventory said).
 */
static void watch_report(const struct ps_links *l, const struct ps_link_state *end, size_t nend,
			 json_object *o, const struct ps_inventory *inv)
{
	json_object *links = ps_json_get(o, "links"), *findings = ps_json_get(o, "findings");

	for (size_t w = 0; w < l->nwatch; w++) {
		struct ps_link_watch *lw = &l->watch[w];
		struct ps_dev_ref dev = ps_rec_pci_ref(inv, lw->address);

		for (size_t k = 0; k < nend; k++)
			if (strcmp(end[k].address, lw->address) == 0)
				watch_seen(lw, &end[k]);
		for (size_t i = 0; i < ps_json_len(links); i++) {
			json_object *e = ps_json_at(links, i);

			if (strcmp(ps_json_str_or(e, "address", ""), lw->address) != 0)
				continue;
			ps_json_set(e, "idle_best_gts",
				    lw->best > 0
					? json_object_new_double(ps_pcie_speed_gts(lw->best))
					: NULL);
			ps_json_set(e, "peak_speed_gts",
				    lw->peak > 0
					? json_object_new_double(ps_pcie_speed_gts(lw->peak))
					: NULL);
		}
		if (lw->best > 0 && lw->peak >= lw->best && findings)
			ps_rec_find(findings, "info", "idle_trained_up", &dev, NAN, NAN, NULL,
				    "the link the inventory found idle trained to %.1f GT/s x%d "
				    "during the step: power management, not a fault",
				    ps_pcie_speed_gts(lw->peak), lw->peak_width);
	}
}

json_object *ps_links_stop(struct ps_links *l, const struct ps_inventory *inv)
{
	struct ps_link_state *end = NULL;
	const char *source = NULL;
	size_t n = 0;
	json_object *o;
	char why[160];
	int err;

	if (!l) {
		o = json_object_new_object();
		ps_json_set(o, "available", json_object_new_boolean(0));
		ps_json_set_str(o, "reason", "out of memory at the step's start");
		return o;
	}
	err = l->err ? l->err : ps_links_read(l->root, l->module_fd, &end, &n, &source);
	if (err) {
		o = json_object_new_object();
		snprintf(why, sizeof(why), "cannot read the PCIe links: %s", strerror(-err));
		ps_json_set(o, "available", json_object_new_boolean(0));
		ps_json_set_str(o, "reason", why);
	} else {
		o = ps_links_compare(l->start, l->n, end, n, source, inv);
		watch_report(l, end, n, o, inv);
	}
	free(end);
	free(l->start);
	free(l->watch);
	free(l);
	return o;
}

static json_object *pair(int a, int b)
{
	json_object *arr = json_object_new_array();

	json_object_array_add(arr, a < 0 ? NULL : json_object_new_int(a));
	json_object_array_add(arr, b < 0 ? NULL : json_object_new_int(b));
	return arr;
}

static json_object *pair_tri(int a, int b)
{
	json_object *arr = json_object_new_array();

	json_object_array_add(arr, ps_json_new_tri(a));
	json_object_array_add(arr, ps_json_new_tri(b));
	return arr;
}

static json_object *pair_gts(int a, int b)
{
	json_object *arr = json_object_new_array();

	json_object_array_add(arr, a > 0 ? json_object_new_double(ps_pcie_speed_gts(a)) : NULL);
	json_object_array_add(arr, b > 0 ? json_object_new_double(ps_pcie_speed_gts(b)) : NULL);
	return arr;
}

static void text_of(const struct ps_link_state *s, char *buf, size_t len)
{
	if (s->width == 0)
		snprintf(buf, len, "down");
	else if (s->speed > 0 && s->width > 0)
		snprintf(buf, len, "%.1f GT/s x%d", ps_pcie_speed_gts(s->speed), s->width);
	else
		snprintf(buf, len, "unknown");
}

/*
 * Whether a link is up: a width and, where the port reports it, its data
 * link active. An empty slot's LnkSta may show anything (QEMU's shows the
 * port's capability): it is not a link to compare.
 */
static bool up(const struct ps_link_state *s)
{
	return s->width != 0 && s->dl_active != 0;
}

static const struct ps_link_state *find(const struct ps_link_state *v, size_t n, const char *addr)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].address, addr) == 0)
			return &v[i];
	return NULL;
}

/* The inventory judged the link at addr idle: its speed follows its load. */
static bool idle_link(const struct ps_inventory *inv, const char *addr)
{
	const struct ps_pcie_dev *p = inv ? ps_inventory_pcie(inv, addr) : NULL;

	return p && p->verdict == PS_LINK_IDLE;
}

/*
 * What happened to one link between the step's start (s) and end (e, NULL:
 * the function left): the change's name, or NULL, and its finding.
 */
static const char *link_change(const struct ps_link_state *s, const struct ps_link_state *e,
			       const struct ps_inventory *inv, const struct ps_dev_ref *dev,
			       json_object *findings)
{
	char from[40], to[40];

	text_of(s, from, sizeof(from));
	if (e)
		text_of(e, to, sizeof(to));
	if (!e) {
		ps_rec_find(findings, "fail", "gone", dev, NAN, NAN, NULL,
			    "the function left the bus during the step (surprise removal, a "
			    "link that failed): check the card's seating and power");
		return "gone";
	}
	if (!up(s) && !up(e))
		return NULL; /* no link at either end of the step: nothing to compare */
	if (up(s) && !up(e)) {
		ps_rec_find(findings, "fail", "down", dev, NAN, NAN, NULL,
			    "the link was %s at the step's start and went down during it", from);
		return "down";
	}
	if (!up(s) && up(e)) {
		ps_rec_find(findings, "info", "came_up", dev, NAN, NAN, NULL,
			    "the link was down at the step's start and trained at %s during it",
			    to);
		return "came_up";
	}
	if (s->width == e->width && s->speed != e->speed && idle_link(inv, s->address)) {
		ps_rec_find(findings, "info", "power_managed", dev, NAN, NAN, NULL,
			    "the link was at %s at the step's start and at %s at its end, at "
			    "full width: the power management the inventory found",
			    from, to);
		return "power_managed";
	}
	if (s->speed != e->speed || s->width != e->width) {
		ps_rec_find(findings, "warn", "retrained", dev, NAN, NAN, NULL,
			    "the link trained at %s at the step's start and at %s at its end: it "
			    "retrained under load (a marginal slot, riser or cable, or power "
			    "management)",
			    from, to);
		return "retrained";
	}
	if (s->lbms == 0 && e->lbms == 1) {
		ps_rec_find(findings, "warn", "bandwidth_changed", dev, NAN, NAN, NULL,
			    "the link changed its speed or width during the step and is at %s "
			    "again (Link Bandwidth Management Status): it retrained, for a "
			    "reason the hardware did not choose",
			    to);
		return "bandwidth_changed";
	}
	if (s->labs == 0 && e->labs == 1) {
		ps_rec_find(findings, "info", "autonomous_change", dev, NAN, NAN, NULL,
			    "the hardware changed the link's speed or width on its own during "
			    "the step (Link Autonomous Bandwidth Status), as power management "
			    "may");
		return "autonomous_change";
	}
	return NULL;
}

json_object *ps_links_compare(const struct ps_link_state *a, size_t na,
			      const struct ps_link_state *b, size_t nb, const char *source,
			      const struct ps_inventory *inv)
{
	json_object *o = json_object_new_object(), *links = json_object_new_array(),
		    *findings = json_object_new_array();
	unsigned int changed = 0;

	ps_json_set(o, "available", json_object_new_boolean(1));
	ps_json_set_str(o, "source", source);
	ps_json_set(o, "watched", json_object_new_int((int)na));
	for (size_t i = 0; i < na; i++) {
		const struct ps_link_state *s = &a[i], *e = find(b, nb, s->address);
		struct ps_dev_ref dev = ps_rec_pci_ref(inv, s->address);
		json_object *l = json_object_new_object();
		const char *change = link_change(s, e, inv, &dev, findings);

		if (!e)
			e = s; /* the end columns repeat the start: nothing more is known */
		ps_json_set_str(l, "address", s->address);
		ps_json_set_str(l, "device", dev.id);
		ps_json_set(l, "speed_gts", pair_gts(s->speed, e->speed));
		ps_json_set(l, "width", pair(s->width, e->width));
		ps_json_set(l, "dl_active", pair_tri(s->dl_active, e->dl_active));
		ps_json_set(l, "lbms", pair_tri(s->lbms, e->lbms));
		ps_json_set(l, "labs", pair_tri(s->labs, e->labs));
		ps_json_set_str(l, "change", change);
		/* Set before the step: a past event, left set (probestick never clears it). */
		ps_json_set(l, "status_set_before",
			    json_object_new_boolean(s->lbms == 1 || s->labs == 1));
		changed += change != NULL;
		json_object_array_add(links, l);
	}
	for (size_t i = 0; i < nb; i++) {
		if (find(a, na, b[i].address))
			continue;
		struct ps_dev_ref dev = ps_rec_pci_ref(inv, b[i].address);

		ps_rec_find(findings, "info", "appeared", &dev, NAN, NAN, NULL,
			    "a function with a link appeared during the step (hot plug)");
	}
	ps_json_set(o, "changed", json_object_new_int((int)changed));
	ps_json_set(o, "links", links);
	ps_json_set(o, "findings", findings);
	return o;
}

/* ---- view ---- */

static const struct ps_col summary_cols[] = {
    {.path = "/watched", .title = "links watched"},
    {.path = "/changed", .title = "changed during the step", .better = PS_BETTER_LOWER},
    {.path = "/source", .title = "read from"},
};

static const struct ps_col unread_cols[] = {
    {.path = "/reason", .title = "links not watched", .flags = PS_COL_WIDE},
};

static const struct ps_col change_cols[] = {
    {.path = "/address", .title = "function", .flags = PS_COL_KEY},
    {.path = "/device", .title = "id", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/change", .title = "change"},
    {.path = "/speed_gts/0", .title = "GT/s", .decimals = 1},
    {.path = "/width/0", .title = "x"},
    {.path = "/speed_gts/1", .title = "> GT/s", .decimals = 1},
    {.path = "/width/1", .title = "x"},
    {.path = "/dl_active/1", .title = "DL up", .fmt = PS_FMT_BOOL},
    {.path = "/lbms/1", .title = "LBMS", .fmt = PS_FMT_BOOL},
    {.path = "/labs/1", .title = "LABS", .fmt = PS_FMT_BOOL},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "summary",
     .rows = "",
     .when = "/watched",
     .cols = PS_COLS(summary_cols)},
    {.kind = PS_BLOCK_KV,
     .id = "unread",
     .rows = "",
     .unless = "/watched",
     .cols = PS_COLS(unread_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "changes",
     .title = "PCIe links that changed",
     .rows = "/links",
     .when = "/change",
     .cols = PS_COLS(change_cols),
     .note = "start > end of the step; LBMS/LABS: the link's bandwidth status bits, read, "
	     "never cleared"},
};

const struct ps_view ps_links_view = {
    .name = "links",
    .version = 1,
    .scope = PS_SCOPE_MEMBER,
    .blocks = PS_BLOCKS(blocks),
};

/* ---- registered: the link watch around every step ---- */

static void *links_start(struct ps_rec_ctx *rc, void *plan)
{
	return ps_links_start(rc->root, rc->module_fd, rc->inv);
}

static json_object *links_stop(void *state, struct ps_rec_ctx *rc)
{
	return ps_links_stop(state, rc->inv);
}

static const struct ps_recorder_ops links_recorder = {
    .abi = PS_RECORDER_ABI,
    .name = "links",
    .order = 10,
    .show = 50,
    .view = &ps_links_view,
    .start = links_start,
    .stop = links_stop,
    .sample = ps_links_sample, /* the idle links read again under the step's load */
};
PS_RECORDER_REGISTER(links_recorder);
