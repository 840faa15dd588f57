/*
 * disk_read.c - how fast every drive but the boot stick reads (TESTPLAN 3):
 * the CrystalDiskMark / KDiskMark matrix through io_uring with O_DIRECT on
 * the raw device, each figure N runs after a discarded warm-up run, regions
 * spread over the whole drive, user-side latency percentiles beside the
 * module's histograms of the same reads, and hdparm -tT style timing.
 */
/* clang-format off */
//config:config STEP_DISK_READ
//config:	bool "disk_read: read throughput, IOPS and latency per drive (read-only)"
//config:	default y
//config:	help
//config:	  Reads every drive the inventory found, except the stick probestick
//config:	  booted from, with O_DIRECT through io_uring. Quick plan: sequential
//config:	  1 MiB at queue depth 8 and random 4 KiB at QD32. Full plan: the
//config:	  matrix (sequential 4K, 16K, 64K, 256K, 1M at QD1, 1M at QD8, random
//config:	  4K at QD1 and QD32) and hdparm -tT style cached/buffered timing.
//config:	  Each figure: a discarded warm-up run, then N runs at regions spread
//config:	  over the drive with min, median, max and their spread; latency
//config:	  percentiles of every request. Read errors are findings with their
//config:	  LBAs. Nothing is written.
//kbuild:step-$(CONFIG_STEP_DISK_READ) += disk_read.o
/* clang-format on */

#include "core/step.h"
#include "engines/io/lba_ranges.h"
#include "engines/io/matrix.h"
#include "engines/io/uring_io.h"
#include "engines/measure.h"
#include "lib/stats.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA_VERSION 1

#define MAX_RUNS	   10
#define MAX_ERROR_ENTRIES  32 /* per drive in data.errors */
#define MAX_ERROR_FINDINGS 8  /* per drive, then one finding with the count */

struct read_plan {
	const char *name;
	const struct ps_io_point *matrix;
	size_t n_matrix;
	unsigned int runs;
	unsigned int max_runs; /* while the runs' CV is above noise_cv_pct: more runs, to this */
	double noise_cv_pct;
	uint64_t byte_budget; /* per run */
	double time_budget_s; /* per run, the warm-up's too */
	bool hdparm;	      /* cached and buffered timing */
};

static const struct read_plan plans[] = {
    {"quick", ps_io_quick_matrix, PS_ARRAY_SIZE(ps_io_quick_matrix), 3, 5, 10.0, 1024ULL * PS_MIB,
     1.0, false},
    {"full", ps_io_full_matrix, PS_ARRAY_SIZE(ps_io_full_matrix), 5, 10, 5.0, 4096ULL * PS_MIB, 2.0,
     true},
};

/* hdparm -tT: buffered reads of 2 MiB for 2 s, cached re-reads of 2 MiB for 1 s. */
#define HDPARM_CHUNK	  (2U * PS_MIB)
#define HDPARM_BUFFERED_S 2.0
#define HDPARM_CACHED_S	  1.0

/* ---- the result: data{} as a struct, described once ---- */

/* One point of the matrix on one drive. */
struct read_row {
	int pattern; /* enum ps_io_pattern */
	unsigned int bs, qd;
	bool direct;
	struct ps_figure mbps;
	double iops, median_iops; /* over all the runs, and the runs' median */
	uint64_t bytes, ios;
	double seconds;
	bool time_limited, aborted;
	struct ps_io_lat_us lat;
};

struct read_error {
	uint64_t lba, lba_count, offset;
	unsigned int bytes;
	char error[64];
	int err;
	char pass[64];
};

/* Every O_DIRECT request of the step on a drive, user side, in ns. */
struct user_lat {
	const char *unit;
	uint64_t count, mean, p50, p90, p99, p99_9, max;
};

struct drive_result {
	char name[32];
	const char *device;
	int64_t size_bytes; /* -1 until opened */
	char skipped_reason[4200], engine_error[4400];
	double seq_mbps, rand_iops; /* the headline: medians of seq 1M QD8 and rand 4K QD32 */
	double buffered_mbps, cached_mbps;
	struct user_lat *user_latency;
	int64_t bad_sectors;
	struct ps_lba_range_row *bad_ranges;
	size_t n_bad_ranges;
	struct read_error errors[MAX_ERROR_ENTRIES];
	size_t n_errors;
	struct read_row *results;
	size_t n_results;
};

struct disk_read_result {
	int plan; /* index in plans[] */
	struct ps_noise_rule rule;
	uint64_t byte_budget;
	double time_budget_s;
	struct drive_result *drives;
	size_t n_drives;
};

