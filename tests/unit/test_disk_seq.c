/* test_disk_seq.c - the disk_seq step on a fixture report whose drives are
 * regular files under a temp root: targets and skips, the data fields, quick
 * and full plans, read errors with their LBAs, the O_DIRECT fallback, abort. */
#include "check.h"

#include "../../userland/steps/disk_seq.c"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#define GOOD_SIZE (8 * 1048576 + 5000)

static char root[] = "/var/tmp/test_disk_seq.XXXXXX";

static void make_data_file(const char *name, size_t size)
{
	char p[4200], buf[65536];
	FILE *f;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 13 + 1);
	snprintf(p, sizeof(p), "%s/dev/%s", root, name);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	for (size_t left = size; left > 0;) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		CHECK(fwrite(buf, 1, n, f) == n);
		left -= n;
	}
	fclose(f);
}

static json_object *drive(const char *name, long long size, bool boot, bool removable)
{
	json_object *d = json_object_new_object();

	json_object_object_add(d, "name", json_object_new_string(name));
	json_object_object_add(d, "size_bytes", size < 0 ? NULL : json_object_new_int64(size));
	json_object_object_add(d, "logical_sector", json_object_new_int(512));
	json_object_object_add(d, "removable", json_object_new_boolean(removable));
	json_object_object_add(d, "boot_device", json_object_new_boolean(boot));
	return d;
}

struct run {
	json_object *report, *step, *findings, *data;
	volatile sig_atomic_t abort_flag;
	int status;
	double seconds;
};

static void run_step(struct run *r, const char *plan, json_object *drives)
{
	struct ps_ctx ctx;
	struct timespec a, b;

	r->report = json_object_new_object();
	r->step = json_object_new_object();
	r->findings = json_object_new_array();
	json_object_object_add(r->report, "plan", json_object_new_string(plan));
	json_object_object_add(r->report, "drives", drives);
	json_object_object_add(r->step, "data", json_object_new_object());
	json_object_object_add(r->step, "findings", r->findings);
	ctx = (struct ps_ctx){
	    .root = root,
	    .report = r->report,
	    .step = r->step,
	    .findings = r->findings,
	    .module_fd = -1,
	    .abort_flag = &r->abort_flag,
	};
	clock_gettime(CLOCK_MONOTONIC, &a);
	r->status = disk_seq_ops.run(&ctx);
	clock_gettime(CLOCK_MONOTONIC, &b);
	r->seconds = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	r->data = json_object_object_get(r->step, "data");
}

static void done(struct run *r)
{
	json_object_put(r->report);
	json_object_put(r->step);
}

static json_object *data_drive(struct run *r, const char *name)
{
	json_object *ds = json_object_object_get(r->data, "drives");

	for (size_t i = 0; i < json_object_array_length(ds); i++) {
		json_object *d = json_object_array_get_idx(ds, i);

		if (strcmp(ps_json_str(d, "name"), name) == 0)
			return d;
	}
	return NULL;
}

static size_t count_rule(json_object *findings, const char *rule, const char *severity)
{
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(findings); i++) {
		json_object *f = json_object_array_get_idx(findings, i);

		n += strcmp(ps_json_str(f, "rule"), rule) == 0 &&
		     strcmp(ps_json_str(f, "severity"), severity) == 0;
	}
	return n;
}

static double dbl(json_object *o, const char *key)
{
	return json_object_get_double(json_object_object_get(o, key));
}

/* One results[] entry: internal consistency of the figures. */
static void check_result(json_object *res, int bs, int qd, size_t runs, long long bytes)
{
	json_object *rm = json_object_object_get(res, "runs_mbps");
	json_object *lat = json_object_object_get(res, "lat_us");

	CHECK_INT(json_object_get_int(json_object_object_get(res, "bs")), bs);
	CHECK_INT(json_object_get_int(json_object_object_get(res, "qd")), qd);
	CHECK_INT(json_object_array_length(rm), runs);
	if (bytes >= 0)
		CHECK_INT(json_object_get_int64(json_object_object_get(res, "bytes")), bytes);
	CHECK(dbl(res, "min_mbps") > 0);
	CHECK(dbl(res, "min_mbps") <= dbl(res, "median_mbps"));
	CHECK(dbl(res, "median_mbps") <= dbl(res, "max_mbps"));
	CHECK(dbl(res, "cv_pct") >= 0);
	CHECK(dbl(res, "iops") > 0);
	CHECK(lat != NULL);
	CHECK(dbl(lat, "p50") > 0);
	CHECK(dbl(lat, "p50") <= dbl(lat, "p90"));
	CHECK(dbl(lat, "p90") <= dbl(lat, "p99"));
	CHECK(dbl(lat, "p99") <= dbl(lat, "p99_9"));
	CHECK(dbl(lat, "p99_9") <= dbl(lat, "max"));
}

