/*
 * rapl.c - the powercap zones of RAPL (intel_rapl_common and intel_rapl_msr,
 * which also drive AMD's family 17h and 19h and Hygon's 18h): which exist,
 * their counters, the energy between two readings across a wrap, and why
 * a machine has none.
 */
#include "hw/rapl.h"
#include "lib/util.h"
#include "hw/hw_util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const kind_names[] = {"package", "core", "uncore", "dram", "psys", "other"};

enum ps_rapl_kind ps_rapl_kind_of(const char *name)
{
	if (!name)
		return PS_RAPL_OTHER;
	if (strncmp(name, "package", 7) == 0)
		return PS_RAPL_PACKAGE;
	for (int k = PS_RAPL_CORE; k < PS_RAPL_OTHER; k++)
		if (strcmp(name, kind_names[k]) == 0)
			return (enum ps_rapl_kind)k;
	return PS_RAPL_OTHER;
}

const char *ps_rapl_kind_name(enum ps_rapl_kind k)
{
	return k >= PS_RAPL_PACKAGE && k <= PS_RAPL_OTHER ? kind_names[k] : "other";
}

int ps_rapl_delta(uint64_t a, uint64_t b, uint64_t max_uj, uint64_t *delta_uj)
{
	if (max_uj && (a > max_uj || b > max_uj))
		return -EINVAL;
	if (b >= a) {
		*delta_uj = b - a;
		return 0;
	}
	if (!max_uj)
		return -EINVAL;
	/* the counter ran up to its range and on from 0 */
	*delta_uj = max_uj - a + b;
	return 1;
}

int ps_rapl_counted_delta(const struct ps_rapl *a, const struct ps_rapl *b, double *joules)
{
	double j = 0;
	bool any = false;

	if (a->n != b->n)
		return -EINVAL;
	for (size_t i = 0; i < b->n; i++) {
		uint64_t d;

		if (!b->z[i].counted)
			continue;
		if (strcmp(a->z[i].zone, b->z[i].zone) != 0)
			return -EINVAL;
		if (a->z[i].err < 0 || b->z[i].err < 0)
			return -EIO;
		if (ps_rapl_delta(a->z[i].uj, b->z[i].uj, b->z[i].max_uj, &d) < 0)
			return -EINVAL;
		j += (double)d / 1e6;
		any = true;
	}
	if (!any)
		return -ENOENT;
	*joules = j;
	return 0;
}

static int read_zone(const char *dir, const char *file, uint64_t *v)
{
	char path[PATH_MAX];

	return ps_read_u64(ps_path(path, sizeof(path), "", "%s/%s", dir, file), v);
}

/* The zones of one powercap control type ("intel-rapl:" or "intel-rapl-mmio:"). */
static void find_type(const char *root, const struct ps_dirlist *list, const char *prefix,
		      struct ps_rapl *r)
{
	size_t plen = strlen(prefix);

	for (size_t i = 0; i < list->n && r->n < PS_RAPL_MAX; i++) {
		struct ps_rapl_zone *z = &r->z[r->n];
		char dir[PATH_MAX], path[PATH_MAX];

		if (strncmp(list->names[i], prefix, plen) != 0)
			continue;
		memset(z, 0, sizeof(*z));
		ps_copy_str(z->zone, sizeof(z->zone), list->names[i]);
		ps_path(dir, sizeof(dir), root, "/sys/class/powercap/%s", list->names[i]);
		if (ps_read_str(ps_path(path, sizeof(path), "", "%s/name", dir), z->name,
				sizeof(z->name)) <= 0)
			ps_copy_str(z->name, sizeof(z->name), z->zone);
		z->kind = ps_rapl_kind_of(z->name);
		z->counted = z->kind == PS_RAPL_PACKAGE || z->kind == PS_RAPL_DRAM;
		if (read_zone(dir, "max_energy_range_uj", &z->max_uj) < 0)
			z->max_uj = 0;
		/* a zone without an energy counter (a control type's own folder) is none */
		z->err = read_zone(dir, "energy_uj", &z->uj);
		if (z->err == -ENOENT)
			continue;
		r->n++;
	}
	if (r->n)
		snprintf(r->source, sizeof(r->source), "%.*s", (int)plen - 1, prefix);
}

int ps_rapl_find(const char *root, struct ps_rapl *r)
{
	char dir[PATH_MAX];
	struct ps_dirlist list;

	memset(r, 0, sizeof(*r));
	if (ps_dir_list(ps_path(dir, sizeof(dir), root, "/sys/class/powercap"), &list) < 0)
		return -ENOENT;
	find_type(root, &list, "intel-rapl:", r);
	/* the MMIO interface repeats the package's counter: only where the MSRs gave none */
	if (!r->n)
		find_type(root, &list, "intel-rapl-mmio:", r);
	ps_dir_free(&list);
	return 0;
}

size_t ps_rapl_read(const char *root, struct ps_rapl *r)
{
	size_t ok = 0;

	for (size_t i = 0; i < r->n; i++) {
		char path[PATH_MAX];
		uint64_t v;
		int err = ps_read_u64(ps_path(path, sizeof(path), root,
					      "/sys/class/powercap/%s/energy_uj", r->z[i].zone),
				      &v);

		r->z[i].err = err;
		if (err < 0)
			continue;
		r->z[i].uj = v;
		ok++;
	}
	return ok;
}

