/*
 * disk_write.c - write throughput and a write-then-verify pass, only on
 * drives the user confirmed as scratch by serial (TESTPLAN 3: writes go only
 * to a scratch target the user named and confirmed). Every other drive is
 * refused with its reason (core/scratch.c); what a drive held is recorded
 * before a byte is written.
 */
/* clang-format off */
//config:config STEP_DISK_WRITE
//config:	bool "disk_write: write throughput and verify on confirmed scratch drives"
//config:	default y
//config:	help
//config:	  Runs only when a scratch drive is confirmed by its serial
//config:	  (scratch=SERIAL in probestick.cfg, --scratch SERIAL, or the
//config:	  menu's typed confirmation), and only on that drive: never on the
//config:	  boot stick, a drive with a mounted filesystem or swap, or an
//config:	  active md/LVM member. Writes the read matrix's points with O_DIRECT
//config:	  through io_uring, then writes a pattern that encodes each sector's
//config:	  LBA over regions spread across the drive and reads it back, so
//config:	  that misdirected or lost writes are found. DESTROYS the data on
//config:	  the confirmed drive.
//kbuild:step-$(CONFIG_STEP_DISK_WRITE) += disk_write.o
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "plan": {"enum": ["quick", "full"]},
//schema:    "runs": {"type": "integer"},
//schema:    "named": {"type": "array", "items": {"type": "string"}},
//schema:    "verify_bytes": {"type": "integer"},
//schema:    "drives": {"type": "array", "items": {
//schema:      "type": "object",
//schema:      "properties": {
//schema:        "name": {"type": "string"},
//schema:        "device": {"type": ["string", "null"]},
//schema:        "serial": {"type": ["string", "null"]},
//schema:        "decision": {"type": "string"},
//schema:        "reason": {"type": "string"},
//schema:        "held_before": {"type": ["object", "null"]},
//schema:        "seq_mbps": {"type": ["number", "null"]},
//schema:        "rand_iops": {"type": ["number", "null"]},
//schema:        "results": {"type": "array"},
//schema:        "verify": {"type": ["object", "null"]},
//schema:        "errors": {"type": "array"},
//schema:        "engine_error": {"type": "string"}
//schema:      },
//schema:      "required": ["name", "decision"]
//schema:    }}
//schema:  },
//schema:  "required": ["plan", "drives"]
//schema:}
/* clang-format on */

#include "core/config.h"
#include "core/scratch.h"
#include "core/step.h"
#include "lib/util.h"
#include "engines/io/lba_ranges.h"
#include "engines/io/pattern.h"
#include "lib/stats.h"
#include "engines/io/uring_io.h"
#include "hw/drive_use.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DATA_VERSION 1

#define KIB 1024U
#define MIB (1024U * 1024U)

#define MAX_RUNS	   10
#define MAX_ERROR_FINDINGS 8
#define VERIFY_SEGMENTS	   4

enum pattern_kind { SEQ, RAND };

struct point {
	enum pattern_kind pattern;
	unsigned int bs, qd;
};

struct write_plan {
	const char *name;
	const struct point *matrix;
	size_t n_matrix;
	unsigned int runs;
	uint64_t byte_budget;
	double time_budget_s;
	uint64_t verify_bytes; /* in VERIFY_SEGMENTS regions spread over the drive */
};

static const struct point quick_matrix[] = {{SEQ, 1 * MIB, 8}, {RAND, 4 * KIB, 32}};
static const struct point full_matrix[] = {
    {SEQ, 1 * MIB, 8},	{SEQ, 1 * MIB, 1}, {SEQ, 256 * KIB, 1}, {SEQ, 64 * KIB, 1},
    {SEQ, 16 * KIB, 1}, {SEQ, 4 * KIB, 1}, {RAND, 4 * KIB, 32}, {RAND, 4 * KIB, 1},
};

static const struct write_plan plans[] = {
    {"quick", quick_matrix, PS_ARRAY_SIZE(quick_matrix), 3, 1024ULL * MIB, 1.0, 256ULL * MIB},
    {"full", full_matrix, PS_ARRAY_SIZE(full_matrix), 5, 4096ULL * MIB, 2.0, 1024ULL * MIB},
};

