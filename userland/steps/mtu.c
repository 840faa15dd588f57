/*
 * mtu.c - the largest IPv4 packet that crosses each path unfragmented (DF,
 * a binary search, timeouts for silent drops), in each direction where the
 * far end runs probestick: between cabled ports, and to a peer. Seed 003
 * found by hand (`ping -f -l SIZE`) that a driver's jumbo setting of 4088
 * gave a real MTU of 4074 (payload 4046) while the other end said 4088:
 * this step finds such a mismatch unattended.
 */
/* clang-format off */
//config:config STEP_MTU
//config:	bool "mtu: path MTU (jumbo frames) between cabled ports and to a peer"
//config:	default y
//config:	help
//config:	  Sets each tested port's MTU as mtu= in probestick.cfg says
//config:	  (default: the driver's largest), then finds the largest packet
//config:	  that crosses unfragmented with DF datagrams and a binary
//config:	  search, both ways where the far end runs probestick (a cabled
//config:	  port of this machine, a stick in server mode), forward only by
//config:	  ICMP echo otherwise. Reports when the two ends' MTUs disagree.
//config:	  Every MTU goes back as it was.
//kbuild:step-$(CONFIG_STEP_MTU) += mtu.o
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "lib/util.h"
#include "hw/port_use.h"
#include "engines/net/peer.h"
#include "engines/net/pmtu.h"
#include "engines/net/ports.h"
#include "engines/net/session.h"
#include "lib/json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CARRIER_S    5.0
#define DATA_VERSION 1
#define MAX_PATHS    (PS_PORTS_MAX / 2 + 1)

/* ---- the result: data{} as a struct, described once ---- */

struct path_row {
	char path[96];
	int kind; /* 0 port to port, 1 peer */
	char from[IF_NAMESIZE], to[INET_ADDRSTRLEN + IF_NAMESIZE];
	int method; /* 0 UDP both ways, 1 ICMP forward only */
	int mtu_here, mtu_there, forward_mtu, reverse_mtu, path_mtu, payload; /* -1 unknown */
	ps_tri mismatch;
	int probes;
	double rtt_ms;
	char error[160];
};

struct mtu_result {
	char target_mtu[16];
	struct path_row paths[MAX_PATHS];
	size_t n_paths;
	json_object *peer;  /* ps_peer_link_json */
	json_object *tried; /* the peer search's rows */
	struct ps_put_back restored[PS_PUT_BACK_MAX];
	size_t n_restored;
};

static const char *const kind_names[] = {"port to port", "peer", NULL};
static const char *const method_names[] = {"UDP echo, DF, both ways",
					   "ICMP echo, DF (forward only)", NULL};

static const struct ps_field path_f[] = {
    PS_FIELD(struct path_row, path, "path"),
    PS_FIELD_ENUM(struct path_row, kind, "kind", kind_names),
    PS_FIELD(struct path_row, from, "from"),
    PS_FIELD(struct path_row, to, "to"),
    PS_FIELD_ENUM(struct path_row, method, "method", method_names),
    PS_FIELD(struct path_row, mtu_here, "mtu_here", .unit = "bytes", .flags = PS_FLD_NULL),
    PS_FIELD(struct path_row, mtu_there, "mtu_there", .unit = "bytes", .flags = PS_FLD_NULL),
    PS_FIELD(struct path_row, forward_mtu, "forward_mtu", .unit = "bytes", .flags = PS_FLD_NULL),
    PS_FIELD(struct path_row, reverse_mtu, "reverse_mtu", .unit = "bytes", .flags = PS_FLD_NULL),
    PS_FIELD(struct path_row, path_mtu, "path_mtu", .unit = "bytes", .flags = PS_FLD_NULL),
    PS_FIELD(struct path_row, payload, "payload", .unit = "bytes", .flags = PS_FLD_NULL),
    PS_FIELD(struct path_row, mismatch, "mismatch"),
    PS_FIELD(struct path_row, probes, "probes"),
    PS_FIELD(struct path_row, rtt_ms, "rtt_ms", .unit = "ms", .decimals = 2, .flags = PS_FLD_NULL),
    PS_FIELD(struct path_row, error, "error", .flags = PS_FLD_OMIT),
};
static const struct ps_fields path_fields = PS_FIELDS(struct path_row, path_f);

static const struct ps_field mtu_f[] = {
    PS_FIELD(struct mtu_result, target_mtu, "target_mtu", .help = "mtu=: max, as_is or a number"),
    PS_FIELD_ARRAY(struct mtu_result, paths, n_paths, "paths", &path_fields),
    PS_FIELD(struct mtu_result, peer, "peer", .schema = "{\"type\": \"object\"}",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct mtu_result, tried, "tried",
	     .schema = "{\"type\": \"array\", \"items\": {\"type\": \"object\"}}",
	     .flags = PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct mtu_result, restored, n_restored, "restored", &ps_put_back_fields),
};
static const struct ps_fields mtu_fields = PS_FIELDS(struct mtu_result, mtu_f);

