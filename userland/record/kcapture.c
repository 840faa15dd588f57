/*
 * kcapture.c - probestick.ko's probes for a plan: found by name and attached
 * once (ps_kprobes), one capture window per step (ps_kcapture) whose merged
 * histograms become the step's "probes" object.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "record/kcapture.h"
#include "record/recorder.h"
#include "decode/proc.h"
#include "lib/json.h"

#define NOT_LOADED "probestick.ko not loaded"

struct ps_kprobes {
	int fd;
	uint32_t mask;	  /* the probes this program reads, by the module's ids */
	char reason[200]; /* set when no window can run */
	struct probestick_kc_probe probes[PROBESTICK_KC_MAX_PROBES];
	unsigned int nprobes;
};

struct ps_kcapture {
	struct ps_kprobes *k;
	char reason[200]; /* set when the window could not start */
};

/* A stopped window's records, for the event recorders (aer, mce). */
struct ps_kc_records {
	struct probestick_kc_probe probes[PROBESTICK_KC_MAX_PROBES];
	unsigned int nprobes;
	struct probestick_kc_snapshot snap;
	struct probestick_kc_record *recs;
	unsigned int nrecs;
	char reason[240];		      /* why there are none, when the window did not run */
	struct probestick_kc_record *scratch; /* what ps_kc_records_get() hands out */
};

/* ---- the probes this program reads, by name ---- */

struct reader {
	const char *name;   /* the module's probe and the report's member */
	const char *member; /* its array in the report */
	json_object *(*read)(const struct probestick_kc_record *recs, unsigned int n, uint32_t id,
			     unsigned int nr_cpus);
};

static json_object *hardirq_lines(const struct probestick_kc_record *recs, unsigned int n,
				  uint32_t id, unsigned int nr_cpus);
static json_object *softirq_vectors(const struct probestick_kc_record *recs, unsigned int n,
				    uint32_t id, unsigned int nr_cpus);
static json_object *block_disks(const struct probestick_kc_record *recs, unsigned int n,
				uint32_t id, unsigned int nr_cpus);
static json_object *nic_devices(const struct probestick_kc_record *recs, unsigned int n,
				uint32_t id, unsigned int nr_cpus);

/* aer and mce record events, which their own recorders read (ps_kc_records_get). */
static const struct reader readers[] = {
    {"hardirq", "lines", hardirq_lines},
    {"softirq", "vectors", softirq_vectors},
    {"block", "disks", block_disks},
    {"nic", "devices", nic_devices},
    {"aer", NULL, NULL},
    {"mce", NULL, NULL},
};

/*
 * A name the module filled in (NUL-terminated, or as long as its field),
 * cleaned as every report string is: netdevs, disks and IRQ actions may be
 * named with any bytes. dst has NAME_ROOM(the field) bytes.
 */
#define NAME_ROOM(field) (sizeof(field) * 4 + 1)
static char *copy_name(char *dst, size_t dstlen, const char *src, size_t len)
{
	ps_text_clean(src, len, NULL, dst, dstlen);
	return dst;
}

static const struct probestick_kc_probe *find_probe(const struct probestick_kc_probe *probes,
						    unsigned int n, const char *name)
{
	char buf[NAME_ROOM(probes[0].name)];

	for (unsigned int i = 0; i < n; i++)
		if (strcmp(copy_name(buf, sizeof(buf), probes[i].name, sizeof(probes[i].name)),
			   name) == 0)
			return &probes[i];
	return NULL;
}

static int is_of(const struct probestick_kc_record *r, uint32_t id, uint16_t metric);

static uint32_t probe_bit(const struct probestick_kc_probe *p)
{
	return p && p->id < PROBESTICK_KC_MAX_PROBES ? 1U << p->id : 0;
}

uint32_t ps_kcapture_mask(const struct probestick_kc_probe *probes, unsigned int nprobes)
{
	uint32_t mask = 0;

	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		const struct probestick_kc_probe *p = find_probe(probes, nprobes, readers[i].name);

		if (p && (p->flags & PROBESTICK_KC_PROBE_AVAILABLE))
			mask |= probe_bit(p);
	}
	return mask;
}