/* Opens and completions of tests/unit/test_disk_write.c (which includes this file). */
static const struct ps_uio_faults *disk_write_faults;

struct target {
	struct ps_ctx *ctx;
	const struct ps_drive *inv;
	json_object *obj, *errors;
	char path[4200];
	unsigned int lsec;
	uint64_t size;
	int fd;
	bool direct, aborted;
	const char *pass_name;
	struct ps_lba_ranges bad;
	unsigned int error_findings;
	struct ps_pattern pat;
	struct ps_pattern_check check;
	uint64_t progress_base;
};

static const struct write_plan *plan_of(const struct ps_ctx *ctx)
{
	return ctx->plan && ctx->plan->level == PS_PLAN_FULL ? &plans[1] : &plans[0];
}

static bool should_stop(void *arg)
{
	struct target *t = arg;

	t->aborted = t->aborted || ps_should_abort(t->ctx);
	return t->aborted;
}

static void on_progress(void *arg, uint64_t bytes)
{
	struct target *t = arg;

	ps_progress_set(t->ctx, t->progress_base + bytes);
}

static void on_error(void *arg, uint64_t off, unsigned int len, int err)
{
	struct target *t = arg;
	uint64_t lba = off / t->lsec, last = (off + len - 1) / t->lsec;
	struct ps_finding f = {.severity = PS_SEV_FAIL,
			       .dev = ps_drive_ref(t->inv),
			       .rule = strstr(t->pass_name, "verify read") ? "read_error"
									   : "write_error",
			       .value = (double)(last - lba + 1),
			       .limit = 0,
			       .unit = "sectors"};
	json_object *e;

	if (ps_lba_ranges_add(&t->bad, lba, last) <= 0)
		return;
	if (t->error_findings++ < MAX_ERROR_FINDINGS)
		ps_find(t->ctx, &f, "%s (%s) at LBA %llu-%llu (%s)", f.rule, strerror(err),
			(unsigned long long)lba, (unsigned long long)last, t->pass_name);
	if (ps_json_len(t->errors) >= 32)
		return;
	e = json_object_new_object();
	ps_json_set(e, "lba", json_object_new_int64((int64_t)lba));
	ps_json_set(e, "lba_count", json_object_new_int64((int64_t)(last - lba + 1)));
	ps_json_set_str(e, "error", strerror(err));
	ps_json_set_str(e, "pass", t->pass_name);
	json_object_array_add(t->errors, e);
}

/* Matrix writes: a fixed byte, so that nothing of the program's memory reaches the drive. */
static void fill_plain(void *arg, unsigned char *buf, uint64_t off, unsigned int len)
{
	memset(buf, 0xa5, len);
}

static void fill_pattern(void *arg, unsigned char *buf, uint64_t off, unsigned int len)
{
	struct target *t = arg;

	ps_pattern_fill(&t->pat, buf, off, len);
}

static void verify_data(void *arg, const unsigned char *buf, uint64_t off, unsigned int len)
{
	struct target *t = arg;

	ps_pattern_verify(&t->pat, buf, off, len, &t->check);
}

static struct ps_uio_job job_for(struct target *t, const struct point *m, uint64_t off,
				 uint64_t len, double budget)
{
	return (struct ps_uio_job){.fd = t->fd,
				   .size = t->size,
				   /* random positions come from [offset, size): the whole drive */
				   .offset = m->pattern == RAND ? 0 : off,
				   .length = len,
				   .bs = m->bs,
				   .qd = m->qd,
				   .time_budget_s = budget,
				   .check_ms = 50,
				   .should_stop = should_stop,
				   .stop_arg = t,
				   .progress = on_progress,
				   .on_error = on_error,
				   .error_arg = t,
				   .faults = disk_write_faults,
				   .random = m->pattern == RAND,
				   .write = true,
				   .fill = fill_plain,
				   .data_arg = t};
}

static uint64_t run_offset(uint64_t size, unsigned int i, unsigned int runs, unsigned int bs)
{
	uint64_t off = i >= runs ? 0 : size * (2 * (uint64_t)i + 1) / (2 * (uint64_t)runs);

	return off / bs * bs;
}

