/*
 * tput.h - one row of throughput results (the runs of one direction at one
 * stream count), its summary and the rule it is judged by: pass at 80 % of
 * the negotiated link speed, and when below, whether the CPU was the
 * ceiling (the busiest core nearly always busy) rather than the NIC.
 * Shared by the port-to-port, peer and aggregate steps.
 */
#ifndef PS_NET_TPUT_H
#define PS_NET_TPUT_H

#include "decode/decode.h"
#include "engines/net/cost.h"
#include "engines/net/iperf_pair.h"
#include "hw/inventory.h"
#include "lib/fields.h"
#include "report/view.h"

#include <json-c/json.h>
#include <net/if.h>
#include <netinet/in.h>
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

/*
 * A row as the report holds it, typed (ps_tput_result_fields): the path, its
 * throughput figure (runs, median, spread, extra runs, noisy), its share of
 * the link, retransmits, libiperf's CPU figures, what it cost the machine,
 * and the verdict of the 80 % rule with what limited it.
 */
struct ps_tput_result {
	char path[64];
	char from[INET_ADDRSTRLEN + IF_NAMESIZE], to[INET_ADDRSTRLEN + IF_NAMESIZE]; /* copies */
	const char *mode;
	int streams;
	struct ps_figure mbps;
	double pct_of_link;  /* NAN: the link speed is unknown */
	int64_t retransmits; /* -1 unknown */
	double cpu_sender_pct, cpu_receiver_pct;
	struct ps_cost_result *cost; /* malloc'd, NULL unknown */
	const char *verdict;	     /* "pass", "warn", "info" (a VM), NULL not judged */
	const char *limit;	     /* "cpu", "nic or cable", NULL */
	char error[256];	     /* a failed run's error, "" none */
};
extern const struct ps_fields ps_tput_result_fields;

/*
 * Judge row w (fig: its figure from the measuring engine, or NULL: from w's
 * runs) against link_mbps (-1 unknown) into out (ps_fields_init'ed by the
 * caller) and v; vm: emulated NICs, whose speed is not a promise.
 */
void ps_tput_judge(const struct ps_tput_row *w, const struct ps_figure *fig, int link_mbps,
		   const struct ps_cost_result *cost, bool vm, struct ps_tput_result *out,
		   struct ps_tput_verdict *v);

/*
 * w judged (ps_tput_judge) into one more row at the end of the malloc'd
 * array *rows of *n (ps_fields_grow); NULL, nothing added, when out of
 * memory (v then says nothing was measured).
 */
struct ps_tput_result *ps_tput_add(struct ps_tput_result **rows, size_t *n,
				   const struct ps_tput_row *w, const struct ps_figure *fig,
				   int link_mbps, const struct ps_cost_result *cost, bool vm,
				   struct ps_tput_verdict *v);

/*
 * Where a judged row's verdict goes: the step's hooks (core/step.h's
 * ps_find_figure_hook and ps_examined_hook, arg its ctx). A measured row
 * examines its sender (port); below the rule it is a warn finding
 * <step>.below_link about the port, or <step>.cpu_bound about the machine
 * when the CPU was the ceiling (info inside a virtual machine, whose emulated
 * NICs report a speed they do not reach).
 */
struct ps_tput_report {
	void (*find)(void *arg, enum ps_severity sev, struct ps_dev_ref dev, const char *rule,
		     double value, double limit, const char *unit, const char *message);
	void (*examined)(void *arg, struct ps_dev_ref dev, const char *rule, const char *message);
	void *arg;
	struct ps_dev_ref machine;
	bool vm;
};

/* w judged into one more row of *rows (ps_tput_add), and its verdict reported through h. */
void ps_tput_report(const struct ps_tput_report *h, struct ps_tput_result **rows, size_t *n,
		    const struct ps_tput_row *w, const struct ps_figure *fig, int link_mbps,
		    const struct ps_cost_result *cost, struct ps_dev_ref port);

/* A run's result into the row (reverse_half: the bidir run's other direction). */
void ps_tput_row_add(struct ps_tput_row *w, const struct ps_iperf_result *res, bool reverse_half);

/*
 * The standard view columns of a judged row after its figure's
 * (PS_COL_FIGURE("mbps", ...)): its share of the link, the retransmits, the
 * busiest core and the ports' interrupts of what it cost, and the verdict.
 */
#define PS_TPUT_COLS                                                                               \
	{.path = "/pct_of_link",                                                                   \
	 .title = "link",                                                                          \
	 .unit = "%",                                                                              \
	 .decimals = 0,                                                                            \
	 .better = PS_BETTER_HIGHER},                                                              \
	    {.path = "/retransmits",                                                               \
	     .title = "retr",                                                                      \
	     .better = PS_BETTER_LOWER,                                                            \
	     .flags = PS_COL_OPTIONAL},                                                            \
	    {.path = "/cost/busiest_core_pct",                                                     \
	     .title = "top core",                                                                  \
	     .unit = "%",                                                                          \
	     .decimals = 0,                                                                        \
	     .better = PS_BETTER_LOWER},                                                           \
	    {.path = "/cost/port_irqs_per_s",                                                      \
	     .title = "irq/s",                                                                     \
	     .decimals = 0,                                                                        \
	     .better = PS_BETTER_LOWER,                                                            \
	     .flags = PS_COL_OPTIONAL},                                                            \
	{                                                                                          \
		.path = "/verdict", .title = "verdict", .fmt = PS_FMT_STATUS,                      \
		.flags = PS_COL_MEASURED                                                           \
	}

/* The row judged (ps_tput_judge) as JSON, for the steps that write data{} by hand. */
json_object *ps_tput_row_json(const struct ps_tput_row *w, int link_mbps,
			      const struct ps_cost_result *cost, bool vm,
			      struct ps_tput_verdict *v);

#endif