/* ---- talking to the module ---- */

json_object *ps_kcapture_unavailable(const char *reason)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "available", json_object_new_boolean(0));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	return o;
}

static int read_probes(int fd, struct probestick_kc_probe *probes, unsigned int *n)
{
	struct probestick_kc_probes q = {
	    .count = *n, .entry_size = sizeof(*probes), .probes = (uintptr_t)probes};

	memset(probes, 0, *n * sizeof(*probes));
	if (ioctl(fd, PROBESTICK_IOC_KC_PROBES, &q) < 0)
		return -errno;
	if (q.count < *n)
		*n = q.count;
	return 0;
}

struct ps_kprobes *ps_kprobes_attach(int module_fd)
{
	struct ps_kprobes *k = calloc(1, sizeof(*k));
	struct probestick_version ver;
	struct probestick_kc_attach at;
	int err;

	if (!k)
		return NULL;
	k->fd = module_fd;
	if (module_fd < 0) {
		snprintf(k->reason, sizeof(k->reason), NOT_LOADED);
		return k;
	}
	memset(&ver, 0, sizeof(ver));
	if (ioctl(module_fd, PROBESTICK_IOC_VERSION, &ver) < 0) {
		snprintf(k->reason, sizeof(k->reason), "probestick.ko does not answer: %s",
			 strerror(errno));
		return k;
	}
	if (ver.abi != PROBESTICK_ABI_VERSION) {
		snprintf(k->reason, sizeof(k->reason),
			 "probestick.ko %.64s has ABI %u, this probestick reads ABI %d: load the "
			 "module of the same build",
			 ver.release, ver.abi, PROBESTICK_ABI_VERSION);
		return k;
	}
	k->nprobes = PROBESTICK_KC_MAX_PROBES;
	err = read_probes(module_fd, k->probes, &k->nprobes);
	if (err) {
		k->nprobes = 0;
		snprintf(k->reason, sizeof(k->reason), "cannot list the module's probes: %s",
			 strerror(-err));
		return k;
	}
	k->mask = ps_kcapture_mask(k->probes, k->nprobes);
	if (!k->mask) {
		snprintf(k->reason, sizeof(k->reason),
			 "none of the module's probes can attach on this kernel");
		return k;
	}
	memset(&at, 0, sizeof(at));
	at.mask = k->mask;
	if (ioctl(module_fd, PROBESTICK_IOC_KC_ATTACH, &at) < 0) {
		k->mask = 0;
		snprintf(
		    k->reason, sizeof(k->reason), "cannot attach the probes: %s%s", strerror(errno),
		    errno == EBUSY ? " (another program holds them: stop it and run again)" : "");
		return k;
	}
	/* The reasons of the probes that failed to attach. */
	k->nprobes = PROBESTICK_KC_MAX_PROBES;
	if (read_probes(module_fd, k->probes, &k->nprobes) < 0)
		k->nprobes = 0;
	return k;
}

void ps_kprobes_detach(struct ps_kprobes *k)
{
	if (!k)
		return;
	if (k->mask && k->fd >= 0)
		ioctl(k->fd, PROBESTICK_IOC_KC_DETACH);
	free(k);
}

struct ps_kcapture *ps_kcapture_start(struct ps_kprobes *k)
{
	struct ps_kcapture *c = calloc(1, sizeof(*c));
	struct probestick_kc_start st;

	if (!c)
		return NULL;
	c->k = k;
	if (!k) {
		snprintf(c->reason, sizeof(c->reason), NOT_LOADED);
		return c;
	}
	if (k->reason[0]) {
		snprintf(c->reason, sizeof(c->reason), "%s", k->reason);
		return c;
	}
	memset(&st, 0, sizeof(st));
	st.mask = k->mask;
	if (ioctl(k->fd, PROBESTICK_IOC_KC_START, &st) < 0)
		snprintf(c->reason, sizeof(c->reason), "cannot start a capture window: %s",
			 strerror(errno));
	return c;
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

/* Records for the event recorders; with reason set, none (the window did not run). */
static struct ps_kc_records *records_new(const char *reason)
{
	struct ps_kc_records *r = calloc(1, sizeof(*r));