static const char *const plan_names[] = {"quick", "full", NULL};

static const struct ps_field row_f[] = {
    PS_FIELD_ENUM(struct read_row, pattern, "pattern", ps_io_pattern_names),
    PS_FIELD(struct read_row, bs, "bs", .unit = "bytes"),
    PS_FIELD(struct read_row, qd, "qd"),
    PS_FIELD(struct read_row, direct, "direct", .help = "O_DIRECT (false: buffered)"),
    PS_FIELD(struct read_row, mbps, "mbps", .unit = "MB/s", .decimals = 1, .flags = PS_FLD_WARMUP),
    PS_FIELD(struct read_row, iops, "iops", .decimals = 0),
    PS_FIELD(struct read_row, median_iops, "median_iops", .decimals = 0),
    PS_FIELD(struct read_row, bytes, "bytes"),
    PS_FIELD(struct read_row, ios, "ios"),
    PS_FIELD(struct read_row, seconds, "seconds", .unit = "s", .decimals = 3),
    PS_FIELD(struct read_row, time_limited, "time_limited"),
    PS_FIELD_OBJ(struct read_row, lat, "lat_us", &ps_io_lat_us_fields),
    PS_FIELD(struct read_row, aborted, "aborted", .flags = PS_FLD_OMIT),
};
static const struct ps_fields row_fields = PS_FIELDS(struct read_row, row_f);

static const struct ps_field error_f[] = {
    PS_FIELD(struct read_error, lba, "lba"),
    PS_FIELD(struct read_error, lba_count, "lba_count"),
    PS_FIELD(struct read_error, offset, "offset"),
    PS_FIELD(struct read_error, bytes, "bytes"),
    PS_FIELD(struct read_error, error, "error"),
    PS_FIELD(struct read_error, err, "errno"),
    PS_FIELD(struct read_error, pass, "pass"),
};
static const struct ps_fields error_fields = PS_FIELDS(struct read_error, error_f);

static const struct ps_field user_lat_f[] = {
    PS_FIELD(struct user_lat, unit, "unit"),   PS_FIELD(struct user_lat, count, "count"),
    PS_FIELD(struct user_lat, mean, "mean"),   PS_FIELD(struct user_lat, p50, "p50"),
    PS_FIELD(struct user_lat, p90, "p90"),     PS_FIELD(struct user_lat, p99, "p99"),
    PS_FIELD(struct user_lat, p99_9, "p99_9"), PS_FIELD(struct user_lat, max, "max"),
};
static const struct ps_fields user_lat_fields = PS_FIELDS(struct user_lat, user_lat_f);

static const struct ps_field drive_f[] = {
    PS_FIELD(struct drive_result, name, "name"),
    PS_FIELD(struct drive_result, device, "device", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive_result, size_bytes, "size_bytes", .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct drive_result, skipped_reason, "skipped_reason", .flags = PS_FLD_OMIT),
    PS_FIELD(struct drive_result, engine_error, "engine_error", .flags = PS_FLD_OMIT),
    PS_FIELD(struct drive_result, seq_mbps, "seq_mbps", .unit = "MB/s", .decimals = 1,
	     .flags = PS_FLD_NULL | PS_FLD_NEWER),
    PS_FIELD(struct drive_result, rand_iops, "rand_iops", .decimals = 0,
	     .flags = PS_FLD_NULL | PS_FLD_NEWER),
    PS_FIELD(struct drive_result, buffered_mbps, "buffered_mbps", .unit = "MB/s", .decimals = 1,
	     .flags = PS_FLD_OMIT),
    PS_FIELD(struct drive_result, cached_mbps, "cached_mbps", .unit = "MB/s", .decimals = 1,
	     .flags = PS_FLD_OMIT),
    PS_FIELD_OBJP(struct drive_result, user_latency, "user_latency", &user_lat_fields,
		  .flags = PS_FLD_NEWER),
    PS_FIELD(struct drive_result, bad_sectors, "bad_sectors", .flags = PS_FLD_NEWER),
    PS_FIELD_ARRAY(struct drive_result, bad_ranges, n_bad_ranges, "bad_ranges",
		   &ps_lba_range_row_fields, .flags = PS_FLD_NEWER),
    PS_FIELD_ARRAY(struct drive_result, errors, n_errors, "errors", &error_fields),
    PS_FIELD_ARRAY(struct drive_result, results, n_results, "results", &row_fields),
};
static const struct ps_fields drive_fields = PS_FIELDS(struct drive_result, drive_f);

