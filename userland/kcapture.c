/*
 * kcapture.c - one capture window of probestick.ko per plan step: start,
 * stop, copy the merged histograms out and build the step's "probes" object.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "kcapture.h"

#define NOT_LOADED "probestick.ko not loaded"

struct ps_kcapture {
	int fd;
	unsigned int mask;
	char reason[160]; /* set when the window could not start */
};

static const char *const softirq_names[] = {"HI",	"TIMER",   "NET_TX", "NET_RX",	"BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
static const char *const dir_names[] = {"read", "write", "other"};

json_object *ps_kcapture_unavailable(const char *reason)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "available", json_object_new_boolean(0));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	return o;
}

struct ps_kcapture *ps_kcapture_start(int module_fd, unsigned int mask)
{
	struct ps_kcapture *c = calloc(1, sizeof(*c));
	struct probestick_version ver;
	struct probestick_kc_start st;

	if (!c)
		return NULL;
	c->fd = module_fd;
	c->mask = mask;
	if (module_fd < 0) {
		snprintf(c->reason, sizeof(c->reason), NOT_LOADED);
		return c;
	}
	memset(&ver, 0, sizeof(ver));
	if (ioctl(module_fd, PROBESTICK_IOC_VERSION, &ver) < 0) {
		snprintf(c->reason, sizeof(c->reason), "probestick.ko does not answer: %s",
			 strerror(errno));
		return c;
	}
	if (ver.abi < 2) {
		snprintf(c->reason, sizeof(c->reason),
			 "probestick.ko %s has ABI %u, capture windows need ABI 2", ver.release,
			 ver.abi);
		return c;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		memset(&st, 0, sizeof(st));
		st.mask = mask;
		if (ioctl(module_fd, PROBESTICK_IOC_KC_START, &st) == 0)
			return c;
		/* A run killed mid-step leaves its window running: take it over. */
		if (errno != EBUSY || ioctl(module_fd, PROBESTICK_IOC_KC_STOP) < 0)
			break;
	}
	snprintf(c->reason, sizeof(c->reason), "cannot start a capture window (mask 0x%x): %s",
		 mask, strerror(errno));
	return c;
}

static int read_probes(int fd, struct probestick_kc_probe *probes, unsigned int *n)
{
	struct probestick_kc_probes q = {
	    .count = *n, .entry_size = sizeof(*probes), .probes = (uintptr_t)probes};

	if (ioctl(fd, PROBESTICK_IOC_KC_PROBES, &q) < 0)
		return -errno;
	if (q.count < *n)
		*n = q.count;
	return 0;
}

/* Copies the records out, growing the buffer while a running window adds keys. */
static int read_snapshot(int fd, struct probestick_kc_snapshot *snap,
			 struct probestick_kc_record **recs)
{
	struct probestick_kc_record *buf = NULL, *grown;
	uint32_t room = 0;

	for (int attempt = 0; attempt < 4; attempt++) {
		memset(snap, 0, sizeof(*snap));
		snap->version = PROBESTICK_KC_RECORD_VERSION;
		snap->record_size = sizeof(*buf);
		snap->count = room;
		snap->records = (uintptr_t)buf;
		if (ioctl(fd, PROBESTICK_IOC_KC_SNAPSHOT, snap) < 0) {
			free(buf);
			return -errno;
		}
		if (snap->count <= room) {
			*recs = buf;
			return 0;
		}
		room = snap->count + 8;
		grown = realloc(buf, room * sizeof(*buf));
		if (!grown) {
			free(buf);
			return -ENOMEM;
		}
		buf = grown;
	}
	free(buf);
	return -EAGAIN;
}