/* What ports' closing put back, after what is there. */
static void put_back(struct ps_ctx *ctx, struct mtu_result *res, const struct ps_ports *ps)
{
	for (size_t i = 0; i < ps->n_put_back && res->n_restored < PS_PUT_BACK_MAX; i++)
		res->restored[res->n_restored++] = ps->put_back[i];
	for (size_t i = 0; i < ps->n; i++)
		if (ps->p[i].restore_error[0])
			ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(&ps->p[i]), "not_restored", "%s",
				 ps->p[i].restore_error);
}

/* The MTU mtu= asks of a port: the driver's largest, as it is, or a number (capped). */
static int target(const struct ps_ctx *ctx, const struct ps_port *p)
{
	int mode = ctx->cfg ? ctx->cfg->net_want.mtu : -1;
	int max = p->nic && p->nic->max_mtu > 0 ? p->nic->max_mtu : -1;

	if (mode == 0)
		return (int)p->mtu;
	if (mode < 0)
		return max > 0 ? max : (int)p->mtu;
	return max > 0 && mode > max ? max : mode;
}

static void raise_mtu(struct ps_ctx *ctx, struct ps_ports *ps, size_t i)
{
	struct ps_port *p = &ps->p[i];
	int want = target(ctx, p), ret;

	if (want <= 0 || (unsigned int)want == p->mtu)
		return;
	ret = ps_ports_set_mtu(ps, i, (unsigned int)want);
	if (ret < 0)
		ps_findf(ctx, PS_SEV_INFO, ps_port_ref(p), "mtu_refused",
			 "%s refused MTU %d (%s): tested at %u", p->name, want, strerror(-ret),
			 p->mtu);
}

/* The path's row: what each way took, and the path's (the smaller way). */
static struct path_row *path_row(struct mtu_result *res, int kind, const char *from, const char *to,
				 const struct ps_port *p, int mtu_there, bool icmp,
				 const struct ps_pmtu_result *r, int ret)
{
	struct path_row *o;
	int fwd = r->forward_mtu, rev = r->reverse_mtu;
	int pm = fwd > 0 && rev > 0 ? (fwd < rev ? fwd : rev) : fwd > 0 ? fwd : rev;

	if (res->n_paths >= MAX_PATHS)
		return NULL;
	o = &res->paths[res->n_paths++];
	snprintf(o->path, sizeof(o->path), "%s <-> %s", from, to);
	o->kind = kind;
	snprintf(o->from, sizeof(o->from), "%s", from);
	snprintf(o->to, sizeof(o->to), "%s", to);
	o->method = icmp;
	o->mtu_here = (int)p->mtu;
	o->mtu_there = mtu_there > 0 ? mtu_there : PS_UNKNOWN;
	o->forward_mtu = fwd > 0 ? fwd : PS_UNKNOWN;
	o->reverse_mtu = rev > 0 ? rev : PS_UNKNOWN;
	o->path_mtu = pm > 0 ? pm : PS_UNKNOWN;
	o->payload = pm > 0 ? pm - PS_PMTU_HEADERS : PS_UNKNOWN;
	if (pm > 0 && (mtu_there > 0 || rev > 0))
		o->mismatch = (mtu_there > 0 && mtu_there != o->mtu_here) ||
			      (fwd > 0 && rev > 0 && fwd != rev);
	o->probes = r->probes;
	o->rtt_ms = r->rtt_ms >= 0 ? r->rtt_ms : NAN;
	if (ret < 0)
		snprintf(o->error, sizeof(o->error), "%s", r->error);
	return o;
}

/* One path's row and its findings. */
static void report(struct ps_ctx *ctx, struct mtu_result *res, int kind, const char *from,
		   const char *to, const struct ps_port *p, int mtu_there, bool icmp,
		   const struct ps_pmtu_result *r, int ret)
{
	const struct path_row *o = path_row(res, kind, from, to, p, mtu_there, icmp, r, ret);
	int here = (int)p->mtu, pm, low = here;

	if (!o)
		return;
	if (ret < 0 && ret != -ECANCELED) {
		ps_findf(ctx, PS_SEV_WARN, ps_port_ref(p), "no_answer", "%s: %s", o->path,
			 r->error);
		return;
	}
	pm = o->path_mtu;
	if (pm <= 0)
		return;
	ps_examined(ctx, ps_port_ref(p), "measured", "%s: path MTU %d (payload %d)", o->path, pm,
		    o->payload);
	if (o->mismatch == 1) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = ps_port_ref(p),
				       .rule = "mismatch",
				       .value = pm,
				       .limit = here,
				       .unit = "bytes"};
		char ends[96] = "", back[16] = "unknown";

		if (mtu_there > 0)
			snprintf(ends, sizeof(ends), "%s has MTU %d, %s %d; ", from, here, to,
				 mtu_there);
		if (o->reverse_mtu > 0)
			snprintf(back, sizeof(back), "%d", o->reverse_mtu);
		ps_find(ctx, &f,
			"%s: the two ends disagree: %s%d bytes cross %s -> %s, %s back; the path "
			"takes %d (payload %d, what ping -M do -s %d gets through): set both ends "
			"to %d",
			o->path, ends, o->forward_mtu, from, to, back, pm, o->payload, o->payload,
			pm);
	}
	if (mtu_there > 0 && mtu_there < low)
		low = mtu_there;
	if (pm < low) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = ps_port_ref(p),
				       .rule = "below_ends",
				       .value = pm,
				       .limit = low,
				       .unit = "bytes"};

		ps_find(ctx, &f,
			"%s: both ends take %d but only %d crosses: something between them "
			"(a switch, a media converter) does not pass frames that large",
			o->path, low, pm);
	}
}

