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
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "engines/measure.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/peer.h"
#include "engines/net/session.h"
#include "engines/net/tput.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DATA_VERSION 1

/* ---- the result: data{} as a struct, described once ---- */

struct port_row {
	char name[IF_NAMESIZE];
	char address[24]; /* "192.168.1.50/24" */
	char how[16];	  /* "static", "dhcp", "link-local" */
	int speed_mbps;	  /* -1 unknown */
	int mtu;
};

struct peer_result {
	int duration_s;
	struct ps_noise_rule rule;
	struct ps_peer_row *peer; /* NULL: none found */
	struct port_row *port;
	struct ps_peer_try tried[PS_PORTS_MAX];
	size_t n_tried;
	struct ps_tput_result *tests;
	size_t n_tests;
	struct ps_put_back restored[PS_PUT_BACK_MAX];
	size_t n_restored;
};

static const struct ps_field port_f[] = {
    PS_FIELD(struct port_row, name, "name"),
    PS_FIELD(struct port_row, address, "address"),
    PS_FIELD(struct port_row, how, "how"),
    PS_FIELD(struct port_row, speed_mbps, "speed_mbps", .unit = "Mbit/s", .flags = PS_FLD_NULL),
    PS_FIELD(struct port_row, mtu, "mtu", .flags = PS_FLD_NULL),
};
static const struct ps_fields port_fields = PS_FIELDS(struct port_row, port_f);

static const struct ps_field peer_f[] = {
    PS_FIELD(struct peer_result, duration_s, "duration_s", .unit = "s"),
    PS_FIELD(struct peer_result, rule.runs, "runs"),
    PS_FIELD(struct peer_result, rule.max_runs, "max_runs", .flags = PS_FLD_NEWER),
    PS_FIELD(struct peer_result, rule.cv_limit_pct, "noise_cv_pct", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NEWER),
    PS_FIELD_OBJP(struct peer_result, peer, "peer", &ps_peer_row_fields, .flags = PS_FLD_NULL),
    PS_FIELD_OBJP(struct peer_result, port, "port", &port_fields, .flags = PS_FLD_NULL),
    PS_FIELD_ARRAY(struct peer_result, tried, n_tried, "tried", &ps_peer_try_fields),
    PS_FIELD_ARRAY(struct peer_result, tests, n_tests, "tests", &ps_tput_result_fields),
    PS_FIELD_ARRAY(struct peer_result, restored, n_restored, "restored", &ps_put_back_fields),
};
static const struct ps_fields peer_fields = PS_FIELDS(struct peer_result, peer_f);

/* ---- measuring ---- */

struct peer_run {
	struct ps_ctx *ctx;
	struct peer_result *res;
	struct ps_peer_link pl;
	const struct ps_port *p; /* the port facing the peer */
	struct ps_tput_report report;
	char peer[INET_ADDRSTRLEN];
};

/* One direction (mode 0 to the peer, 1 from it) or both at once (2), run after run. */
struct direction {
	struct peer_run *r;
	int streams, mode;
	struct ps_tput_row w[2]; /* the lead direction's row; the other's when both ways */
	struct ps_measure_bar bar;
	double run_t0;
	char phase[96];
};

static bool stop_cb(void *arg)
{
	struct direction *d = arg;

	ps_measure_bar_within(&d->bar, (uint64_t)((ps_mono_now() - d->run_t0) * 1000));
	return ps_should_abort(d->r->ctx);
}

