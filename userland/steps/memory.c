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
//config:	  as free memory allows, at most 256 MiB in all), N passes each
//config:	  and more while they vary (the noise rule), best and median;
//config:	  load-to-use latency of a random ring of cache lines from 4 KiB
//config:	  to four times the last-level cache. The triad against one
//config:	  channel at the DIMMs' configured speed says how many channels
//config:	  really work: fewer than half of the populated ones is a warning
//config:	  naming the slots. Nothing is written outside its own arrays.
//kbuild:step-$(CONFIG_STEP_MEMORY) += memory.o
/* clang-format on */

#include "core/step.h"
#include "engines/measure.h"
#include "engines/mem/mem.h"
#include "hw/inventory.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2: a kernel's passes are the standard figure (min/median/max_gbps, extra runs, noisy);
 * version 1 had best_gbps and worst_gbps. */
#define DATA_VERSION 2

#define MIB	  (1024ULL * 1024ULL)
#define LAT_FROM  (4 * 1024ULL)
#define MAX_SIZES 32

struct mem_plan {
	const char *name;
	struct ps_noise_rule rule; /* per kernel; its budget: stop past it after two passes */
	double lat_target_s;	   /* per latency size */
};

static const struct mem_plan plans[] = {
    {"quick", {.runs = 5, .max_runs = 10, .cv_limit_pct = 5, .budget_s = 1.0, .min_runs = 2}, 0.02},
    {"full", {.runs = 20, .max_runs = 30, .cv_limit_pct = 3, .budget_s = 5.0, .min_runs = 2}, 0.2},
};

/* ---- the result: data{} as a struct, described once ---- */

struct kernel_row {
	int kernel; /* enum ps_mem_kernel */
	unsigned int bytes_per_element;
	struct ps_figure gbps; /* its passes: the best is STREAM's reported figure */
};

struct lat_row {
	uint64_t bytes;
	double ns;
	const char *level; /* "L1", "L2", "L3", "memory", NULL */
};

struct channels {
	int configured_mts; /* -1 unknown */
	const char *speed_source;
	int channel_width_bits; /* one channel's data width; -1 unknown */
	double channel_peak_gbps, effective_channels;
	int populated, present; /* -1 unknown */
	const char *populated_source;
	char slots[512];
	bool judged;
	const char *verdict;
	char why[400];
};

struct memory_result {
	int plan;
	unsigned int threads;
	int64_t array_bytes, arrays_total_bytes; /* -1: no arrays (too little memory) */
	int64_t llc_bytes, available_bytes;	 /* -1 unknown */
	bool size_limited;
	char size_note[200];
	struct ps_noise_rule rule;
	double first_touch_s;
	bool verified;
	double triad_gbps; /* the best triad pass */
	struct kernel_row kernels[PS_MEM_KERNELS];
	size_t n_kernels;
	struct lat_row latency[MAX_SIZES];
	size_t n_latency;
	struct channels channels;
};

static const char *const kernel_names[] = {"copy", "scale", "add", "triad", NULL};
static const char *const plan_names[] = {"quick", "full", NULL};

static const struct ps_field kernel_f[] = {
    PS_FIELD_ENUM(struct kernel_row, kernel, "kernel", kernel_names),
    PS_FIELD(struct kernel_row, bytes_per_element, "bytes_per_element", .unit = "bytes"),
    PS_FIELD(struct kernel_row, gbps, "gbps", .unit = "GB/s", .decimals = 2),
};
static const struct ps_fields kernel_fields = PS_FIELDS(struct kernel_row, kernel_f);

static const struct ps_field lat_f[] = {
    PS_FIELD(struct lat_row, bytes, "bytes", .help = "the ring's size", .unit = "bytes"),
    PS_FIELD(struct lat_row, ns, "ns", .unit = "ns per load", .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct lat_row, level, "level", .flags = PS_FLD_NULL),
};
static const struct ps_fields lat_fields = PS_FIELDS(struct lat_row, lat_f);

