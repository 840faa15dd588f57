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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "mode": {"enum": ["sampled", "full"]},
//schema:    "piece_bytes": {"type": "integer"},
//schema:    "retry_policy": {"type": "string"},
//schema:    "buckets": {"type": "array", "items": {"type": "string"}},
//schema:    "drives": {"type": "array", "items": {
//schema:      "type": "object",
//schema:      "properties": {
//schema:        "name": {"type": "string"},
//schema:        "device": {"type": ["string", "null"]},
//schema:        "skipped_reason": {"type": "string"},
//schema:        "size_bytes": {"type": "integer"},
//schema:        "planned_bytes": {"type": "integer"},
//schema:        "scanned_bytes": {"type": "integer"},
//schema:        "scanned_pct": {"type": "number"},
//schema:        "coverage_pct": {"type": "number"},
//schema:        "complete": {"type": "boolean"},
//schema:        "stopped_at_lba": {"type": ["integer", "null"]},
//schema:        "stop_reason": {"type": ["string", "null"]},
//schema:        "seconds": {"type": "number"},
//schema:        "mbps": {"type": ["number", "null"]},
//schema:        "reads": {"type": "integer"},
//schema:        "buckets": {"type": "object"},
//schema:        "worst_ms": {"type": ["number", "null"]},
//schema:        "recovered": {"type": "integer"},
//schema:        "bad_sectors": {"type": "integer"},
//schema:        "not_narrowed": {"type": "integer"},
//schema:        "bad_ranges": {"type": "array", "items": {"type": "object",
//schema:          "properties": {"lba_first": {"type": "integer"}, "lba_last": {"type": "integer"},
//schema:                         "sectors": {"type": "integer"}},
//schema:          "required": ["lba_first", "lba_last", "sectors"]}},
//schema:        "slowest": {"type": "array", "items": {"type": "object"}},
//schema:        "map": {"type": "array", "items": {"type": "object",
//schema:          "properties": {"pos_pct": {"type": "number"}, "lat_ms": {"type": ["number", "null"]},
//schema:                         "mean_ms": {"type": ["number", "null"]}, "reads": {"type": "integer"},
//schema:                         "errors": {"type": "integer"}}}}
//schema:      },
//schema:      "required": ["name"]
//schema:    }}
//schema:  },
//schema:  "required": ["mode", "drives"]
//schema:}
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "lib/util.h"
#include "engines/io/lba_ranges.h"
#include "engines/io/surface.h"
#include "engines/io/uring_io.h"
#include "lib/json.h"

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
	json_object *obj;
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

