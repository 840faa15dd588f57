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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "pairs": {"type": "array", "items": {"type": "object",
//schema:      "properties": {
//schema:        "a": {"type": "string"}, "b": {"type": "string"},
//schema:        "setting": {"type": ["string", "null"]},
//schema:        "original": {"type": ["string", "null"]},
//schema:        "reason": {"type": ["string", "null"]},
//schema:        "sweep": {"type": "array", "items": {"type": "object",
//schema:          "properties": {
//schema:            "value": {"type": "string"}, "original": {"type": "boolean"},
//schema:            "mbps": {"type": ["number", "null"]},
//schema:            "rr_per_s": {"type": ["number", "null"]},
//schema:            "rr_p50_us": {"type": ["number", "null"]},
//schema:            "rr_p99_us": {"type": ["number", "null"]},
//schema:            "irqs_per_s": {"type": ["number", "null"]},
//schema:            "busiest_core_pct": {"type": ["number", "null"]},
//schema:            "error": {"type": "string"}
//schema:          },
//schema:          "required": ["value", "mbps", "rr_p50_us"]}}
//schema:      },
//schema:      "required": ["a", "b", "setting", "sweep"]}},
//schema:    "seconds": {"type": "number"},
//schema:    "restored": {"type": "array", "items": {"type": "object"}}
//schema:  },
//schema:  "required": ["pairs", "restored"]
//schema:}
/* clang-format on */

#include "core/step.h"
#include "lib/util.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/ports.h"
#include "engines/net/tcp_rr.h"
#include "hw/ethtool.h"
#include "lib/json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CARRIER_S    5.0
#define TPUT_S	     4
#define RR_S	     2.0
#define DATA_VERSION 1

enum knob { K_NONE, K_RX_USECS, K_RX_FRAMES, K_ADAPTIVE };

static const int usecs_values[] = {0, 10, 50, 125, 250, 1000};
static const int frames_values[] = {1, 4, 16, 64};

/* The ethtool helper inside a port's namespace. */
static int et_open(struct ps_ethtool *et, const struct ps_port *p)
{
	return ps_netns_ethtool_open(p->ns, et);
}

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

/* Every setting the driver reported, back as it was; then read again to check. */
static void restore(struct ps_ctx *ctx, struct ps_ethtool *et, const struct ps_port *p,
		    const struct ps_coalesce *orig, enum knob k, json_object *restored)
{
	struct ps_coalesce now;
	char was[32], is[32];
	int ret = ps_ethtool_set_coalesce(et, p->name, orig);

	if (ret == -EOPNOTSUPP) /* a field only readable: the one swept is enough */
		ret = knob_set(et, p->name, k, knob_get(k, orig));
	knob_text(k, knob_get(k, orig), was, sizeof(was));
	if (ps_ethtool_get_coalesce(et, p->name, &now) == 0)
		knob_text(k, knob_get(k, &now), is, sizeof(is));
	else
		snprintf(is, sizeof(is), "?");
	ps_restored_row(restored, p->name, knob_name(k), was, is);
	if (ret < 0 || strcmp(was, is) != 0)
		ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(p), "not_restored",
			 "%s: %s is %s, was %s before the sweep (%s): set it back with ethtool -C",
			 p->name, knob_name(k), is, was, ret < 0 ? strerror(-ret) : "read back");
}

static json_object *point(const char *value, bool orig, double mbps, const struct ps_rr_result *rr,
			  bool rr_ok, const struct ps_cost_result *c, const char *error)
{
	json_object *o = json_object_new_object();

	ps_json_set_str(o, "value", value);
	ps_json_set(o, "original", json_object_new_boolean(orig));
	ps_json_set(o, "mbps", mbps >= 0 ? ps_json_new_num(mbps, 1) : NULL);
	ps_json_set(o, "rr_per_s", rr_ok ? ps_json_new_num(rr->per_s, 0) : NULL);
	ps_json_set(o, "rr_p50_us", rr_ok ? ps_json_new_num(rr->p50_us, 1) : NULL);
	ps_json_set(o, "rr_p99_us", rr_ok ? ps_json_new_num(rr->p99_us, 1) : NULL);
	ps_json_set(o, "irqs_per_s",
		    c->known && c->irqs_per_s >= 0 ? ps_json_new_num(c->irqs_per_s, 0) : NULL);
	ps_json_set(o, "busiest_core_pct", c->known ? ps_json_new_num(c->busiest_pct, 0) : NULL);
	if (error && error[0])
		ps_json_set_str(o, "error", error);
	return o;
}

/* One pair: sweep, measure, put back. False when aborted. */
static bool sweep_pair(struct ps_ctx *ctx, struct ps_ports *ps, const struct ps_pair *pr,
		       json_object *pairs, json_object *restored)
{
	struct ps_port *a = &ps->p[pr->a], *b = &ps->p[pr->b];
	struct ps_ethtool ea, eb;
	struct ps_coalesce ca, cb;
	json_object *o = json_object_new_object(), *sweep = json_object_new_array();
	enum knob k = K_NONE;
	int values[8], nv = 0, orig;
	char txt[32], best_tput[32] = "", best_rr[32] = "";
	double best_mbps = -1, best_p50 = -1;
	bool aborted = false, oka, okb;

	ps_json_set_str(o, "a", a->name);
	ps_json_set_str(o, "b", b->name);
	ps_json_set(o, "sweep", sweep);
	json_object_array_add(pairs, o);
	oka = et_open(&ea, a) == 0;
	okb = et_open(&eb, b) == 0;
	if (!oka || !okb || ps_ethtool_get_coalesce(&ea, a->name, &ca) < 0 ||
	    ps_ethtool_get_coalesce(&eb, b->name, &cb) < 0 || (k = knob_of(&ca, &cb)) == K_NONE) {
		ps_json_set(o, "setting", NULL);
		ps_json_set(o, "original", NULL);
		ps_json_set_str(o, "reason",
				"the drivers have no coalescing setting to change "
				"(neither rx-usecs, rx-frames nor adaptive)");
		ps_findf(ctx, PS_SEV_INFO, ps_port_ref(a), "not_supported",
			 "%s and %s: no coalescing setting to sweep", a->name, b->name);
		if (oka)
			ps_ethtool_close(&ea);
		if (okb)
			ps_ethtool_close(&eb);
		return true;
	}
	orig = knob_get(k, &ca);
	knob_text(k, orig, txt, sizeof(txt));
	ps_json_set_str(o, "setting", knob_name(k));
	if (knob_get(k, &cb) == orig) {
		ps_json_set_str(o, "original", txt);
	} else {
		/* the sweep's baseline is a's value on both; the report keeps what each had */
		char tb[32], both[2 * sizeof(txt) + 2 * IF_NAMESIZE + 16];

		knob_text(k, knob_get(k, &cb), tb, sizeof(tb));
		snprintf(both, sizeof(both), "%s on %s, %s on %s", txt, a->name, tb, b->name);
		ps_json_set_str(o, "original", both);
	}
	ps_json_set(o, "reason", NULL);
	values[nv++] = orig; /* the baseline first */
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
	ps_progress_phase(ctx, "coalescing sweep", (uint64_t)nv, "settings");
	for (int i = 0; i < nv && !aborted; i++) {
		struct ps_cost cost = {.root = ctx->root};
		struct ps_cost_result cr;
		struct ps_iperf_result res;
		struct ps_rr_result rr;
		struct ps_iperf_opts io = {.server_ns_fd = b->ns,
					   .client_ns_fd = a->ns,
					   .server_addr = b->addr_txt,
					   .streams = 1,
					   .duration_s = TPUT_S,
					   .should_stop = ps_should_abort_hook,
					   .stop_arg = ctx};
		struct ps_rr_opts ro = {.server_ns_fd = b->ns,
					.client_ns_fd = a->ns,
					.server_addr = b->addr_txt,
					.seconds = RR_S,
					.should_stop = ps_should_abort_hook,
					.stop_arg = ctx};
		char err[300] = "";
		int r1, r2, ret;

		knob_text(k, values[i], txt, sizeof(txt));
		ret = knob_set(&ea, a->name, k, values[i]);
		if (ret == 0)
			ret = knob_set(&eb, b->name, k, values[i]);
		if (ret < 0) {
			snprintf(err, sizeof(err), "the driver refused %s %s: %s", knob_name(k),
				 txt, strerror(-ret));
			json_object_array_add(sweep, point(txt, i == 0, -1, &rr, false,
							   &(struct ps_cost_result){0}, err));
			continue;
		}
		if (a->nic)
			ps_cost_watch_pci(&cost, a->nic->pci_address);
		if (b->nic)
			ps_cost_watch_pci(&cost, b->nic->pci_address);
		ps_cost_begin(&cost);
		r1 = ps_iperf_pair_run(&io, &res);
		ps_cost_end(&cost, &cr);
		r2 = r1 == -ECANCELED ? -ECANCELED : ps_tcp_rr_run(&ro, &rr);
		if (r1 == -ECANCELED || r2 == -ECANCELED || ps_should_abort(ctx)) {
			aborted = true;
			break;
		}
		if (r1 < 0 || r2 < 0)
			snprintf(err, sizeof(err), "%s", r1 < 0 ? res.error : rr.error);
		json_object_array_add(
		    sweep, point(txt, i == 0, r1 == 0 ? res.mbps : -1, &rr, r2 == 0, &cr, err));
		if (r1 == 0 && res.mbps > best_mbps) {
			best_mbps = res.mbps;
			snprintf(best_tput, sizeof(best_tput), "%s", txt);
		}
		if (r2 == 0 && (best_p50 < 0 || rr.p50_us < best_p50)) {
			best_p50 = rr.p50_us;
			snprintf(best_rr, sizeof(best_rr), "%s", txt);
		}
		ps_progress_set(ctx, (uint64_t)i + 1);
	}
	/* Always back, whatever happened above. */
	restore(ctx, &ea, a, &ca, k, restored);
	restore(ctx, &eb, b, &cb, k, restored);
	ps_ethtool_close(&ea);
	ps_ethtool_close(&eb);
	if (best_tput[0] && best_rr[0]) {
		ps_findf(
		    ctx, PS_SEV_INFO, ps_port_ref(a), "trade",
		    "%s <-> %s, %s: most throughput at %s (%.0f Mbit/s), shortest round trip at "
		    "%s (%.1f us); the original is %s",
		    a->name, b->name, knob_name(k), best_tput, best_mbps, best_rr, best_p50,
		    json_object_get_string(ps_json_get(o, "original")));
		ps_examined(ctx, ps_port_ref(a), "swept", "%s swept over %d values", knob_name(k),
			    nv);
		ps_examined(ctx, ps_port_ref(b), "swept", "%s swept over %d values", knob_name(k),
			    nv);
	}
	return !aborted;
}

static int run(struct ps_ctx *ctx)
{
	json_object *pairs_j = json_object_new_array(), *restored = json_object_new_array();
	struct ps_ports ps;
	struct ps_pair pairs[PS_PORTS_MAX / 2];
	bool reach[PS_PORTS_MAX * PS_PORTS_MAX], aborted;
	size_t npairs = 0;
	int ret;

	ps_json_set(ctx->data, "pairs", pairs_j);
	ps_json_set_num(ctx->data, "seconds", TPUT_S + RR_S, 1);
	ps_json_set(ctx->data, "restored", restored);
	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "changes real ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ret = ps_ports_open(&ps, ctx->inv, NULL, restored);
	if (ret < 0)
		return ret;
	ps.should_stop = ps_should_abort_hook;
	ps.stop_arg = ctx;
	aborted = !ps_ports_setup(&ps, CARRIER_S);
	if (!aborted && ps_ports_with_link(&ps) >= 2) {
		aborted = !ps_ports_probe(&ps, 1.0, reach);
		if (!aborted)
			npairs = ps_ports_pairs(&ps, reach, pairs);
	}
	for (size_t k = 0; k < npairs; k++) {
		ps_ports_address(&ps, pairs[k].a, (unsigned int)k, 1);
		ps_ports_address(&ps, pairs[k].b, (unsigned int)k, 2);
	}
	for (size_t k = 0; !aborted && k < npairs; k++)
		aborted = !sweep_pair(ctx, &ps, &pairs[k], pairs_j, restored);
	ps_ports_close(&ps);
	for (size_t i = 0; i < ps.n; i++)
		if (ps.p[i].restore_error[0])
			ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(&ps.p[i]), "not_restored", "%s",
				 ps.p[i].restore_error);
	if (aborted)
		return PS_ABORTED;
	if (npairs == 0) {
		ps_step_reason(ctx,
			       "no two ports are cabled to each other: the sweep needs a pair");
		return PS_SKIPPED;
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
};

static const struct ps_col restored_cols[] = {
    {.path = "/port", .title = "port", .flags = PS_COL_KEY},
    {.path = "/setting", .title = "setting", .flags = PS_COL_KEY},
    {.path = "/was", .title = "was"},
    {.path = "/now", .title = "now"},
    {.path = "/restored", .title = "restored", .fmt = PS_FMT_BOOL},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "sweep",
     .title = "Throughput and round trips at each coalescing setting (both ports)",
     .rows = "/pairs",
     .nested = "/sweep",
     .cols = PS_COLS(sweep_cols),
     .empty = "no pair swept",
     .note = "rr: TCP request/response, one byte each way; rtt: its round trip"},
    {.kind = PS_BLOCK_TABLE,
     .id = "pairs",
     .title = "Pairs",
     .rows = "/pairs",
     .cols = PS_COLS(pair_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "restored",
     .title = "Put back after the sweep",
     .rows = "/restored",
     .cols = PS_COLS(restored_cols)},
};

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
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_coalesce_ops);