static const struct ps_field channels_f[] = {
    PS_FIELD(struct channels, configured_mts, "configured_mts", .unit = "MT/s",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct channels, speed_source, "speed_source", .flags = PS_FLD_NULL),
    PS_FIELD(struct channels, channel_width_bits, "channel_width_bits", .unit = "bits",
	     .flags = PS_FLD_NULL | PS_FLD_NEWER),
    PS_FIELD(struct channels, channel_peak_gbps, "channel_peak_gbps", .unit = "GB/s", .decimals = 2,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct channels, effective_channels, "effective_channels", .decimals = 2,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct channels, populated, "populated", .flags = PS_FLD_NULL),
    PS_FIELD(struct channels, populated_source, "populated_source",
	     .names = (const char *const[]){"imc", "smbios", NULL}, .flags = PS_FLD_NULL),
    PS_FIELD(struct channels, present, "present", .flags = PS_FLD_NULL),
    PS_FIELD(struct channels, slots, "slots", .flags = PS_FLD_NULL),
    PS_FIELD(struct channels, judged, "judged"),
    PS_FIELD(struct channels, verdict, "verdict",
	     .names = (const char *const[]){"ok", "mismatch", NULL}, .flags = PS_FLD_NULL),
    PS_FIELD(struct channels, why, "why", .flags = PS_FLD_NULL),
};
static const struct ps_fields channels_fields = PS_FIELDS(struct channels, channels_f);

static const struct ps_field memory_f[] = {
    PS_FIELD_ENUM(struct memory_result, plan, "plan", plan_names),
    PS_FIELD(struct memory_result, threads, "threads"),
    PS_FIELD(struct memory_result, array_bytes, "array_bytes", .unit = "bytes",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct memory_result, arrays_total_bytes, "arrays_total_bytes", .unit = "bytes",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct memory_result, llc_bytes, "llc_bytes", .unit = "bytes", .flags = PS_FLD_NULL),
    PS_FIELD(struct memory_result, available_bytes, "available_bytes", .unit = "bytes",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct memory_result, size_limited, "size_limited"),
    PS_FIELD(struct memory_result, size_note, "size_note", .flags = PS_FLD_NULL),
    PS_FIELD(struct memory_result, rule.runs, "reps", .help = "the plan's passes per kernel"),
    PS_FIELD(struct memory_result, rule.max_runs, "max_runs"),
    PS_FIELD(struct memory_result, rule.cv_limit_pct, "noise_cv_pct", .unit = "%", .decimals = 1),
    PS_FIELD(struct memory_result, rule.budget_s, "time_budget_s", .unit = "s per kernel",
	     .decimals = 1),
    PS_FIELD(struct memory_result, first_touch_s, "first_touch_s", .unit = "s", .decimals = 3,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct memory_result, verified, "verified"),
    PS_FIELD(struct memory_result, triad_gbps, "triad_gbps", .unit = "GB/s", .decimals = 2,
	     .flags = PS_FLD_NULL),
    PS_FIELD_ARRAY(struct memory_result, kernels, n_kernels, "kernels", &kernel_fields),
    PS_FIELD_ARRAY(struct memory_result, latency, n_latency, "latency", &lat_fields),
    PS_FIELD_OBJ(struct memory_result, channels, "channels", &channels_fields),
};
static const struct ps_fields memory_fields = PS_FIELDS(struct memory_result, memory_f);

static const struct mem_plan *plan_of(const struct ps_ctx *ctx)
{
	return ctx->plan && ctx->plan->level == PS_PLAN_FULL ? &plans[1] : &plans[0];
}

/* ---- measuring ---- */

struct kernel_run {
	struct ps_mem_stream *s;
	enum ps_mem_kernel k;
};

static int one_pass(void *arg, unsigned int i, double *v)
{
	struct kernel_run *kr = arg;

	v[0] = ps_mem_stream_pass(kr->s, kr->k);
	return isfinite(v[0]) ? 0 : PS_MEASURE_NO_FIGURE;
}