json_object *ps_kcapture_stop(struct ps_kcapture *c)
{
	struct probestick_kc_probe probes[PROBESTICK_KC_NR_PROBES * 2];
	unsigned int nprobes = PROBESTICK_KC_NR_PROBES * 2;
	struct probestick_kc_snapshot snap;
	struct probestick_kc_record *recs = NULL;
	char reason[200];
	json_object *o;
	int err;

	if (!c)
		return ps_kcapture_unavailable(NOT_LOADED);
	if (c->reason[0]) {
		o = ps_kcapture_unavailable(c->reason);
		free(c);
		return o;
	}
	/* EINVAL: someone else stopped it; its data is still there to read. */
	if (ioctl(c->fd, PROBESTICK_IOC_KC_STOP) < 0 && errno != EINVAL) {
		snprintf(reason, sizeof(reason), "cannot stop the capture window: %s",
			 strerror(errno));
		free(c);
		return ps_kcapture_unavailable(reason);
	}
	memset(probes, 0, sizeof(probes));
	err = read_probes(c->fd, probes, &nprobes);
	if (!err)
		err = read_snapshot(c->fd, &snap, &recs);
	free(c);
	if (err) {
		snprintf(reason, sizeof(reason), "cannot read the capture window: %s",
			 strerror(-err));
		return ps_kcapture_unavailable(reason);
	}
	o = ps_kcapture_json(probes, nprobes, &snap, recs, snap.count);
	free(recs);
	return o;
}

/* ---- records -> JSON: pure from here on ---- */

struct group {
	const struct probestick_kc_record *first;
	uint64_t buckets[PROBESTICK_KC_BUCKETS];
	uint64_t sum, max;
	json_object *per_cpu;
	uint64_t unhandled; /* hardirq: IRQ_NONE invocations on a shared line */
};

static json_object *group_hist(struct group *g, const char *unit)
{
	return ps_hist_json(g->buckets, PROBESTICK_KC_BUCKETS, g->sum, g->max, unit);
}

static void group_add(struct group *g, const struct probestick_kc_record *r)
{
	for (unsigned int i = 0; i < PROBESTICK_KC_BUCKETS; i++)
		g->buckets[i] += r->buckets[i];
	g->sum += r->sum;
	if (r->max > g->max)
		g->max = r->max;
}

static char *copy_name(char *dst, const char *src, size_t len)
{
	memcpy(dst, src, len);
	dst[len - 1] = '\0';
	return dst;
}

/*
 * Per-CPU records of one metric, merged per key in the order the keys
 * first appear; per_cpu[] holds each CPU's invocations (for hardirq lines
 * the IRQ_NONE ones too, so that it compares with /proc/interrupts).
 */
static json_object *per_cpu_lines(const struct probestick_kc_record *recs, unsigned int n,
				  uint16_t metric, unsigned int nr_cpus, int softirq)
{
	json_object *arr = json_object_new_array();
	struct group *g = calloc(1, sizeof(*g));
	unsigned char *done = calloc(n ? n : 1, 1);
	char name[33];

	if (!g || !done) {
		free(g);
		free(done);
		return arr;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (recs[i].metric != metric || done[i])
			continue;
		memset(g, 0, sizeof(*g));
		g->first = &recs[i];
		g->per_cpu = json_object_new_array();
		for (unsigned int cpu = 0; cpu < nr_cpus; cpu++)
			json_object_array_add(g->per_cpu, json_object_new_int64(0));
		for (unsigned int j = i; j < n; j++) {
			if (recs[j].metric != metric || recs[j].key != recs[i].key)
				continue;
			done[j] = 1;
			group_add(g, &recs[j]);
			g->unhandled += recs[j].extra[0];
			if (recs[j].cpu < nr_cpus)
				json_object_array_put_idx(
				    g->per_cpu, recs[j].cpu,
				    json_object_new_int64(
					(int64_t)(recs[j].count + recs[j].extra[0])));
		}
		json_object *line = group_hist(g, "ns");
		if (softirq) {
			json_object_object_add(line, "vector", json_object_new_int(recs[i].key));
			json_object_object_add(
			    line, "name",
			    json_object_new_string(recs[i].key < 10 ? softirq_names[recs[i].key]
								    : "?"));
		} else {
			json_object_object_add(line, "irq", json_object_new_int(recs[i].key));
			json_object_object_add(line, "unhandled",
					       json_object_new_int64((int64_t)g->unhandled));
			json_object_object_add(line, "name",
					       json_object_new_string(copy_name(
						   name, recs[i].name, sizeof(recs[i].name))));
		}
		json_object_object_add(line, "per_cpu", g->per_cpu);
		json_object_array_add(arr, line);
	}
	free(g);
	free(done);
	return arr;
}

