/*
 * surface.c - a read-only surface scan of every drive but the boot stick
 * (TESTPLAN 4): full or sampled (surface= in probestick.cfg), each read's
 * latency in the Victoria / MHDD buckets, the unreadable LBA ranges found
 * sector by sector, the slowest reads and a map of latency by position.
 */
/* clang-format off */
//config:config STEP_SURFACE
//config:	bool "surface: read-only surface scan per drive (full plan)"
//config:	default y
//config:	help
//config:	  Reads every drive but the boot stick in 1 MiB pieces at queue
//config:	  depth 1 with O_DIRECT: the whole drive (surface=full), or its
//config:	  first and last GiB and evenly spread pieces covering at least 1 %
//config:	  of it (surface=sampled, the default). Each read's latency goes
//config:	  into the buckets <5, <20, <50, <150, <500, >=500 ms and error. A
//config:	  failing piece is split down to single sectors, each read once, so
//config:	  the unreadable LBAs are exact. Nothing is written.
//kbuild:step-$(CONFIG_STEP_SURFACE) += surface.o
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "engines/io/lba_ranges.h"
#include "engines/io/surface.h"
#include "engines/io/uring_io.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA_VERSION 1

#define PIECE		   (1U << 20)
#define SAMPLE_PCT	   1.0
#define SLOW_MS		   500.0 /* a read this slow is a finding */
#define SPLIT_BUDGET_S	   120.0 /* per drive: splitting failing pieces into sectors */
#define SPLIT_MAX_SECTORS  65536 /* per drive: bad sectors narrowed one by one */
#define MAX_RANGE_FINDINGS 8

static const char retry_policy[] =
    "a failing 1 MiB read is split in halves down to single logical sectors, each read "
    "once; the sectors that still fail are the unreadable ranges; a piece all of whose parts "
    "read is 'recovered' (a weak spot); after 120 s of splitting or 65536 bad sectors on a "
    "drive, failing pieces are listed whole ('not narrowed'); the scan goes on past every "
    "error and stops only when the drive goes away";

/* ---- the result: data{} as a struct, described once ---- */

/* Reads by latency, in the buckets of engines/io/surface.h (ps_surface_bucket_key). */
struct buckets {
	uint64_t n[PS_SURF_BUCKETS];
};

struct slow_read {
	uint64_t first, last;
	double pos_pct, ms;
};

/* One cell of the latency map: a hundredth of the drive. */
struct map_cell {
	double pos_pct, lat_ms, mean_ms; /* worst and mean of the reads that read */
	uint32_t reads, errors;
};

/* A drive: its name always; the rest once it was scanned (left out before). */
struct drive_result {
	char name[32];
	const char *device;
	char skipped_reason[300];
	ps_tri direct;
	int64_t size_bytes, planned_bytes, scanned_bytes;
	double scanned_pct, coverage_pct;
	ps_tri complete;
	int64_t stopped_at_lba; /* -1: it did not stop early */
	char stop_reason[300];
	double seconds, mbps;
	int64_t reads;
	struct buckets *buckets;
	double worst_ms;
	int64_t recovered, bad_sectors, not_narrowed;
	struct ps_lba_range_row *bad_ranges;
	size_t n_bad_ranges;
	struct slow_read *slowest;
	size_t n_slowest;
	struct map_cell *map;
	size_t n_map;
};

struct surface_result {
	int mode; /* modes[] */
	unsigned int piece_bytes;
	const char *retry_policy;
	json_object *buckets; /* the bucket keys, in order */
	struct drive_result *drives;
	size_t n_drives;
};

/* surface=: the full plan scans a sample of each drive, or all of it. */
static const char *const modes[] = {"sampled", "full", NULL};

static const struct ps_field bucket_f[] = {
    PS_FIELD(struct buckets, n[0], "lt5_ms"),	PS_FIELD(struct buckets, n[1], "lt20_ms"),
    PS_FIELD(struct buckets, n[2], "lt50_ms"),	PS_FIELD(struct buckets, n[3], "lt150_ms"),
    PS_FIELD(struct buckets, n[4], "lt500_ms"), PS_FIELD(struct buckets, n[5], "ge500_ms"),
    PS_FIELD(struct buckets, n[6], "error"),
};
static const struct ps_fields bucket_fields = PS_FIELDS(struct buckets, bucket_f);

