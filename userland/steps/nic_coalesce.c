/*
 * nic_coalesce.c - the interrupt-coalescing trade, measured: rx-usecs (or the
 * driver's equivalent) swept over a few values on both ports of a cabled
 * pair, throughput and request/response round trips at each, then the
 * original settings put back, also on abort or error. Seed 002 did this by
 * hand (int_holdoff 150 -> 1100: iSCSI writes 17 -> 34 MB/s, reads 48 -> 43).
 */
/* clang-format off */
//config:config STEP_NIC_COALESCE
//config:	bool "nic_coalesce: the coalescing trade, throughput vs latency (full plan)"
//config:	default y
//config:	help
//config:	  For each pair of ports cabled to each other, sets rx-usecs (or
//config:	  rx-frames, or adaptive coalescing, whichever the driver
//config:	  supports) on both ports to a few values in turn and measures
//config:	  TCP throughput and TCP request/response round trips at each,
//config:	  with the interrupts it took. The original settings go back at
//config:	  the end, also when the step is aborted or fails.
//kbuild:step-$(CONFIG_STEP_NIC_COALESCE) += nic_coalesce.o
/* clang-format on */

#include "core/step.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/session.h"
#include "engines/net/tcp_rr.h"
#include "hw/ethtool.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CARRIER_S 5.0
#define PROBE_S	  1.0
#define TPUT_S	  4
#define RR_S	  2.0
#define DATA_VERSION                                                                               \
	2 /* 2: "original" is port a's value, b's in "original_b" (was both, as text) */

/* ---- the result: data{} as a struct, described once ---- */

struct point {
	char value[16]; /* the setting's value: a number, or "on"/"off" for adaptive */
	bool original;	/* the baseline: what the ports had */
	double mbps, rr_per_s, rr_p50_us, rr_p99_us, irqs_per_s, busiest_core_pct; /* NAN */
	char error[300];							   /* "" none */
};

struct pair_row {
	char a[IF_NAMESIZE], b[IF_NAMESIZE];
	const char *setting; /* "rx-usecs", "rx-frames", "adaptive-rx", NULL none */
	char original[16];   /* a's value before the sweep: the sweep's baseline on both */
	char original_b[16]; /* b's, "" when the same */
	const char *reason;  /* why not swept, NULL */
	struct point *sweep;
	size_t n_sweep;
};

struct coalesce_result {
	double seconds;
	struct pair_row *pairs;
	size_t n_pairs;
	struct ps_nic_rows rows; /* ports[], restored[] */
};

static const struct ps_field point_f[] = {
    PS_FIELD(struct point, value, "value"),
    PS_FIELD(struct point, original, "original"),
    PS_FIELD(struct point, mbps, "mbps", .unit = "Mbit/s", .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct point, rr_per_s, "rr_per_s", .unit = "1/s", .flags = PS_FLD_NULL),
    PS_FIELD(struct point, rr_p50_us, "rr_p50_us", .unit = "us", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct point, rr_p99_us, "rr_p99_us", .unit = "us", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct point, irqs_per_s, "irqs_per_s", .unit = "1/s", .flags = PS_FLD_NULL),
    PS_FIELD(struct point, busiest_core_pct, "busiest_core_pct", .unit = "%", .flags = PS_FLD_NULL),
    PS_FIELD(struct point, error, "error", .flags = PS_FLD_OMIT),
};
static const struct ps_fields point_fields = PS_FIELDS(struct point, point_f);

static const struct ps_field pair_f[] = {
    PS_FIELD(struct pair_row, a, "a"),
    PS_FIELD(struct pair_row, b, "b"),
    PS_FIELD(struct pair_row, setting, "setting", .flags = PS_FLD_NULL),
    PS_FIELD(struct pair_row, original, "original", .flags = PS_FLD_NULL),
    PS_FIELD(struct pair_row, original_b, "original_b", .flags = PS_FLD_NULL),
    PS_FIELD(struct pair_row, reason, "reason", .flags = PS_FLD_NULL),
    PS_FIELD_ARRAY(struct pair_row, sweep, n_sweep, "sweep", &point_fields),
};
static const struct ps_fields pair_fields = PS_FIELDS(struct pair_row, pair_f);

