/*
 * edac.c - EDAC memory controllers and DIMMs from sysfs (edac.h): what an
 * EDAC driver (ie31200_edac, skx_edac, amd64_edac, ...) registered, with its
 * error counts.
 */
#include "hw/edac.h"
#include "decode/decode.h"
#include "hw/hw_util.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t count_of(const char *dir, const char *name)
{
	char path[PATH_MAX];
	uint64_t v;

	if (ps_read_u64(ps_path(path, sizeof(path), "", "%s/%s", dir, name), &v) < 0)
		return PS_UNKNOWN;
	return (int64_t)v;
}

static void str_of(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX];

	if (ps_read_str(ps_path(path, sizeof(path), "", "%s/%s", dir, name), out, len) < 0)
		out[0] = '\0';
}

static bool numbered(const char *name, const char *prefix, int *n)
{
	size_t p = strlen(prefix);
	char *end;
	long v;

	if (strncmp(name, prefix, p) != 0 || !name[p])
		return false;
	v = strtol(name + p, &end, 10);
	if (*end || v < 0 || v > 65535)
		return false;
	*n = (int)v;
	return true;
}

static int read_dimms(const char *mcdir, int mc, struct ps_edac *e)
{
	struct ps_dirlist list;
	int n;

	if (ps_dir_list(mcdir, &list) < 0)
		return 0;
	for (size_t i = 0; i < list.n; i++) {
		char dir[PATH_MAX];
		struct ps_edac_dimm *d, *grown;

		if (!numbered(list.names[i], "dimm", &n) && !numbered(list.names[i], "rank", &n))
			continue;
		grown = realloc(e->dimms, (e->n_dimms + 1) * sizeof(*e->dimms));
		if (!grown) {
			ps_dir_free(&list);
			return -ENOMEM;
		}
		e->dimms = grown;
		d = &e->dimms[e->n_dimms++];
		memset(d, 0, sizeof(*d));
		d->mc = mc;
		ps_copy_str(d->name, sizeof(d->name), list.names[i]);
		ps_path(dir, sizeof(dir), "", "%s/%s", mcdir, list.names[i]);
		str_of(dir, "dimm_label", d->label, sizeof(d->label));
		str_of(dir, "dimm_location", d->location, sizeof(d->location));
		str_of(dir, "dimm_mem_type", d->mem_type, sizeof(d->mem_type));
		str_of(dir, "dimm_edac_mode", d->edac_mode, sizeof(d->edac_mode));
		d->size_mb = count_of(dir, "size");
		d->ce = count_of(dir, "dimm_ce_count");
		d->ue = count_of(dir, "dimm_ue_count");
	}
	ps_dir_free(&list);
	return 0;
}

int ps_edac_read(const char *root, struct ps_edac *e)
{
	char base[PATH_MAX];
	struct ps_dirlist list;
	int n, r = 0;

	memset(e, 0, sizeof(*e));
	ps_path(base, sizeof(base), root, "/sys/devices/system/edac/mc");
	if (ps_dir_list(base, &list) < 0)
		return 0; /* no EDAC core, or no driver: nothing to count */
	for (size_t i = 0; i < list.n && r == 0; i++) {
		char dir[PATH_MAX];
		struct ps_edac_mc *m, *grown;

		if (!numbered(list.names[i], "mc", &n))
			continue;
		grown = realloc(e->mcs, (e->n_mcs + 1) * sizeof(*e->mcs));
		if (!grown) {
			r = -ENOMEM;
			break;
		}
		e->mcs = grown;
		m = &e->mcs[e->n_mcs++];
		memset(m, 0, sizeof(*m));
		m->mc = n;
		ps_path(dir, sizeof(dir), "", "%s/%s", base, list.names[i]);
		str_of(dir, "mc_name", m->name, sizeof(m->name));
		m->size_mb = count_of(dir, "size_mb");
		m->ce = count_of(dir, "ce_count");
		m->ue = count_of(dir, "ue_count");
		m->ce_noinfo = count_of(dir, "ce_noinfo_count");
		m->ue_noinfo = count_of(dir, "ue_noinfo_count");
		r = read_dimms(dir, n, e);
	}
	ps_dir_free(&list);
	e->present = e->n_mcs > 0;
	return r;
}

void ps_edac_free(struct ps_edac *e)
{
	free(e->mcs);
	free(e->dimms);
	memset(e, 0, sizeof(*e));
}
