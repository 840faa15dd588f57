/*
 * memtest.c - a memory pattern test from user space (memtester's tests):
 * as much memory as can be locked within the budget, each pattern written
 * over all of it and read back (address in address, solid bits,
 * checkerboard, walking ones and zeros, seeded random values; every one
 * also complemented). Each failing word is turned into a physical address
 * (/proc/self/pagemap) and, where EDAC or SMBIOS can tell, the DIMM it sits
 * on. It cannot reach the memory the kernel itself uses: memtest86+ on the
 * boot menu tests all of it.
 */
/* clang-format off */
//config:config STEP_MEMTEST
//config:	bool "memtest: memory pattern test from user space (full plan)"
//config:	default y
//config:	help
//config:	  memtester's patterns (address in address, solid bits,
//config:	  checkerboard, walking ones and zeros, seeded random values,
//config:	  each also complemented) over memory locked with mlock: by
//config:	  default 10% of the free memory, at most 512 MiB, in the full
//config:	  plan; memtest=SIZE or memtest=N% in probestick.cfg sets the
//config:	  size. A failing word is reported with its physical address
//config:	  and, where EDAC or SMBIOS tells, its DIMM. Never in the quick
//config:	  plan. The kernel's own memory is out of its reach: the
//config:	  memtest86+ boot entry tests all of memory.
//kbuild:step-$(CONFIG_STEP_MEMTEST) += memtest.o
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "lib/util.h"
#include "engines/mem/mem.h"
#include "engines/mem/pattern.h"
#include "hw/edac.h"
#include "hw/inventory.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define DATA_VERSION 1

#define MIB	    (1024ULL * 1024ULL)
#define CHUNK	    (16 * MIB) /* progress and abort points */
#define MAX_FAILS   64	       /* failing words kept in the report; all are counted */
#define DEFAULT_PCT 10
#define DEFAULT_MAX (512 * MIB)
#define HEADROOM    (128 * MIB) /* never locked: the initramfs and the kernel live on it */
#define MIN_BYTES   (4 * MIB)
#define REACH_TEXT                                                                                 \
	"user space only: the memory the kernel and the initramfs occupy, and whatever "           \
	"the kernel keeps for itself, is out of this test's reach; the boot menu's "               \
	"memtest86+ entry tests all of memory"

struct fail_rec {
	struct ps_mt_fail f;
	enum ps_mt_pattern p;
	unsigned int pass;
};

/* ---- the result: data{} as a struct, described once ---- */

struct pattern_row {
	const char *pattern;
	unsigned int passes;
	uint64_t errors;
	double seconds, rate_mbps;
};

struct failure_row {
	const char *pattern;
	unsigned int pass;
	uint64_t offset;	       /* bytes into the locked buffer */
	char phys[24], phys_why[120];  /* "0x..." or "" unknown, and why */
	char expected[24], actual[24]; /* 64-bit words as "0x%016x" */
	int bits;		       /* the bits that differ */
	char dimm[64];		       /* "" unknown */
	const char *dimm_source;       /* "edac", "smbios", NULL */
	char dimm_why[300];	       /* why the DIMM is unknown */
};

struct memtest_result {
	char requested[PS_SETTING_TEXT_MAX];
	uint64_t size_bytes;
	int64_t available_bytes; /* -1 unknown */
	bool locked;
	char size_note[240];
	int64_t seed; /* -1: no buffer, no seed */
	double seconds, rate_mbps;
	uint64_t errors;
	ps_tri complete; /* unknown: nothing ran */
	const char *reach;
	struct pattern_row patterns[PS_MT_PATTERNS];
	size_t n_patterns;
	struct failure_row failures[MAX_FAILS];
	size_t n_failures;
};

static const struct ps_field pattern_f[] = {
    PS_FIELD(struct pattern_row, pattern, "pattern"),
    PS_FIELD(struct pattern_row, passes, "passes"),
    PS_FIELD(struct pattern_row, errors, "errors", .unit = "words"),
    PS_FIELD(struct pattern_row, seconds, "seconds", .unit = "s", .decimals = 2,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct pattern_row, rate_mbps, "rate_mbps", .unit = "MB/s written and read",
	     .flags = PS_FLD_NULL),
};
static const struct ps_fields pattern_fields = PS_FIELDS(struct pattern_row, pattern_f);

