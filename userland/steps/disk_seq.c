/*
 * disk_seq.c - sequential read throughput of every drive but the boot stick,
 * O_DIRECT through io_uring, repeated runs spread over the drive (TESTPLAN 3).
 */
/* clang-format off */
//config:config STEP_DISK_SEQ
//config:	bool "disk_seq: sequential read throughput per drive (read-only)"
//config:	default y
//config:	help
//config:	  Reads every drive the inventory found, except the stick probestick
//config:	  booted from, with O_DIRECT through io_uring: 1 MiB at queue depth 8
//config:	  in the quick plan; 4K to 1M at QD1, 1M at QD8 and hdparm -tT style
//config:	  cached/buffered timing in the full plan. Repeated runs give min,
//config:	  median, max and their spread; completions give latency percentiles.
//config:	  Read errors are findings with their LBA. Nothing is written.
//kbuild:step-$(CONFIG_STEP_DISK_SEQ) += disk_seq.o
/* clang-format on */

#include "io/stats.h"
#include "io/uring_io.h"
#include "report.h"
#include "step.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KIB 1024U
#define MIB (1024U * 1024U)

#define MAX_RUNS	   10
#define MAX_ERROR_ENTRIES  32 /* per drive in data.errors */
#define MAX_ERROR_FINDINGS 8  /* per drive, then one finding with the count */
#define UNSTABLE_CV_PCT	   20.0

struct measure {
	unsigned int bs, qd;
};

struct seq_plan {
	const char *name;
	const struct measure *matrix;
	size_t n_matrix;
	unsigned int runs;
	uint64_t byte_budget; /* per run */
	double time_budget_s; /* per run */
	bool hdparm;	      /* cached and buffered timing */
};

static const struct measure quick_matrix[] = {{1 * MIB, 8}};
static const struct measure full_matrix[] = {
    {4 * KIB, 1}, {16 * KIB, 1}, {64 * KIB, 1}, {256 * KIB, 1}, {1 * MIB, 1}, {1 * MIB, 8},
};

static const struct seq_plan plans[] = {
    {"quick", quick_matrix, PS_ARRAY_SIZE(quick_matrix), 3, 1024ULL * MIB, 1.0, false},
    {"full", full_matrix, PS_ARRAY_SIZE(full_matrix), 5, 4096ULL * MIB, 5.0, true},
};

/* hdparm -tT: buffered reads of 2 MiB for 2 s, cached re-reads of 2 MiB for 1 s. */
#define HDPARM_CHUNK	  (2U * MIB)
#define HDPARM_BUFFERED_S 2.0
#define HDPARM_CACHED_S	  1.0

/* Faults injected into opens and reads: only tests/unit/test_disk_seq.c, which
 * includes this file, sets it, to reach the read-error and fallback paths. */
static const struct ps_uio_faults *disk_seq_faults;

/* What one drive's measurement carries into the engine's callbacks. */
struct drive {
	struct ps_ctx *ctx;
	const char *name;
	char path[4096];
	unsigned int lsec; /* logical sector: LBAs in messages */
	json_object *obj, *errors;
	uint64_t n_errors; /* distinct failing pieces, all passes */
	unsigned int error_findings;
	const char *pass; /* "o_direct bs=1M qd=8", "buffered" */
	bool aborted;
};

static bool should_stop(void *arg)
{
	struct drive *d = arg;

	d->aborted = d->aborted || ps_should_abort(d->ctx);
	return d->aborted;
}

