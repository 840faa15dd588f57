/* test_kcapture.c - the "probes" object, its view and its text built from module records
 * (record/kcapture.c, record/probes_view.c): probes by name, CPU shares, recorded windows. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "../../kmod/hist_layout.h"
#include "check.h"
#include "kc_recording.h"
#include "record/kcapture.h"
#include "report/report.h"
#include "lib/json.h"
#include "report/view.h"

#define RECORDING FIXTURES "/kcapture/busy-guest-unhandled.txt"

static json_object *get(json_object *o, const char *k)
{
	return ps_json_get(o, k);
}

static long long geti(json_object *o, const char *k)
{
	int64_t v = -1;

	ps_json_int(o, k, &v);
	return v;
}

static void test_not_loaded(void)
{
	struct ps_kprobes *k = ps_kprobes_attach(-1);
	json_object *o;

	CHECK(k != NULL);
	o = ps_kcapture_stop(ps_kcapture_start(k));
	CHECK(!json_object_get_boolean(get(o, "available")));
	CHECK_STR(json_object_get_string(get(o, "reason")), "probestick.ko not loaded");
	json_object_put(o);
	ps_kprobes_detach(k);
	ps_kprobes_detach(NULL);
	o = ps_kcapture_stop(NULL);
	CHECK_STR(json_object_get_string(get(o, "reason")), "probestick.ko not loaded");
	json_object_put(o);
	o = ps_kcapture_stop(ps_kcapture_start(NULL));
	CHECK_STR(json_object_get_string(get(o, "reason")), "probestick.ko not loaded");
	json_object_put(o);
}

/* A file that is not /dev/probestick: the version ioctl fails, windows say why. */
static void test_not_a_module(void)
{
	FILE *f = tmpfile();
	struct ps_kprobes *k = ps_kprobes_attach(fileno(f));
	json_object *o = ps_kcapture_stop(ps_kcapture_start(k));

	CHECK(!json_object_get_boolean(get(o, "available")));
	CHECK(strstr(json_object_get_string(get(o, "reason")), "does not answer") != NULL);
	json_object_put(o);
	ps_kprobes_detach(k);
	fclose(f);
}

static void probe(struct probestick_kc_probe *p, unsigned int id, const char *name,
		  unsigned int flags, const char *reason)
{
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->flags = flags;
	strcpy(p->name, name);
	if (reason) {
		strcpy(p->reason, reason);
		p->error = -2;
	}
}

static struct probestick_kc_record *rec(struct probestick_kc_record *r, uint32_t probe_id,
					uint16_t metric, uint16_t cpu, uint32_t key, uint32_t dir,
					const char *name, uint64_t value, uint64_t n)
{
	memset(r, 0, sizeof(*r));
	r->probe = probe_id;
	r->metric = metric;
	r->cpu = cpu;
	r->key = key;
	r->dir = dir;
	strcpy(r->name, name);
	r->buckets[ps_hist_index(value)] = n;
	r->count = n;
	r->sum = value * n;
	r->max = value;
	return r;
}

#define ALL (PROBESTICK_KC_PROBE_AVAILABLE | PROBESTICK_KC_PROBE_ATTACHED)

