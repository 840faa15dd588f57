/*
 * memory.c - memory bandwidth and latency (TESTPLAN 7), and whether the
 * populated channels deliver: STREAM's kernels with every CPU, load-to-use
 * latency from L1 to past the last-level cache, then the triad against one
 * channel's theoretical bandwidth at the configured speed, beside the
 * channels SMBIOS and the memory controller say are populated.
 */
/* clang-format off */
//config:config STEP_MEMORY
//config:	bool "memory: bandwidth, latency and effective channels"
//config:	default y
//config:	help
//config:	  STREAM copy, scale, add and triad with a thread per CPU over
//config:	  arrays of at least four times the last-level cache (as large
//config:	  as free memory allows, at most 256 MiB in all), best of N;
//config:	  load-to-use latency of a random ring of cache lines from 4 KiB
//config:	  to four times the last-level cache. The triad against one
//config:	  channel at the DIMMs' configured speed says how many channels
//config:	  really work: fewer than half of the populated ones is a warning
//config:	  naming the slots. Nothing is written outside its own arrays.
//kbuild:step-$(CONFIG_STEP_MEMORY) += memory.o
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "plan": {"enum": ["quick", "full"]},
//schema:    "threads": {"type": "integer", "minimum": 1},
//schema:    "array_bytes": {"type": "integer"},
//schema:    "arrays_total_bytes": {"type": "integer"},
//schema:    "llc_bytes": {"type": ["integer", "null"]},
//schema:    "available_bytes": {"type": ["integer", "null"]},
//schema:    "size_limited": {"type": "boolean"},
//schema:    "size_note": {"type": ["string", "null"]},
//schema:    "reps": {"type": "integer"},
//schema:    "time_budget_s": {"type": "number"},
//schema:    "first_touch_s": {"type": ["number", "null"]},
//schema:    "verified": {"type": "boolean"},
//schema:    "triad_gbps": {"type": ["number", "null"]},
//schema:    "kernels": {"type": "array", "items": {"type": "object",
//schema:      "properties": {"kernel": {"enum": ["copy", "scale", "add", "triad"]},
//schema:        "bytes_per_element": {"type": "integer"},
//schema:        "runs_gbps": {"type": "array", "items": {"type": "number"}},
//schema:        "best_gbps": {"type": ["number", "null"]}, "median_gbps": {"type": ["number", "null"]},
//schema:        "worst_gbps": {"type": ["number", "null"]}, "cv_pct": {"type": ["number", "null"]}},
//schema:      "required": ["kernel", "runs_gbps", "best_gbps"]}},
//schema:    "latency": {"type": "array", "items": {"type": "object",
//schema:      "properties": {"bytes": {"type": "integer"}, "ns": {"type": ["number", "null"]},
//schema:        "level": {"type": ["string", "null"]}},
//schema:      "required": ["bytes", "ns"]}},
//schema:    "channels": {"type": "object",
//schema:      "properties": {"configured_mts": {"type": ["integer", "null"]},
//schema:        "speed_source": {"type": ["string", "null"]},
//schema:        "channel_peak_gbps": {"type": ["number", "null"]},
//schema:        "effective_channels": {"type": ["number", "null"]},
//schema:        "populated": {"type": ["integer", "null"]},
//schema:        "populated_source": {"enum": ["imc", "smbios", null]},
//schema:        "present": {"type": ["integer", "null"]},
//schema:        "slots": {"type": ["string", "null"]},
//schema:        "judged": {"type": "boolean"},
//schema:        "verdict": {"enum": ["ok", "mismatch", null]},
//schema:        "why": {"type": ["string", "null"]}}}
//schema:  },
//schema:  "required": ["plan", "threads", "kernels", "latency", "channels"]
//schema:}
/* clang-format on */

#include "core/step.h"
#include "lib/util.h"
#include "engines/mem/mem.h"
#include "hw/inventory.h"
#include "lib/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_VERSION 1

#define MIB	  (1024ULL * 1024ULL)
#define LAT_FROM  (4 * 1024ULL)
#define MAX_SIZES 32

struct mem_plan {
	const char *name;
	unsigned int reps;
	double budget_s;     /* per kernel */
	double lat_target_s; /* per latency size */
};

static const struct mem_plan plans[] = {
    {"quick", 5, 1.0, 0.02},
    {"full", 20, 5.0, 0.2},
};

static const struct mem_plan *plan_of(const struct ps_ctx *ctx)
{
	return ctx->plan && ctx->plan->level == PS_PLAN_FULL ? &plans[1] : &plans[0];
}

