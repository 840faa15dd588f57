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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "plan": {"enum": ["quick", "full"]},
//schema:    "runs": {"type": "integer", "minimum": 1},
//schema:    "warmup_runs": {"type": "integer", "minimum": 0},
//schema:    "max_runs": {"type": "integer", "minimum": 1},
//schema:    "noise_cv_pct": {"type": "number"},
//schema:    "byte_budget": {"type": "integer"},
//schema:    "time_budget_s": {"type": "number"},
//schema:    "drives": {"type": "array", "items": {
//schema:      "type": "object",
//schema:      "properties": {
//schema:        "name": {"type": "string"},
//schema:        "device": {"type": ["string", "null"]},
//schema:        "size_bytes": {"type": "integer"},
//schema:        "skipped_reason": {"type": "string"},
//schema:        "engine_error": {"type": "string"},
//schema:        "seq_mbps": {"type": ["number", "null"]},
//schema:        "rand_iops": {"type": ["number", "null"]},
//schema:        "buffered_mbps": {"type": "number"},
//schema:        "cached_mbps": {"type": "number"},
//schema:        "user_latency": {"type": ["object", "null"]},
//schema:        "bad_sectors": {"type": "integer", "minimum": 0},
//schema:        "bad_ranges": {"type": "array", "items": {"type": "object",
//schema:          "properties": {"lba_first": {"type": "integer"}, "lba_last": {"type": "integer"},
//schema:                         "sectors": {"type": "integer"}, "hits": {"type": "integer"}},
//schema:          "required": ["lba_first", "lba_last", "sectors"]}},
//schema:        "errors": {"type": "array", "items": {"type": "object"}},
//schema:        "results": {"type": "array", "items": {
//schema:          "type": "object",
//schema:          "properties": {
//schema:            "pattern": {"enum": ["seq", "rand"]},
//schema:            "bs": {"type": "integer"}, "qd": {"type": "integer"},
//schema:            "direct": {"type": "boolean"},
//schema:            "warmup_mbps": {"type": ["number", "null"]},
//schema:            "runs_mbps": {"type": "array", "items": {"type": "number"}},
//schema:            "min_mbps": {"type": "number"}, "median_mbps": {"type": "number"},
//schema:            "max_mbps": {"type": "number"}, "cv_pct": {"type": "number"},
//schema:            "iops": {"type": "number"}, "median_iops": {"type": "number"},
//schema:            "bytes": {"type": "integer"}, "ios": {"type": "integer"},
//schema:            "seconds": {"type": "number"}, "time_limited": {"type": "boolean"},
//schema:            "extra_runs": {"type": "integer", "minimum": 0},
//schema:            "noisy": {"type": "boolean"},
//schema:            "lat_us": {"type": "object"}
//schema:          },
//schema:          "required": ["pattern", "bs", "qd", "runs_mbps", "median_mbps", "cv_pct", "lat_us"]
//schema:        }}
//schema:      },
//schema:      "required": ["name", "results", "errors"]
//schema:    }}
//schema:  },
//schema:  "required": ["plan", "runs", "drives"]
//schema:}
/* clang-format on */

#include "core/step.h"
#include "lib/util.h"
#include "engines/io/lba_ranges.h"
#include "lib/stats.h"
#include "engines/io/uring_io.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA_VERSION 1

#define KIB 1024U
#define MIB (1024U * 1024U)

#define MAX_RUNS	   10
#define MAX_ERROR_ENTRIES  32 /* per drive in data.errors */
#define MAX_ERROR_FINDINGS 8  /* per drive, then one finding with the count */
#define UNSTABLE_CV_PCT	   20.0

enum pattern { SEQ, RAND };

struct point {
	enum pattern pattern;
	unsigned int bs, qd;
};

struct read_plan {
	const char *name;
	const struct point *matrix;
	size_t n_matrix;
	unsigned int runs;
	unsigned int max_runs; /* while the runs' CV is above noise_cv_pct: more runs, to this */
	double noise_cv_pct;
	uint64_t byte_budget; /* per run */
	double time_budget_s; /* per run, the warm-up's too */
	bool hdparm;	      /* cached and buffered timing */
};

