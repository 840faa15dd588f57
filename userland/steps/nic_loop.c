/*
 * nic_loop.c - port to port: which ports are cabled to each other (a probe
 * frame out of one, seen on the other), then TCP throughput between them,
 * each port in its own network namespace so the traffic crosses the cable:
 * each way and both at once, 1 and N streams, with what it cost in CPU.
 */
/* clang-format off */
//config:config STEP_NIC_LOOP
//config:	bool "nic_loop: port-to-port throughput between cabled ports"
//config:	default y
//config:	help
//config:	  Moves every free physical port into a network namespace of
//config:	  its own, finds which ports are cabled to each other by a
//config:	  probe frame (EtherType 0x88b5 to the nearest-bridge group
//config:	  address, which switches do not forward), and measures TCP
//config:	  throughput with libiperf between each pair: each way and both
//config:	  at once, 1 stream (and 4 in the full plan), with the CPU each
//config:	  core spent and the ports' interrupts. Pass at 80 % of the
//config:	  negotiated speed. Ports with an address or a default route
//config:	  are left alone; every port goes back as it was.
//kbuild:step-$(CONFIG_STEP_NIC_LOOP) += nic_loop.o
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "duration_s": {"type": "integer"},
//schema:    "runs": {"type": "integer"},
//schema:    "max_runs": {"type": "integer"},
//schema:    "noise_cv_pct": {"type": "number"},
//schema:    "streams": {"type": "array", "items": {"type": "integer"}},
//schema:    "pass_pct": {"type": "number"},
//schema:    "pairs": {"type": "array", "items": {"type": "object",
//schema:      "properties": {
//schema:        "a": {"type": "string"}, "b": {"type": "string"},
//schema:        "a_mac": {"type": ["string", "null"]}, "b_mac": {"type": ["string", "null"]},
//schema:        "found_by": {"type": "string"},
//schema:        "link_mbps": {"type": ["integer", "null"]},
//schema:        "tests": {"type": "array", "items": {"type": "object",
//schema:          "properties": {
//schema:            "path": {"type": "string"}, "from": {"type": "string"},
//schema:            "to": {"type": "string"}, "streams": {"type": "integer"},
//schema:            "mode": {"enum": ["one way", "both ways"]},
//schema:            "runs_mbps": {"type": "array", "items": {"type": "number"}},
//schema:            "min_mbps": {"type": ["number", "null"]},
//schema:            "median_mbps": {"type": ["number", "null"]},
//schema:            "max_mbps": {"type": ["number", "null"]},
//schema:            "cv_pct": {"type": ["number", "null"]},
//schema:            "extra_runs": {"type": "integer", "minimum": 0},
//schema:            "noisy": {"type": "boolean"},
//schema:            "pct_of_link": {"type": ["number", "null"]},
//schema:            "retransmits": {"type": ["integer", "null"]},
//schema:            "cpu_sender_pct": {"type": ["number", "null"]},
//schema:            "cpu_receiver_pct": {"type": ["number", "null"]},
//schema:            "cost": {"type": ["object", "null"]},
//schema:            "verdict": {"type": ["string", "null"]},
//schema:            "limit": {"type": ["string", "null"]},
//schema:            "error": {"type": "string"}
//schema:          },
//schema:          "required": ["path", "from", "to", "streams", "mode", "runs_mbps", "median_mbps"]}}
//schema:      },
//schema:      "required": ["a", "b", "found_by", "tests"]}},
//schema:    "ports": {"type": "array", "items": {"type": "object",
//schema:      "properties": {"name": {"type": "string"}, "partner": {"type": ["string", "null"]},
//schema:                     "state": {"type": "string"}, "reason": {"type": ["string", "null"]}},
//schema:      "required": ["name", "state"]}},
//schema:    "restored": {"type": "array", "items": {"type": "object"}}
//schema:  },
//schema:  "required": ["duration_s", "runs", "streams", "pairs", "ports", "restored"]
//schema:}
/* clang-format on */

#include "core/step.h"
#include "lib/util.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/ports.h"
#include "lib/stats.h"
#include "engines/net/tput.h"
#include "lib/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IPERF_PORT   5201
#define CARRIER_S    5.0 /* autonegotiation takes 2-3 s on real copper */
#define PROBE_S	     1.0 /* three rounds of probe frames */
#define DATA_VERSION 1

