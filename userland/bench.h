/* bench.h - `probestick bench`: measurements of probestick itself, first of
 * all the cost of the module's probes on a fast block device (make bench). */
#ifndef PS_BENCH_H
#define PS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* argv after the word "bench"; returns the exit code (2 usage, 1 failure). */
int ps_bench_main(int argc, char **argv);

/* Median, min and max of n values (n > 0); v is sorted in place. */
void ps_bench_stats(double *v, size_t n, double *median, double *min, double *max);

/*
 * What each event costs when the probes are on: the time one IO gained,
 * (1/iops_on - 1/iops_off) in ns, shared among its events. Negative when
 * the on runs were faster (noise); NAN when an input is not positive.
 */
double ps_bench_cost_ns(double iops_off, double iops_on, double events_per_io);

/* fio's --output-format=json: the read IOPS and IOs of all jobs; 0 or -EINVAL. */
int ps_bench_parse_fio(const char *json, double *iops, uint64_t *ios);

#endif
