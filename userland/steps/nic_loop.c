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
/* clang-format on */

#include "core/step.h"
#include "engines/measure.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/session.h"
#include "engines/net/tput.h"
#include "hw/port_use.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define IPERF_PORT   5201
#define CARRIER_S    5.0 /* autonegotiation takes 2-3 s on real copper */
#define PROBE_S	     1.0 /* three rounds of probe frames */
#define DATA_VERSION 1

/* ---- the result: data{} as a struct, described once ---- */

struct pair_result {
	char a[IF_NAMESIZE], b[IF_NAMESIZE];
	char a_mac[18], b_mac[18]; /* "" unknown */
	const char *found_by;
	int link_mbps; /* -1 unknown */
	struct ps_tput_result *tests;
	size_t n_tests;
};

struct loop_result {
	int duration_s;
	struct ps_noise_rule rule;
	double streams[2];
	size_t n_streams;
	double pass_pct;
	struct pair_result *pairs;
	size_t n_pairs;
	struct ps_port_state ports[PS_PORTS_MAX * 2];
	size_t n_ports;
	struct ps_put_back restored[PS_PUT_BACK_MAX];
	size_t n_restored;
};

static const struct ps_field pair_f[] = {
    PS_FIELD(struct pair_result, a, "a"),
    PS_FIELD(struct pair_result, b, "b"),
    PS_FIELD(struct pair_result, a_mac, "a_mac", .flags = PS_FLD_NULL),
    PS_FIELD(struct pair_result, b_mac, "b_mac", .flags = PS_FLD_NULL),
    PS_FIELD(struct pair_result, found_by, "found_by"),
    PS_FIELD(struct pair_result, link_mbps, "link_mbps", .unit = "Mbit/s", .flags = PS_FLD_NULL),
    PS_FIELD_ARRAY(struct pair_result, tests, n_tests, "tests", &ps_tput_result_fields),
};
static const struct ps_fields pair_fields = PS_FIELDS(struct pair_result, pair_f);

static const struct ps_field loop_f[] = {
    PS_FIELD(struct loop_result, duration_s, "duration_s", .unit = "s"),
    PS_FIELD(struct loop_result, rule.runs, "runs"),
    PS_FIELD(struct loop_result, rule.max_runs, "max_runs", .flags = PS_FLD_NEWER),
    PS_FIELD(struct loop_result, rule.cv_limit_pct, "noise_cv_pct", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NEWER),
    PS_FIELD_NUMS(struct loop_result, streams, n_streams, "streams"),
    PS_FIELD(struct loop_result, pass_pct, "pass_pct", .unit = "%"),
    PS_FIELD_ARRAY(struct loop_result, pairs, n_pairs, "pairs", &pair_fields),
    PS_FIELD_ARRAY(struct loop_result, ports, n_ports, "ports", &ps_port_state_fields),
    PS_FIELD_ARRAY(struct loop_result, restored, n_restored, "restored", &ps_put_back_fields),
};
static const struct ps_fields loop_fields = PS_FIELDS(struct loop_result, loop_f);

/* ---- measuring ---- */

struct loop {
	struct ps_ctx *ctx;
	struct loop_result *res;
	struct ps_nic_session s;
	bool vm; /* emulated NICs report a speed they do not reach: no warning */
};

/* One direction (or both at once) at one stream count, run after run. */
struct direction {
	struct loop *l;
	const struct ps_port *from, *to;
	int streams, mode; /* 0 a->b, 1 b->a, 2 both ways */
	struct ps_tput_row w[2];
	struct ps_measure_bar bar;
	double run_t0;
	char phase[96];
};

static bool stop_cb(void *arg)
{
	struct direction *d = arg;

	ps_measure_bar_within(&d->bar, (uint64_t)((ps_mono_now() - d->run_t0) * 1000));
	return ps_should_abort(d->l->ctx);
}

/* One iperf run: v[0] the lead direction's Mbit/s, v[1] the other's when both ways. */
static int one_run(void *arg, unsigned int i, double *v)
{
	struct direction *d = arg;
	struct ps_iperf_opts o = {.server_ns_fd = d->to->ns,
				  .client_ns_fd = d->from->ns,
				  .server_addr = d->to->addr_txt,
				  .port = IPERF_PORT,
				  .streams = d->streams,
				  .duration_s = d->l->res->duration_s,
				  .bidir = d->mode == 2,
				  .should_stop = stop_cb,
				  .stop_arg = d};
	struct ps_iperf_result res;
	int ret;

	d->run_t0 = ps_mono_now();
	ret = ps_iperf_pair_run(&o, &res);
	if (ret == -ECANCELED || ps_should_abort(d->l->ctx))
		return -ECANCELED;
	if (ret < 0) {
		const char *e = res.error[0] ? res.error : strerror(-ret);

		ps_findf(d->l->ctx, PS_SEV_WARN, ps_port_ref(d->from), "run_failed",
			 "%s, run %u: %s", d->phase, i + 1, e);
		if (!d->w[0].error[0])
			snprintf(d->w[0].error, sizeof(d->w[0].error), "%s", e);
		return PS_MEASURE_NO_FIGURE;
	}
	ps_tput_row_add(&d->w[0], &res, false);
	v[0] = res.mbps;
	if (d->mode == 2) {
		ps_tput_row_add(&d->w[1], &res, true);
		v[1] = res.rev_mbps;
	}
	return 0;
}