static const struct ps_field coalesce_f[] = {
    PS_FIELD(struct coalesce_result, seconds, "seconds", .unit = "s", .decimals = 1),
    PS_FIELD_ARRAY(struct coalesce_result, pairs, n_pairs, "pairs", &pair_fields),
    PS_NIC_ROWS_FIELDS(struct coalesce_result, rows),
};
static const struct ps_fields coalesce_fields = PS_FIELDS(struct coalesce_result, coalesce_f);

/* ---- the knob ---- */

enum knob { K_NONE, K_RX_USECS, K_RX_FRAMES, K_ADAPTIVE };

static const int usecs_values[] = {0, 10, 50, 125, 250, 1000};
static const int frames_values[] = {1, 4, 16, 64};

static enum knob knob_of(const struct ps_coalesce *a, const struct ps_coalesce *b)
{
	if (a->rx_usecs != PS_UNKNOWN && b->rx_usecs != PS_UNKNOWN)
		return K_RX_USECS;
	if (a->rx_frames != PS_UNKNOWN && b->rx_frames != PS_UNKNOWN)
		return K_RX_FRAMES;
	if (a->adaptive_rx != PS_TRI_UNKNOWN && b->adaptive_rx != PS_TRI_UNKNOWN)
		return K_ADAPTIVE;
	return K_NONE;
}

static const char *knob_name(enum knob k)
{
	return k == K_RX_USECS	  ? "rx-usecs"
	       : k == K_RX_FRAMES ? "rx-frames"
	       : k == K_ADAPTIVE  ? "adaptive-rx"
				  : NULL;
}

/* A value as ethtool -c shows it: adaptive's on/off, a number for the others. */
static void knob_text(enum knob k, int v, char *buf, size_t len)
{
	if (k == K_ADAPTIVE)
		snprintf(buf, len, "%s", v ? "on" : "off");
	else
		snprintf(buf, len, "%d", v);
}

static int knob_get(enum knob k, const struct ps_coalesce *c)
{
	return k == K_RX_USECS ? c->rx_usecs : k == K_RX_FRAMES ? c->rx_frames : c->adaptive_rx;
}

static int knob_set(struct ps_ethtool *et, const char *ifname, enum knob k, int v)
{
	struct ps_coalesce c;

	ps_coalesce_unknown(&c);
	if (k == K_RX_USECS)
		c.rx_usecs = v;
	else if (k == K_RX_FRAMES)
		c.rx_frames = v;
	else
		c.adaptive_rx = v ? 1 : 0;
	return ps_ethtool_set_coalesce(et, ifname, &c);
}

/* The values to sweep, the original (the baseline) first. */
static int knob_values(enum knob k, int orig, int *values)
{
	int nv = 0;

	values[nv++] = orig;
	if (k == K_RX_USECS)
		for (size_t i = 0; i < PS_ARRAY_SIZE(usecs_values); i++)
			if (usecs_values[i] != orig)
				values[nv++] = usecs_values[i];
	if (k == K_RX_FRAMES)
		for (size_t i = 0; i < PS_ARRAY_SIZE(frames_values); i++)
			if (frames_values[i] != orig)
				values[nv++] = frames_values[i];
	if (k == K_ADAPTIVE)
		values[nv++] = !orig;
	return nv;
}

/* ---- one pair ---- */

struct sweep {
	struct ps_ctx *ctx;
	struct coalesce_result *res;
	struct pair_row *row;
	struct ps_port *p[2];
	struct ps_ethtool et[2];
	bool et_open[2];
	struct ps_coalesce orig[2];
	enum knob k;
	char best_tput[16], best_rr[16];
	double best_mbps, best_p50;
};

/* Every setting the driver reported, back as it was; then read again to check. */
static void restore(struct sweep *w, int s)
{
	const struct ps_port *p = w->p[s];
	struct ps_coalesce now;
	char was[16], is[16];
	int ret = ps_ethtool_set_coalesce(&w->et[s], p->name, &w->orig[s]);

	if (ret == -EOPNOTSUPP) /* a field only readable: the one swept is enough */
		ret = knob_set(&w->et[s], p->name, w->k, knob_get(w->k, &w->orig[s]));
	knob_text(w->k, knob_get(w->k, &w->orig[s]), was, sizeof(was));
	if (ps_ethtool_get_coalesce(&w->et[s], p->name, &now) == 0)
		knob_text(w->k, knob_get(w->k, &now), is, sizeof(is));
	else
		snprintf(is, sizeof(is), "?");
	ps_put_back_add(w->res->rows.restored, &w->res->rows.n_restored, PS_PUT_BACK_MAX, p->name,
			knob_name(w->k), was, is);
	if (ret < 0 || strcmp(was, is) != 0)
		ps_findf(w->ctx, PS_SEV_FAIL, ps_port_ref(p), "not_restored",
			 "%s: %s is %s, was %s before the sweep (%s): set it back with ethtool -C",
			 p->name, knob_name(w->k), is, was, ret < 0 ? strerror(-ret) : "read back");
}