static const struct ps_field disk_read_f[] = {
    PS_FIELD_ENUM(struct disk_read_result, plan, "plan", plan_names),
    PS_FIELD(struct disk_read_result, rule.runs, "runs"),
    PS_FIELD(struct disk_read_result, rule.warmup, "warmup_runs"),
    PS_FIELD(struct disk_read_result, rule.max_runs, "max_runs"),
    PS_FIELD(struct disk_read_result, rule.cv_limit_pct, "noise_cv_pct", .unit = "%",
	     .decimals = 1),
    PS_FIELD(struct disk_read_result, byte_budget, "byte_budget", .unit = "bytes per run"),
    PS_FIELD(struct disk_read_result, time_budget_s, "time_budget_s", .unit = "s per run",
	     .decimals = 1),
    PS_FIELD_ARRAY(struct disk_read_result, drives, n_drives, "drives", &drive_fields),
};
static const struct ps_fields disk_read_fields = PS_FIELDS(struct disk_read_result, disk_read_f);

/* Faults injected into opens and reads: only tests/unit/test_disk_read.c, which
 * includes this file, sets it, to reach the read-error and fallback paths. */
static const struct ps_uio_faults *disk_read_faults;

/* What one drive's measurement carries into the engine's callbacks. */
struct drive {
	struct ps_ctx *ctx;
	const struct ps_drive *inv;
	struct drive_result *out;
	char path[4096];
	unsigned int lsec;	  /* logical sector: LBAs in messages */
	struct ps_lba_ranges bad; /* distinct failing sectors, all passes */
	unsigned int error_findings;
	uint64_t unlisted;	    /* failing pieces with new sectors after the findings' cap */
	const char *pass;	    /* "o_direct seq bs=1M qd=8", "buffered" */
	struct ps_measure_bar bar;  /* the point's runs on the step's bar */
	bool timed_bar;		    /* hdparm: bytes of no known total */
	struct ps_lat_hist all_lat; /* every O_DIRECT request of the step: beside probes.block */
	bool aborted;
};

static const struct read_plan *plan_of(const struct ps_ctx *ctx)
{
	return ctx->plan && ctx->plan->level == PS_PLAN_FULL ? &plans[1] : &plans[0];
}

/*
 * How many runs a figure gets: the noise rule (lib/stats.h): a discarded
 * warm-up run, the plan's runs, more while their CV of MB/s is above the
 * plan's limit, up to its cap; still above it then: "noisy".
 */
static struct ps_noise_rule noise_rule(const struct read_plan *p)
{
	return (struct ps_noise_rule){.warmup = 1,
				      .runs = p->runs,
				      .max_runs = p->max_runs < MAX_RUNS ? p->max_runs : MAX_RUNS,
				      .cv_limit_pct = p->noise_cv_pct};
}

static bool should_stop(void *arg)
{
	struct drive *d = arg;

	d->aborted = d->aborted || ps_should_abort(d->ctx);
	return d->aborted;
}

static void on_progress(void *arg, uint64_t bytes)
{
	struct drive *d = arg;

	if (d->timed_bar)
		ps_progress_set(d->ctx, bytes);
	else
		ps_measure_bar_within(&d->bar, bytes);
}

static void on_read_error(void *arg, uint64_t off, unsigned int len, int err)
{
	struct drive *d = arg;
	uint64_t lba = off / d->lsec, last = (off + len - 1) / d->lsec;
	struct ps_finding f = {.severity = PS_SEV_FAIL,
			       .dev = ps_drive_ref(d->inv),
			       .rule = "read_error",
			       .value = (double)(last - lba + 1),
			       .limit = 0,
			       .unit = "sectors"};
	struct read_error *e;

	/* Runs overlap and passes repeat: only sectors not seen failing before are news. */
	if (ps_lba_ranges_add(&d->bad, lba, last) <= 0)
		return;
	if (d->error_findings >= MAX_ERROR_FINDINGS) {
		d->unlisted++;
	} else {
		d->error_findings++;
		ps_find(d->ctx, &f,
			"read error (%s) at LBA %llu-%llu: the drive cannot read these sectors; "
			"copy off its data and run the surface scan",
			strerror(err), (unsigned long long)lba, (unsigned long long)last);
	}
	if (d->out->n_errors >= MAX_ERROR_ENTRIES)
		return;
	e = &d->out->errors[d->out->n_errors++];
	e->lba = lba;
	e->lba_count = last - lba + 1;
	e->offset = off;
	e->bytes = len;
	snprintf(e->error, sizeof(e->error), "%s", strerror(err));
	e->err = err;
	snprintf(e->pass, sizeof(e->pass), "%s", d->pass ? d->pass : "");
}