static const struct ps_field slow_f[] = {
    PS_FIELD(struct slow_read, first, "lba_first"),
    PS_FIELD(struct slow_read, last, "lba_last"),
    PS_FIELD(struct slow_read, pos_pct, "pos_pct", .unit = "%", .decimals = 2),
    PS_FIELD(struct slow_read, ms, "ms", .unit = "ms", .decimals = 2),
};
static const struct ps_fields slow_fields = PS_FIELDS(struct slow_read, slow_f);

static const struct ps_field map_f[] = {
    PS_FIELD(struct map_cell, pos_pct, "pos_pct", .unit = "%", .decimals = 1),
    PS_FIELD(struct map_cell, lat_ms, "lat_ms", .unit = "ms", .decimals = 2, .flags = PS_FLD_NULL),
    PS_FIELD(struct map_cell, mean_ms, "mean_ms", .unit = "ms", .decimals = 2,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct map_cell, reads, "reads"),
    PS_FIELD(struct map_cell, errors, "errors"),
};
static const struct ps_fields map_fields = PS_FIELDS(struct map_cell, map_f);

#define SCANNED (PS_FLD_NULL | PS_FLD_OMIT) /* a figure of a scanned drive */

static const struct ps_field drive_f[] = {
    PS_FIELD(struct drive_result, name, "name"),
    PS_FIELD(struct drive_result, device, "device", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive_result, skipped_reason, "skipped_reason", .flags = PS_FLD_OMIT),
    PS_FIELD(struct drive_result, direct, "direct", .help = "O_DIRECT (false: buffered)",
	     .flags = SCANNED),
    PS_FIELD(struct drive_result, size_bytes, "size_bytes", .unit = "bytes", .flags = SCANNED),
    PS_FIELD(struct drive_result, planned_bytes, "planned_bytes", .unit = "bytes",
	     .flags = SCANNED),
    PS_FIELD(struct drive_result, scanned_bytes, "scanned_bytes", .unit = "bytes",
	     .flags = SCANNED),
    PS_FIELD(struct drive_result, scanned_pct, "scanned_pct", .unit = "% of the plan",
	     .decimals = 1, .flags = SCANNED),
    PS_FIELD(struct drive_result, coverage_pct, "coverage_pct", .unit = "% of the drive",
	     .decimals = 2, .flags = SCANNED),
    PS_FIELD(struct drive_result, complete, "complete", .flags = SCANNED),
    PS_FIELD(struct drive_result, stopped_at_lba, "stopped_at_lba", .flags = SCANNED),
    PS_FIELD(struct drive_result, stop_reason, "stop_reason", .flags = PS_FLD_OMIT),
    PS_FIELD(struct drive_result, seconds, "seconds", .unit = "s", .decimals = 2, .flags = SCANNED),
    PS_FIELD(struct drive_result, mbps, "mbps", .unit = "MB/s", .decimals = 1, .flags = SCANNED),
    PS_FIELD(struct drive_result, reads, "reads", .flags = SCANNED),
    PS_FIELD_OBJP(struct drive_result, buckets, "buckets", &bucket_fields, .flags = PS_FLD_OMIT),
    PS_FIELD(struct drive_result, worst_ms, "worst_ms", .unit = "ms", .decimals = 2,
	     .flags = SCANNED),
    PS_FIELD(struct drive_result, recovered, "recovered", .flags = SCANNED),
    PS_FIELD(struct drive_result, bad_sectors, "bad_sectors", .flags = SCANNED),
    PS_FIELD(struct drive_result, not_narrowed, "not_narrowed", .flags = SCANNED),
    PS_FIELD_ARRAY(struct drive_result, bad_ranges, n_bad_ranges, "bad_ranges",
		   &ps_lba_range_row_fields, .flags = PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct drive_result, slowest, n_slowest, "slowest", &slow_fields,
		   .flags = PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct drive_result, map, n_map, "map", &map_fields, .flags = PS_FLD_OMIT),
};
static const struct ps_fields drive_fields = PS_FIELDS(struct drive_result, drive_f);