/* hardirq + block + nic asked, nic failed to attach, softirq not asked. */
static json_object *sample(void)
{
	struct probestick_kc_probe p[4];
	struct probestick_kc_snapshot snap;
	static struct probestick_kc_record r[10];
	unsigned int n = 0;

	/* The module lists them in another order than the report: found by name. */
	probe(&p[0], 2, "block", ALL, NULL);
	probe(&p[1], 0, "hardirq", ALL, NULL);
	probe(&p[2], 1, "softirq", PROBESTICK_KC_PROBE_AVAILABLE, NULL);
	probe(&p[3], 3, "nic", 0, "tracepoint napi_poll not in this kernel");
	memset(&snap, 0, sizeof(snap));
	snap.window_ns = 2500000000ULL;
	snap.nr_cpus = 2;
	snap.mask = 1U << 0 | 1U << 2 | 1U << 3;
	snap.attached = 1U << 0 | 1U << 2;
	snap.drops.rq_unknown = 3;
	/* IRQ 24 on both CPUs, IRQ 30 busier on CPU 1, 4 IRQ_NONE calls on IRQ 24's CPU 1 */
	rec(&r[n++], 0, PROBESTICK_KC_M_HARDIRQ, 0, 24, 0, "virtio1-req.0", 5000, 30);
	rec(&r[n++], 0, PROBESTICK_KC_M_HARDIRQ, 1, 30, 0, "nvme0q1", 2000, 500);
	rec(&r[n++], 0, PROBESTICK_KC_M_HARDIRQ, 1, 24, 0, "virtio1-req.0", 9000, 10)->extra[0] = 4;
	/* vda (254:0) reads and writes, nvme0n1 (259:0) reads */
	rec(&r[n++], 2, PROBESTICK_KC_M_BLOCK_LAT, 0xffff, 254u << 20, 0, "vda", 150000, 40);
	rec(&r[n++], 2, PROBESTICK_KC_M_BLOCK_IRQ, 0xffff, 254u << 20, 0, "vda", 8000, 40);
	rec(&r[n++], 2, PROBESTICK_KC_M_BLOCK_LAT, 0xffff, 254u << 20, 1, "vda", 300000, 5);
	rec(&r[n++], 2, PROBESTICK_KC_M_BLOCK_LAT, 0xffff, 259u << 20, 0, "nvme0n1", 90000, 500);
	/* a record of a probe this window did not record is left out */
	rec(&r[n++], 1, PROBESTICK_KC_M_SOFTIRQ, 0, 3, 0, "", 1000, 7);
	return ps_kcapture_json(p, 4, &snap, r, n);
}

static void test_json(void)
{
	json_object *o = sample(), *lines, *l, *pc, *disks, *d;

	CHECK(json_object_get_boolean(get(o, "available")));
	CHECK_INT(geti(o, "window_ns"), 2500000000LL);
	/* probes: attached, not asked, failed with the module's reason */
	CHECK(json_object_get_boolean(get(get(o, "hardirq"), "captured")));
	CHECK(json_object_get_boolean(get(get(o, "softirq"), "available")));
	CHECK(!json_object_get_boolean(get(get(o, "softirq"), "captured")));
	CHECK(!get(get(o, "softirq"), "vectors"));
	CHECK(!json_object_get_boolean(get(get(o, "nic"), "available")));
	CHECK_STR(json_object_get_string(get(get(o, "nic"), "reason")),
		  "tracepoint napi_poll not in this kernel");

	/* per-CPU records merged per line; per_cpu holds what count holds */
	lines = get(get(o, "hardirq"), "lines");
	CHECK_INT(json_object_array_length(lines), 2);
	l = json_object_array_get_idx(lines, 0);
	CHECK_INT(geti(l, "irq"), 24);
	CHECK_STR(json_object_get_string(get(l, "name")), "virtio1-req.0");
	CHECK_INT(geti(l, "count"), 40);
	CHECK_INT(geti(l, "unhandled"), 4);
	CHECK_INT(geti(l, "max"), 9000);
	pc = get(l, "per_cpu");
	CHECK_INT(json_object_array_length(pc), 2);
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(pc, 0)), 30);
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(pc, 1)), 10);
	pc = get(l, "unhandled_per_cpu");
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(pc, 0)), 0);
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(pc, 1)), 4);
	CHECK_STR(json_object_get_string(get(l, "cpu_share")), "0:75% 1:25%");
	CHECK_INT(json_object_array_length(get(l, "buckets")), 2);
	CHECK(geti(l, "p50") >= 5000 && geti(l, "p50") <= 5312);
	CHECK_INT(geti(l, "p99"), 9000);
	CHECK_STR(json_object_get_string(get(json_object_array_get_idx(lines, 1), "cpu_share")),
		  "1:100%");

	/* one entry per disk and direction, both histograms on it */
	disks = get(get(o, "block"), "disks");
	CHECK_INT(json_object_array_length(disks), 3);
	d = json_object_array_get_idx(disks, 0);
	CHECK_STR(json_object_get_string(get(d, "dev")), "254:0");
	CHECK_STR(json_object_get_string(get(d, "disk")), "vda");
	CHECK_STR(json_object_get_string(get(d, "dir")), "read");
	CHECK_INT(geti(get(d, "latency"), "count"), 40);
	CHECK_INT(geti(get(d, "irq_to_complete"), "count"), 40);
	d = json_object_array_get_idx(disks, 1);
	CHECK_STR(json_object_get_string(get(d, "dir")), "write");
	CHECK(!get(d, "irq_to_complete"));
	d = json_object_array_get_idx(disks, 2);
	CHECK_STR(json_object_get_string(get(d, "dev")), "259:0");
	CHECK_INT(geti(get(o, "drops"), "rq_unknown"), 3);
	json_object_put(o);
}