static struct ps_uio_job job_for(struct drive *d, int fd, uint64_t size)
{
	return (struct ps_uio_job){
	    .fd = fd,
	    .size = size,
	    .check_ms = 50,
	    .should_stop = should_stop,
	    .stop_arg = d,
	    .progress = on_progress,
	    .on_error = on_read_error,
	    .error_arg = d,
	    .faults = disk_read_faults,
	};
}

/* Why the engine stopped, for the report: the drive left, or the engine itself. */
static int engine_stop(struct drive *d, int err, const struct ps_uio_result *res)
{
	char msg[4400];

	if (res->device_gone || ps_uio_device_gone(-err)) {
		snprintf(msg, sizeof(msg), "%s went away while it was read (%s)", d->path,
			 strerror(-err));
		snprintf(d->out->engine_error, sizeof(d->out->engine_error), "%s", msg);
		ps_findf(d->ctx, PS_SEV_FAIL, ps_drive_ref(d->inv), "drive_gone",
			 "%s: check its cable and power, and dmesg", msg);
		return -ENODEV;
	}
	snprintf(msg, sizeof(msg), "reading %s failed: %s", d->path, strerror(-err));
	snprintf(d->out->engine_error, sizeof(d->out->engine_error), "%s", msg);
	ps_findf(d->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "engine_error",
		 "%s: %s: the measurement stopped; this is not a fault of the drive", d->inv->name,
		 msg);
	return err;
}

/* One run of a point; 0 with *res, -errno when the engine stopped. */
static int one_run(struct drive *d, int *fd, bool *direct, uint64_t size,
		   const struct ps_io_point *m, uint64_t offset, uint64_t length, double budget_s,
		   uint64_t seed, struct ps_lat_hist *lat, struct ps_uio_result *res)
{
	char bs_text[16], pass[64];

	ps_io_bs_text(m->bs, bs_text, sizeof(bs_text));
	for (;;) {
		struct ps_uio_job j = job_for(d, *fd, size);
		int ret;

		snprintf(pass, sizeof(pass), "%s %s bs=%s qd=%u", *direct ? "o_direct" : "buffered",
			 m->pattern == PS_IO_RAND ? "rand" : "seq", bs_text, m->qd);
		d->pass = pass;
		/* the engine draws random positions from [offset, size): a random
		 * run reads the whole drive, only sequential runs start at their region */
		j.offset = m->pattern == PS_IO_RAND ? 0 : offset;
		j.length = length;
		j.bs = m->bs;
		j.qd = m->qd;
		j.time_budget_s = budget_s;
		j.lat = lat;
		j.random = m->pattern == PS_IO_RAND;
		j.seed = seed;
		ret = ps_uio_read(&j, res);
		if (ret == -EINVAL && *direct && res->bytes == 0) {
			/* Opened with O_DIRECT but the reads refuse it: measure buffered. */
			int nfd = ps_uio_open(d->path, false, direct, disk_read_faults);

			if (nfd < 0)
				return nfd;
			close(*fd);
			*fd = nfd;
			continue;
		}
		d->pass = NULL;
		return ret;
	}
}

/* One point on one drive, as the measuring engine's run() sees it. */
struct point_run {
	struct drive *d;
	const struct read_plan *p;
	const struct ps_io_point *m;
	int *fd;
	bool *direct;
	uint64_t size, per_run;
	struct ps_lat_hist lat;
	struct ps_uio_result res;
	uint64_t bytes, ios;
	double seconds;
	bool time_up;
};

/*
 * A run of the point (the warm-up reads the start of the drive, unseen by
 * the latency figures): v[0] MB/s, v[1] IOPS. The warm-up reads as much as a
 * run: on a drive smaller than the byte budget every run reads all of it,
 * and a shorter warm-up left the first run the only one to meet cold data
 * (in QEMU the host's page cache).
 */
