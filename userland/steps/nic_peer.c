/*
 * nic_peer.c - TCP throughput against another machine: a stick in server mode
 * (probestick serve) found by its discovery broadcast or named in
 * probestick.cfg (peer=HOST[:PORT]), or any iperf3 server. To the peer, from
 * it, both at once, 1 and N streams, with the CPU it cost here.
 */
/* clang-format off */
//config:config STEP_NIC_PEER
//config:	bool "nic_peer: throughput against a peer (a stick in server mode, any iperf3 server)"
//config:	default y
//config:	help
//config:	  Finds the peer on a port with link that is not cabled to
//config:	  another port of this machine: the one probestick.cfg names
//config:	  (peer=HOST[:PORT]), else a stick in server mode that answers
//config:	  a small discovery broadcast. The port gets its address from
//config:	  net= (static, or DHCP by busybox udhcpc, then link-local).
//config:	  Measures TCP throughput with libiperf (iperf3's protocol, so
//config:	  Debian's iperf3 -s works too) to the peer, from it and both
//config:	  at once. No listening socket is opened.
//kbuild:step-$(CONFIG_STEP_NIC_PEER) += nic_peer.o
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "duration_s": {"type": "integer"},
//schema:    "runs": {"type": "integer"},
//schema:    "peer": {"type": ["object", "null"]},
//schema:    "port": {"type": ["object", "null"]},
//schema:    "tried": {"type": "array", "items": {"type": "object"}},
//schema:    "tests": {"type": "array", "items": {"type": "object",
//schema:      "properties": {
//schema:        "path": {"type": "string"}, "from": {"type": "string"}, "to": {"type": "string"},
//schema:        "streams": {"type": "integer"}, "mode": {"type": "string"},
//schema:        "runs_mbps": {"type": "array", "items": {"type": "number"}},
//schema:        "median_mbps": {"type": ["number", "null"]},
//schema:        "pct_of_link": {"type": ["number", "null"]},
//schema:        "verdict": {"type": ["string", "null"]}
//schema:      },
//schema:      "required": ["path", "streams", "mode", "runs_mbps", "median_mbps"]}},
//schema:    "restored": {"type": "array", "items": {"type": "object"}}
//schema:  },
//schema:  "required": ["duration_s", "runs", "peer", "tried", "tests", "restored"]
//schema:}
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "lib/util.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/peer.h"
#include "engines/net/tput.h"
#include "lib/json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DATA_VERSION 1

struct peer_run {
	struct ps_ctx *ctx;
	struct ps_peer_link pl;
	json_object *tests;
	int duration, runs, nstreams, streams[2];
	double run_t0;
	uint64_t run_base;
};

static bool stop_cb(void *arg)
{
	struct peer_run *r = arg;

	ps_progress_set(r->ctx, r->run_base + (uint64_t)((ps_mono_now() - r->run_t0) * 1000));
	return ps_should_abort(r->ctx);
}

static void report_row(struct peer_run *r, struct ps_tput_row *w, const struct ps_port *p, int link,
		       const struct ps_cost_result *cr)
{
	struct ps_tput_verdict v;
	bool vm = r->ctx->inv->machine.under_hypervisor;

	json_object_array_add(r->tests, ps_tput_row_json(w, link, cr, vm, &v));
	if (v.measured)
		ps_examined(r->ctx, ps_port_ref(p), "measured", "%s: %.0f Mbit/s (%d stream%s, %s)",
			    w->path, v.median, w->streams, w->streams == 1 ? "" : "s", w->mode);
	if (v.judged && !v.pass) {
		struct ps_finding f = {.severity = vm ? PS_SEV_INFO : PS_SEV_WARN,
				       .dev = v.cpu ? (struct ps_dev_ref){PS_DEV_MACHINE,
									  r->ctx->inv->machine.id,
									  "machine"}
						    : ps_port_ref(p),
				       .rule = v.cpu ? "cpu_bound" : "below_link",
				       .value = v.median,
				       .limit = v.limit,
				       .unit = "Mbit/s"};

		ps_find(r->ctx, &f, "%s", v.text);
	}
}

