/*
 * disk_aggregate.c - every data drive read at once (TESTPLAN 3): sequential
 * 1M at QD8 and random 4K at QD32 on all of them together, each drive's
 * share and the total beside what disk_read measured on it alone in this
 * run, and the ceiling named with its evidence: a PCIe link the drives share
 * (its width, speed, verdict and lost bandwidth), a controller or USB bus
 * they share, the CPU. What a NAS builder needs before filling twelve bays.
 */
/* clang-format off */
//config:config STEP_DISK_AGGREGATE
//config:	bool "disk_aggregate: every drive read at once, and the shared ceiling (read-only)"
//config:	default y
//config:	depends on STEP_DISK_READ
//config:	help
//config:	  After disk_read measured each drive alone: all of them read at
//config:	  once with O_DIRECT through io_uring (sequential 1 MiB at QD8,
//config:	  then random 4 KiB at QD32), each drive's figure together beside
//config:	  its figure alone, the total against the sum, and what the drives
//config:	  share that caps them: the PCIe link above their controller (its
//config:	  capacity and lost bandwidth), one controller, one USB bus, or the
//config:	  CPU. The boot stick is never read; nothing is written.
//kbuild:step-$(CONFIG_STEP_DISK_AGGREGATE) += disk_aggregate.o
/* clang-format on */

#include "core/step.h"
#include "decode/proc.h"
#include "engines/io/uring_io.h"
#include "engines/measure.h"
#include "lib/stats.h"
#include "lib/util.h"

#include "../../kmod/pcie_verdict.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA_VERSION 1

#define KIB 1024U
#define MIB (1024U * 1024U)

/* Below this share of the drives' sum alone, something they share held them back. */
#define HELD_BACK_PCT 90.0
/* A shared path whose load together reached this share of its capacity is the ceiling. */
#define REACHED_PCT 80.0
/* CPU busy (all CPUs, while the drives read together) that makes the CPU the ceiling. */
#define CPU_BUSY_PCT 90.0

enum pattern { SEQ, RAND, N_PATTERNS };

struct agg_plan {
	unsigned int runs, max_runs;
	double noise_cv_pct, time_budget_s; /* per run, every drive at once */
};

static const struct agg_plan plans[] = {
    {3, 5, 10.0, 1.0}, /* quick */
    {5, 8, 5.0, 2.0},  /* full */
};

/* The figures disk_read keeps for these points (its headline): seq 1M QD8, rand 4K QD32. */
static const struct {
	unsigned int bs, qd;
	const char *alone; /* disk_read's member with the drive's figure alone */
	const char *unit;
} points[N_PATTERNS] = {
    {1 * MIB, 8, "seq_mbps", "MB/s"},
    {4 * KIB, 32, "rand_iops", "IOPS"},
};

/* ---- the result ---- */

enum limit_kind { L_PCIE_LINK, L_CONTROLLER, L_USB_BUS, L_CPU, L_NONE, L_UNEXPLAINED };
static const char *const limit_names[] = {"pcie_link", "controller",  "usb_bus", "cpu",
					  "none",      "unexplained", NULL};
static const char *const pattern_names[] = {"seq", "rand", NULL};
static const char *const plan_names[] = {"quick", "full", NULL};

/* One pattern on one drive: alone (disk_read) and together (here). */
struct agg_fig {
	double alone;			/* disk_read's median in this run, NAN when it has none */
	struct ps_figure together;	/* this drive's figure in each run with the others */
	double pct_of_alone, share_pct; /* together/alone; its share of the total */
};

struct agg_drive {
	char name[32];
	const char *device;
	char controller[PS_ADDR_LEN]; /* the nearest PCI function above it, "" none */
	char usb_bus[16];
	char left_out[512]; /* why it was not read together, "" when it was */
	struct agg_fig seq, rand;
	uint64_t read_errors;
};

/* Something two or more drives share, with what went through it together. */
struct agg_limit {
	int kind;	 /* enum limit_kind */
	char what[64];	 /* "0000:00:1c.0", "usb bus 2", "all CPUs" */
	char detail[96]; /* "2.5 GT/s x1, limited", "AHCI", "480 Mbit/s" */
	char drives[512];
	unsigned int n_drives;
	double capacity_mbps; /* each way, NAN unknown (a controller's) */
	double lost_gbps;     /* a degraded link's lost bandwidth, NAN otherwise */
	double seq_alone_mbps, seq_together_mbps, seq_pct_of_capacity;
	double rand_alone_iops, rand_together_iops;
};

/* One pattern over all the drives. */
struct agg_total {
	int pattern;
	unsigned int bs, qd;
	unsigned int drives;
	double alone_sum;	   /* the sum of the drives' figures alone */
	struct ps_figure together; /* the total of each run */
	char unit[8];		   /* the figure's: MB/s (seq) or IOPS (rand) */
	double pct_of_alone;
	double cpu_busy_pct; /* all CPUs while they read together */
	int ceiling;	     /* enum limit_kind */
	char ceiling_what[64];
	char ceiling_why[768];
};

struct agg_result {
	int plan;
	struct ps_noise_rule rule;
	double time_budget_s;
	struct agg_total totals[N_PATTERNS];
	size_t n_totals;
	struct agg_drive *drives;
	size_t n_drives;
	struct agg_limit *limits;
	size_t n_limits;
};

