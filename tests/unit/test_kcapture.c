/* test_kcapture.c - the "probes" object and text view built from module records (kcapture.c). */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "../../kmod/hist_layout.h"
#include "check.h"
#include "kcapture.h"

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, k, &v);
	return v;
}

static long long geti(json_object *o, const char *k)
{
	return json_object_get_int64(get(o, k));
}

static void test_not_loaded(void)
{
	json_object *o = ps_kcapture_stop(ps_kcapture_start(-1, PROBESTICK_KC_ALL));

	CHECK(!json_object_get_boolean(get(o, "available")));
	CHECK_STR(json_object_get_string(get(o, "reason")), "probestick.ko not loaded");
	json_object_put(o);
	o = ps_kcapture_stop(NULL);
	CHECK_STR(json_object_get_string(get(o, "reason")), "probestick.ko not loaded");
	json_object_put(o);
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

static struct probestick_kc_record *rec(struct probestick_kc_record *r, uint16_t metric,
					uint16_t cpu, uint32_t key, uint32_t dir, const char *name,
					uint64_t value, uint64_t n)
{
	memset(r, 0, sizeof(*r));
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

/* A window of hardirq + block + nic asked, nic failed to attach, softirq not asked. */
static json_object *sample(void)
{
	struct probestick_kc_probe p[4];
	struct probestick_kc_snapshot snap;
	static struct probestick_kc_record r[10];
	unsigned int n = 0;

	probe(&p[0], 0, "hardirq", PROBESTICK_KC_PROBE_AVAILABLE | PROBESTICK_KC_PROBE_ATTACHED,
	      NULL);
	probe(&p[1], 1, "softirq", PROBESTICK_KC_PROBE_AVAILABLE, NULL);
	probe(&p[2], 2, "block", PROBESTICK_KC_PROBE_AVAILABLE | PROBESTICK_KC_PROBE_ATTACHED,
	      NULL);
	probe(&p[3], 3, "nic", 0, "tracepoint napi_poll not in this kernel");
	memset(&snap, 0, sizeof(snap));
	snap.window_ns = 2500000000ULL;
	snap.nr_cpus = 2;
	snap.mask = PROBESTICK_KC_HARDIRQ | PROBESTICK_KC_BLOCK | PROBESTICK_KC_NIC;
	snap.attached = PROBESTICK_KC_HARDIRQ | PROBESTICK_KC_BLOCK;
	snap.drops.rq_unknown = 3;
	/* IRQ 24 on both CPUs, IRQ 30 busier on CPU 1 */
	rec(&r[n++], PROBESTICK_KC_M_HARDIRQ, 0, 24, 0, "virtio1-req.0", 5000, 30);
	rec(&r[n++], PROBESTICK_KC_M_HARDIRQ, 1, 30, 0, "nvme0q1", 2000, 500);
	rec(&r[n++], PROBESTICK_KC_M_HARDIRQ, 1, 24, 0, "virtio1-req.0", 9000, 10);
	/* vda (254:0) reads and writes, nvme0n1 (259:0) reads */
	rec(&r[n++], PROBESTICK_KC_M_BLOCK_LAT, 0xffff, 254u << 20, 0, "vda", 150000, 40);
	rec(&r[n++], PROBESTICK_KC_M_BLOCK_IRQ, 0xffff, 254u << 20, 0, "vda", 8000, 40);
	rec(&r[n++], PROBESTICK_KC_M_BLOCK_LAT, 0xffff, 254u << 20, 1, "vda", 300000, 5);
	rec(&r[n++], PROBESTICK_KC_M_BLOCK_LAT, 0xffff, 259u << 20, 0, "nvme0n1", 90000, 500);
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

	/* per-CPU records merged per line, per_cpu holds each CPU's count */
	lines = get(get(o, "hardirq"), "lines");
	CHECK_INT(json_object_array_length(lines), 2);
	l = json_object_array_get_idx(lines, 0);
	CHECK_INT(geti(l, "irq"), 24);
	CHECK_STR(json_object_get_string(get(l, "name")), "virtio1-req.0");
	CHECK_INT(geti(l, "count"), 40);
	CHECK_INT(geti(l, "max"), 9000);
	pc = get(l, "per_cpu");
	CHECK_INT(json_object_array_length(pc), 2);
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(pc, 0)), 30);
	CHECK_INT(json_object_get_int64(json_object_array_get_idx(pc, 1)), 10);
	CHECK_INT(json_object_array_length(get(l, "buckets")), 2);
	CHECK(geti(l, "p50") >= 5000 && geti(l, "p50") <= 5312);
	CHECK_INT(geti(l, "p99"), 9000);

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

static void test_nic_json(void)
{
	struct probestick_kc_probe p;
	struct probestick_kc_snapshot snap;
	static struct probestick_kc_record r[4];
	json_object *o, *devs, *d;

	probe(&p, 3, "nic", PROBESTICK_KC_PROBE_AVAILABLE | PROBESTICK_KC_PROBE_ATTACHED, NULL);
	memset(&snap, 0, sizeof(snap));
	snap.mask = snap.attached = PROBESTICK_KC_NIC;
	snap.nr_cpus = 1;
	/* eth0 in two namespaces with the same ifindex: two devices */
	rec(&r[0], PROBESTICK_KC_M_NIC_LAT, 0xffff, 2, 0, "eth0", 40000, 100);
	rec(&r[1], PROBESTICK_KC_M_NIC_WORK, 0xffff, 2, 64, "eth0", 1, 120);
	rec(&r[2], PROBESTICK_KC_M_NIC_PKTS, 0xffff, 2, 0, "eth0", 0, 0);
	r[2].extra[0] = 150;
	r[2].extra[1] = 140;
	strcpy(r[2].bus, "0000:00:02.0");
	rec(&r[3], PROBESTICK_KC_M_NIC_PKTS, 0xffff, 2, 0, "eth1", 0, 0);
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
	CHECK_INT(geti(d, "rx_packets"), 7);
	json_object_put(o);
}

static void test_text(void)
{
	json_object *o = sample();
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int lines = 0, first_irq = 0;

	ps_kcapture_text(f, o, 1);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		CHECK(strlen(line) <= 80);
		if (!first_irq && strstr(line, "nvme0q1"))
			first_irq = 1;
		CHECK(!strstr(line, "virtio1-req.0")); /* max_lines 1: only the busiest */
		lines++;
	}
	CHECK(first_irq);
	CHECK(lines >= 5);
	free(buf);
	json_object_put(o);

	o = ps_kcapture_unavailable("probestick.ko not loaded");
	buf = NULL;
	f = open_memstream(&buf, &len);
	ps_kcapture_text(f, o, 10);
	fclose(f);
	CHECK(strstr(buf, "unavailable (probestick.ko not loaded)") != NULL);
	free(buf);
	json_object_put(o);
}

int main(void)
{
	test_not_loaded();
	test_json();
	test_nic_json();
	test_text();
	return check_done("test_kcapture");
}