/* Both ports' ethtool and coalescing read, and the knob both have; false when none. */
static bool sweep_open(struct sweep *w)
{
	for (int s = 0; s < 2; s++) {
		w->et_open[s] = ps_netns_ethtool_open(w->p[s]->ns, &w->et[s]) == 0;
		if (!w->et_open[s] ||
		    ps_ethtool_get_coalesce(&w->et[s], w->p[s]->name, &w->orig[s]) < 0)
			return false;
	}
	w->k = knob_of(&w->orig[0], &w->orig[1]);
	return w->k != K_NONE;
}

/* One value on both ports, throughput and round trips measured; -ECANCELED when aborted. */
static int sweep_point(struct sweep *w, int value, bool original)
{
	struct ps_port *a = w->p[0], *b = w->p[1];
	struct point *pt = ps_fields_grow(&point_fields, &w->row->sweep, &w->row->n_sweep);
	struct ps_cost cost = {.root = w->ctx->root};
	struct ps_cost_result cr;
	struct ps_iperf_result res;
	struct ps_rr_result rr;
	struct ps_iperf_opts io = {.server_ns_fd = b->ns,
				   .client_ns_fd = a->ns,
				   .server_addr = b->addr_txt,
				   .streams = 1,
				   .duration_s = TPUT_S,
				   .should_stop = ps_should_abort_hook,
				   .stop_arg = w->ctx};
	struct ps_rr_opts ro = {.server_ns_fd = b->ns,
				.client_ns_fd = a->ns,
				.server_addr = b->addr_txt,
				.seconds = RR_S,
				.should_stop = ps_should_abort_hook,
				.stop_arg = w->ctx};
	int r1, r2, ret;

	if (!pt)
		return 0;
	knob_text(w->k, value, pt->value, sizeof(pt->value));
	pt->original = original;
	ret = knob_set(&w->et[0], a->name, w->k, value);
	if (ret == 0)
		ret = knob_set(&w->et[1], b->name, w->k, value);
	if (ret < 0) {
		snprintf(pt->error, sizeof(pt->error), "the driver refused %s %s: %s",
			 knob_name(w->k), pt->value, strerror(-ret));
		return 0;
	}
	for (int s = 0; s < 2; s++)
		if (w->p[s]->nic)
			ps_cost_watch_pci(&cost, w->p[s]->nic->pci_address);
	ps_cost_begin(&cost);
	r1 = ps_iperf_pair_run(&io, &res);
	ps_cost_end(&cost, &cr);
	r2 = r1 == -ECANCELED ? -ECANCELED : ps_tcp_rr_run(&ro, &rr);
	if (r1 == -ECANCELED || r2 == -ECANCELED || ps_should_abort(w->ctx))
		return -ECANCELED;
	if (r1 < 0 || r2 < 0)
		snprintf(pt->error, sizeof(pt->error), "%s", r1 < 0 ? res.error : rr.error);
	if (r1 == 0)
		pt->mbps = res.mbps;
	if (r2 == 0) {
		pt->rr_per_s = rr.per_s;
		pt->rr_p50_us = rr.p50_us;
		pt->rr_p99_us = rr.p99_us;
	}
	if (cr.known) {
		pt->irqs_per_s = cr.irqs_per_s >= 0 ? cr.irqs_per_s : NAN;
		pt->busiest_core_pct = cr.busiest_pct;
	}
	if (r1 == 0 && res.mbps > w->best_mbps) {
		w->best_mbps = res.mbps;
		snprintf(w->best_tput, sizeof(w->best_tput), "%s", pt->value);
	}
	if (r2 == 0 && (w->best_p50 < 0 || rr.p50_us < w->best_p50)) {
		w->best_p50 = rr.p50_us;
		snprintf(w->best_rr, sizeof(w->best_rr), "%s", pt->value);
	}
	return 0;
}