static int point_run(void *arg, unsigned int i, double *v)
{
	struct point_run *pr = arg;
	bool warm = i == PS_MEASURE_WARMUP;
	struct ps_lat_hist run_lat;
	int err;

	ps_lat_init(&run_lat);
	err = one_run(pr->d, pr->fd, pr->direct, pr->size, pr->m,
		      ps_io_run_offset(pr->size, i, pr->p->runs, pr->m->bs), pr->per_run,
		      pr->p->time_budget_s, warm ? 0x5eed : 0x9E3779B97F4A7C15ULL * (i + 1),
		      warm ? NULL : &run_lat, &pr->res);
	if (err < 0)
		return err;
	if (warm)
		return pr->res.bytes && !pr->d->aborted
			   ? (v[0] = ps_mbps(pr->res.bytes, pr->res.seconds), 0)
			   : PS_MEASURE_NO_FIGURE;
	ps_lat_merge(&pr->lat, &run_lat);
	if (*pr->direct)
		ps_lat_merge(&pr->d->all_lat, &run_lat);
	v[0] = ps_mbps(pr->res.bytes, pr->res.seconds);
	v[1] = ps_iops(pr->res.ios, pr->res.seconds);
	pr->bytes += pr->res.bytes;
	pr->ios += pr->res.ios;
	pr->seconds += pr->res.seconds;
	pr->time_up = pr->time_up || pr->res.time_up;
	return 0;
}

/*
 * One point of the matrix under the noise rule: a warm-up run whose figure
 * is kept but not counted (a cold first run made every drive "unstable"),
 * then the runs at regions spread over the drive. A sequential run reads the
 * byte budget (or the whole drive) or stops at the time budget; a random one
 * reads at random positions of the whole drive until the budget.
 * 0, or -errno when the engine could not go on.
 */
static int measure(struct drive *d, int *fd, bool *direct, uint64_t size, const struct read_plan *p,
		   const struct ps_io_point *m)
{
	struct point_run pr = {.d = d, .p = p, .m = m, .fd = fd, .direct = direct, .size = size};
	struct ps_measure me = {.rule = noise_rule(p),
				.nfig = 2,
				.run = point_run,
				.arg = &pr,
				.should_stop = should_stop,
				.stop_arg = d,
				.progress = ps_measure_bar_hook,
				.progress_arg = &d->bar};
	struct ps_figure figs[2];
	struct read_row *r;
	char bs_text[16], phase[96], what[96];
	int err;

	pr.per_run = size < p->byte_budget ? size : p->byte_budget;
	ps_lat_init(&pr.lat);
	ps_io_bs_text(m->bs, bs_text, sizeof(bs_text));
	snprintf(phase, sizeof(phase), "%s %s %s QD%u", d->inv->name,
		 m->pattern == PS_IO_RAND ? "rand" : "seq", bs_text, m->qd);
	ps_measure_bar_start(&d->bar, d->ctx, phase, ps_measure_planned(&me.rule), pr.per_run, "B");
	err = ps_measure_run(&me, figs);
	if (err == -ECANCELED)
		err = 0; /* aborted: what was measured stays, marked */
	if (figs[0].n == 0)
		return err ? engine_stop(d, err, &pr.res) : 0;
	r = ps_fields_grow(&row_fields, &d->out->results, &d->out->n_results);
	if (!r)
		return -ENOMEM;
	r->pattern = m->pattern;
	r->bs = m->bs;
	r->qd = m->qd;
	r->direct = *direct;
	r->mbps = figs[0];
	r->iops = ps_iops(pr.ios, pr.seconds);
	r->median_iops = figs[1].median;
	r->bytes = pr.bytes;
	r->ios = pr.ios;
	r->seconds = pr.seconds;
	r->time_limited = pr.time_up;
	r->aborted = d->aborted;
	ps_io_lat_us_of(&pr.lat, &r->lat);
	snprintf(what, sizeof(what), "%s %s reads at QD%u",
		 m->pattern == PS_IO_RAND ? "random" : "sequential", bs_text, m->qd);
	ps_find_unstable(d->ctx, ps_drive_ref(d->inv), "unstable_throughput", &r->mbps, "MB/s", 1,
			 what, "another load, or a drive that is not steady");
	if (err)
		return engine_stop(d, err, &pr.res);
	return 0;
}

/* hdparm -tT: buffered = what read() gets from the drive through the page cache
 * (dropped first), cached = the page cache alone. */
