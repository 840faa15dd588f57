/* tput.c - a throughput row's summary and its 80 %-of-link rule, one home for
 * the port-to-port, peer and aggregate steps. */
#include "engines/net/tput.h"
#include "lib/stats.h"
#include "lib/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void ps_tput_row_add(struct ps_tput_row *w, const struct ps_iperf_result *res, bool reverse_half)
{
	double v = reverse_half ? res->rev_mbps : res->mbps;
	long retr = reverse_half ? res->rev_retransmits : res->retransmits;

	if (v < 0 || w->ok >= PS_TPUT_MAX_RUNS)
		return;
	w->mbps[w->ok++] = v;
	if (retr >= 0)
		w->retr += retr;
	else
		w->retr_unknown = true;
	/* libiperf's per-process CPU: the client's side and the server's */
	if (res->cpu_sender_pct >= 0) {
		w->cpu_s += reverse_half ? res->cpu_receiver_pct : res->cpu_sender_pct;
		w->ncpu_s++;
	}
	if (res->cpu_receiver_pct >= 0) {
		w->cpu_r += reverse_half ? res->cpu_sender_pct : res->cpu_receiver_pct;
		w->ncpu_r++;
	}
}

static const struct ps_field tput_f[] = {
    PS_FIELD(struct ps_tput_result, path, "path"),
    PS_FIELD(struct ps_tput_result, from, "from"),
    PS_FIELD(struct ps_tput_result, to, "to"),
    PS_FIELD(struct ps_tput_result, streams, "streams"),
    PS_FIELD(struct ps_tput_result, mode, "mode",
	     .names = (const char *const[]){"one way", "both ways", NULL}),
    PS_FIELD(struct ps_tput_result, mbps, "mbps", .unit = "Mbit/s", .decimals = 1),
    PS_FIELD(struct ps_tput_result, pct_of_link, "pct_of_link", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_tput_result, retransmits, "retransmits", .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_tput_result, cpu_sender_pct, "cpu_sender_pct", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_tput_result, cpu_receiver_pct, "cpu_receiver_pct", .unit = "%",
	     .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD_OBJP(struct ps_tput_result, cost, "cost", &ps_cost_fields),
    PS_FIELD(struct ps_tput_result, verdict, "verdict", .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_tput_result, limit, "limit", .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_tput_result, error, "error", .flags = PS_FLD_OMIT),
};
const struct ps_fields ps_tput_result_fields = PS_FIELDS(struct ps_tput_result, tput_f);

void ps_tput_judge(const struct ps_tput_row *w, const struct ps_figure *fig, int link,
		   const struct ps_cost_result *cost, bool vm, struct ps_tput_result *out,
		   struct ps_tput_verdict *v)
{
	struct ps_figure own;
	bool have;

	if (!fig) {
		ps_figure_init(&own);
		for (int i = 0; i < w->ok; i++)
			ps_figure_add(&own, w->mbps[i]);
		ps_figure_finish(&own, NULL);
		fig = &own;
	}
	have = fig->n > 0;
	memset(v, 0, sizeof(*v));
	snprintf(out->path, sizeof(out->path), "%s", w->path);
	snprintf(out->from, sizeof(out->from), "%s", w->from ? w->from : "");
	snprintf(out->to, sizeof(out->to), "%s", w->to ? w->to : "");
	out->streams = w->streams;
	out->mode = w->mode ? w->mode : "one way";
	out->mbps = *fig;
	v->measured = have;
	v->median = have ? fig->median : -1;
	v->pct = have && link > 0 ? fig->median * 100.0 / link : -1;
	v->limit = link > 0 ? link * PS_TPUT_PASS_PCT / 100 : -1;
	out->pct_of_link = v->pct >= 0 ? v->pct : NAN;
	out->retransmits = have && !w->retr_unknown ? w->retr : -1;
	out->cpu_sender_pct = w->ncpu_s ? w->cpu_s / w->ncpu_s : NAN;
	out->cpu_receiver_pct = w->ncpu_r ? w->cpu_r / w->ncpu_r : NAN;
	if (cost && cost->known) {
		out->cost = ps_fields_new(&ps_cost_fields, 1);
		if (out->cost)
			*out->cost = *cost;
	}
	snprintf(out->error, sizeof(out->error), "%s", w->error);
	if (!have || v->pct < 0)
		return;
	v->judged = true;
	v->pass = v->pct >= PS_TPUT_PASS_PCT;
	/* a virtual machine's row is information, as its finding is: never WARN under a pass */
	out->verdict = v->pass ? "pass" : vm ? "info" : "warn";
	if (v->pass)
		return;
	v->cpu = cost && cost->known && cost->cpu_bound;
	out->limit = v->cpu ? "cpu" : "nic or cable";
	{
		char costs[160] = "";

		if (cost && cost->known)
			snprintf(costs, sizeof(costs),
				 "; the busiest core (CPU %d) was %.0f%% busy, %.0f%% of it in "
				 "softirq",
				 cost->busiest_cpu, cost->busiest_pct, cost->busiest_softirq_pct);
		snprintf(
		    v->text, sizeof(v->text),
		    "%s, %d stream%s, %s: median %.0f Mbit/s is %.0f%% of the %d Mbit/s link "
		    "(rule: at least %.0f%%)%s%s",
		    w->path, w->streams, w->streams == 1 ? "" : "s", out->mode, fig->median, v->pct,
		    link, PS_TPUT_PASS_PCT, costs,
		    vm ? "; a virtual machine's emulated NIC reports a speed it does not reach: "
			 "information only"
		    : v->cpu ? ": the CPU was the ceiling, not the NIC; a faster CPU or more "
			       "queues (RSS) would go further"
			     : ": check the cable, duplex, interrupt coalescing and the PCIe "
			       "link of both ends");
	}
}

struct ps_tput_result *ps_tput_add(struct ps_tput_result **rows, size_t *n,
				   const struct ps_tput_row *w, const struct ps_figure *fig,
				   int link, const struct ps_cost_result *cost, bool vm,
				   struct ps_tput_verdict *v)
{
	struct ps_tput_result *t = ps_fields_grow(&ps_tput_result_fields, rows, n);

	memset(v, 0, sizeof(*v));
	if (t)
		ps_tput_judge(w, fig, link, cost, vm, t, v);
	return t;
}

void ps_tput_report(const struct ps_tput_report *h, struct ps_tput_result **rows, size_t *n,
		    const struct ps_tput_row *w, const struct ps_figure *fig, int link,
		    const struct ps_cost_result *cost, struct ps_dev_ref port)
{
	struct ps_tput_verdict v;
	char msg[200];

	ps_tput_add(rows, n, w, fig, link, cost, h->vm, &v);
	if (v.measured && h->examined) {
		snprintf(msg, sizeof(msg), "%s: %.0f Mbit/s (%d stream%s, %s)", w->path, v.median,
			 w->streams, w->streams == 1 ? "" : "s", w->mode);
		h->examined(h->arg, port, "measured", msg);
	}
	/* A CPU that could not drive the link is the machine's ceiling, not the NIC's. */
	if (v.judged && !v.pass && h->find)
		h->find(h->arg, h->vm ? PS_SEV_INFO : PS_SEV_WARN, v.cpu ? h->machine : port,
			v.cpu ? "cpu_bound" : "below_link", v.median, v.limit, "Mbit/s", v.text);
}

json_object *ps_tput_row_json(const struct ps_tput_row *w, int link,
			      const struct ps_cost_result *cost, bool vm, struct ps_tput_verdict *v)
{
	struct ps_tput_result r;
	json_object *o;

	ps_fields_init(&ps_tput_result_fields, &r);
	ps_tput_judge(w, NULL, link, cost, vm, &r, v);
	o = ps_fields_json(&ps_tput_result_fields, &r);
	ps_fields_free(&ps_tput_result_fields, &r);
	return o;
}