static void test_quick_targets(void)
{
	json_object *drives = json_object_new_array(), *d, *res;
	struct run r = {0};

	json_object_array_add(drives, drive("good", GOOD_SIZE, false, false));
	json_object_array_add(drives, drive("stick", 1 << 30, true, true));
	json_object_array_add(drives, drive("cdrom", 0, false, true));
	json_object_array_add(drives, drive("chr", -1, false, false));
	json_object_array_add(drives, drive("gone", 1 << 20, false, false));
	json_object_array_add(drives, drive("tiny", 1000, false, false));
	run_step(&r, "quick", drives);

	/* the missing drive is a warning; an unstable run could add one too */
	CHECK_INT(r.status, PS_WARN);
	CHECK_STR(ps_json_str(r.data, "plan"), "quick");
	CHECK_INT(json_object_array_length(json_object_object_get(r.data, "drives")), 6);

	d = data_drive(&r, "good");
	CHECK(d && !json_object_object_get_ex(d, "skipped_reason", NULL));
	CHECK_INT(json_object_array_length(json_object_object_get(d, "results")), 1);
	res = json_object_array_get_idx(json_object_object_get(d, "results"), 0);
	/* every run reads the whole (small) drive, wrapping from its own start */
	check_result(res, 1048576, 8, 3, 3LL * GOOD_SIZE);
	CHECK(json_object_get_boolean(json_object_object_get(res, "direct")));
	CHECK_INT(json_object_array_length(json_object_object_get(d, "errors")), 0);
	CHECK(!json_object_object_get_ex(d, "cached_mbps", NULL));
	CHECK_INT(json_object_get_int64(json_object_object_get(d, "size_bytes")), GOOD_SIZE);

	CHECK_STR(ps_json_str(data_drive(&r, "stick"), "skipped_reason"),
		  "the boot stick: never touched");
	CHECK_STR(ps_json_str(data_drive(&r, "cdrom"), "skipped_reason"),
		  "removable media absent (size 0)");
	CHECK(strstr(ps_json_str(data_drive(&r, "chr"), "skipped_reason"),
		     "is not a regular file") != NULL);
	CHECK(strstr(ps_json_str(data_drive(&r, "gone"), "skipped_reason"),
		     "No such file or directory") != NULL);
	CHECK_STR(ps_json_str(data_drive(&r, "tiny"), "skipped_reason"),
		  "1000 bytes: less than one 4 KiB block");
	CHECK_INT(count_rule(r.findings, "open_failed", "warn"), 1);
	CHECK_INT(count_rule(r.findings, "read_error", "fail"), 0);
	done(&r);
}

static void test_full_plan(void)
{
	static const int matrix[][2] = {{4096, 1},   {16384, 1},   {65536, 1},
					{262144, 1}, {1048576, 1}, {1048576, 8}};
	json_object *drives = json_object_new_array(), *d, *results;
	struct run r = {0};

	json_object_array_add(drives, drive("good", GOOD_SIZE, false, false));
	run_step(&r, "full", drives);
	CHECK(r.status == PS_PASS || r.status == PS_WARN);
	CHECK_INT(count_rule(r.findings, "unstable_throughput", "info") > 0, r.status == PS_WARN);
	CHECK_STR(ps_json_str(r.data, "plan"), "full");
	d = data_drive(&r, "good");
	results = json_object_object_get(d, "results");
	CHECK_INT(json_object_array_length(results), 6);
	for (size_t i = 0; i < 6 && i < json_object_array_length(results); i++)
		check_result(json_object_array_get_idx(results, i), matrix[i][0], matrix[i][1], 5,
			     5LL * GOOD_SIZE);
	CHECK(dbl(d, "buffered_mbps") > 0);
	CHECK(dbl(d, "cached_mbps") > 0);
	done(&r);
}

/* Fault hooks: EIO on chosen pieces; or O_DIRECT reads that fail with EINVAL. */
struct step_faults {
	uint64_t eio_from, eio_to; /* pieces starting in [from, to) fail */
	bool einval_direct, last_open_direct;
	int opens;
};

static int sf_open(void *arg, const char *p, int flags)
{
	struct step_faults *f = arg;

	f->opens++;
	f->last_open_direct = flags & O_DIRECT;
	return 0;
}

static int sf_complete(void *arg, uint64_t off, unsigned int len, int res)
{
	struct step_faults *f = arg;

	if (f->einval_direct && f->last_open_direct)
		return -EINVAL;
	if (off >= f->eio_from && off < f->eio_to)
		return -EIO;
	return res;
}