static void hdparm_times(struct drive *d, uint64_t size)
{
	struct ps_uio_result res;
	struct ps_uio_job j;
	uint64_t region = (size < HDPARM_CHUNK ? size : HDPARM_CHUNK) / PS_UIO_ALIGN * PS_UIO_ALIGN;
	int fd = ps_uio_open(d->path, false, NULL, disk_read_faults);
	char phase[96];

	if (fd < 0)
		return;
	snprintf(phase, sizeof(phase), "%s cached/buffered", d->inv->name);
	ps_progress_phase(d->ctx, phase, 0, "B");
	d->pass = "buffered";
	d->timed_bar = true;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	j = job_for(d, fd, size);
	j.length = size;
	j.bs = HDPARM_CHUNK;
	j.qd = 1;
	j.time_budget_s = HDPARM_BUFFERED_S;
	if (ps_uio_read(&j, &res) == 0 && res.bytes && !d->aborted)
		d->out->buffered_mbps = ps_mbps(res.bytes, res.seconds);
	if (region == 0 || d->aborted) {
		d->timed_bar = false;
		close(fd);
		return;
	}
	d->pass = "cached";
	j = job_for(d, fd, region);
	j.progress = NULL;
	j.length = region; /* fills the cache; not timed */
	j.bs = HDPARM_CHUNK;
	j.qd = 1;
	if (ps_uio_read(&j, &res) == 0 && res.bytes == region && !d->aborted) {
		j.length = UINT64_MAX / 2; /* wraps over the same pages until the time is up */
		j.time_budget_s = HDPARM_CACHED_S;
		if (ps_uio_read(&j, &res) == 0 && res.bytes && !d->aborted)
			d->out->cached_mbps = ps_mbps(res.bytes, res.seconds);
	}
	d->timed_bar = false;
	close(fd);
}

static const char *open_hint(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return geteuid() == 0
			   ? "denied to root: a container or security policy (device "
			     "cgroup, lockdown) forbids raw reads; boot the stick instead"
			   : "run probestick as root";
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return "the device is gone or its driver did not bind: check dmesg and the cable";
	case ENOMEDIUM:
		return "insert a medium to measure it";
	default:
		return "check dmesg for the drive's errors";
	}
}

/* Why a drive is not measured, or NULL when it is a target. */
static const char *skip_reason(struct ps_ctx *ctx, const struct ps_drive *drv, const char *path,
			       char *buf, size_t len)
{
	struct stat st;

	if (!drv->name[0] || strchr(drv->name, '/'))
		return "no usable name in the inventory";
	if (drv->boot_device)
		return "the boot stick: never touched";
	if (drv->size_bytes == 0)
		return drv->removable == 1 ? "removable media absent (size 0)" : "size 0";
	if (stat(path, &st) < 0)
		return NULL; /* open() says why, with a hint */
	if (ctx->root && ctx->root[0] && !S_ISREG(st.st_mode)) {
		snprintf(buf, len, "fixture root: %s is not a regular file", path);
		return buf;
	}
	if ((!ctx->root || !ctx->root[0]) && !S_ISBLK(st.st_mode)) {
		snprintf(buf, len, "%s is not a block device", path);
		return buf;
	}
	return NULL;
}

enum drive_outcome { D_SKIPPED, D_MEASURED, D_FAILED };

static enum drive_outcome run_drive(struct drive *d, const struct read_plan *p)
{
	char reason[4200];
	const char *why;
	bool direct = false;
	uint64_t size = 0;
	int fd, ret = 0;

	why = skip_reason(d->ctx, d->inv, d->path, reason, sizeof(reason));
	if (why) {
		snprintf(d->out->skipped_reason, sizeof(d->out->skipped_reason), "%s", why);
		return D_SKIPPED;
	}
	d->lsec = d->inv->logical_sector > 0 ? (unsigned int)d->inv->logical_sector : 512;
	fd = ps_uio_open(d->path, true, &direct, disk_read_faults);
	if (fd >= 0)
		ret = ps_uio_size(fd, &size);
	if (fd < 0 || ret < 0) {
		int err = fd < 0 ? -fd : -ret;

		snprintf(reason, sizeof(reason), "cannot %s %s: %s",
			 fd < 0 ? "open" : "read the size of", d->path, strerror(err));
		snprintf(d->out->skipped_reason, sizeof(d->out->skipped_reason), "%s", reason);
		ps_findf(d->ctx, PS_SEV_WARN, ps_drive_ref(d->inv), "open_failed", "%s: %s", reason,
			 open_hint(err));
		if (fd >= 0)
			close(fd);
		return D_FAILED;
	}
	if (size < PS_UIO_ALIGN) {
		snprintf(d->out->skipped_reason, sizeof(d->out->skipped_reason),
			 "%llu bytes: less than one 4 KiB block", (unsigned long long)size);
		close(fd);
		return D_SKIPPED;
	}
	d->out->size_bytes = (int64_t)size;
	for (size_t i = 0; i < p->n_matrix && !d->aborted; i++) {
		ret = measure(d, &fd, &direct, size, p, &p->matrix[i]);
		if (ret < 0)
			break;
	}
	close(fd);
	if (p->hdparm && !d->aborted && ret >= 0)
		hdparm_times(d, size);
	return d->out->n_results ? D_MEASURED : D_FAILED;
}