static int engine_failed(struct target *t, int err, const struct ps_uio_result *res)
{
	char msg[4400];

	snprintf(msg, sizeof(msg), "%s %s: %s", t->pass_name, t->path, strerror(-err));
	ps_json_set_str(t->obj, "engine_error", msg);
	if (res->device_gone || ps_uio_device_gone(-err)) {
		ps_findf(t->ctx, PS_SEV_FAIL, ps_drive_ref(t->inv), "drive_gone",
			 "%s: the drive went away; check its cable and power", msg);
		return -ENODEV;
	}
	ps_findf(t->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "engine_error",
		 "%s: %s: the measurement stopped; this is not a fault of the drive", t->inv->name,
		 msg);
	return err;
}

/* One write (timed with the flush that makes it durable); 0 or -errno. */
static int timed_write(struct target *t, struct ps_uio_job *j, struct ps_uio_result *res,
		       double *seconds)
{
	double t0 = ps_mono_now();
	int ret = ps_uio_write(j, res);

	if (ret == 0 && fdatasync(t->fd) < 0 && errno != EINVAL)
		ret = -errno;
	*seconds = ps_mono_now() - t0;
	return ret;
}

static int measure(struct target *t, const struct write_plan *p, const struct point *m,
		   json_object *results)
{
	double mbps[MAX_RUNS], iops[MAX_RUNS], warm = NAN, secs;
	uint64_t per_run = t->size < p->byte_budget ? t->size : p->byte_budget;
	struct ps_uio_result res;
	struct ps_lat_hist lat;
	struct ps_run_summary sum, isum;
	struct ps_uio_job j;
	json_object *r, *runs;
	unsigned int n = 0;
	char name[64];
	int err;

	ps_lat_init(&lat);
	snprintf(name, sizeof(name), "write %s %u%s QD%u", m->pattern == RAND ? "rand" : "seq",
		 m->bs % MIB ? m->bs / KIB : m->bs / MIB, m->bs % MIB ? "K" : "M", m->qd);
	t->pass_name = name;
	{
		char phase[96];

		snprintf(phase, sizeof(phase), "%s %s", t->inv->name, name);
		ps_progress_phase(t->ctx, phase, per_run * (p->runs + 1), "B");
	}
	t->progress_base = 0;
	if (should_stop(t))
		return 0;
	j = job_for(t, m, run_offset(t->size, p->runs, p->runs, m->bs), per_run / 2,
		    p->time_budget_s / 2);
	err = timed_write(t, &j, &res, &secs);
	if (err == 0 && res.bytes)
		warm = ps_mbps(res.bytes, secs);
	while (err == 0 && !should_stop(t) && n < p->runs && n < MAX_RUNS) {
		struct ps_lat_hist rl;

		ps_lat_init(&rl);
		t->progress_base = per_run * (n + 1);
		j = job_for(t, m, run_offset(t->size, n, p->runs, m->bs), per_run,
			    p->time_budget_s);
		j.lat = &rl;
		j.seed = 0x9E3779B97F4A7C15ULL * (n + 1);
		err = timed_write(t, &j, &res, &secs);
		if (err < 0)
			break;
		ps_lat_merge(&lat, &rl);
		mbps[n] = ps_mbps(res.bytes, secs);
		iops[n] = ps_iops(res.ios, secs);
		n++;
	}
	if (n == 0)
		return err ? engine_failed(t, err, &res) : 0;
	ps_run_summary(mbps, n, &sum);
	ps_run_summary(iops, n, &isum);
	r = json_object_new_object();
	runs = json_object_new_array();
	ps_json_set_str(r, "pattern", m->pattern == RAND ? "rand" : "seq");
	ps_json_set(r, "bs", json_object_new_int((int)m->bs));
	ps_json_set(r, "qd", json_object_new_int((int)m->qd));
	ps_json_set(r, "direct", json_object_new_boolean(t->direct));
	ps_json_set_num(r, "warmup_mbps", warm, 1);
	for (unsigned int i = 0; i < n; i++)
		json_object_array_add(runs, ps_json_new_num(mbps[i], 1));
	ps_json_set(r, "runs_mbps", runs);
	ps_json_set_num(r, "min_mbps", sum.min, 1);
	ps_json_set_num(r, "median_mbps", sum.median, 1);
	ps_json_set_num(r, "max_mbps", sum.max, 1);
	ps_json_set_num(r, "cv_pct", sum.cv_pct, 1);
	ps_json_set_num(r, "median_iops", isum.median, 0);
	{
		json_object *l = json_object_new_object();

		ps_json_set_num(l, "p50", (double)ps_lat_percentile(&lat, 50) / 1e3, 1);
		ps_json_set_num(l, "p99", (double)ps_lat_percentile(&lat, 99) / 1e3, 1);
		ps_json_set_num(l, "max", (double)lat.max_ns / 1e3, 1);
		ps_json_set(r, "lat_us", l);
	}
	json_object_array_add(results, r);
	if (n > 1 && sum.cv_pct > PS_UNSTABLE_CV_PCT && !t->aborted) {
		struct ps_finding f = {.severity = PS_SEV_INFO,
				       .dev = ps_drive_ref(t->inv),
				       .rule = "unstable_throughput",
				       .value = sum.cv_pct,
				       .limit = PS_UNSTABLE_CV_PCT,
				       .unit = "%"};

		ps_find(t->ctx, &f, "%s varied by %.0f%% between runs (%.1f-%.1f MB/s)", name,
			sum.cv_pct, sum.min, sum.max);
	}
	return err ? engine_failed(t, err, &res) : 0;
}

