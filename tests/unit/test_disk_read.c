/* test_disk_read.c - the disk_read step on drives that are regular files under
 * a temp root: targets and skips, the data fields, the quick subset and the
 * full matrix, the warm-up run kept out of the figures, regions spread over
 * the drive, user-side latency of every request, read errors with their LBAs,
 * the O_DIRECT fallback, abort. (It replaces disk_seq's test.) */
#include "check.h"
#include "tree.h"
#include "step_harness.h"

#include "../../userland/steps/disk_read.c"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#define GOOD_SIZE (8 * 1048576 + 5000)

static char root[] = "/var/tmp/test_disk_read.XXXXXX";

static void make_data_file(const char *name, size_t size)
{
	char p[64];

	snprintf(p, sizeof(p), "/dev/%s", name);
	CHECK(tree_fill(root, p, size, 13, 1));
}

static struct ps_drive drive(const char *name, long long size, bool boot, bool removable)
{
	struct ps_drive d = {.logical_sector = 512, .boot_device = boot};

	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.id, sizeof(d.id), "drive:sn:test:%s", name);
	d.size_bytes = size;
	d.removable = removable;
	return d;
}

struct run {
	struct harness h;
	json_object *data, *findings;
	volatile sig_atomic_t abort_flag;
	int status;
	double seconds;
};

static void run_step(struct run *r, const char *plan, const struct ps_drive *drives, size_t n)
{
	struct timespec a, b;

	harness_init(&r->h, &disk_read_ops, root,
		     strcmp(plan, "full") == 0 ? PS_PLAN_FULL : PS_PLAN_QUICK);
	r->h.inv.drives = calloc(n, sizeof(*drives));
	memcpy(r->h.inv.drives, drives, n * sizeof(*drives));
	r->h.inv.n_drives = n;
	r->h.inv.taken = true;
	r->h.abort_flag = r->abort_flag;
	clock_gettime(CLOCK_MONOTONIC, &a);
	r->status = harness_run(&r->h);
	clock_gettime(CLOCK_MONOTONIC, &b);
	r->seconds = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	r->data = r->h.data;
	r->findings = r->h.run.findings;
}

