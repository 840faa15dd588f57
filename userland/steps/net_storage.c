/*
 * net_storage.c - a disk over the network, end to end: a stick in server
 * mode exports a RAM disk with Debian's nbd-server; here the kernel's own
 * NBD client reads it with the disk engine, beside the local disk's speed
 * (measured on the serving stick) and raw TCP from the peer, so the report
 * names the bottleneck. Seeds 002 and 004: local 210-240 MB/s, over the
 * network 70-110 MB/s, and nobody could say which part was slow.
 */
/* clang-format off */
//config:config STEP_NET_STORAGE
//config:	bool "net_storage: a disk over the network (NBD) against a stick in server mode"
//config:	default y
//config:	help
//config:	  With a stick in server mode as the peer, connects the kernel's
//config:	  NBD client to its nbd-server export (a RAM disk: nothing on it,
//config:	  so no confirmation is needed), reads it sequentially with the
//config:	  disk engine (1M at QD8, O_DIRECT), and sets the local disk's
//config:	  speed, raw TCP from the peer and the end-to-end figure side by
//config:	  side, naming the bottleneck. Reads only.
//kbuild:step-$(CONFIG_STEP_NET_STORAGE) += net_storage.o
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "peer": {"type": ["object", "null"]},
//schema:    "export": {"type": ["object", "null"]},
//schema:    "runs": {"type": "integer"},
//schema:    "figures": {"type": "array", "items": {"type": "object",
//schema:      "properties": {
//schema:        "what": {"type": "string"},
//schema:        "median_mbytes_s": {"type": ["number", "null"]},
//schema:        "min_mbytes_s": {"type": ["number", "null"]},
//schema:        "max_mbytes_s": {"type": ["number", "null"]},
//schema:        "cv_pct": {"type": ["number", "null"]},
//schema:        "runs_mbytes_s": {"type": "array", "items": {"type": "number"}},
//schema:        "how": {"type": "string"}
//schema:      },
//schema:      "required": ["what", "median_mbytes_s", "how"]}},
//schema:    "bottleneck": {"type": ["string", "null"]},
//schema:    "e2e_cost": {"type": ["object", "null"]},
//schema:    "tried": {"type": "array", "items": {"type": "object"}},
//schema:    "restored": {"type": "array", "items": {"type": "object"}}
//schema:  },
//schema:  "required": ["peer", "figures", "bottleneck", "restored"]
//schema:}
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "lib/util.h"
#include "lib/stats.h"
#include "engines/io/uring_io.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/nbd.h"
#include "engines/net/peer.h"
#include "lib/json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DATA_VERSION 1
#define MAX_RUNS     8

struct storage {
	struct ps_ctx *ctx;
	double run_t0;
	uint64_t base;
	int runs, seconds;
};

static bool stop_cb(void *arg)
{
	struct storage *s = arg;

	ps_progress_set(s->ctx, s->base + (uint64_t)((ps_mono_now() - s->run_t0) * 1000));
	return ps_should_abort(s->ctx);
}

static json_object *figure(const char *what, const double *v, size_t n, const char *how,
			   double *median)
{
	json_object *o = json_object_new_object(), *runs = json_object_new_array();
	struct ps_run_summary sum;
	bool have = n > 0 && ps_run_summary(v, n, &sum) == 0;

	for (size_t i = 0; i < n; i++)
		json_object_array_add(runs, ps_json_new_num(v[i], 1));
	ps_json_set_str(o, "what", what);
	ps_json_set(o, "median_mbytes_s", have ? ps_json_new_num(sum.median, 1) : NULL);
	ps_json_set(o, "min_mbytes_s", have ? ps_json_new_num(sum.min, 1) : NULL);
	ps_json_set(o, "max_mbytes_s", have ? ps_json_new_num(sum.max, 1) : NULL);
	ps_json_set(o, "cv_pct", have && n > 1 ? ps_json_new_num(sum.cv_pct, 1) : NULL);
	ps_json_set(o, "runs_mbytes_s", runs);
	ps_json_set_str(o, "how", how);
	*median = have ? sum.median : -1;
	return o;
}

