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
#include "engines/measure.h"
#include "engines/net/session.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DATA_VERSION 1
#define CV_LIMIT_PCT 10.0

/* ---- the result: data{} as a struct, described once ---- */

enum { FIG_LOCAL, FIG_TCP, FIG_E2E, FIGS };

struct figure_row {
	int what;		   /* FIG_* */
	struct ps_figure mbytes_s; /* its runs, under the noise rule */
	const char *how;
};

struct export_info {
	char name[64], kind[32];
	int64_t bytes; /* -1 unknown */
};

struct storage_result {
	json_object *peer; /* ps_peer_link_json, NULL: none */
	struct export_info *export;
	struct ps_noise_rule rule;
	struct figure_row figures[FIGS];
	size_t n_figures;
	const char *bottleneck;
	struct ps_cost_result *e2e_cost; /* NULL unknown */
	json_object *tried;
	struct ps_put_back restored[PS_PUT_BACK_MAX];
	size_t n_restored;
};

static const char *const what_names[] = {"local disk", "raw TCP", "end to end", NULL};
static const char *const how_of[FIGS] = {
    "read on the serving stick itself, 1M at QD8",
    "libiperf, 1 stream, from the peer (as reads flow)",
    "the kernel's NBD client, 1M O_DIRECT reads at QD8",
};
static const char *const bottleneck_names[] = {"the disk", "the network", "the CPU",
					       "the storage protocol", NULL};

static const struct ps_field figure_f[] = {
    PS_FIELD_ENUM(struct figure_row, what, "what", what_names),
    PS_FIELD(struct figure_row, mbytes_s, "mbytes_s", .unit = "MB/s", .decimals = 1),
    PS_FIELD(struct figure_row, how, "how"),
};
static const struct ps_fields figure_fields = PS_FIELDS(struct figure_row, figure_f);

static const struct ps_field export_f[] = {
    PS_FIELD(struct export_info, name, "name"),
    PS_FIELD(struct export_info, kind, "kind", .flags = PS_FLD_NULL),
    PS_FIELD(struct export_info, bytes, "bytes", .unit = "bytes", .flags = PS_FLD_NULL),
};
static const struct ps_fields export_fields = PS_FIELDS(struct export_info, export_f);

static const struct ps_field storage_f[] = {
    PS_FIELD(struct storage_result, peer, "peer", .schema = "{\"type\": \"object\"}",
	     .flags = PS_FLD_NULL),
    PS_FIELD_OBJP(struct storage_result, export, "export", &export_fields, .flags = PS_FLD_NULL),
    PS_FIELD(struct storage_result, rule.runs, "runs", .help = "the plan's runs per figure"),
    PS_FIELD(struct storage_result, rule.max_runs, "max_runs", .flags = PS_FLD_NEWER),
    PS_FIELD(struct storage_result, rule.cv_limit_pct, "noise_cv_pct", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NEWER),
    PS_FIELD_ARRAY(struct storage_result, figures, n_figures, "figures", &figure_fields),
    PS_FIELD(struct storage_result, bottleneck, "bottleneck", .names = bottleneck_names,
	     .flags = PS_FLD_NULL),
    PS_FIELD_OBJP(struct storage_result, e2e_cost, "e2e_cost", &ps_cost_fields,
		  .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct storage_result, tried, "tried",
	     .schema = "{\"type\": \"array\", \"items\": {\"type\": \"object\"}}",
	     .flags = PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct storage_result, restored, n_restored, "restored", &ps_put_back_fields),
};
static const struct ps_fields storage_fields = PS_FIELDS(struct storage_result, storage_f);

/* ---- measuring: each figure's runs through the measuring engine ---- */

struct storage {
	struct ps_ctx *ctx;
	struct storage_result *r;
	struct ps_peer_link *pl;
	struct ps_measure_bar bar;
	double run_t0;
	int seconds;
	/* the NBD reads */
	int fd;
	uint64_t size;
	const char *dev;
	char why[300];
};

static bool stop_cb(void *arg)
{
	struct storage *s = arg;

	ps_measure_bar_within(&s->bar, (uint64_t)((ps_mono_now() - s->run_t0) * 1000));
	return ps_should_abort(s->ctx);
}