/* Write the LBA pattern over regions spread across the drive, then read it back. */
static int verify(struct target *t, const struct write_plan *p)
{
	static const struct point wr = {SEQ, 1 * MIB, 8};
	uint64_t total = t->size < p->verify_bytes ? t->size : p->verify_bytes;
	uint64_t seg = total / VERIFY_SEGMENTS / MIB * MIB;
	json_object *v = json_object_new_object(), *regions = json_object_new_array();
	struct ps_uio_result res;
	unsigned int nseg = seg ? VERIFY_SEGMENTS : 1;
	uint64_t written = 0, checked = 0;
	double secs;
	int err = 0;

	if (!seg)
		seg = total / t->lsec * t->lsec;
	ps_json_set(t->obj, "verify", v);
	ps_pattern_check_init(&t->check);
	ps_progress_phase(t->ctx, "write then verify", 2 * seg * nseg, "B");
	for (unsigned int pass = 0; pass < 2 && err == 0 && !t->aborted; pass++) {
		t->pass_name = pass ? "verify read" : "verify write";
		if (pass) {
			/* what is read back must come from the drive, not a cache */
			posix_fadvise(t->fd, 0, 0, POSIX_FADV_DONTNEED);
		}
		for (unsigned int i = 0; i < nseg && err == 0 && !should_stop(t); i++) {
			uint64_t off = nseg > 1 ? (t->size - seg) * i / (nseg - 1) / MIB * MIB : 0;
			struct ps_uio_job j = job_for(t, &wr, off, seg, 0);

			t->progress_base = pass * seg * nseg + seg * i;
			if (pass == 0) {
				json_object *r = json_object_new_object();

				j.fill = fill_pattern;
				err = timed_write(t, &j, &res, &secs);
				written += res.bytes;
				ps_json_set(r, "lba_first",
					    json_object_new_int64((int64_t)(off / t->lsec)));
				ps_json_set(
				    r, "lba_last",
				    json_object_new_int64((int64_t)((off + seg) / t->lsec - 1)));
				json_object_array_add(regions, r);
			} else {
				j.write = false;
				j.fill = NULL;
				j.on_data = verify_data;
				err = ps_uio_read(&j, &res);
				checked += res.bytes;
			}
		}
	}
	ps_json_set(v, "regions", regions);
	ps_json_set(v, "pass_id", json_object_new_int64((int64_t)(t->pat.pass & INT64_MAX)));
	ps_json_set(v, "written_bytes", json_object_new_int64((int64_t)written));
	ps_json_set(v, "checked_bytes", json_object_new_int64((int64_t)checked));
	ps_json_set(v, "sectors", json_object_new_int64((int64_t)t->check.sectors));
	ps_json_set(v, "ok", json_object_new_int64((int64_t)t->check.ok));
	ps_json_set(v, "misdirected", json_object_new_int64((int64_t)t->check.misdirected));
	ps_json_set(v, "stale", json_object_new_int64((int64_t)t->check.stale));
	ps_json_set(v, "foreign", json_object_new_int64((int64_t)t->check.foreign));
	ps_json_set(v, "corrupt", json_object_new_int64((int64_t)t->check.corrupt));
	ps_json_set(v, "first_bad_lba",
		    t->check.first_bad_lba == UINT64_MAX
			? NULL
			: json_object_new_int64((int64_t)t->check.first_bad_lba));
	ps_json_set(v, "clean",
		    json_object_new_boolean(!t->aborted && err == 0 && checked == written &&
					    written > 0 && t->check.ok == t->check.sectors));
	if (t->check.ok != t->check.sectors) {
		uint64_t bad = t->check.sectors - t->check.ok;
		struct ps_finding f = {.severity = PS_SEV_FAIL,
				       .dev = ps_drive_ref(t->inv),
				       .rule = "verify_mismatch",
				       .value = (double)bad,
				       .limit = 0,
				       .unit = "sectors"};
		char claims[64] = "";

		if (t->check.found_lba != UINT64_MAX)
			snprintf(claims, sizeof(claims),
				 "; the first misdirected one holds LBA %llu",
				 (unsigned long long)t->check.found_lba);
		ps_find(t->ctx, &f,
			"%llu of %llu sectors read back wrong (first at LBA %llu): %llu "
			"misdirected, %llu lost (stale %llu, never written %llu), %llu corrupt%s: "
			"the drive does not keep what it is given",
			(unsigned long long)bad, (unsigned long long)t->check.sectors,
			(unsigned long long)t->check.first_bad_lba,
			(unsigned long long)t->check.misdirected,
			(unsigned long long)(t->check.stale + t->check.foreign),
			(unsigned long long)t->check.stale, (unsigned long long)t->check.foreign,
			(unsigned long long)t->check.corrupt, claims);
	}
	return err < 0 ? engine_failed(t, err, &res) : 0;
}