/* Raw TCP from the peer (the direction reads take), MB/s per run. */
static size_t tcp_runs(struct storage *s, struct ps_peer_link *pl, double *v)
{
	const struct ps_port *p = &pl->ps.p[pl->port];
	char peer[INET_ADDRSTRLEN];
	size_t n = 0;

	inet_ntop(AF_INET, &pl->peer_addr, peer, sizeof(peer));
	ps_progress_phase(s->ctx, "raw TCP from the peer", (uint64_t)s->runs * s->seconds * 1000,
			  "ms");
	for (int r = 0; r < s->runs && r < MAX_RUNS && !ps_should_abort(s->ctx); r++) {
		struct ps_iperf_opts o = {.server_ns_fd = -1,
					  .client_ns_fd = p->ns,
					  .server_addr = peer,
					  .port = pl->peer_port,
					  .streams = 1,
					  .duration_s = s->seconds,
					  .reverse = true,
					  .should_stop = stop_cb,
					  .stop_arg = s};
		struct ps_iperf_result res;

		s->run_t0 = ps_mono_now();
		s->base = (uint64_t)r * s->seconds * 1000;
		if (ps_iperf_client_run(&o, &res) == 0)
			v[n++] = res.mbps / 8;
		else
			ps_findf(s->ctx, PS_SEV_WARN, ps_port_ref(p), "run_failed",
				 "raw TCP from %s, run %d: %s", peer, r + 1, res.error);
	}
	return n;
}

struct nbd_dev {
	int index;
	char path[32];
};

static int nbd_up(struct ps_ctx *ctx, struct ps_peer_link *pl, struct ps_nbd_export *ex,
		  struct nbd_dev *d, char *why, size_t whylen)
{
	const struct ps_port *p = &pl->ps.p[pl->port];
	struct sockaddr_in sa = {
	    .sin_family = AF_INET, .sin_port = htons(pl->peer.nbd_port), .sin_addr = pl->peer_addr};
	int fd, ret;

	d->index = -1;
	ret = ps_nbd_load_module();
	if (ret < 0) {
		snprintf(why, whylen, "modprobe nbd: %s (the kernel's NBD client)", strerror(-ret));
		return ret;
	}
	/* the socket lives in the port's namespace: NBD traffic crosses that port */
	fd = ps_netns_socket(p->ns, AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		snprintf(why, whylen, "socket: %s", strerror(-fd));
		return fd;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		snprintf(why, whylen, "connecting to nbd-server at %s:%d: %s",
			 inet_ntoa(pl->peer_addr), pl->peer.nbd_port, strerror(errno));
		close(fd);
		return ret;
	}
	ret = ps_nbd_handshake(fd, pl->peer.export_name, ex, why, whylen);
	if (ret == 0)
		ret = ps_nbd_kernel_connect(fd, ex, &d->index, why, whylen);
	close(fd); /* the kernel holds its own reference */
	if (ret == 0)
		snprintf(d->path, sizeof(d->path), "/dev/nbd%d", d->index);
	(void)ctx;
	return ret;
}