static int one_run(void *arg, unsigned int i, double *v)
{
	struct direction *d = arg;
	struct ps_iperf_opts o = {.server_ns_fd = -1,
				  .client_ns_fd = d->r->p->ns,
				  .server_addr = d->r->peer,
				  .port = d->r->pl.peer_port,
				  .streams = d->streams,
				  .duration_s = d->r->res->duration_s,
				  .reverse = d->mode == 1,
				  .bidir = d->mode == 2,
				  .should_stop = stop_cb,
				  .stop_arg = d};
	struct ps_iperf_result res;
	int ret;

	d->run_t0 = ps_mono_now();
	ret = ps_iperf_client_run(&o, &res);
	if (ret == -ECANCELED || ps_should_abort(d->r->ctx))
		return -ECANCELED;
	if (ret < 0) {
		const char *e = res.error[0] ? res.error : strerror(-ret);

		ps_findf(d->r->ctx, PS_SEV_WARN, ps_port_ref(d->r->p), "run_failed",
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

/* The rows of one mode: w[0] its lead direction (to the peer, or from it in mode 1). */
static void rows_init(struct direction *d)
{
	const char *port = d->r->p->name, *peer = d->r->peer;

	for (int k = 0; k < 2; k++) {
		bool to_peer = (k == 0) != (d->mode == 1);

		d->w[k].from = to_peer ? port : peer;
		d->w[k].to = to_peer ? peer : port;
		d->w[k].streams = d->streams;
		d->w[k].mode = d->mode == 2 ? "both ways" : "one way";
		snprintf(d->w[k].path, sizeof(d->w[k].path), "%s -> %s", d->w[k].from, d->w[k].to);
	}
	snprintf(d->phase, sizeof(d->phase), "%s, %d stream%s",
		 d->mode == 2 ? "both ways" : d->w[0].path, d->streams, d->streams == 1 ? "" : "s");
}

/* False when aborted. */
static bool measure(struct peer_run *r, int streams, int mode)
{
	struct direction d = {.r = r, .streams = streams, .mode = mode};
	struct ps_measure m = {.rule = r->res->rule,
			       .nfig = mode == 2 ? 2 : 1,
			       .run = one_run,
			       .arg = &d,
			       .progress = ps_measure_bar_hook,
			       .progress_arg = &d.bar};
	struct ps_cost cost = {.root = r->ctx->root};
	struct ps_cost_result cr;
	struct ps_figure figs[2];
	int ret;

	rows_init(&d);
	if (r->p->nic)
		ps_cost_watch_pci(&cost, r->p->nic->pci_address);
	ps_measure_bar_start(&d.bar, r->ctx, d.phase, ps_measure_planned(&m.rule),
			     (uint64_t)r->res->duration_s * 1000, "ms");
	ps_cost_begin(&cost);
	ret = ps_measure_run(&m, figs);
	ps_cost_end(&cost, &cr);
	if (ret == -ECANCELED && !figs[0].n)
		return false;
	for (unsigned int k = 0; k < m.nfig; k++)
		ps_tput_report(&r->report, &r->res->tests, &r->res->n_tests, &d.w[k], &figs[k],
			       r->p->speed, &cr, ps_port_ref(r->p));
	return ret != -ECANCELED;
}

/* What was found: the peer, the port facing it. */
static void found(struct peer_run *r)
{
	struct peer_result *res = r->res;

	res->peer = ps_fields_new(&ps_peer_row_fields, 1);
	if (res->peer)
		ps_peer_link_row(&r->pl, res->peer);
	res->port = ps_fields_new(&port_fields, 1);
	if (res->port) {
		snprintf(res->port->name, sizeof(res->port->name), "%s", r->p->name);
		snprintf(res->port->address, sizeof(res->port->address), "%s", r->pl.addr.txt);
		snprintf(res->port->how, sizeof(res->port->how), "%s", r->pl.addr.how);
		res->port->speed_mbps = r->p->speed > 0 ? r->p->speed : -1;
		res->port->mtu = (int)r->p->mtu;
	}
	inet_ntop(AF_INET, &r->pl.peer_addr, r->peer, sizeof(r->peer));
}

/* Every port back, with its rows and a fail finding for one not as it was. */
static void put_back(struct peer_run *r)
{
	struct peer_result *res = r->res;

	ps_peer_link_close(&r->pl);
	for (size_t i = 0; i < r->pl.ps.n_put_back && res->n_restored < PS_PUT_BACK_MAX; i++)
		res->restored[res->n_restored++] = r->pl.ps.put_back[i];
	for (size_t i = 0; i < r->pl.ps.n; i++)
		if (r->pl.ps.p[i].restore_error[0])
			ps_findf(r->ctx, PS_SEV_FAIL, ps_port_ref(&r->pl.ps.p[i]), "not_restored",
				 "%s", r->pl.ps.p[i].restore_error);
}

static int no_peer(struct peer_run *r)
{
	struct ps_ctx *ctx = r->ctx;

	if (ps_should_abort(ctx))
		return PS_ABORTED;
	ps_step_reason(ctx,
		       "no peer: %s (start another stick in server mode on the same segment, or "
		       "name an iperf3 server with peer= in probestick.cfg)",
		       r->pl.why);
	if (ctx->cfg && ctx->cfg->peer[0])
		ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "peer_unreachable",
			 "the peer probestick.cfg names (%s) did not answer: %s", ctx->cfg->peer,
			 r->pl.why);
	return PS_SKIPPED;
}

static int run(struct ps_ctx *ctx)
{
	struct peer_run r = {
	    .ctx = ctx,
	    .res = ctx->result,
	    .report = {.find = ps_find_figure_hook,
		       .examined = ps_examined_hook,
		       .arg = ctx,
		       .machine = {PS_DEV_MACHINE, ctx->inv->machine.id, "machine"},
		       .vm = ctx->inv->machine.under_hypervisor}};
	struct peer_result *res = r.res;
	bool full = ctx->plan && ctx->plan->level == PS_PLAN_FULL, aborted = false;
	int streams[2] = {1, 4}, ret;

	/* the plan: how long a run is, the noise rule; 1 stream (and 4 in full) */
	res->duration_s = full ? 10 : 3;
	res->rule = full ? (struct ps_noise_rule){.runs = 3, .max_runs = 5, .cv_limit_pct = 5.0}
			 : (struct ps_noise_rule){.runs = 2, .max_runs = 3, .cv_limit_pct = 10.0};
	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "moves real network ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ps_progress_phase(ctx, "finding the peer", 1, "peer");
	ret = ps_peer_link_open(&r.pl, ctx->inv, ctx->cfg ? &ctx->cfg->net_want : NULL, NULL, NULL,
				ps_should_abort_hook, ctx);
	memcpy(res->tried, r.pl.tries, r.pl.n_tries * sizeof(res->tried[0]));
	res->n_tried = r.pl.n_tries;
	json_object_put(r.pl.tried);
	if (ret < 0 || r.pl.port < 0) {
		put_back(&r);
		return ret < 0 ? ret : no_peer(&r);
	}
	r.p = &r.pl.ps.p[r.pl.port];
	found(&r);
	for (int s = 0; !aborted && s < (full ? 2 : 1); s++)
		for (int mode = 0; !aborted && mode < 3; mode++)
			aborted = !measure(&r, streams[s], mode);
	put_back(&r);
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
    PS_COL_FIGURE("mbps", "Mbit/s", "Mbit/s", 0, PS_BETTER_HIGHER, PS_COL_HEADLINE),
    PS_COL_FIGURE_RANGE("mbps", 0),
    PS_TPUT_COLS,
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
     .note = "pass at 80% of this port's negotiated speed; " PS_FIGURE_NOTE},
    PS_NIC_RESTORED_BLOCK,
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
    .result = &peer_fields,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_peer_ops);