/* The plan's runs, more while they vary by over CV_LIMIT_PCT, up to twice as many. */
static struct ps_noise_rule noise_rule(const struct ps_ctx *ctx)
{
	bool full = ctx->plan && ctx->plan->level == PS_PLAN_FULL;

	return (struct ps_noise_rule){
	    .runs = full ? 3 : 2, .max_runs = full ? 6 : 4, .cv_limit_pct = CV_LIMIT_PCT};
}

/* One figure's runs of run(), on the step's bar as phase; its summary into row what. */
static int measure(struct storage *s, int what, const char *phase,
		   int (*run)(void *arg, unsigned int i, double *v))
{
	struct ps_measure me = {.rule = s->r->rule,
				.nfig = 1,
				.run = run,
				.arg = s,
				.should_stop = ps_should_abort_hook,
				.stop_arg = s->ctx,
				.progress = ps_measure_bar_hook,
				.progress_arg = &s->bar};
	struct figure_row *row = &s->r->figures[what];
	int err;

	ps_measure_bar_start(&s->bar, s->ctx, phase, ps_measure_planned(&me.rule),
			     (uint64_t)s->seconds * 1000, "ms");
	err = ps_measure_run(&me, &row->mbytes_s);
	return err == -ECANCELED ? 0 : err;
}

/* One run of raw TCP from the peer (the direction reads take): MB/s. */
static int tcp_run(void *arg, unsigned int i, double *v)
{
	struct storage *s = arg;
	const struct ps_port *p = &s->pl->ps.p[s->pl->port];
	char peer[INET_ADDRSTRLEN];
	struct ps_iperf_opts o = {.server_ns_fd = -1,
				  .client_ns_fd = p->ns,
				  .server_addr = peer,
				  .port = s->pl->peer_port,
				  .streams = 1,
				  .duration_s = s->seconds,
				  .reverse = true,
				  .should_stop = stop_cb,
				  .stop_arg = s};
	struct ps_iperf_result res;

	inet_ntop(AF_INET, &s->pl->peer_addr, peer, sizeof(peer));
	s->run_t0 = ps_mono_now();
	if (ps_iperf_client_run(&o, &res) == 0) {
		v[0] = res.mbps / 8;
		return 0;
	}
	if (!ps_should_abort(s->ctx))
		ps_findf(s->ctx, PS_SEV_WARN, ps_port_ref(p), "run_failed",
			 "raw TCP from %s, run %u: %s", peer, i + 1, res.error);
	return PS_MEASURE_NO_FIGURE;
}