/* The trade found: which value gave most throughput, which the shortest round trip. */
static void trade(struct sweep *w, int nv)
{
	const char *a = w->p[0]->name, *b = w->p[1]->name, *k = knob_name(w->k);
	char orig[96];

	if (!w->best_tput[0] || !w->best_rr[0])
		return;
	if (w->row->original_b[0])
		snprintf(orig, sizeof(orig), "%s on %s, %s on %s", w->row->original, a,
			 w->row->original_b, b);
	else
		snprintf(orig, sizeof(orig), "%s", w->row->original);
	ps_findf(w->ctx, PS_SEV_INFO, ps_port_ref(w->p[0]), "trade",
		 "%s <-> %s, %s: most throughput at %s (%.0f Mbit/s), shortest round trip at %s "
		 "(%.1f us); the original is %s",
		 a, b, k, w->best_tput, w->best_mbps, w->best_rr, w->best_p50, orig);
	for (int s = 0; s < 2; s++)
		ps_examined(w->ctx, ps_port_ref(w->p[s]), "swept", "%s swept over %d values", k,
			    nv);
}

/* One pair: sweep, measure, put back. False when aborted. */
static bool sweep_pair(struct ps_ctx *ctx, struct ps_nic_session *s, const struct ps_pair *pp)
{
	struct sweep w = {.ctx = ctx, .res = ctx->result, .best_mbps = -1, .best_p50 = -1};
	int values[8], nv, orig, ret = 0, measured = 0;

	w.p[0] = &s->ps.p[pp->a];
	w.p[1] = &s->ps.p[pp->b];
	w.row = ps_fields_grow(&pair_fields, &w.res->pairs, &w.res->n_pairs);
	if (!w.row)
		return true;
	snprintf(w.row->a, sizeof(w.row->a), "%s", w.p[0]->name);
	snprintf(w.row->b, sizeof(w.row->b), "%s", w.p[1]->name);
	if (!sweep_open(&w)) {
		w.row->reason = "the drivers have no coalescing setting to change (neither "
				"rx-usecs, rx-frames nor adaptive)";
		ps_findf(ctx, PS_SEV_INFO, ps_port_ref(w.p[0]), "not_supported",
			 "%s and %s: no coalescing setting to sweep", w.p[0]->name, w.p[1]->name);
	} else {
		orig = knob_get(w.k, &w.orig[0]);
		w.row->setting = knob_name(w.k);
		knob_text(w.k, orig, w.row->original, sizeof(w.row->original));
		/* the sweep's baseline is a's value on both; the report keeps b's when it differs
		 */
		if (knob_get(w.k, &w.orig[1]) != orig)
			knob_text(w.k, knob_get(w.k, &w.orig[1]), w.row->original_b,
				  sizeof(w.row->original_b));
		nv = knob_values(w.k, orig, values);
		ps_progress_phase(ctx, "coalescing sweep", (uint64_t)nv, "settings");
		for (int i = 0; i < nv && ret == 0; i++) {
			ret = sweep_point(&w, values[i], i == 0);
			ps_progress_set(ctx, (uint64_t)i + 1);
			measured += ret == 0;
		}
		if (ret == -ECANCELED) /* what the end screen and the report say was left out */
			ps_step_reason(ctx, "%s <-> %s: %d of %d %s settings not measured",
				       w.p[0]->name, w.p[1]->name, nv - measured, nv,
				       knob_name(w.k));
		/* Always back, whatever happened above. */
		restore(&w, 0);
		restore(&w, 1);
		trade(&w, nv);
	}
	for (int i = 0; i < 2; i++)
		if (w.et_open[i])
			ps_ethtool_close(&w.et[i]);
	return ret != -ECANCELED;
}