static double median_of(json_object *results, const char *pattern, unsigned int bs, unsigned int qd,
			const char *key)
{
	double v = NAN;

	for (size_t i = 0; i < ps_json_len(results); i++) {
		json_object *r = ps_json_at(results, i);
		int64_t b = 0, q = 0;

		ps_json_int(r, "bs", &b);
		ps_json_int(r, "qd", &q);
		if (!strcmp(ps_json_str_or(r, "pattern", ""), pattern) && b == bs && q == qd)
			ps_json_num(r, key, &v);
	}
	return v;
}

/* Write to one confirmed drive; false when it could not be opened for writing. */
static bool write_drive(struct target *t, const struct write_plan *p)
{
	json_object *results = json_object_new_array();
	double seq, rnd;
	int ret = 0;

	ps_json_set(t->obj, "results", results);
	t->lsec = t->inv->logical_sector > 0 ? (unsigned int)t->inv->logical_sector : 512;
	t->fd = ps_uio_open_rw(t->path, true, &t->direct, disk_write_faults);
	if (t->fd < 0 || ps_uio_size(t->fd, &t->size) < 0 || t->size < MIB) {
		char msg[4400];

		snprintf(msg, sizeof(msg), "cannot open %s for writing: %s", t->path,
			 t->fd == -EBUSY ? "in use by the kernel (mounted or held), so refused"
			 : t->fd < 0	 ? strerror(-t->fd)
					 : "smaller than 1 MiB");
		ps_json_set_str(t->obj, "decision", "refused");
		ps_json_set_str(t->obj, "reason", msg);
		ps_findf(t->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "refused", "%s: %s",
			 t->inv->name, msg);
		if (t->fd >= 0)
			close(t->fd);
		t->fd = -1;
		return false;
	}
	t->pat = (struct ps_pattern){.lsec = t->lsec,
				     .pass = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32,
				     .tag = ps_pattern_tag(t->inv->serial)};
	for (size_t i = 0; i < p->n_matrix && ret >= 0 && !t->aborted; i++)
		ret = measure(t, p, &p->matrix[i], results);
	if (ret >= 0 && !t->aborted)
		verify(t, p);
	close(t->fd);
	seq = median_of(results, "seq", MIB, 8, "median_mbps");
	rnd = median_of(results, "rand", 4 * KIB, 32, "median_iops");
	ps_json_set_num(t->obj, "seq_mbps", seq, 1);
	ps_json_set_num(t->obj, "rand_iops", rnd, 0);
	if (!t->aborted && ps_json_bool(ps_json_get(t->obj, "verify"), "clean") == 1)
		ps_examined(
		    t->ctx, ps_drive_ref(t->inv), "written",
		    "wrote sequential 1M QD8 %.0f MB/s, random 4K QD32 %.0f IOPS; %lld MiB "
		    "written and read back intact",
		    seq, rnd,
		    (long long)(json_object_get_int64(ps_json_ptr(t->obj, "/verify/"
									  "written_bytes")) >>
				20));
	return true;
}

