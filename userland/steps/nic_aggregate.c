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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "seconds": {"type": "integer"},
//schema:    "streams": {"type": "integer"},
//schema:    "pairs": {"type": "array", "items": {"type": "object",
//schema:      "properties": {
//schema:        "a": {"type": "string"}, "b": {"type": "string"},
//schema:        "link_mbps": {"type": ["integer", "null"]},
//schema:        "alone_mbps": {"type": ["number", "null"]},
//schema:        "together_mbps": {"type": ["number", "null"]}
//schema:      },
//schema:      "required": ["a", "b", "alone_mbps", "together_mbps"]}},
//schema:    "sum_alone_mbps": {"type": ["number", "null"]},
//schema:    "together_mbps": {"type": ["number", "null"]},
//schema:    "together_pct_of_sum": {"type": ["number", "null"]},
//schema:    "together_cost": {"type": ["object", "null"]},
//schema:    "bond": {"type": ["object", "null"]},
//schema:    "ceiling": {"type": ["string", "null"]},
//schema:    "ceiling_why": {"type": ["string", "null"]},
//schema:    "restored": {"type": "array", "items": {"type": "object"}}
//schema:  },
//schema:  "required": ["pairs", "sum_alone_mbps", "together_mbps", "ceiling", "restored"]
//schema:}
/* clang-format on */