/* A measured row into the pair's tests, with its verdict and finding. */
static void row_report(struct direction *d, struct pair_result *pr, const struct ps_tput_row *w,
		       const struct ps_figure *fig, const struct ps_port *from,
		       const struct ps_cost_result *cost)
{
	struct loop *l = d->l;
	struct ps_tput_result *t = ps_fields_grow(&ps_tput_result_fields, &pr->tests, &pr->n_tests);
	struct ps_tput_verdict v;

	if (!t)
		return;
	ps_tput_judge(w, fig, pr->link_mbps, cost, l->vm, t, &v);
	if (v.measured)
		ps_examined(l->ctx, ps_port_ref(from), "measured",
			    "sent %.0f Mbit/s to %s (%d stream%s, %s)", v.median, w->to, w->streams,
			    w->streams == 1 ? "" : "s", w->mode);
	if (v.judged && !v.pass) {
		struct ps_finding f = {.severity = l->vm ? PS_SEV_INFO : PS_SEV_WARN,
				       .rule = v.cpu ? "cpu_bound" : "below_link",
				       .value = v.median,
				       .limit = v.limit,
				       .unit = "Mbit/s"};

		/* A CPU that could not drive the link is the machine's ceiling, not the NIC's. */
		f.dev =
		    v.cpu ? (struct ps_dev_ref){PS_DEV_MACHINE, l->ctx->inv->machine.id, "machine"}
			  : ps_port_ref(from);
		ps_find(l->ctx, &f, "%s", v.text);
	}
}

/* The runs of one direction (mode 0 a->b, 1 b->a) or both at once (2). False when aborted. */
static bool measure(struct loop *l, struct pair_result *pr, const struct ps_port *a,
		    const struct ps_port *b, int streams, int mode)
{
	struct direction d = {.l = l,
			      .from = mode == 1 ? b : a,
			      .to = mode == 1 ? a : b,
			      .streams = streams,
			      .mode = mode};
	struct ps_measure m = {.rule = l->res->rule,
			       .nfig = mode == 2 ? 2 : 1,
			       .run = one_run,
			       .arg = &d, /* one_run and its iperf poll the abort themselves */
			       .progress = ps_measure_bar_hook,
			       .progress_arg = &d.bar};
	struct ps_cost cost = {.root = l->ctx->root};
	struct ps_cost_result cr;
	struct ps_figure figs[2];
	int ret;

	for (int k = 0; k < 2; k++) {
		d.w[k].from = k ? d.to->name : d.from->name;
		d.w[k].to = k ? d.from->name : d.to->name;
		d.w[k].streams = streams;
		d.w[k].mode = mode == 2 ? "both ways" : "one way";
		snprintf(d.w[k].path, sizeof(d.w[k].path), "%s -> %s", d.w[k].from, d.w[k].to);
	}
	if (a->nic)
		ps_cost_watch_pci(&cost, a->nic->pci_address);
	if (b->nic)
		ps_cost_watch_pci(&cost, b->nic->pci_address);
	snprintf(d.phase, sizeof(d.phase), "%s %s %s, %d stream%s", d.from->name,
		 mode == 2 ? "<->" : "->", d.to->name, streams, streams == 1 ? "" : "s");
	ps_measure_bar_start(&d.bar, l->ctx, d.phase, ps_measure_planned(&m.rule),
			     (uint64_t)l->res->duration_s * 1000, "ms");
	ps_cost_begin(&cost);
	ret = ps_measure_run(&m, figs);
	ps_cost_end(&cost, &cr);
	if (ret == -ECANCELED && !figs[0].n)
		return false;
	row_report(&d, pr, &d.w[0], &figs[0], d.from, &cr);
	if (mode == 2)
		row_report(&d, pr, &d.w[1], &figs[1], d.to, &cr);
	return ret != -ECANCELED;
}