static const struct ps_field failure_f[] = {
    PS_FIELD(struct failure_row, pattern, "pattern"),
    PS_FIELD(struct failure_row, pass, "pass"),
    PS_FIELD(struct failure_row, offset, "offset", .unit = "bytes"),
    PS_FIELD(struct failure_row, phys, "phys", .help = "hex", .flags = PS_FLD_NULL),
    PS_FIELD(struct failure_row, phys_why, "phys_why", .flags = PS_FLD_NULL),
    PS_FIELD(struct failure_row, expected, "expected", .help = "hex"),
    PS_FIELD(struct failure_row, actual, "actual", .help = "hex"),
    PS_FIELD(struct failure_row, bits, "bits"),
    PS_FIELD(struct failure_row, dimm, "dimm", .flags = PS_FLD_NULL),
    PS_FIELD(struct failure_row, dimm_source, "dimm_source", .flags = PS_FLD_NULL),
    PS_FIELD(struct failure_row, dimm_why, "dimm_why", .flags = PS_FLD_NULL),
};
static const struct ps_fields failure_fields = PS_FIELDS(struct failure_row, failure_f);

static const struct ps_field memtest_f[] = {
    PS_FIELD(struct memtest_result, requested, "requested", .flags = PS_FLD_NULL),
    PS_FIELD(struct memtest_result, size_bytes, "size_bytes", .unit = "bytes"),
    PS_FIELD(struct memtest_result, available_bytes, "available_bytes", .unit = "bytes",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct memtest_result, locked, "locked"),
    PS_FIELD(struct memtest_result, size_note, "size_note", .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct memtest_result, seed, "seed", .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct memtest_result, seconds, "seconds", .unit = "s", .decimals = 2,
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct memtest_result, rate_mbps, "rate_mbps", .unit = "MB/s written and read",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct memtest_result, errors, "errors", .unit = "words"),
    PS_FIELD(struct memtest_result, complete, "complete", .flags = PS_FLD_OMIT),
    PS_FIELD(struct memtest_result, reach, "reach"),
    PS_FIELD_ARRAY(struct memtest_result, patterns, n_patterns, "patterns", &pattern_fields),
    PS_FIELD_ARRAY(struct memtest_result, failures, n_failures, "failures", &failure_fields),
};
static const struct ps_fields memtest_fields = PS_FIELDS(struct memtest_result, memtest_f);

/* memtest=: a size (256M, 2G) or a share of the free memory (10%); none: the default. */
struct memtest_size {
	uint64_t bytes;
	unsigned int pct;
};

static int parse_size(const char *text, void *value, char *why, size_t whylen)
{
	struct memtest_size *m = value;

	if (ps_memtest_spec_parse(text, &m->bytes, &m->pct) == 0)
		return 0;
	snprintf(why, whylen,
		 "not a size (256M, 2G; at least 1M) or a share of the free memory (1%% to 90%%)");
	return -EINVAL;
}

static const struct ps_setting memtest_size = {
    .key = "memtest",
    .help = "the memtest step's size: SIZE (256M, 2G) or N% of the free memory (10%)",
    .size = sizeof(struct memtest_size),
    .parse = parse_size,
};

/* The size: memtest= (a size or a share of the free memory), else the default. */
static uint64_t size_of(const struct ps_ctx *ctx, int64_t avail, char *note, size_t len)
{
	const char *req = ps_setting_text(ctx, &memtest_size);
	const struct memtest_size *m = ps_setting(ctx, &memtest_size);
	uint64_t bytes = m->bytes, cap;
	unsigned int pct = req[0] ? m->pct : DEFAULT_PCT;
	if (avail <= 0) {
		snprintf(note, len, "the free memory is unknown (no MemAvailable): %llu MiB",
			 (unsigned long long)(MIN_BYTES * 4 / MIB));
		return bytes ? bytes : MIN_BYTES * 4;
	}
	cap = (uint64_t)avail > HEADROOM ? (uint64_t)avail - HEADROOM : 0;
	if (!bytes) {
		bytes = (uint64_t)avail / 100 * pct;
		if (!req[0] && bytes > DEFAULT_MAX)
			bytes = DEFAULT_MAX;
	}
	if (bytes > cap) {
		snprintf(
		    note, len,
		    "%llu MiB asked for, %lld MiB free: %llu MiB (the free memory less %llu MiB "
		    "left to the system)",
		    (unsigned long long)(bytes / MIB), (long long)(avail / (int64_t)MIB),
		    (unsigned long long)(cap / MIB), HEADROOM / MIB);
		bytes = cap;
	}
	return bytes & ~(MIB - 1);
}