static void bad_ranges(struct drive *d)
{
	d->out->bad_ranges = ps_lba_range_rows(&d->bad, &d->out->n_bad_ranges);
	d->out->bad_sectors = (int64_t)ps_lba_ranges_sectors(&d->bad);
}

/* Every O_DIRECT request of the step on this drive, as the program saw it (ns,
 * the module's units): the block probe's histogram of the same reads is in
 * steps[].probes.block. */
static void user_latency(struct drive *d)
{
	const struct ps_lat_hist *l = &d->all_lat;
	struct user_lat *u;

	if (!l->count || !(u = ps_fields_new(&user_lat_fields, 1)))
		return;
	u->unit = "ns";
	u->count = l->count;
	u->mean = l->sum_ns / l->count;
	u->p50 = ps_lat_percentile(l, 50);
	u->p90 = ps_lat_percentile(l, 90);
	u->p99 = ps_lat_percentile(l, 99);
	u->p99_9 = ps_lat_percentile(l, 99.9);
	u->max = l->max_ns;
	d->out->user_latency = u;
}

/*
 * The drive's two headline figures, seq 1M QD8 MB/s and random 4K QD32 IOPS
 * (medians), and a measured drive's pass with them as the reason and the runs
 * they are of (the noise rule may have added some).
 */
static void headline(struct drive *d, bool measured)
{
	const struct read_row *seq = NULL, *rnd = NULL;
	char a[64] = "", b[64] = "", n[80];

	for (size_t i = 0; i < d->out->n_results; i++) {
		const struct read_row *r = &d->out->results[i];

		if (ps_io_point_is_seq_headline(r->pattern, r->bs, r->qd))
			seq = r;
		else if (ps_io_point_is_rand_headline(r->pattern, r->bs, r->qd))
			rnd = r;
	}
	d->out->seq_mbps = seq ? seq->mbps.median : NAN;
	d->out->rand_iops = rnd ? rnd->median_iops : NAN;
	if (!measured)
		return;
	if (seq)
		snprintf(a, sizeof(a), "sequential 1M QD8 %.0f MB/s", seq->mbps.median);
	if (rnd)
		snprintf(b, sizeof(b), "%srandom 4K QD32 %.0f IOPS", a[0] ? ", " : "",
			 rnd->median_iops);
	if (seq && rnd && seq->mbps.n != rnd->mbps.n)
		snprintf(n, sizeof(n), "medians of %u and %u runs", seq->mbps.n, rnd->mbps.n);
	else
		snprintf(n, sizeof(n), "medians of %u runs",
			 seq   ? seq->mbps.n
			 : rnd ? rnd->mbps.n
			       : 0);
	ps_examined(d->ctx, ps_drive_ref(d->inv), "measured", "read %s%s (%s)",
		    a[0] || b[0] ? a : "at the figures above", b, n);
}