static const struct ps_field surface_f[] = {
    PS_FIELD_ENUM(struct surface_result, mode, "mode", modes),
    PS_FIELD(struct surface_result, piece_bytes, "piece_bytes", .unit = "bytes"),
    PS_FIELD(struct surface_result, retry_policy, "retry_policy"),
    PS_FIELD(struct surface_result, buckets, "buckets",
	     .schema = "{\"type\": \"array\", \"items\": {\"type\": \"string\"}}"),
    PS_FIELD_ARRAY(struct surface_result, drives, n_drives, "drives", &drive_fields),
};
static const struct ps_fields surface_fields = PS_FIELDS(struct surface_result, surface_f);

/* Reads, replaceable by tests/unit/test_surface.c (which includes this file): a
 * pread that can fail chosen sectors. Returns bytes read or -errno. */
static ssize_t (*surface_pread)(int fd, void *buf, size_t len, uint64_t off);

static ssize_t real_pread(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do
		n = pread(fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

struct scan {
	struct ps_ctx *ctx;
	const struct ps_drive *inv;
	struct drive_result *out;
	int fd;
	unsigned char *buf;
	unsigned int lsec;
	uint64_t size;
	uint64_t reads, recovered, not_narrowed, split_sectors;
	uint64_t buckets[PS_SURF_BUCKETS];
	uint64_t worst_ns;
	double split_s;
	struct ps_lba_ranges bad;
	struct ps_surface_map map;
	struct ps_surface_slowest slowest;
	unsigned int range_findings;
	bool gone;
	int gone_err;
};

static ssize_t do_read(struct scan *s, uint64_t off, uint32_t len)
{
	ssize_t n = (surface_pread ? surface_pread : real_pread)(s->fd, s->buf, len, off);

	if (n >= 0 && (size_t)n < len && off + (uint64_t)n < s->size)
		return -EIO; /* a short read inside the device: the rest did not come */
	return n;
}

static void add_bad(struct scan *s, uint64_t off, uint64_t len)
{
	ps_lba_ranges_add(&s->bad, off / s->lsec, (off + len - 1) / s->lsec);
}

/* Read [off, off + len) in halves down to single sectors; true when all of it read. */
static bool split(struct scan *s, uint64_t off, uint32_t len)
{
	double t0;
	ssize_t n;
	bool ok;

	if (s->gone)
		return false;
	if (s->split_s > SPLIT_BUDGET_S || s->split_sectors > SPLIT_MAX_SECTORS) {
		add_bad(s, off, len);
		s->not_narrowed++;
		return false;
	}
	t0 = ps_mono_now();
	n = do_read(s, off, len);
	s->split_s += ps_mono_now() - t0;
	if (n >= 0)
		return true;
	if (ps_uio_device_gone((int)-n)) {
		s->gone = true;
		s->gone_err = (int)-n;
		return false;
	}
	if (len <= s->lsec) {
		add_bad(s, off, len);
		s->split_sectors++;
		return false;
	}
	{
		uint32_t half = len / 2 / s->lsec * s->lsec;

		if (!half)
			half = s->lsec;
		ok = split(s, off, half);
		ok = split(s, off + half, len - half) && ok;
	}
	return ok;
}

/* One piece: timed, bucketed, mapped; a failing one narrowed to its sectors. */
static void read_piece(struct scan *s, uint64_t off, uint32_t len)
{
	double t0 = ps_mono_now();
	ssize_t n = do_read(s, off, len);
	uint64_t ns = (uint64_t)((ps_mono_now() - t0) * 1e9);

	s->reads++;
	if (n >= 0) {
		s->buckets[ps_surface_bucket(ns)]++;
		ps_surface_map_add(&s->map, off, ns, false);
		ps_surface_slowest_add(&s->slowest, off, len, ns);
		if (ns > s->worst_ns)
			s->worst_ns = ns;
		return;
	}
	if (ps_uio_device_gone((int)-n)) {
		s->gone = true;
		s->gone_err = (int)-n;
		return;
	}
	s->buckets[PS_SURF_ERROR]++;
	ps_surface_map_add(&s->map, off, ns, true);
	if (split(s, off, len))
		s->recovered++;
}

static const char *skip_reason(const struct ps_ctx *ctx, const struct ps_drive *v, char *buf,
			       size_t len)
{
	if (!v->name[0] || strchr(v->name, '/'))
		return "no usable name in the inventory";
	if (v->boot_device)
		return "the boot stick: never touched";
	if (v->size_bytes == 0)
		return v->removable == 1 ? "removable media absent (size 0)" : "size 0";
	(void)ctx;
	(void)buf;
	(void)len;
	return NULL;
}

static void slowest_rows(struct scan *s)
{
	struct drive_result *o = s->out;

	o->slowest = ps_fields_new(&slow_fields, s->slowest.n);
	o->n_slowest = o->slowest ? s->slowest.n : 0;
	for (size_t i = 0; i < o->n_slowest; i++) {
		const struct ps_surface_slow *x = &s->slowest.r[i];

		o->slowest[i].first = x->off / s->lsec;
		o->slowest[i].last = (x->off + x->len - 1) / s->lsec;
		o->slowest[i].pos_pct = 100.0 * (double)x->off / (double)s->size;
		o->slowest[i].ms = (double)x->lat_ns / 1e6;
	}
}

static void map_rows(struct scan *s)
{
	for (unsigned int c = 0; c < PS_SURF_CELLS; c++) {
		const struct ps_surface_cell *cell = &s->map.cell[c];
		uint32_t ok = cell->reads - cell->errors;
		struct map_cell *e;

		if (!cell->reads ||
		    !(e = ps_fields_grow(&map_fields, &s->out->map, &s->out->n_map)))
			continue;
		e->pos_pct = 100.0 * c / PS_SURF_CELLS;
		e->lat_ms = ok ? (double)cell->worst_ns / 1e6 : NAN;
		e->mean_ms = ok ? (double)cell->sum_ns / ok / 1e6 : NAN;
		e->reads = cell->reads;
		e->errors = cell->errors;
	}
}

static void fill_result(struct scan *s, const struct ps_surface_sched *sch, uint64_t done_bytes,
			double seconds, bool complete, uint64_t stop_off)
{
	struct drive_result *o = s->out;

	o->size_bytes = (int64_t)s->size;
	o->planned_bytes = (int64_t)sch->total_bytes;
	o->scanned_bytes = (int64_t)done_bytes;
	o->scanned_pct =
	    sch->total_bytes ? 100.0 * (double)done_bytes / (double)sch->total_bytes : 0;
	o->coverage_pct = 100.0 * (double)done_bytes / (double)s->size;
	o->complete = complete;
	o->stopped_at_lba = complete ? -1 : (int64_t)(stop_off / s->lsec);
	o->seconds = seconds;
	o->mbps = seconds > 0 ? (double)done_bytes / seconds / 1e6 : NAN;
	o->reads = (int64_t)s->reads;
	o->buckets = ps_fields_new(&bucket_fields, 1);
	for (int i = 0; o->buckets && i < PS_SURF_BUCKETS; i++)
		o->buckets->n[i] = s->buckets[i];
	o->worst_ms = s->reads ? (double)s->worst_ns / 1e6 : NAN;
	o->recovered = (int64_t)s->recovered;
	o->not_narrowed = (int64_t)s->not_narrowed;
	o->bad_sectors = (int64_t)ps_lba_ranges_sectors(&s->bad);
	o->bad_ranges = ps_lba_range_rows(&s->bad, &o->n_bad_ranges);
	slowest_rows(s);
	map_rows(s);
}

static void findings(struct scan *s)
{
	uint64_t slow = s->buckets[5];

	for (size_t i = 0; i < s->bad.n; i++) {
		const struct ps_lba_range *r = &s->bad.r[i];
		struct ps_finding f = {.severity = PS_SEV_FAIL,
				       .dev = ps_drive_ref(s->inv),
				       .rule = "unreadable",
				       .value = (double)(r->last - r->first + 1),
				       .limit = 0,
				       .unit = "sectors"};

		if (i == MAX_RANGE_FINDINGS) {
			f.value = (double)ps_lba_ranges_sectors(&s->bad);
			ps_find(
			    s->ctx, &f,
			    "%llu unreadable sectors in %zu ranges in all (see data.bad_ranges)",
			    (unsigned long long)ps_lba_ranges_sectors(&s->bad), s->bad.n);
			break;
		}
		ps_find(s->ctx, &f,
			"unreadable: LBA %llu-%llu (%llu sectors): copy off the drive's data; the "
			"drive will remap them only when they are written",
			(unsigned long long)r->first, (unsigned long long)r->last,
			(unsigned long long)(r->last - r->first + 1));
	}
	if (slow) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = ps_drive_ref(s->inv),
				       .rule = "slow_reads",
				       .value = (double)slow,
				       .limit = 0,
				       .unit = "reads"};

		ps_find(s->ctx, &f,
			"%llu reads of 1 MiB took %.0f ms or longer (worst %.0f ms): sectors the "
			"drive reads only after retries",
			(unsigned long long)slow, SLOW_MS, (double)s->worst_ns / 1e6);
	}
	if (s->recovered) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = ps_drive_ref(s->inv),
				       .rule = "recovered",
				       .value = (double)s->recovered,
				       .limit = 0,
				       .unit = "reads"};

		ps_find(s->ctx, &f,
			"%llu reads failed once and read when split into sectors: weak spots",
			(unsigned long long)s->recovered);
	}
}