/* Map and lock size bytes, halving until the kernel agrees; NULL when not even MIN_BYTES. */
static uint64_t *lock_buffer(uint64_t *size, bool *locked)
{
	for (uint64_t s = *size; s >= MIN_BYTES; s = (s / 2) & ~(MIB - 1)) {
		void *p = mmap(NULL, s, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			continue;
		if (mlock(p, s) == 0) {
			*size = s;
			*locked = true;
			return p;
		}
		munmap(p, s);
	}
	*locked = false;
	return NULL;
}

static void hex64(char *out, size_t len, uint64_t v)
{
	snprintf(out, len, "0x%016" PRIx64, v);
}

/* Where a failing word is: its physical address (pagemap) and DIMM, or why not. */
static void failure_row(struct failure_row *o, const struct fail_rec *r, const uint64_t *buf,
			int pagemap_fd, const char *dimm, const char *dsrc, const char *dwhy)
{
	uint64_t vaddr = (uint64_t)(uintptr_t)buf + r->f.offset, entry = 0, phys = 0;
	long page = sysconf(_SC_PAGESIZE);
	int err = -EIO;

	if (pagemap_fd < 0)
		snprintf(o->phys_why, sizeof(o->phys_why),
			 "/proc/self/pagemap could not be opened");
	else if (pread(pagemap_fd, &entry, sizeof(entry), (off_t)(vaddr / (uint64_t)page * 8)) !=
		 sizeof(entry))
		snprintf(o->phys_why, sizeof(o->phys_why),
			 "/proc/self/pagemap could not be read there");
	else if ((err = ps_pagemap_phys(entry, vaddr, (uint64_t)page, &phys)) == -EPERM)
		snprintf(o->phys_why, sizeof(o->phys_why),
			 "the kernel shows page frames to root only (CAP_SYS_ADMIN)");
	else if (err < 0)
		snprintf(o->phys_why, sizeof(o->phys_why), "the page is not in memory");
	o->pattern = ps_mt_pattern_name(r->p);
	o->pass = r->pass;
	o->offset = r->f.offset;
	if (err == 0)
		hex64(o->phys, sizeof(o->phys), phys);
	hex64(o->expected, sizeof(o->expected), r->f.expected);
	hex64(o->actual, sizeof(o->actual), r->f.actual);
	o->bits = __builtin_popcountll(r->f.expected ^ r->f.actual);
	snprintf(o->dimm, sizeof(o->dimm), "%s", dsrc ? dimm : "");
	o->dimm_source = dsrc;
	snprintf(o->dimm_why, sizeof(o->dimm_why), "%s", dsrc ? "" : dwhy);
}

static struct ps_dev_ref machine_ref(const struct ps_ctx *ctx)
{
	return (struct ps_dev_ref){
	    PS_DEV_MACHINE, ctx->inv->machine.id[0] ? ctx->inv->machine.id : NULL, "machine"};
}

/* One test over the locked buffer: what it holds while the patterns run. */
struct mt_run {
	struct ps_ctx *ctx;
	uint64_t *buf, size, seed;
	struct fail_rec rec[MAX_FAILS];
	size_t n_rec;
	double moved; /* bytes written and read */
	bool aborted;
};

/* One pass of pattern p: all of it written, then all of it read (the data leaves the caches). */
static uint64_t one_pass(struct mt_run *t, enum ps_mt_pattern p, unsigned int pass)
{
	size_t words = t->size / sizeof(uint64_t), chunk_words = CHUNK / sizeof(uint64_t);
	struct ps_mt_fail tmp[MAX_FAILS];
	uint64_t bad_words = 0;

	for (size_t at = 0; at < words && !t->aborted; at += chunk_words) {
		size_t n = words - at < chunk_words ? words - at : chunk_words;

		ps_mt_fill(p, t->buf + at, n, pass, t->seed ^ at);
		ps_progress_add(t->ctx, n * sizeof(uint64_t));
		t->aborted = ps_should_abort(t->ctx);
	}
	for (size_t at = 0; at < words && !t->aborted; at += chunk_words) {
		size_t n = words - at < chunk_words ? words - at : chunk_words;
		size_t bad =
		    ps_mt_check(p, t->buf + at, n, pass, t->seed ^ at, tmp, MAX_FAILS - t->n_rec);

		for (size_t i = 0; i < bad && t->n_rec < MAX_FAILS; i++) {
			t->rec[t->n_rec] = (struct fail_rec){tmp[i], p, pass};
			t->rec[t->n_rec].f.offset += at * sizeof(uint64_t);
			t->n_rec++;
		}
		bad_words += bad;
		ps_progress_add(t->ctx, n * sizeof(uint64_t));
		t->aborted = ps_should_abort(t->ctx);
	}
	return bad_words;
}

/* Every pattern, PS_MT_PASSES passes each, into r's rows and totals. */
static void run_patterns(struct mt_run *t, struct memtest_result *r)
{
	double t0 = ps_mono_now();

	ps_progress_phase(t->ctx, "patterns", (uint64_t)PS_MT_PATTERNS * PS_MT_PASSES * 2 * t->size,
			  "B");
	r->errors = 0;
	for (int p = 0; p < PS_MT_PATTERNS && !t->aborted; p++) {
		struct pattern_row *row = &r->patterns[r->n_patterns++];
		double tp = ps_mono_now();

		row->pattern = ps_mt_pattern_name(p);
		row->errors = 0;
		for (unsigned int pass = 0; pass < PS_MT_PASSES && !t->aborted; pass++) {
			row->errors += one_pass(t, p, pass);
			if (!t->aborted) {
				row->passes++;
				t->moved += 2.0 * (double)t->size;
			}
		}
		r->errors += row->errors;
		tp = ps_mono_now() - tp;
		row->seconds = tp;
		row->rate_mbps =
		    row->passes && tp > 0 ? 2.0 * row->passes * t->size / tp / 1e6 : NAN;
	}
	r->seconds = ps_mono_now() - t0;
	r->rate_mbps = r->seconds > 0 && t->moved > 0 ? t->moved / r->seconds / 1e6 : NAN;
	r->complete = !t->aborted;
}

/* The failing words' rows: physical address and, where EDAC or SMBIOS tells, the DIMM. */
static void locate_failures(struct ps_ctx *ctx, const struct mt_run *t, struct memtest_result *r,
			    const struct ps_edac *before)
{
	struct ps_edac after = {0};
	char dimm[64], dwhy[300];
	const char *dsrc;
	int fd;

	ps_edac_read(ctx->root, &after);
	dsrc = ps_mt_dimm_of(&ctx->inv->memory, before, &after, dimm, sizeof(dimm), dwhy,
			     sizeof(dwhy));
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	for (size_t i = 0; i < t->n_rec; i++)
		failure_row(&r->failures[r->n_failures++], &t->rec[i], t->buf, fd, dimm, dsrc,
			    dwhy);
	if (fd >= 0)
		close(fd);
	ps_edac_free(&after);
}

/* The verdict: a fail naming the first failing word, or the machine examined. */
static int judge(struct ps_ctx *ctx, const struct memtest_result *r, bool aborted)
{
	const struct failure_row *first = r->n_failures ? &r->failures[0] : NULL;

	if (r->errors) {
		struct ps_finding f = {.severity = PS_SEV_FAIL,
				       .dev = machine_ref(ctx),
				       .rule = "pattern_error",
				       .value = (double)r->errors,
				       .limit = 0,
				       .unit = "words"};

		ps_find(
		    ctx, &f,
		    "%" PRIu64 " words of %llu MiB did not hold what was written (first: %s "
		    "pattern at physical address %s, %s expected, %s read; DIMM %s): the memory "
		    "is faulty; boot memtest86+ from the stick's menu to test all of it",
		    r->errors, (unsigned long long)(r->size_bytes / MIB),
		    first ? first->pattern : "?", first && first->phys[0] ? first->phys : "unknown",
		    first ? first->expected : "?", first ? first->actual : "?",
		    first && first->dimm[0] ? first->dimm : "unknown");
	}
	if (aborted) {
		ps_step_reason(ctx, "aborted after %.1f s; the patterns that ran are kept",
			       r->seconds);
		return PS_ABORTED;
	}
	if (!r->errors)
		ps_examined(ctx, machine_ref(ctx), "patterns_held",
			    "%d patterns, twice each, over %llu MiB held at %.0f MB/s (%s)",
			    PS_MT_PATTERNS, (unsigned long long)(r->size_bytes / MIB),
			    isfinite(r->rate_mbps) ? r->rate_mbps : 0.0,
			    "user space only: memtest86+ on the boot menu tests all of memory");
	return r->errors ? PS_FAIL : PS_PASS;
}

static int run(struct ps_ctx *ctx)
{
	struct memtest_result *r = ctx->result;
	int64_t avail = ps_mem_available(ctx->root);
	struct mt_run *t = calloc(1, sizeof(*t));
	struct ps_edac before = {0};
	int status;

	r->reach = REACH_TEXT;
	r->errors = 0;
	snprintf(r->requested, sizeof(r->requested), "%s", ps_setting_text(ctx, &memtest_size));
	r->available_bytes = avail > 0 ? avail : -1;
	if (!t)
		return -ENOMEM;
	t->ctx = ctx;
	t->size = size_of(ctx, avail, r->size_note, sizeof(r->size_note));
	t->buf = t->size >= MIN_BYTES ? lock_buffer(&t->size, &r->locked) : NULL;
	if (!t->buf) {
		ps_step_reason(ctx,
			       "no %llu MiB could be locked in memory (mlock: %s; %lld MiB free): "
			       "boot memtest86+ from the stick's menu instead",
			       MIN_BYTES / MIB, strerror(errno),
			       (long long)(avail > 0 ? avail / (int64_t)MIB : -1));
		free(t);
		return PS_SKIPPED;
	}
	r->size_bytes = t->size;
	t->seed = ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32)) & INT64_MAX;
	r->seed = (int64_t)t->seed;
	ps_edac_read(ctx->root, &before);
	run_patterns(t, r);
	locate_failures(ctx, t, r, &before);
	munlock(t->buf, t->size);
	munmap(t->buf, t->size);
	ps_edac_free(&before);
	status = judge(ctx, r, t->aborted);
	free(t);
	return status;
}