static int run(struct ps_ctx *ctx)
{
	const struct read_plan *p = plan_of(ctx);
	struct disk_read_result *out = ctx->result;
	unsigned int measured = 0, targets = 0;
	uint64_t bad = 0;
	bool aborted = false;

	out->plan = p == &plans[1];
	out->rule = noise_rule(p);
	out->byte_budget = p->byte_budget;
	out->time_budget_s = p->time_budget_s;
	out->drives = ps_fields_new(&drive_fields, ctx->inv->n_drives);
	if (!out->drives)
		return -ENOMEM;
	for (size_t i = 0; i < ctx->inv->n_drives && !aborted; i++) {
		const struct ps_drive *drv = &ctx->inv->drives[i];
		struct drive d = {.ctx = ctx, .inv = drv, .out = &out->drives[out->n_drives++]};
		enum drive_outcome o;

		ps_lat_init(&d.all_lat);
		snprintf(d.out->name, sizeof(d.out->name), "%s",
			 drv->name[0] ? drv->name : "(unnamed)");
		d.out->device = drv->id;
		ps_path(d.path, sizeof(d.path), ctx->root, "/dev/%s", drv->name);
		o = run_drive(&d, p);
		bad_ranges(&d);
		if (d.unlisted)
			ps_findf(ctx, PS_SEV_FAIL, ps_drive_ref(drv), "read_error",
				 "%llu unreadable sectors in %zu ranges in all; %llu more failing "
				 "reads are not listed one by one (see data.bad_ranges)",
				 (unsigned long long)ps_lba_ranges_sectors(&d.bad), d.bad.n,
				 (unsigned long long)d.unlisted);
		bad += ps_lba_ranges_sectors(&d.bad);
		targets += o != D_SKIPPED;
		measured += o == D_MEASURED;
		if (o != D_SKIPPED) {
			headline(&d, o == D_MEASURED);
			user_latency(&d);
		}
		ps_lba_ranges_free(&d.bad);
		aborted = d.aborted;
	}
	if (aborted)
		return PS_ABORTED;
	if (bad)
		return PS_FAIL;
	if (targets == 0) {
		ps_step_reason(ctx, "no drive to measure (the boot stick is never one)");
		return PS_SKIPPED;
	}
	if (measured == 0)
		return -EIO;
	return PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	const struct read_plan *p = plan_of(ctx);
	unsigned int n = 0;

	for (size_t i = 0; i < ctx->inv->n_drives; i++)
		n += !ctx->inv->drives[i].boot_device && ctx->inv->drives[i].size_bytes != 0;
	return n * (p->n_matrix * (p->runs + 1) * p->time_budget_s +
		    (p->hdparm ? HDPARM_BUFFERED_S + HDPARM_CACHED_S + 1 : 0));
}

/* ---- view ---- */

static const struct ps_col sum_cols[] = {PS_IO_HEADLINE_COLS};

static const struct ps_col read_cols[] = {PS_IO_MATRIX_COLS};

static const struct ps_col lat_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/user_latency/count", .title = "requests", .flags = PS_COL_MEASURED},
    {.path = "/user_latency/p50", .title = "p50", .fmt = PS_FMT_NS, .better = PS_BETTER_LOWER},
    {.path = "/user_latency/p90", .title = "p90", .fmt = PS_FMT_NS, .better = PS_BETTER_LOWER},
    {.path = "/user_latency/p99", .title = "p99", .fmt = PS_FMT_NS, .better = PS_BETTER_LOWER},
    {.path = "/user_latency/p99_9", .title = "p99.9", .fmt = PS_FMT_NS, .better = PS_BETTER_LOWER},
    {.path = "/user_latency/max", .title = "max", .fmt = PS_FMT_NS, .better = PS_BETTER_LOWER},
};

static const struct ps_col skip_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/skipped_reason", .title = "not measured", .flags = PS_COL_WIDE},
};

static const struct ps_col cache_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/buffered_mbps",
     .title = "buffered",
     .unit = "MB/s",
     .decimals = 1,
     .better = PS_BETTER_HIGHER},
    {.path = "/cached_mbps",
     .title = "cached",
     .unit = "MB/s",
     .decimals = 1,
     .better = PS_BETTER_HIGHER},
};

static const struct ps_col bad_cols[] = {PS_LBA_RANGE_COLS};

static const struct ps_block blocks[] = {
    PS_IO_SUMMARY_BLOCK("Read speed (O_DIRECT, medians after a warm-up run)", sum_cols,
			"no drive was measured"),
    PS_IO_MATRIX_BLOCK("Read matrix (median of the runs; p50/p99 per request)", read_cols),
    {.kind = PS_BLOCK_TABLE,
     .id = "latency",
     .title = "Latency of every read, user side",
     .rows = "/drives",
     .when = "/user_latency",
     .cols = PS_COLS(lat_cols),
     .note = "submit to completion as the program saw it; probes.block below has the "
	     "block layer's issue-to-complete of the same reads (split into requests)"},
    {.kind = PS_BLOCK_TABLE,
     .id = "cache",
     .title = "hdparm -tT style timing",
     .rows = "/drives",
     .when = "/buffered_mbps",
     .cols = PS_COLS(cache_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "bad",
     .title = "Unreadable sectors",
     .rows = "/drives",
     .nested = "/bad_ranges",
     .cols = PS_COLS(bad_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "skipped",
     .rows = "/drives",
     .when = "/skipped_reason",
     .cols = PS_COLS(skip_cols)},
};

static const struct ps_view view = {
    .name = "disk_read",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops disk_read_ops = {
    .abi = PS_STEP_ABI,
    .name = "disk_read",
    .title = "read throughput, IOPS and latency per drive (read-only)",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .order = 20,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &disk_read_fields,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(disk_read_ops);