#include "core/config.h"
#include "core/step.h"
#include "lib/util.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/ports.h"
#include "lib/json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CARRIER_S    5.0
#define STREAMS	     4
#define DATA_VERSION 1

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
		     const struct ps_port *to, int port, int seconds)
{
	memset(j, 0, sizeof(*j));
	j->o = (struct ps_iperf_opts){.server_ns_fd = to->ns,
				      .client_ns_fd = from->ns,
				      .server_addr = to->addr_txt,
				      .port = port,
				      .streams = STREAMS,
				      .duration_s = seconds,
				      .should_stop = ps_should_abort_hook,
				      .stop_arg = ctx};
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

static void name_ceiling(struct ps_ctx *ctx, struct ps_ports *ps, const struct ps_pair *pairs,
			 size_t np, double sum, double together, const struct ps_cost_result *c,
			 json_object *data)
{
	double pct = sum > 0 ? together * 100 / sum : -1;
	char why[400];
	const char *ceiling;
	const struct ps_pcie_dev *shared = NULL;

	for (size_t i = 0; i < np && !shared; i++)
		for (size_t j = 0; j < np && !shared; j++)
			if (i != j)
				shared =
				    shared_link(ctx->inv, &ps->p[pairs[i].a], &ps->p[pairs[j].a]);
	if (pct < 0)
		return;
	ps_json_set_num(data, "together_pct_of_sum", pct, 1);
	if (pct >= 90) {
		ceiling = "none";
		snprintf(why, sizeof(why),
			 "the %zu pairs together reach %.0f%% of their sum (%.0f of %.0f Mbit/s): "
			 "nothing they share holds them back",
			 np, pct, together, sum);
	} else if (c->known && c->cpu_bound) {
		ceiling = "cpu";
		snprintf(
		    why, sizeof(why),
		    "the CPU: together %.0f of %.0f Mbit/s (%.0f%%), the busiest core (CPU %d) "
		    "%.0f%% busy, %.0f%% of it in softirq",
		    together, sum, pct, c->busiest_cpu, c->busiest_pct, c->busiest_softirq_pct);
	} else if (c->known && c->irq_one_cpu) {
		ceiling = "interrupts on one cpu";
		snprintf(why, sizeof(why),
			 "one CPU (CPU %d) took every port's interrupts: together %.0f of %.0f "
			 "Mbit/s (%.0f%%); spread the ports' IRQs over the cores (irqbalance, "
			 "smp_affinity) or use a NIC with more queues",
			 c->irq_cpu, together, sum, pct);
	} else if (shared && link_mbps(shared) > 0 && together >= 0.8 * link_mbps(shared)) {
		ceiling = "pcie link";
		snprintf(
		    why, sizeof(why),
		    "the PCIe link at %s (%.0f Mbit/s each way) that the ports share: together "
		    "%.0f of %.0f Mbit/s (%.0f%%)",
		    shared->fn.address, link_mbps(shared), together, sum, pct);
	} else {
		ceiling = "unknown";
		snprintf(
		    why, sizeof(why),
		    "together %.0f of %.0f Mbit/s (%.0f%%); not the CPU (busiest core %.0f%%), "
		    "not one interrupt CPU, no PCIe link they share: the memory bus or the "
		    "chipset",
		    together, sum, pct, c->known ? c->busiest_pct : -1);
	}
	ps_json_set_str(data, "ceiling", ceiling);
	ps_json_set_str(data, "ceiling_why", why);
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

/* Side A's ports in one bond, side B's in another, each bond in a namespace of its own. */
static void bond_phase(struct ps_ctx *ctx, struct ps_ports *ps, const struct ps_pair *pairs,
		       size_t np, const char *mode, int seconds, json_object *data,
		       json_object *restored)
{
	json_object *b = json_object_new_object(), *sa = json_object_new_array(),
		    *sb = json_object_new_array();
	int ns[2] = {ps_netns_create(), ps_netns_create()}, ret = 0;
	struct ps_rtnl r[2] = {0};
	struct ps_port bp[2];
	struct ps_link l;
	struct job j;
	char why[320] = "";

	ps_json_set_str(b, "mode", mode);
	ps_json_set(b, "a", sa);
	ps_json_set(b, "b", sb);
	ps_json_set(data, "bond", b);
	memset(bp, 0, sizeof(bp));
	if (ns[0] < 0 || ns[1] < 0) {
		ret = ns[0] < 0 ? ns[0] : ns[1];
		snprintf(why, sizeof(why), "no namespace for the bonds: %s", strerror(-ret));
		goto out;
	}
	ps_module_load("bonding", "max_bonds=0");
	for (int s = 0; s < 2 && ret == 0; s++) {
		ret = ps_rtnl_open(&r[s], ns[s]);
		if (ret == 0)
			ret = ps_rtnl_bond_add(&r[s], s ? "psbondB" : "psbondA", mode);
		if (ret < 0)
			snprintf(why, sizeof(why), "creating a %s bond: %s%s", mode, strerror(-ret),
				 ret == -EOPNOTSUPP ? " (no bonding driver)" : "");
	}
	/* Each port from its namespace into its side's bond. */
	for (size_t k = 0; k < np && ret == 0; k++)
		for (int s = 0; s < 2 && ret == 0; s++) {
			struct ps_port *p = &ps->p[s ? pairs[k].b : pairs[k].a];
			struct ps_link bl;

			ps_rtnl_link_set_up(&p->r, p->ifindex, false);
			ret = ps_rtnl_link_set_ns(&p->r, p->ifindex, ns[s]);
			if (ret == 0)
				ret = ps_rtnl_link_find(&r[s], p->name, NULL, 0, &l);
			if (ret == 0)
				ret = ps_rtnl_link_find(&r[s], s ? "psbondB" : "psbondA", NULL, 0,
							&bl);
			if (ret == 0)
				ret = ps_rtnl_link_set_master(&r[s], l.ifindex, bl.ifindex);
			if (ret < 0)
				snprintf(why, sizeof(why), "enslaving %s: %s", p->name,
					 strerror(-ret));
			json_object_array_add(s ? sb : sa, json_object_new_string(p->name));
		}
	for (int s = 0; s < 2 && ret == 0; s++) {
		struct ps_port *p = &bp[s];
		double end = ps_mono_now() + 10;

		p->ns = ns[s];
		snprintf(p->name, sizeof(p->name), "%s", s ? "psbondB" : "psbondA");
		ret = ps_rtnl_link_find(&r[s], p->name, NULL, 0, &l);
		if (ret < 0)
			break;
		p->ifindex = l.ifindex;
		p->addr.s_addr = htonl(0xc612c800u | (unsigned int)(s + 1)); /* 198.18.200.s+1 */
		inet_ntop(AF_INET, &p->addr, p->addr_txt, sizeof(p->addr_txt));
		ps_rtnl_link_no_ipv6_ll(&r[s], l.ifindex);
		ret = ps_rtnl_addr_add4(&r[s], l.ifindex, p->addr, 24);
		if (ret == 0)
			ret = ps_rtnl_link_set_up(&r[s], l.ifindex, true);
		/* the slaves come up with the bond; 802.3ad negotiates for a second or two */
		while (ret == 0 && ps_mono_now() < end &&
		       !(ps_rtnl_link_find(&r[s], p->name, NULL, 0, &l) == 0 && l.carrier == 1))
			usleep(100000);
		if (ret < 0)
			snprintf(why, sizeof(why), "bringing %.15s up: %s", p->name,
				 strerror(-ret));
	}
	if (ret == 0) {
		struct ps_cost cost = {.root = ctx->root};
		struct ps_cost_result cr;

		usleep(2000000); /* LACP's first exchanges: every slave in the aggregate */
		ps_progress_phase(ctx, "over the bond", (uint64_t)seconds * 1000, "ms");
		job_init(&j, ctx, &bp[0], &bp[1], 5201, seconds);
		ps_cost_begin(&cost);
		j.ret = ps_iperf_pair_run(&j.o, &j.res);
		ps_cost_end(&cost, &cr);
		ps_json_set(b, "mbps", j.ret == 0 ? ps_json_new_num(j.res.mbps, 1) : NULL);
		ps_json_set(b, "streams", json_object_new_int(STREAMS));
		ps_json_set(b, "cost", ps_cost_json(&cr));
		if (j.ret < 0)
			snprintf(why, sizeof(why), "%s", j.res.error);
		else
			ps_findf(ctx, PS_SEV_INFO, (struct ps_dev_ref){0}, "bond",
				 "over a %s bond of %zu ports a side: %.0f Mbit/s with %d streams",
				 mode, np, j.res.mbps, STREAMS);
	}
out:
	if (why[0]) {
		ps_json_set_str(b, "error", why);
		ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "bond_failed", "%s bond: %s",
			 mode, why);
	}
	/* Ports back into their own namespaces (ps_ports_close takes them home from
	 * there); the bonds go with their namespaces. */
	for (size_t k = 0; k < np; k++)
		for (int s = 0; s < 2; s++) {
			struct ps_port *p = &ps->p[s ? pairs[k].b : pairs[k].a];

			if (ns[s] < 0 || !r[s].nl ||
			    ps_rtnl_link_find(&r[s], p->name, NULL, 0, &l) < 0)
				continue;
			ps_rtnl_link_set_master(&r[s], l.ifindex, 0);
			ps_rtnl_link_set_ns(&r[s], l.ifindex, p->ns);
			if (ps_rtnl_link_find(&p->r, p->name, NULL, 0, &l) == 0)
				p->ifindex = l.ifindex;
		}
	for (int s = 0; s < 2; s++) {
		if (r[s].nl &&
		    ps_rtnl_link_find(&r[s], s ? "psbondB" : "psbondA", NULL, 0, &l) == 0)
			ps_rtnl_link_del(&r[s], l.ifindex);
		ps_restored_row(
		    restored, s ? "psbondB" : "psbondA", "bond", "none",
		    r[s].nl && ps_rtnl_link_find(&r[s], s ? "psbondB" : "psbondA", NULL, 0, &l) == 0
			? "present"
			: "none");
		ps_rtnl_close(&r[s]);
		if (ns[s] >= 0)
			close(ns[s]);
	}
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

static int run(struct ps_ctx *ctx)
{
	json_object *pairs_j = json_object_new_array(), *restored = json_object_new_array();
	struct ps_ports ps;
	struct ps_pair pairs[PS_PORTS_MAX / 2];
	struct job jobs[PS_PORTS_MAX / 2];
	bool reach[PS_PORTS_MAX * PS_PORTS_MAX], aborted;
	size_t np = 0;
	double sum = 0, together = 0;
	int seconds = 5, ret;
	struct ps_cost cost = {.root = ctx->root};
	struct ps_cost_result cr;

	ps_json_set(ctx->data, "seconds", json_object_new_int(seconds));
	ps_json_set(ctx->data, "streams", json_object_new_int(STREAMS));
	ps_json_set(ctx->data, "pairs", pairs_j);
	ps_json_set(ctx->data, "sum_alone_mbps", NULL);
	ps_json_set(ctx->data, "together_mbps", NULL);
	ps_json_set(ctx->data, "bond", NULL);
	ps_json_set(ctx->data, "ceiling", NULL);
	ps_json_set(ctx->data, "restored", restored);
	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "moves real network ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ret = ps_ports_open(&ps, ctx->inv, NULL, restored);
	if (ret < 0)
		return ret;
	ps.should_stop = ps_should_abort_hook;
	ps.stop_arg = ctx;
	aborted = !ps_ports_setup(&ps, CARRIER_S);
	if (!aborted && ps_ports_with_link(&ps) >= 4) {
		aborted = !ps_ports_probe(&ps, 1.0, reach);
		if (!aborted)
			np = ps_ports_pairs(&ps, reach, pairs);
	}
	if (!aborted && np < 2) {
		size_t up = ps_ports_with_link(&ps);

		ps_ports_close(&ps);
		/* under 4 ports with link no pairs were looked for: "found 0" would contradict
		 * the pair nic_loop found */
		if (up < 4)
			ps_step_reason(
			    ctx,
			    "needs two pairs of ports cabled to each other (4 ports with "
			    "link); %zu port%s ha%s link",
			    up, up == 1 ? "" : "s", up == 1 ? "s" : "ve");
		else
			ps_step_reason(ctx,
				       "needs two pairs of ports cabled to each other; found %zu "
				       "among %zu ports with link",
				       np, up);
		return PS_SKIPPED;
	}
	for (size_t k = 0; k < np; k++) {
		ps_ports_address(&ps, pairs[k].a, (unsigned int)k, 1);
		ps_ports_address(&ps, pairs[k].b, (unsigned int)k, 2);
	}
	/* Each pair alone. */
	for (size_t k = 0; !aborted && k < np; k++) {
		char phase[64];

		snprintf(phase, sizeof(phase), "%s -> %s alone", ps.p[pairs[k].a].name,
			 ps.p[pairs[k].b].name);
		ps_progress_phase(ctx, phase, (uint64_t)seconds * 1000, "ms");
		job_init(&jobs[k], ctx, &ps.p[pairs[k].a], &ps.p[pairs[k].b], 5201, seconds);
		jobs[k].ret = ps_iperf_pair_run(&jobs[k].o, &jobs[k].res);
		aborted = jobs[k].ret == -ECANCELED || ps_should_abort(ctx);
		if (jobs[k].ret == 0)
			sum += jobs[k].res.mbps;
		{
			json_object *o = json_object_new_object();
			int la = ps.p[pairs[k].a].speed, lb = ps.p[pairs[k].b].speed;

			ps_json_set_str(o, "a", ps.p[pairs[k].a].name);
			ps_json_set_str(o, "b", ps.p[pairs[k].b].name);
			ps_json_set_count(o, "link_mbps",
					  la > 0 && lb > 0 ? (la < lb ? la : lb) : -1);
			ps_json_set(o, "alone_mbps",
				    jobs[k].ret == 0 ? ps_json_new_num(jobs[k].res.mbps, 1) : NULL);
			ps_json_set(o, "together_mbps", NULL);
			json_object_array_add(pairs_j, o);
		}
	}
	/* All at once: one thread per pair, each with its own server port. */
	if (!aborted) {
		ps_progress_phase(ctx, "all pairs at once", (uint64_t)seconds * 1000, "ms");
		for (size_t k = 0; k < np; k++) {
			const struct ps_nic *na = ps.p[pairs[k].a].nic, *nb = ps.p[pairs[k].b].nic;

			ps_cost_watch_pci(&cost, na ? na->pci_address : NULL);
			ps_cost_watch_pci(&cost, nb ? nb->pci_address : NULL);
		}
		ps_cost_begin(&cost);
		for (size_t k = 0; k < np; k++) {
			job_init(&jobs[k], ctx, &ps.p[pairs[k].a], &ps.p[pairs[k].b], 5201 + (int)k,
				 seconds);
			if (pthread_create(&jobs[k].th, NULL, job_run, &jobs[k]) != 0)
				jobs[k].ret = -EAGAIN;
		}
		for (size_t k = 0; k < np; k++) {
			if (jobs[k].ret != -EAGAIN)
				pthread_join(jobs[k].th, NULL);
			if (jobs[k].ret == 0)
				together += jobs[k].res.mbps;
			ps_json_set(ps_json_at(pairs_j, k), "together_mbps",
				    jobs[k].ret == 0 ? ps_json_new_num(jobs[k].res.mbps, 1) : NULL);
			if (jobs[k].ret == -ECANCELED)
				aborted = true;
		}
		ps_cost_end(&cost, &cr);
		ps_json_set(ctx->data, "together_cost", ps_cost_json(&cr));
		ps_json_set_num(ctx->data, "sum_alone_mbps", sum, 1);
		ps_json_set_num(ctx->data, "together_mbps", together, 1);
		if (!aborted)
			name_ceiling(ctx, &ps, pairs, np, sum, together, &cr, ctx->data);
		for (size_t k = 0; k < np; k++) {
			ps_examined(ctx, ps_port_ref(&ps.p[pairs[k].a]), "measured",
				    "aggregate measured");
			ps_examined(ctx, ps_port_ref(&ps.p[pairs[k].b]), "measured",
				    "aggregate measured");
		}
	}
	if (!aborted && *(const int *)ps_setting(ctx, &bond_mode) > 0)
		bond_phase(ctx, &ps, pairs, np, ps_setting_text(ctx, &bond_mode), seconds,
			   ctx->data, restored);
	ps_ports_close(&ps);
	for (size_t i = 0; i < ps.n; i++)
		if (ps.p[i].restore_error[0])
			ps_findf(ctx, PS_SEV_FAIL, ps_port_ref(&ps.p[i]), "not_restored", "%s",
				 ps.p[i].restore_error);
	return aborted || ps_should_abort(ctx) ? PS_ABORTED : PS_PASS;
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

static const struct ps_col restored_cols[] = {
    {.path = "/port", .title = "port", .flags = PS_COL_KEY},
    {.path = "/setting", .title = "setting", .flags = PS_COL_KEY},
    {.path = "/was", .title = "was"},
    {.path = "/now", .title = "now"},
    {.path = "/restored", .title = "restored", .fmt = PS_FMT_BOOL},
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
    {.kind = PS_BLOCK_TABLE,
     .id = "restored",
     .title = "Put back after the step",
     .rows = "/restored",
     .cols = PS_COLS(restored_cols)},
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
    .settings = (const struct ps_setting *const[]){&bond_mode, NULL},
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_aggregate_ops);