/* The first point of each plan is the drive's headline (seq_mbps), the random QD32 its IOPS. */
static const struct point quick_matrix[] = {{SEQ, 1 * MIB, 8}, {RAND, 4 * KIB, 32}};
static const struct point full_matrix[] = {
    {SEQ, 1 * MIB, 8},	{SEQ, 1 * MIB, 1}, {SEQ, 256 * KIB, 1}, {SEQ, 64 * KIB, 1},
    {SEQ, 16 * KIB, 1}, {SEQ, 4 * KIB, 1}, {RAND, 4 * KIB, 32}, {RAND, 4 * KIB, 1},
};

static const struct read_plan plans[] = {
    {"quick", quick_matrix, PS_ARRAY_SIZE(quick_matrix), 3, 5, 10.0, 1024ULL * MIB, 1.0, false},
    {"full", full_matrix, PS_ARRAY_SIZE(full_matrix), 5, 10, 5.0, 4096ULL * MIB, 2.0, true},
};

/* hdparm -tT: buffered reads of 2 MiB for 2 s, cached re-reads of 2 MiB for 1 s. */
#define HDPARM_CHUNK	  (2U * MIB)
#define HDPARM_BUFFERED_S 2.0
#define HDPARM_CACHED_S	  1.0

/* Faults injected into opens and reads: only tests/unit/test_disk_read.c, which
 * includes this file, sets it, to reach the read-error and fallback paths. */
static const struct ps_uio_faults *disk_read_faults;

/* What one drive's measurement carries into the engine's callbacks. */
struct drive {
	struct ps_ctx *ctx;
	const struct ps_drive *inv;
	const char *name;
	char path[4096];
	unsigned int lsec; /* logical sector: LBAs in messages */
	json_object *obj, *errors;
	struct ps_lba_ranges bad; /* distinct failing sectors, all passes */
	unsigned int error_findings;
	uint64_t unlisted;	    /* failing pieces with new sectors after the findings' cap */
	const char *pass;	    /* "o_direct seq bs=1M qd=8", "buffered" */
	uint64_t progress_base;	    /* units of the phase done before this run */
	struct ps_lat_hist all_lat; /* every O_DIRECT request of the step: beside probes.block */
	bool aborted;
};

static const struct read_plan *plan_of(const struct ps_ctx *ctx)
{
	return ctx->plan && ctx->plan->level == PS_PLAN_FULL ? &plans[1] : &plans[0];
}

/*
 * How many runs a figure gets: the noise rule of engines/io/stats.c (the
 * plan's runs, more while their CV of MB/s is above the plan's limit, up to
 * its cap; still above it then: "noisy").
 */
static struct ps_noise_rule noise_rule(const struct read_plan *p)
{
	return (struct ps_noise_rule){.runs = p->runs,
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

	ps_progress_set(d->ctx, d->progress_base + bytes);
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
	json_object *e;

	/* Runs overlap and passes repeat: only sectors not seen failing before are news. */
	if (ps_lba_ranges_add(&d->bad, lba, last) <= 0)
		return;
	if (d->error_findings >= MAX_ERROR_FINDINGS) {
		d->unlisted++;
	} else {
		d->error_findings++;
		ps_find(d->ctx, &f,
			"read error (%s) at LBA %llu-%llu (%u bytes at byte %llu, %s): the drive "
			"cannot read these sectors; copy off its data and run the surface scan",
			strerror(err), (unsigned long long)lba, (unsigned long long)last, len,
			(unsigned long long)off, d->pass);
	}
	if (json_object_array_length(d->errors) >= MAX_ERROR_ENTRIES)
		return;
	e = json_object_new_object();
	ps_json_set(e, "lba", json_object_new_int64((int64_t)lba));
	ps_json_set(e, "lba_count", json_object_new_int64((int64_t)(last - lba + 1)));
	ps_json_set(e, "offset", json_object_new_int64((int64_t)off));
	ps_json_set(e, "bytes", json_object_new_int((int)len));
	ps_json_set_str(e, "error", strerror(err));
	ps_json_set(e, "errno", json_object_new_int(err));
	ps_json_set_str(e, "pass", d->pass);
	json_object_array_add(d->errors, e);
}

static void size_text(unsigned int bs, char *buf, size_t len)
{
	if (bs % MIB == 0)
		snprintf(buf, len, "%uM", bs / MIB);
	else
		snprintf(buf, len, "%uK", bs / KIB);
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
		ps_json_set_str(d->obj, "engine_error", msg);
		ps_findf(d->ctx, PS_SEV_FAIL, ps_drive_ref(d->inv), "drive_gone",
			 "%s: check its cable and power, and dmesg", msg);
		return -ENODEV;
	}
	snprintf(msg, sizeof(msg), "reading %s failed: %s", d->path, strerror(-err));
	ps_json_set_str(d->obj, "engine_error", msg);
	ps_findf(d->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "engine_error",
		 "%s: %s: the measurement stopped; this is not a fault of the drive", d->name, msg);
	return err;
}

