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
/* clang-format on */

#include "core/config.h"
#include "core/scratch.h"
#include "core/step.h"
#include "engines/io/lba_ranges.h"
#include "engines/io/matrix.h"
#include "engines/io/pattern.h"
#include "engines/io/uring_io.h"
#include "engines/measure.h"
#include "hw/drive_use.h"
#include "lib/stats.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DATA_VERSION 1

#define MAX_ERROR_ENTRIES  32 /* per drive in data.errors */
#define MAX_ERROR_FINDINGS 8
#define VERIFY_SEGMENTS	   4

struct write_plan {
	const char *name;
	const struct ps_io_point *matrix;
	size_t n_matrix;
	unsigned int runs;
	unsigned int max_runs; /* while the runs' CV is above noise_cv_pct: more runs, to this */
	double noise_cv_pct;
	uint64_t byte_budget;
	double time_budget_s;
	uint64_t verify_bytes; /* in VERIFY_SEGMENTS regions spread over the drive */
};

static const struct write_plan plans[] = {
    {"quick", ps_io_quick_matrix, PS_ARRAY_SIZE(ps_io_quick_matrix), 3, 5, 10.0, 1024ULL * PS_MIB,
     1.0, 256ULL * PS_MIB},
    {"full", ps_io_full_matrix, PS_ARRAY_SIZE(ps_io_full_matrix), 5, 10, 5.0, 4096ULL * PS_MIB, 2.0,
     1024ULL * PS_MIB},
};

/* ---- the result: data{} as a struct, described once ---- */

/* One point of the matrix on one drive. */
struct write_row {
	int pattern; /* enum ps_io_pattern */
	unsigned int bs, qd;
	bool direct;
	struct ps_figure mbps; /* each run timed with the flush that makes it durable */
	double median_iops;
	struct ps_io_lat_us lat;
};

struct verify_region {
	uint64_t first, last;
};

/* The write-then-verify pass: each sector holds its own LBA (engines/io/pattern.h). */
struct verify_result {
	struct verify_region *regions;
	size_t n_regions;
	uint64_t pass_id, written_bytes, checked_bytes;
	uint64_t sectors, ok, misdirected, stale, foreign, corrupt;
	int64_t first_bad_lba; /* -1: none */
	bool clean;
};

struct write_error {
	uint64_t lba, lba_count;
	char error[64], pass[64];
};

struct drive_result {
	char name[32];
	const char *device, *serial;
	const char *decision; /* ps_scratch_verdict_name */
	char reason[512];
	json_object *held_before; /* what it held before a byte was written */
	double seq_mbps, rand_iops;
	struct write_row *results;
	size_t n_results;
	struct verify_result *verify;
	struct write_error errors[MAX_ERROR_ENTRIES];
	size_t n_errors;
	char engine_error[4400];
};

struct disk_write_result {
	int plan; /* index in plans[] */
	struct ps_noise_rule rule;
	json_object *named; /* the serials confirmed as scratch */
	uint64_t verify_bytes;
	struct drive_result *drives;
	size_t n_drives;
};

static const char *const plan_names[] = {"quick", "full", NULL};

static const struct ps_field row_f[] = {
    PS_FIELD_ENUM(struct write_row, pattern, "pattern", ps_io_pattern_names),
    PS_FIELD(struct write_row, bs, "bs", .unit = "bytes"),
    PS_FIELD(struct write_row, qd, "qd"),
    PS_FIELD(struct write_row, direct, "direct", .help = "O_DIRECT (false: buffered)"),
    PS_FIELD(struct write_row, mbps, "mbps", .unit = "MB/s", .decimals = 1, .flags = PS_FLD_WARMUP),
    PS_FIELD(struct write_row, median_iops, "median_iops", .decimals = 0),
    PS_FIELD_OBJ(struct write_row, lat, "lat_us", &ps_io_lat_us_fields),
};
static const struct ps_fields row_fields = PS_FIELDS(struct write_row, row_f);

static const struct ps_field region_f[] = {
    PS_FIELD(struct verify_region, first, "lba_first"),
    PS_FIELD(struct verify_region, last, "lba_last"),
};
static const struct ps_fields region_fields = PS_FIELDS(struct verify_region, region_f);