enum outcome { O_SKIPPED, O_SCANNED, O_FAILED };

static enum outcome scan_drive(struct scan *s, bool full, bool *aborted)
{
	struct ps_surface_sched sch;
	char path[4200], phase[96], why[300];
	const char *skip = skip_reason(s->ctx, s->inv, why, sizeof(why));
	uint64_t done = 0, i = 0, off = 0;
	bool direct = false;
	double t0;
	int ret;

	if (skip) {
		snprintf(s->out->skipped_reason, sizeof(s->out->skipped_reason), "%s", skip);
		return O_SKIPPED;
	}
	ps_path(path, sizeof(path), s->ctx->root, "/dev/%s", s->inv->name);
	s->lsec = s->inv->logical_sector > 0 ? (unsigned int)s->inv->logical_sector : 512;
	s->fd = ps_uio_open(path, true, &direct, NULL);
	if (s->fd < 0 || ps_uio_size(s->fd, &s->size) < 0 || s->size < s->lsec) {
		snprintf(why, sizeof(why), "cannot read %.200s: %s", path,
			 s->fd < 0 ? strerror(-s->fd) : "no size");
		snprintf(s->out->skipped_reason, sizeof(s->out->skipped_reason), "%s", why);
		ps_findf(s->ctx, PS_SEV_WARN, ps_drive_ref(s->inv), "open_failed",
			 "%s: check dmesg and the cable", why);
		if (s->fd >= 0)
			close(s->fd);
		return O_FAILED;
	}
	if (!direct)
		posix_fadvise(s->fd, 0, 0, POSIX_FADV_DONTNEED);
	ret = ps_surface_schedule(&sch, s->size, PIECE, s->lsec, full, SAMPLE_PCT);
	if (ret < 0 || posix_memalign((void **)&s->buf, PS_UIO_ALIGN, PIECE)) {
		close(s->fd);
		return O_FAILED;
	}
	ps_surface_map_init(&s->map, s->size);
	s->out->direct = direct;
	snprintf(phase, sizeof(phase), "scan %s (%s)", s->inv->name, full ? "full" : "sampled");
	ps_progress_phase(s->ctx, phase, sch.total_bytes, "B");
	t0 = ps_mono_now();
	for (i = 0; i < sch.total && !s->gone; i++) {
		uint32_t len;

		if (ps_should_abort(s->ctx)) {
			*aborted = true;
			break;
		}
		ps_surface_piece(&sch, i, &off, &len);
		read_piece(s, off, len);
		done += len;
		ps_progress_set(s->ctx, done);
	}
	{
		/* where it stopped: the piece that failed, or after an abort the first not read */
		uint64_t stop = off;
		uint32_t len;

		if (*aborted && !s->gone && i < sch.total)
			ps_surface_piece(&sch, i, &stop, &len);
		fill_result(s, &sch, done, ps_mono_now() - t0, i == sch.total && !s->gone, stop);
	}
	if (*aborted)
		snprintf(s->out->stop_reason, sizeof(s->out->stop_reason),
			 "aborted by the user: the figures cover what was scanned");
	if (s->gone) {
		snprintf(s->out->stop_reason, sizeof(s->out->stop_reason),
			 "%s went away at LBA %llu (%s)", s->inv->name,
			 (unsigned long long)(off / s->lsec), strerror(s->gone_err));
		ps_findf(s->ctx, PS_SEV_FAIL, ps_drive_ref(s->inv), "drive_gone",
			 "%s: check its cable and power, and dmesg", s->out->stop_reason);
	}
	findings(s);
	free(s->buf);
	close(s->fd);
	return O_SCANNED;
}