/* mode 0: to the peer, 1: from it (reverse), 2: both at once. False when aborted. */
static bool measure(struct peer_run *r, int streams, int mode)
{
	const struct ps_port *p = &r->pl.ps.p[r->pl.port];
	char peer[INET_ADDRSTRLEN], phase[96];
	struct ps_tput_row to = {.streams = streams}, from = {.streams = streams};
	struct ps_cost cost = {.root = r->ctx->root};
	struct ps_cost_result cr;
	bool aborted = false;

	inet_ntop(AF_INET, &r->pl.peer_addr, peer, sizeof(peer));
	to.from = from.to = p->name;
	to.to = from.from = peer;
	to.mode = from.mode = mode == 2 ? "both ways" : "one way";
	snprintf(to.path, sizeof(to.path), "%s -> %s", p->name, peer);
	snprintf(from.path, sizeof(from.path), "%s -> %s", peer, p->name);
	if (p->nic)
		ps_cost_watch_pci(&cost, p->nic->pci_address);
	snprintf(phase, sizeof(phase), "%s, %d stream%s",
		 mode == 0   ? to.path
		 : mode == 1 ? from.path
			     : "both ways",
		 streams, streams == 1 ? "" : "s");
	ps_progress_phase(r->ctx, phase, (uint64_t)r->runs * (uint64_t)r->duration * 1000, "ms");
	ps_cost_begin(&cost);
	for (int k = 0; k < r->runs && k < PS_TPUT_MAX_RUNS; k++) {
		struct ps_iperf_opts o = {.server_ns_fd = -1,
					  .client_ns_fd = p->ns,
					  .server_addr = peer,
					  .port = r->pl.peer_port,
					  .streams = streams,
					  .duration_s = r->duration,
					  .reverse = mode == 1,
					  .bidir = mode == 2,
					  .should_stop = stop_cb,
					  .stop_arg = r};
		struct ps_iperf_result res;
		struct ps_tput_row *w = mode == 1 ? &from : &to;
		int ret;

		r->run_t0 = ps_mono_now();
		r->run_base = (uint64_t)k * (uint64_t)r->duration * 1000;
		ret = ps_iperf_client_run(&o, &res);
		if (ret == -ECANCELED || ps_should_abort(r->ctx)) {
			aborted = true;
			break;
		}
		if (ret < 0) {
			const char *e = res.error[0] ? res.error : strerror(-ret);

			ps_findf(r->ctx, PS_SEV_WARN, ps_port_ref(p), "run_failed",
				 "%s, run %d: %s", phase, k + 1, e);
			if (!w->error[0])
				snprintf(w->error, sizeof(w->error), "%s", e);
			continue;
		}
		ps_tput_row_add(w, &res, false);
		if (mode == 2)
			ps_tput_row_add(&from, &res, true);
	}
	ps_cost_end(&cost, &cr);
	if (mode != 1)
		report_row(r, &to, p, p->speed, &cr);
	if (mode != 0)
		report_row(r, &from, p, p->speed, &cr);
	return !aborted;
}

static json_object *port_json(const struct ps_peer_link *pl)
{
	const struct ps_port *p = &pl->ps.p[pl->port];
	json_object *o = json_object_new_object();

	ps_json_set_str(o, "name", p->name);
	ps_json_set_str(o, "address", pl->addr.txt);
	ps_json_set_str(o, "how", pl->addr.how);
	ps_json_set_count(o, "speed_mbps", p->speed > 0 ? p->speed : PS_UNKNOWN);
	ps_json_set_count(o, "mtu", (int)p->mtu);
	return o;
}

static int run(struct ps_ctx *ctx)
{
	struct peer_run r = {.ctx = ctx};
	json_object *data = ctx->data, *restored = json_object_new_array();
	bool aborted = false;
	int ret;

	r.tests = json_object_new_array();
	if (ctx->plan && ctx->plan->level == PS_PLAN_FULL) {
		r.duration = 10;
		r.runs = 3;
		r.nstreams = 2;
		r.streams[0] = 1;
		r.streams[1] = 4;
	} else {
		r.duration = 3;
		r.runs = 2;
		r.nstreams = 1;
		r.streams[0] = 1;
	}
	ps_json_set(data, "duration_s", json_object_new_int(r.duration));
	ps_json_set(data, "runs", json_object_new_int(r.runs));
	ps_json_set(data, "peer", NULL);
	ps_json_set(data, "port", NULL);
	ps_json_set(data, "tests", r.tests);
	ps_json_set(data, "restored", restored);
	if (ctx->root && ctx->root[0]) {
		ps_json_set(data, "tried", json_object_new_array());
		ps_step_reason(ctx, "moves real network ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ps_progress_phase(ctx, "finding the peer", 1, "peer");
	ret = ps_peer_link_open(&r.pl, ctx->inv, ctx->cfg ? &ctx->cfg->net_want : NULL, NULL,
				restored, ps_should_abort_hook, ctx);
	ps_json_set(data, "tried", r.pl.tried);
	if (ret < 0) {
		ps_peer_link_close(&r.pl);
		return ret;
	}
	if (r.pl.port < 0) {
		ps_peer_link_close(&r.pl);
		if (ps_should_abort(ctx))
			return PS_ABORTED;
		ps_step_reason(ctx,
			       "no peer: %s (start another stick in server mode on the same "
			       "segment, or name an iperf3 server with peer= in probestick.cfg)",
			       r.pl.why);
		if (ctx->cfg && ctx->cfg->peer[0])
			ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "peer_unreachable",
				 "the peer probestick.cfg names (%s) did not answer: %s",
				 ctx->cfg->peer, r.pl.why);
		return PS_SKIPPED;
	}
	ps_json_set(data, "peer", ps_peer_link_json(&r.pl));
	ps_json_set(data, "port", port_json(&r.pl));
	for (int s = 0; !aborted && s < r.nstreams; s++)
		for (int mode = 0; !aborted && mode < 3; mode++)
			aborted = !measure(&r, r.streams[s], mode);
	ps_peer_link_close(&r.pl);
	for (size_t i = 0; i < r.pl.ps.n; i++)
		if (r.pl.ps.p[i].restore_error[0])
			ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(&r.pl.ps.p[i]), "not_restored", "%s",
				 r.pl.ps.p[i].restore_error);
	return aborted ? PS_ABORTED : PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	bool full = ctx->plan && ctx->plan->level == PS_PLAN_FULL;

	return 12 + 3 * (full ? 2 * 3 * 10 : 2 * 3);
}

