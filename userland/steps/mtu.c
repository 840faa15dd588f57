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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "target_mtu": {"type": "string"},
//schema:    "paths": {"type": "array", "items": {"type": "object",
//schema:      "properties": {
//schema:        "path": {"type": "string"}, "kind": {"enum": ["port to port", "peer"]},
//schema:        "from": {"type": "string"}, "to": {"type": "string"},
//schema:        "method": {"type": "string"},
//schema:        "mtu_here": {"type": ["integer", "null"]},
//schema:        "mtu_there": {"type": ["integer", "null"]},
//schema:        "forward_mtu": {"type": ["integer", "null"]},
//schema:        "reverse_mtu": {"type": ["integer", "null"]},
//schema:        "path_mtu": {"type": ["integer", "null"]},
//schema:        "payload": {"type": ["integer", "null"]},
//schema:        "mismatch": {"type": ["boolean", "null"]},
//schema:        "probes": {"type": "integer"},
//schema:        "rtt_ms": {"type": ["number", "null"]},
//schema:        "error": {"type": "string"}
//schema:      },
//schema:      "required": ["path", "kind", "method", "path_mtu", "payload"]}},
//schema:    "peer": {"type": ["object", "null"]},
//schema:    "tried": {"type": "array", "items": {"type": "object"}},
//schema:    "restored": {"type": "array", "items": {"type": "object"}}
//schema:  },
//schema:  "required": ["target_mtu", "paths", "restored"]
//schema:}
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "lib/util.h"
#include "hw/port_use.h"
#include "engines/net/peer.h"
#include "engines/net/pmtu.h"
#include "engines/net/ports.h"
#include "lib/json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CARRIER_S    5.0
#define DATA_VERSION 1

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

/* One path's row and its findings. */
static void report(struct ps_ctx *ctx, json_object *paths, const char *kind, const char *from,
		   const char *to, const struct ps_port *p, int mtu_there, bool icmp,
		   const struct ps_pmtu_result *r, int ret)
{
	json_object *o = json_object_new_object();
	char path[96];
	int fwd = r->forward_mtu, rev = r->reverse_mtu, here = (int)p->mtu;
	int pm = fwd > 0 && rev > 0 ? (fwd < rev ? fwd : rev) : fwd > 0 ? fwd : rev;
	bool ends_differ = mtu_there > 0 && mtu_there != here;
	bool ways_differ = fwd > 0 && rev > 0 && fwd != rev;

	snprintf(path, sizeof(path), "%s <-> %s", from, to);
	ps_json_set_str(o, "path", path);
	ps_json_set_str(o, "kind", kind);
	ps_json_set_str(o, "from", from);
	ps_json_set_str(o, "to", to);
	ps_json_set_str(o, "method",
			icmp ? "ICMP echo, DF (forward only)" : "UDP echo, DF, both ways");
	ps_json_set_count(o, "mtu_here", here);
	ps_json_set_count(o, "mtu_there", mtu_there > 0 ? mtu_there : PS_UNKNOWN);
	ps_json_set_count(o, "forward_mtu", fwd);
	ps_json_set_count(o, "reverse_mtu", rev);
	ps_json_set_count(o, "path_mtu", pm > 0 ? pm : PS_UNKNOWN);
	ps_json_set_count(o, "payload", pm > 0 ? pm - PS_PMTU_HEADERS : PS_UNKNOWN);
	ps_json_set(o, "mismatch",
		    pm > 0 && (mtu_there > 0 || rev > 0)
			? json_object_new_boolean(ends_differ || ways_differ)
			: NULL);
	ps_json_set(o, "probes", json_object_new_int(r->probes));
	ps_json_set(o, "rtt_ms", r->rtt_ms >= 0 ? ps_json_new_num(r->rtt_ms, 2) : NULL);
	if (ret < 0 && r->error[0])
		ps_json_set_str(o, "error", r->error);
	json_object_array_add(paths, o);
	if (ret < 0 && ret != -ECANCELED) {
		ps_findf(ctx, PS_SEV_WARN, ps_port_ref(p), "no_answer", "%s: %s", path, r->error);
		return;
	}
	if (pm <= 0)
		return;
	ps_examined(ctx, ps_port_ref(p), "measured", "%s: path MTU %d (payload %d)", path, pm,
		    pm - PS_PMTU_HEADERS);
	if (ends_differ || ways_differ) {
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
		if (rev > 0)
			snprintf(back, sizeof(back), "%d", rev);
		ps_find(ctx, &f,
			"%s: the two ends disagree: %s%d bytes cross %s -> %s, %s back; the path "
			"takes %d (payload %d, what ping -M do -s %d gets through): set both ends "
			"to %d",
			path, ends, fwd, from, to, back, pm, pm - PS_PMTU_HEADERS,
			pm - PS_PMTU_HEADERS, pm);
	}
	{
		int low = here;

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
				path, low, pm);
		}
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

