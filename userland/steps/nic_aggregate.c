/*
 * nic_aggregate.c - two or more cabled pairs: each alone, then all at once,
 * and over a bond when probestick.cfg asks (bond=balance-rr or 802.3ad);
 * the aggregate against the sum of the single pairs, and the ceiling named:
 * the CPU, one CPU taking every port's interrupts, a PCIe link the ports
 * share. Seeds 001 and 004 bonded ports and hit a ceiling nobody could name.
 */
/* clang-format off */
//config:config STEP_NIC_AGGREGATE
//config:	bool "nic_aggregate: several cabled pairs at once, and over a bond (full plan)"
//config:	default y
//config:	help
//config:	  With two or more pairs of ports cabled to each other: TCP
//config:	  throughput of each pair alone, of all pairs at once, and (with
//config:	  bond=balance-rr or bond=802.3ad in probestick.cfg) over a bond
//config:	  of one side's ports against a bond of the other side's; the
//config:	  aggregate against the sum of the singles, and what limits it.
//config:	  Bonds are removed and ports put back at the end.
//kbuild:step-$(CONFIG_STEP_NIC_AGGREGATE) += nic_aggregate.o
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/session.h"
#include "lib/json.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CARRIER_S    5.0
#define PROBE_S	     1.0
#define STREAMS	     4
#define SECONDS	     5
#define DATA_VERSION 1

/* ---- the result: data{} as a struct, described once ---- */

struct pair_row {
	char a[IF_NAMESIZE], b[IF_NAMESIZE];
	int link_mbps;			  /* -1 unknown */
	double alone_mbps, together_mbps; /* NAN: not measured */
};

struct bond_row {
	const char *mode;
	json_object *a, *b; /* each side's ports by name */
	int streams;
	double mbps;
	struct ps_cost_result *cost;
	char error[320]; /* "" none */
};

struct aggregate_result {
	int seconds, streams;
	struct pair_row *pairs;
	size_t n_pairs;
	double sum_alone_mbps, together_mbps, together_pct_of_sum;
	struct ps_cost_result *together_cost;
	struct bond_row *bond;
	const char *ceiling;
	char ceiling_why[400];
	struct ps_nic_rows rows; /* ports[], restored[] */
};

static const struct ps_field pair_f[] = {
    PS_FIELD(struct pair_row, a, "a"),
    PS_FIELD(struct pair_row, b, "b"),
    PS_FIELD(struct pair_row, link_mbps, "link_mbps", .unit = "Mbit/s", .flags = PS_FLD_NULL),
    PS_FIELD(struct pair_row, alone_mbps, "alone_mbps", .unit = "Mbit/s", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct pair_row, together_mbps, "together_mbps", .unit = "Mbit/s", .decimals = 1,
	     .flags = PS_FLD_NULL),
};
static const struct ps_fields pair_fields = PS_FIELDS(struct pair_row, pair_f);