static const struct ps_field verify_f[] = {
    PS_FIELD_ARRAY(struct verify_result, regions, n_regions, "regions", &region_fields),
    PS_FIELD(struct verify_result, pass_id, "pass_id"),
    PS_FIELD(struct verify_result, written_bytes, "written_bytes", .unit = "bytes"),
    PS_FIELD(struct verify_result, checked_bytes, "checked_bytes", .unit = "bytes"),
    PS_FIELD(struct verify_result, sectors, "sectors"),
    PS_FIELD(struct verify_result, ok, "ok"),
    PS_FIELD(struct verify_result, misdirected, "misdirected"),
    PS_FIELD(struct verify_result, stale, "stale"),
    PS_FIELD(struct verify_result, foreign, "foreign"),
    PS_FIELD(struct verify_result, corrupt, "corrupt"),
    PS_FIELD(struct verify_result, first_bad_lba, "first_bad_lba", .flags = PS_FLD_NULL),
    PS_FIELD(struct verify_result, clean, "clean"),
};
static const struct ps_fields verify_fields = PS_FIELDS(struct verify_result, verify_f);

static const struct ps_field error_f[] = {
    PS_FIELD(struct write_error, lba, "lba"),
    PS_FIELD(struct write_error, lba_count, "lba_count"),
    PS_FIELD(struct write_error, error, "error"),
    PS_FIELD(struct write_error, pass, "pass"),
};
static const struct ps_fields error_fields = PS_FIELDS(struct write_error, error_f);

static const struct ps_field drive_f[] = {
    PS_FIELD(struct drive_result, name, "name"),
    PS_FIELD(struct drive_result, device, "device", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive_result, serial, "serial", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive_result, decision, "decision"),
    PS_FIELD(struct drive_result, reason, "reason"),
    PS_FIELD(struct drive_result, held_before, "held_before", .flags = PS_FLD_OMIT,
	     .schema = "{\"type\": \"object\"}"),
    PS_FIELD(struct drive_result, seq_mbps, "seq_mbps", .unit = "MB/s", .decimals = 1,
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct drive_result, rand_iops, "rand_iops", .decimals = 0,
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct drive_result, results, n_results, "results", &row_fields,
		   .flags = PS_FLD_OMIT),
    PS_FIELD_OBJP(struct drive_result, verify, "verify", &verify_fields, .flags = PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct drive_result, errors, n_errors, "errors", &error_fields),
    PS_FIELD(struct drive_result, engine_error, "engine_error", .flags = PS_FLD_OMIT),
};
static const struct ps_fields drive_fields = PS_FIELDS(struct drive_result, drive_f);

static const struct ps_field disk_write_f[] = {
    PS_FIELD_ENUM(struct disk_write_result, plan, "plan", plan_names),
    PS_FIELD(struct disk_write_result, rule.runs, "runs"),
    PS_FIELD(struct disk_write_result, rule.warmup, "warmup_runs", .flags = PS_FLD_NEWER),
    PS_FIELD(struct disk_write_result, rule.max_runs, "max_runs", .flags = PS_FLD_NEWER),
    PS_FIELD(struct disk_write_result, rule.cv_limit_pct, "noise_cv_pct", .unit = "%",
	     .decimals = 1, .flags = PS_FLD_NEWER),
    PS_FIELD(struct disk_write_result, named, "named",
	     .schema = "{\"type\": \"array\", \"items\": {\"type\": \"string\"}}"),
    PS_FIELD(struct disk_write_result, verify_bytes, "verify_bytes", .unit = "bytes"),
    PS_FIELD_ARRAY(struct disk_write_result, drives, n_drives, "drives", &drive_fields),
};
static const struct ps_fields disk_write_fields = PS_FIELDS(struct disk_write_result, disk_write_f);

/* Opens and completions of tests/unit/test_disk_write.c (which includes this file). */
static const struct ps_uio_faults *disk_write_faults;

struct target {
	struct ps_ctx *ctx;
	const struct ps_drive *inv;
	struct drive_result *out;
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
	struct ps_measure_bar bar; /* the matrix: a point's runs */
	bool verifying;		   /* the verify pass: bytes past progress_base */
	uint64_t progress_base;
};

static const struct write_plan *plan_of(const struct ps_ctx *ctx)
{
	return ctx->plan && ctx->plan->level == PS_PLAN_FULL ? &plans[1] : &plans[0];
}