static double estimate(const struct ps_ctx *ctx)
{
	char note[240];
	uint64_t size = size_of(ctx, ps_mem_available(ctx->root), note, sizeof(note));

	/* 12 passes, each a write and a read of the buffer, at ~1 GB/s */
	return (double)size * PS_MT_PATTERNS * PS_MT_PASSES * 2 / 1e9 + 1;
}

/* ---- view ---- */

static const struct ps_col summary_cols[] = {
    {.path = "/errors", .title = "errors", .better = PS_BETTER_LOWER, .flags = PS_COL_HEADLINE},
    {.path = "/size_bytes", .title = "tested", .fmt = PS_FMT_IBYTES, .flags = PS_COL_HEADLINE},
    {.path = "/rate_mbps",
     .title = "rate",
     .unit = "MB/s",
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/seconds", .title = "time", .fmt = PS_FMT_SECONDS},
    {.path = "/available_bytes", .title = "free memory", .fmt = PS_FMT_IBYTES},
    {.path = "/locked", .title = "locked", .fmt = PS_FMT_BOOL},
    {.path = "/requested", .title = "memtest="},
    {.path = "/size_note", .title = "note", .flags = PS_COL_WIDE | PS_COL_MEASURED},
    {.path = "/reach", .title = "reach", .flags = PS_COL_WIDE},
};

static const struct ps_col pattern_cols[] = {
    {.path = "/pattern", .title = "pattern", .flags = PS_COL_KEY},
    {.path = "/passes", .title = "passes"},
    {.path = "/errors", .title = "errors", .better = PS_BETTER_LOWER},
    {.path = "/rate_mbps", .title = "MB/s", .unit = "MB/s", .better = PS_BETTER_HIGHER},
    {.path = "/seconds", .title = "time", .fmt = PS_FMT_SECONDS},
};

static const struct ps_col fail_cols[] = {
    {.path = "/phys", .title = "physical address", .flags = PS_COL_KEY},
    {.path = "/pattern", .title = "pattern"},
    {.path = "/expected", .title = "expected"},
    {.path = "/actual", .title = "read"},
    {.path = "/bits", .title = "bits"},
    {.path = "/dimm", .title = "DIMM"},
    {.path = "/dimm_why", .title = "DIMM unknown", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "summary",
     .title = "Memory pattern test (user space)",
     .rows = "",
     .when = "/patterns",
     .cols = PS_COLS(summary_cols),
     .note = "memtester's patterns over mlock'ed memory, each written over all of it, read "
	     "back, then complemented; MB/s counts bytes written and read"},
    {.kind = PS_BLOCK_TABLE, .id = "patterns", .rows = "/patterns", .cols = PS_COLS(pattern_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "failures",
     .title = "Words that did not hold their pattern (first 64)",
     .rows = "/failures",
     .cols = PS_COLS(fail_cols)},
};

static const struct ps_view view = {
    .name = "memtest",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops memtest_ops = {
    .abi = PS_STEP_ABI,
    .name = "memtest",
    .title = "memory pattern test (user space; memtest86+ on the boot menu for all of it)",
    .plans = PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 32,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &memtest_fields,
    .settings = (const struct ps_setting *const[]){&memtest_size, NULL},
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(memtest_ops);