static int run(struct ps_ctx *ctx)
{
	const struct write_plan *p = plan_of(ctx);
	/* scratch= was parsed once, by the core (a list it refused names no drive) */
	const struct ps_scratch_list named =
	    ctx->cfg ? ctx->cfg->scratch_list : (struct ps_scratch_list){0};
	json_object *out = json_object_new_array(), *names = json_object_new_array();
	char why[512];
	unsigned int written = 0;
	bool aborted = false, bad = false;

	ps_json_set_str(ctx->data, "plan", p->name);
	ps_json_set(ctx->data, "runs", json_object_new_int((int)p->runs));
	ps_json_set(ctx->data, "verify_bytes", json_object_new_int64((int64_t)p->verify_bytes));
	for (size_t i = 0; i < named.n; i++)
		json_object_array_add(names, json_object_new_string(named.serial[i]));
	ps_json_set(ctx->data, "named", names);
	ps_json_set(ctx->data, "drives", out);
	for (size_t i = 0; i < named.n; i++) {
		bool found = false;

		struct ps_scratch_list one = {.n = 1};

		snprintf(one.serial[0], sizeof(one.serial[0]), "%s", named.serial[i]);
		for (size_t k = 0; k < ctx->inv->n_drives && !found; k++)
			found = ps_scratch_listed(&one, ctx->inv->drives[k].serial);
		if (!found)
			ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "not_found",
				 "scratch serial %s matches no drive of this machine: nothing "
				 "written for it",
				 named.serial[i]);
	}
	for (size_t i = 0; i < ctx->inv->n_drives && !aborted; i++) {
		struct target t = {.ctx = ctx, .inv = &ctx->inv->drives[i], .fd = -1};
		struct ps_drive_use use;
		enum ps_scratch_verdict v;

		t.obj = json_object_new_object();
		t.errors = json_object_new_array();
		ps_json_set_str(t.obj, "name", t.inv->name);
		ps_json_set_str(t.obj, "device", t.inv->id);
		ps_json_set_str(t.obj, "serial", t.inv->serial);
		json_object_array_add(out, t.obj);
		ps_path(t.path, sizeof(t.path), ctx->root, "/dev/%s", t.inv->name);
		ps_drive_use_read(ctx->root, t.inv->name, t.path, &use);
		v = ps_scratch_decide(t.inv, &use, &named, why, sizeof(why));
		ps_json_set_str(t.obj, "decision", ps_scratch_verdict_name(v));
		ps_json_set_str(t.obj, "reason", why);
		if (v != PS_SCRATCH_OK) {
			if (v != PS_SCRATCH_NOT_NAMED && ps_scratch_listed(&named, t.inv->serial))
				ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "refused",
					 "%s (serial %s) was named as scratch but is refused: %s",
					 t.inv->name, t.inv->serial, why);
			ps_json_set(t.obj, "errors", t.errors);
			continue;
		}
		/* the record of what was there before it was overwritten */
		ps_json_set(t.obj, "held_before", ps_drive_use_json(&use));
		if (write_drive(&t, p)) {
			written++;
			bad = bad || t.bad.n ||
			      ps_json_bool(ps_json_get(t.obj, "verify"), "clean") == 0;
		}
		ps_json_set(t.obj, "errors", t.errors);
		aborted = t.aborted;
		ps_lba_ranges_free(&t.bad);
	}
	if (aborted)
		return PS_ABORTED;
	if (!written) {
		ps_step_reason(ctx, "no drive was confirmed as scratch and free to write: nothing "
				    "was written");
		return PS_SKIPPED;
	}
	return bad ? PS_FAIL : PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	const struct write_plan *p = plan_of(ctx);
	unsigned int n = 0;

	for (size_t i = 0; ctx->cfg && i < ctx->inv->n_drives; i++)
		n += ps_scratch_listed(&ctx->cfg->scratch_list, ctx->inv->drives[i].serial) &&
		     !ctx->inv->drives[i].boot_device;
	return n * (p->n_matrix * (p->runs + 0.5) * p->time_budget_s +
		    (double)p->verify_bytes * 2 / 100e6);
}