struct loop {
	struct ps_ctx *ctx;
	struct ps_ports ps;
	json_object *pairs, *ports;
	bool vm; /* emulated NICs report a speed they do not reach: no warning */
	int duration, runs, nstreams, streams[2];
	int max_runs; /* while the runs' CV is above noise_cv_pct: more runs, to this */
	double noise_cv_pct;
	const struct ps_port *cur_a, *cur_b; /* the pair being measured */
	double run_t0;
	uint64_t run_base;
};

static bool stop_cb(void *arg)
{
	struct loop *l = arg;

	ps_progress_set(l->ctx, l->run_base + (uint64_t)((ps_mono_now() - l->run_t0) * 1000));
	return ps_should_abort(l->ctx);
}

/* The row into tests[], its verdict and its finding. */
static void row_report(struct loop *l, json_object *tests, struct ps_tput_row *w, int link,
		       const struct ps_cost_result *cost)
{
	struct ps_tput_verdict v;
	const struct ps_noise_rule rule = {.runs = (unsigned int)l->runs,
					   .max_runs = (unsigned int)l->max_runs,
					   .cv_limit_pct = l->noise_cv_pct};
	json_object *row = ps_tput_row_json(w, link, cost, l->vm, &v);

	ps_json_set(row, "extra_runs", json_object_new_int(w->ok > l->runs ? w->ok - l->runs : 0));
	ps_json_set(row, "noisy",
		    json_object_new_boolean(ps_noise_noisy(&rule, w->mbps, (size_t)w->ok)));
	json_object_array_add(tests, row);
	if (v.measured)
		ps_examined(l->ctx, ps_port_ref(w->from == l->cur_a->name ? l->cur_a : l->cur_b),
			    "measured", "sent %.0f Mbit/s to %s (%d stream%s, %s)", v.median, w->to,
			    w->streams, w->streams == 1 ? "" : "s", w->mode);
	if (v.judged && !v.pass) {
		struct ps_finding f = {.severity = l->vm ? PS_SEV_INFO : PS_SEV_WARN,
				       .rule = v.cpu ? "cpu_bound" : "below_link",
				       .value = v.median,
				       .limit = v.limit,
				       .unit = "Mbit/s"};

		/* A CPU that could not drive the link is the machine's ceiling, not the NIC's. */
		f.dev =
		    v.cpu ? (struct ps_dev_ref){PS_DEV_MACHINE, l->ctx->inv->machine.id, "machine"}
			  : ps_port_ref(w->from == l->cur_a->name ? l->cur_a : l->cur_b);
		ps_find(l->ctx, &f, "%s", v.text);
	}
}

/* runs x (a->b, b->a one way, or both at once) at one stream count. False when aborted. */
static bool measure(struct loop *l, json_object *tests, const struct ps_port *a,
		    const struct ps_port *b, int streams, int mode, int link)
{
	struct ps_tput_row w1 = {.from = a->name, .to = b->name, .streams = streams};
	struct ps_tput_row w2 = {.from = b->name, .to = a->name, .streams = streams};
	const struct ps_port *from = mode == 1 ? b : a, *to = mode == 1 ? a : b;
	struct ps_cost cost = {.root = l->ctx->root};
	struct ps_cost_result cr;
	char phase[96];
	bool aborted = false;
	const struct ps_noise_rule rule = {.runs = (unsigned int)l->runs,
					   .max_runs = (unsigned int)l->max_runs,
					   .cv_limit_pct = l->noise_cv_pct};
	const struct ps_tput_row *lead = mode == 1 ? &w2 : &w1; /* the figure the rule watches */

	w1.mode = w2.mode = mode == 2 ? "both ways" : "one way";
	snprintf(w1.path, sizeof(w1.path), "%s -> %s", a->name, b->name);
	snprintf(w2.path, sizeof(w2.path), "%s -> %s", b->name, a->name);
	if (a->nic)
		ps_cost_watch_pci(&cost, a->nic->pci_address);
	if (b->nic)
		ps_cost_watch_pci(&cost, b->nic->pci_address);
	snprintf(phase, sizeof(phase), "%s %s %s, %d stream%s", from->name,
		 mode == 2 ? "<->" : "->", to->name, streams, streams == 1 ? "" : "s");
	ps_progress_phase(l->ctx, phase, (uint64_t)l->runs * (uint64_t)l->duration * 1000, "ms");
	ps_cost_begin(&cost);
	for (int r = 0; r < PS_TPUT_MAX_RUNS && r < l->max_runs &&
			(r < l->runs || ps_noise_more_runs(&rule, lead->mbps, (size_t)lead->ok));
	     r++) {
		struct ps_iperf_opts o = {.server_ns_fd = to->ns,
					  .client_ns_fd = from->ns,
					  .server_addr = to->addr_txt,
					  .port = IPERF_PORT,
					  .streams = streams,
					  .duration_s = l->duration,
					  .bidir = mode == 2,
					  .should_stop = stop_cb,
					  .stop_arg = l};
		struct ps_iperf_result res;
		struct ps_tput_row *w = mode == 1 ? &w2 : &w1;
		int ret;

		l->run_t0 = ps_mono_now();
		l->run_base = (uint64_t)r * (uint64_t)l->duration * 1000;
		if (r >= l->runs) /* a noisy figure gets another run: the bar grows with it */
			ps_progress_total(l->ctx, (uint64_t)(r + 1) * (uint64_t)l->duration * 1000);
		ret = ps_iperf_pair_run(&o, &res);
		if (ret == -ECANCELED || ps_should_abort(l->ctx)) {
			aborted = true;
			break;
		}
		if (ret < 0) {
			const char *e = res.error[0] ? res.error : strerror(-ret);

			ps_findf(l->ctx, PS_SEV_WARN, ps_port_ref(from), "run_failed",
				 "%s, run %d: %s", phase, r + 1, e);
			if (!w->error[0])
				snprintf(w->error, sizeof(w->error), "%s", e);
			continue;
		}
		ps_tput_row_add(w, &res, false);
		if (mode == 2)
			ps_tput_row_add(&w2, &res, true);
	}
	ps_cost_end(&cost, &cr);
	l->cur_a = a;
	l->cur_b = b;
	if (!aborted || w1.ok || w2.ok) {
		if (mode != 1)
			row_report(l, tests, &w1, link, &cr);
		if (mode != 0)
			row_report(l, tests, &w2, link, &cr);
	}
	return !aborted;
}

