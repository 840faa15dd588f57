/*
 * test_surface.c - the surface scan: its schedule (full, sampled with the first
 * and last GiB and 1 % between), latency buckets, the map and the slowest reads
 * (engines/io/surface.c); the step on a file drive whose chosen sectors fail as
 * QEMU's blkdebug fails them: exactly those LBAs, a weak spot recovered, the
 * scan going on, an abort keeping what was scanned, a drive that goes away.
 */
#include "check.h"
#include "step_harness.h"

#include "../../userland/steps/surface.c"

#include <stdlib.h>
#include <sys/stat.h>

#define MIB_ (1ULL << 20)
#define GIB_ (1ULL << 30)

static void check_sched(uint64_t size, bool full)
{
	struct ps_surface_sched s;
	uint64_t prev_end = 0, bytes = 0;

	CHECK_INT(ps_surface_schedule(&s, size, 1 << 20, 512, full, 1.0), 0);
	for (uint64_t i = 0; i < s.total; i++) {
		uint64_t off;
		uint32_t len;

		ps_surface_piece(&s, i, &off, &len);
		if (off < prev_end || off % 512 || len % 512 || !len || off + len > size) {
			fprintf(stderr, "size %llu piece %llu: off %llu len %u (prev end %llu)\n",
				(unsigned long long)size, (unsigned long long)i,
				(unsigned long long)off, len, (unsigned long long)prev_end);
			CHECK(0);
			return;
		}
		prev_end = off + len;
		bytes += len;
	}
	CHECK_INT(bytes, s.total_bytes);
	CHECK_INT(prev_end, size); /* the last byte is always read */
}

static void test_schedule(void)
{
	struct ps_surface_sched s;
	uint64_t off;
	uint32_t len;

	/* full: every byte, the last piece short */
	CHECK_INT(ps_surface_schedule(&s, 10 * MIB_ + 512, 1 << 20, 512, true, 1), 0);
	CHECK_INT(s.total, 11);
	CHECK_INT(s.total_bytes, 10 * MIB_ + 512);
	ps_surface_piece(&s, 10, &off, &len);
	CHECK_INT(off, 10 * MIB_);
	CHECK_INT(len, 512);
	check_sched(10 * MIB_ + 512, true);
	/* sampled, smaller than the two edges: the whole drive */
	CHECK_INT(ps_surface_schedule(&s, 64 * MIB_, 1 << 20, 512, false, 1), 0);
	CHECK_INT(s.total_bytes, 64 * MIB_);
	CHECK_INT(s.n_mid, 0);
	check_sched(64 * MIB_, false);
	/* 1.5 GiB: the first GiB and the rest, nothing between */
	CHECK_INT(ps_surface_schedule(&s, 3 * GIB_ / 2, 1 << 20, 512, false, 1), 0);
	CHECK_INT(s.total_bytes, 3 * GIB_ / 2);
	check_sched(3 * GIB_ / 2, false);
	/* 1000 GB: first and last GiB, and 1 % of the drive evenly spread between */
	CHECK_INT(ps_surface_schedule(&s, 1000000000000ULL, 1 << 20, 4096, false, 1), 0);
	CHECK_INT(s.n_head, 1024);
	CHECK_INT(s.n_tail, 1024);
	CHECK(s.n_mid * MIB_ >= 10000000000ULL);
	CHECK(s.n_mid * MIB_ < 10000000000ULL + MIB_);
	CHECK(s.total_bytes >= 2 * GIB_ + 10000000000ULL);
	check_sched(1000000000000ULL, false);
	{
		/* evenly spread: the gaps between middle pieces differ by at most one sector */
		uint64_t a, b, c;
		uint32_t l;

		ps_surface_piece(&s, 1024, &a, &l);
		ps_surface_piece(&s, 1025, &b, &l);
		ps_surface_piece(&s, 1026, &c, &l);
		CHECK((b - a) - (c - b) + 4096 <= 8192);
		CHECK(a > GIB_);
	}
	CHECK_INT(ps_surface_schedule(&s, 0, 1 << 20, 512, false, 1), -EINVAL);
	CHECK_INT(ps_surface_schedule(&s, 1 << 20, 1000, 512, false, 1), -EINVAL);
}