/*
 * Where run i of runs starts: the runs spread over the drive, each in the
 * middle of its own slice, so that the drive's cache (and the page cache of
 * a hypervisor) does not serve a later run what an earlier one read. Extra
 * runs of the noise rule (i >= runs) start a quarter into slice i - runs
 * (modulo runs), also a region no other run starts at. The warm-up run
 * (WARMUP_RUN) reads the start of the drive.
 */
#define WARMUP_RUN (~0U)

static uint64_t run_offset(uint64_t size, unsigned int i, unsigned int runs, unsigned int bs)
{
	uint64_t off;

	if (i == WARMUP_RUN)
		off = 0;
	else if (i < runs)
		off = size * (2 * (uint64_t)i + 1) / (2 * (uint64_t)runs);
	else
		off = size * (4 * (uint64_t)((i - runs) % runs) + 1) / (4 * (uint64_t)runs);
	return off / bs * bs;
}

static json_object *lat_json(const struct ps_lat_hist *lat)
{
	json_object *l = json_object_new_object();

	ps_json_set_num(l, "p50", (double)ps_lat_percentile(lat, 50) / 1e3, 1);
	ps_json_set_num(l, "p90", (double)ps_lat_percentile(lat, 90) / 1e3, 1);
	ps_json_set_num(l, "p99", (double)ps_lat_percentile(lat, 99) / 1e3, 1);
	ps_json_set_num(l, "p99_9", (double)ps_lat_percentile(lat, 99.9) / 1e3, 1);
	ps_json_set_num(l, "max", (double)lat->max_ns / 1e3, 1);
	return l;
}

/* One run of a point; 0 with *res, -errno when the engine stopped. */
static int one_run(struct drive *d, int *fd, bool *direct, uint64_t size, const struct point *m,
		   uint64_t offset, uint64_t length, double budget_s, uint64_t seed,
		   struct ps_lat_hist *lat, struct ps_uio_result *res)
{
	char bs_text[16], pass[64];