static void port_row(struct loop *l, const char *name, const char *partner, const char *state,
		     const char *reason)
{
	json_object *o = json_object_new_object();

	ps_json_set_str(o, "name", name);
	ps_json_set(o, "partner", partner ? json_object_new_string(partner) : NULL);
	ps_json_set_str(o, "state", state);
	ps_json_set(o, "reason", reason && reason[0] ? json_object_new_string(reason) : NULL);
	json_object_array_add(l->ports, o);
}

static bool measure_pair(struct loop *l, const struct ps_pair *pr)
{
	const struct ps_port *a = &l->ps.p[pr->a], *b = &l->ps.p[pr->b];
	json_object *o = json_object_new_object(), *tests = json_object_new_array();
	int link = a->speed > 0 && b->speed > 0 ? (a->speed < b->speed ? a->speed : b->speed) : -1;
	char amac[18] = "", bmac[18] = "";
	bool go_on = true;

	if (a->nic && a->nic->mac[0])
		snprintf(amac, sizeof(amac), "%s", a->nic->mac);
	if (b->nic && b->nic->mac[0])
		snprintf(bmac, sizeof(bmac), "%s", b->nic->mac);
	ps_json_set_str(o, "a", a->name);
	ps_json_set_str(o, "b", b->name);
	ps_json_set_str(o, "a_mac", amac);
	ps_json_set_str(o, "b_mac", bmac);
	ps_json_set_str(o, "found_by", "probe frame");
	ps_json_set(o, "link_mbps", link > 0 ? json_object_new_int(link) : NULL);
	ps_json_set(o, "tests", tests);
	json_object_array_add(l->pairs, o);
	for (int s = 0; go_on && s < l->nstreams; s++)
		for (int mode = 0; go_on && mode < 3; mode++)
			go_on = measure(l, tests, a, b, l->streams[s], mode, link);
	return go_on;
}

static void no_pairs_finding(struct loop *l, size_t with_link)
{
	size_t total = l->ctx->inv->n_nics;
	char why[160];

	if (total == 0 && l->ps.n == 0)
		snprintf(why, sizeof(why), "the inventory found no physical network port");
	else if (l->ps.n == 0)
		snprintf(why, sizeof(why), "none of the %zu port%s is free to test", total,
			 total == 1 ? "" : "s");
	else if (with_link == 0)
		snprintf(why, sizeof(why), "no port has link: cable two ports to each other");
	else if (with_link == 1)
		snprintf(why, sizeof(why),
			 "only one port has link: cable two ports to each other to measure them");
	else
		snprintf(why, sizeof(why),
			 "no port saw another's probe frame: the ports with link are cabled "
			 "elsewhere (a switch does not forward the probe)");
	ps_findf(l->ctx, PS_SEV_INFO, (struct ps_dev_ref){0}, "no_pairs",
		 "no port pairs measured: %s", why);
}