static int parse_mode(const char *text, void *value, char *why, size_t whylen)
{
	return ps_parse_choice(text, modes, value, why, whylen);
}

static const struct ps_setting_choice mode_choices[] = {
    {"sampled", "the first and last GiB and 1 % of the rest of each drive"},
    {"full", "every sector of each drive (hours on a large disk)"},
    {NULL, NULL},
};

static const struct ps_setting surface_mode = {
    .key = "surface",
    .help = "the full plan's surface scan: sampled or full",
    .def = "sampled",
    .size = sizeof(int),
    .parse = parse_mode,
    .menu_key = 's',
    .menu_label = "surface scan of the full plan",
    .choices = mode_choices,
};

static bool full_scan(const struct ps_ctx *ctx)
{
	return *(const int *)ps_setting(ctx, &surface_mode) == 1;
}

static int run(struct ps_ctx *ctx)
{
	struct surface_result *out = ctx->result;
	bool full = full_scan(ctx), aborted = false;
	unsigned int targets = 0, scanned = 0;
	uint64_t bad = 0;

	out->mode = full;
	out->piece_bytes = PIECE;
	out->retry_policy = retry_policy;
	out->buckets = json_object_new_array();
	out->drives = ps_fields_new(&drive_fields, ctx->inv->n_drives);
	if (!out->buckets || !out->drives)
		return -ENOMEM;
	for (int b = 0; b < PS_SURF_BUCKETS; b++)
		json_object_array_add(out->buckets,
				      json_object_new_string(ps_surface_bucket_key(b)));
	for (size_t i = 0; i < ctx->inv->n_drives && !aborted; i++) {
		struct scan s = {.ctx = ctx, .inv = &ctx->inv->drives[i], .fd = -1};
		enum outcome o;

		s.out = &out->drives[out->n_drives++];
		snprintf(s.out->name, sizeof(s.out->name), "%s",
			 s.inv->name[0] ? s.inv->name : "(unnamed)");
		s.out->device = s.inv->id;
		o = scan_drive(&s, full, &aborted);
		targets += o != O_SKIPPED;
		scanned += o == O_SCANNED;
		bad += ps_lba_ranges_sectors(&s.bad);
		if (o == O_SCANNED && !aborted)
			ps_examined(ctx, ps_drive_ref(s.inv), "scanned",
				    "%s scan of %.1f%% of the drive, worst read %.1f ms",
				    full ? "a full" : "a sampled", s.out->coverage_pct,
				    (double)s.worst_ns / 1e6);
		ps_lba_ranges_free(&s.bad);
	}
	if (aborted)
		return PS_ABORTED;
	if (targets == 0) {
		ps_step_reason(ctx, "no drive to scan (the boot stick is never one)");
		return PS_SKIPPED;
	}
	if (scanned == 0)
		return -EIO;
	return bad ? PS_FAIL : PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	bool full = full_scan(ctx);
	double s = 0;

	/* at 150 MB/s, a hard disk's pace; faster drives finish sooner */
	for (size_t i = 0; i < ctx->inv->n_drives; i++) {
		const struct ps_drive *d = &ctx->inv->drives[i];
		struct ps_surface_sched sch;

		if (d->boot_device || d->size_bytes <= 0 ||
		    ps_surface_schedule(&sch, (uint64_t)d->size_bytes, PIECE, 512, full,
					SAMPLE_PCT) < 0)
			continue;
		s += (double)sch.total_bytes / 150e6;
	}
	return s;
}