#define SIDE_SCHEMA "{\"type\": \"array\", \"items\": {\"type\": \"string\"}}"
static const struct ps_field bond_f[] = {
    PS_FIELD(struct bond_row, mode, "mode"),
    PS_FIELD(struct bond_row, a, "a", .schema = SIDE_SCHEMA),
    PS_FIELD(struct bond_row, b, "b", .schema = SIDE_SCHEMA),
    PS_FIELD(struct bond_row, streams, "streams", .flags = PS_FLD_OMIT),
    PS_FIELD(struct bond_row, mbps, "mbps", .unit = "Mbit/s", .decimals = 1,
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD_OBJP(struct bond_row, cost, "cost", &ps_cost_fields,
		  .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct bond_row, error, "error", .flags = PS_FLD_OMIT),
};
static const struct ps_fields bond_fields = PS_FIELDS(struct bond_row, bond_f);

static const char *const ceilings[] = {"none",	    "cpu",     "interrupts on one cpu",
				       "pcie link", "unknown", NULL};

static const struct ps_field aggregate_f[] = {
    PS_FIELD(struct aggregate_result, seconds, "seconds", .unit = "s"),
    PS_FIELD(struct aggregate_result, streams, "streams"),
    PS_FIELD_ARRAY(struct aggregate_result, pairs, n_pairs, "pairs", &pair_fields),
    PS_FIELD(struct aggregate_result, sum_alone_mbps, "sum_alone_mbps", .unit = "Mbit/s",
	     .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct aggregate_result, together_mbps, "together_mbps", .unit = "Mbit/s",
	     .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD(struct aggregate_result, together_pct_of_sum, "together_pct_of_sum", .unit = "%",
	     .decimals = 1, .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD_OBJP(struct aggregate_result, together_cost, "together_cost", &ps_cost_fields,
		  .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD_OBJP(struct aggregate_result, bond, "bond", &bond_fields, .flags = PS_FLD_NULL),
    PS_FIELD(struct aggregate_result, ceiling, "ceiling", .names = ceilings, .flags = PS_FLD_NULL),
    PS_FIELD(struct aggregate_result, ceiling_why, "ceiling_why",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_NIC_ROWS_FIELDS(struct aggregate_result, rows, .flags = PS_FLD_NEWER),
};
static const struct ps_fields aggregate_fields = PS_FIELDS(struct aggregate_result, aggregate_f);

/* ---- measuring ---- */

struct job {
	struct ps_iperf_opts o;
	struct ps_iperf_result res;
	int ret;
	pthread_t th;
};

static void *job_run(void *arg)
{
	struct job *j = arg;

	j->ret = ps_iperf_pair_run(&j->o, &j->res);
	return NULL;
}

static void job_init(struct job *j, struct ps_ctx *ctx, const struct ps_port *from,
		     const struct ps_port *to, int port)
{
	memset(j, 0, sizeof(*j));
	j->o = (struct ps_iperf_opts){.server_ns_fd = to->ns,
				      .client_ns_fd = from->ns,
				      .server_addr = to->addr_txt,
				      .port = port,
				      .streams = STREAMS,
				      .duration_s = SECONDS,
				      .should_stop = ps_should_abort_hook,
				      .stop_arg = ctx};
}

static struct ps_cost_result *cost_copy(const struct ps_cost_result *c)
{
	struct ps_cost_result *o = c->known ? ps_fields_new(&ps_cost_fields, 1) : NULL;

	if (o)
		*o = *c;
	return o;
}

/* Do two ports share the PCIe link above them (functions of one device, or one upstream)? */
static const struct ps_pcie_dev *shared_link(const struct ps_inventory *inv,
					     const struct ps_port *a, const struct ps_port *b)
{
	const struct ps_pcie_dev *pa, *pb;

	if (!a->nic || !b->nic || !a->nic->pci_address[0] || !b->nic->pci_address[0])
		return NULL;
	pa = ps_inventory_pcie(inv, a->nic->pci_address);
	pb = ps_inventory_pcie(inv, b->nic->pci_address);
	if (!pa || !pb)
		return NULL;
	/* 0000:03:00.0 and 0000:03:00.1: one card, one link */
	if (strncmp(pa->fn.address, pb->fn.address, 10) == 0)
		return pa;
	if (pa->up_index >= 0 && pa->up_index == pb->up_index &&
	    inv->pcie[pa->up_index].fn.port_type != -1 && pa->fn.upstream[0] &&
	    strcmp(pa->fn.upstream, pb->fn.upstream) == 0 && inv->pcie[pa->up_index].up_index >= 0)
		return &inv->pcie[pa->up_index];
	return NULL;
}

/* A link's payload bandwidth in Mbit/s each way: rate x lanes x encoding. */
static double link_mbps(const struct ps_pcie_dev *d)
{
	double gts = ps_pcie_speed_gts(d->fn.link.sta_speed);
	int w = d->fn.link.sta_width;

	if (gts <= 0 || w <= 0)
		return -1;
	return gts * 1000 * w * (gts >= 8 ? 128.0 / 130 : 0.8);
}

static void name_ceiling(struct ps_ctx *ctx, struct ps_nic_session *ss, double sum, double together,
			 const struct ps_cost_result *c)
{
	struct aggregate_result *r = ctx->result;
	double pct = sum > 0 ? together * 100 / sum : -1;
	size_t np = ss->npairs;
	char *why = r->ceiling_why;
	const size_t whylen = sizeof(r->ceiling_why);
	const char *ceiling;
	const struct ps_pcie_dev *shared = NULL;

	for (size_t i = 0; i < np && !shared; i++)
		for (size_t j = 0; j < np && !shared; j++)
			if (i != j)
				shared = shared_link(ctx->inv, &ss->ps.p[ss->pairs[i].a],
						     &ss->ps.p[ss->pairs[j].a]);
	if (pct < 0)
		return;
	r->together_pct_of_sum = pct;
	if (pct >= 90) {
		ceiling = "none";
		snprintf(why, whylen,
			 "the %zu pairs together reach %.0f%% of their sum (%.0f of %.0f Mbit/s): "
			 "nothing they share holds them back",
			 np, pct, together, sum);
	} else if (c->known && c->cpu_bound) {
		ceiling = "cpu";
		snprintf(
		    why, whylen,
		    "the CPU: together %.0f of %.0f Mbit/s (%.0f%%), the busiest core (CPU %d) "
		    "%.0f%% busy, %.0f%% of it in softirq",
		    together, sum, pct, c->busiest_cpu, c->busiest_pct, c->busiest_softirq_pct);
	} else if (c->known && c->irq_one_cpu) {
		ceiling = "interrupts on one cpu";
		snprintf(why, whylen,
			 "one CPU (CPU %d) took every port's interrupts: together %.0f of %.0f "
			 "Mbit/s (%.0f%%); spread the ports' IRQs over the cores (irqbalance, "
			 "smp_affinity) or use a NIC with more queues",
			 c->irq_cpu, together, sum, pct);
	} else if (shared && link_mbps(shared) > 0 && together >= 0.8 * link_mbps(shared)) {
		ceiling = "pcie link";
		snprintf(
		    why, whylen,
		    "the PCIe link at %s (%.0f Mbit/s each way) that the ports share: together "
		    "%.0f of %.0f Mbit/s (%.0f%%)",
		    shared->fn.address, link_mbps(shared), together, sum, pct);
	} else {
		ceiling = "unknown";
		snprintf(
		    why, whylen,
		    "together %.0f of %.0f Mbit/s (%.0f%%); not the CPU (busiest core %.0f%%), "
		    "not one interrupt CPU, no PCIe link they share: the memory bus or the "
		    "chipset",
		    together, sum, pct, c->known ? c->busiest_pct : -1);
	}
	r->ceiling = ceiling;
	{
		struct ps_finding f = {.severity = pct < 75 && !ctx->inv->machine.under_hypervisor
						       ? PS_SEV_WARN
						       : PS_SEV_INFO,
				       .dev = {PS_DEV_MACHINE, ctx->inv->machine.id, "machine"},
				       .rule = "ceiling",
				       .value = together,
				       .limit = sum,
				       .unit = "Mbit/s"};

		ps_find(ctx, &f, "%s", why);
	}
}

/* ---- over a bond: side A's ports in one bond, side B's in another, each in a namespace ---- */

struct bond {
	struct ps_ctx *ctx;
	struct ps_nic_session *s;
	struct bond_row *row;
	int ns[2];
	struct ps_rtnl r[2];
	struct ps_port bp[2]; /* the bonds, as ports to measure between */
};

static const char *const bond_names[2] = {"psbondA", "psbondB"};

static struct ps_port *side_port(struct bond *bd, size_t k, int side)
{
	return &bd->s->ps.p[side ? bd->s->pairs[k].b : bd->s->pairs[k].a];
}

/* The namespaces and the two bonds in them. */
static int bond_make(struct bond *bd)
{
	int ret = 0;

	for (int s = 0; s < 2; s++)
		bd->ns[s] = ps_netns_create();
	if (bd->ns[0] < 0 || bd->ns[1] < 0) {
		ret = bd->ns[0] < 0 ? bd->ns[0] : bd->ns[1];
		snprintf(bd->row->error, sizeof(bd->row->error), "no namespace for the bonds: %s",
			 strerror(-ret));
		return ret;
	}
	ps_module_load("bonding", "max_bonds=0");
	for (int s = 0; s < 2 && ret == 0; s++) {
		ret = ps_rtnl_open(&bd->r[s], bd->ns[s]);
		if (ret == 0)
			ret = ps_rtnl_bond_add(&bd->r[s], bond_names[s], bd->row->mode);
		if (ret < 0)
			snprintf(bd->row->error, sizeof(bd->row->error), "creating a %s bond: %s%s",
				 bd->row->mode, strerror(-ret),
				 ret == -EOPNOTSUPP ? " (no bonding driver)" : "");
	}
	return ret;
}

/* Each port from its namespace into its side's bond. */
static int bond_enslave(struct bond *bd)
{
	int ret = 0;

	for (size_t k = 0; k < bd->s->npairs && ret == 0; k++)
		for (int s = 0; s < 2 && ret == 0; s++) {
			struct ps_port *p = side_port(bd, k, s);
			struct ps_link l, bl;

			ps_rtnl_link_set_up(&p->r, p->ifindex, false);
			ret = ps_rtnl_link_set_ns(&p->r, p->ifindex, bd->ns[s]);
			if (ret == 0)
				ret = ps_rtnl_link_find(&bd->r[s], p->name, NULL, 0, &l);
			if (ret == 0)
				ret = ps_rtnl_link_find(&bd->r[s], bond_names[s], NULL, 0, &bl);
			if (ret == 0)
				ret = ps_rtnl_link_set_master(&bd->r[s], l.ifindex, bl.ifindex);
			if (ret < 0)
				snprintf(bd->row->error, sizeof(bd->row->error), "enslaving %s: %s",
					 p->name, strerror(-ret));
			json_object_array_add(s ? bd->row->b : bd->row->a,
					      json_object_new_string(p->name));
		}
	return ret;
}

/* Each bond addressed (198.18.200.1 and .2) and up, its slaves with it. */
static int bond_up(struct bond *bd)
{
	int ret = 0;

	for (int s = 0; s < 2 && ret == 0; s++) {
		struct ps_port *p = &bd->bp[s];
		double end = ps_mono_now() + 10;
		struct ps_link l;

		p->ns = bd->ns[s];
		snprintf(p->name, sizeof(p->name), "%s", bond_names[s]);
		ret = ps_rtnl_link_find(&bd->r[s], p->name, NULL, 0, &l);
		if (ret < 0)
			break;
		p->ifindex = l.ifindex;
		p->addr.s_addr = htonl(0xc612c800u | (unsigned int)(s + 1));
		inet_ntop(AF_INET, &p->addr, p->addr_txt, sizeof(p->addr_txt));
		ps_rtnl_link_no_ipv6_ll(&bd->r[s], l.ifindex);
		ret = ps_rtnl_addr_add4(&bd->r[s], l.ifindex, p->addr, 24);
		if (ret == 0)
			ret = ps_rtnl_link_set_up(&bd->r[s], l.ifindex, true);
		/* the slaves come up with the bond; 802.3ad negotiates for a second or two */
		while (ret == 0 && ps_mono_now() < end &&
		       !(ps_rtnl_link_find(&bd->r[s], p->name, NULL, 0, &l) == 0 && l.carrier == 1))
			usleep(100000);
		if (ret < 0)
			snprintf(bd->row->error, sizeof(bd->row->error), "bringing %.15s up: %s",
				 p->name, strerror(-ret));
	}
	return ret;
}

static void bond_measure(struct bond *bd)
{
	struct ps_cost cost = {.root = bd->ctx->root};
	struct ps_cost_result cr;
	struct job j;

	usleep(2000000); /* LACP's first exchanges: every slave in the aggregate */
	ps_progress_phase(bd->ctx, "over the bond", (uint64_t)SECONDS * 1000, "ms");
	job_init(&j, bd->ctx, &bd->bp[0], &bd->bp[1], 5201);
	ps_cost_begin(&cost);
	j.ret = ps_iperf_pair_run(&j.o, &j.res);
	ps_cost_end(&cost, &cr);
	bd->row->streams = STREAMS;
	bd->row->cost = cost_copy(&cr);
	if (j.ret < 0) {
		snprintf(bd->row->error, sizeof(bd->row->error), "%s", j.res.error);
		return;
	}
	bd->row->mbps = j.res.mbps;
	ps_findf(bd->ctx, PS_SEV_INFO, (struct ps_dev_ref){0}, "bond",
		 "over a %s bond of %zu ports a side: %.0f Mbit/s with %d streams", bd->row->mode,
		 bd->s->npairs, j.res.mbps, STREAMS);
}

/* Ports back into their own namespaces (the session takes them home from there); the bonds
 * go with their namespaces, each one's going recorded. */
static void bond_undo(struct bond *bd)
{
	struct aggregate_result *r = bd->ctx->result;
	struct ps_link l;

	for (size_t k = 0; k < bd->s->npairs; k++)
		for (int s = 0; s < 2; s++) {
			struct ps_port *p = side_port(bd, k, s);

			if (bd->ns[s] < 0 || !bd->r[s].nl ||
			    ps_rtnl_link_find(&bd->r[s], p->name, NULL, 0, &l) < 0)
				continue;
			ps_rtnl_link_set_master(&bd->r[s], l.ifindex, 0);
			ps_rtnl_link_set_ns(&bd->r[s], l.ifindex, p->ns);
			if (ps_rtnl_link_find(&p->r, p->name, NULL, 0, &l) == 0)
				p->ifindex = l.ifindex;
		}
	for (int s = 0; s < 2; s++) {
		bool there;

		if (bd->r[s].nl && ps_rtnl_link_find(&bd->r[s], bond_names[s], NULL, 0, &l) == 0)
			ps_rtnl_link_del(&bd->r[s], l.ifindex);
		there =
		    bd->r[s].nl && ps_rtnl_link_find(&bd->r[s], bond_names[s], NULL, 0, &l) == 0;
		ps_put_back_add(r->rows.restored, &r->rows.n_restored, PS_PUT_BACK_MAX,
				bond_names[s], "bond", "none", there ? "present" : "none");
		ps_rtnl_close(&bd->r[s]);
		if (bd->ns[s] >= 0)
			close(bd->ns[s]);
	}
}

static void bond_phase(struct ps_ctx *ctx, struct ps_nic_session *s, const char *mode)
{
	struct aggregate_result *r = ctx->result;
	struct bond bd = {.ctx = ctx, .s = s, .ns = {-1, -1}};

	r->bond = ps_fields_new(&bond_fields, 1);
	if (!r->bond)
		return;
	bd.row = r->bond;
	bd.row->mode = mode;
	bd.row->a = json_object_new_array();
	bd.row->b = json_object_new_array();
	if (bond_make(&bd) == 0 && bond_enslave(&bd) == 0 && bond_up(&bd) == 0)
		bond_measure(&bd);
	if (bd.row->error[0])
		ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "bond_failed", "%s bond: %s",
			 mode, bd.row->error);
	bond_undo(&bd);
}

/* bond=: off, or the bonding mode the pairs are also measured over. */
static const char *const bond_modes[] = {"off", "balance-rr", "802.3ad", NULL};

static int parse_bond(const char *text, void *value, char *why, size_t whylen)
{
	return ps_parse_choice(text, bond_modes, value, why, whylen);
}

static const struct ps_setting bond_mode = {
    .key = "bond",
    .help = "nic_aggregate also over a bond: off, balance-rr or 802.3ad",
    .def = "off",
    .size = sizeof(int),
    .parse = parse_bond,
};

/* ---- the pairs alone and together ---- */

/* Each pair alone, one after the other. False when aborted. */
static bool alone(struct ps_ctx *ctx, struct ps_nic_session *s)
{
	struct aggregate_result *r = ctx->result;
	bool aborted = false;

	r->sum_alone_mbps = 0;
	for (size_t k = 0; !aborted && k < s->npairs; k++) {
		const struct ps_port *a = &s->ps.p[s->pairs[k].a], *b = &s->ps.p[s->pairs[k].b];
		struct pair_row *pr = ps_fields_grow(&pair_fields, &r->pairs, &r->n_pairs);
		struct job j;
		char phase[64];

		if (!pr)
			return false;
		snprintf(pr->a, sizeof(pr->a), "%s", a->name);
		snprintf(pr->b, sizeof(pr->b), "%s", b->name);
		pr->link_mbps =
		    a->speed > 0 && b->speed > 0 ? (a->speed < b->speed ? a->speed : b->speed) : -1;
		snprintf(phase, sizeof(phase), "%s -> %s alone", a->name, b->name);
		ps_progress_phase(ctx, phase, (uint64_t)SECONDS * 1000, "ms");
		job_init(&j, ctx, a, b, 5201);
		j.ret = ps_iperf_pair_run(&j.o, &j.res);
		aborted = j.ret == -ECANCELED || ps_should_abort(ctx);
		if (j.ret == 0) {
			r->sum_alone_mbps += j.res.mbps;
			pr->alone_mbps = j.res.mbps;
		}
	}
	return !aborted;
}

/* All pairs at once: one thread per pair, each with its own server port. False when aborted. */
static bool together(struct ps_ctx *ctx, struct ps_nic_session *s)
{
	struct aggregate_result *r = ctx->result;
	struct job jobs[PS_PORTS_MAX / 2];
	struct ps_cost cost = {.root = ctx->root};
	struct ps_cost_result cr;
	bool aborted = false;

	ps_progress_phase(ctx, "all pairs at once", (uint64_t)SECONDS * 1000, "ms");
	for (size_t i = 0; i < s->ps.n; i++)
		if (ps_nic_session_partner(s, i) >= 0 && s->ps.p[i].nic)
			ps_cost_watch_pci(&cost, s->ps.p[i].nic->pci_address);
	ps_cost_begin(&cost);
	for (size_t k = 0; k < s->npairs; k++) {
		job_init(&jobs[k], ctx, &s->ps.p[s->pairs[k].a], &s->ps.p[s->pairs[k].b],
			 5201 + (int)k);
		if (pthread_create(&jobs[k].th, NULL, job_run, &jobs[k]) != 0)
			jobs[k].ret = -EAGAIN;
	}
	r->together_mbps = 0;
	for (size_t k = 0; k < s->npairs; k++) {
		if (jobs[k].ret != -EAGAIN)
			pthread_join(jobs[k].th, NULL);
		if (jobs[k].ret == 0) {
			r->together_mbps += jobs[k].res.mbps;
			if (k < r->n_pairs)
				r->pairs[k].together_mbps = jobs[k].res.mbps;
		}
		aborted = aborted || jobs[k].ret == -ECANCELED;
	}
	ps_cost_end(&cost, &cr);
	r->together_cost = cost_copy(&cr);
	if (!aborted)
		name_ceiling(ctx, s, r->sum_alone_mbps, r->together_mbps, &cr);
	for (size_t i = 0; i < s->ps.n; i++)
		if (ps_nic_session_partner(s, i) >= 0)
			ps_examined(ctx, ps_port_ref(&s->ps.p[i]), "measured",
				    "aggregate measured");
	return !aborted;
}

static int run(struct ps_ctx *ctx)
{
	struct aggregate_result *r = ctx->result;
	const struct ps_nic_session_opts so = PS_NIC_SESSION_OPTS(ctx, CARRIER_S, PROBE_S);
	struct ps_nic_session s;
	bool aborted;
	int ret;

	r->seconds = SECONDS;
	r->streams = STREAMS;
	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "moves real network ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ret = ps_nic_session_open(&s, ctx->inv, &so);
	if (ret < 0)
		return ret;
	aborted = s.aborted;
	if (!aborted && s.npairs < 2)
		ps_step_reason(ctx, "needs two pairs of ports cabled to each other; found %zu%s%s",
			       s.npairs, s.no_pairs[0] ? ": " : "", s.no_pairs);
	else if (!aborted)
		aborted = !alone(ctx, &s) || !together(ctx, &s);
	if (!aborted && s.npairs >= 2 && *(const int *)ps_setting(ctx, &bond_mode) > 0)
		bond_phase(ctx, &s, ps_setting_text(ctx, &bond_mode));
	ps_nic_session_end(&s, &r->rows);
	if (aborted || s.aborted || ps_should_abort(ctx))
		return PS_ABORTED;
	return s.npairs >= 2 || s.unrestored ? PS_PASS : PS_SKIPPED;
}

static double estimate(const struct ps_ctx *ctx)
{
	size_t up = 0;

	for (size_t i = 0; i < ctx->inv->n_nics; i++)
		up += ctx->inv->nics[i].carrier == 1;
	return up >= 4 ? CARRIER_S + (double)(up / 2 + 2) * 6 : 0;
}

/* ---- view ---- */

static const struct ps_col pair_cols[] = {
    {.path = "/a", .title = "port", .flags = PS_COL_KEY},
    {.path = "/b", .title = "to", .flags = PS_COL_KEY},
    {.path = "/link_mbps", .title = "link", .unit = "Mb/s"},
    {.path = "/alone_mbps",
     .title = "alone",
     .unit = "Mbit/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER},
    {.path = "/together_mbps",
     .title = "together",
     .unit = "Mbit/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER},
};

static const struct ps_col sum_cols[] = {
    {.path = "/sum_alone_mbps",
     .title = "sum of pairs alone",
     .unit = "Mbit/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER},
    {.path = "/together_mbps",
     .title = "all at once",
     .unit = "Mbit/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/together_pct_of_sum",
     .title = "of the sum",
     .unit = "%",
     .decimals = 0,
     .better = PS_BETTER_HIGHER},
    {.path = "/together_cost/busiest_core_pct",
     .title = "busiest core",
     .unit = "%",
     .decimals = 0,
     .better = PS_BETTER_LOWER},
    {.path = "/ceiling", .title = "ceiling"},
    {.path = "/ceiling_why", .title = "why", .flags = PS_COL_WIDE},
};

static const struct ps_col bond_cols[] = {
    {.path = "/mode", .title = "mode"},
    {.path = "/a", .title = "one side"},
    {.path = "/b", .title = "other side"},
    {.path = "/streams", .title = "streams"},
    {.path = "/mbps",
     .title = "throughput",
     .unit = "Mbit/s",
     .decimals = 0,
     .better = PS_BETTER_HIGHER},
    {.path = "/error", .title = "error", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "pairs",
     .title = "Each pair alone and all together (4 streams each)",
     .rows = "/pairs",
     .cols = PS_COLS(pair_cols),
     .empty = "fewer than two pairs"},
    {.kind = PS_BLOCK_KV,
     .id = "aggregate",
     .title = "Aggregate",
     .rows = "",
     .cols = PS_COLS(sum_cols),
     .when = "/together_mbps"},
    {.kind = PS_BLOCK_KV,
     .id = "bond",
     .title = "Over a bond",
     .rows = "/bond",
     .cols = PS_COLS(bond_cols),
     .when = "/mode"},
    PS_NIC_PORTS_BLOCK,
    PS_NIC_RESTORED_BLOCK,
};

static const struct ps_view view = {
    .name = "nic_aggregate",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops nic_aggregate_ops = {
    .abi = PS_STEP_ABI,
    .name = "nic_aggregate",
    .title = "several cabled pairs at once, and over a bond: the ceiling named",
    .plans = PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 48,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &aggregate_fields,
    .settings = (const struct ps_setting *const[]){&bond_mode, NULL},
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_aggregate_ops);