static int run(struct ps_ctx *ctx)
{
	struct loop l = {.ctx = ctx};
	json_object *data = ctx->data, *streams = json_object_new_array();
	struct ps_pair pairs[PS_PORTS_MAX / 2];
	bool reach[PS_PORTS_MAX * PS_PORTS_MAX], aborted = false, paired[PS_PORTS_MAX] = {false};
	const char *partner[PS_PORTS_MAX] = {NULL};
	size_t npairs = 0, with_link;
	int ret;

	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "moves real network ports: live system only, not with --root");
		json_object_put(streams);
		return PS_SKIPPED;
	}
	if (ctx->plan && ctx->plan->level == PS_PLAN_FULL) {
		l.duration = 10;
		l.runs = 3;
		l.max_runs = 5;
		l.noise_cv_pct = 5.0;
		l.nstreams = 2;
		l.streams[0] = 1;
		l.streams[1] = 4;
	} else {
		l.duration = 3;
		l.runs = 2;
		l.max_runs = 3;
		l.noise_cv_pct = 10.0;
		l.nstreams = 1;
		l.streams[0] = 1;
	}
	for (int s = 0; s < l.nstreams; s++)
		json_object_array_add(streams, json_object_new_int(l.streams[s]));
	l.pairs = json_object_new_array();
	l.ports = json_object_new_array();
	ps_json_set(data, "duration_s", json_object_new_int(l.duration));
	ps_json_set(data, "runs", json_object_new_int(l.runs));
	ps_json_set(data, "max_runs", json_object_new_int(l.max_runs));
	ps_json_set_num(data, "noise_cv_pct", l.noise_cv_pct, 1);
	ps_json_set(data, "streams", streams);
	ps_json_set_num(data, "pass_pct", PS_TPUT_PASS_PCT, 0);
	ps_json_set(data, "pairs", l.pairs);
	ps_json_set(data, "ports", l.ports);
	ps_json_set(data, "restored", json_object_new_array());
	l.vm = ctx->inv->machine.under_hypervisor;

	ret = ps_ports_open(&l.ps, ctx->inv, NULL, ps_json_get(data, "restored"));
	if (ret < 0)
		return ret;
	l.ps.should_stop = ps_should_abort_hook;
	l.ps.stop_arg = ctx;
	for (size_t i = 0; i < l.ps.n_left; i++) {
		struct ps_dev_ref ref =
		    l.ps.left[i].nic ? ps_nic_ref(l.ps.left[i].nic)
				     : (struct ps_dev_ref){PS_DEV_NIC, NULL, l.ps.left[i].name};

		if (l.ps.left[i].skip == PS_PORT_IN_USE)
			ps_findf(ctx, PS_SEV_INFO, ref, "in_use", "not tested: %s",
				 l.ps.left[i].why);
		port_row(&l, l.ps.left[i].name, NULL,
			 l.ps.left[i].skip == PS_PORT_IN_USE ? "in use" : "not tested",
			 l.ps.left[i].why);
	}
	aborted = !ps_ports_setup(&l.ps, CARRIER_S);
	with_link = ps_ports_with_link(&l.ps);
	if (!aborted && with_link >= 2)
		aborted = !ps_ports_probe(&l.ps, PROBE_S, reach);
	if (!aborted && with_link >= 2)
		npairs = ps_ports_pairs(&l.ps, reach, pairs);
	for (size_t k = 0; k < npairs; k++) {
		paired[pairs[k].a] = paired[pairs[k].b] = true;
		partner[pairs[k].a] = l.ps.p[pairs[k].b].name;
		partner[pairs[k].b] = l.ps.p[pairs[k].a].name;
		/* the k-th pair on 198.18.k.0/24: .1 and .2 */
		if (ps_ports_address(&l.ps, pairs[k].a, (unsigned int)k, 1) < 0 ||
		    ps_ports_address(&l.ps, pairs[k].b, (unsigned int)k, 2) < 0)
			ps_findf(ctx, PS_SEV_WARN, ps_port_ref(&l.ps.p[pairs[k].a]), "setup_failed",
				 "cannot give %s and %s their test addresses",
				 l.ps.p[pairs[k].a].name, l.ps.p[pairs[k].b].name);
	}
	for (size_t i = 0; i < l.ps.n; i++) {
		struct ps_port *p = &l.ps.p[i];

		if (p->skip == PS_PORT_SETUP) {
			ps_findf(ctx, PS_SEV_WARN, ps_port_ref(p), "setup_failed", "%s", p->why);
			port_row(&l, p->name, NULL, "not tested", p->why);
		} else if (p->skip == PS_PORT_NO_LINK) {
			ps_findf(ctx, PS_SEV_INFO, ps_port_ref(p), "no_link", "%s", p->why);
			port_row(&l, p->name, NULL, "no link", p->why);
		} else if (paired[i]) {
			port_row(&l, p->name, partner[i], "paired", NULL);
		} else if (!aborted) {
			const char *why =
			    with_link == 1
				? "has link, but it is the only port with link"
				: "has link, but no other port saw its probe frame: its cable goes "
				  "elsewhere";

			if (with_link > 1)
				ps_findf(ctx, PS_SEV_INFO, ps_port_ref(p), "no_partner", "%s", why);
			port_row(&l, p->name, NULL, "unpaired", why);
		}
	}
	if (!aborted && npairs == 0)
		no_pairs_finding(&l, with_link);
	for (size_t k = 0; !aborted && k < npairs; k++)
		aborted = !measure_pair(&l, &pairs[k]);

	ps_ports_close(&l.ps);
	for (size_t i = 0; i < l.ps.n; i++)
		if (l.ps.p[i].restore_error[0])
			ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(&l.ps.p[i]), "not_restored", "%s",
				 l.ps.p[i].restore_error);
	return aborted || l.ps.aborted ? PS_ABORTED : PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	bool full = ctx->plan && ctx->plan->level == PS_PLAN_FULL;
	size_t up = 0;

	for (size_t i = 0; i < ctx->inv->n_nics; i++)
		up += ctx->inv->nics[i].carrier == 1;
	/* each pair: 3 modes, every stream count, every run; plus carrier and probe waits */
	return (double)(up / 2) * 3 * (full ? 2 * 3 * 10 : 1 * 2 * 3) +
	       (up ? CARRIER_S + PROBE_S + 3 : 0);
}

