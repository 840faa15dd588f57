/* bench.h - `probestick bench`: measurements of probestick itself, first of
 * all the cost of the module's probes on a fast block device (make bench). */
#ifndef PS_BENCH_H
#define PS_BENCH_H

#include "cli/bench_judge.h"

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
/* Median of the positive, finite values of v[0..n) (failed runs are NAN); NAN without one. */
double ps_bench_median(const double *v, size_t n);

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

/* ------------------------------------------------------- pair runs -- */

/*
 * Two tools A and B compared as bench_judge.h says: run alternately (A
 * first in odd pairs, B first in even ones), each pair's ratio A/B kept,
 * judged at the looks (ps_judge_is_look), until decided or until one more
 * pair would pass cap_s; first_look pairs run whatever the cap (fewer than
 * PS_JUDGE_MIN_PAIRS make a smoke test that cannot decide).
 */
struct ps_pair_plan {
	const char *name_a, *name_b; /* "probestick", "fio" */
	const char *unit;	     /* of the figures: "IOPS", "GB/s" */
	const char *what;	     /* the ratio's name: "probestick/fio" */
	double goal;		     /* A/B >= goal */
	size_t first_look;	     /* pairs before the first look; 0: PS_JUDGE_MIN_PAIRS */
	size_t max_pairs;	     /* 0: only the cap ends it */
	double cap_s;
	/* One run of side 0 (A) or 1 (B): its figure (higher is better), or
	 * NAN / <= 0 with why filled; why may hold a note beside a figure. */
	double (*run)(void *arg, int side, char *why, size_t len);
	void *arg;
};

struct ps_pairs {
	size_t n, room;
	double *a, *b, *ratio; /* per pair; NAN where a run failed */
	double median_a, median_b;
	struct ps_judgement j;
	bool capped; /* the cap (or max_pairs) ended it undecided */
	bool broken; /* pairs in a row without a ratio ended it */
	double seconds;
};

/* Runs the plan, a line per pair; 0, or -1 without memory. */
int ps_pairs_run(const struct ps_pair_plan *p, struct ps_pairs *r);
/* The medians and the judgement in two lines. */
void ps_pairs_print(const struct ps_pair_plan *p, const struct ps_pairs *r);
/* Every pair and the judgement, for --json. */
json_object *ps_pairs_json(const struct ps_pair_plan *p, const struct ps_pairs *r);
void ps_pairs_free(struct ps_pairs *r);

/* Default of every bench's --cap: seconds of pairs after the first look. */
#define PS_BENCH_CAP_S 300.0

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