static bool pairs_phase(struct ps_ctx *ctx, json_object *paths, json_object *restored)
{
	struct ps_ports ps;
	struct ps_pair pairs[PS_PORTS_MAX / 2];
	bool reach[PS_PORTS_MAX * PS_PORTS_MAX], aborted = false;
	size_t npairs = 0;

	if (ps_ports_open(&ps, ctx->inv, NULL, restored) < 0)
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
		report(ctx, paths, "port to port", a->name, b->name, a, (int)b->mtu, false, &r,
		       ret);
	}
	ps_ports_close(&ps);
	for (size_t i = 0; i < ps.n; i++)
		if (ps.p[i].restore_error[0])
			ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(&ps.p[i]), "not_restored", "%s",
				 ps.p[i].restore_error);
	return !aborted;
}

static bool peer_phase(struct ps_ctx *ctx, json_object *paths, json_object *restored)
{
	struct ps_peer_link pl;
	bool aborted = false;
	int ret;

	ps_progress_phase(ctx, "finding the peer", 1, "peer");
	ret = ps_peer_link_open(&pl, ctx->inv, ctx->cfg ? &ctx->cfg->net_want : NULL, NULL,
				restored, ps_should_abort_hook, ctx);
	ps_json_set(ctx->data, "tried", pl.tried);
	if (ret == 0 && pl.port >= 0) {
		struct ps_port *p = &pl.ps.p[pl.port];
		struct ps_pmtu_result r;
		char to[INET_ADDRSTRLEN];
		bool icmp = !pl.peer.probestick || pl.peer.echo_port <= 0;

		ps_json_set(ctx->data, "peer", ps_peer_link_json(&pl));
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
		report(ctx, paths, "peer", p->name, to, p,
		       r.peer_mtu > 0 ? r.peer_mtu : pl.peer.mtu, icmp, &r, ret);
	}
	ps_peer_link_close(&pl);
	for (size_t i = 0; i < pl.ps.n; i++)
		if (pl.ps.p[i].restore_error[0])
			ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(&pl.ps.p[i]), "not_restored", "%s",
				 pl.ps.p[i].restore_error);
	return !aborted;
}

static int run(struct ps_ctx *ctx)
{
	json_object *paths = json_object_new_array(), *restored = json_object_new_array();
	bool go_on;

	ps_json_set_str(ctx->data, "target_mtu",
			ctx->cfg && ctx->cfg->mtu[0] ? ctx->cfg->mtu : "max");
	ps_json_set(ctx->data, "paths", paths);
	ps_json_set(ctx->data, "peer", NULL);
	ps_json_set(ctx->data, "restored", restored);
	if (ctx->root && ctx->root[0]) {
		ps_json_set(ctx->data, "tried", json_object_new_array());
		ps_step_reason(ctx, "moves real network ports: live system only, not with --root");
		for (size_t i = 0; i < ctx->inv->n_nics; i++) {
			char why[200];

			ps_not_tested(ctx, ps_nic_ref(&ctx->inv->nics[i]), "%s",
				      ps_port_root_untested(ctx->root, ctx->inv->nics[i].name, why,
							    sizeof(why)));
		}
		return PS_SKIPPED;
	}
	go_on = pairs_phase(ctx, paths, restored);
	if (go_on)
		go_on = peer_phase(ctx, paths, restored);
	else
		ps_json_set(ctx->data, "tried", json_object_new_array());
	if (!go_on)
		return PS_ABORTED;
	if (json_object_array_length(paths) == 0) {
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

static const struct ps_col restored_cols[] = {
    {.path = "/port", .title = "port", .flags = PS_COL_KEY},
    {.path = "/setting", .title = "setting", .flags = PS_COL_KEY},
    {.path = "/was", .title = "was"},
    {.path = "/now", .title = "now"},
    {.path = "/restored", .title = "restored", .fmt = PS_FMT_BOOL},
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
    {.kind = PS_BLOCK_TABLE,
     .id = "restored",
     .title = "Put back after the step",
     .rows = "/restored",
     .cols = PS_COLS(restored_cols)},
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
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(mtu_ops);