static void results_json(struct scan *s, const struct ps_surface_sched *sch, uint64_t done_bytes,
			 double seconds, bool complete, uint64_t stop_off)
{
	json_object *o = s->obj, *b = json_object_new_object(), *r = json_object_new_array();
	json_object *slow = json_object_new_array(), *map = json_object_new_array();

	ps_json_set(o, "size_bytes", json_object_new_int64((int64_t)s->size));
	ps_json_set(o, "planned_bytes", json_object_new_int64((int64_t)sch->total_bytes));
	ps_json_set(o, "scanned_bytes", json_object_new_int64((int64_t)done_bytes));
	ps_json_set_num(
	    o, "scanned_pct",
	    sch->total_bytes ? 100.0 * (double)done_bytes / (double)sch->total_bytes : 0, 1);
	ps_json_set_num(o, "coverage_pct", 100.0 * (double)done_bytes / (double)s->size, 2);
	ps_json_set(o, "complete", json_object_new_boolean(complete));
	ps_json_set(o, "stopped_at_lba",
		    complete ? NULL : json_object_new_int64((int64_t)(stop_off / s->lsec)));
	ps_json_set_num(o, "seconds", seconds, 2);
	ps_json_set_num(o, "mbps", seconds > 0 ? (double)done_bytes / seconds / 1e6 : NAN, 1);
	ps_json_set(o, "reads", json_object_new_int64((int64_t)s->reads));
	for (int i = 0; i < PS_SURF_BUCKETS; i++)
		ps_json_set(b, ps_surface_bucket_key(i),
			    json_object_new_int64((int64_t)s->buckets[i]));
	ps_json_set(o, "buckets", b);
	ps_json_set_num(o, "worst_ms", s->reads ? (double)s->worst_ns / 1e6 : NAN, 2);
	ps_json_set(o, "recovered", json_object_new_int64((int64_t)s->recovered));
	ps_json_set(o, "not_narrowed", json_object_new_int64((int64_t)s->not_narrowed));
	ps_json_set(o, "bad_sectors",
		    json_object_new_int64((int64_t)ps_lba_ranges_sectors(&s->bad)));
	for (size_t i = 0; i < s->bad.n; i++) {
		json_object *e = json_object_new_object();

		ps_json_set(e, "lba_first", json_object_new_int64((int64_t)s->bad.r[i].first));
		ps_json_set(e, "lba_last", json_object_new_int64((int64_t)s->bad.r[i].last));
		ps_json_set(
		    e, "sectors",
		    json_object_new_int64((int64_t)(s->bad.r[i].last - s->bad.r[i].first + 1)));
		json_object_array_add(r, e);
	}
	ps_json_set(o, "bad_ranges", r);
	for (size_t i = 0; i < s->slowest.n; i++) {
		json_object *e = json_object_new_object();
		const struct ps_surface_slow *x = &s->slowest.r[i];

		ps_json_set(e, "lba_first", json_object_new_int64((int64_t)(x->off / s->lsec)));
		ps_json_set(e, "lba_last",
			    json_object_new_int64((int64_t)((x->off + x->len - 1) / s->lsec)));
		ps_json_set_num(e, "pos_pct", 100.0 * (double)x->off / (double)s->size, 2);
		ps_json_set_num(e, "ms", (double)x->lat_ns / 1e6, 2);
		json_object_array_add(slow, e);
	}
	ps_json_set(o, "slowest", slow);
	for (unsigned int c = 0; c < PS_SURF_CELLS; c++) {
		const struct ps_surface_cell *cell = &s->map.cell[c];
		uint32_t ok = cell->reads - cell->errors;
		json_object *e;

		if (!cell->reads)
			continue;
		e = json_object_new_object();
		ps_json_set_num(e, "pos_pct", 100.0 * c / PS_SURF_CELLS, 1);
		ps_json_set_num(e, "lat_ms", ok ? (double)cell->worst_ns / 1e6 : NAN, 2);
		ps_json_set_num(e, "mean_ms", ok ? (double)cell->sum_ns / ok / 1e6 : NAN, 2);
		ps_json_set(e, "reads", json_object_new_int((int)cell->reads));
		ps_json_set(e, "errors", json_object_new_int((int)cell->errors));
		json_object_array_add(map, e);
	}
	ps_json_set(o, "map", map);
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
		ps_json_set_str(s->obj, "skipped_reason", skip);
		return O_SKIPPED;
	}
	ps_path(path, sizeof(path), s->ctx->root, "/dev/%s", s->inv->name);
	s->lsec = s->inv->logical_sector > 0 ? (unsigned int)s->inv->logical_sector : 512;
	s->fd = ps_uio_open(path, true, &direct, NULL);
	if (s->fd < 0 || ps_uio_size(s->fd, &s->size) < 0 || s->size < s->lsec) {
		snprintf(why, sizeof(why), "cannot read %.200s: %s", path,
			 s->fd < 0 ? strerror(-s->fd) : "no size");
		ps_json_set_str(s->obj, "skipped_reason", why);
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
	ps_json_set(s->obj, "direct", json_object_new_boolean(direct));
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
		results_json(s, &sch, done, ps_mono_now() - t0, i == sch.total && !s->gone, stop);
	}
	if (*aborted)
		ps_json_set_str(s->obj, "stop_reason",
				"aborted by the user: the figures cover what "
				"was scanned");
	if (s->gone) {
		char msg[300];

		snprintf(msg, sizeof(msg), "%s went away at LBA %llu (%s)", s->inv->name,
			 (unsigned long long)(off / s->lsec), strerror(s->gone_err));
		ps_json_set_str(s->obj, "stop_reason", msg);
		ps_findf(s->ctx, PS_SEV_FAIL, ps_drive_ref(s->inv), "drive_gone",
			 "%s: check its cable and power, and dmesg", msg);
	}
	findings(s);
	free(s->buf);
	close(s->fd);
	return O_SCANNED;
}

/* surface=: the full plan scans a sample of each drive, or all of it. */
static const char *const modes[] = {"sampled", "full", NULL};

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
	bool full = full_scan(ctx), aborted = false;
	json_object *out = json_object_new_array(), *names = json_object_new_array();
	unsigned int targets = 0, scanned = 0;
	uint64_t bad = 0;

	ps_json_set_str(ctx->data, "mode", full ? "full" : "sampled");
	ps_json_set(ctx->data, "piece_bytes", json_object_new_int((int)PIECE));
	ps_json_set_str(ctx->data, "retry_policy", retry_policy);
	for (int b = 0; b < PS_SURF_BUCKETS; b++)
		json_object_array_add(names, json_object_new_string(ps_surface_bucket_key(b)));
	ps_json_set(ctx->data, "buckets", names);
	ps_json_set(ctx->data, "drives", out);
	for (size_t i = 0; i < ctx->inv->n_drives && !aborted; i++) {
		struct scan s = {.ctx = ctx, .inv = &ctx->inv->drives[i], .fd = -1};
		enum outcome o;

		s.obj = json_object_new_object();
		ps_json_set_str(s.obj, "name", s.inv->name[0] ? s.inv->name : "(unnamed)");
		ps_json_set_str(s.obj, "device", s.inv->id);
		json_object_array_add(out, s.obj);
		o = scan_drive(&s, full, &aborted);
		targets += o != O_SKIPPED;
		scanned += o == O_SCANNED;
		bad += ps_lba_ranges_sectors(&s.bad);
		if (o == O_SCANNED && !aborted)
			ps_examined(
			    ctx, ps_drive_ref(s.inv), "scanned",
			    "%s scan of %.1f%% of the drive, worst read %.1f ms",
			    full ? "a full" : "a sampled",
			    100.0 *
				(double)json_object_get_int64(ps_json_get(s.obj, "scanned_bytes")) /
				(double)(s.size ? s.size : 1),
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

static const struct ps_col bad_cols[] = {
    {.path = "^/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/lba_first", .title = "first LBA", .flags = PS_COL_KEY},
    {.path = "/lba_last", .title = "last LBA"},
    {.path = "/sectors", .title = "sectors", .better = PS_BETTER_LOWER},
};

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
    .settings = (const struct ps_setting *const[]){&surface_mode, NULL},
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(surface_ops);