/*
 * STREAM's four kernels in their order, each under the plan's noise rule
 * (passes, more while they vary, a cap and a time budget), with a thread
 * per CPU over arrays of r->array_bytes. 0, PS_ABORTED, or -errno.
 */
static int bandwidth(struct ps_ctx *ctx, const struct mem_plan *p, struct memory_result *r)
{
	struct ps_mem_opts o = {.array_bytes = (size_t)r->array_bytes};
	struct ps_mem_result mr;
	struct ps_mem_stream *s;
	struct ps_measure_bar bar;
	int err = ps_mem_stream_open(&o, &s, &mr);

	if (err < 0) {
		ps_step_reason(ctx, "the bandwidth threads could not run: %s", strerror(-err));
		return err;
	}
	r->threads = mr.threads;
	r->first_touch_s = mr.first_touch_s;
	for (int k = 0; k < PS_MEM_KERNELS && err == 0; k++) {
		struct kernel_run kr = {.s = s, .k = (enum ps_mem_kernel)k};
		struct kernel_row *row = &r->kernels[r->n_kernels++];
		struct ps_measure m = {.rule = p->rule,
				       .nfig = 1,
				       .run = one_pass,
				       .arg = &kr,
				       .should_stop = ps_should_abort_hook,
				       .stop_arg = ctx,
				       .progress = ps_measure_bar_hook,
				       .progress_arg = &bar};
		char phase[48];

		snprintf(phase, sizeof(phase), "bandwidth: %s", ps_mem_kernel_name(kr.k));
		ps_measure_bar_start(&bar, ctx, phase, ps_measure_planned(&p->rule), 1, "passes");
		row->kernel = k;
		row->bytes_per_element = ps_mem_kernel_bytes(kr.k);
		err = ps_measure_run(&m, &row->gbps);
	}
	r->verified = ps_mem_stream_close(s) && err == 0;
	r->triad_gbps = r->n_kernels == PS_MEM_KERNELS ? r->kernels[PS_MEM_TRIAD].gbps.max : NAN;
	return err == -ECANCELED ? PS_ABORTED : err;
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

			if (!d->populated || !m->dimms[i].ram || v <= 0)
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

		if (!s->d.populated || !s->ram)
			continue;
		w = snprintf(out + used, len - used, "%s%s", used ? ", " : "",
			     s->d.locator[0] ? s->d.locator : s->d.bank);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

/*
 * How wide one channel is: the populated DIMMs' data width (64 bits for a
 * DDR DIMM, 16 or 32 for an LPDDR channel), the narrowest where they differ;
 * without one, 64 for DDR and unknown (0) for LPDDR, whose channels are
 * narrower and differ by generation; unknown without a populated DIMM.
 */
static int channel_bits(const struct ps_memory *m)
{
	int bits = 0;
	bool lpddr = false, any = false;

	for (size_t i = 0; i < m->n_dimms; i++) {
		const struct ps_dimm *d = &m->dimms[i].d;

		if (!d->populated || !m->dimms[i].ram)
			continue;
		any = true;
		lpddr |= d->type && strncmp(d->type, "LPDDR", 5) == 0;
		if (d->data_width > 0 && (bits == 0 || d->data_width < bits))
			bits = d->data_width;
	}
	return bits || !any ? bits : lpddr ? 0 : 64;
}

/*
 * Effective channels: the triad against one channel's theoretical bandwidth
 * (configured MT/s x its width). A working channel delivers well over half
 * of its peak to an all-core triad (docs/rules.md, "Memory channels"), so
 * fewer than half the populated channels' worth means some of them do not
 * work as channels (seed 000's X58 reading "triple channel" at dual-channel
 * speed).
 */
static void channels(struct ps_ctx *ctx, struct channels *o, double triad)
{
	const struct ps_memory *m = &ctx->inv->memory;
	const struct ps_machine *mc = &ctx->inv->machine;
	struct ps_dev_ref machine = {PS_DEV_MACHINE, mc->id[0] ? mc->id : NULL, "machine"};
	const char *speed_src, *pop_src = NULL;
	char *slots = o->slots, *why = o->why;
	int mts, bits, populated = PS_UNKNOWN;
	double peak = NAN, eff = NAN;
	bool mixed, judged = false;
	const char *verdict = NULL;

	mts = configured_mts(m, &speed_src, &mixed);
	if (m->channels_imc > 0) {
		populated = m->channels_imc;
		pop_src = "imc";
		/* the registers decide; a difference says the slot names mislead here */
		if (m->channels_smbios > 0 && m->channels_smbios != m->channels_imc)
			ps_findf(ctx, PS_SEV_INFO, machine, "channels_names_differ",
				 "the memory controller has %d channels populated, the slots' "
				 "SMBIOS names give %d: the controller's count is used",
				 m->channels_imc, m->channels_smbios);
	} else if (m->channels_smbios > 0) {
		populated = m->channels_smbios;
		pop_src = "smbios";
	}
	populated_slots(m, slots, sizeof(o->slots));
	bits = channel_bits(m);
	if (mts > 0 && bits > 0) {
		peak = mts * (bits / 8.0) / 1000.0;
		if (isfinite(triad) && triad > 0)
			eff = triad / peak;
	}
	o->configured_mts = mts;
	o->speed_source = speed_src;
	o->channel_width_bits = bits > 0 ? bits : -1;
	o->channel_peak_gbps = peak;
	o->effective_channels = eff;
	o->populated = populated;
	o->populated_source = pop_src;
	o->present = m->channels_present;
	if (mixed)
		ps_findf(
		    ctx, PS_SEV_INFO, machine, "mixed_speeds",
		    "the populated DIMMs run at different speeds; the channels are judged at the "
		    "lowest, %d MT/s",
		    mts);
	if (!isfinite(eff)) {
		snprintf(why, sizeof(o->why), "%s",
			 mts <= 0    ? "no DIMM reports its speed (SMBIOS type 17): no channel's "
				       "bandwidth to compare with"
			 : bits <= 0 ? "the LPDDR channels' width is unknown (SMBIOS type 17 data "
				       "width): no channel's bandwidth to compare with"
				     : "no triad figure");
	} else if (populated <= 0) {
		snprintf(why, sizeof(o->why),
			 "which channels are populated is unknown (no memory-controller reader, "
			 "and the slots' names say no channel)");
		ps_findf(ctx, PS_SEV_INFO, machine, "channels_unknown",
			 "the triad reached %.1f GB/s, %.2f channels' worth at %d MT/s (%.1f GB/s "
			 "each); the populated channels are unknown (slots %s)",
			 triad, eff, mts, peak, slots[0] ? slots : "unknown");
	} else if (mc->cpu_flags_known && mc->under_hypervisor) {
		snprintf(why, sizeof(o->why),
			 "a virtual machine: its memory is the host's, shared and emulated");
	} else {
		judged = true;
		/* one channel has no other to fall back to: nothing to mismatch */
		verdict = populated >= 2 && eff < populated / 2.0 ? "mismatch" : "ok";
	}
	o->judged = judged;
	o->verdict = verdict;
	if (verdict && strcmp(verdict, "mismatch") == 0) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = machine,
				       .rule = "channels_mismatch",
				       .value = eff,
				       .limit = populated / 2.0,
				       .unit = "channels"};

		ps_find(ctx, &f,
			"the triad reached %.1f GB/s, %.2f channels' worth at %d MT/s (%.1f GB/s "
			"each, %d bits wide), with %d channels populated (%s, from the %s): some "
			"of them do not work as channels; check the slot order in the board's "
			"manual and the BIOS memory settings",
			triad, eff, mts, peak, bits, populated, slots[0] ? slots : "slots unknown",
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
	struct memory_result *r = ctx->result;
	struct ps_mem_caches caches;
	struct ps_mem_lat_opts lo = {
	    .target_s = p->lat_target_s, .should_stop = ps_should_abort_hook, .stop_arg = ctx};
	struct ps_dev_ref machine = {
	    PS_DEV_MACHINE, ctx->inv->machine.id[0] ? ctx->inv->machine.id : NULL, "machine"};
	uint64_t want, cap, array, llc;
	int64_t avail = ps_mem_available(ctx->root);
	size_t sizes[MAX_SIZES], nsizes = 0;
	double ns[MAX_SIZES];
	int ret;

	r->plan = p == &plans[1];
	r->rule = p->rule;
	if (ps_mem_caches(ctx->root, &caches) < 0)
		memset(&caches, 0, sizeof(caches));
	llc = caches.llc_total;
	/* all three arrays in half of what is free, at most 256 MiB */
	array = ps_mem_array_size(llc, avail, &want, &cap);
	r->threads = ps_mem_cpus();
	r->llc_bytes = llc ? (int64_t)llc : -1;
	r->available_bytes = avail > 0 ? avail : -1;
	if (!array) {
		ps_step_reason(ctx,
			       "only %lld MiB of memory are free: not enough for three arrays of "
			       "%llu MiB",
			       (long long)(avail / (int64_t)MIB), PS_MEM_ARRAY_MIN / MIB);
		return PS_SKIPPED;
	}
	if (!llc)
		snprintf(r->size_note, sizeof(r->size_note),
			 "the last-level cache size is unknown: arrays as large as memory allows");
	else if (array < want)
		snprintf(r->size_note, sizeof(r->size_note),
			 "arrays of %llu MiB, under 4x the last-level cache (%llu MiB): that "
			 "is what %s",
			 (unsigned long long)(array / MIB), (unsigned long long)(llc / MIB),
			 cap < PS_MEM_TOTAL_MAX ? "half the free memory allows"
						: "256 MiB in all allow");
	r->array_bytes = (int64_t)array;
	r->arrays_total_bytes = (int64_t)(3 * array);
	r->size_limited = llc && array < want;

	ret = bandwidth(ctx, p, r);
	if (ret != 0)
		return ret;
	if (!r->verified)
		ps_findf(ctx, PS_SEV_WARN, machine, "verify_failed",
			 "the arrays did not hold what the kernels wrote: a memory error, or "
			 "an engine fault; run a memory test (memtest86+)");
	for (int k = 0; k < PS_MEM_KERNELS; k++) {
		char what[48];

		snprintf(what, sizeof(what), "STREAM %s", ps_mem_kernel_name(k));
		ps_find_unstable(ctx, machine, "unstable_bandwidth", &r->kernels[k].gbps, "GB/s", 1,
				 what,
				 "another load on the machine, or a clock that does not hold");
	}

	/* load-to-use latency: 4 KiB doubling to 4x the last-level cache */
	for (uint64_t s = LAT_FROM; nsizes < MAX_SIZES; s *= 2) {
		uint64_t top = caches.llc ? 4 * caches.llc : 64 * MIB;

		if (s > top || s > cap)
			break;
		sizes[nsizes++] = s;
	}
	ps_progress_phase(ctx, "latency", 0, "sizes");
	if (ps_mem_latency(sizes, nsizes, &lo, ns) == 0) {
		for (size_t i = 0; i < nsizes; i++) {
			struct lat_row *l = &r->latency[r->n_latency++];

			l->bytes = sizes[i];
			l->ns = ns[i];
			l->level = level_of(sizes[i], &caches);
		}
	}
	if (ps_should_abort(ctx))
		return PS_ABORTED;
	channels(ctx, &r->channels, r->triad_gbps);
	ps_examined(ctx, machine, "measured",
		    "memory triad %.1f GB/s with %u threads over 3 x %llu MiB", r->triad_gbps,
		    r->threads, (unsigned long long)(array / MIB));
	return PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	const struct mem_plan *p = plan_of(ctx);

	/* the kernels stop at their budget; latency sizes take their target each */
	return PS_MEM_KERNELS * p->rule.budget_s + 16 * p->lat_target_s * 4 + 1;
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
    {.path = "/channels/channel_width_bits", .title = "channel bits"},
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
    {.path = "/" PS_FIGURE_MAX("gbps"),
     .title = "best GB/s",
     .unit = "GB/s",
     .decimals = 2,
     .better = PS_BETTER_HIGHER},
    PS_COL_FIGURE("gbps", "median", "GB/s", 2, PS_BETTER_HIGHER, 0),
    PS_COL_FIGURE_RANGE("gbps", 2),
    PS_COL_FIGURE_CV,
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

/* The blocks both data versions show alike. */
#define SUMMARY_BLOCK                                                                              \
	{                                                                                          \
		.kind = PS_BLOCK_KV, .id = "summary", .title = "Memory bandwidth and channels",    \
		.rows = "", .when = "/kernels", .cols = PS_COLS(summary_cols),                     \
		.note = "STREAM kernels, a thread per CPU, best pass (more passes while they "     \
			"vary); 10^9 bytes/s; one channel = configured MT/s x its width"           \
	}
#define LATENCY_BLOCKS                                                                             \
	{.kind = PS_BLOCK_TABLE,                                                                   \
	 .id = "latency",                                                                          \
	 .title = "Load-to-use latency (random ring of cache lines)",                              \
	 .rows = "/latency",                                                                       \
	 .cols = PS_COLS(lat_cols)},                                                               \
	{                                                                                          \
		.kind = PS_BLOCK_SERIES, .id = "latency_curve", .rows = "", .nested = "/latency",  \
		.cols = PS_COLS(lat_series_cols), .flags = PS_BLOCK_NO_TEXT                        \
	}

static const struct ps_block blocks[] = {
    SUMMARY_BLOCK,
    {.kind = PS_BLOCK_TABLE,
     .id = "kernels",
     .rows = "/kernels",
     .when = "/" PS_FIGURE_MAX("gbps"),
     .cols = PS_COLS(kernel_cols),
     .note = PS_FIGURE_NOTE},
    LATENCY_BLOCKS,
};

static const struct ps_view view = {
    .name = "memory",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

/* Data version 1 (best_gbps, worst_gbps): reports of an earlier probestick still show and compare.
 */
static const struct ps_col kernel_cols_v1[] = {
    {.path = "/kernel", .title = "kernel", .flags = PS_COL_KEY},
    {.path = "/best_gbps",
     .title = "best GB/s",
     .unit = "GB/s",
     .decimals = 2,
     .better = PS_BETTER_HIGHER},
    {.path = "/median_gbps",
     .title = "median",
     .unit = "GB/s",
     .decimals = 2,
     .better = PS_BETTER_HIGHER,
     .spread = "/cv_pct",
     .min = "/worst_gbps",
     .max = "/best_gbps"},
    {.path = "/median_gbps",
     .title = "min-max",
     .fmt = PS_FMT_RANGE,
     .min = "/worst_gbps",
     .max = "/best_gbps",
     .decimals = 2,
     .flags = PS_COL_OPTIONAL},
    PS_COL_FIGURE_CV,
};

static const struct ps_block blocks_v1[] = {
    SUMMARY_BLOCK,
    {.kind = PS_BLOCK_TABLE,
     .id = "kernels",
     .rows = "/kernels",
     .when = "/best_gbps",
     .cols = PS_COLS(kernel_cols_v1)},
    LATENCY_BLOCKS,
};

static const struct ps_view view_v1 = {
    .name = "memory",
    .version = 1,
    .blocks = PS_BLOCKS(blocks_v1),
};

static const struct ps_view *const older_views[] = {&view_v1, NULL};

static const struct ps_step_ops memory_ops = {
    .abi = PS_STEP_ABI,
    .name = "memory",
    .title = "memory bandwidth, latency and effective channels",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .order = 30,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &memory_fields,
    .older_views = older_views,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(memory_ops);
