// SPDX-License-Identifier: GPL-2.0
/*
 * Registration of the probes Kbuild built: every probe is checked here
 * (name, needs, metrics, key tables) before anything is allocated, so a
 * malformed probe fails the load with a reason instead of a crash later.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>

#include "kc_registry.h"

struct ps_probe *ps_registry_find(const struct ps_registry *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (!strcmp(r->probes[i]->name, name))
			return r->probes[i];
	return NULL;
}

/* The probes of mask and everything they need, directly or not. */
u32 ps_registry_expand(const struct ps_registry *r, u32 mask)
{
	u32 out = 0;
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (mask & r->probes[i]->bit)
			out |= r->probes[i]->need_mask;
	return out;
}

static int ps_add_keys(struct ps_registry *r, struct ps_keys *keys)
{
	unsigned int i;

	for (i = 0; i < r->nr_keys; i++)
		if (r->keys[i] == keys)
			return 0;
	if (r->nr_keys == PS_MAX_KEY_TABLES)
		return -E2BIG;
	r->keys[r->nr_keys++] = keys;
	return 0;
}

static int ps_layout_metric(struct ps_registry *r, struct ps_probe *p, struct ps_metric *m,
			    char *why, size_t len)
{
	unsigned int n;

	if (m->keys) {
		if (!m->keys->size || !is_power_of_2(m->keys->size) || m->keys->size > 4096) {
			snprintf(why, len, "probe %s: a key table of %u keys (1..4096, a power of two)",
				 p->name, m->keys->size);
			return -EINVAL;
		}
		m->nr_keys = m->keys->size;
		if (ps_add_keys(r, m->keys)) {
			snprintf(why, len, "more than %d key tables", PS_MAX_KEY_TABLES);
			return -E2BIG;
		}
	}
	if (!m->nr_dirs)
		m->nr_dirs = 1;
	if (!m->nr_keys || m->nr_extra > 2 || m->nr_dirs > 16 ||
	    ((m->flags & PS_METRIC_NO_BUCKETS) && !m->nr_extra) ||
	    ((m->flags & PS_METRIC_DIR_IS_AUX) && (!m->keys || m->nr_dirs != 1)) ||
	    ((m->flags & PS_METRIC_META_VALUES) &&
	     (!m->keys || !(m->flags & PS_METRIC_NO_BUCKETS)))) {
		snprintf(why, len, "probe %s: metric %u is malformed", p->name, m->metric);
		return -EINVAL;
	}
	m->probe_bit = p->bit;
	m->probe_id = p->id;
	m->slot0 = r->nr_slots;
	m->extra0 = r->nr_extra;
	n = m->nr_keys * m->nr_dirs;
	if (!(m->flags & PS_METRIC_NO_BUCKETS))
		r->nr_slots += n;
	r->nr_extra += m->nr_keys * m->nr_extra;
	if (r->nr_slots > PS_MAX_SLOTS || r->nr_extra > PS_MAX_EXTRA) {
		snprintf(why, len, "probe %s: more than %d histograms or %d counters per CPU",
			 p->name, PS_MAX_SLOTS, PS_MAX_EXTRA);
		return -E2BIG;
	}
	return 0;
}

static int ps_check_probe(const struct ps_registry *r, unsigned int i, char *why, size_t len)
{
	const struct ps_probe *p = r->probes[i];
	unsigned int j;

	if (!p->name || !p->name[0] ||
	    strnlen(p->name, sizeof_field(struct probestick_kc_probe, name)) >=
	    sizeof_field(struct probestick_kc_probe, name)) {
		snprintf(why, len, "probe %u: no name, or one of 16 characters or more", i);
		return -EINVAL;
	}
	for (j = 0; j < i; j++)
		if (!strcmp(r->probes[j]->name, p->name)) {
			snprintf(why, len, "probe %s: registered twice", p->name);
			return -EEXIST;
		}
	if (!p->nr_metrics || (p->nr_tps && !p->tps)) {
		snprintf(why, len, "probe %s: no metric, or tracepoints without a table", p->name);
		return -EINVAL;
	}
	return 0;
}

int ps_registry_init(struct ps_registry *r, struct ps_probe *const *probes, unsigned int nr,
		     char *why, size_t len)
{
	struct ps_probe *p, *need;
	unsigned int i, j, round;
	bool changed;
	u32 before;
	int ret;

	memset(r, 0, sizeof(*r));
	why[0] = '\0';
	r->probes = probes;
	if (nr > PROBESTICK_KC_MAX_PROBES) {
		snprintf(why, len, "%u probes, at most %d", nr, PROBESTICK_KC_MAX_PROBES);
		return -E2BIG;
	}
	for (i = 0; i < nr; i++) {
		r->nr = i;
		ret = ps_check_probe(r, i, why, len);
		if (ret)
			return ret;
		p = probes[i];
		p->id = i;
		p->bit = BIT(i);
		p->need_mask = p->bit;
		r->valid |= p->bit;
	}
	r->nr = nr;
	for (i = 0; i < nr; i++) {
		p = probes[i];
		if (!p->needs)
			continue;
		need = ps_registry_find(r, p->needs);
		if (!need || need == p) {
			snprintf(why, len, "probe %s needs probe '%s', which is not built",
				 p->name, p->needs);
			return -ENOENT;
		}
		p->need_mask |= need->bit;
	}
	/* Needs of needs: at most nr rounds until nothing changes. */
	for (round = 0; round < nr; round++) {
		changed = false;
		for (i = 0; i < nr; i++) {
			before = probes[i]->need_mask;
			probes[i]->need_mask = ps_registry_expand(r, before);
			changed |= probes[i]->need_mask != before;
		}
		if (!changed)
			break;
	}
	for (i = 0; i < nr; i++)
		for (j = 0; j < probes[i]->nr_metrics; j++) {
			ret = ps_layout_metric(r, probes[i], probes[i]->metrics[j], why, len);
			if (ret)
				return ret;
		}
	return 0;
}