static void on_read_error(void *arg, uint64_t off, unsigned int len, int err)
{
	struct drive *d = arg;
	uint64_t lba = off / d->lsec, last = (off + len - 1) / d->lsec;
	json_object *e;

	/* Runs overlap and passes repeat: the same bad piece counts once. */
	for (size_t i = 0; i < json_object_array_length(d->errors); i++) {
		json_object *o = json_object_array_get_idx(d->errors, i);

		if ((uint64_t)json_object_get_int64(json_object_object_get(o, "offset")) == off &&
		    json_object_get_int(json_object_object_get(o, "bytes")) == (int)len) {
			json_object_int_inc(json_object_object_get(o, "count"), 1);
			return;
		}
	}
	d->n_errors++;
	if (d->error_findings < MAX_ERROR_FINDINGS) {
		d->error_findings++;
		ps_finding(d->ctx, "fail", d->name, "read_error",
			   "%s: read error (%s) at LBA %llu-%llu (%u bytes at byte %llu, %s): the "
			   "drive cannot read these sectors; copy off its data and run the surface "
			   "scan",
			   d->name, strerror(err), (unsigned long long)lba,
			   (unsigned long long)last, len, (unsigned long long)off, d->pass);
	}
	if (json_object_array_length(d->errors) >= MAX_ERROR_ENTRIES)
		return;
	e = json_object_new_object();
	json_object_object_add(e, "lba", json_object_new_int64((int64_t)lba));
	json_object_object_add(e, "lba_count", json_object_new_int64((int64_t)(last - lba + 1)));
	json_object_object_add(e, "offset", json_object_new_int64((int64_t)off));
	json_object_object_add(e, "bytes", json_object_new_int((int)len));
	json_object_object_add(e, "error", json_object_new_string(strerror(err)));
	json_object_object_add(e, "errno", json_object_new_int(err));
	json_object_object_add(e, "pass", json_object_new_string(d->pass));
	json_object_object_add(e, "count", json_object_new_int(1));
	json_object_array_add(d->errors, e);
}

static json_object *num(double v, int decimals)
{
	return json_object_new_double(ps_round(v, decimals));
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
	    .on_error = on_read_error,
	    .error_arg = d,
	    .faults = disk_seq_faults,
	};
}

/*
 * One (bs, qd) point: N runs at offsets spread over the drive so that the
 * drive's own cache does not serve the later runs. A run reads the byte
 * budget (or the whole drive) or stops at the time budget.
 * 0, or -errno when the engine could not read this drive at all.
 */