static void test_buckets_map(void)
{
	struct ps_surface_map m;
	struct ps_surface_slowest sl = {0};

	CHECK_INT(ps_surface_bucket(0), 0);
	CHECK_INT(ps_surface_bucket(4999999), 0);
	CHECK_INT(ps_surface_bucket(5000000), 1);
	CHECK_INT(ps_surface_bucket(19999999), 1);
	CHECK_INT(ps_surface_bucket(49999999), 2);
	CHECK_INT(ps_surface_bucket(149999999), 3);
	CHECK_INT(ps_surface_bucket(499999999), 4);
	CHECK_INT(ps_surface_bucket(500000000), 5);
	CHECK_INT(ps_surface_bucket(60000000000ULL), 5);
	CHECK_STR(ps_surface_bucket_name(5), ">=500 ms");
	CHECK_STR(ps_surface_bucket_key(PS_SURF_ERROR), "error");

	ps_surface_map_init(&m, 1000);
	CHECK_INT(ps_surface_cell_of(&m, 0), 0);
	CHECK_INT(ps_surface_cell_of(&m, 999), 99);
	CHECK_INT(ps_surface_cell_of(&m, 505), 50);
	ps_surface_map_add(&m, 505, 100, false);
	ps_surface_map_add(&m, 509, 300, false);
	ps_surface_map_add(&m, 501, 0, true);
	CHECK_INT(m.cell[50].reads, 3);
	CHECK_INT(m.cell[50].errors, 1);
	CHECK_INT(m.cell[50].worst_ns, 300);
	CHECK_INT(m.cell[50].sum_ns, 400);

	for (int i = 0; i < 30; i++)
		ps_surface_slowest_add(&sl, (uint64_t)i * 4096, 4096, (uint64_t)((i * 7) % 30));
	CHECK_INT(sl.n, PS_SURF_SLOWEST);
	CHECK_INT(sl.r[0].lat_ns, 29);
	CHECK_INT(sl.r[9].lat_ns, 20);
	for (size_t i = 1; i < sl.n; i++)
		CHECK(sl.r[i - 1].lat_ns >= sl.r[i].lat_ns);
}

/* ---- the step on a file drive ---- */

#define DRIVE_SIZE (24 * MIB_)

static char root[] = "/var/tmp/test_surface.XXXXXX";
static uint64_t bad_lba[4];
static size_t n_bad;
static uint64_t weak_lba = UINT64_MAX; /* fails once */
static int reads_until_gone = -1;
static int reads_until_abort = -1;
static volatile sig_atomic_t *abort_flag;
static int preads;

static ssize_t fault_pread(int fd, void *buf, size_t len, uint64_t off)
{
	uint64_t first = off / 512, last = (off + len - 1) / 512;

	preads++;
	if (reads_until_abort >= 0 && preads >= reads_until_abort && abort_flag)
		*abort_flag = 1;
	if (reads_until_gone >= 0 && preads > reads_until_gone)
		return -ENODEV;
	for (size_t i = 0; i < n_bad; i++)
		if (bad_lba[i] >= first && bad_lba[i] <= last)
			return -EIO;
	if (weak_lba >= first && weak_lba <= last) {
		weak_lba = UINT64_MAX;
		return -EIO;
	}
	return real_pread(fd, buf, len, off);
}

static struct ps_drive drv(const char *name, bool boot)
{
	struct ps_drive d = {.logical_sector = 512, .boot_device = boot, .size_bytes = DRIVE_SIZE};

	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.id, sizeof(d.id), "drive:test:%s", name);
	return d;
}

static void run_scan(struct harness *h, const struct ps_drive *d, size_t n, const char *mode)
{
	static struct ps_config cfg;

	ps_config_defaults(&cfg);
	ps_config_set(&cfg, "surface", mode, (char[128]){0}, 128);
	harness_init(h, &surface_ops, root, PS_PLAN_FULL);
	h->ctx.cfg = &cfg;
	h->inv.drives = calloc(n, sizeof(*d));
	memcpy(h->inv.drives, d, n * sizeof(*d));
	h->inv.n_drives = n;
	h->inv.taken = true;
	abort_flag = &h->abort_flag;
	preads = 0;
	harness_run(h);
}

static json_object *drive_data(struct harness *h, const char *name)
{
	json_object *ds = ps_json_arr(h->data, "drives");

	for (size_t i = 0; i < ps_json_len(ds); i++)
		if (strcmp(ps_json_str_or(ps_json_at(ds, i), "name", ""), name) == 0)
			return ps_json_at(ds, i);
	return NULL;
}

static int64_t num(json_object *o, const char *ptr)
{
	json_object *v = ps_json_ptr(o, ptr);

	return v ? json_object_get_int64(v) : -999;
}