/* A module built without the block probe: nic has id 2, block is listed without one. */
static void test_probes_by_name(void)
{
	struct probestick_kc_probe p[5];
	struct probestick_kc_snapshot snap;
	static struct probestick_kc_record r[2];
	json_object *o, *devs;

	probe(&p[0], 0, "hardirq", ALL, NULL);
	probe(&p[1], 1, "softirq", ALL, NULL);
	probe(&p[2], 2, "nic", ALL, NULL);
	probe(&p[3], 3, "future", PROBESTICK_KC_PROBE_AVAILABLE, NULL);
	probe(&p[4], PROBESTICK_KC_NO_ID, "block", 0,
	      "not built: this kernel lacks an option it needs");
	/* the probes this program reads, not the one it does not know */
	CHECK_INT(ps_kcapture_mask(p, 5), 0x7);
	memset(&snap, 0, sizeof(snap));
	snap.nr_cpus = 1;
	snap.mask = snap.attached = 0x7;
	rec(&r[0], 2, PROBESTICK_KC_M_NIC_LAT, 0xffff, 2, 0, "eth0", 40000, 100);
	/* a record claiming block's old id 2 with a block metric is not a disk */
	rec(&r[1], 2, PROBESTICK_KC_M_BLOCK_LAT, 0xffff, 8 << 20, 0, "sda", 1000, 1);
	o = ps_kcapture_json(p, 5, &snap, r, 2);
	devs = get(get(o, "nic"), "devices");
	CHECK_INT(json_object_array_length(devs), 1);
	CHECK_INT(geti(get(json_object_array_get_idx(devs, 0), "irq_to_poll"), "count"), 100);
	CHECK(!json_object_get_boolean(get(get(o, "block"), "available")));
	CHECK(!get(get(o, "block"), "disks"));
	CHECK_STR(json_object_get_string(get(get(o, "block"), "reason")),
		  "not built: this kernel lacks an option it needs");
	CHECK(!get(o, "future"));
	json_object_put(o);

	/* a module without any probe of that name at all */
	o = ps_kcapture_json(p, 3, &snap, r, 0);
	CHECK_STR(json_object_get_string(get(get(o, "block"), "reason")),
		  "this probestick.ko has no block probe");
	json_object_put(o);
	CHECK_INT(ps_kcapture_mask(p, 0), 0);
}