static bool measure_pair(struct loop *l, const struct ps_pair *pp)
{
	const struct ps_port *a = &l->s.ps.p[pp->a], *b = &l->s.ps.p[pp->b];
	struct pair_result *pr = ps_fields_grow(&pair_fields, &l->res->pairs, &l->res->n_pairs);
	bool go_on = true;

	if (!pr)
		return true;
	snprintf(pr->a, sizeof(pr->a), "%s", a->name);
	snprintf(pr->b, sizeof(pr->b), "%s", b->name);
	snprintf(pr->a_mac, sizeof(pr->a_mac), "%s", a->nic ? a->nic->mac : "");
	snprintf(pr->b_mac, sizeof(pr->b_mac), "%s", b->nic ? b->nic->mac : "");
	pr->found_by = "probe frame";
	pr->link_mbps =
	    a->speed > 0 && b->speed > 0 ? (a->speed < b->speed ? a->speed : b->speed) : -1;
	for (size_t s = 0; go_on && s < l->res->n_streams; s++)
		for (int mode = 0; go_on && mode < 3; mode++)
			go_on = measure(l, pr, a, b, (int)l->res->streams[s], mode);
	return go_on;
}

static int run(struct ps_ctx *ctx)
{
	struct loop l = {.ctx = ctx, .res = ctx->result};
	struct loop_result *r = l.res;
	bool full = ctx->plan && ctx->plan->level == PS_PLAN_FULL;
	const struct ps_nic_session_opts so = {.carrier_s = CARRIER_S,
					       .probe_s = PROBE_S,
					       .find = ps_find_hook,
					       .not_tested = ps_not_tested_hook,
					       .find_arg = ctx,
					       .should_stop = ps_should_abort_hook,
					       .stop_arg = ctx};
	bool aborted;
	int ret;

	/* the plan: how long a run is, how many, the noise rule; 1 stream (and 4 in full) */
	r->duration_s = full ? 10 : 3;
	r->rule = full ? (struct ps_noise_rule){.runs = 3, .max_runs = 5, .cv_limit_pct = 5.0}
		       : (struct ps_noise_rule){.runs = 2, .max_runs = 3, .cv_limit_pct = 10.0};
	r->streams[r->n_streams++] = 1;
	if (full)
		r->streams[r->n_streams++] = 4;
	r->pass_pct = PS_TPUT_PASS_PCT;
	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "moves real network ports: live system only, not with --root");
		for (size_t i = 0; i < ctx->inv->n_nics; i++) {
			char why[200];

			ps_not_tested(ctx, ps_nic_ref(&ctx->inv->nics[i]), "%s",
				      ps_port_root_untested(ctx->root, ctx->inv->nics[i].name, why,
							    sizeof(why)));
		}
		return PS_SKIPPED;
	}
	l.vm = ctx->inv->machine.under_hypervisor;
	ret = ps_nic_session_open(&l.s, ctx->inv, &so);
	if (ret < 0)
		return ret;
	if (l.s.no_pairs[0])
		ps_step_reason(ctx, "no port pair measured: %s", l.s.no_pairs);
	aborted = l.s.aborted;
	for (size_t k = 0; !aborted && k < l.s.npairs; k++)
		aborted = !measure_pair(&l, &l.s.pairs[k]);
	ps_nic_session_close(&l.s, r->restored, &r->n_restored, PS_PUT_BACK_MAX);
	memcpy(r->ports, l.s.states, l.s.n_states * sizeof(r->ports[0]));
	r->n_ports = l.s.n_states;
	if (aborted || l.s.aborted)
		return PS_ABORTED;
	/* nothing measured is never a pass (docs/rules.md, "Measured or not"); a port not
	 * restored still fails the step */
	return l.s.npairs || l.s.unrestored ? PS_PASS : PS_SKIPPED;
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
    PS_COL_FIGURE("mbps", "Mbit/s", "Mbit/s", 0, PS_BETTER_HIGHER, PS_COL_HEADLINE),
    PS_COL_FIGURE_RANGE("mbps", 0),
    PS_TPUT_COLS,
};

static const struct ps_col pair_cols[] = {
    {.path = "/a", .title = "port", .flags = PS_COL_KEY},
    {.path = "/b", .title = "cabled to", .flags = PS_COL_KEY},
    {.path = "/found_by", .title = "found by"},
    {.path = "/link_mbps", .title = "link", .unit = "Mb/s"},
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
	     "NIC, set the ceiling; " PS_FIGURE_NOTE},
    {.kind = PS_BLOCK_TABLE,
     .id = "pairs",
     .title = "Pairs",
     .rows = "/pairs",
     .cols = PS_COLS(pair_cols)},
    PS_NIC_PORTS_BLOCK,
    PS_NIC_RESTORED_BLOCK,
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
    .result = &loop_fields,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_loop_ops);
