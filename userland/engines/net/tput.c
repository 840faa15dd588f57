/* tput.c - a throughput row's summary and its 80 %-of-link rule, one home for
 * the port-to-port, peer and aggregate steps. */
#include "engines/net/tput.h"
#include "lib/stats.h"
#include "lib/json.h"

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

json_object *ps_tput_row_json(const struct ps_tput_row *w, int link,
			      const struct ps_cost_result *cost, bool vm, struct ps_tput_verdict *v)
{
	json_object *d = json_object_new_object(), *runs = json_object_new_array();
	struct ps_run_summary sum = {0};
	bool have = w->ok > 0 && ps_run_summary(w->mbps, (size_t)w->ok, &sum) == 0;

	memset(v, 0, sizeof(*v));
	v->measured = have;
	v->median = have ? sum.median : -1;
	v->pct = have && link > 0 ? sum.median * 100.0 / link : -1;
	v->limit = link > 0 ? link * PS_TPUT_PASS_PCT / 100 : -1;
	for (int i = 0; i < w->ok; i++)
		json_object_array_add(runs, ps_json_new_num(w->mbps[i], 1));
	ps_json_set_str(d, "path", w->path);
	ps_json_set_str(d, "from", w->from);
	ps_json_set_str(d, "to", w->to);
	ps_json_set(d, "streams", json_object_new_int(w->streams));
	ps_json_set_str(d, "mode", w->mode ? w->mode : "one way");
	ps_json_set(d, "runs_mbps", runs);
	ps_json_set(d, "min_mbps", have ? ps_json_new_num(sum.min, 1) : NULL);
	ps_json_set(d, "median_mbps", have ? ps_json_new_num(sum.median, 1) : NULL);
	ps_json_set(d, "max_mbps", have ? ps_json_new_num(sum.max, 1) : NULL);
	/* One run says nothing about spread: unknown, not 0. */
	ps_json_set(d, "cv_pct", have && w->ok > 1 ? ps_json_new_num(sum.cv_pct, 1) : NULL);
	ps_json_set(d, "pct_of_link", v->pct >= 0 ? ps_json_new_num(v->pct, 1) : NULL);
	ps_json_set(d, "retransmits",
		    have && !w->retr_unknown ? json_object_new_int64(w->retr) : NULL);
	ps_json_set(d, "cpu_sender_pct",
		    w->ncpu_s ? ps_json_new_num(w->cpu_s / w->ncpu_s, 1) : NULL);
	ps_json_set(d, "cpu_receiver_pct",
		    w->ncpu_r ? ps_json_new_num(w->cpu_r / w->ncpu_r, 1) : NULL);
	ps_json_set(d, "cost", cost ? ps_cost_json(cost) : NULL);
	if (w->error[0])
		ps_json_set_str(d, "error", w->error);
	if (!have || v->pct < 0) {
		ps_json_set(d, "verdict", NULL);
		ps_json_set(d, "limit", NULL);
		return d;
	}
	v->judged = true;
	v->pass = v->pct >= PS_TPUT_PASS_PCT;
	if (v->pass) {
		ps_json_set_str(d, "verdict", "pass");
		ps_json_set(d, "limit", NULL);
		return d;
	}
	v->cpu = cost && cost->known && cost->cpu_bound;
	ps_json_set_str(d, "verdict", "warn");
	ps_json_set_str(d, "limit", v->cpu ? "cpu" : "nic or cable");
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
		    w->path, w->streams, w->streams == 1 ? "" : "s", w->mode ? w->mode : "one way",
		    sum.median, v->pct, link, PS_TPUT_PASS_PCT, costs,
		    vm ? "; a virtual machine's emulated NIC reports a speed it does not reach: "
			 "information only"
		    : v->cpu ? ": the CPU was the ceiling, not the NIC; a faster CPU or more "
			       "queues (RSS) would go further"
			     : ": check the cable, duplex, interrupt coalescing and the PCIe "
			       "link of both ends");
	}
	return d;
}