	size_text(m->bs, bs_text, sizeof(bs_text));
	for (;;) {
		struct ps_uio_job j = job_for(d, *fd, size);
		int ret;

		snprintf(pass, sizeof(pass), "%s %s bs=%s qd=%u", *direct ? "o_direct" : "buffered",
			 m->pattern == RAND ? "rand" : "seq", bs_text, m->qd);
		d->pass = pass;
		/* the engine draws random positions from [offset, size): a random
		 * run reads the whole drive, only sequential runs start at their region */
		j.offset = m->pattern == RAND ? 0 : offset;
		j.length = length;
		j.bs = m->bs;
		j.qd = m->qd;
		j.time_budget_s = budget_s;
		j.lat = lat;
		j.random = m->pattern == RAND;
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

/*
 * One point of the matrix: a warm-up run whose figure is kept but not
 * counted (a cold first run made every drive "unstable"), then the runs at
 * regions spread over the drive. A sequential run reads the byte budget (or
 * the whole drive) or stops at the time budget; a random one reads at
 * random positions of the whole drive until the budget.
 * 0, or -errno when the engine could not go on.
 */
static int measure(struct drive *d, int *fd, bool *direct, uint64_t size, const struct read_plan *p,
		   const struct point *m, json_object *results)
{
	double mbps[MAX_RUNS], iops[MAX_RUNS], warm = NAN;
	uint64_t bytes = 0, ios = 0, per_run = size < p->byte_budget ? size : p->byte_budget;
	double seconds = 0;
	struct ps_lat_hist lat;
	struct ps_run_summary sum, isum;
	struct ps_uio_result res = {0};
	json_object *r, *runs;
	unsigned int n = 0;
	char bs_text[16], phase[96];
	bool time_up = false;
	int err = 0;
	const struct ps_noise_rule rule = noise_rule(p);

	ps_lat_init(&lat);
	size_text(m->bs, bs_text, sizeof(bs_text));
	snprintf(phase, sizeof(phase), "%s %s %s QD%u", d->name,
		 m->pattern == RAND ? "rand" : "seq", bs_text, m->qd);
	ps_progress_phase(d->ctx, phase, per_run * (p->runs + 1), "B");
	d->progress_base = 0;
	if (should_stop(d))
		return 0;
	/* The warm-up reads as much as a run: on a drive smaller than the byte
	 * budget every run reads all of it, and a shorter warm-up left the first
	 * run the only one to meet cold data (in QEMU the host's page cache). */
	err = one_run(d, fd, direct, size, m, run_offset(size, WARMUP_RUN, p->runs, m->bs), per_run,
		      p->time_budget_s, 0x5eed, NULL, &res);
	if (err == 0 && res.bytes && !d->aborted)
		warm = ps_mbps(res.bytes, res.seconds);
	while (err == 0 && !should_stop(d) && n < MAX_RUNS && ps_noise_more_runs(&rule, mbps, n)) {
		struct ps_lat_hist run_lat;

		d->progress_base = per_run * (n + 1);
		if (n >= p->runs) /* a noisy figure gets another run: the bar grows with it */
			ps_progress_total(d->ctx, per_run * (n + 2));
		ps_lat_init(&run_lat);
		err = one_run(d, fd, direct, size, m, run_offset(size, n, p->runs, m->bs), per_run,
			      p->time_budget_s, 0x9E3779B97F4A7C15ULL * (n + 1), &run_lat, &res);
		if (err < 0)
			break;
		ps_lat_merge(&lat, &run_lat);
		if (*direct)
			ps_lat_merge(&d->all_lat, &run_lat);
		mbps[n] = ps_mbps(res.bytes, res.seconds);
		iops[n] = ps_iops(res.ios, res.seconds);
		n++;
		bytes += res.bytes;
		ios += res.ios;
		seconds += res.seconds;
		time_up = time_up || res.time_up;
		ps_progress_set(d->ctx, per_run * (n + 1));
	}
	if (n == 0)
		return err ? engine_stop(d, err, &res) : 0;
	ps_run_summary(mbps, n, &sum);
	ps_run_summary(iops, n, &isum);
	r = json_object_new_object();
	ps_json_set_str(r, "pattern", m->pattern == RAND ? "rand" : "seq");
	ps_json_set(r, "bs", json_object_new_int((int)m->bs));
	ps_json_set(r, "qd", json_object_new_int((int)m->qd));
	ps_json_set(r, "direct", json_object_new_boolean(*direct));
	ps_json_set_num(r, "warmup_mbps", warm, 1);
	runs = json_object_new_array();
	for (unsigned int i = 0; i < n; i++)
		json_object_array_add(runs, ps_json_new_num(mbps[i], 1));
	ps_json_set(r, "runs_mbps", runs);
	ps_json_set_num(r, "min_mbps", sum.min, 1);
	ps_json_set_num(r, "median_mbps", sum.median, 1);
	ps_json_set_num(r, "max_mbps", sum.max, 1);
	ps_json_set_num(r, "cv_pct", sum.cv_pct, 1);
	ps_json_set_num(r, "iops", ps_iops(ios, seconds), 0);
	ps_json_set_num(r, "median_iops", isum.median, 0);
	ps_json_set(r, "bytes", json_object_new_int64((int64_t)bytes));
	ps_json_set(r, "ios", json_object_new_int64((int64_t)ios));
	ps_json_set_num(r, "seconds", seconds, 3);
	ps_json_set(r, "time_limited", json_object_new_boolean(time_up));
	ps_json_set(r, "extra_runs", json_object_new_int(n > p->runs ? (int)(n - p->runs) : 0));
	ps_json_set(r, "noisy", json_object_new_boolean(ps_noise_noisy(&rule, mbps, n)));
	ps_json_set(r, "lat_us", lat_json(&lat));
	if (d->aborted)
		ps_json_set(r, "aborted", json_object_new_boolean(true));
	json_object_array_add(results, r);
	if (n > 1 && sum.cv_pct > UNSTABLE_CV_PCT && !d->aborted) {
		struct ps_finding f = {.severity = PS_SEV_INFO,
				       .dev = ps_drive_ref(d->inv),
				       .rule = "unstable_throughput",
				       .value = sum.cv_pct,
				       .limit = UNSTABLE_CV_PCT,
				       .unit = "%"};

		ps_find(d->ctx, &f,
			"%s %s reads at QD%u varied by %.0f%% between runs (%.1f-%.1f MB/s, after "
			"a warm-up run): another load, or a drive that is not steady",
			m->pattern == RAND ? "random" : "sequential", bs_text, m->qd, sum.cv_pct,
			sum.min, sum.max);
	}
	if (err)
		return engine_stop(d, err, &res);
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
	snprintf(phase, sizeof(phase), "%s cached/buffered", d->name);
	ps_progress_phase(d->ctx, phase, 0, "B");
	d->pass = "buffered";
	d->progress_base = 0;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	j = job_for(d, fd, size);
	j.length = size;
	j.bs = HDPARM_CHUNK;
	j.qd = 1;
	j.time_budget_s = HDPARM_BUFFERED_S;
	if (ps_uio_read(&j, &res) == 0 && res.bytes && !d->aborted)
		ps_json_set_num(d->obj, "buffered_mbps", ps_mbps(res.bytes, res.seconds), 1);
	if (region == 0 || d->aborted) {
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
			ps_json_set_num(d->obj, "cached_mbps", ps_mbps(res.bytes, res.seconds), 1);
	}
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
	json_object *results = json_object_new_array();
	char reason[4200];
	const char *why;
	bool direct = false;
	uint64_t size = 0;
	int fd, ret = 0;

	ps_json_set(d->obj, "results", results);
	why = skip_reason(d->ctx, d->inv, d->path, reason, sizeof(reason));
	if (why) {
		ps_json_set_str(d->obj, "skipped_reason", why);
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
		ps_json_set_str(d->obj, "skipped_reason", reason);
		ps_findf(d->ctx, PS_SEV_WARN, ps_drive_ref(d->inv), "open_failed", "%s: %s", reason,
			 open_hint(err));
		if (fd >= 0)
			close(fd);
		return D_FAILED;
	}
	if (size < PS_UIO_ALIGN) {
		snprintf(reason, sizeof(reason), "%llu bytes: less than one 4 KiB block",
			 (unsigned long long)size);
		ps_json_set_str(d->obj, "skipped_reason", reason);
		close(fd);
		return D_SKIPPED;
	}
	ps_json_set(d->obj, "size_bytes", json_object_new_int64((int64_t)size));
	for (size_t i = 0; i < p->n_matrix && !d->aborted; i++) {
		ret = measure(d, &fd, &direct, size, p, &p->matrix[i], results);
		if (ret < 0)
			break;
	}
	close(fd);
	if (p->hdparm && !d->aborted && ret >= 0)
		hdparm_times(d, size);
	return json_object_array_length(results) ? D_MEASURED : D_FAILED;
}

static void bad_ranges_json(struct drive *d)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < d->bad.n; i++) {
		json_object *r = json_object_new_object();

		ps_json_set(r, "lba_first", json_object_new_int64((int64_t)d->bad.r[i].first));
		ps_json_set(r, "lba_last", json_object_new_int64((int64_t)d->bad.r[i].last));
		ps_json_set(
		    r, "sectors",
		    json_object_new_int64((int64_t)(d->bad.r[i].last - d->bad.r[i].first + 1)));
		ps_json_set(r, "hits", json_object_new_int((int)d->bad.r[i].hits));
		json_object_array_add(a, r);
	}
	ps_json_set(d->obj, "bad_ranges", a);
	ps_json_set(d->obj, "bad_sectors",
		    json_object_new_int64((int64_t)ps_lba_ranges_sectors(&d->bad)));
}

