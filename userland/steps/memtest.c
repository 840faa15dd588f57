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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "requested": {"type": ["string", "null"]},
//schema:    "size_bytes": {"type": "integer"},
//schema:    "available_bytes": {"type": ["integer", "null"]},
//schema:    "locked": {"type": "boolean"},
//schema:    "size_note": {"type": ["string", "null"]},
//schema:    "seed": {"type": "integer"},
//schema:    "seconds": {"type": ["number", "null"]},
//schema:    "rate_mbps": {"type": ["number", "null"]},
//schema:    "errors": {"type": "integer"},
//schema:    "complete": {"type": "boolean"},
//schema:    "reach": {"type": "string"},
//schema:    "patterns": {"type": "array", "items": {"type": "object",
//schema:      "properties": {"pattern": {"type": "string"}, "passes": {"type": "integer"},
//schema:        "errors": {"type": "integer"}, "seconds": {"type": ["number", "null"]},
//schema:        "rate_mbps": {"type": ["number", "null"]}},
//schema:      "required": ["pattern", "passes", "errors"]}},
//schema:    "failures": {"type": "array", "items": {"type": "object",
//schema:      "properties": {"pattern": {"type": "string"}, "pass": {"type": "integer"},
//schema:        "offset": {"type": "integer"},
//schema:        "phys": {"type": ["string", "null"]}, "phys_why": {"type": ["string", "null"]},
//schema:        "expected": {"type": "string"}, "actual": {"type": "string"},
//schema:        "bits": {"type": "integer"},
//schema:        "dimm": {"type": ["string", "null"]}, "dimm_source": {"type": ["string", "null"]},
//schema:        "dimm_why": {"type": ["string", "null"]}},
//schema:      "required": ["pattern", "offset", "phys", "expected", "actual", "dimm"]}}
//schema:  },
//schema:  "required": ["size_bytes", "errors", "patterns", "failures", "reach"]
//schema:}
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "lib/util.h"
#include "engines/mem/mem.h"
#include "engines/mem/pattern.h"
#include "hw/edac.h"
#include "hw/inventory.h"
#include "lib/json.h"

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

static void failure_json(struct ps_ctx *ctx, json_object *arr, const struct fail_rec *r,
			 const uint64_t *buf, int pagemap_fd, const char *dimm, const char *dsrc,
			 const char *dwhy)
{
	json_object *o = json_object_new_object();
	uint64_t vaddr = (uint64_t)(uintptr_t)buf + r->f.offset, entry = 0, phys = 0;
	long page = sysconf(_SC_PAGESIZE);
	char h[24], why[120] = "";
	int err = -EIO;

	if (pagemap_fd < 0)
		snprintf(why, sizeof(why), "/proc/self/pagemap could not be opened");
	else if (pread(pagemap_fd, &entry, sizeof(entry), (off_t)(vaddr / (uint64_t)page * 8)) !=
		 sizeof(entry))
		snprintf(why, sizeof(why), "/proc/self/pagemap could not be read there");
	else if ((err = ps_pagemap_phys(entry, vaddr, (uint64_t)page, &phys)) == -EPERM)
		snprintf(why, sizeof(why),
			 "the kernel shows page frames to root only (CAP_SYS_ADMIN)");
	else if (err < 0)
		snprintf(why, sizeof(why), "the page is not in memory");
	ps_json_set_str(o, "pattern", ps_mt_pattern_name(r->p));
	ps_json_set(o, "pass", json_object_new_int((int)r->pass));
	ps_json_set(o, "offset", json_object_new_int64((int64_t)r->f.offset));
	if (err == 0) {
		hex64(h, sizeof(h), phys);
		ps_json_set_str(o, "phys", h);
	} else {
		ps_json_set(o, "phys", NULL);
	}
	ps_json_set_str(o, "phys_why", why);
	hex64(h, sizeof(h), r->f.expected);
	ps_json_set_str(o, "expected", h);
	hex64(h, sizeof(h), r->f.actual);
	ps_json_set_str(o, "actual", h);
	ps_json_set(o, "bits",
		    json_object_new_int(__builtin_popcountll(r->f.expected ^ r->f.actual)));
	ps_json_set_str(o, "dimm", dimm);
	ps_json_set_str(o, "dimm_source", dsrc);
	ps_json_set_str(o, "dimm_why", dwhy);
	json_object_array_add(arr, o);
	(void)ctx;
}