static void test_nic_json(void)
{
	struct probestick_kc_probe p;
	struct probestick_kc_snapshot snap;
	static struct probestick_kc_record r[4];
	json_object *o, *devs, *d;

	probe(&p, 3, "nic", ALL, NULL);
	memset(&snap, 0, sizeof(snap));
	snap.mask = snap.attached = 1U << 3;
	snap.nr_cpus = 1;
	/* eth0 in two namespaces with the same ifindex: two devices */
	rec(&r[0], 3, PROBESTICK_KC_M_NIC_LAT, 0xffff, 2, 0, "eth0", 40000, 100);
	rec(&r[1], 3, PROBESTICK_KC_M_NIC_WORK, 0xffff, 2, 64, "eth0", 1, 120);
	rec(&r[2], 3, PROBESTICK_KC_M_NIC_PKTS, 0xffff, 2, 0, "eth0", 0, 0);
	r[2].extra[0] = 150;
	r[2].extra[1] = 140;
	strcpy(r[2].bus, "0000:00:02.0");
	rec(&r[3], 3, PROBESTICK_KC_M_NIC_PKTS, 0xffff, 2, 0, "eth1", 0, 0);
	r[3].extra[0] = 7;
	o = ps_kcapture_json(&p, 1, &snap, r, 4);
	devs = get(get(o, "nic"), "devices");
	CHECK_INT(json_object_array_length(devs), 2);
	d = json_object_array_get_idx(devs, 0);
	CHECK_STR(json_object_get_string(get(d, "name")), "eth0");
	CHECK_INT(geti(d, "rx_packets"), 150);
	CHECK_INT(geti(d, "tx_packets"), 140);
	CHECK_INT(geti(get(d, "irq_to_poll"), "count"), 100);
	CHECK_INT(geti(get(d, "poll_work"), "budget"), 64);
	CHECK_INT(geti(get(d, "poll_work"), "p50"), 1);
	CHECK_STR(json_object_get_string(get(get(d, "poll_work"), "unit")), "packets");
	d = json_object_array_get_idx(devs, 1);
	CHECK_STR(json_object_get_string(get(d, "name")), "eth1");
	/* no parent device: the bus is unknown, null */
	CHECK(json_object_object_get_ex(d, "bus", NULL) && !get(d, "bus"));
	CHECK_INT(geti(d, "rx_packets"), 7);
	json_object_put(o);
}

/* Names with control bytes and invalid UTF-8 (a netdev may be named so) come out clean. */
static void test_odd_names(void)
{
	struct probestick_kc_probe p[2];
	struct probestick_kc_snapshot snap;
	static struct probestick_kc_record r[3];
	json_object *o, *d;

	probe(&p[0], 3, "nic", ALL, NULL);
	probe(&p[1], 2, "bl\xffk", PROBESTICK_KC_PROBE_AVAILABLE, NULL);
	memset(p[1].reason, 'r', sizeof(p[1].reason)); /* no NUL: the whole field */
	memset(&snap, 0, sizeof(snap));
	snap.mask = snap.attached = 1U << 3;
	snap.nr_cpus = 1;
	rec(&r[0], 3, PROBESTICK_KC_M_NIC_LAT, 0xffff, 2, 0, "eth\xff\x1b[2J", 40000, 100);
	rec(&r[1], 3, PROBESTICK_KC_M_NIC_PKTS, 0xffff, 2, 0, "eth\xff\x1b[2J", 0, 0);
	r[1].extra[0] = 5;
	memset(r[2].name, 'n', sizeof(r[2].name)); /* no NUL: the whole field */
	r[2].probe = 3;
	r[2].metric = PROBESTICK_KC_M_NIC_PKTS;
	r[2].key = 3;
	o = ps_kcapture_json(p, 2, &snap, r, 3);
	d = json_object_array_get_idx(get(get(o, "nic"), "devices"), 0);
	CHECK_STR(json_object_get_string(get(d, "name")), "eth\xef\xbf\xbd\\x1b[2J");
	CHECK_INT(geti(d, "rx_packets"), 5); /* both records found the same device */
	CHECK_INT(json_object_array_length(get(get(o, "nic"), "devices")), 2);
	d = json_object_array_get_idx(get(get(o, "nic"), "devices"), 1);
	CHECK_INT(strlen(json_object_get_string(get(d, "name"))), sizeof(r[2].name));
	/* a block probe under another (unclean) name is no block probe */
	CHECK_STR(json_object_get_string(get(get(o, "block"), "reason")),
		  "this probestick.ko has no block probe");
	json_object_put(o);
}