/* Every O_DIRECT request of the step on this drive, as the program saw it (ns,
 * the module's units): the block probe's histogram of the same reads is in
 * steps[].probes.block. */
static void user_latency(struct drive *d)
{
	const struct ps_lat_hist *l = &d->all_lat;
	json_object *o;

	if (!l->count) {
		ps_json_set(d->obj, "user_latency", NULL);
		return;
	}
	o = json_object_new_object();
	ps_json_set_str(o, "unit", "ns");
	ps_json_set(o, "count", json_object_new_int64((int64_t)l->count));
	ps_json_set(o, "mean", json_object_new_int64((int64_t)(l->sum_ns / l->count)));
	ps_json_set(o, "p50", json_object_new_int64((int64_t)ps_lat_percentile(l, 50)));
	ps_json_set(o, "p90", json_object_new_int64((int64_t)ps_lat_percentile(l, 90)));
	ps_json_set(o, "p99", json_object_new_int64((int64_t)ps_lat_percentile(l, 99)));
	ps_json_set(o, "p99_9", json_object_new_int64((int64_t)ps_lat_percentile(l, 99.9)));
	ps_json_set(o, "max", json_object_new_int64((int64_t)l->max_ns));
	ps_json_set(d->obj, "user_latency", o);
}

/* The drive's two headline figures: seq 1M QD8 MB/s and random 4K QD32 IOPS (medians);
 * runs[] gets how many runs each median is of (the noise rule may have added some). */