/* ---- view ---- */

static const struct ps_col sum_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/coverage_pct", .title = "of drive", .unit = "%", .decimals = 1},
    {.path = "/mbps", .title = "MB/s", .decimals = 0, .better = PS_BETTER_HIGHER},
    {.path = "/worst_ms",
     .title = "worst",
     .unit = "ms",
     .decimals = 1,
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_HEADLINE},
    {.path = "/bad_sectors", .title = "bad", .better = PS_BETTER_LOWER, .flags = PS_COL_HEADLINE},
    {.path = "/complete", .title = "complete", .fmt = PS_FMT_BOOL},
    {.path = "/stopped_at_lba", .title = "stopped at LBA", .flags = PS_COL_OPTIONAL},
};

static const struct ps_col bucket_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/buckets/lt5_ms", .title = "<5"},
    {.path = "/buckets/lt20_ms", .title = "<20"},
    {.path = "/buckets/lt50_ms", .title = "<50"},
    {.path = "/buckets/lt150_ms", .title = "<150", .better = PS_BETTER_LOWER},
    {.path = "/buckets/lt500_ms", .title = "<500", .better = PS_BETTER_LOWER},
    {.path = "/buckets/ge500_ms", .title = ">=500", .better = PS_BETTER_LOWER},
    {.path = "/buckets/error", .title = "error", .better = PS_BETTER_LOWER},
    {.path = "/recovered", .title = "recovered", .better = PS_BETTER_LOWER},
};