/* The ports the pairs phase cannot measure, and why; the peer phase may measure one yet. */
static void not_paired(struct ps_ctx *ctx, const struct ps_ports *ps, const struct ps_pair *pairs,
		       size_t npairs)
{
	for (size_t i = 0; i < ps->n_left; i++)
		ps_not_tested(ctx,
			      ps->left[i].nic
				  ? ps_nic_ref(ps->left[i].nic)
				  : (struct ps_dev_ref){PS_DEV_NIC, NULL, ps->left[i].name},
			      "%s", ps->left[i].why);
	for (size_t i = 0; i < ps->n; i++) {
		bool paired = false;

		for (size_t k = 0; k < npairs; k++)
			paired = paired || pairs[k].a == i || pairs[k].b == i;
		if (!paired)
			ps_not_tested(ctx, ps_port_ref(&ps->p[i]), "%s",
				      ps->p[i].why[0] ? ps->p[i].why
						      : "no other port saw its probe frame: no "
							"cabled partner, and no peer answered");
	}
}

static bool pairs_phase(struct ps_ctx *ctx, struct mtu_result *res)
{
	struct ps_ports ps;
	struct ps_pair pairs[PS_PORTS_MAX / 2];
	bool reach[PS_PORTS_MAX * PS_PORTS_MAX], aborted = false;
	size_t npairs = 0;

	if (ps_ports_open(&ps, ctx->inv, NULL, NULL) < 0)
		return true;
	ps.should_stop = ps_should_abort_hook;
	ps.stop_arg = ctx;
	aborted = !ps_ports_setup(&ps, CARRIER_S);
	if (!aborted && ps_ports_with_link(&ps) >= 2) {
		aborted = !ps_ports_probe(&ps, 1.0, reach);
		if (!aborted)
			npairs = ps_ports_pairs(&ps, reach, pairs);
	}
	not_paired(ctx, &ps, pairs, npairs);
	for (size_t k = 0; !aborted && k < npairs; k++) {
		size_t ia = pairs[k].a, ib = pairs[k].b;
		struct ps_port *a = &ps.p[ia], *b = &ps.p[ib];
		struct ps_pmtu_result r;
		struct ps_echo_thread *th;
		int efd, ret;
		char phase[64];

		raise_mtu(ctx, &ps, ia);
		raise_mtu(ctx, &ps, ib);
		if (ps_ports_address(&ps, ia, (unsigned int)k, 1) < 0 ||
		    ps_ports_address(&ps, ib, (unsigned int)k, 2) < 0)
			continue;
		snprintf(phase, sizeof(phase), "%s <-> %s", a->name, b->name);
		ps_progress_phase(ctx, phase, 1, "paths");
		efd = ps_echo_socket(b->ns, PS_ECHO_PORT);
		th = efd >= 0 ? ps_echo_thread_start(efd) : NULL;
		{
			struct ps_pmtu_opts o = {.ns_fd = a->ns,
						 .dest = b->addr,
						 .local_mtu = (int)a->mtu,
						 .should_stop = ps_should_abort_hook,
						 .stop_arg = ctx};

			/* the link comes back after an MTU change: give the first probe time */
			ret = ps_pmtu_run(&o, &r);
		}
		ps_echo_thread_stop(th);
		if (efd >= 0)
			close(efd);
		if (ret == -ECANCELED)
			aborted = true;
		report(ctx, res, 0, a->name, b->name, a, (int)b->mtu, false, &r, ret);
	}
	ps_ports_close(&ps);
	put_back(ctx, res, &ps);
	return !aborted;
}