static int measure(struct drive *d, int *fd, bool *direct, uint64_t size, const struct seq_plan *p,
		   const struct measure *m, json_object *results)
{
	double mbps[MAX_RUNS];
	uint64_t bytes = 0, ios = 0;
	double seconds = 0;
	struct ps_lat_hist lat;
	struct ps_run_summary sum;
	json_object *r, *runs, *l;
	unsigned int n = 0;
	char bs_text[16], pass[64];
	bool time_up = false;
	int err = 0;

	ps_lat_init(&lat);
	size_text(m->bs, bs_text, sizeof(bs_text));
	for (unsigned int i = 0; i < p->runs && !d->aborted; i++) {
		struct ps_uio_job j = job_for(d, *fd, size);
		struct ps_uio_result res;
		struct ps_lat_hist run_lat;
		int ret;

		snprintf(pass, sizeof(pass), "%s bs=%s qd=%u", *direct ? "o_direct" : "buffered",
			 bs_text, m->qd);
		d->pass = pass;
		ps_lat_init(&run_lat);
		j.offset = size * i / p->runs / m->bs * m->bs;
		j.length = size < p->byte_budget ? size : p->byte_budget;
		j.bs = m->bs;
		j.qd = m->qd;
		j.time_budget_s = p->time_budget_s;
		j.lat = &run_lat;
		ret = ps_uio_read(&j, &res);
		if (ret == -EINVAL && *direct && res.bytes == 0) {
			/* Opened with O_DIRECT but the reads refuse it: measure buffered. */
			int nfd = ps_uio_open(d->path, false, direct, disk_seq_faults);

			if (nfd < 0)
				return nfd;
			close(*fd);
			*fd = nfd;
			i--;
			continue;
		}
		if (ret < 0) {
			err = ret;
			break;
		}
		ps_lat_merge(&lat, &run_lat);
		mbps[n++] = ps_mbps(res.bytes, res.seconds);
		bytes += res.bytes;
		ios += res.ios;
		seconds += res.seconds;
		time_up = time_up || res.time_up;
	}
	if (n == 0)
		return err;
	ps_run_summary(mbps, n, &sum);
	r = json_object_new_object();
	json_object_object_add(r, "bs", json_object_new_int((int)m->bs));
	json_object_object_add(r, "qd", json_object_new_int((int)m->qd));
	json_object_object_add(r, "direct", json_object_new_boolean(*direct));
	runs = json_object_new_array();
	for (unsigned int i = 0; i < n; i++)
		json_object_array_add(runs, num(mbps[i], 1));
	json_object_object_add(r, "runs_mbps", runs);
	json_object_object_add(r, "min_mbps", num(sum.min, 1));
	json_object_object_add(r, "median_mbps", num(sum.median, 1));
	json_object_object_add(r, "max_mbps", num(sum.max, 1));
	json_object_object_add(r, "cv_pct", num(sum.cv_pct, 1));
	json_object_object_add(r, "iops", num(ps_iops(ios, seconds), 0));
	json_object_object_add(r, "bytes", json_object_new_int64((int64_t)bytes));
	json_object_object_add(r, "seconds", num(seconds, 3));
	json_object_object_add(r, "time_limited", json_object_new_boolean(time_up));
	l = json_object_new_object();
	json_object_object_add(l, "p50", num((double)ps_lat_percentile(&lat, 50) / 1e3, 1));
	json_object_object_add(l, "p90", num((double)ps_lat_percentile(&lat, 90) / 1e3, 1));
	json_object_object_add(l, "p99", num((double)ps_lat_percentile(&lat, 99) / 1e3, 1));
	json_object_object_add(l, "p99_9", num((double)ps_lat_percentile(&lat, 99.9) / 1e3, 1));
	json_object_object_add(l, "max", num((double)lat.max_ns / 1e3, 1));
	json_object_object_add(r, "lat_us", l);
	if (d->aborted)
		json_object_object_add(r, "aborted", json_object_new_boolean(true));
	json_object_array_add(results, r);
	if (n > 1 && sum.cv_pct > UNSTABLE_CV_PCT && !d->aborted)
		ps_finding(d->ctx, "info", d->name, "unstable_throughput",
			   "%s: %s reads at QD%u varied by %.0f%% between runs (%.1f-%.1f MB/s): "
			   "unstable throughput: another load or a failing drive",
			   d->name, bs_text, m->qd, sum.cv_pct, sum.min, sum.max);
	if (err)
		return err;
	return n > 1 && sum.cv_pct > UNSTABLE_CV_PCT ? 1 : 0;
}

/* hdparm -tT: buffered = what read() gets from the drive through the page cache
 * (dropped first), cached = the page cache alone. MB/s, or < 0 when not measured. */