static const struct ps_field fig_f[] = {
    PS_FIELD(struct agg_fig, alone, "alone", .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_fig, together, "together", .decimals = 1, .flags = PS_FLD_WARMUP),
    PS_FIELD(struct agg_fig, pct_of_alone, "pct_of_alone", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_fig, share_pct, "share_pct", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NULL),
};
static const struct ps_fields fig_fields = PS_FIELDS(struct agg_fig, fig_f);

static const struct ps_field drive_f[] = {
    PS_FIELD(struct agg_drive, name, "name"),
    PS_FIELD(struct agg_drive, device, "device", .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_drive, controller, "controller", .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_drive, usb_bus, "usb_bus", .flags = PS_FLD_OMIT),
    PS_FIELD(struct agg_drive, left_out, "left_out", .flags = PS_FLD_OMIT),
    PS_FIELD_OBJ(struct agg_drive, seq, "seq", &fig_fields, .help = "MB/s, sequential 1M QD8"),
    PS_FIELD_OBJ(struct agg_drive, rand, "rand", &fig_fields, .help = "IOPS, random 4K QD32"),
    PS_FIELD(struct agg_drive, read_errors, "read_errors"),
};
static const struct ps_fields drive_fields = PS_FIELDS(struct agg_drive, drive_f);

static const struct ps_field limit_f[] = {
    PS_FIELD_ENUM(struct agg_limit, kind, "kind", limit_names),
    PS_FIELD(struct agg_limit, what, "what"),
    PS_FIELD(struct agg_limit, detail, "detail", .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_limit, drives, "drives"),
    PS_FIELD(struct agg_limit, n_drives, "n_drives"),
    PS_FIELD(struct agg_limit, capacity_mbps, "capacity_mbps", .unit = "MB/s each way",
	     .decimals = 0, .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_limit, lost_gbps, "lost_gbps", .unit = "GB/s", .decimals = 3,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_limit, seq_alone_mbps, "seq_alone_mbps", .unit = "MB/s", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_limit, seq_together_mbps, "seq_together_mbps", .unit = "MB/s",
	     .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_limit, seq_pct_of_capacity, "seq_pct_of_capacity", .unit = "%",
	     .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_limit, rand_alone_iops, "rand_alone_iops", .decimals = 0,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_limit, rand_together_iops, "rand_together_iops", .decimals = 0,
	     .flags = PS_FLD_NULL),
};
static const struct ps_fields limit_fields = PS_FIELDS(struct agg_limit, limit_f);