static void test_read_error(void)
{
	struct step_faults f = {.eio_from = 1048576, .eio_to = 1048577};
	struct ps_uio_faults hooks = {.open = sf_open, .complete = sf_complete, .arg = &f};
	json_object *drives = json_object_new_array(), *d, *errs, *e, *res;
	struct run r = {0};

	disk_seq_faults = &hooks;
	json_object_array_add(drives, drive("good", GOOD_SIZE, false, false));
	run_step(&r, "quick", drives);
	CHECK_INT(r.status, PS_FAIL);
	d = data_drive(&r, "good");
	errs = json_object_object_get(d, "errors");
	/* three runs hit the same 1 MiB piece: one entry, counted three times */
	CHECK_INT(json_object_array_length(errs), 1);
	CHECK_INT(json_object_get_int(json_object_object_get(d, "errors_total")), 1);
	e = json_object_array_get_idx(errs, 0);
	CHECK_INT(json_object_get_int64(json_object_object_get(e, "lba")), 2048);
	CHECK_INT(json_object_get_int64(json_object_object_get(e, "lba_count")), 2048);
	CHECK_INT(json_object_get_int64(json_object_object_get(e, "offset")), 1048576);
	CHECK_INT(json_object_get_int(json_object_object_get(e, "count")), 3);
	CHECK_INT(json_object_get_int(json_object_object_get(e, "errno")), EIO);
	CHECK_STR(ps_json_str(e, "pass"), "o_direct bs=1M qd=8");
	CHECK_INT(count_rule(r.findings, "read_error", "fail"), 1);
	CHECK(strstr(ps_json_str(json_object_array_get_idx(r.findings, 0), "message"),
		     "LBA 2048-4095") != NULL);
	/* the run went on past the bad piece */
	res = json_object_array_get_idx(json_object_object_get(d, "results"), 0);
	CHECK_INT(json_object_get_int64(json_object_object_get(res, "bytes")),
		  3LL * (GOOD_SIZE - 1048576));
	done(&r);

	/* A bad region: findings stop at MAX_ERROR_FINDINGS, then one with the count. */
	f = (struct step_faults){.eio_from = 0, .eio_to = 6 * 1048576};
	drives = json_object_new_array();
	json_object_array_add(drives, drive("good", GOOD_SIZE, false, false));
	run_step(&r, "full", drives);
	CHECK_INT(r.status, PS_FAIL);
	d = data_drive(&r, "good");
	CHECK_INT(json_object_array_length(json_object_object_get(d, "errors")), MAX_ERROR_ENTRIES);
	CHECK(json_object_get_int(json_object_object_get(d, "errors_total")) > MAX_ERROR_ENTRIES);
	CHECK_INT(count_rule(r.findings, "read_error", "fail"), MAX_ERROR_FINDINGS + 1);
	done(&r);
	disk_seq_faults = NULL;
}

static void test_direct_refused(void)
{
	struct step_faults f = {.einval_direct = true};
	struct ps_uio_faults hooks = {.open = sf_open, .complete = sf_complete, .arg = &f};
	json_object *drives = json_object_new_array(), *res;
	struct run r = {0};

	disk_seq_faults = &hooks;
	json_object_array_add(drives, drive("good", GOOD_SIZE, false, false));
	run_step(&r, "quick", drives);
	disk_seq_faults = NULL;
	CHECK(r.status == PS_PASS || r.status == PS_WARN);
	CHECK_INT(f.opens, 2);
	res =
	    json_object_array_get_idx(json_object_object_get(data_drive(&r, "good"), "results"), 0);
	CHECK(res != NULL);
	CHECK(!json_object_get_boolean(json_object_object_get(res, "direct")));
	check_result(res, 1048576, 8, 3, 3LL * GOOD_SIZE);
	done(&r);
}

static void test_abort_and_nothing(void)
{
	json_object *drives = json_object_new_array(), *d;
	struct run r = {.abort_flag = 1};

	json_object_array_add(drives, drive("good", GOOD_SIZE, false, false));
	json_object_array_add(drives, drive("good2", GOOD_SIZE, false, false));
	run_step(&r, "full", drives);
	CHECK_INT(r.status, PS_ABORTED);
	CHECK(r.seconds < 1.0);
	/* stopped within the first drive: the second is not reached */
	CHECK_INT(json_object_array_length(json_object_object_get(r.data, "drives")), 1);
	d = data_drive(&r, "good");
	CHECK(json_object_array_length(json_object_object_get(d, "results")) <= 1);
	done(&r);

	drives = json_object_new_array();
	json_object_array_add(drives, drive("stick", 1 << 30, true, true));
	r = (struct run){0};
	run_step(&r, "quick", drives);
	CHECK_INT(r.status, PS_SKIPPED);
	CHECK(strstr(ps_json_str(r.step, "reason"), "no drive") != NULL);
	done(&r);
}

int main(void)
{
	char p[4200];

	/* A regression that opens the boot stick blocks on its FIFO: fail, not hang. */
	alarm(120);
	CHECK(mkdtemp(root) != NULL);
	snprintf(p, sizeof(p), "%s/dev", root);
	CHECK(mkdir(p, 0755) == 0);
	make_data_file("good", GOOD_SIZE);
	make_data_file("good2", GOOD_SIZE);
	make_data_file("cdrom", 0);
	make_data_file("tiny", 1000);
	snprintf(p, sizeof(p), "%s/dev/stick", root);
	CHECK(mkfifo(p, 0600) == 0);
	snprintf(p, sizeof(p), "%s/dev/chr", root);
	CHECK(symlink("/dev/null", p) == 0);

	test_quick_targets();
	test_full_plan();
	test_read_error();
	test_direct_refused();
	test_abort_and_nothing();

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	CHECK(system(p) == 0);
	return check_done("test_disk_seq");
}