/* Sequential O_DIRECT reads of the whole export, 1M at QD8, per run. */
static size_t nbd_runs(struct storage *s, const struct nbd_dev *d, double *v, char *why,
		       size_t whylen, struct ps_cost_result *cr, const struct ps_port *p)
{
	struct ps_cost cost = {.root = s->ctx->root};
	uint64_t size = 0;
	bool direct;
	size_t n = 0;
	int fd = -1;

	/* the device gets its size a moment after the connect */
	for (int i = 0; i < 50; i++) {
		fd = ps_uio_open(d->path, true, &direct, NULL);
		if (fd >= 0 && ps_uio_size(fd, &size) == 0 && size > 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		usleep(100000);
	}
	if (fd < 0) {
		snprintf(why, whylen, "%s did not open with a size", d->path);
		return 0;
	}
	if (p->nic)
		ps_cost_watch_pci(&cost, p->nic->pci_address);
	ps_progress_phase(s->ctx, d->path, (uint64_t)s->runs * s->seconds * 1000, "ms");
	ps_cost_begin(&cost);
	for (int r = 0; r < s->runs && r < MAX_RUNS && !ps_should_abort(s->ctx); r++) {
		struct ps_uio_job j = {.fd = fd,
				       .size = size,
				       .length = size,
				       .bs = 1 << 20,
				       .qd = 8,
				       .time_budget_s = s->seconds,
				       .should_stop = stop_cb,
				       .stop_arg = s};
		struct ps_uio_result res;

		s->run_t0 = ps_mono_now();
		s->base = (uint64_t)r * s->seconds * 1000;
		if (ps_uio_read(&j, &res) == 0 && res.seconds > 0 && !res.stopped)
			v[n++] = ps_mbps(res.bytes, res.seconds);
		else if (!res.stopped)
			snprintf(why, whylen, "reading %s failed (%llu errors)", d->path,
				 (unsigned long long)res.errors);
	}
	ps_cost_end(&cost, cr);
	close(fd);
	return n;
}

static const char *bottleneck(double local, double tcp, double e2e, const struct ps_cost_result *cr,
			      char *text, size_t len)
{
	double ceiling = local > 0 && tcp > 0 ? (local < tcp ? local : tcp)
			 : local > 0	      ? local
					      : tcp;
	const char *slower = local > 0 && tcp > 0 ? (local < tcp ? "the disk" : "the network")
			     : local > 0	  ? "the disk"
						  : "the network";

	if (e2e <= 0 || ceiling <= 0)
		return NULL;
	if (e2e >= 0.8 * ceiling) {
		snprintf(text, len,
			 "%s: end to end %.0f MB/s is %.0f%% of the slower part (%s, %.0f MB/s)",
			 slower, e2e, e2e * 100 / ceiling, slower, ceiling);
		return slower;
	}
	if (cr->known && cr->cpu_bound) {
		snprintf(text, len,
			 "the CPU: end to end %.0f MB/s is %.0f%% of the slower part (%s, %.0f "
			 "MB/s) with a core (CPU %d) %.0f%% busy",
			 e2e, e2e * 100 / ceiling, slower, ceiling, cr->busiest_cpu,
			 cr->busiest_pct);
		return "the CPU";
	}
	snprintf(
	    text, len,
	    "the storage protocol: end to end %.0f MB/s is only %.0f%% of the slower part (%s, "
	    "%.0f MB/s) with the CPU not saturated: request round trips over the network "
	    "(queue depth, latency) cost the rest",
	    e2e, e2e * 100 / ceiling, slower, ceiling);
	return "the storage protocol";
}

static int run(struct ps_ctx *ctx)
{
	struct storage s = {.ctx = ctx};
	json_object *data = ctx->data, *figures = json_object_new_array(),
		    *restored = json_object_new_array();
	struct ps_peer_link pl;
	struct ps_nbd_export ex;
	struct nbd_dev dev = {.index = -1};
	struct ps_cost_result cr = {0};
	double tcp[MAX_RUNS], e2e[MAX_RUNS], local = -1, tcp_m = -1, e2e_m = -1, dummy;
	size_t ntcp = 0, ne2e = 0;
	char why[300] = "", text[400];
	const char *bn = NULL;
	int ret;

	s.runs = ctx->plan && ctx->plan->level == PS_PLAN_FULL ? 3 : 2;
	s.seconds = ctx->plan && ctx->plan->level == PS_PLAN_FULL ? 10 : 3;
	ps_json_set(data, "peer", NULL);
	ps_json_set(data, "export", NULL);
	ps_json_set(data, "runs", json_object_new_int(s.runs));
	ps_json_set(data, "figures", figures);
	ps_json_set(data, "bottleneck", NULL);
	ps_json_set(data, "restored", restored);
	if (ctx->root && ctx->root[0]) {
		ps_json_set(data, "tried", json_object_new_array());
		ps_step_reason(ctx, "moves real network ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ps_progress_phase(ctx, "finding the peer", 1, "peer");
	ret = ps_peer_link_open(&pl, ctx->inv, ctx->cfg ? &ctx->cfg->net_want : NULL, NULL,
				restored, ps_should_abort_hook, ctx);
	ps_json_set(data, "tried", pl.tried);
	if (ret < 0 || pl.port < 0 || !pl.peer.probestick || pl.peer.nbd_port <= 0 ||
	    !pl.peer.export_name[0]) {
		ps_peer_link_close(&pl);
		if (ret < 0)
			return ret;
		if (ps_should_abort(ctx))
			return PS_ABORTED;
		ps_step_reason(ctx, "%s",
			       pl.port < 0 ? pl.why
			       : !pl.peer.probestick
				   ? "the peer is not a stick in server mode: it exports no disk"
				   : "the peer stick exports no disk (no RAM disk or no "
				     "nbd-server there: see its console)");
		return PS_SKIPPED;
	}
	ps_json_set(data, "peer", ps_peer_link_json(&pl));
	{
		json_object *e = json_object_new_object();

		ps_json_set_str(e, "name", pl.peer.export_name);
		ps_json_set_str(e, "kind", pl.peer.export_kind);
		ps_json_set_count(e, "bytes", pl.peer.export_bytes);
		ps_json_set(data, "export", e);
	}
	local = pl.peer.export_local_mbps;
	json_object_array_add(figures,
			      figure("local disk", local > 0 ? &local : NULL, local > 0,
				     "read on the serving stick itself, 1M at QD8", &dummy));
	ntcp = tcp_runs(&s, &pl, tcp);
	json_object_array_add(figures,
			      figure("raw TCP", tcp, ntcp,
				     "libiperf, 1 stream, from the peer (as reads flow)", &tcp_m));
	if (!ps_should_abort(ctx)) {
		ret = nbd_up(ctx, &pl, &ex, &dev, why, sizeof(why));
		if (ret < 0) {
			ps_findf(ctx, PS_SEV_WARN, ps_port_ref(&pl.ps.p[pl.port]), "nbd_failed",
				 "%s", why);
		} else {
			ne2e = nbd_runs(&s, &dev, e2e, why, sizeof(why), &cr, &pl.ps.p[pl.port]);
			if (why[0])
				ps_findf(ctx, PS_SEV_WARN, ps_port_ref(&pl.ps.p[pl.port]),
					 "read_failed", "%s", why);
		}
	}
	json_object_array_add(figures,
			      figure("end to end", e2e, ne2e,
				     "the kernel's NBD client, 1M O_DIRECT reads at QD8", &e2e_m));
	ps_json_set(data, "e2e_cost", ps_cost_json(&cr));
	/* The device goes back: disconnected, always. */
	if (dev.index >= 0) {
		char sizef[64], now[24];
		uint64_t left = 0;
		int r2 = ps_nbd_kernel_disconnect(dev.index);

		snprintf(sizef, sizeof(sizef), "/sys/block/nbd%d/size", dev.index);
		for (int i = 0; i < 30 && ps_read_u64(sizef, &left) == 0 && left; i++)
			usleep(100000);
		snprintf(now, sizeof(now), "%s", r2 == 0 && !left ? "disconnected" : "connected");
		ps_restored_row(restored, dev.path, "nbd client", "disconnected", now);
		if (r2 < 0 || left)
			ps_findf(ctx, PS_SEV_FAIL, (struct ps_dev_ref){0}, "not_restored",
				 "%s is still connected to the peer (%s): reboot before using it",
				 dev.path, strerror(-r2));
	}
	bn = bottleneck(local, tcp_m, e2e_m, &cr, text, sizeof(text));
	ps_json_set_str(data, "bottleneck", bn);
	if (bn) {
		struct ps_finding f = {.severity = PS_SEV_INFO,
				       .dev = ps_port_ref(&pl.ps.p[pl.port]),
				       .rule = "bottleneck",
				       .value = e2e_m,
				       .limit = PS_NO_VALUE,
				       .unit = "MB/s"};

		ps_find(ctx, &f, "%s", text);
		ps_examined(ctx, ps_port_ref(&pl.ps.p[pl.port]), "measured",
			    "a disk over the network: %.0f MB/s end to end", e2e_m);
	}
	ps_peer_link_close(&pl);
	for (size_t i = 0; i < pl.ps.n; i++)
		if (pl.ps.p[i].restore_error[0])
			ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(&pl.ps.p[i]), "not_restored", "%s",
				 pl.ps.p[i].restore_error);
	return ps_should_abort(ctx) ? PS_ABORTED : PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	bool full = ctx->plan && ctx->plan->level == PS_PLAN_FULL;

	return 12 + 2 * (full ? 3 * 10 : 2 * 3);
}

/* ---- view ---- */

static const struct ps_col fig_cols[] = {
    {.path = "/what", .title = "figure", .flags = PS_COL_KEY},
    {.path = "/median_mbytes_s",
     .title = "MB/s",
     .unit = "MB/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER,
     .spread = "/cv_pct",
     .min = "/min_mbytes_s",
     .max = "/max_mbytes_s"},
    {.path = "/median_mbytes_s",
     .title = "min-max",
     .fmt = PS_FMT_RANGE,
     .min = "/min_mbytes_s",
     .max = "/max_mbytes_s"},
    {.path = "/how", .title = "how", .flags = PS_COL_WIDE},
};

static const struct ps_col verdict_cols[] = {
    {.path = "/bottleneck", .title = "bottleneck", .flags = PS_COL_HEADLINE},
    {.path = "/peer/address", .title = "peer"},
    {.path = "/export/name", .title = "export"},
    {.path = "/export/bytes", .title = "size", .fmt = PS_FMT_BYTES},
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
     .id = "figures",
     .title = "A disk over the network, side by side (median of the runs)",
     .rows = "/figures",
     .cols = PS_COLS(fig_cols),
     .empty = "no peer in server mode"},
    {.kind = PS_BLOCK_KV,
     .id = "verdict",
     .rows = "",
     .cols = PS_COLS(verdict_cols),
     .when = "/bottleneck"},
    {.kind = PS_BLOCK_TABLE,
     .id = "restored",
     .title = "Put back after the step",
     .rows = "/restored",
     .cols = PS_COLS(restored_cols)},
};

static const struct ps_view view = {
    .name = "net_storage",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops net_storage_ops = {
    .abi = PS_STEP_ABI,
    .name = "net_storage",
    .title = "a disk over the network (NBD from a stick in server mode), end to end",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 60,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(net_storage_ops);