/* ---- view ---- */

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
     .max = "/max_mbps",
     .noisy = "/noisy"},
    {.path = "/median_mbps",
     .title = "min-max",
     .fmt = PS_FMT_RANGE,
     .min = "/min_mbps",
     .max = "/max_mbps",
     .flags = PS_COL_OPTIONAL},
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
    {.path = "/cost/port_irqs_per_s",
     .title = "irq/s",
     .decimals = 0,
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_OPTIONAL},
    {.path = "/verdict", .title = "verdict", .fmt = PS_FMT_STATUS, .flags = PS_COL_MEASURED},
};

static const struct ps_col pair_cols[] = {
    {.path = "/a", .title = "port", .flags = PS_COL_KEY},
    {.path = "/b", .title = "cabled to", .flags = PS_COL_KEY},
    {.path = "/found_by", .title = "found by"},
    {.path = "/link_mbps", .title = "link", .unit = "Mb/s"},
};

static const struct ps_col port_cols[] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/state", .title = "state"},
    {.path = "/partner", .title = "partner"},
    {.path = "/reason", .title = "why", .flags = PS_COL_WIDE},
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
     .id = "throughput",
     .title = "TCP throughput port to port (median of the runs; top core: the busiest CPU)",
     .rows = "/pairs",
     .nested = "/tests",
     .cols = PS_COLS(tput_cols),
     .empty = "no port pair was measured",
     .note = "pass at 80% of the negotiated speed; a busy top core means the CPU, not the "
	     "NIC, set the ceiling; ~ still noisy after the extra runs (CV above the plan's "
	     "limit)"},
    {.kind = PS_BLOCK_TABLE,
     .id = "pairs",
     .title = "Pairs",
     .rows = "/pairs",
     .cols = PS_COLS(pair_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "ports",
     .title = "Ports",
     .rows = "/ports",
     .cols = PS_COLS(port_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "restored",
     .title = "Put back after the step",
     .rows = "/restored",
     .cols = PS_COLS(restored_cols)},
};

static const struct ps_view view = {
    .name = "nic_loop",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops nic_loop_ops = {
    .abi = PS_STEP_ABI,
    .name = "nic_loop",
    .title = "port-to-port throughput between ports cabled to each other",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 40,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_loop_ops);