/* The value of "key<spaces>: value" when line holds key, else NULL. */
static const char *field(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p = line + n;

	if (strncmp(line, key, n) != 0)
		return NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

void ps_rapl_env_cpuinfo(struct ps_rapl_env *e, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	bool seen_cpu = false;

	e->vendor[0] = '\0';
	e->family = e->model = e->hypervisor = -1;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[4096];
		const char *v;

		/* a line as a C string, cut to the room (a flags line fits) */
		n = strnlen(p, n < sizeof(line) - 1 ? n : sizeof(line) - 1);
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl ? nl + 1 : NULL;
		if (field(line, "processor")) {
			if (seen_cpu)
				break; /* the first CPU says it for all */
			seen_cpu = true;
		} else if ((v = field(line, "vendor_id"))) {
			snprintf(e->vendor, sizeof(e->vendor), "%.15s", v);
		} else if ((v = field(line, "cpu family"))) {
			e->family = (int)strtol(v, NULL, 10);
		} else if ((v = field(line, "model"))) {
			e->model = (int)strtol(v, NULL, 10);
		} else if ((v = field(line, "flags"))) {
			e->hypervisor = has_word(v, "hypervisor");
		}
	}
	if (e->family < 0 || e->family > 0xfff)
		e->family = -1;
	if (e->model < 0 || e->model > 0xfff)
		e->model = -1;
}

static int module_state(const char *root, const char *name)
{
	char path[PATH_MAX];

	if (access(ps_path(path, sizeof(path), root, "/sys/module"), F_OK) != 0)
		return -1;
	return access(ps_path(path, sizeof(path), root, "/sys/module/%s", name), F_OK) == 0;
}

void ps_rapl_env_read(const char *root, const struct ps_rapl *r, struct ps_rapl_env *e)
{
	char path[PATH_MAX], *text = NULL;
	size_t len;

	memset(e, 0, sizeof(*e));
	e->powercap = access(ps_path(path, sizeof(path), root, "/sys/class/powercap"), F_OK) == 0;
	for (size_t i = 0; r && i < r->n; i++) {
		e->zones++;
		if (r->z[i].err < 0 && !e->read_err)
			e->read_err = r->z[i].err;
	}
	e->common = module_state(root, "intel_rapl_common");
	e->msr = module_state(root, "intel_rapl_msr");
	if (ps_read_all(ps_path(path, sizeof(path), root, "/proc/cpuinfo"), &text, &len) == 0) {
		ps_rapl_env_cpuinfo(e, text, len);
		free(text);
	} else {
		e->family = e->model = e->hypervisor = -1;
	}
}

/* Whether the kernel's RAPL driver can know this vendor and family at all. */
static bool rapl_family(const struct ps_rapl_env *e)
{
	if (strcmp(e->vendor, "AuthenticAMD") == 0)
		return e->family >= 0x17;
	if (strcmp(e->vendor, "HygonGenuine") == 0)
		return e->family == 0x18;
	if (strcmp(e->vendor, "GenuineIntel") == 0)
		return e->family == 6;
	return false;
}

void ps_rapl_reason(const struct ps_rapl_env *e, char *buf, size_t len)
{
	char cpu[64];

	if (!len)
		return;
	buf[0] = '\0';
	if (e->zones && !e->read_err)
		return;
	if (e->zones) {
		snprintf(buf, len, "the RAPL counters cannot be read (energy_uj: %s)%s",
			 strerror(-e->read_err),
			 e->read_err == -EACCES || e->read_err == -EPERM
			     ? ": run probestick as root (the kernel shows them to root only)"
			     : "");
		return;
	}
	if (!e->powercap) {
		snprintf(buf, len,
			 "this kernel has no powercap interface (/sys/class/powercap), so no RAPL "
			 "energy counters");
		return;
	}
	if (e->vendor[0] && e->family >= 0)
		snprintf(cpu, sizeof(cpu), "%s family 0x%x model 0x%x", e->vendor, e->family,
			 e->model >= 0 ? e->model : 0);
	else
		snprintf(cpu, sizeof(cpu), "this CPU");
	if (e->hypervisor == 1) {
		snprintf(buf, len,
			 "no RAPL zone: this is a virtual machine (%s reports a hypervisor), and "
			 "hypervisors give their guests no RAPL energy counters",
			 cpu);
		return;
	}
	if (e->vendor[0] && !rapl_family(e)) {
		snprintf(buf, len,
			 "no RAPL zone: %s has no RAPL energy counters the kernel reads (Intel "
			 "family 6 from Sandy Bridge on, AMD from family 17h, Zen)",
			 cpu);
		return;
	}
	if (e->common == 0) {
		snprintf(buf, len,
			 "no RAPL zone: intel_rapl_common is not loaded; the kernel loads it only "
			 "for CPU models it knows, and %s is not one of them (or the image lacks "
			 "the module)",
			 cpu);
		return;
	}
	if (e->common == 1 && e->msr == 0) {
		snprintf(buf, len,
			 "no RAPL zone: intel_rapl_common is loaded but intel_rapl_msr is not: "
			 "check that the image holds intel_rapl_msr");
		return;
	}
	if (e->msr == 1) {
		snprintf(buf, len,
			 "no RAPL zone: intel_rapl_msr is loaded but registered none (%s: its "
			 "energy MSRs could not be read)",
			 cpu);
		return;
	}
	snprintf(buf, len, "no RAPL zone in /sys/class/powercap (%s)", cpu);
}