static int run(struct ps_ctx *ctx)
{
	struct coalesce_result *r = ctx->result;
	const struct ps_nic_session_opts so = PS_NIC_SESSION_OPTS(ctx, CARRIER_S, PROBE_S);
	struct ps_nic_session s;
	bool aborted;
	int ret;

	r->seconds = TPUT_S + RR_S;
	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "changes real ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ret = ps_nic_session_open(&s, ctx->inv, &so);
	if (ret < 0)
		return ret;
	aborted = s.aborted;
	for (size_t k = 0; !aborted && k < s.npairs; k++)
		aborted = !sweep_pair(ctx, &s, &s.pairs[k]);
	ps_nic_session_end(&s, &r->rows);
	if (aborted || s.aborted)
		return PS_ABORTED;
	if (s.npairs == 0) {
		ps_step_reason(ctx,
			       "no two ports are cabled to each other: the sweep needs a pair%s%s",
			       s.no_pairs[0] ? ": " : "", s.no_pairs);
		return s.unrestored ? PS_PASS : PS_SKIPPED;
	}
	return PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	size_t up = 0;

	for (size_t i = 0; i < ctx->inv->n_nics; i++)
		up += ctx->inv->nics[i].carrier == 1;
	return up >= 2 ? CARRIER_S + (double)(up / 2) * 7 * (TPUT_S + RR_S + 1) : 0;
}

/* ---- view ---- */

static const struct ps_col sweep_cols[] = {
    {.path = "^/a", .title = "pair", .flags = PS_COL_KEY},
    {.path = "^/setting", .title = "setting"},
    {.path = "/value", .title = "value", .flags = PS_COL_KEY},
    {.path = "/original", .title = "orig", .fmt = PS_FMT_BOOL},
    {.path = "/mbps", .title = "Mbit/s", .decimals = 0, .better = PS_BETTER_HIGHER},
    {.path = "/rr_per_s", .title = "rr/s", .decimals = 0, .better = PS_BETTER_HIGHER},
    {.path = "/rr_p50_us", .title = "rtt p50", .fmt = PS_FMT_US, .better = PS_BETTER_LOWER},
    {.path = "/rr_p99_us", .title = "p99", .fmt = PS_FMT_US, .better = PS_BETTER_LOWER},
    {.path = "/irqs_per_s", .title = "irq/s", .decimals = 0, .better = PS_BETTER_LOWER},
};

static const struct ps_col pair_cols[] = {
    {.path = "/a", .title = "port", .flags = PS_COL_KEY},
    {.path = "/b", .title = "and", .flags = PS_COL_KEY},
    {.path = "/setting", .title = "setting"},
    {.path = "/original", .title = "original"},
    {.path = "/reason", .title = "why not", .flags = PS_COL_WIDE},
    {.path = "/original_b", .title = "b's own", .flags = PS_COL_OPTIONAL},
};

#define SWEEP_BLOCK                                                                                \
	{                                                                                          \
		.kind = PS_BLOCK_TABLE, .id = "sweep",                                             \
		.title = "Throughput and round trips at each coalescing setting (both ports)",     \
		.rows = "/pairs", .nested = "/sweep", .cols = PS_COLS(sweep_cols),                 \
		.empty = "no pair swept",                                                          \
		.note = "rr: TCP request/response, one byte each way; rtt: its round trip"         \
	}

static const struct ps_block blocks[] = {
    SWEEP_BLOCK,
    {.kind = PS_BLOCK_TABLE,
     .id = "pairs",
     .title = "Pairs",
     .rows = "/pairs",
     .cols = PS_COLS(pair_cols),
     .note = "original: the value both ports were swept from; b's own: b's when it differed"},
    PS_NIC_PORTS_BLOCK,
    PS_NIC_RESTORED_BLOCK,
};

/* Data version 1 ("original" both ports' values as one text): earlier reports still show. */
static const struct ps_block blocks_v1[] = {
    SWEEP_BLOCK,
    {.kind = PS_BLOCK_TABLE,
     .id = "pairs",
     .title = "Pairs",
     .rows = "/pairs",
     .cols = pair_cols,
     .ncols = 5},
    PS_NIC_RESTORED_BLOCK,
};

static const struct ps_view view_v1 = {
    .name = "nic_coalesce",
    .version = 1,
    .blocks = PS_BLOCKS(blocks_v1),
};

static const struct ps_view *const older_views[] = {&view_v1, NULL};

static const struct ps_view view = {
    .name = "nic_coalesce",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops nic_coalesce_ops = {
    .abi = PS_STEP_ABI,
    .name = "nic_coalesce",
    .title = "interrupt coalescing swept: throughput against round-trip latency",
    .plans = PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 45,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &coalesce_fields,
    .older_views = older_views,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_coalesce_ops);