/* Duplicate records of one line and CPU (a module bug) near 2^63: counts held, not wrapped. */
static void test_count_sum_bound(void)
{
	struct probestick_kc_probe p;
	struct probestick_kc_snapshot snap;
	static struct probestick_kc_record r[2];
	json_object *o, *l;

	probe(&p, 0, "hardirq", ALL, NULL);
	memset(&snap, 0, sizeof(snap));
	snap.mask = snap.attached = 1U << 0;
	snap.nr_cpus = 2;
	for (int i = 0; i < 2; i++) {
		rec(&r[i], 0, PROBESTICK_KC_M_HARDIRQ, 0, 9, 0, "eth0", 1000,
		    0x7000000000000000ULL);
		r[i].extra[0] = 0x7000000000000000ULL;
	}
	o = ps_kcapture_json(&p, 1, &snap, r, 2);
	l = json_object_array_get_idx(get(get(o, "hardirq"), "lines"), 0);
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(get(l, "per_cpu"), 0)),
		  INT64_MAX);
	CHECK_INT(geti(l, "unhandled"), INT64_MAX);
	CHECK_STR(json_object_get_string(get(l, "cpu_share")), "0:100%");
	json_object_put(o);
}

/* A probe id past the masks' 32 bits (a module of another version) is in no mask. */
static void test_future_probe(void)
{
	struct probestick_kc_probe p;
	struct probestick_kc_snapshot snap;
	json_object *o;

	probe(&p, 40, "hardirq", ALL, NULL);
	CHECK_INT(ps_kcapture_mask(&p, 1), 0);
	memset(&snap, 0, sizeof(snap));
	snap.mask = 0xffffffffU;
	snap.attached = 0x100; /* bit 40 & 31 */
	o = ps_kcapture_json(&p, 1, &snap, NULL, 0);
	CHECK(json_object_get_boolean(get(get(o, "hardirq"), "available")));
	CHECK(!json_object_get_boolean(get(get(o, "hardirq"), "captured")));
	CHECK(!get(get(o, "hardirq"), "lines"));
	json_object_put(o);
}

/* nr_cpus past NR_CPUS (a module bug) does not size per_cpu[] beyond 8192 entries. */
static void test_nr_cpus_bound(void)
{
	struct probestick_kc_probe p;
	struct probestick_kc_snapshot snap;
	static struct probestick_kc_record r[1];
	json_object *o, *pc;

	probe(&p, 0, "hardirq", ALL, NULL);
	memset(&snap, 0, sizeof(snap));
	snap.mask = snap.attached = 1U << 0;
	snap.nr_cpus = 100000;
	rec(&r[0], 0, PROBESTICK_KC_M_HARDIRQ, 1, 24, 0, "eth0", 5000, 3);
	o = ps_kcapture_json(&p, 1, &snap, r, 1);
	CHECK_INT(geti(o, "nr_cpus"), 100000);
	pc = get(json_object_array_get_idx(get(get(o, "hardirq"), "lines"), 0), "per_cpu");
	CHECK_INT(json_object_array_length(pc), 8192);
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(pc, 1)), 3);
	json_object_put(o);
}

static void share(const int64_t *n, size_t ncpus, int shown, const char *want)
{
	char buf[64];

	CHECK_STR(ps_kcapture_cpu_share(n, ncpus, shown, buf, sizeof(buf)), want);
}