/* ---- view ---- */

static const struct ps_col sum_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/seq_mbps",
     .title = "seq 1M QD8",
     .unit = "MB/s",
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/rand_iops",
     .title = "rand 4K QD32",
     .unit = "IOPS",
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/verify/clean", .title = "verify clean", .fmt = PS_FMT_BOOL},
    {.path = "/verify/checked_bytes", .title = "verified", .fmt = PS_FMT_BYTES},
};

static const struct ps_col mat_cols[] = {
    {.path = "^/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "^/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/pattern", .title = "io", .flags = PS_COL_KEY},
    {.path = "/bs", .title = "bs", .fmt = PS_FMT_BLOCK, .flags = PS_COL_KEY},
    {.path = "/qd", .title = "qd", .flags = PS_COL_KEY},
    {.path = "/median_mbps",
     .title = "MB/s",
     .unit = "MB/s",
     .better = PS_BETTER_HIGHER,
     .spread = "/cv_pct",
     .min = "/min_mbps",
     .max = "/max_mbps"},
    {.path = "/cv_pct", .title = "cv", .unit = "%", .better = PS_BETTER_LOWER},
    {.path = "/median_iops", .title = "IOPS", .better = PS_BETTER_HIGHER},
    {.path = "/lat_us/p50", .title = "p50", .fmt = PS_FMT_US, .better = PS_BETTER_LOWER},
    {.path = "/lat_us/p99", .title = "p99", .fmt = PS_FMT_US, .better = PS_BETTER_LOWER},
};

static const struct ps_col ver_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/verify/sectors", .title = "sectors"},
    {.path = "/verify/misdirected", .title = "misdirected", .better = PS_BETTER_LOWER},
    {.path = "/verify/stale", .title = "stale", .better = PS_BETTER_LOWER},
    {.path = "/verify/foreign", .title = "unwritten", .better = PS_BETTER_LOWER},
    {.path = "/verify/corrupt", .title = "corrupt", .better = PS_BETTER_LOWER},
    {.path = "/verify/first_bad_lba", .title = "first bad LBA"},
};

static const struct ps_col dec_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/decision", .title = "decision"},
    {.path = "/reason", .title = "why", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "summary",
     .title = "Writes on confirmed scratch drives (O_DIRECT, each run flushed)",
     .rows = "/drives",
     .when = "/results",
     .cols = PS_COLS(sum_cols),
     .empty = "no drive was written"},
    {.kind = PS_BLOCK_TABLE,
     .id = "matrix",
     .title = "Write matrix (median of the runs after a warm-up run)",
     .rows = "/drives",
     .nested = "/results",
     .cols = PS_COLS(mat_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "verify",
     .title = "Write then verify (each sector holds its own LBA)",
     .rows = "/drives",
     .when = "/verify",
     .cols = PS_COLS(ver_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "decisions",
     .title = "Which drives may be written",
     .rows = "/drives",
     .cols = PS_COLS(dec_cols)},
};

static const struct ps_view view = {
    .name = "disk_write",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops disk_write_ops = {
    .abi = PS_STEP_ABI,
    .name = "disk_write",
    .title = "write speed and verify, confirmed scratch drives only (DESTRUCTIVE)",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .needs = PS_NEED_SCRATCH,
    .order = 35,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(disk_write_ops);