static const struct ps_field total_f[] = {
    PS_FIELD_ENUM(struct agg_total, pattern, "pattern", pattern_names),
    PS_FIELD(struct agg_total, bs, "bs", .unit = "bytes"),
    PS_FIELD(struct agg_total, qd, "qd"),
    PS_FIELD(struct agg_total, drives, "drives"),
    PS_FIELD(struct agg_total, alone_sum, "alone_sum", .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_total, together, "together", .decimals = 1, .flags = PS_FLD_WARMUP),
    PS_FIELD(struct agg_total, unit, "unit"),
    PS_FIELD(struct agg_total, pct_of_alone, "pct_of_alone", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_total, cpu_busy_pct, "cpu_busy_pct", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD_ENUM(struct agg_total, ceiling, "ceiling", limit_names, .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_total, ceiling_what, "ceiling_what", .flags = PS_FLD_NULL),
    PS_FIELD(struct agg_total, ceiling_why, "ceiling_why", .flags = PS_FLD_NULL),
};
static const struct ps_fields total_fields = PS_FIELDS(struct agg_total, total_f);

static const struct ps_field agg_f[] = {
    PS_FIELD_ENUM(struct agg_result, plan, "plan", plan_names),
    PS_FIELD(struct agg_result, rule.runs, "runs"),
    PS_FIELD(struct agg_result, rule.max_runs, "max_runs"),
    PS_FIELD(struct agg_result, rule.cv_limit_pct, "noise_cv_pct", .unit = "%", .decimals = 1),
    PS_FIELD(struct agg_result, time_budget_s, "time_budget_s", .unit = "s per run", .decimals = 1),
    PS_FIELD_ARRAY(struct agg_result, totals, n_totals, "totals", &total_fields),
    PS_FIELD_ARRAY(struct agg_result, drives, n_drives, "drives", &drive_fields),
    PS_FIELD_ARRAY(struct agg_result, limits, n_limits, "limits", &limit_fields),
};
static const struct ps_fields agg_fields = PS_FIELDS(struct agg_result, agg_f);

/* ---- reading every drive at once ---- */

/* One drive in the together runs. */
struct member {
	struct ps_ctx *ctx;
	const struct ps_drive *inv;
	struct agg_drive *out;
	char path[4096];
	int fd;
	uint64_t size;
	bool in[N_PATTERNS]; /* read together in this pattern (its figure alone is known) */
	/* the current run */
	pthread_t thread;
	struct ps_uio_job job;
	struct ps_uio_result res;
	int err;
};

struct together {
	struct ps_ctx *ctx;
	const struct agg_plan *p;
	enum pattern pat;
	struct member *m;
	size_t n;
	struct ps_measure_bar bar;
	bool aborted;
};

static bool should_stop(void *arg)
{
	struct together *t = arg;

	t->aborted = t->aborted || ps_should_abort(t->ctx);
	return t->aborted;
}

static bool member_stop(void *arg)
{
	return ps_should_abort(((struct member *)arg)->ctx);
}

static void on_read_error(void *arg, uint64_t off, unsigned int len, int err)
{
	struct member *m = arg;

	(void)off;
	(void)len;
	(void)err;
	__atomic_add_fetch(&m->out->read_errors, 1, __ATOMIC_RELAXED);
}

static void *reader(void *arg)
{
	struct member *m = arg;

	m->err = ps_uio_read(&m->job, &m->res);
	return NULL;
}

/* Where run i of a sequential pattern starts on a drive: spread as disk_read spreads them. */
static uint64_t run_offset(uint64_t size, unsigned int i, unsigned int runs, unsigned int bs)
{
	uint64_t off = i == PS_MEASURE_WARMUP
			   ? 0
			   : size * (2 * (uint64_t)(i % runs) + 1) / (2 * (uint64_t)runs);

	return off / bs * bs;
}

/*
 * One run: every drive in the pattern reads for the time budget, all
 * started together, each in a thread of its own with a ring of its own.
 * v[0] is the total (MB/s or IOPS); each drive's share goes to its figure.
 */
static int together_run(void *arg, unsigned int i, double *v)
{
	struct together *t = arg;
	bool warm = i == PS_MEASURE_WARMUP;
	double total = 0;
	size_t started = 0;

	for (size_t k = 0; k < t->n; k++) {
		struct member *m = &t->m[k];

		if (!m->in[t->pat])
			continue;
		m->job = (struct ps_uio_job){
		    .fd = m->fd,
		    .size = m->size,
		    .offset =
			t->pat == SEQ ? run_offset(m->size, i, t->p->runs, points[SEQ].bs) : 0,
		    .length = UINT64_MAX / 2, /* wraps: every drive reads for the whole budget */
		    .bs = points[t->pat].bs,
		    .qd = points[t->pat].qd,
		    .time_budget_s = t->p->time_budget_s,
		    .check_ms = 50,
		    .should_stop = member_stop,
		    .stop_arg = m,
		    .on_error = on_read_error,
		    .error_arg = m,
		    .random = t->pat == RAND,
		    .seed = warm ? 0x5eed : 0x9E3779B97F4A7C15ULL * (i + 1) + k,
		};
		memset(&m->res, 0, sizeof(m->res));
		m->err = -EINPROGRESS;
		if (pthread_create(&m->thread, NULL, reader, m) != 0) {
			m->err = -EAGAIN;
			continue;
		}
		started++;
	}
	for (size_t k = 0; k < t->n; k++)
		if (t->m[k].in[t->pat] && t->m[k].err == -EINPROGRESS)
			pthread_join(t->m[k].thread, NULL);
	if (!started)
		return -EAGAIN;
	for (size_t k = 0; k < t->n; k++) {
		struct member *m = &t->m[k];
		struct agg_fig *f = t->pat == SEQ ? &m->out->seq : &m->out->rand;
		double x;

		if (!m->in[t->pat])
			continue;
		if (m->err < 0 || !m->res.bytes) {
			/* the drive stopped reading with the others: it leaves the pattern */
			snprintf(m->out->left_out, sizeof(m->out->left_out),
				 "stopped reading with the others: %s",
				 m->res.device_gone ? "the drive went away"
				 : m->err < 0	    ? strerror(-m->err)
						    : "no data read");
			ps_findf(t->ctx, PS_SEV_WARN, ps_drive_ref(m->inv), "stopped_together",
				 "%s %s: %s; check dmesg, its cable and power", m->inv->name,
				 m->inv->model, m->out->left_out);
			m->in[SEQ] = m->in[RAND] = false;
			continue;
		}
		x = t->pat == SEQ ? ps_mbps(m->res.bytes, m->res.seconds)
				  : ps_iops(m->res.ios, m->res.seconds);
		total += x;
		if (!warm)
			ps_figure_add(&f->together, x);
	}
	v[0] = total;
	return t->aborted ? -ECANCELED : 0;
}

/* Busy share of all CPUs between two /proc/stat texts, NAN when unknown. */
static double cpu_busy_pct(const char *a, const char *b)
{
	struct ps_stat sa = {0}, sb = {0};
	double pct = NAN;

	if (a && b && ps_stat_parse(a, strlen(a), &sa) == 0 &&
	    ps_stat_parse(b, strlen(b), &sb) == 0 && sa.has_all && sb.has_all) {
		double total = (double)(ps_stat_cpu_total(&sb.all) - ps_stat_cpu_total(&sa.all));
		double idle = (double)(sb.all.v[PS_ST_IDLE] + sb.all.v[PS_ST_IOWAIT] -
				       sa.all.v[PS_ST_IDLE] - sa.all.v[PS_ST_IOWAIT]);

		if (total > 0)
			pct = 100.0 * (total - idle) / total;
	}
	ps_stat_free(&sa);
	ps_stat_free(&sb);
	return pct;
}

static char *read_stat(const struct ps_ctx *ctx)
{
	char path[4096], *text = NULL;
	size_t len;

	ps_path(path, sizeof(path), ctx->root, "/proc/stat");
	return ps_read_all(path, &text, &len) == 0 ? text : NULL;
}

/* ---- what the drives share ---- */

static const struct ps_pcie_dev *pcie_at(const struct ps_inventory *inv, const char *addr)
{
	return addr && addr[0] ? ps_inventory_pcie(inv, addr) : NULL;
}

/*
 * The function that names the link above p (a device's own link is the one
 * to the port above it; a port facing down names the link below itself).
 */
static bool link_of(const struct ps_inventory *inv, const struct ps_pcie_dev *p,
		    const struct ps_pcie_dev **port)
{
	if (!p->fn.has_link || p->fn.link.sta_width <= 0 || p->fn.link.sta_speed <= 0)
		return false;
	if (ps_pcie_port_faces_down(p->fn.port_type))
		*port = p;
	else
		*port = p->up_index >= 0 ? &inv->pcie[p->up_index] : p;
	return true;
}

static struct agg_limit *limit_for(struct agg_result *r, int kind, const char *what)
{
	struct agg_limit *l;

	for (size_t i = 0; i < r->n_limits; i++)
		if (r->limits[i].kind == kind && strcmp(r->limits[i].what, what) == 0)
			return &r->limits[i];
	l = ps_fields_grow(&limit_fields, &r->limits, &r->n_limits);
	if (!l)
		return NULL;
	l->kind = kind;
	snprintf(l->what, sizeof(l->what), "%s", what);
	l->seq_alone_mbps = l->seq_together_mbps = l->rand_alone_iops = l->rand_together_iops = 0;
	return l;
}

static void limit_add(struct agg_limit *l, const struct member *m)
{
	size_t used;

	if (!l)
		return;
	used = strlen(l->drives);

	snprintf(l->drives + used, sizeof(l->drives) - used, "%s%s", l->n_drives ? ", " : "",
		 m->inv->name);
	l->n_drives++;
	if (m->in[SEQ] || m->out->seq.together.n) {
		l->seq_alone_mbps += m->out->seq.alone;
		l->seq_together_mbps += m->out->seq.together.n ? m->out->seq.together.median : 0;
	}
	if (m->in[RAND] || m->out->rand.together.n) {
		l->rand_alone_iops += m->out->rand.alone;
		l->rand_together_iops += m->out->rand.together.n ? m->out->rand.together.median : 0;
	}
}

/* The links, controllers and USB buses above the drives read together. */
static void shared_paths(struct ps_ctx *ctx, struct agg_result *r, struct member *ms, size_t n)
{
	const struct ps_inventory *inv = ctx->inv;

	for (size_t k = 0; k < n; k++) {
		struct member *m = &ms[k];
		const struct ps_pcie_dev *p = pcie_at(inv, m->inv->pci_address);
		unsigned int depth = 0;

		if (m->out->left_out[0])
			continue;
		if (m->inv->pci_address[0])
			limit_add(limit_for(r, L_CONTROLLER, m->inv->pci_address), m);
		if (m->out->usb_bus[0]) {
			char what[64];

			snprintf(what, sizeof(what), "usb bus %s", m->out->usb_bus);
			limit_add(limit_for(r, L_USB_BUS, what), m);
		}
		/* the link between a port and the device below is named once, by the port */
		for (const struct ps_pcie_dev *last = NULL; p && depth < 16; depth++) {
			const struct ps_pcie_dev *port;

			if (link_of(inv, p, &port) && port != last) {
				limit_add(limit_for(r, L_PCIE_LINK, port->fn.address), m);
				last = port;
			}
			p = p->up_index >= 0 ? &inv->pcie[p->up_index] : NULL;
		}
	}
	/* keep what two or more drives share, with what it is */
	for (size_t i = 0; i < r->n_limits;) {
		struct agg_limit *l = &r->limits[i];
		const struct ps_pcie_dev *p = l->kind != L_USB_BUS ? pcie_at(inv, l->what) : NULL;

		if (l->n_drives < 2) {
			ps_fields_free(&limit_fields, l);
			memmove(l, l + 1, (r->n_limits - i - 1) * sizeof(*l));
			r->n_limits--;
			continue;
		}
		if (l->kind == L_PCIE_LINK && p) {
			const struct ps_pcie_dev *below = NULL;

			/* the verdict is the end's that judged it: the port, or the device below */
			for (size_t j = 0; j < inv->n_pcie && !below; j++)
				if (inv->pcie[j].up_index == (int)(p - inv->pcie) &&
				    inv->pcie[j].verdict != PS_LINK_NONE)
					below = &inv->pcie[j];
			if (p->verdict != PS_LINK_NONE || !below)
				below = p;
			l->capacity_mbps =
			    ps_pcie_link_kbps(p->fn.link.sta_speed, p->fn.link.sta_width) / 1000.0;
			l->lost_gbps = below->lost_gbps;
			snprintf(l->detail, sizeof(l->detail), "%g GT/s x%d, %s",
				 ps_pcie_speed_gts(p->fn.link.sta_speed), p->fn.link.sta_width,
				 ps_link_verdict_name(below->verdict));
			if (l->capacity_mbps <= 0)
				l->capacity_mbps = NAN;
		} else if (l->kind == L_CONTROLLER && p) {
			snprintf(l->detail, sizeof(l->detail), "%.95s",
				 p->fn.device_name[0] ? p->fn.device_name : p->fn.class_name);
		} else if (l->kind == L_USB_BUS) {
			char path[4096], speed[32];

			ps_path(path, sizeof(path), ctx->root, "/sys/bus/usb/devices/usb%s/speed",
				l->what + strlen("usb bus "));
			if (ps_read_str(path, speed, sizeof(speed)) == 0 && atof(speed) > 0) {
				l->capacity_mbps =
				    atof(speed) / 8; /* signalling, before protocol */
				snprintf(l->detail, sizeof(l->detail), "%s Mbit/s", speed);
			}
		}
		if (!isnan(l->capacity_mbps) && l->seq_together_mbps > 0)
			l->seq_pct_of_capacity = 100.0 * l->seq_together_mbps / l->capacity_mbps;
		/* a pattern none of its drives read together: unknown, not 0 */
		if (l->seq_together_mbps == 0)
			l->seq_together_mbps = l->seq_alone_mbps = NAN;
		if (l->rand_together_iops == 0)
			l->rand_together_iops = l->rand_alone_iops = NAN;
		i++;
	}
}

/*
 * The ceiling of one pattern: none when together reached HELD_BACK_PCT of
 * the sum alone; else the CPU when it was busy, else the narrowest shared
 * path whose load reached REACHED_PCT of its capacity, else a shared
 * controller whose drives lost most, else unexplained (with what was ruled out).
 */
static void ceiling(struct ps_ctx *ctx, struct agg_result *r, struct agg_total *t)
{
	const char *unit = points[t->pattern].unit;
	const struct agg_limit *best = NULL, *ctrl = NULL, *link_over = NULL;
	double T = t->together.median, A = t->alone_sum;
	double worst_ctrl = 101;

	for (size_t i = 0; i < r->n_limits; i++) {
		const struct agg_limit *l = &r->limits[i];
		double cap = t->pattern == SEQ ? l->capacity_mbps : l->capacity_mbps * 1e6 / 4096;
		double got = t->pattern == SEQ ? l->seq_together_mbps : l->rand_together_iops;
		double alone = t->pattern == SEQ ? l->seq_alone_mbps : l->rand_alone_iops;

		if (!isnan(cap) && !isnan(got) && got >= REACHED_PCT / 100 * cap) {
			if (!best || cap < (t->pattern == SEQ ? best->capacity_mbps
							      : best->capacity_mbps * 1e6 / 4096))
				best = l;
			if (got > cap * 1.05)
				link_over = l;
		}
		if (l->kind == L_CONTROLLER && alone > 0 && !isnan(got) &&
		    100 * got / alone < worst_ctrl) {
			worst_ctrl = 100 * got / alone;
			ctrl = l;
		}
	}
	t->ceiling_what[0] = 0;
	if (t->pct_of_alone >= HELD_BACK_PCT) {
		t->ceiling = L_NONE;
		snprintf(
		    t->ceiling_why, sizeof(t->ceiling_why),
		    "together %.0f %s, %.0f%% of the %.0f %s the drives read alone: nothing they "
		    "share held them back, each drive is its own limit",
		    T, unit, t->pct_of_alone, A, unit);
		return;
	}
	if (!isnan(t->cpu_busy_pct) && t->cpu_busy_pct >= CPU_BUSY_PCT) {
		t->ceiling = L_CPU;
		snprintf(t->ceiling_what, sizeof(t->ceiling_what), "all CPUs");
		snprintf(
		    t->ceiling_why, sizeof(t->ceiling_why),
		    "together %.0f %s, %.0f%% of %.0f %s alone, with the CPUs %.0f%% busy: the "
		    "CPU (submission, completion, interrupts) is the ceiling",
		    T, unit, t->pct_of_alone, A, unit, t->cpu_busy_pct);
		return;
	}
	if (best && best != link_over) {
		double got = t->pattern == SEQ ? best->seq_together_mbps : best->rand_together_iops;
		double mbps = t->pattern == SEQ ? got : got * 4096 / 1e6;

		t->ceiling = best->kind;
		snprintf(t->ceiling_what, sizeof(t->ceiling_what), "%s", best->what);
		snprintf(t->ceiling_why, sizeof(t->ceiling_why),
			 "together %.0f %s, %.0f%% of %.0f %s alone: %s%s (%.60s, %.0f MB/s each "
			 "way%s) that %.200s share carried %.0f MB/s, %.0f%% of its capacity",
			 T, unit, t->pct_of_alone, A, unit,
			 best->kind == L_PCIE_LINK ? "the PCIe link at " : "", best->what,
			 best->detail, best->capacity_mbps,
			 isnan(best->lost_gbps) ? "" : ", degraded", best->drives, mbps,
			 100 * mbps / best->capacity_mbps);
		return;
	}
	if (ctrl && worst_ctrl < HELD_BACK_PCT) {
		t->ceiling = L_CONTROLLER;
		snprintf(t->ceiling_what, sizeof(t->ceiling_what), "%s", ctrl->what);
		snprintf(
		    t->ceiling_why, sizeof(t->ceiling_why),
		    "together %.0f %s, %.0f%% of %.0f %s alone: the drives on controller %s "
		    "(%.95s: %.200s) got %.0f%% of their figures alone, the least of any shared "
		    "path",
		    T, unit, t->pct_of_alone, A, unit, ctrl->what, ctrl->detail, ctrl->drives,
		    worst_ctrl);
		return;
	}
	t->ceiling = L_UNEXPLAINED;
	snprintf(
	    t->ceiling_why, sizeof(t->ceiling_why),
	    "together %.0f %s, %.0f%% of %.0f %s alone; CPUs %.0f%% busy, no shared link or "
	    "bus reached %.0f%% of its capacity%s: %s",
	    T, unit, t->pct_of_alone, A, unit, t->cpu_busy_pct, REACHED_PCT,
	    link_over ? " (an emulated link carried more than its capacity: a hypervisor does "
			"not hold a link to its width)"
		      : "",
	    ctx && ctx->inv->machine.under_hypervisor
		? "a virtual machine, whose drives are emulated on the host's CPU and storage: "
		  "the hypervisor is the likely ceiling"
		: "the memory bus or the chipset uplink remain");
}

/* ---- the step ---- */

static const struct agg_plan *plan_of(const struct ps_ctx *ctx)
{
	return ctx->plan && ctx->plan->level == PS_PLAN_FULL ? &plans[1] : &plans[0];
}

static struct ps_noise_rule noise_rule(const struct agg_plan *p)
{
	return (struct ps_noise_rule){
	    .warmup = 1, .runs = p->runs, .max_runs = p->max_runs, .cv_limit_pct = p->noise_cv_pct};
}

/* disk_read's row for a drive in this run, or NULL. */
static const void *alone_row(const void *dr, const struct ps_fields *t, const char *name,
			     const struct ps_fields **sub)
{
	const void *rows;
	size_t n = ps_fields_array(t, dr, "drives", &rows, sub);

	for (size_t i = 0; i < n; i++) {
		const void *row = (const char *)rows + i * (*sub)->size;

		if (strcmp(ps_fields_text(*sub, row, "name"), name) == 0)
			return row;
	}
	return NULL;
}

/* Whether drive m is read together, from what disk_read did with it alone. */
static void admit(struct member *m, const void *dr, const struct ps_fields *dt)
{
	const struct ps_fields *sub = NULL;
	const void *row = alone_row(dr, dt, m->inv->name, &sub);
	const char *why;

	m->fd = -1;
	if (m->inv->boot_device) {
		snprintf(m->out->left_out, sizeof(m->out->left_out),
			 "the boot stick: never touched");
		return;
	}
	if (!row) {
		snprintf(m->out->left_out, sizeof(m->out->left_out), "disk_read did not read it");
		return;
	}
	why = ps_fields_text(sub, row, "skipped_reason");
	if (why[0]) {
		snprintf(m->out->left_out, sizeof(m->out->left_out), "%s", why);
		return;
	}
	m->out->seq.alone = ps_fields_num(sub, row, points[SEQ].alone);
	m->out->rand.alone = ps_fields_num(sub, row, points[RAND].alone);
	why = ps_fields_text(sub, row, "engine_error");
	if (why[0] || (isnan(m->out->seq.alone) && isnan(m->out->rand.alone))) {
		snprintf(m->out->left_out, sizeof(m->out->left_out),
			 "failed alone in disk_read: %s", why[0] ? why : "no figure");
		ps_not_tested(m->ctx, ps_drive_ref(m->inv), "%s", m->out->left_out);
		return;
	}
	m->in[SEQ] = !isnan(m->out->seq.alone);
	m->in[RAND] = !isnan(m->out->rand.alone);
}

static int open_member(struct member *m)
{
	bool direct = false;
	int ret;

	m->fd = ps_uio_open(m->path, true, &direct, NULL);
	if (m->fd < 0)
		return m->fd;
	ret = ps_uio_size(m->fd, &m->size);
	if (ret == 0 && m->size < PS_UIO_ALIGN)
		ret = -ENOSPC;
	if (ret < 0) {
		close(m->fd);
		m->fd = -1;
	}
	return ret;
}

static unsigned int in_pattern(const struct member *ms, size_t n, enum pattern pat)
{
	unsigned int c = 0;

	for (size_t k = 0; k < n; k++)
		c += ms[k].in[pat];
	return c;
}

/* One pattern, every admitted drive at once, under the noise rule. */
static int measure(struct together *t, struct agg_total *tot)
{
	struct ps_measure me = {.rule = noise_rule(t->p),
				.nfig = 1,
				.run = together_run,
				.arg = t,
				.should_stop = should_stop,
				.stop_arg = t,
				.progress = ps_measure_bar_hook,
				.progress_arg = &t->bar};
	char phase[96], *a, *b;
	int err;

	tot->pattern = t->pat;
	tot->bs = points[t->pat].bs;
	tot->qd = points[t->pat].qd;
	snprintf(tot->unit, sizeof(tot->unit), "%s", points[t->pat].unit);
	tot->drives = in_pattern(t->m, t->n, t->pat);
	tot->alone_sum = 0;
	for (size_t k = 0; k < t->n; k++)
		if (t->m[k].in[t->pat])
			tot->alone_sum +=
			    t->pat == SEQ ? t->m[k].out->seq.alone : t->m[k].out->rand.alone;
	snprintf(phase, sizeof(phase), "all %u: %s", tot->drives,
		 t->pat == SEQ ? "seq 1M QD8" : "rand 4K QD32");
	ps_measure_bar_start(&t->bar, t->ctx, phase, ps_measure_planned(&me.rule), 1, "runs");
	a = read_stat(t->ctx);
	err = ps_measure_run(&me, &tot->together);
	b = read_stat(t->ctx);
	tot->cpu_busy_pct = cpu_busy_pct(a, b);
	free(a);
	free(b);
	for (size_t k = 0; k < t->n; k++) {
		struct agg_fig *f = t->pat == SEQ ? &t->m[k].out->seq : &t->m[k].out->rand;

		ps_figure_finish(&f->together, NULL);
		if (f->together.n && f->alone > 0)
			f->pct_of_alone = 100 * f->together.median / f->alone;
		if (f->together.n && tot->together.n && tot->together.median > 0)
			f->share_pct = 100 * f->together.median / tot->together.median;
	}
	if (tot->together.n && tot->alone_sum > 0)
		tot->pct_of_alone = 100 * tot->together.median / tot->alone_sum;
	return err == -ECANCELED ? 0 : err;
}

static void judge(struct ps_ctx *ctx, struct agg_result *r, struct member *ms, size_t n)
{
	for (size_t i = 0; i < r->n_totals; i++) {
		struct agg_total *t = &r->totals[i];
		const struct agg_limit *l = NULL;
		struct ps_finding f = {.severity = PS_SEV_INFO,
				       .rule = "ceiling",
				       .value = t->together.median,
				       .limit = t->alone_sum,
				       .unit = points[t->pattern].unit};

		if (!t->together.n)
			continue;
		ceiling(ctx, r, t);
		for (size_t j = 0; j < r->n_limits && t->ceiling_what[0]; j++)
			if (r->limits[j].kind == t->ceiling &&
			    strcmp(r->limits[j].what, t->ceiling_what) == 0)
				l = &r->limits[j];
		if (l && l->kind == L_PCIE_LINK) {
			const struct ps_pcie_dev *p = ps_inventory_pcie(ctx->inv, l->what);

			if (p)
				f.dev = ps_pcie_ref(p);
			if (!isnan(l->lost_gbps))
				f.severity = PS_SEV_WARN;
		}
		ps_find(ctx, &f, "%s %s QD%u on %u drives at once: %s%s",
			t->pattern == SEQ ? "sequential 1M" : "random 4K",
			t->pattern == SEQ ? "reads" : "reads", t->qd, t->drives, t->ceiling_why,
			f.severity == PS_SEV_WARN
			    ? "; the link is degraded (below what both ends support): reseat the "
			      "card or move it to a slot that trains wider or faster"
			    : "");
	}
	for (size_t k = 0; k < n; k++) {
		const struct agg_drive *d = ms[k].out;
		char s[96] = "", q[96] = "";

		if (!d->seq.together.n && !d->rand.together.n)
			continue;
		if (d->seq.together.n)
			snprintf(s, sizeof(s), "seq %.0f MB/s together, %.0f%% of %.0f alone",
				 d->seq.together.median, d->seq.pct_of_alone, d->seq.alone);
		if (d->rand.together.n)
			snprintf(q, sizeof(q), "%srand %.0f IOPS, %.0f%% of %.0f", s[0] ? "; " : "",
				 d->rand.together.median, d->rand.pct_of_alone, d->rand.alone);
		if (d->read_errors)
			ps_findf(
			    ctx, PS_SEV_FAIL, ps_drive_ref(ms[k].inv), "read_error",
			    "%llu reads failed while every drive read at once: run disk_read and "
			    "the surface scan on it, and check dmesg",
			    (unsigned long long)d->read_errors);
		else
			ps_examined(ctx, ps_drive_ref(ms[k].inv), "measured", "%s%s", s, q);
	}
}

static int run(struct ps_ctx *ctx)
{
	const struct agg_plan *p = plan_of(ctx);
	struct agg_result *out = ctx->result;
	const struct ps_fields *dt = NULL;
	const void *dr = ps_after_result(ctx, &dt);
	struct member *ms;
	size_t n = ctx->inv->n_drives;
	int ret = PS_PASS;
	bool aborted = false;

	out->plan = p == &plans[1];
	out->rule = noise_rule(p);
	out->time_budget_s = p->time_budget_s;
	if (!dr) {
		ps_step_reason(ctx,
			       "disk_read did not run in this plan: no figure alone to compare");
		return PS_SKIPPED;
	}
	out->drives = ps_fields_new(&drive_fields, n ? n : 1);
	ms = calloc(n ? n : 1, sizeof(*ms));
	if (!out->drives || !ms) {
		free(ms);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		struct member *m = &ms[k];
		const struct ps_drive *drv = &ctx->inv->drives[k];
		int err;

		m->ctx = ctx;
		m->inv = drv;
		m->out = &out->drives[out->n_drives++];
		snprintf(m->out->name, sizeof(m->out->name), "%s", drv->name[0] ? drv->name : "?");
		m->out->device = drv->id;
		snprintf(m->out->controller, sizeof(m->out->controller), "%s", drv->pci_address);
		if (drv->usb_path[0])
			snprintf(m->out->usb_bus, sizeof(m->out->usb_bus), "%.*s",
				 (int)strcspn(drv->usb_path, "-"), drv->usb_path);
		ps_path(m->path, sizeof(m->path), ctx->root, "/dev/%s", drv->name);
		admit(m, dr, dt);
		if ((m->in[SEQ] || m->in[RAND]) && (err = open_member(m)) < 0) {
			snprintf(m->out->left_out, sizeof(m->out->left_out), "cannot open %s: %s",
				 m->path, strerror(-err));
			ps_not_tested(ctx, ps_drive_ref(drv), "%s", m->out->left_out);
			m->in[SEQ] = m->in[RAND] = false;
		}
	}
	if (in_pattern(ms, n, SEQ) < 2 && in_pattern(ms, n, RAND) < 2) {
		ps_step_reason(ctx, "%u drive%s measured alone: reading at once needs two or more",
			       in_pattern(ms, n, SEQ), in_pattern(ms, n, SEQ) == 1 ? "" : "s");
		ret = PS_SKIPPED;
		goto out;
	}
	for (int pat = SEQ; pat < N_PATTERNS && !aborted; pat++) {
		struct together t = {.ctx = ctx, .p = p, .pat = pat, .m = ms, .n = n};
		int err;

		if (in_pattern(ms, n, pat) < 2)
			continue;
		err = measure(&t, &out->totals[out->n_totals++]);
		aborted = t.aborted;
		if (err < 0 && !aborted) {
			ps_step_reason(ctx, "reading the drives at once failed: %s",
				       strerror(-err));
			ret = err;
			break;
		}
	}
	shared_paths(ctx, out, ms, n);
	judge(ctx, out, ms, n);
	if (aborted)
		ret = PS_ABORTED;
	for (size_t k = 0; k < n && ret == PS_PASS; k++)
		if (ms[k].out->read_errors)
			ret = PS_FAIL;
out:
	for (size_t k = 0; k < n; k++)
		if (ms[k].fd >= 0)
			close(ms[k].fd);
	free(ms);
	return ret;
}

static double estimate(const struct ps_ctx *ctx)
{
	const struct agg_plan *p = plan_of(ctx);
	unsigned int n = 0;

	for (size_t i = 0; i < ctx->inv->n_drives; i++)
		n += !ctx->inv->drives[i].boot_device && ctx->inv->drives[i].size_bytes != 0;
	return n < 2 ? 0 : N_PATTERNS * (p->runs + 1) * (p->time_budget_s + 0.2);
}

/* ---- view ---- */

/* Units in the block's title: each title is unique (compare matches figures by title). */
static const struct ps_col drive_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/seq/alone", .title = "seq alone", .better = PS_BETTER_HIGHER},
    {.path = "/seq/median_together",
     .title = "seq together",
     .better = PS_BETTER_HIGHER,
     .spread = "/seq/cv_pct",
     .min = "/seq/min_together",
     .max = "/seq/max_together",
     .noisy = "/seq/noisy"},
    {.path = "/seq/pct_of_alone", .title = "seq %", .better = PS_BETTER_HIGHER},
    {.path = "/rand/alone", .title = "rand alone", .better = PS_BETTER_HIGHER},
    {.path = "/rand/median_together",
     .title = "rand together",
     .better = PS_BETTER_HIGHER,
     .spread = "/rand/cv_pct",
     .min = "/rand/min_together",
     .max = "/rand/max_together",
     .noisy = "/rand/noisy"},
    {.path = "/rand/pct_of_alone", .title = "rand %", .better = PS_BETTER_HIGHER},
};