static void test_cpu_share(void)
{
	const int64_t thirds[] = {1, 1, 1}, two[] = {61, 39}, none[] = {0, 0},
		      four[] = {5, 90, 3, 2}, tiny[] = {999, 1}, near[] = {994, 6},
		      big[] = {3000000000LL, 1}, huge[] = {INT64_MAX, INT64_MAX, 0},
		      third[] = {INT64_MAX / 4 * 3, INT64_MAX / 4};

	share(two, 2, 3, "0:61% 1:39%");
	/* largest remainder: 33.3 x 3 is 34 + 33 + 33, never 99 */
	share(thirds, 3, 3, "0:34% 1:33% 2:33%");
	share(thirds, 3, 1, "0:34% +66%");
	share(none, 2, 3, "");
	share(four, 4, 2, "1:90% 0:5% +5%");
	/* a CPU that rounds to 0 % is not shown as "1:0%" */
	share(tiny, 2, 3, "0:100%");
	share(near, 2, 3, "0:99% 1:1%");
	share(big, 2, 3, "0:100%");
	/* counts from a broken module near 2^63: no overflow, shares still exact */
	share(huge, 3, 3, "0:50% 1:50%");
	share(third, 2, 3, "0:75% 1:25%");
}

/* The shares a "0:61% 1:39% +N%" text adds up to. */
static int share_sum(const char *s)
{
	int sum = 0, cpu, pct, n;

	while (*s) {
		if (sscanf(s, " %d:%d%%%n", &cpu, &pct, &n) == 2 ||
		    sscanf(s, " +%d%%%n", &pct, &n) == 1)
			sum += pct;
		else
			return -1;
		s += n;
	}
	return sum;
}

static int64_t array_sum(json_object *a)
{
	int64_t sum = 0;

	for (size_t i = 0; i < ps_json_len(a); i++)
		sum += json_object_get_int64(ps_json_at(a, i));
	return sum;
}

/*
 * A window recorded in a busy guest (tests/boot/test_module_cycle), with
 * IRQ_NONE calls on AHCI's and NVMe's shared-flagged vectors: the old
 * report showed AHCI's line as "1:107%".
 */
static void test_recorded_window_unhandled(void)
{
	struct kc_recording rec;
	json_object *o, *lines, *l;
	int64_t unhandled = 0;
	int ahci = 0;

	if (kc_recording_load(RECORDING, &rec) < 0) {
		CHECK(!"the recorded window loads");
		return;
	}
	o = ps_kcapture_json(rec.probes, rec.nprobes, &rec.snap, rec.recs, rec.nrecs);
	lines = ps_json_ptr(o, "/hardirq/lines");
	CHECK(ps_json_len(lines) >= 8);
	for (size_t i = 0; i < ps_json_len(lines); i++) {
		const char *s;

		l = ps_json_at(lines, i);
		CHECK_INT(array_sum(get(l, "per_cpu")), geti(l, "count"));
		CHECK_INT(array_sum(get(l, "unhandled_per_cpu")), geti(l, "unhandled"));
		unhandled += geti(l, "unhandled");
		s = ps_json_str(l, "cpu_share");
		if (geti(l, "count") > 0)
			CHECK_INT(s ? share_sum(s) : -1, 100);
		if (strcmp(ps_json_str_or(l, "name", ""), "ahci[0000:00:1f.2]") == 0) {
			ahci = 1;
			CHECK_INT(geti(l, "count"), 2434);
			CHECK_INT(geti(l, "unhandled"), 192);
			CHECK_STR(s, "1:100%");
		}
	}
	CHECK(ahci);
	CHECK(unhandled > 0);
	CHECK_INT(ps_json_len(ps_json_ptr(o, "/block/disks")) >= 3, 1);
	CHECK_INT(ps_json_len(ps_json_ptr(o, "/nic/devices")), 2);
	json_object_put(o);
	kc_recording_free(&rec);
}