static void headline(struct drive *d, size_t runs[2])
{
	json_object *res = ps_json_arr(d->obj, "results");
	double seq = NAN, rnd = NAN;

	runs[0] = runs[1] = 0;
	for (size_t i = 0; i < ps_json_len(res); i++) {
		json_object *r = ps_json_at(res, i);
		int64_t bs = 0, qd = 0;
		const char *pat = ps_json_str_or(r, "pattern", "");

		ps_json_int(r, "bs", &bs);
		ps_json_int(r, "qd", &qd);
		if (!strcmp(pat, "seq") && bs == MIB && qd == 8) {
			ps_json_num(r, "median_mbps", &seq);
			runs[0] = ps_json_len(ps_json_arr(r, "runs_mbps"));
		} else if (!strcmp(pat, "rand") && bs == 4 * KIB && qd == 32) {
			ps_json_num(r, "median_iops", &rnd);
			runs[1] = ps_json_len(ps_json_arr(r, "runs_mbps"));
		}
	}
	ps_json_set_num(d->obj, "seq_mbps", seq, 1);
	ps_json_set_num(d->obj, "rand_iops", rnd, 0);
}

/* A measured drive passes with its headline figures as the reason, and the runs they are of. */
static void examined(struct drive *d, const size_t runs[2])
{
	double seq = NAN, rnd = NAN;
	char a[64] = "", b[64] = "", n[80];

	ps_json_num(d->obj, "seq_mbps", &seq);
	ps_json_num(d->obj, "rand_iops", &rnd);
	if (!isnan(seq))
		snprintf(a, sizeof(a), "sequential 1M QD8 %.0f MB/s", seq);
	if (!isnan(rnd))
		snprintf(b, sizeof(b), "%srandom 4K QD32 %.0f IOPS", a[0] ? ", " : "", rnd);
	if (runs[0] && runs[1] && runs[0] != runs[1])
		snprintf(n, sizeof(n), "medians of %zu and %zu runs", runs[0], runs[1]);
	else
		snprintf(n, sizeof(n), "medians of %zu runs", runs[0] ? runs[0] : runs[1]);
	ps_examined(d->ctx, ps_drive_ref(d->inv), "measured", "read %s%s (%s)",
		    a[0] || b[0] ? a : "at the figures above", b, n);
}