static struct ps_dev_ref machine_ref(const struct ps_ctx *ctx)
{
	return (struct ps_dev_ref){
	    PS_DEV_MACHINE, ctx->inv->machine.id[0] ? ctx->inv->machine.id : NULL, "machine"};
}

static int run(struct ps_ctx *ctx)
{
	json_object *pats = json_object_new_array(), *fails = json_object_new_array();
	int64_t avail = ps_mem_available(ctx->root);
	char note[240] = "", dimm[64], dwhy[300];
	struct fail_rec *rec = calloc(MAX_FAILS, sizeof(*rec));
	struct ps_mt_fail tmp[MAX_FAILS];
	struct ps_edac before = {0}, after = {0};
	uint64_t size, seed, errors = 0, *buf;
	size_t n_rec = 0, words, chunk_words = CHUNK / sizeof(uint64_t);
	double t0, moved = 0;
	bool locked = false, aborted = false;
	const char *dsrc;
	int fd, status = PS_PASS;

	ps_json_set(ctx->data, "patterns", pats);
	ps_json_set(ctx->data, "failures", fails);
	ps_json_set_str(ctx->data, "reach", REACH_TEXT);
	ps_json_set(ctx->data, "errors", json_object_new_int(0));
	ps_json_set_str(ctx->data, "requested", ps_setting_text(ctx, &memtest_size));
	ps_json_set_count(ctx->data, "available_bytes", avail > 0 ? avail : -1);
	if (!rec)
		return -ENOMEM;
	size = size_of(ctx, avail, note, sizeof(note));
	buf = size >= MIN_BYTES ? lock_buffer(&size, &locked) : NULL;
	ps_json_set(ctx->data, "locked", json_object_new_boolean(locked));
	if (!buf) {
		ps_json_set(ctx->data, "size_bytes", json_object_new_int64(0));
		ps_step_reason(ctx,
			       "no %llu MiB could be locked in memory (mlock: %s; %lld MiB free): "
			       "boot memtest86+ from the stick's menu instead",
			       MIN_BYTES / MIB, strerror(errno),
			       (long long)(avail > 0 ? avail / (int64_t)MIB : -1));
		free(rec);
		return PS_SKIPPED;
	}
	ps_json_set(ctx->data, "size_bytes", json_object_new_int64((int64_t)size));
	ps_json_set_str(ctx->data, "size_note", note);
	seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	ps_json_set(ctx->data, "seed", json_object_new_int64((int64_t)(seed & INT64_MAX)));
	seed &= INT64_MAX;
	ps_edac_read(ctx->root, &before);
	words = size / sizeof(uint64_t);
	ps_progress_phase(ctx, "patterns", (uint64_t)PS_MT_PATTERNS * PS_MT_PASSES * 2 * size, "B");
	t0 = ps_mono_now();
	for (int p = 0; p < PS_MT_PATTERNS && !aborted; p++) {
		json_object *po = json_object_new_object();
		uint64_t perr = 0;
		double tp = ps_mono_now();
		unsigned int passes = 0;

		for (unsigned int pass = 0; pass < PS_MT_PASSES && !aborted; pass++) {
			/* all of it written, then all of it read: the data leaves the caches */
			for (size_t at = 0; at < words && !aborted; at += chunk_words) {
				size_t n = words - at < chunk_words ? words - at : chunk_words;

				ps_mt_fill(p, buf + at, n, pass, seed ^ at);
				ps_progress_add(ctx, n * sizeof(uint64_t));
				aborted = ps_should_abort(ctx);
			}
			for (size_t at = 0; at < words && !aborted; at += chunk_words) {
				size_t n = words - at < chunk_words ? words - at : chunk_words;
				size_t bad = ps_mt_check(p, buf + at, n, pass, seed ^ at, tmp,
							 MAX_FAILS - n_rec);

				for (size_t i = 0; i < bad && n_rec < MAX_FAILS; i++) {
					rec[n_rec] = (struct fail_rec){tmp[i], p, pass};
					rec[n_rec].f.offset += at * sizeof(uint64_t);
					n_rec++;
				}
				perr += bad;
				ps_progress_add(ctx, n * sizeof(uint64_t));
				aborted = ps_should_abort(ctx);
			}
			if (!aborted) {
				passes++;
				moved += 2.0 * (double)size;
			}
		}
		errors += perr;
		tp = ps_mono_now() - tp;
		ps_json_set_str(po, "pattern", ps_mt_pattern_name(p));
		ps_json_set(po, "passes", json_object_new_int((int)passes));
		ps_json_set(po, "errors", json_object_new_int64((int64_t)perr));
		ps_json_set_num(po, "seconds", tp, 2);
		ps_json_set_num(po, "rate_mbps",
				passes && tp > 0 ? 2.0 * passes * size / tp / 1e6 : NAN, 0);
		json_object_array_add(pats, po);
	}
	t0 = ps_mono_now() - t0;
	ps_json_set_num(ctx->data, "seconds", t0, 2);
	ps_json_set_num(ctx->data, "rate_mbps", t0 > 0 && moved > 0 ? moved / t0 / 1e6 : NAN, 0);
	ps_json_set(ctx->data, "errors", json_object_new_int64((int64_t)errors));
	ps_json_set(ctx->data, "complete", json_object_new_boolean(!aborted));

	ps_edac_read(ctx->root, &after);
	dsrc = ps_mt_dimm_of(&ctx->inv->memory, &before, &after, dimm, sizeof(dimm), dwhy,
			     sizeof(dwhy));
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	for (size_t i = 0; i < n_rec; i++)
		failure_json(ctx, fails, &rec[i], buf, fd, dsrc ? dimm : NULL, dsrc,
			     dsrc ? NULL : dwhy);
	if (fd >= 0)
		close(fd);
	munlock(buf, size);
	munmap(buf, size);
	ps_edac_free(&before);
	ps_edac_free(&after);

	if (errors) {
		struct ps_finding f = {.severity = PS_SEV_FAIL,
				       .dev = machine_ref(ctx),
				       .rule = "pattern_error",
				       .value = (double)errors,
				       .limit = 0,
				       .unit = "words"};
		json_object *first = ps_json_at(fails, 0);

		ps_find(
		    ctx, &f,
		    "%" PRIu64 " words of %llu MiB did not hold what was written (first: %s "
		    "pattern at physical address %s, %s expected, %s read; DIMM %s): the memory "
		    "is faulty; boot memtest86+ from the stick's menu to test all of it",
		    errors, (unsigned long long)(size / MIB), ps_json_str_or(first, "pattern", "?"),
		    ps_json_str_or(first, "phys", "unknown"),
		    ps_json_str_or(first, "expected", "?"), ps_json_str_or(first, "actual", "?"),
		    dsrc ? dimm : "unknown");
		status = PS_FAIL;
	}
	free(rec);
	if (aborted) {
		ps_step_reason(ctx, "aborted after %.1f s; the patterns that ran are kept", t0);
		return PS_ABORTED;
	}
	if (!errors)
		ps_examined(ctx, machine_ref(ctx), "patterns_held",
			    "%d patterns, twice each, over %llu MiB held at %.0f MB/s (%s)",
			    PS_MT_PATTERNS, (unsigned long long)(size / MIB),
			    t0 > 0 ? moved / t0 / 1e6 : 0.0,
			    "user space only: memtest86+ on the boot menu tests all of memory");
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
    .settings = (const struct ps_setting *const[]){&memtest_size, NULL},
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(memtest_ops);