static json_object *hist_of(const struct probestick_kc_record *r, const char *unit)
{
	uint64_t b[PROBESTICK_KC_BUCKETS]; /* __u64 is not uint64_t's type */

	for (unsigned int i = 0; i < PROBESTICK_KC_BUCKETS; i++)
		b[i] = r->buckets[i];
	return ps_hist_json(b, PROBESTICK_KC_BUCKETS, r->sum, r->max, unit);
}

static json_object *find_or_add(json_object *arr, const char *key, int64_t id, const char *dir)
{
	size_t n = json_object_array_length(arr);
	json_object *o, *v;

	for (size_t i = 0; i < n; i++) {
		o = json_object_array_get_idx(arr, i);
		if (json_object_object_get_ex(o, key, &v) && json_object_get_int64(v) == id &&
		    (!dir || (json_object_object_get_ex(o, "dir", &v) &&
			      !strcmp(json_object_get_string(v), dir))))
			return o;
	}
	o = json_object_new_object();
	json_object_object_add(o, key, json_object_new_int64(id));
	if (dir)
		json_object_object_add(o, "dir", json_object_new_string(dir));
	json_object_array_add(arr, o);
	return o;
}

static json_object *disks(const struct probestick_kc_record *recs, unsigned int n)
{
	json_object *arr = json_object_new_array(), *d;
	char buf[40];

	for (unsigned int i = 0; i < n; i++) {
		const struct probestick_kc_record *r = &recs[i];

		if (r->metric != PROBESTICK_KC_M_BLOCK_LAT &&
		    r->metric != PROBESTICK_KC_M_BLOCK_IRQ)
			continue;
		d = find_or_add(arr, "devt", r->key, dir_names[r->dir < 3 ? r->dir : 2]);
		if (!json_object_object_get_ex(d, "dev", NULL)) {
			/* The kernel's dev_t: 12-bit major, 20-bit minor. */
			snprintf(buf, sizeof(buf), "%u:%u", r->key >> 20, r->key & 0xfffff);
			json_object_object_add(d, "dev", json_object_new_string(buf));
			json_object_object_add(
			    d, "disk",
			    json_object_new_string(copy_name(buf, r->name, sizeof(r->name))));
		}
		json_object_object_add(
		    d, r->metric == PROBESTICK_KC_M_BLOCK_LAT ? "latency" : "irq_to_complete",
		    hist_of(r, "ns"));
	}
	return arr;
}

static json_object *nics(const struct probestick_kc_record *recs, unsigned int n)
{
	json_object *arr = json_object_new_array(), *d, *h;
	char buf[40];

	for (unsigned int i = 0; i < n; i++) {
		const struct probestick_kc_record *r = &recs[i];

		if (r->metric < PROBESTICK_KC_M_NIC_LAT || r->metric > PROBESTICK_KC_M_NIC_PKTS)
			continue;
		/* ifindexes repeat across namespaces: the name tells them apart too. */
		d = NULL;
		for (size_t k = 0; k < json_object_array_length(arr); k++) {
			json_object *o = json_object_array_get_idx(arr, k), *v, *nm;

			json_object_object_get_ex(o, "ifindex", &v);
			json_object_object_get_ex(o, "name", &nm);
			if (json_object_get_int64(v) == r->key &&
			    !strcmp(json_object_get_string(nm),
				    copy_name(buf, r->name, sizeof(r->name))))
				d = o;
		}
		if (!d) {
			d = json_object_new_object();
			json_object_object_add(d, "ifindex", json_object_new_int64(r->key));
			json_object_object_add(
			    d, "name",
			    json_object_new_string(copy_name(buf, r->name, sizeof(r->name))));
			json_object_object_add(
			    d, "bus",
			    json_object_new_string(copy_name(buf, r->bus, sizeof(r->bus))));
			json_object_object_add(d, "rx_packets", json_object_new_int64(0));
			json_object_object_add(d, "tx_packets", json_object_new_int64(0));
			json_object_array_add(arr, d);
		}
		switch (r->metric) {
		case PROBESTICK_KC_M_NIC_LAT:
			json_object_object_add(d, "irq_to_poll", hist_of(r, "ns"));
			break;
		case PROBESTICK_KC_M_NIC_WORK:
			h = hist_of(r, "packets");
			json_object_object_add(h, "budget", json_object_new_int64(r->dir));
			json_object_object_add(d, "poll_work", h);
			break;
		default:
			json_object_object_add(d, "rx_packets",
					       json_object_new_int64((int64_t)r->extra[0]));
			json_object_object_add(d, "tx_packets",
					       json_object_new_int64((int64_t)r->extra[1]));
		}
	}
	return arr;
}