static const struct ps_col total_cols[] = {
    {.path = "/pattern", .title = "io", .flags = PS_COL_KEY},
    {.path = "/bs", .title = "bs", .fmt = PS_FMT_BLOCK, .flags = PS_COL_KEY},
    {.path = "/qd", .title = "qd", .flags = PS_COL_KEY},
    {.path = "/drives", .title = "drives"},
    {.path = "/alone_sum",
     .title = "sum alone",
     .unit_from = "/unit",
     .decimals = 0,
     .better = PS_BETTER_HIGHER},
    {.path = "/" PS_FIGURE_MEDIAN("together"),
     .title = "together",
     .unit_from = "/unit",
     .head = "together",
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE,
     .spread = "/" PS_FIGURE_CV,
     .min = "/" PS_FIGURE_MIN("together"),
     .max = "/" PS_FIGURE_MAX("together"),
     .noisy = "/" PS_FIGURE_NOISY},
    {.path = "/pct_of_alone", .title = "%", .decimals = 0, .better = PS_BETTER_HIGHER},
    {.path = "/cpu_busy_pct", .title = "cpu", .unit = "%", .decimals = 0, .flags = PS_COL_MEASURED},
    {.path = "/ceiling", .title = "ceiling", .flags = PS_COL_MEASURED},
};