static bool should_stop(void *arg)
{
	return ps_should_abort(arg);
}

static void on_pass(void *arg, unsigned int done)
{
	ps_progress_set(arg, done);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void kernel_json(json_object *arr, enum ps_mem_kernel k,
			const struct ps_mem_kernel_result *r)
{
	json_object *o = json_object_new_object(), *runs = json_object_new_array();
	double v[PS_MEM_MAX_REPS], mean = 0, var = 0;

	for (unsigned int i = 0; i < r->n; i++) {
		json_object_array_add(runs, ps_json_new_num(r->runs_gbps[i], 2));
		v[i] = r->runs_gbps[i];
		mean += v[i] / r->n;
	}
	for (unsigned int i = 0; i < r->n; i++)
		var += (v[i] - mean) * (v[i] - mean);
	qsort(v, r->n, sizeof(v[0]), cmp_double);
	ps_json_set_str(o, "kernel", ps_mem_kernel_name(k));
	ps_json_set(o, "bytes_per_element", json_object_new_int((int)ps_mem_kernel_bytes(k)));
	ps_json_set(o, "runs_gbps", runs);
	ps_json_set_num(o, "best_gbps", r->n ? r->best_gbps : NAN, 2);
	ps_json_set_num(o, "median_gbps",
			r->n ? (r->n % 2 ? v[r->n / 2] : (v[r->n / 2 - 1] + v[r->n / 2]) / 2) : NAN,
			2);
	ps_json_set_num(o, "worst_gbps", r->n ? v[0] : NAN, 2);
	ps_json_set_num(o, "cv_pct",
			r->n > 1 && mean > 0 ? 100.0 * sqrt(var / (r->n - 1)) / mean : NAN, 1);
	json_object_array_add(arr, o);
}

/* Which cache level a ring of this size fits in, for the latency table. */
static const char *level_of(uint64_t bytes, const struct ps_mem_caches *c)
{
	if (c->l1d && bytes <= c->l1d)
		return "L1";
	if (c->l2 && bytes <= c->l2)
		return "L2";
	if (c->llc && c->llc_level > 2 && bytes <= c->llc)
		return "L3";
	if (c->llc)
		return "memory";
	return NULL;
}

/* The configured speed of the populated DIMMs: the lowest, and whether they differ. */
static int configured_mts(const struct ps_memory *m, const char **source, bool *mixed)
{
	int low = -1;

	*mixed = false;
	*source = "configured";
	for (int pass = 0; pass < 2 && low < 0; pass++) {
		for (size_t i = 0; i < m->n_dimms; i++) {
			const struct ps_dimm *d = &m->dimms[i].d;
			int v = pass == 0 ? d->configured_speed_mts : d->speed_mts;

			if (!d->populated || v <= 0)
				continue;
			if (low > 0 && v != low)
				*mixed = true;
			if (low < 0 || v < low)
				low = v;
		}
		if (low < 0)
			*source = "rated"; /* no configured speed: the DIMM's own rating */
	}
	if (low < 0)
		*source = NULL;
	return low;
}

static void populated_slots(const struct ps_memory *m, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < m->n_dimms; i++) {
		const struct ps_dimm_slot *s = &m->dimms[i];
		int w;

		if (!s->d.populated)
			continue;
		w = snprintf(out + used, len - used, "%s%s", used ? ", " : "",
			     s->d.locator[0] ? s->d.locator : s->d.bank);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

/*
 * Effective channels: the triad against one channel's theoretical bandwidth
 * (configured MT/s x 8 bytes). A working channel delivers well over half of
 * its peak to an all-core triad, so fewer than half the populated channels'
 * worth means some of them do not work as channels (seed 000's X58 reading
 * "triple channel" at dual-channel speed).
 */
static void channels(struct ps_ctx *ctx, double triad)
{
	const struct ps_memory *m = &ctx->inv->memory;
	const struct ps_machine *mc = &ctx->inv->machine;
	json_object *o = json_object_new_object();
	struct ps_dev_ref machine = {PS_DEV_MACHINE, mc->id[0] ? mc->id : NULL, "machine"};
	const char *speed_src, *pop_src = NULL;
	char slots[512], why[400] = "";
	int mts, populated = PS_UNKNOWN;
	double peak = NAN, eff = NAN;
	bool mixed, judged = false;
	const char *verdict = NULL;

	ps_json_set(ctx->data, "channels", o);
	mts = configured_mts(m, &speed_src, &mixed);
	if (m->channels_imc > 0) {
		populated = m->channels_imc;
		pop_src = "imc";
	} else if (m->channels_smbios > 0) {
		populated = m->channels_smbios;
		pop_src = "smbios";
	}
	populated_slots(m, slots, sizeof(slots));
	if (mts > 0) {
		peak = mts * 8.0 / 1000.0;
		if (isfinite(triad) && triad > 0)
			eff = triad / peak;
	}
	ps_json_set_count(o, "configured_mts", mts);
	ps_json_set_str(o, "speed_source", speed_src);
	ps_json_set_num(o, "channel_peak_gbps", peak, 2);
	ps_json_set_num(o, "effective_channels", eff, 2);
	ps_json_set_count(o, "populated", populated);
	ps_json_set_str(o, "populated_source", pop_src);
	ps_json_set_count(o, "present", m->channels_present);
	ps_json_set_str(o, "slots", slots);
	if (mixed)
		ps_findf(
		    ctx, PS_SEV_INFO, machine, "mixed_speeds",
		    "the populated DIMMs run at different speeds; the channels are judged at the "
		    "lowest, %d MT/s",
		    mts);
	if (!isfinite(eff)) {
		snprintf(why, sizeof(why), "%s",
			 mts <= 0 ? "no DIMM reports its speed (SMBIOS type 17): no channel's "
				    "bandwidth to compare with"
				  : "no triad figure");
	} else if (populated <= 0) {
		snprintf(why, sizeof(why),
			 "which channels are populated is unknown (no memory-controller reader, "
			 "and the slots' names say no channel)");
		ps_findf(ctx, PS_SEV_INFO, machine, "channels_unknown",
			 "the triad reached %.1f GB/s, %.2f channels' worth at %d MT/s (%.1f GB/s "
			 "each); the populated channels are unknown (slots %s)",
			 triad, eff, mts, peak, slots[0] ? slots : "unknown");
	} else if (mc->cpu_flags_known && mc->under_hypervisor) {
		snprintf(why, sizeof(why),
			 "a virtual machine: its memory is the host's, shared and emulated");
	} else {
		judged = true;
		/* one channel has no other to fall back to: nothing to mismatch */
		verdict = populated >= 2 && eff < populated / 2.0 ? "mismatch" : "ok";
	}
	ps_json_set(o, "judged", json_object_new_boolean(judged));
	ps_json_set_str(o, "verdict", verdict);
	ps_json_set_str(o, "why", why);
	if (verdict && strcmp(verdict, "mismatch") == 0) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = machine,
				       .rule = "channels_mismatch",
				       .value = eff,
				       .limit = populated / 2.0,
				       .unit = "channels"};

		ps_find(ctx, &f,
			"the triad reached %.1f GB/s, %.2f channels' worth at %d MT/s (%.1f GB/s "
			"each), with %d channels populated (%s, from the %s): some of them do not "
			"work as channels; check the slot order in the board's manual and the "
			"BIOS memory settings",
			triad, eff, mts, peak, populated, slots[0] ? slots : "slots unknown",
			strcmp(pop_src, "imc") == 0 ? "memory controller" : "SMBIOS slot names");
	} else if (isfinite(eff) && populated > 0 && !judged) {
		ps_findf(ctx, PS_SEV_INFO, machine, "channels_not_judged",
			 "the triad reached %.1f GB/s, %.2f channels' worth at %d MT/s with %d "
			 "populated: not judged (%s)",
			 triad, eff, mts, populated, why);
	}
}