/* The CPUs column, as every view shows it (cpu_share), adds up to 100 % too. */
static void test_text_shares(void)
{
	struct kc_recording rec;
	json_object *o, *lines;
	int rows = 0;

	if (kc_recording_load(RECORDING, &rec) < 0) {
		CHECK(!"the recorded window loads");
		return;
	}
	o = ps_kcapture_json(rec.probes, rec.nprobes, &rec.snap, rec.recs, rec.nrecs);
	lines = ps_json_arr(ps_json_get(o, "hardirq"), "lines");
	for (size_t i = 0; i < ps_json_len(lines); i++) {
		json_object *l = ps_json_at(lines, i);
		const char *share = ps_json_str(l, "cpu_share"), *name = ps_json_str(l, "name");
		int sum = 0, cpu, p, n;

		if (!share || !name)
			continue;
		for (const char *q = share; *q;) {
			if (sscanf(q, " %d:%d%%%n", &cpu, &p, &n) == 2 ||
			    sscanf(q, " +%d%%%n", &p, &n) == 1) {
				sum += p;
				q += n;
			} else {
				break;
			}
		}
		if (strstr(name, "ahci") || strstr(name, "nvme") || strstr(name, "virtio")) {
			CHECK_INT(sum, 100);
			rows++;
		}
	}
	CHECK(rows >= 4);
	json_object_put(o);
	kc_recording_free(&rec);
}

/* The probes as report.txt shows them, through their view. */
static char *render(json_object *probes)
{
	const struct ps_view *v[] = {&ps_probes_view};
	struct ps_view_set set = {v, 1};
	json_object *r = json_object_new_object(), *steps = json_object_new_array(),
		    *s = json_object_new_object();
	char *buf;

	json_object_object_add(r, "schema_version", json_object_new_int(2));
	json_object_object_add(s, "name", json_object_new_string("step"));
	json_object_object_add(s, "status", json_object_new_string("pass"));
	json_object_object_add(s, "probes", json_object_get(probes));
	json_object_array_add(steps, s);
	json_object_object_add(r, "steps", steps);
	buf = ps_report_text(r, &set, 0);
	json_object_put(r);
	return buf;
}

static void test_text(void)
{
	json_object *o = sample();
	char *buf, *line, *save = NULL;
	int lines = 0, first_irq = 0;

	buf = render(o);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		CHECK(strlen(line) <= 80);
		if (!first_irq && strstr(line, "nvme0q1"))
			first_irq = 1;
		lines++;
	}
	CHECK(first_irq);
	CHECK(lines >= 5);
	free(buf);
	json_object_put(o);

	o = ps_kcapture_unavailable("probestick.ko not loaded");
	buf = render(o);
	CHECK(strstr(buf, "probestick.ko not loaded") != NULL);
	free(buf);
	json_object_put(o);
}

/* A "probes" object of another shape (another version, a damaged report): printed, not a crash. */
static void test_text_damaged(void)
{
	json_object *o = json_tokener_parse(
	    "{\"available\": true, \"window_ns\": \"long\","
	    " \"hardirq\": {\"available\": true, \"captured\": true, \"lines\": [{\"irq\": 9,"
	    " \"name\": 7, \"count\": 10, \"per_cpu\": [-5, 9223372036854775807, 3],"
	    " \"cpu_share\": [1]}, {\"irq\": \"x\", \"name\": \"eth0\", \"p50\": 1e300}]},"
	    " \"softirq\": {\"available\": true, \"captured\": true, \"vectors\": 5},"
	    " \"block\": {\"available\": true, \"captured\": true, \"disks\": {}},"
	    " \"nic\": {\"available\": true, \"captured\": true, \"devices\": \"x\"}}");
	char *buf;

	CHECK(o != NULL);
	buf = render(o);
	CHECK(buf != NULL);
	CHECK(buf && strstr(buf, "eth0") != NULL); /* the row that has a name is shown */
	free(buf);
	json_object_put(o);
}