static const struct ps_col limit_cols[] = {
    {.path = "/kind", .title = "shared", .flags = PS_COL_KEY},
    {.path = "/what", .title = "at", .flags = PS_COL_KEY},
    {.path = "/detail", .title = "link / kind", .flags = PS_COL_OPTIONAL},
    {.path = "/capacity_mbps", .title = "capacity", .unit = "MB/s"},
    {.path = "/seq_together_mbps",
     .title = "seq",
     .unit = "MB/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER},
    {.path = "/seq_pct_of_capacity", .title = "% cap", .decimals = 0, .flags = PS_COL_MEASURED},
    {.path = "/lost_gbps",
     .title = "lost",
     .unit = "GB/s",
     .decimals = 2,
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_OPTIONAL},
    {.path = "/drives", .title = "drives", .flags = PS_COL_WIDE},
};

static const struct ps_col left_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/left_out", .title = "not read together", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "totals",
     .title = "Every drive at once (MB/s seq, IOPS rand; medians after a warm-up run)",
     .rows = "/totals",
     .cols = PS_COLS(total_cols),
     .empty = "fewer than two drives were measured alone",
     .note = PS_FIGURE_NOTE},
    {.kind = PS_BLOCK_TABLE,
     .id = "drives",
     .title = "Alone (disk_read) vs together: seq 1M QD8 MB/s, rand 4K QD32 IOPS",
     .rows = "/drives",
     .unless = "/left_out",
     .cols = PS_COLS(drive_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "shared",
     .title = "What the drives share (PCIe links, controllers, USB buses)",
     .rows = "/limits",
     .cols = PS_COLS(limit_cols),
     .note = "capacity: the link's payload each way at its trained speed and width"},
    {.kind = PS_BLOCK_TABLE,
     .id = "left_out",
     .rows = "/drives",
     .when = "/left_out",
     .cols = PS_COLS(left_cols)},
};

static const struct ps_view view = {
    .name = "disk_aggregate",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops disk_aggregate_ops = {
    .abi = PS_STEP_ABI,
    .name = "disk_aggregate",
    .title = "every drive read at once, and what caps them (read-only)",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .order = 22,
    .after = "disk_read",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &agg_fields,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(disk_aggregate_ops);