static void test_scan(void)
{
	struct ps_drive d[] = {drv("disk", false), drv("stick", true)};
	struct harness h;
	json_object *x, *r;

	/* the boot test's sectors: blkdebug fails every read touching them */
	bad_lba[0] = 8192;
	bad_lba[1] = 40000;
	n_bad = 2;
	weak_lba = 20000;
	run_scan(&h, d, 2, "full");
	CHECK_INT(h.status, PS_FAIL);
	CHECK_STR(ps_json_str(h.data, "mode"), "full");
	CHECK(strstr(ps_json_str(h.data, "retry_policy"), "single logical sectors") != NULL);
	x = drive_data(&h, "disk");
	CHECK_INT(num(x, "/reads"), 24);
	CHECK_INT(num(x, "/scanned_bytes"), DRIVE_SIZE);
	CHECK(ps_json_bool(x, "complete") == 1);
	CHECK(ps_json_get(x, "stopped_at_lba") == NULL);
	/* exactly the failing LBAs, not the pieces around them */
	r = ps_json_arr(x, "bad_ranges");
	CHECK_INT(ps_json_len(r), 2);
	CHECK_INT(num(ps_json_at(r, 0), "/lba_first"), 8192);
	CHECK_INT(num(ps_json_at(r, 0), "/lba_last"), 8192);
	CHECK_INT(num(ps_json_at(r, 1), "/lba_first"), 40000);
	CHECK_INT(num(ps_json_at(r, 1), "/lba_last"), 40000);
	CHECK_INT(num(x, "/bad_sectors"), 2);
	/* three pieces failed: two bad, one weak that read when split */
	CHECK_INT(num(x, "/buckets/error"), 3);
	CHECK_INT(num(x, "/recovered"), 1);
	CHECK_INT(num(x, "/buckets/lt5_ms") + num(x, "/buckets/lt20_ms") +
		      num(x, "/buckets/lt50_ms") + num(x, "/buckets/lt150_ms") +
		      num(x, "/buckets/lt500_ms") + num(x, "/buckets/ge500_ms"),
		  21);
	CHECK_INT(harness_count(&h, "surface.unreadable", "fail"), 2);
	CHECK_INT(harness_count(&h, "surface.recovered", "warn"), 1);
	/* the map: one cell per 1 % of the drive that had a read, errors marked */
	CHECK(ps_json_len(ps_json_arr(x, "map")) >= 20);
	CHECK(ps_json_len(ps_json_arr(x, "slowest")) == PS_SURF_SLOWEST);
	CHECK_STR(ps_json_str(drive_data(&h, "stick"), "skipped_reason"),
		  "the boot stick: never touched");
	harness_done(&h);

	/* sampled (the default) on a drive smaller than its two edges: all of it */
	n_bad = 0;
	run_scan(&h, d, 1, "sampled");
	CHECK_INT(h.status, PS_PASS);
	x = drive_data(&h, "disk");
	CHECK_INT(num(x, "/scanned_bytes"), DRIVE_SIZE);
	CHECK_STR(ps_json_str(h.data, "mode"), "sampled");
	CHECK_INT(ps_json_len(h.verdicts), 1);
	harness_done(&h);

	/* abort: what was scanned stays, and where it stopped */
	reads_until_abort = 5;
	run_scan(&h, d, 1, "full");
	reads_until_abort = -1;
	CHECK_INT(h.status, PS_ABORTED);
	x = drive_data(&h, "disk");
	CHECK(ps_json_bool(x, "complete") == 0);
	CHECK_INT(num(x, "/scanned_bytes"), 5 * MIB_);
	CHECK_INT(num(x, "/stopped_at_lba"), 5 * 2048); /* the first LBA not read */
	CHECK(strstr(ps_json_str(x, "stop_reason"), "aborted") != NULL);
	harness_done(&h);

	/* the drive goes away: a finding, the figures so far, the step goes on */
	reads_until_gone = 3;
	run_scan(&h, d, 1, "full");
	reads_until_gone = -1;
	x = drive_data(&h, "disk");
	CHECK_INT(harness_count(&h, "surface.drive_gone", "fail"), 1);
	CHECK(ps_json_bool(x, "complete") == 0);
	CHECK_INT(num(x, "/reads"), 4);
	/* pieces 0-2 were read, the fourth read (LBA 6144) found the drive gone */
	CHECK_INT(num(x, "/stopped_at_lba"), 3 * 2048);
	CHECK(strstr(ps_json_str(x, "stop_reason"), "went away at LBA 6144") != NULL);
	harness_done(&h);
}

int main(void)
{
	char p[4200];
	FILE *f;

	alarm(120);
	test_schedule();
	test_buckets_map();
	CHECK(mkdtemp(root) != NULL);
	snprintf(p, sizeof(p), "%s/dev", root);
	CHECK(mkdir(p, 0755) == 0);
	snprintf(p, sizeof(p), "%s/dev/disk", root);
	f = fopen(p, "w");
	CHECK(f && ftruncate(fileno(f), (off_t)DRIVE_SIZE) == 0);
	if (f)
		fclose(f);
	surface_pread = fault_pread;
	test_scan();
	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	CHECK(system(p) == 0);
	return check_done("test_surface");
}