static int run(struct ps_ctx *ctx)
{
	const struct mem_plan *p = plan_of(ctx);
	struct ps_mem_caches caches;
	struct ps_mem_result r;
	struct ps_mem_opts o = {0};
	struct ps_mem_lat_opts lo = {0};
	json_object *kernels = json_object_new_array(), *lat = json_object_new_array();
	uint64_t want, cap, array, llc;
	int64_t avail = ps_mem_available(ctx->root);
	size_t sizes[MAX_SIZES], nsizes = 0;
	double ns[MAX_SIZES], triad;
	char note[200] = "";
	int err;

	ps_json_set_str(ctx->data, "plan", p->name);
	ps_json_set(ctx->data, "kernels", kernels);
	ps_json_set(ctx->data, "latency", lat);
	if (ps_mem_caches(ctx->root, &caches) < 0)
		memset(&caches, 0, sizeof(caches));
	llc = caches.llc_total;
	/* all three arrays in half of what is free, at most 256 MiB */
	array = ps_mem_array_size(llc, avail, &want, &cap);
	ps_json_set(ctx->data, "threads", json_object_new_int((int)ps_mem_cpus()));
	ps_json_set_count(ctx->data, "llc_bytes", llc ? (int64_t)llc : -1);
	ps_json_set_count(ctx->data, "available_bytes", avail > 0 ? avail : -1);
	ps_json_set(ctx->data, "reps", json_object_new_int((int)p->reps));
	ps_json_set_num(ctx->data, "time_budget_s", p->budget_s, 1);
	if (!array) {
		ps_step_reason(ctx,
			       "only %lld MiB of memory are free: not enough for three arrays of "
			       "%llu MiB",
			       (long long)(avail / (int64_t)MIB), PS_MEM_ARRAY_MIN / MIB);
		ps_json_set(ctx->data, "channels", json_object_new_object());
		return PS_SKIPPED;
	}
	if (!llc)
		snprintf(note, sizeof(note),
			 "the last-level cache size is unknown: arrays as large as memory allows");
	else if (array < want)
		snprintf(note, sizeof(note),
			 "arrays of %llu MiB, under 4x the last-level cache (%llu MiB): that "
			 "is what %s",
			 (unsigned long long)(array / MIB), (unsigned long long)(llc / MIB),
			 cap < PS_MEM_TOTAL_MAX ? "half the free memory allows"
						: "256 MiB in all allow");
	ps_json_set(ctx->data, "array_bytes", json_object_new_int64((int64_t)array));
	ps_json_set(ctx->data, "arrays_total_bytes", json_object_new_int64((int64_t)(3 * array)));
	ps_json_set(ctx->data, "size_limited", json_object_new_boolean(llc && array < want));
	ps_json_set_str(ctx->data, "size_note", note);

	ps_progress_phase(ctx, "bandwidth", (uint64_t)PS_MEM_KERNELS * p->reps, "passes");
	o.array_bytes = array;
	o.reps = p->reps;
	o.time_budget_s = p->budget_s;
	o.should_stop = should_stop;
	o.stop_arg = ctx;
	o.progress = on_pass;
	o.progress_arg = ctx;
	err = ps_mem_stream(&o, &r);
	if (err < 0) {
		ps_step_reason(ctx, "the bandwidth threads could not run: %s", strerror(-err));
		return err;
	}
	ps_json_set(ctx->data, "threads", json_object_new_int((int)r.threads));
	ps_json_set_num(ctx->data, "first_touch_s", r.first_touch_s, 3);
	ps_json_set(ctx->data, "verified", json_object_new_boolean(r.verified));
	for (int k = 0; k < PS_MEM_KERNELS; k++)
		kernel_json(kernels, (enum ps_mem_kernel)k, &r.k[k]);
	triad = r.k[PS_MEM_TRIAD].n ? r.k[PS_MEM_TRIAD].best_gbps : NAN;
	ps_json_set_num(ctx->data, "triad_gbps", triad, 2);
	if (r.aborted) {
		ps_json_set(ctx->data, "channels", json_object_new_object());
		return PS_ABORTED;
	}
	if (!r.verified)
		ps_findf(ctx, PS_SEV_WARN,
			 (struct ps_dev_ref){PS_DEV_MACHINE,
					     ctx->inv->machine.id[0] ? ctx->inv->machine.id : NULL,
					     "machine"},
			 "verify_failed",
			 "the arrays did not hold what the kernels wrote: a memory error, or "
			 "an engine fault; run a memory test (memtest86+)");

	/* load-to-use latency: 4 KiB doubling to 4x the last-level cache */
	for (uint64_t s = LAT_FROM; nsizes < MAX_SIZES; s *= 2) {
		uint64_t top = caches.llc ? 4 * caches.llc : 64 * MIB;

		if (s > top || s > cap)
			break;
		sizes[nsizes++] = s;
	}
	ps_progress_phase(ctx, "latency", 0, "sizes");
	lo.target_s = p->lat_target_s;
	lo.should_stop = should_stop;
	lo.stop_arg = ctx;
	if (ps_mem_latency(sizes, nsizes, &lo, ns) == 0) {
		for (size_t i = 0; i < nsizes; i++) {
			json_object *e = json_object_new_object();

			ps_json_set(e, "bytes", json_object_new_int64((int64_t)sizes[i]));
			ps_json_set_num(e, "ns", ns[i], 1);
			ps_json_set_str(e, "level", level_of(sizes[i], &caches));
			json_object_array_add(lat, e);
		}
	}
	if (ps_should_abort(ctx)) {
		ps_json_set(ctx->data, "channels", json_object_new_object());
		return PS_ABORTED;
	}
	channels(ctx, triad);
	ps_examined(ctx,
		    (struct ps_dev_ref){PS_DEV_MACHINE,
					ctx->inv->machine.id[0] ? ctx->inv->machine.id : NULL,
					"machine"},
		    "measured", "memory triad %.1f GB/s with %u threads over 3 x %llu MiB", triad,
		    r.threads, (unsigned long long)(array / MIB));
	return PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	const struct mem_plan *p = plan_of(ctx);

	/* the kernels stop at their budget; latency sizes take their target each */
	return PS_MEM_KERNELS * p->budget_s + 16 * p->lat_target_s * 4 + 1;
}