static void hdparm_times(struct drive *d, uint64_t size)
{
	struct ps_uio_result res;
	struct ps_uio_job j;
	uint64_t region = (size < HDPARM_CHUNK ? size : HDPARM_CHUNK) / PS_UIO_ALIGN * PS_UIO_ALIGN;
	int fd = ps_uio_open(d->path, false, NULL, disk_seq_faults);

	if (fd < 0)
		return;
	d->pass = "buffered";
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	j = job_for(d, fd, size);
	j.length = size;
	j.bs = HDPARM_CHUNK;
	j.qd = 1;
	j.time_budget_s = HDPARM_BUFFERED_S;
	if (ps_uio_read(&j, &res) == 0 && res.bytes && !d->aborted)
		json_object_object_add(d->obj, "buffered_mbps",
				       num(ps_mbps(res.bytes, res.seconds), 1));
	if (region == 0 || d->aborted) {
		close(fd);
		return;
	}
	d->pass = "cached";
	j = job_for(d, fd, region);
	j.length = region; /* fills the cache; not timed */
	j.bs = HDPARM_CHUNK;
	j.qd = 1;
	if (ps_uio_read(&j, &res) == 0 && res.bytes == region && !d->aborted) {
		j.length = UINT64_MAX / 2; /* wraps over the same pages until the time is up */
		j.time_budget_s = HDPARM_CACHED_S;
		if (ps_uio_read(&j, &res) == 0 && res.bytes && !d->aborted)
			json_object_object_add(d->obj, "cached_mbps",
					       num(ps_mbps(res.bytes, res.seconds), 1));
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
static const char *skip_reason(struct ps_ctx *ctx, json_object *drv, const char *name,
			       const char *path, char *buf, size_t len)
{
	json_object *v;
	struct stat st;

	if (!name || !*name || strchr(name, '/'))
		return "no usable name in drives[]";
	if (json_object_object_get_ex(drv, "boot_device", &v) && json_object_get_boolean(v))
		return "the boot stick: never touched";
	if (json_object_object_get_ex(drv, "size_bytes", &v) && v &&
	    json_object_get_int64(v) == 0) {
		json_object *rm = json_object_object_get(drv, "removable");

		return rm && json_object_get_boolean(rm) ? "removable media absent (size 0)"
							 : "size 0";
	}
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

enum drive_outcome { D_SKIPPED, D_MEASURED, D_UNSTABLE, D_OURS };

static enum drive_outcome run_drive(struct drive *d, json_object *drv, const struct seq_plan *p,
				    int *first_err)
{
	json_object *results = json_object_new_array();
	char reason[4200];
	const char *why;
	bool direct = false, unstable = false;
	uint64_t size = 0;
	int fd, ret = 0;
	json_object *v;

	json_object_object_add(d->obj, "results", results);
	why = skip_reason(d->ctx, drv, d->name, d->path, reason, sizeof(reason));
	if (why) {
		json_object_object_add(d->obj, "skipped_reason", json_object_new_string(why));
		return D_SKIPPED;
	}
	d->lsec = 512;
	if (json_object_object_get_ex(drv, "logical_sector", &v) && json_object_get_int(v) > 0)
		d->lsec = (unsigned int)json_object_get_int(v);
	fd = ps_uio_open(d->path, true, &direct, disk_seq_faults);
	if (fd >= 0)
		ret = ps_uio_size(fd, &size);
	if (fd < 0 || ret < 0) {
		int err = fd < 0 ? -fd : -ret;

		snprintf(reason, sizeof(reason), "cannot %s %s: %s",
			 fd < 0 ? "open" : "read the size of", d->path, strerror(err));
		json_object_object_add(d->obj, "skipped_reason", json_object_new_string(reason));
		ps_finding(d->ctx, "warn", d->name, "open_failed", "%s: %s", reason,
			   open_hint(err));
		if (fd >= 0)
			close(fd);
		if (!*first_err)
			*first_err = -err;
		return D_OURS;
	}
	if (size < PS_UIO_ALIGN) {
		snprintf(reason, sizeof(reason), "%llu bytes: less than one 4 KiB block",
			 (unsigned long long)size);
		json_object_object_add(d->obj, "skipped_reason", json_object_new_string(reason));
		close(fd);
		return D_SKIPPED;
	}
	json_object_object_add(d->obj, "size_bytes", json_object_new_int64((int64_t)size));
	for (size_t i = 0; i < p->n_matrix && !d->aborted; i++) {
		ret = measure(d, &fd, &direct, size, p, &p->matrix[i], results);
		if (ret < 0) {
			snprintf(reason, sizeof(reason), "reading %s failed: %s", d->path,
				 strerror(-ret));
			json_object_object_add(d->obj, "engine_error",
					       json_object_new_string(reason));
			ps_finding(d->ctx, "warn", d->name, "engine_error",
				   "%s: the measurement stopped, not a drive fault", reason);
			if (!*first_err)
				*first_err = ret;
			break;
		}
		unstable = unstable || ret > 0;
	}
	close(fd);
	if (p->hdparm && !d->aborted && ret >= 0)
		hdparm_times(d, size);
	if (json_object_array_length(results) == 0)
		return D_OURS;
	return unstable ? D_UNSTABLE : D_MEASURED;
}

static const struct seq_plan *plan_of(json_object *report)
{
	const char *name = ps_json_str(report, "plan");

	return name && strcmp(name, "full") == 0 ? &plans[1] : &plans[0];
}

static int run(struct ps_ctx *ctx)
{
	const struct seq_plan *p = plan_of(ctx->report);
	json_object *drives = ps_json_get(ctx->report, "drives");
	json_object *data = ps_json_get(ctx->step, "data"), *out = json_object_new_array();
	size_t n = drives && json_object_is_type(drives, json_type_array)
		       ? json_object_array_length(drives)
		       : 0;
	unsigned int measured = 0, targets = 0, unstable = 0;
	uint64_t read_errors = 0;
	bool aborted = false;
	int first_err = 0;

	if (!data) {
		data = json_object_new_object();
		json_object_object_add(ctx->step, "data", data);
	}
	json_object_object_add(data, "plan", json_object_new_string(p->name));
	json_object_object_add(data, "runs", json_object_new_int((int)p->runs));
	json_object_object_add(data, "byte_budget", json_object_new_int64((int64_t)p->byte_budget));
	json_object_object_add(data, "time_budget_s", json_object_new_double(p->time_budget_s));
	json_object_object_add(data, "drives", out);
	for (size_t i = 0; i < n && !aborted; i++) {
		json_object *drv = json_object_array_get_idx(drives, i);
		struct drive d = {.ctx = ctx, .name = ps_json_str(drv, "name")};
		enum drive_outcome o;

		d.obj = json_object_new_object();
		d.errors = json_object_new_array();
		json_object_object_add(d.obj, "name",
				       json_object_new_string(d.name ? d.name : "(unnamed)"));
		json_object_array_add(out, d.obj);
		ps_path(d.path, sizeof(d.path), ctx->root, "/dev/%s", d.name ? d.name : "");
		o = run_drive(&d, drv, p, &first_err);
		json_object_object_add(d.obj, "errors", d.errors);
		if (d.n_errors) {
			json_object_object_add(d.obj, "errors_total",
					       json_object_new_int64((int64_t)d.n_errors));
			if (d.n_errors > d.error_findings)
				ps_finding(ctx, "fail", d.name, "read_error",
					   "%s: %llu more read errors not listed one by one "
					   "(%llu in all)",
					   d.name,
					   (unsigned long long)(d.n_errors - d.error_findings),
					   (unsigned long long)d.n_errors);
		}
		read_errors += d.n_errors;
		targets += o != D_SKIPPED;
		measured += o == D_MEASURED || o == D_UNSTABLE;
		unstable += o == D_UNSTABLE;
		aborted = d.aborted;
	}
	if (aborted)
		return PS_ABORTED;
	if (read_errors)
		return PS_FAIL;
	if (targets == 0) {
		json_object_object_add(ctx->step, "reason",
				       json_object_new_string("no drive to measure (the boot stick "
							      "is never one)"));
		return PS_SKIPPED;
	}
	if (measured == 0)
		return first_err ? first_err : -EIO;
	if (unstable || first_err)
		return PS_WARN;
	return PS_PASS;
}

static const struct ps_step_ops disk_seq_ops = {
    .abi = PS_STEP_ABI,
    .name = "disk_seq",
    .title = "sequential read throughput per drive (read-only)",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .needs = 0,
    .order = 20,
    .run = run,
};
PS_STEP_REGISTER(disk_seq_ops);