/* The noise rule over a point's MB/s: a warm-up run, the plan's runs, more while noisy. */
static struct ps_noise_rule noise_rule(const struct write_plan *p)
{
	return (struct ps_noise_rule){
	    .warmup = 1, .runs = p->runs, .max_runs = p->max_runs, .cv_limit_pct = p->noise_cv_pct};
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

	if (t->verifying)
		ps_progress_set(t->ctx, t->progress_base + bytes);
	else
		ps_measure_bar_within(&t->bar, bytes);
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
	struct write_error *e;

	if (ps_lba_ranges_add(&t->bad, lba, last) <= 0)
		return;
	if (t->error_findings++ < MAX_ERROR_FINDINGS)
		ps_find(t->ctx, &f, "%s (%s) at LBA %llu-%llu (%s)", f.rule, strerror(err),
			(unsigned long long)lba, (unsigned long long)last, t->pass_name);
	if (t->out->n_errors >= MAX_ERROR_ENTRIES)
		return;
	e = &t->out->errors[t->out->n_errors++];
	e->lba = lba;
	e->lba_count = last - lba + 1;
	snprintf(e->error, sizeof(e->error), "%s", strerror(err));
	snprintf(e->pass, sizeof(e->pass), "%s", t->pass_name);
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

static struct ps_uio_job job_for(struct target *t, const struct ps_io_point *m, uint64_t off,
				 uint64_t len, double budget)
{
	return (struct ps_uio_job){.fd = t->fd,
				   .size = t->size,
				   /* random positions come from [offset, size): the whole drive */
				   .offset = m->pattern == PS_IO_RAND ? 0 : off,
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
				   .random = m->pattern == PS_IO_RAND,
				   .write = true,
				   .fill = fill_plain,
				   .data_arg = t};
}

static int engine_failed(struct target *t, int err, const struct ps_uio_result *res)
{
	snprintf(t->out->engine_error, sizeof(t->out->engine_error), "%s %s: %s", t->pass_name,
		 t->path, strerror(-err));
	if (res->device_gone || ps_uio_device_gone(-err)) {
		ps_findf(t->ctx, PS_SEV_FAIL, ps_drive_ref(t->inv), "drive_gone",
			 "%s: the drive went away; check its cable and power",
			 t->out->engine_error);
		return -ENODEV;
	}
	ps_findf(t->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "engine_error",
		 "%s: %s: the measurement stopped; this is not a fault of the drive", t->inv->name,
		 t->out->engine_error);
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

/* One point on one drive, as the measuring engine's run() sees it. */
struct point_run {
	struct target *t;
	const struct write_plan *p;
	const struct ps_io_point *m;
	uint64_t per_run;
	struct ps_lat_hist lat;
	struct ps_uio_result res;
};

/*
 * A run of the point: v[0] MB/s, v[1] IOPS. The warm-up writes half a run
 * at the start of the drive (enough to wake it, no more writes than needed);
 * the runs write at regions spread over the drive (engines/io/matrix.h).
 */
static int point_run(void *arg, unsigned int i, double *v)
{
	struct point_run *pr = arg;
	bool warm = i == PS_MEASURE_WARMUP;
	uint64_t off = ps_io_run_offset(pr->t->size, i, pr->p->runs, pr->m->bs);
	struct ps_uio_job j = job_for(pr->t, pr->m, off, warm ? pr->per_run / 2 : pr->per_run,
				      warm ? pr->p->time_budget_s / 2 : pr->p->time_budget_s);
	struct ps_lat_hist rl;
	double secs;
	int err;

	ps_lat_init(&rl);
	if (!warm) {
		j.lat = &rl;
		j.seed = 0x9E3779B97F4A7C15ULL * (i + 1);
	}
	err = timed_write(pr->t, &j, &pr->res, &secs);
	if (err < 0)
		return err;
	if (!pr->res.bytes || pr->t->aborted)
		return PS_MEASURE_NO_FIGURE;
	ps_lat_merge(&pr->lat, &rl);
	v[0] = ps_mbps(pr->res.bytes, secs);
	v[1] = ps_iops(pr->res.ios, secs);
	return 0;
}

/* One point of the matrix under the noise rule; 0, or -errno when the engine could not go on. */
static int measure(struct target *t, const struct write_plan *p, const struct ps_io_point *m)
{
	struct point_run pr = {.t = t, .p = p, .m = m};
	struct ps_measure me = {.rule = noise_rule(p),
				.nfig = 2,
				.run = point_run,
				.arg = &pr,
				.should_stop = should_stop,
				.stop_arg = t,
				.progress = ps_measure_bar_hook,
				.progress_arg = &t->bar};
	struct ps_figure figs[2];
	struct write_row *r;
	char bs[16], name[64], phase[96];
	int err;

	pr.per_run = t->size < p->byte_budget ? t->size : p->byte_budget;
	ps_lat_init(&pr.lat);
	ps_io_bs_text(m->bs, bs, sizeof(bs));
	snprintf(name, sizeof(name), "write %s %s QD%u", m->pattern == PS_IO_RAND ? "rand" : "seq",
		 bs, m->qd);
	t->pass_name = name;
	snprintf(phase, sizeof(phase), "%s %s", t->inv->name, name);
	ps_measure_bar_start(&t->bar, t->ctx, phase, ps_measure_planned(&me.rule), pr.per_run, "B");
	err = ps_measure_run(&me, figs);
	if (err == -ECANCELED)
		err = 0; /* aborted: what was measured stays */
	if (figs[0].n == 0)
		return err ? engine_failed(t, err, &pr.res) : 0;
	r = ps_fields_grow(&row_fields, &t->out->results, &t->out->n_results);
	if (!r)
		return -ENOMEM;
	r->pattern = m->pattern;
	r->bs = m->bs;
	r->qd = m->qd;
	r->direct = t->direct;
	r->mbps = figs[0];
	r->median_iops = figs[1].median;
	ps_io_lat_us_of(&pr.lat, &r->lat);
	ps_find_unstable(t->ctx, ps_drive_ref(t->inv), "unstable_throughput", &r->mbps, "MB/s", 1,
			 name, "another load, or a drive that is not steady");
	return err ? engine_failed(t, err, &pr.res) : 0;
}

static void verify_finding(struct target *t)
{
	uint64_t bad = t->check.sectors - t->check.ok;
	struct ps_finding f = {.severity = PS_SEV_FAIL,
			       .dev = ps_drive_ref(t->inv),
			       .rule = "verify_mismatch",
			       .value = (double)bad,
			       .limit = 0,
			       .unit = "sectors"};
	char claims[64] = "";

	if (t->check.found_lba != UINT64_MAX)
		snprintf(claims, sizeof(claims), "; the first misdirected one holds LBA %llu",
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

/* Segment i of nseg of seg bytes: written with the pattern (pass 0) or read back and checked. */
static int verify_segment(struct target *t, struct verify_result *v, unsigned int pass,
			  uint64_t off, uint64_t seg, struct ps_uio_result *res)
{
	static const struct ps_io_point wr = {PS_IO_SEQ, 1 * PS_MIB, 8};
	struct ps_uio_job j = job_for(t, &wr, off, seg, 0);
	struct verify_region *r;
	double secs;
	int err;

	if (pass) {
		j.write = false;
		j.fill = NULL;
		j.on_data = verify_data;
		err = ps_uio_read(&j, res);
		v->checked_bytes += res->bytes;
		return err;
	}
	j.fill = fill_pattern;
	err = timed_write(t, &j, res, &secs);
	v->written_bytes += res->bytes;
	r = ps_fields_grow(&region_fields, &v->regions, &v->n_regions);
	if (r) {
		r->first = off / t->lsec;
		r->last = (off + seg) / t->lsec - 1;
	}
	return err;
}

/* Write the LBA pattern over regions spread across the drive, then read it back. */
static int verify(struct target *t, const struct write_plan *p)
{
	uint64_t total = t->size < p->verify_bytes ? t->size : p->verify_bytes;
	uint64_t seg = total / VERIFY_SEGMENTS / PS_MIB * PS_MIB;
	struct verify_result *v = ps_fields_new(&verify_fields, 1);
	struct ps_uio_result res = {0};
	unsigned int nseg = seg ? VERIFY_SEGMENTS : 1;
	int err = 0;

	if (!v)
		return -ENOMEM;
	t->out->verify = v;
	if (!seg)
		seg = total / t->lsec * t->lsec;
	ps_pattern_check_init(&t->check);
	ps_progress_phase(t->ctx, "write then verify", 2 * seg * nseg, "B");
	t->verifying = true;
	for (unsigned int pass = 0; pass < 2 && err == 0 && !t->aborted; pass++) {
		t->pass_name = pass ? "verify read" : "verify write";
		if (pass) /* what is read back must come from the drive, not a cache */
			posix_fadvise(t->fd, 0, 0, POSIX_FADV_DONTNEED);
		for (unsigned int i = 0; i < nseg && err == 0 && !should_stop(t); i++) {
			uint64_t off =
			    nseg > 1 ? (t->size - seg) * i / (nseg - 1) / PS_MIB * PS_MIB : 0;

			t->progress_base = pass * seg * nseg + seg * i;
			err = verify_segment(t, v, pass, off, seg, &res);
		}
	}
	t->verifying = false;
	v->pass_id = t->pat.pass & INT64_MAX;
	v->sectors = t->check.sectors;
	v->ok = t->check.ok;
	v->misdirected = t->check.misdirected;
	v->stale = t->check.stale;
	v->foreign = t->check.foreign;
	v->corrupt = t->check.corrupt;
	v->first_bad_lba =
	    t->check.first_bad_lba == UINT64_MAX ? -1 : (int64_t)t->check.first_bad_lba;
	v->clean = !t->aborted && err == 0 && v->checked_bytes == v->written_bytes &&
		   v->written_bytes > 0 && t->check.ok == t->check.sectors;
	if (t->check.ok != t->check.sectors)
		verify_finding(t);
	return err < 0 ? engine_failed(t, err, &res) : 0;
}

/* The drive's headline: medians of seq 1M QD8 MB/s and random 4K QD32 IOPS. */
static void headline(struct drive_result *o)
{
	for (size_t i = 0; i < o->n_results; i++) {
		const struct write_row *r = &o->results[i];

		if (ps_io_point_is_seq_headline(r->pattern, r->bs, r->qd))
			o->seq_mbps = r->mbps.median;
		else if (ps_io_point_is_rand_headline(r->pattern, r->bs, r->qd))
			o->rand_iops = r->median_iops;
	}
}

/* Write to one confirmed drive; false when it could not be opened for writing. */
static bool write_drive(struct target *t, const struct write_plan *p)
{
	int ret = 0;

	t->lsec = t->inv->logical_sector > 0 ? (unsigned int)t->inv->logical_sector : 512;
	t->fd = ps_uio_open_rw(t->path, true, &t->direct, disk_write_faults);
	if (t->fd < 0 || ps_uio_size(t->fd, &t->size) < 0 || t->size < PS_MIB) {
		snprintf(t->out->reason, sizeof(t->out->reason),
			 "cannot open %.400s for writing: %s", t->path,
			 t->fd == -EBUSY ? "in use by the kernel (mounted or held), so refused"
			 : t->fd < 0	 ? strerror(-t->fd)
					 : "smaller than 1 MiB");
		t->out->decision = "refused";
		ps_findf(t->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "refused", "%s: %s",
			 t->inv->name, t->out->reason);
		if (t->fd >= 0)
			close(t->fd);
		t->fd = -1;
		return false;
	}
	t->pat = (struct ps_pattern){.lsec = t->lsec,
				     .pass = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32,
				     .tag = ps_pattern_tag(t->inv->serial)};
	t->out->results = ps_fields_new(&row_fields, 0);
	for (size_t i = 0; i < p->n_matrix && ret >= 0 && !t->aborted; i++)
		ret = measure(t, p, &p->matrix[i]);
	if (ret >= 0 && !t->aborted)
		verify(t, p);
	close(t->fd);
	headline(t->out);
	if (!t->aborted && t->out->verify && t->out->verify->clean)
		ps_examined(t->ctx, ps_drive_ref(t->inv), "written",
			    "wrote sequential 1M QD8 %.0f MB/s, random 4K QD32 %.0f IOPS; %llu MiB "
			    "written and read back intact",
			    t->out->seq_mbps, t->out->rand_iops,
			    (unsigned long long)(t->out->verify->written_bytes >> 20));
	return true;
}

/* A confirmed serial that matches no drive of this machine: said, since nothing is written. */
static void unmatched_serials(struct ps_ctx *ctx, const struct ps_scratch_list *named)
{
	for (size_t i = 0; i < named->n; i++) {
		struct ps_scratch_list one = {.n = 1};
		bool found = false;

		snprintf(one.serial[0], sizeof(one.serial[0]), "%s", named->serial[i]);
		for (size_t k = 0; k < ctx->inv->n_drives && !found; k++)
			found = ps_scratch_listed(&one, ctx->inv->drives[k].serial);
		if (!found)
			ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "not_found",
				 "scratch serial %s matches no drive of this machine: nothing "
				 "written for it",
				 named->serial[i]);
	}
}

static int run(struct ps_ctx *ctx)
{
	const struct write_plan *p = plan_of(ctx);
	struct disk_write_result *out = ctx->result;
	unsigned int written = 0;
	bool aborted = false, bad = false;

	out->plan = p == &plans[1];
	out->rule = noise_rule(p);
	out->verify_bytes = p->verify_bytes;
	out->named = json_object_new_array();
	out->drives = ps_fields_new(&drive_fields, ctx->inv->n_drives);
	if (!out->named || !out->drives)
		return -ENOMEM;
	for (size_t i = 0; ctx->cfg && i < ctx->cfg->scratch_list.n; i++)
		json_object_array_add(out->named,
				      json_object_new_string(ctx->cfg->scratch_list.serial[i]));
	if (ctx->cfg)
		unmatched_serials(ctx, &ctx->cfg->scratch_list);
	for (size_t i = 0; i < ctx->inv->n_drives && !aborted; i++) {
		struct target t = {.ctx = ctx, .inv = &ctx->inv->drives[i], .fd = -1};
		struct ps_drive_use use;
		enum ps_scratch_verdict v;

		t.out = &out->drives[out->n_drives++];
		snprintf(t.out->name, sizeof(t.out->name), "%s", t.inv->name);
		t.out->device = t.inv->id;
		t.out->serial = t.inv->serial;
		ps_path(t.path, sizeof(t.path), ctx->root, "/dev/%s", t.inv->name);
		v = ps_scratch_decide_for(ctx, t.inv, t.path, NULL, &use, t.out->reason,
					  sizeof(t.out->reason));
		t.out->decision = ps_scratch_verdict_name(v);
		if (v != PS_SCRATCH_OK)
			continue;
		/* the record of what was there before it was overwritten */
		t.out->held_before = ps_drive_use_json(&use);
		if (write_drive(&t, p)) {
			written++;
			bad = bad || t.bad.n || (t.out->verify && !t.out->verify->clean);
		}
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
    PS_IO_HEADLINE_COLS,
    {.path = "/verify/clean", .title = "verify clean", .fmt = PS_FMT_BOOL},
    {.path = "/verify/checked_bytes", .title = "verified", .fmt = PS_FMT_BYTES},
};

static const struct ps_col mat_cols[] = {PS_IO_MATRIX_COLS};

static const struct ps_col ver_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/verify/sectors", .title = "sectors"},
    {.path = "/verify/misdirected", .title = "misdirected", .better = PS_BETTER_LOWER},
    {.path = "/verify/stale", .title = "stale", .better = PS_BETTER_LOWER},
    {.path = "/verify/foreign", .title = "unwritten", .better = PS_BETTER_LOWER},
    {.path = "/verify/corrupt", .title = "corrupt", .better = PS_BETTER_LOWER},
    {.path = "/verify/first_bad_lba", .title = "first bad LBA"},
};

static const struct ps_col dec_cols[] = {PS_SCRATCH_DECISION_COLS};

static const struct ps_block blocks[] = {
    PS_IO_SUMMARY_BLOCK("Writes on confirmed scratch drives (O_DIRECT, each run flushed)", sum_cols,
			"no drive was written"),
    PS_IO_MATRIX_BLOCK("Write matrix (median of the runs after a warm-up run)", mat_cols),
    {.kind = PS_BLOCK_TABLE,
     .id = "verify",
     .title = "Write then verify (each sector holds its own LBA)",
     .rows = "/drives",
     .when = "/verify",
     .cols = PS_COLS(ver_cols)},
    PS_SCRATCH_DECISIONS_BLOCK(dec_cols),
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
    .result = &disk_write_fields,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(disk_write_ops);