/* Whether some row of rows has a value at path (tables) or every row (keys). */
static int rows_with(json_object *rows, const char *path)
{
	int n = 0;

	for (size_t i = 0; i < ps_json_len(rows); i++)
		n += ps_json_ptr(ps_json_at(rows, i), path) != NULL;
	return n;
}

/* Every path of the view finds its value in a recorded window's object. */
static void test_view_paths(void)
{
	const struct ps_view *v = &ps_probes_view;
	struct kc_recording rec;
	json_object *o;
	int tables = 0, series = 0;

	char why[200] = "";

	CHECK_STR(v->name, "probes");
	CHECK_INT(v->scope, PS_SCOPE_MEMBER);
	CHECK(ps_view_valid(v, why, sizeof(why)));
	if (why[0])
		fprintf(stderr, "ps_probes_view: %s\n", why);
	if (kc_recording_load(RECORDING, &rec) < 0) {
		CHECK(!"the recorded window loads");
		return;
	}
	o = ps_kcapture_json(rec.probes, rec.nprobes, &rec.snap, rec.recs, rec.nrecs);
	for (size_t b = 0; b < v->nblocks; b++) {
		const struct ps_block *blk = &v->blocks[b];
		json_object *rows = ps_json_ptr(o, blk->rows);

		CHECK(blk->id && blk->ncols > 0);
		if (!rows) {
			fprintf(stderr, "view block %s: no rows at '%s'\n", blk->id, blk->rows);
			CHECK(rows);
			continue;
		}
		if (blk->kind == PS_BLOCK_KV) {
			/* the reasons are there only for what did not record */
			for (size_t c = 0; c < blk->ncols; c++)
				if (!strstr(blk->cols[c].path, "reason"))
					CHECK(ps_json_ptr(rows, blk->cols[c].path) != NULL);
			continue;
		}
		CHECK(json_object_is_type(rows, json_type_array) && ps_json_len(rows) > 0);
		if (blk->kind == PS_BLOCK_TABLE) {
			tables++;
			for (size_t c = 0; c < blk->ncols; c++) {
				int n = rows_with(rows, blk->cols[c].path);

				if (!n)
					fprintf(stderr, "view block %s: no row has '%s'\n", blk->id,
						blk->cols[c].path);
				CHECK(n > 0);
				if (blk->cols[c].flags & PS_COL_KEY)
					CHECK_INT(n, ps_json_len(rows));
			}
			continue;
		}
		/* a series: a labelled line per row, [lower bound, count] points */
		series++;
		CHECK(blk->flags & PS_BLOCK_NO_TEXT);
		CHECK_INT(blk->series, PS_SERIES_LOGHIST);
		CHECK_INT(blk->ncols, 3);
		CHECK(rows_with(rows, blk->nested) > 0);
		for (size_t i = 0; i < ps_json_len(rows); i++) {
			json_object *pts = ps_json_ptr(ps_json_at(rows, i), blk->nested);

			if (!pts)
				continue;
			CHECK(ps_json_ptr(ps_json_at(rows, i), blk->cols[0].path) != NULL);
			CHECK(ps_json_len(pts) > 0);
			CHECK(ps_json_ptr(ps_json_at(pts, 0), blk->cols[1].path) != NULL);
			CHECK(ps_json_ptr(ps_json_at(pts, 0), blk->cols[2].path) != NULL);
		}
	}
	CHECK_INT(tables, 4);
	CHECK_INT(series, 4);
	json_object_put(o);
	kc_recording_free(&rec);
}

int main(void)
{
	test_not_loaded();
	test_not_a_module();
	test_json();
	test_probes_by_name();
	test_nic_json();
	test_odd_names();
	test_future_probe();
	test_count_sum_bound();
	test_nr_cpus_bound();
	test_cpu_share();
	test_recorded_window_unhandled();
	test_text_shares();
	test_text();
	test_text_damaged();
	test_view_paths();
	return check_done("test_kcapture");
}