static const struct ps_col bad_cols[] = {PS_LBA_RANGE_COLS};

static const struct ps_col slow_cols[] = {
    {.path = "^/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/lba_first", .title = "first LBA", .flags = PS_COL_KEY},
    {.path = "/lba_last", .title = "last LBA"},
    {.path = "/pos_pct", .title = "at", .unit = "%", .decimals = 1},
    {.path = "/ms", .title = "read", .unit = "ms", .decimals = 1, .better = PS_BETTER_LOWER},
};

static const struct ps_col map_cols[] = {
    {.path = "/name", .title = "drive"},
    {.path = "/pos_pct", .title = "position", .unit = "%"},
    {.path = "/lat_ms", .title = "worst read", .unit = "ms", .better = PS_BETTER_LOWER},
};

static const struct ps_col skip_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/skipped_reason", .title = "not scanned", .flags = PS_COL_WIDE},
};

static const struct ps_col stop_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/scanned_pct", .title = "done", .unit = "%", .decimals = 1},
    {.path = "/stop_reason", .title = "stopped", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "summary",
     .title = "Surface scan (read-only, 1 MiB reads at QD1)",
     .rows = "/drives",
     .when = "/reads",
     .cols = PS_COLS(sum_cols),
     .empty = "no drive was scanned"},
    {.kind = PS_BLOCK_TABLE,
     .id = "buckets",
     .title = "Reads by latency (ms)",
     .rows = "/drives",
     .when = "/reads",
     .cols = PS_COLS(bucket_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "bad",
     .title = "Unreadable sectors",
     .rows = "/drives",
     .nested = "/bad_ranges",
     .cols = PS_COLS(bad_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "slowest",
     .title = "Slowest reads",
     .rows = "/drives",
     .nested = "/slowest",
     .cols = PS_COLS(slow_cols),
     .flags = 0},
    {.kind = PS_BLOCK_SERIES,
     .id = "map",
     .title = "Read latency over the drive",
     .rows = "/drives",
     .nested = "/map",
     .cols = PS_COLS(map_cols),
     .series = PS_SERIES_MAP,
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_TABLE,
     .id = "stopped",
     .rows = "/drives",
     .when = "/stop_reason",
     .cols = PS_COLS(stop_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "skipped",
     .rows = "/drives",
     .when = "/skipped_reason",
     .cols = PS_COLS(skip_cols)},
};

static const struct ps_view view = {
    .name = "surface",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops surface_ops = {
    .abi = PS_STEP_ABI,
    .name = "surface",
    .title = "read-only surface scan per drive (surface=sampled|full)",
    .plans = PS_PLAN_FULL,
    .order = 30,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &surface_fields,
    .settings = (const struct ps_setting *const[]){&surface_mode, NULL},
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(surface_ops);