/* One run of sequential O_DIRECT reads of the export, 1M at QD8: MB/s. */
static int nbd_run(void *arg, unsigned int i, double *v)
{
	struct storage *s = arg;
	struct ps_uio_job j = {.fd = s->fd,
			       .size = s->size,
			       .length = s->size,
			       .bs = 1 << 20,
			       .qd = 8,
			       .time_budget_s = s->seconds,
			       .should_stop = stop_cb,
			       .stop_arg = s};
	struct ps_uio_result res;

	s->run_t0 = ps_mono_now();
	if (ps_uio_read(&j, &res) == 0 && res.seconds > 0 && !res.stopped) {
		v[0] = ps_mbps(res.bytes, res.seconds);
		return 0;
	}
	if (!res.stopped)
		snprintf(s->why, sizeof(s->why), "reading %s failed (%llu errors)", s->dev,
			 (unsigned long long)res.errors);
	return PS_MEASURE_NO_FIGURE;
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

/* The end-to-end figure: the export read through the kernel's NBD client, with its CPU cost. */
static int nbd_reads(struct storage *s, const struct nbd_dev *d, const struct ps_port *p)
{
	struct ps_cost cost = {.root = s->ctx->root};
	struct ps_cost_result cr = {0};
	bool direct;
	int err;

	/* the device gets its size a moment after the connect */
	s->fd = -1;
	for (int i = 0; i < 50; i++) {
		s->fd = ps_uio_open(d->path, true, &direct, NULL);
		if (s->fd >= 0 && ps_uio_size(s->fd, &s->size) == 0 && s->size > 0)
			break;
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		usleep(100000);
	}
	if (s->fd < 0) {
		snprintf(s->why, sizeof(s->why), "%s did not open with a size", d->path);
		return 0;
	}
	s->dev = d->path;
	if (p->nic)
		ps_cost_watch_pci(&cost, p->nic->pci_address);
	ps_cost_begin(&cost);
	err = measure(s, FIG_E2E, d->path, nbd_run);
	ps_cost_end(&cost, &cr);
	close(s->fd);
	if (cr.known) {
		s->r->e2e_cost = malloc(sizeof(cr));
		if (s->r->e2e_cost)
			*s->r->e2e_cost = cr;
	}
	return err;
}

static const char *bottleneck(double local, double tcp, double e2e, const struct ps_cost_result *cr,
			      char *text, size_t len)
{
	static const struct ps_cost_result unknown = {0};

	if (!cr)
		cr = &unknown;
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

/* The peer, when it is a stick in server mode exporting a disk; else why not (PS_SKIPPED). */
static int find_peer(struct ps_ctx *ctx, struct storage_result *r, struct ps_peer_link *pl)
{
	int ret;

	ps_progress_phase(ctx, "finding the peer", 1, "peer");
	ret = ps_peer_link_open(pl, ctx->inv, ctx->cfg ? &ctx->cfg->net_want : NULL, NULL, NULL,
				ps_should_abort_hook, ctx);
	r->tried = pl->tried;
	pl->tried = NULL;
	if (ret < 0)
		return ret;
	if (pl->port >= 0 && pl->peer.probestick && pl->peer.nbd_port > 0 &&
	    pl->peer.export_name[0])
		return 0;
	if (ps_should_abort(ctx))
		return PS_ABORTED;
	ps_step_reason(ctx, "%s",
		       pl->port < 0 ? pl->why
		       : !pl->peer.probestick
			   ? "the peer is not a stick in server mode: it exports no disk"
			   : "the peer stick exports no disk (no RAM disk or no nbd-server there: "
			     "see its console)");
	return PS_SKIPPED;
}

/* The NBD device goes back: disconnected, always; a row of what was put back. */
static void nbd_down(struct ps_ctx *ctx, struct storage_result *r, const struct nbd_dev *dev)
{
	char sizef[64];
	uint64_t left = 0;
	int r2 = ps_nbd_kernel_disconnect(dev->index);

	snprintf(sizef, sizeof(sizef), "/sys/block/nbd%d/size", dev->index);
	for (int i = 0; i < 30 && ps_read_u64(sizef, &left) == 0 && left; i++)
		usleep(100000);
	ps_put_back_add(r->restored, &r->n_restored, PS_PUT_BACK_MAX, dev->path, "nbd client",
			"disconnected", r2 == 0 && !left ? "disconnected" : "connected");
	if (r2 < 0 || left)
		ps_findf(ctx, PS_SEV_FAIL, (struct ps_dev_ref){0}, "not_restored",
			 "%s is still connected to the peer (%s): reboot before using it",
			 dev->path, strerror(-r2));
}

/* The three figures side by side: the peer's local disk, raw TCP, and end to end. */
static int measure_all(struct storage *s, struct ps_peer_link *pl)
{
	struct storage_result *r = s->r;
	const struct ps_port *p = &pl->ps.p[pl->port];
	struct ps_nbd_export ex;
	struct nbd_dev dev = {.index = -1};
	int ret;

	if (pl->peer.export_local_mbps > 0) {
		ps_figure_add(&r->figures[FIG_LOCAL].mbytes_s, pl->peer.export_local_mbps);
		ps_figure_finish(&r->figures[FIG_LOCAL].mbytes_s, NULL);
	}
	ret = measure(s, FIG_TCP, "raw TCP from the peer", tcp_run);
	if (ret < 0 || ps_should_abort(s->ctx))
		return ret;
	ret = nbd_up(s->ctx, pl, &ex, &dev, s->why, sizeof(s->why));
	if (ret < 0) {
		ps_findf(s->ctx, PS_SEV_WARN, ps_port_ref(p), "nbd_failed", "%s", s->why);
		return 0;
	}
	ret = nbd_reads(s, &dev, p);
	if (s->why[0])
		ps_findf(s->ctx, PS_SEV_WARN, ps_port_ref(p), "read_failed", "%s", s->why);
	nbd_down(s->ctx, r, &dev);
	return ret;
}

/* Which part holds the figure back: an info finding, and the port examined. */
static void judge(struct ps_ctx *ctx, struct storage_result *r, const struct ps_port *p)
{
	const struct ps_figure *f = &r->figures[FIG_E2E].mbytes_s;
	double local = r->figures[FIG_LOCAL].mbytes_s.median,
	       tcp = r->figures[FIG_TCP].mbytes_s.median;
	double e2e = f->median;
	char text[400];

	r->bottleneck = bottleneck(isfinite(local) ? local : -1, isfinite(tcp) ? tcp : -1,
				   isfinite(e2e) ? e2e : -1, r->e2e_cost, text, sizeof(text));
	for (int k = FIG_TCP; k < FIGS; k++)
		ps_find_unstable(ctx, ps_port_ref(p), "unstable", &r->figures[k].mbytes_s, "MB/s",
				 0, what_names[k], "another load on the network or on the peer");
	if (r->bottleneck) {
		struct ps_finding fd = {.severity = PS_SEV_INFO,
					.dev = ps_port_ref(p),
					.rule = "bottleneck",
					.value = e2e,
					.limit = PS_NO_VALUE,
					.unit = "MB/s"};

		ps_find(ctx, &fd, "%s", text);
		ps_examined(ctx, ps_port_ref(p), "measured",
			    "a disk over the network: %.0f MB/s end to end", e2e);
	}
}

static int run(struct ps_ctx *ctx)
{
	struct storage_result *r = ctx->result;
	struct storage s = {.ctx = ctx, .r = r, .seconds = 3};
	struct ps_peer_link pl;
	int ret;

	r->rule = noise_rule(ctx);
	if (ctx->plan && ctx->plan->level == PS_PLAN_FULL)
		s.seconds = 10;
	for (int k = 0; k < FIGS; k++) {
		r->figures[k].what = k;
		r->figures[k].how = how_of[k];
	}
	r->n_figures = 0;
	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "moves real network ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ret = find_peer(ctx, r, &pl);
	if (ret == 0) {
		r->peer = ps_peer_link_json(&pl);
		r->export = ps_fields_new(&export_fields, 1);
		if (r->export) {
			snprintf(r->export->name, sizeof(r->export->name), "%s",
				 pl.peer.export_name);
			snprintf(r->export->kind, sizeof(r->export->kind), "%s",
				 pl.peer.export_kind);
			r->export->bytes = pl.peer.export_bytes > 0 ? pl.peer.export_bytes : -1;
		}
		r->n_figures = FIGS;
		s.pl = &pl;
		ret = measure_all(&s, &pl);
		judge(ctx, r, &pl.ps.p[pl.port]);
	}
	ps_peer_link_close(&pl);
	for (size_t i = 0; i < pl.ps.n_put_back && r->n_restored < PS_PUT_BACK_MAX; i++)
		r->restored[r->n_restored++] = pl.ps.put_back[i];
	for (size_t i = 0; i < pl.ps.n; i++)
		if (pl.ps.p[i].restore_error[0])
			ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(&pl.ps.p[i]), "not_restored", "%s",
				 pl.ps.p[i].restore_error);
	if (ret != 0)
		return ret;
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
    PS_COL_FIGURE("mbytes_s", "MB/s", "MB/s", 0, PS_BETTER_HIGHER, 0),
    PS_COL_FIGURE_RANGE("mbytes_s", 0),
    {.path = "/how", .title = "how", .flags = PS_COL_WIDE},
};

static const struct ps_col verdict_cols[] = {
    {.path = "/bottleneck", .title = "bottleneck", .flags = PS_COL_HEADLINE},
    {.path = "/peer/address", .title = "peer"},
    {.path = "/export/name", .title = "export"},
    {.path = "/export/bytes", .title = "size", .fmt = PS_FMT_BYTES},
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
    PS_NIC_RESTORED_BLOCK,
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
    .result = &storage_fields,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(net_storage_ops);
