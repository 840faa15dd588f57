/*
 * tput.h - one row of throughput results (the runs of one direction at one
 * stream count), its summary and the rule it is judged by: pass at 80 % of
 * the negotiated link speed, and when below, whether the CPU was the
 * ceiling (the busiest core nearly always busy) rather than the NIC.
 * Shared by the port-to-port, peer and aggregate steps.
 */
#ifndef PS_NET_TPUT_H
#define PS_NET_TPUT_H

#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"

#include <json-c/json.h>
#include <stdbool.h>

#define PS_TPUT_PASS_PCT 80.0
#define PS_TPUT_MAX_RUNS 8

struct ps_tput_row {
	char path[64];		      /* "eth0 -> eth1", "eth2 -> 198.51.100.1" */
	const char *from, *to, *mode; /* mode: "one way", "both ways" */
	int streams;
	double mbps[PS_TPUT_MAX_RUNS];
	int ok;
	long retr;
	bool retr_unknown;
	double cpu_s, cpu_r;
	int ncpu_s, ncpu_r;
	char error[256];
};

struct ps_tput_verdict {
	bool measured; /* at least one run */
	double median;
	bool judged; /* the link speed was known */
	bool pass;
	bool cpu; /* below, with the busiest core at PS_COST_CPU_BOUND_PCT or more */
	double pct, limit;
	char text[400]; /* the finding's message when it did not pass */
};

/* A run's result into the row (reverse_half: the bidir run's other direction). */
void ps_tput_row_add(struct ps_tput_row *w, const struct ps_iperf_result *res, bool reverse_half);

/*
 * The row as the report holds it (path, from, to, streams, mode, runs_mbps,
 * min/median/max/cv, pct_of_link, retransmits, cpu_*_pct, cost, verdict,
 * limit), judged against link_mbps (-1 unknown); vm: emulated NICs, whose
 * speed is not a promise, so the text says so.
 */
json_object *ps_tput_row_json(const struct ps_tput_row *w, int link_mbps,
			      const struct ps_cost_result *cost, bool vm,
			      struct ps_tput_verdict *v);

#endif