static bool peer_phase(struct ps_ctx *ctx, struct mtu_result *res)
{
	struct ps_peer_link pl;
	bool aborted = false;
	int ret;

	ps_progress_phase(ctx, "finding the peer", 1, "peer");
	ret = ps_peer_link_open(&pl, ctx->inv, ctx->cfg ? &ctx->cfg->net_want : NULL, NULL, NULL,
				ps_should_abort_hook, ctx);
	res->tried = pl.tried;
	pl.tried = NULL;
	if (ret == 0 && pl.port >= 0) {
		struct ps_port *p = &pl.ps.p[pl.port];
		struct ps_pmtu_result r;
		char to[INET_ADDRSTRLEN];
		bool icmp = !pl.peer.probestick || pl.peer.echo_port <= 0;

		res->peer = ps_peer_link_json(&pl);
		raise_mtu(ctx, &pl.ps, (size_t)pl.port);
		inet_ntop(AF_INET, &pl.peer_addr, to, sizeof(to));
		ps_progress_phase(ctx, to, 1, "paths");
		{
			struct ps_pmtu_opts o = {.ns_fd = p->ns,
						 .dest = pl.peer_addr,
						 .port = icmp ? 0 : pl.peer.echo_port,
						 .icmp = icmp,
						 .local_mtu = (int)p->mtu,
						 .should_stop = ps_should_abort_hook,
						 .stop_arg = ctx};

			ret = ps_pmtu_run(&o, &r);
		}
		if (ret == -ECANCELED)
			aborted = true;
		/* The echo service says its own MTU; discovery said it too. */
		report(ctx, res, 1, p->name, to, p, r.peer_mtu > 0 ? r.peer_mtu : pl.peer.mtu, icmp,
		       &r, ret);
	}
	ps_peer_link_close(&pl);
	put_back(ctx, res, &pl.ps);
	return !aborted;
}

static int run(struct ps_ctx *ctx)
{
	struct mtu_result *res = ctx->result;
	bool go_on;

	snprintf(res->target_mtu, sizeof(res->target_mtu), "%s",
		 ctx->cfg && ctx->cfg->mtu[0] ? ctx->cfg->mtu : "max");
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
	go_on = pairs_phase(ctx, res);
	if (go_on)
		go_on = peer_phase(ctx, res);
	if (!go_on)
		return PS_ABORTED;
	if (res->n_paths == 0) {
		/* nothing measured is never a pass (docs/rules.md, "Measured or not") */
		ps_findf(ctx, PS_SEV_INFO, (struct ps_dev_ref){0}, "no_path",
			 "no path measured: no two ports are cabled to each other and no peer "
			 "answered");
		ps_step_reason(ctx, "no path measured: no two ports are cabled to each other and "
				    "no peer answered");
		return PS_SKIPPED;
	}
	return PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	return 2 * CARRIER_S + 10;
}

/* ---- view ---- */

static const struct ps_col path_cols[] = {
    {.path = "/path", .title = "path", .flags = PS_COL_KEY},
    {.path = "/mtu_here", .title = "mtu here"},
    {.path = "/mtu_there", .title = "there"},
    {.path = "/forward_mtu", .title = "out"},
    {.path = "/reverse_mtu", .title = "back"},
    {.path = "/path_mtu",
     .title = "path mtu",
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/payload", .title = "payload"},
    {.path = "/mismatch", .title = "mismatch", .fmt = PS_FMT_BOOL},
};

static const struct ps_col method_cols[] = {
    {.path = "/path", .title = "path", .flags = PS_COL_KEY},
    {.path = "/method", .title = "method"},
    {.path = "/probes", .title = "probes", .flags = PS_COL_MEASURED},
    {.path = "/rtt_ms", .title = "rtt", .unit = "ms", .decimals = 2, .better = PS_BETTER_LOWER},
    {.path = "/error", .title = "error", .flags = PS_COL_WIDE},
};

static const struct ps_col tried_cols[] = {
    {.path = "/port", .title = "port", .flags = PS_COL_KEY},
    {.path = "/address", .title = "address"},
    {.path = "/result", .title = "looking for a peer", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "paths",
     .title = "Largest packet that crosses unfragmented (bytes of IPv4)",
     .rows = "/paths",
     .cols = PS_COLS(path_cols),
     .empty = "no path measured",
     .note = "payload = path MTU - 28: what `ping -M do -s` (Windows: ping -f -l) takes"},
    {.kind = PS_BLOCK_TABLE, .id = "methods", .rows = "/paths", .cols = PS_COLS(method_cols)},
    {.kind = PS_BLOCK_TABLE, .id = "tried", .rows = "/tried", .cols = PS_COLS(tried_cols)},
    PS_NIC_RESTORED_BLOCK,
};

static const struct ps_view view = {
    .name = "mtu",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops mtu_ops = {
    .abi = PS_STEP_ABI,
    .name = "mtu",
    .title = "path MTU (jumbo frames) between cabled ports and to a peer",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 55,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &mtu_fields,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(mtu_ops);
