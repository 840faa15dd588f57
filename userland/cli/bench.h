/* bench.h - `probestick bench`: measurements of probestick itself, first of
 * all the cost of the module's probes on a fast block device (make bench). */
#ifndef PS_BENCH_H
#define PS_BENCH_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* argv after the word "bench"; returns the exit code (2 usage, 1 failure). */
int ps_bench_main(int argc, char **argv);
/* `probestick bench engine`: our engine against fio (bench_engine.c); argv after "engine". */
int ps_bench_engine_main(int argc, char **argv);
/* `bench net`: probestick's libiperf against iperf3 over veth (bench_net.c). */
int ps_bench_net(int argc, char **argv);

/* Median, min and max of n values (n > 0), as lib/stats.c summarises every run. */
void ps_bench_stats(double *v, size_t n, double *median, double *min, double *max);

/*
 * What each event costs when the probes are on: the time one IO gained,
 * (1/iops_on - 1/iops_off) in ns, shared among its events. Negative when
 * the on runs were faster (noise); NAN when an input is not positive.
 */
double ps_bench_cost_ns(double iops_off, double iops_on, double events_per_io);

/* fio's --output-format=json: the read IOPS and IOs of all jobs; 0 or -EINVAL. */
int ps_bench_parse_fio(const char *json, double *iops, uint64_t *ios);

/* Tracepoint hits the probes handled in one window, by kind. */
struct ps_bench_events {
	uint64_t block_rq;   /* requests paired issue -> complete: 2 hits each */
	uint64_t rq_unknown; /* completions without their issue: 1 hit each */
	uint64_t hardirq;    /* invocations, handled or not: entry + exit */
	uint64_t softirq;    /* runs: entry + exit */
};

/* The events of a window's "probes" object; 0, or -ENODATA with why when it has none. */
int ps_bench_events(json_object *probes, struct ps_bench_events *ev, char *why, size_t len);

enum ps_bench_verdict {
	PS_BENCH_MET,
	PS_BENCH_MISSED,
	PS_BENCH_NOT_MEASURABLE, /* the run-to-run spread hides the effect */
};

/*
 * The verdict on the goal "IOPS on / IOPS off >= goal" from the median
 * ratio and the run-to-run spread ((max - min) / median, the larger of
 * the two modes), with runs_off and runs_on runs. The spread is taken as the
 * ratio's uncertainty: met when even ratio * (1 - spread) reaches the goal,
 * missed when even ratio * (1 + spread) falls short of it, and otherwise
 * (the goal inside that range), or with fewer than two runs of a mode, not
 * measurable here; why says so with the figures (the same rule serves
 * "ours/fio >= 1.05").
 */
enum ps_bench_verdict ps_bench_judge(double ratio, double spread, unsigned int runs_off,
				     unsigned int runs_on, double goal, char *why, size_t len);
const char *ps_bench_verdict_name(enum ps_bench_verdict v);

/*
 * The same rule for any ratio "what" (ours/reference, on/off) of two tools'
 * medians, runs_a and runs_b runs of each: not measurable with fewer than
 * two of either or when the goal lies within ratio +- spread, else met or
 * missed against goal.
 */
enum ps_bench_verdict ps_bench_judge_ratio(const char *what, double ratio, double spread,
					   unsigned int runs_a, unsigned int runs_b, double goal,
					   char *why, size_t len);

/* ------------------------------------------------------ bench mem -- */

/* `probestick bench mem`: argv after "mem"; the exit code (2 usage, 1 failure). */
int ps_bench_mem_main(int argc, char **argv);

/*
 * likwid-bench's output: its MByte/s (10^6 bytes/s, as STREAM counts the
 * bytes) in GB/s and the threads it ran; 0, or -EINVAL without a figure.
 */
int ps_bench_parse_likwid(const char *text, double *gbps, unsigned int *threads);

/*
 * stress-ng --stream's output: the "memory rate" lines of its instances,
 * read + write MB/s summed over them, in GB/s, and how many; 0 or -EINVAL.
 */
int ps_bench_parse_stressng(const char *text, double *gbps, unsigned int *instances);

/* n passes of GB/s each as one figure over all their bytes: n / sum(1 / v). */
double ps_bench_hmean(const double *v, size_t n);

#endif