/* ---- view ---- */

static const struct ps_col summary_cols[] = {
    {.path = "/triad_gbps",
     .title = "triad",
     .unit = "GB/s",
     .decimals = 1,
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/channels/effective_channels",
     .title = "effective channels",
     .decimals = 2,
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/channels/populated", .title = "populated channels"},
    {.path = "/channels/populated_source", .title = "populated per"},
    {.path = "/channels/configured_mts", .title = "MT/s"},
    {.path = "/channels/channel_peak_gbps", .title = "one channel", .unit = "GB/s", .decimals = 1},
    {.path = "/channels/slots", .title = "populated slots", .flags = PS_COL_WIDE},
    {.path = "/channels/why", .title = "not judged", .flags = PS_COL_WIDE},
    {.path = "/threads", .title = "threads"},
    {.path = "/array_bytes", .title = "array", .fmt = PS_FMT_IBYTES, .flags = PS_COL_MEASURED},
    {.path = "/llc_bytes", .title = "last-level cache", .fmt = PS_FMT_IBYTES},
    {.path = "/size_note", .title = "note", .flags = PS_COL_WIDE | PS_COL_MEASURED},
};

static const struct ps_col kernel_cols[] = {
    {.path = "/kernel", .title = "kernel", .flags = PS_COL_KEY},
    {.path = "/best_gbps",
     .title = "best GB/s",
     .unit = "GB/s",
     .decimals = 2,
     .better = PS_BETTER_HIGHER,
     .spread = "/cv_pct",
     .min = "/worst_gbps",
     .max = "/best_gbps"},
    {.path = "/median_gbps",
     .title = "median",
     .unit = "GB/s",
     .decimals = 2,
     .better = PS_BETTER_HIGHER,
     .spread = "/cv_pct",
     .min = "/worst_gbps",
     .max = "/best_gbps"},
    {.path = "/best_gbps",
     .title = "worst-best",
     .fmt = PS_FMT_RANGE,
     .min = "/worst_gbps",
     .max = "/best_gbps",
     .decimals = 2},
    {.path = "/cv_pct", .title = "cv", .unit = "%", .decimals = 1, .better = PS_BETTER_LOWER},
};

static const struct ps_col lat_cols[] = {
    {.path = "/bytes", .title = "ring", .fmt = PS_FMT_IBYTES, .flags = PS_COL_KEY},
    {.path = "/level", .title = "fits in"},
    {.path = "/ns", .title = "latency", .fmt = PS_FMT_NS, .decimals = 1, .better = PS_BETTER_LOWER},
};

static const struct ps_col lat_series_cols[] = {
    {.path = "/none", .title = "load-to-use latency"},
    {.path = "/bytes", .title = "ring", .fmt = PS_FMT_IBYTES},
    {.path = "/ns", .title = "ns", .fmt = PS_FMT_NS},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "summary",
     .title = "Memory bandwidth and channels",
     .rows = "",
     .when = "/kernels",
     .cols = PS_COLS(summary_cols),
     .note = "STREAM kernels, a thread per CPU, best pass; 10^9 bytes/s; one channel = "
	     "configured MT/s x 8 bytes"},
    {.kind = PS_BLOCK_TABLE,
     .id = "kernels",
     .rows = "/kernels",
     .when = "/best_gbps",
     .cols = PS_COLS(kernel_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "latency",
     .title = "Load-to-use latency (random ring of cache lines)",
     .rows = "/latency",
     .cols = PS_COLS(lat_cols)},
    {.kind = PS_BLOCK_SERIES,
     .id = "latency_curve",
     .rows = "",
     .nested = "/latency",
     .cols = PS_COLS(lat_series_cols),
     .flags = PS_BLOCK_NO_TEXT},
};

static const struct ps_view view = {
    .name = "memory",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops memory_ops = {
    .abi = PS_STEP_ABI,
    .name = "memory",
    .title = "memory bandwidth, latency and effective channels",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .order = 30,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(memory_ops);