static json_object *probe_obj(const struct probestick_kc_probe *p, unsigned int mask,
			      unsigned int attached)
{
	json_object *o = json_object_new_object();
	char reason[sizeof(p->reason) + 1];
	int in_mask = (mask >> p->id) & 1;
	int ok = (attached >> p->id) & 1;

	copy_name(reason, p->reason, sizeof(p->reason));
	if (in_mask && !ok && !reason[0])
		snprintf(reason, sizeof(reason), "did not attach (error %d)", p->error);
	if (!in_mask && !(p->flags & PROBESTICK_KC_PROBE_AVAILABLE) && !reason[0])
		snprintf(reason, sizeof(reason), "not available in this kernel");
	json_object_object_add(
	    o, "available",
	    json_object_new_boolean(in_mask ? ok : !!(p->flags & PROBESTICK_KC_PROBE_AVAILABLE)));
	json_object_object_add(o, "captured", json_object_new_boolean(in_mask && ok));
	if ((in_mask && !ok) || (!in_mask && !(p->flags & PROBESTICK_KC_PROBE_AVAILABLE)))
		json_object_object_add(o, "reason", json_object_new_string(reason));
	return o;
}

json_object *ps_kcapture_json(const struct probestick_kc_probe *probes, unsigned int nprobes,
			      const struct probestick_kc_snapshot *snap,
			      const struct probestick_kc_record *recs, unsigned int nrecs)
{
	json_object *o = json_object_new_object(), *p, *d;
	char name[sizeof(probes[0].name) + 1];

	json_object_object_add(o, "available", json_object_new_boolean(1));
	json_object_object_add(o, "window_ns", json_object_new_int64((int64_t)snap->window_ns));
	json_object_object_add(o, "nr_cpus", json_object_new_int((int)snap->nr_cpus));
	for (unsigned int i = 0; i < nprobes; i++) {
		const struct probestick_kc_probe *pr = &probes[i];
		int captured = (snap->attached >> pr->id) & 1;

		copy_name(name, pr->name, sizeof(pr->name));
		p = probe_obj(pr, snap->mask, snap->attached);
		if (captured && pr->id == 0)
			json_object_object_add(
			    p, "lines",
			    per_cpu_lines(recs, nrecs, PROBESTICK_KC_M_HARDIRQ, snap->nr_cpus, 0));
		else if (captured && pr->id == 1)
			json_object_object_add(
			    p, "vectors",
			    per_cpu_lines(recs, nrecs, PROBESTICK_KC_M_SOFTIRQ, snap->nr_cpus, 1));
		else if (captured && pr->id == 2)
			json_object_object_add(p, "disks", disks(recs, nrecs));
		else if (captured && pr->id == 3)
			json_object_object_add(p, "devices", nics(recs, nrecs));
		json_object_object_add(o, name, p);
	}
	d = json_object_new_object();
	json_object_object_add(d, "keys_full",
			       json_object_new_int64((int64_t)snap->drops.keys_full));
	json_object_object_add(d, "hists_full",
			       json_object_new_int64((int64_t)snap->drops.hists_full));
	json_object_object_add(d, "rq_table_full",
			       json_object_new_int64((int64_t)snap->drops.rq_table_full));
	json_object_object_add(d, "rq_unknown",
			       json_object_new_int64((int64_t)snap->drops.rq_unknown));
	json_object_object_add(d, "rq_requeued",
			       json_object_new_int64((int64_t)snap->drops.rq_requeued));
	json_object_object_add(o, "drops", d);
	return o;
}