/* ---- view ---- */

static const struct ps_col peer_cols[] = {
    {.path = "/address", .title = "peer"},
    {.path = "/found_by", .title = "found by"},
    {.path = "/probestick", .title = "probestick", .fmt = PS_FMT_BOOL},
    {.path = "/name", .title = "name"},
    {.path = "/mtu", .title = "its mtu"},
};

static const struct ps_col port_cols[] = {
    {.path = "/name", .title = "port"},
    {.path = "/address", .title = "address"},
    {.path = "/how", .title = "from"},
    {.path = "/speed_mbps", .title = "link", .unit = "Mb/s"},
};

static const struct ps_col tried_cols[] = {
    {.path = "/port", .title = "port", .flags = PS_COL_KEY},
    {.path = "/address", .title = "address"},
    {.path = "/result", .title = "result", .flags = PS_COL_WIDE},
};

static const struct ps_col tput_cols[] = {
    {.path = "/path", .title = "path", .flags = PS_COL_KEY},
    {.path = "/mode", .title = "mode", .flags = PS_COL_KEY},
    {.path = "/streams", .title = "str", .flags = PS_COL_KEY},
    {.path = "/median_mbps",
     .title = "Mbit/s",
     .unit = "Mbit/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE,
     .spread = "/cv_pct",
     .min = "/min_mbps",
     .max = "/max_mbps"},
    {.path = "/pct_of_link",
     .title = "link",
     .unit = "%",
     .decimals = 0,
     .better = PS_BETTER_HIGHER},
    {.path = "/retransmits", .title = "retr", .better = PS_BETTER_LOWER, .flags = PS_COL_OPTIONAL},
    {.path = "/cost/busiest_core_pct",
     .title = "top core",
     .unit = "%",
     .decimals = 0,
     .better = PS_BETTER_LOWER},
    {.path = "/verdict", .title = "verdict", .fmt = PS_FMT_STATUS, .flags = PS_COL_MEASURED},
};

static const struct ps_col restored_cols[] = {
    {.path = "/port", .title = "port", .flags = PS_COL_KEY},
    {.path = "/setting", .title = "setting", .flags = PS_COL_KEY},
    {.path = "/was", .title = "was"},
    {.path = "/now", .title = "now"},
    {.path = "/restored", .title = "restored", .fmt = PS_FMT_BOOL},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "peer",
     .title = "Peer",
     .rows = "/peer",
     .cols = PS_COLS(peer_cols),
     .when = "/address"},
    {.kind = PS_BLOCK_KV,
     .id = "port",
     .title = "Port facing it",
     .rows = "/port",
     .cols = PS_COLS(port_cols),
     .when = "/name"},
    {.kind = PS_BLOCK_TABLE,
     .id = "tried",
     .title = "Ports tried",
     .rows = "/tried",
     .cols = PS_COLS(tried_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "throughput",
     .title = "TCP throughput with the peer (median of the runs)",
     .rows = "/tests",
     .cols = PS_COLS(tput_cols),
     .empty = "no peer was measured",
     .note = "pass at 80% of this port's negotiated speed"},
    {.kind = PS_BLOCK_TABLE,
     .id = "restored",
     .title = "Put back after the step",
     .rows = "/restored",
     .cols = PS_COLS(restored_cols)},
};

static const struct ps_view view = {
    .name = "nic_peer",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops nic_peer_ops = {
    .abi = PS_STEP_ABI,
    .name = "nic_peer",
    .title = "throughput against a peer: a stick in server mode or an iperf3 server",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 50,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_peer_ops);