	if (r && reason)
		snprintf(r->reason, sizeof(r->reason), "%s", reason);
	return r;
}

static json_object *unavailable_keep(const char *reason, struct ps_kc_records **keep)
{
	if (keep)
		*keep = records_new(reason);
	return ps_kcapture_unavailable(reason);
}

json_object *ps_kcapture_stop_keep(struct ps_kcapture *c, struct ps_kc_records **keep)
{
	struct probestick_kc_snapshot snap;
	struct probestick_kc_record *recs = NULL;
	struct ps_kc_records *r;
	char reason[240];
	json_object *o;
	int err;

	if (keep)
		*keep = NULL;
	if (!c)
		return unavailable_keep(NOT_LOADED, keep);
	if (c->reason[0]) {
		o = unavailable_keep(c->reason, keep);
		free(c);
		return o;
	}
	if (ioctl(c->k->fd, PROBESTICK_IOC_KC_STOP) < 0) {
		snprintf(reason, sizeof(reason), "cannot stop the capture window: %s",
			 strerror(errno));
		free(c);
		return unavailable_keep(reason, keep);
	}
	err = read_snapshot(c->k->fd, &snap, &recs);
	if (err) {
		free(c);
		snprintf(reason, sizeof(reason), "cannot read the capture window: %s",
			 strerror(-err));
		return unavailable_keep(reason, keep);
	}
	o = ps_kcapture_json(c->k->probes, c->k->nprobes, &snap, recs, snap.count);
	r = keep ? records_new(NULL) : NULL;
	if (r) {
		memcpy(r->probes, c->k->probes, sizeof(r->probes));
		r->nprobes = c->k->nprobes;
		r->snap = snap;
		r->recs = recs;
		r->nrecs = snap.count;
		*keep = r;
	} else {
		free(recs);
	}
	free(c);
	return o;
}

json_object *ps_kcapture_stop(struct ps_kcapture *c)
{
	return ps_kcapture_stop_keep(c, NULL);
}

const struct probestick_kc_record *ps_kc_records_get(const struct ps_kc_records *cr,
						     const char *name, uint16_t metric,
						     unsigned int *n, bool *captured,
						     const char **reason)
{
	struct ps_kc_records *r = (struct ps_kc_records *)cr;
	const struct probestick_kc_probe *p;
	unsigned int k = 0;

	*n = 0;
	*captured = false;
	*reason = NOT_LOADED;
	if (!r)
		return NULL;
	*reason = r->reason;
	if (r->reason[0])
		return NULL;
	p = find_probe(r->probes, r->nprobes, name);
	if (!p) {
		*reason = "this probestick.ko has no such probe";
		return NULL;
	}
	if (!(r->snap.attached & probe_bit(p))) {
		*reason = p->reason[0] ? p->reason : "the probe did not attach in this window";
		return NULL;
	}
	*captured = true;
	*reason = "";
	free(r->scratch);
	r->scratch = calloc(r->nrecs ? r->nrecs : 1, sizeof(*r->scratch));
	if (!r->scratch)
		return NULL;
	for (unsigned int i = 0; i < r->nrecs; i++)
		if (is_of(&r->recs[i], p->id, metric))
			r->scratch[k++] = r->recs[i];
	*n = k;
	return r->scratch;
}

void ps_kc_records_free(struct ps_kc_records *r)
{
	if (!r)
		return;
	free(r->recs);
	free(r->scratch);
	free(r);
}

/* ---- records -> JSON: pure from here on ---- */

static const char *const softirq_names[] = {"HI",	"TIMER",   "NET_TX", "NET_RX",	"BLOCK",
					    "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
static const char *const dir_names[] = {"read", "write", "other"};

static int is_of(const struct probestick_kc_record *r, uint32_t id, uint16_t metric)
{
	return r->probe == id && r->metric == metric;
}

static json_object *hist_of(const uint64_t *b, uint64_t sum, uint64_t max, const char *unit)
{
	return ps_hist_json(b, PROBESTICK_KC_BUCKETS, sum, max, unit);
}

static json_object *rec_hist(const struct probestick_kc_record *r, const char *unit)
{
	uint64_t b[PROBESTICK_KC_BUCKETS]; /* __u64 is not uint64_t's type */

	for (unsigned int i = 0; i < PROBESTICK_KC_BUCKETS; i++)
		b[i] = r->buckets[i];
	return hist_of(b, r->sum, r->max, unit);
}

/* A name from the module: null when empty (unknown), UTF-8 clean otherwise. */
static json_object *name_of(const char *field, size_t len)
{
	char buf[64 * 4 + 1];

	return ps_json_new_str(copy_name(buf, sizeof(buf), field, len < 64 ? len : 64));
}

static json_object *count_array(const int64_t *n, unsigned int nr)
{
	json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < nr; i++)
		json_object_array_add(a, json_object_new_int64(n[i]));
	return a;
}

/* a + b for counts of a broken module (duplicate records near 2^63): held at INT64_MAX. */
static int64_t count_add(int64_t a, uint64_t b)
{
	return b > (uint64_t)(INT64_MAX - a) ? INT64_MAX : a + (int64_t)b;
}

/* One key's per-CPU records merged: histogram over CPUs, counts per CPU. */
struct per_cpu_key {
	uint64_t buckets[PROBESTICK_KC_BUCKETS];
	uint64_t sum, max;
	int64_t *handled, *unhandled; /* nr_cpus each */
};

/*
 * Per-CPU records of one metric, merged per key in the order the keys
 * first appear. per_cpu[] holds what count holds (handled invocations), so
 * the shares of a line add up to 100 %; for hardirq lines the IRQ_NONE
 * invocations of shared lines are apart, in unhandled and
 * unhandled_per_cpu[] (per_cpu + unhandled_per_cpu is what
 * /proc/interrupts counts for a line with one action).
 */
static json_object *per_cpu_lines(const struct probestick_kc_record *recs, unsigned int n,
				  uint32_t id, uint16_t metric, unsigned int nr_cpus, int softirq)
{
	json_object *arr = json_object_new_array(), *line;
	struct per_cpu_key *g = calloc(1, sizeof(*g));
	unsigned char *done = calloc(n ? n : 1, 1);
	int64_t *counts = calloc(2 * (size_t)(nr_cpus ? nr_cpus : 1), sizeof(*counts));
	int64_t unhandled;
	char share[48];

	if (!g || !done || !counts)
		goto out;
	for (unsigned int i = 0; i < n; i++) {
		if (!is_of(&recs[i], id, metric) || done[i])
			continue;
		memset(g, 0, sizeof(*g));
		memset(counts, 0, 2 * (size_t)nr_cpus * sizeof(*counts));
		g->handled = counts;
		g->unhandled = counts + nr_cpus;
		unhandled = 0;
		for (unsigned int j = i; j < n; j++) {
			const struct probestick_kc_record *r = &recs[j];

			if (!is_of(r, id, metric) || r->key != recs[i].key)
				continue;
			done[j] = 1;
			for (unsigned int b = 0; b < PROBESTICK_KC_BUCKETS; b++)
				g->buckets[b] += r->buckets[b];
			g->sum += r->sum;
			if (r->max > g->max)
				g->max = r->max;
			unhandled = count_add(unhandled, r->extra[0]);
			if (r->cpu < nr_cpus) {
				g->handled[r->cpu] = count_add(g->handled[r->cpu], r->count);
				g->unhandled[r->cpu] = count_add(g->unhandled[r->cpu], r->extra[0]);
			}
		}
		line = hist_of(g->buckets, g->sum, g->max, "ns");
		if (softirq) {
			json_object_object_add(line, "vector",
					       json_object_new_int((int)recs[i].key));
			json_object_object_add(
			    line, "name",
			    json_object_new_string(recs[i].key < 10 ? softirq_names[recs[i].key]
								    : "?"));
		} else {
			json_object_object_add(line, "irq", json_object_new_int((int)recs[i].key));
			json_object_object_add(line, "name",
					       name_of(recs[i].name, sizeof(recs[i].name)));
			json_object_object_add(line, "unhandled", json_object_new_int64(unhandled));
			json_object_object_add(line, "unhandled_per_cpu",
					       count_array(g->unhandled, nr_cpus));
		}
		json_object_object_add(line, "per_cpu", count_array(g->handled, nr_cpus));
		ps_kcapture_cpu_share(g->handled, nr_cpus, 3, share, sizeof(share));
		json_object_object_add(line, "cpu_share", ps_json_new_str(share));
		json_object_array_add(arr, line);
	}
out:
	free(g);
	free(done);
	free(counts);
	return arr;
}

static json_object *hardirq_lines(const struct probestick_kc_record *recs, unsigned int n,
				  uint32_t id, unsigned int nr_cpus)
{
	return per_cpu_lines(recs, n, id, PROBESTICK_KC_M_HARDIRQ, nr_cpus, 0);
}

static json_object *softirq_vectors(const struct probestick_kc_record *recs, unsigned int n,
				    uint32_t id, unsigned int nr_cpus)
{
	return per_cpu_lines(recs, n, id, PROBESTICK_KC_M_SOFTIRQ, nr_cpus, 1);
}

static json_object *find_disk(json_object *arr, int64_t devt, const char *dir)
{
	int64_t v;

	for (size_t i = 0; i < ps_json_len(arr); i++) {
		json_object *o = ps_json_at(arr, i);
		const char *d = ps_json_str(o, "dir");

		if (ps_json_int(o, "devt", &v) && v == devt && d && strcmp(d, dir) == 0)
			return o;
	}
	return NULL;
}

static json_object *block_disks(const struct probestick_kc_record *recs, unsigned int n,
				uint32_t id, unsigned int nr_cpus)
{
	json_object *arr = json_object_new_array(), *d;
	char buf[40];

	for (unsigned int i = 0; i < n; i++) {
		const struct probestick_kc_record *r = &recs[i];
		const char *dir = dir_names[r->dir < 3 ? r->dir : 2];
		int lat = is_of(r, id, PROBESTICK_KC_M_BLOCK_LAT);

		if (!lat && !is_of(r, id, PROBESTICK_KC_M_BLOCK_IRQ))
			continue;
		d = find_disk(arr, r->key, dir);
		if (!d) {
			d = json_object_new_object();
			json_object_object_add(d, "devt", json_object_new_int64(r->key));
			json_object_object_add(d, "dir", json_object_new_string(dir));
			/* The kernel's dev_t: 12-bit major, 20-bit minor. */
			snprintf(buf, sizeof(buf), "%u:%u", r->key >> 20, r->key & 0xfffff);
			json_object_object_add(d, "dev", json_object_new_string(buf));
			json_object_object_add(d, "disk", name_of(r->name, sizeof(r->name)));
			json_object_array_add(arr, d);
		}
		json_object_object_add(d, lat ? "latency" : "irq_to_complete", rec_hist(r, "ns"));
	}
	return arr;
}

static json_object *nic_devices(const struct probestick_kc_record *recs, unsigned int n,
				uint32_t id, unsigned int nr_cpus)
{
	json_object *arr = json_object_new_array(), *d, *h;
	char name[NAME_ROOM(recs[0].name)];
	int64_t v;

	for (unsigned int i = 0; i < n; i++) {
		const struct probestick_kc_record *r = &recs[i];

		if (r->probe != id || r->metric < PROBESTICK_KC_M_NIC_LAT ||
		    r->metric > PROBESTICK_KC_M_NIC_PKTS)
			continue;
		copy_name(name, sizeof(name), r->name, sizeof(r->name));
		/* ifindexes repeat across namespaces: the name tells them apart too. */
		d = NULL;
		for (size_t k = 0; k < ps_json_len(arr) && !d; k++) {
			json_object *o = ps_json_at(arr, k);
			const char *nm = ps_json_str(o, "name");

			if (ps_json_int(o, "ifindex", &v) && v == r->key && nm &&
			    strcmp(nm, name) == 0)
				d = o;
		}
		if (!d) {
			d = json_object_new_object();
			json_object_object_add(d, "ifindex", json_object_new_int64(r->key));
			json_object_object_add(d, "name", json_object_new_string(name));
			json_object_object_add(d, "bus", name_of(r->bus, sizeof(r->bus)));
			json_object_object_add(d, "rx_packets", json_object_new_int64(0));
			json_object_object_add(d, "tx_packets", json_object_new_int64(0));
			json_object_array_add(arr, d);
		}
		switch (r->metric) {
		case PROBESTICK_KC_M_NIC_LAT:
			json_object_object_add(d, "irq_to_poll", rec_hist(r, "ns"));
			break;
		case PROBESTICK_KC_M_NIC_WORK:
			h = rec_hist(r, "packets");
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

/* Whether a probe was asked for, attached and recorded in this window; why not. */
static json_object *probe_obj(const struct probestick_kc_probe *p, const char *name, uint32_t mask,
			      uint32_t recorded)
{
	json_object *o = json_object_new_object();
	char reason[NAME_ROOM(p->reason) + 64];
	int available = p && (p->flags & PROBESTICK_KC_PROBE_AVAILABLE);
	int in_mask = (mask & probe_bit(p)) != 0;
	int ok = (recorded & probe_bit(p)) != 0;

	if (!p)
		snprintf(reason, sizeof(reason), "this probestick.ko has no %s probe", name);
	else
		copy_name(reason, sizeof(reason), p->reason, sizeof(p->reason));
	if (p && in_mask && !ok && !reason[0])
		snprintf(reason, sizeof(reason), "did not attach (error %d)", p->error);
	if (p && !in_mask && !available && !reason[0])
		snprintf(reason, sizeof(reason), "not available in this kernel");
	if (p && !in_mask && available && !reason[0])
		snprintf(reason, sizeof(reason), "not asked for in this window");
	json_object_object_add(o, "available", json_object_new_boolean(in_mask ? ok : available));
	json_object_object_add(o, "captured", json_object_new_boolean(in_mask && ok));
	if (!(in_mask && ok))
		json_object_object_add(o, "reason", json_object_new_string(reason));
	return o;
}

json_object *ps_kcapture_json(const struct probestick_kc_probe *probes, unsigned int nprobes,
			      const struct probestick_kc_snapshot *snap,
			      const struct probestick_kc_record *recs, unsigned int nrecs)
{
	json_object *o = json_object_new_object(), *p, *d;
	/* nr_cpu_ids is at most NR_CPUS: more is a module bug, not billions of per_cpu entries */
	unsigned int nr_cpus =
	    snap->nr_cpus <= PS_PROC_CPU_MAX + 1 ? snap->nr_cpus : PS_PROC_CPU_MAX + 1;

	json_object_object_add(o, "available", json_object_new_boolean(1));
	json_object_object_add(o, "window_ns", json_object_new_int64((int64_t)snap->window_ns));
	json_object_object_add(o, "nr_cpus", json_object_new_int64(snap->nr_cpus));
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		const struct reader *rd = &readers[i];
		const struct probestick_kc_probe *pr = find_probe(probes, nprobes, rd->name);

		p = probe_obj(pr, rd->name, snap->mask, snap->attached);
		if (pr && rd->read && (snap->attached & probe_bit(pr)))
			json_object_object_add(p, rd->member,
					       rd->read(recs, nrecs, pr->id, nr_cpus));
		json_object_object_add(o, rd->name, p);
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

/* ---- CPU shares ---- */

struct share {
	size_t cpu;
	int64_t n;
	int64_t pct;
	int64_t rem; /* remainder of 100 * n / total, for the rounding */
};

static int by_rem_desc(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	if (x->rem != y->rem)
		return x->rem < y->rem ? 1 : -1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int by_pct_desc(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	if (x->pct != y->pct)
		return x->pct < y->pct ? 1 : -1;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

const char *ps_kcapture_cpu_share(const int64_t *n, size_t ncpus, int max_shown, char *buf,
				  size_t len)
{
	struct share *s;
	uint64_t total;
	int64_t left = 100;
	size_t used = 0, k = 0;
	unsigned int shift = 0;
	int w;

	if (len)
		buf[0] = '\0';
	/*
	 * Counts from a broken module can be near 2^63: halve them all until
	 * their sum times 100 fits, so the shares stay exact where it matters.
	 */
	for (;; shift++) {
		bool over = false;

		total = 0;
		for (size_t i = 0; i < ncpus && !over; i++) {
			uint64_t v = n[i] > 0 ? (uint64_t)n[i] >> shift : 0;

			over = v > UINT64_MAX / 100 - total;
			total += over ? 0 : v;
		}
		if (!over)
			break;
	}
	if (!total || !len)
		return buf;
	s = calloc(ncpus, sizeof(*s));
	if (!s)
		return buf;
	/* Largest remainder: floor every share, give the missing points to the largest rests. */
	for (size_t i = 0; i < ncpus; i++) {
		uint64_t v = n[i] > 0 ? (uint64_t)n[i] >> shift : 0;

		s[i].cpu = i;
		s[i].n = n[i] > 0 ? n[i] : 0;
		s[i].pct = (int64_t)(v * 100 / total);
		s[i].rem = (int64_t)(v * 100 % total);
		left -= s[i].pct;
	}
	qsort(s, ncpus, sizeof(*s), by_rem_desc);
	for (size_t i = 0; i < ncpus && left > 0; i++)
		if (s[i].n > 0) {
			s[i].pct++;
			left--;
		}
	qsort(s, ncpus, sizeof(*s), by_pct_desc);
	left = 100;
	for (k = 0; k < ncpus && (int)k < max_shown && s[k].pct > 0; k++) {
		w = snprintf(buf + used, len - used, "%s%zu:%lld%%", k ? " " : "", s[k].cpu,
			     (long long)s[k].pct);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
		left -= s[k].pct;
	}
	if (left > 0 && used < len)
		snprintf(buf + used, len - used, " +%lld%%", (long long)left);
	free(s);
	return buf;
}

/* ---- registered: the module's capture window, the closest around every step ---- */

static void *probes_plan_start(int module_fd)
{
	return ps_kprobes_attach(module_fd);
}

static void probes_plan_stop(void *plan)
{
	ps_kprobes_detach(plan);
}

static void *probes_start(struct ps_rec_ctx *rc, void *plan)
{
	return ps_kcapture_start(plan);
}

static void records_free(void *recs)
{
	ps_kc_records_free(recs);
}

static json_object *probes_stop(void *state, struct ps_rec_ctx *rc)
{
	struct ps_kc_records *recs = NULL;
	json_object *o = ps_kcapture_stop_keep(state, &recs);

	rc->records = recs;
	rc->records_free = records_free;
	return o;
}

static const struct ps_recorder_ops probes_recorder = {
    .abi = PS_RECORDER_ABI,
    .name = "probes",
    .order = 70,
    .show = 20,
    .view = &ps_probes_view,
    .plan_start = probes_plan_start,
    .plan_stop = probes_plan_stop,
    .start = probes_start,
    .stop = probes_stop,
};
PS_RECORDER_REGISTER(probes_recorder);