static int run(struct ps_ctx *ctx)
{
	const struct read_plan *p = plan_of(ctx);
	json_object *out = json_object_new_array();
	unsigned int measured = 0, targets = 0;
	uint64_t bad = 0;
	bool aborted = false;

	ps_json_set_str(ctx->data, "plan", p->name);
	ps_json_set(ctx->data, "runs", json_object_new_int((int)p->runs));
	ps_json_set(ctx->data, "warmup_runs", json_object_new_int(1));
	ps_json_set(ctx->data, "max_runs", json_object_new_int((int)p->max_runs));
	ps_json_set_num(ctx->data, "noise_cv_pct", p->noise_cv_pct, 1);
	ps_json_set(ctx->data, "byte_budget", json_object_new_int64((int64_t)p->byte_budget));
	ps_json_set_num(ctx->data, "time_budget_s", p->time_budget_s, 1);
	ps_json_set(ctx->data, "drives", out);
	for (size_t i = 0; i < ctx->inv->n_drives && !aborted; i++) {
		const struct ps_drive *drv = &ctx->inv->drives[i];
		struct drive d = {.ctx = ctx, .inv = drv, .name = drv->name};
		enum drive_outcome o;
		size_t runs[2] = {0, 0};

		ps_lat_init(&d.all_lat);
		d.obj = json_object_new_object();
		d.errors = json_object_new_array();
		ps_json_set_str(d.obj, "name", drv->name[0] ? drv->name : "(unnamed)");
		ps_json_set_str(d.obj, "device", drv->id);
		json_object_array_add(out, d.obj);
		ps_path(d.path, sizeof(d.path), ctx->root, "/dev/%s", drv->name);
		o = run_drive(&d, p);
		ps_json_set(d.obj, "errors", d.errors);
		bad_ranges_json(&d);
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
			headline(&d, runs);
			user_latency(&d);
		}
		if (o == D_MEASURED)
			examined(&d, runs);
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

static const struct ps_col sum_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/seq_mbps",
     .title = "seq 1M QD8",
     .unit = "MB/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/rand_iops",
     .title = "rand 4K QD32",
     .unit = "IOPS",
     .decimals = 0,
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
};

static const struct ps_col read_cols[] = {
    {.path = "^/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "^/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/pattern", .title = "io", .flags = PS_COL_KEY},
    {.path = "/bs", .title = "bs", .fmt = PS_FMT_BLOCK, .flags = PS_COL_KEY},
    {.path = "/qd", .title = "qd", .flags = PS_COL_KEY},
    {.path = "/median_mbps",
     .title = "MB/s",
     .unit = "MB/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER,
     .spread = "/cv_pct",
     .min = "/min_mbps",
     .max = "/max_mbps",
     .noisy = "/noisy"},
    {.path = "/median_mbps",
     .title = "min-max",
     .fmt = PS_FMT_RANGE,
     .min = "/min_mbps",
     .max = "/max_mbps",
     .flags = PS_COL_OPTIONAL},
    {.path = "/cv_pct", .title = "cv", .unit = "%", .decimals = 0, .better = PS_BETTER_LOWER},
    {.path = "/median_iops", .title = "IOPS", .better = PS_BETTER_HIGHER},
    {.path = "/lat_us/p50", .title = "p50", .fmt = PS_FMT_US, .better = PS_BETTER_LOWER},
    {.path = "/lat_us/p99", .title = "p99", .fmt = PS_FMT_US, .better = PS_BETTER_LOWER},
};

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

static const struct ps_col bad_cols[] = {
    {.path = "^/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/lba_first", .title = "first LBA", .flags = PS_COL_KEY},
    {.path = "/lba_last", .title = "last LBA"},
    {.path = "/sectors", .title = "sectors", .better = PS_BETTER_LOWER},
    {.path = "/hits", .title = "failed reads"},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "summary",
     .title = "Read speed (O_DIRECT, medians after a warm-up run)",
     .rows = "/drives",
     .when = "/results",
     .cols = PS_COLS(sum_cols),
     .empty = "no drive was measured"},
    {.kind = PS_BLOCK_TABLE,
     .id = "matrix",
     .title = "Read matrix (median of the runs; p50/p99 per request)",
     .rows = "/drives",
     .nested = "/results",
     .cols = PS_COLS(read_cols),
     .note = "~ still noisy after the extra runs (CV above the plan's limit)"},
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
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(disk_read_ops);