static void done(struct run *r)
{
	harness_done(&r->h);
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

static size_t count_rule(struct run *r, const char *rule, const char *severity)
{
	char full[64];

	snprintf(full, sizeof(full), "disk_read.%s", rule);
	return harness_count(&r->h, full, severity);
}

static double dbl(json_object *o, const char *key)
{
	return json_object_get_double(json_object_object_get(o, key));
}

/* Runs of one results[] entry: the plan's, or more while they varied (the noise rule). */
static size_t runs_of(json_object *res)
{
	return json_object_array_length(json_object_object_get(res, "runs_mbps"));
}

/*
 * One results[] entry: internal consistency of the figures. runs is the
 * plan's count: the noise rule may add runs up to max_runs, each reading
 * bytes_per_run (-1: unknown, a random point stops at its time budget).
 */
static void check_result(json_object *res, const char *pattern, int bs, int qd, size_t runs,
			 size_t max_runs, long long bytes_per_run)
{
	json_object *lat = json_object_object_get(res, "lat_us");
	size_t n = runs_of(res);

	CHECK_STR(ps_json_str(res, "pattern"), pattern);
	CHECK_INT(json_object_get_int(json_object_object_get(res, "bs")), bs);
	CHECK_INT(json_object_get_int(json_object_object_get(res, "qd")), qd);
	/* the warm-up run is reported beside the runs, not among them */
	CHECK(n >= runs && n <= max_runs);
	CHECK_INT(json_object_get_int(json_object_object_get(res, "extra_runs")), n - runs);
	/* extra runs stop early only once the spread is below the limit: then it is not noisy */
	CHECK(json_object_is_type(json_object_object_get(res, "noisy"), json_type_boolean));
	if (n < max_runs)
		CHECK(!json_object_get_boolean(json_object_object_get(res, "noisy")));
	CHECK(dbl(res, "warmup_mbps") > 0);
	if (bytes_per_run >= 0 &&
	    !json_object_get_boolean(json_object_object_get(res, "time_limited")))
		CHECK_INT(json_object_get_int64(json_object_object_get(res, "bytes")),
			  (long long)n * bytes_per_run);
	else if (bytes_per_run >= 0) /* a run cut by its time budget (a busy machine) says so */
		CHECK(json_object_get_int64(json_object_object_get(res, "bytes")) > 0 &&
		      json_object_get_int64(json_object_object_get(res, "bytes")) <
			  (long long)n * bytes_per_run);
	else
		CHECK(json_object_get_int64(json_object_object_get(res, "bytes")) > 0);
	CHECK(dbl(res, "min_mbps") > 0);
	CHECK(dbl(res, "min_mbps") <= dbl(res, "median_mbps"));
	CHECK(dbl(res, "median_mbps") <= dbl(res, "max_mbps"));
	CHECK(dbl(res, "cv_pct") >= 0);
	CHECK(dbl(res, "iops") > 0);
	CHECK(dbl(res, "median_iops") > 0);
	CHECK(lat != NULL);
	CHECK(dbl(lat, "p50") > 0);
	CHECK(dbl(lat, "p50") <= dbl(lat, "p90"));
	CHECK(dbl(lat, "p90") <= dbl(lat, "p99"));
	CHECK(dbl(lat, "p99") <= dbl(lat, "p99_9"));
	CHECK(dbl(lat, "p99_9") <= dbl(lat, "max"));
}

/* user_latency counts every request of the measured runs, none of the warm-ups. */
static void check_user_latency(json_object *d)
{
	json_object *res = ps_json_arr(d, "results"), *ul = ps_json_get(d, "user_latency");
	int64_t ios = 0, count = -1, v;

	for (size_t i = 0; i < ps_json_len(res); i++)
		if (ps_json_int(ps_json_at(res, i), "ios", &v))
			ios += v;
	CHECK(ul != NULL);
	CHECK(ps_json_int(ul, "count", &count) && count == ios);
	CHECK_STR(ps_json_str(ul, "unit"), "ns");
	CHECK(ps_json_int(ul, "p50", &v) && v > 0);
}

static void test_quick_targets(void)
{
	struct ps_drive drives[] = {
	    drive("good", GOOD_SIZE, false, false), drive("stick", 1 << 30, true, true),
	    drive("cdrom", 0, false, true),	    drive("chr", -1, false, false),
	    drive("gone", 1 << 20, false, false),   drive("tiny", 1000, false, false)};
	json_object *d, *res, *v;
	struct run r = {0};

	run_step(&r, "quick", drives, PS_ARRAY_SIZE(drives));

	/* the step passes; the missing drive is a warning finding, so the core says warn */
	CHECK_INT(r.status, PS_PASS);
	CHECK_INT(ps_findings_worst(r.findings), PS_SEV_WARN);
	CHECK_STR(ps_json_str(r.data, "plan"), "quick");
	CHECK_INT(json_object_array_length(json_object_object_get(r.data, "drives")), 6);

	d = data_drive(&r, "good");
	CHECK(d && !json_object_object_get_ex(d, "skipped_reason", NULL));
	/* the quick subset: sequential 1M at QD8, random 4K at QD32 */
	CHECK_INT(json_object_array_length(json_object_object_get(d, "results")), 2);
	res = json_object_array_get_idx(json_object_object_get(d, "results"), 0);
	/* every run reads the whole (small) drive, wrapping from its own start */
	check_result(res, "seq", 1048576, 8, 3, 5, GOOD_SIZE);
	res = json_object_array_get_idx(json_object_object_get(d, "results"), 1);
	check_result(res, "rand", 4096, 32, 3, 5, -1);
	CHECK(dbl(d, "rand_iops") == dbl(res, "median_iops"));
	res = json_object_array_get_idx(json_object_object_get(d, "results"), 0);
	CHECK(dbl(d, "seq_mbps") == dbl(res, "median_mbps"));
	check_user_latency(d);
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
	CHECK_INT(count_rule(&r, "open_failed", "warn"), 1);
	CHECK_INT(count_rule(&r, "read_error", "fail"), 0);
	/* verdicts: good measured (pass), gone could not be opened (warn) */
	CHECK_INT(ps_json_len(r.h.verdicts), 2);
	v = ps_json_at(r.h.verdicts, 0);
	CHECK_STR(ps_json_str(v, "subject"), "good");
	CHECK_STR(ps_json_str(v, "status"), "pass");
	CHECK_STR(ps_json_str(v, "rule"), "disk_read.measured");
	/* the verdict names the runs its medians are of, the noise rule's extra runs counted */
	{
		json_object *res = json_object_object_get(data_drive(&r, "good"), "results");
		size_t n[2] = {0, 0};
		char want[96];

		for (size_t i = 0; i < json_object_array_length(res); i++) {
			json_object *x = json_object_array_get_idx(res, i);
			int bs = json_object_get_int(json_object_object_get(x, "bs"));
			int qd = json_object_get_int(json_object_object_get(x, "qd"));

			if (!strcmp(ps_json_str(x, "pattern"), "seq") && bs == 1 << 20 && qd == 8)
				n[0] = runs_of(x);
			else if (!strcmp(ps_json_str(x, "pattern"), "rand") && bs == 4096 &&
				 qd == 32)
				n[1] = runs_of(x);
		}
		CHECK(n[0] > 0 && n[1] > 0);
		if (n[0] == n[1])
			snprintf(want, sizeof(want), "(medians of %zu runs)", n[0]);
		else
			snprintf(want, sizeof(want), "(medians of %zu and %zu runs)", n[0], n[1]);
		CHECK(strstr(ps_json_str(v, "message"), want) != NULL);
	}
	CHECK_STR(ps_json_str(d, "device"), "drive:sn:test:good");
	v = ps_json_at(r.h.verdicts, 1);
	CHECK_STR(ps_json_str(v, "subject"), "gone");
	CHECK_STR(ps_json_str(v, "status"), "warn");
	done(&r);
}

static void test_full_plan(void)
{
	static const struct {
		const char *pattern;
		int bs, qd;
	} matrix[] = {{"seq", 1048576, 8}, {"seq", 1048576, 1}, {"seq", 262144, 1},
		      {"seq", 65536, 1},   {"seq", 16384, 1},	{"seq", 4096, 1},
		      {"rand", 4096, 32},  {"rand", 4096, 1}};
	struct ps_drive drives[] = {drive("good", GOOD_SIZE, false, false)};
	json_object *d, *results;
	struct run r = {0};

	run_step(&r, "full", drives, 1);
	/* an unstable run is information: the step still passes */
	CHECK_INT(r.status, PS_PASS);
	CHECK(ps_findings_worst(r.findings) < PS_SEV_WARN);
	CHECK_STR(ps_json_str(r.data, "plan"), "full");
	d = data_drive(&r, "good");
	results = json_object_object_get(d, "results");
	CHECK_INT(json_object_array_length(results), 8);
	for (size_t i = 0; i < 8 && i < json_object_array_length(results); i++)
		check_result(json_object_array_get_idx(results, i), matrix[i].pattern, matrix[i].bs,
			     matrix[i].qd, 5, 10,
			     strcmp(matrix[i].pattern, "seq") == 0 ? GOOD_SIZE : -1);
	check_user_latency(d);
	CHECK(dbl(d, "buffered_mbps") > 0);
	CHECK(dbl(d, "cached_mbps") > 0);
	done(&r);
}

/* Fault hooks: EIO on chosen pieces; or O_DIRECT reads that fail with EINVAL. */
struct step_faults {
	uint64_t eio_from, eio_to; /* pieces starting in [from, to) fail */
	unsigned int eio_max_len;  /* ... when they are at most this long (0: any) */
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
	if (off >= f->eio_from && off < f->eio_to && (!f->eio_max_len || len <= f->eio_max_len))
		return -EIO;
	return res;
}

static void test_read_error(void)
{
	struct step_faults f = {.eio_from = 1048576, .eio_to = 1048577};
	struct ps_uio_faults hooks = {.open = sf_open, .complete = sf_complete, .arg = &f};
	struct ps_drive drives[] = {drive("good", GOOD_SIZE, false, false)};
	json_object *d, *errs, *e, *res, *br;
	struct run r = {0};
	double num;

	disk_read_faults = &hooks;
	run_step(&r, "quick", drives, 1);
	CHECK_INT(r.status, PS_FAIL);
	d = data_drive(&r, "good");
	errs = json_object_object_get(d, "errors");
	/* the warm-up and three runs hit the same 1 MiB piece: one entry, one range failed
	 * at least four times (random reads may land on it too) */
	CHECK_INT(json_object_array_length(errs), 1);
	CHECK_INT(json_object_get_int(json_object_object_get(d, "bad_sectors")), 2048);
	br = ps_json_at(ps_json_arr(d, "bad_ranges"), 0);
	CHECK_INT(ps_json_len(ps_json_arr(d, "bad_ranges")), 1);
	CHECK_INT(json_object_get_int64(ps_json_get(br, "lba_first")), 2048);
	CHECK_INT(json_object_get_int64(ps_json_get(br, "lba_last")), 4095);
	CHECK(json_object_get_int(ps_json_get(br, "hits")) >= 4);
	e = json_object_array_get_idx(errs, 0);
	CHECK_INT(json_object_get_int64(json_object_object_get(e, "lba")), 2048);
	CHECK_INT(json_object_get_int64(json_object_object_get(e, "lba_count")), 2048);
	CHECK_INT(json_object_get_int64(json_object_object_get(e, "offset")), 1048576);
	CHECK_INT(json_object_get_int(json_object_object_get(e, "errno")), EIO);
	CHECK(ps_json_num(json_object_array_get_idx(r.findings, 0), "value", &num) && num == 2048);
	CHECK_STR(ps_json_str(e, "pass"), "o_direct seq bs=1M qd=8");
	CHECK_INT(count_rule(&r, "read_error", "fail"), 1);
	CHECK(strstr(ps_json_str(json_object_array_get_idx(r.findings, 0), "message"),
		     "LBA 2048-4095") != NULL);
	/* the run went on past the bad piece */
	res = json_object_array_get_idx(json_object_object_get(d, "results"), 0);
	CHECK_INT(json_object_get_int64(json_object_object_get(res, "bytes")),
		  (long long)runs_of(res) * (GOOD_SIZE - 1048576));
	done(&r);

	/* A bad region that fails the small reads (64K and below) of the full matrix:
	 * findings stop at MAX_ERROR_FINDINGS, then one with the count. */
	f = (struct step_faults){.eio_from = 0, .eio_to = 6 * 1048576, .eio_max_len = 65536};
	r = (struct run){0};
	run_step(&r, "full", drives, 1);
	CHECK_INT(r.status, PS_FAIL);
	d = data_drive(&r, "good");
	CHECK_INT(json_object_array_length(json_object_object_get(d, "errors")), MAX_ERROR_ENTRIES);
	/* the pieces of every pass merge into one range of distinct sectors */
	CHECK_INT(ps_json_len(ps_json_arr(d, "bad_ranges")), 1);
	CHECK(json_object_get_int(json_object_object_get(d, "bad_sectors")) >= 6 * 2048);
	CHECK_INT(count_rule(&r, "read_error", "fail"), MAX_ERROR_FINDINGS + 1);
	done(&r);
	disk_read_faults = NULL;
}

/* Where the random 4K reads land: every run draws from the whole drive, not
 * from its own region on (run 3 of 3 would see only the last sixth). */
struct spread {
	unsigned long low, all;
};

static int spread_complete(void *arg, uint64_t off, unsigned int len, int res)
{
	struct spread *s = arg;

	if (len == 4096) {
		s->all++;
		s->low += off < GOOD_SIZE / 2;
	}
	return res;
}

static void test_random_spans_drive(void)
{
	struct spread s = {0};
	struct ps_uio_faults hooks = {.complete = spread_complete, .arg = &s};
	struct ps_drive drives[] = {drive("good", GOOD_SIZE, false, false)};
	struct run r = {0};

	disk_read_faults = &hooks;
	run_step(&r, "quick", drives, 1);
	disk_read_faults = NULL;
	CHECK_INT(r.status, PS_PASS);
	CHECK(s.all > 1000);
	/* half the drive is below GOOD_SIZE / 2: 40-60 % of the reads (about 22 % when
	 * the runs drew from [run offset, size)) */
	CHECK(s.low * 10 >= s.all * 4 && s.low * 10 <= s.all * 6);
	done(&r);
}

static void test_direct_refused(void)
{
	struct step_faults f = {.einval_direct = true};
	struct ps_uio_faults hooks = {.open = sf_open, .complete = sf_complete, .arg = &f};
	struct ps_drive drives[] = {drive("good", GOOD_SIZE, false, false)};
	json_object *res;
	struct run r = {0};

	disk_read_faults = &hooks;
	run_step(&r, "quick", drives, 1);
	disk_read_faults = NULL;
	CHECK_INT(r.status, PS_PASS);
	CHECK_INT(f.opens, 2);
	res =
	    json_object_array_get_idx(json_object_object_get(data_drive(&r, "good"), "results"), 0);
	CHECK(res != NULL);
	CHECK(!json_object_get_boolean(json_object_object_get(res, "direct")));
	check_result(res, "seq", 1048576, 8, 3, 5, GOOD_SIZE);
	done(&r);
}

/* Runs start in the middle of their own slice of the drive; the warm-up at its start. */
static void test_regions(void)
{
	const uint64_t size = 1000ULL << 30; /* 1000 GiB */
	const struct read_plan *p = &plans[1];

	CHECK_INT(ps_io_run_offset(size, 0, 5, PS_MIB), (size / 10) / PS_MIB * PS_MIB);
	CHECK_INT(ps_io_run_offset(size, 1, 5, PS_MIB), (size * 3 / 10) / PS_MIB * PS_MIB);
	CHECK_INT(ps_io_run_offset(size, 4, 5, PS_MIB), (size * 9 / 10) / PS_MIB * PS_MIB);
	CHECK_INT(ps_io_run_offset(size, PS_MEASURE_WARMUP, 5, PS_MIB), 0);
	/* extra runs of the noise rule: a quarter into a slice, apart from the others and 0 */
	CHECK_INT(ps_io_run_offset(size, 5, 5, PS_MIB), (size / 20) / PS_MIB * PS_MIB);
	CHECK_INT(ps_io_run_offset(size, 6, 5, PS_MIB), (size * 5 / 20) / PS_MIB * PS_MIB);
	CHECK_INT(ps_io_run_offset(size, 10, 5, PS_MIB), (size / 20) / PS_MIB * PS_MIB);
	CHECK_INT(ps_io_run_offset(size, 0, 5, PS_MIB) % PS_MIB, 0);
	/* no two runs read the same bytes: a slice is larger than a run's byte budget */
	CHECK(ps_io_run_offset(size, 1, 5, PS_MIB) - ps_io_run_offset(size, 0, 5, PS_MIB) >
	      p->byte_budget);
	/* the noise rule: the plan's runs, more while they vary, up to the cap */
	{
		const struct ps_noise_rule rule = noise_rule(p);
		double steady[MAX_RUNS] = {100, 101, 100, 99, 100},
		       v[MAX_RUNS] = {1, 100, 1, 100, 1};

		CHECK(ps_noise_more_runs(&rule, steady, 4));
		CHECK(!ps_noise_more_runs(&rule, steady, 5));
		CHECK(ps_noise_more_runs(&rule, v, 5));
		CHECK(!ps_noise_more_runs(&rule, v, 10));
		CHECK(ps_noise_noisy(&rule, v, 5));
		CHECK(!ps_noise_noisy(&rule, steady, 5));
	}
}

static void test_abort_and_nothing(void)
{
	struct ps_drive drives[] = {drive("good", GOOD_SIZE, false, false),
				    drive("good2", GOOD_SIZE, false, false)};
	struct ps_drive stick[] = {drive("stick", 1 << 30, true, true)};
	json_object *d;
	struct run r = {.abort_flag = 1};

	run_step(&r, "full", drives, 2);
	CHECK_INT(r.status, PS_ABORTED);
	CHECK(r.seconds < 1.0);
	/* stopped within the first drive: the second is not reached */
	CHECK_INT(json_object_array_length(json_object_object_get(r.data, "drives")), 1);
	d = data_drive(&r, "good");
	CHECK(json_object_array_length(json_object_object_get(d, "results")) <= 1);
	done(&r);

	r = (struct run){0};
	run_step(&r, "quick", stick, 1);
	CHECK_INT(r.status, PS_SKIPPED);
	CHECK(strstr(r.h.run.reason, "no drive") != NULL);
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
	test_random_spans_drive();
	test_regions();
	test_abort_and_nothing();

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	CHECK(system(p) == 0);
	return check_done("test_disk_read");
}
