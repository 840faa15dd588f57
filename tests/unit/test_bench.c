/* test_bench.c - `probestick bench`: the events counted from a window's "probes"
 * object, the cost per event, and the reference tools' outputs parsed (the
 * judge has its own test: test_bench_judge.c). */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "cli/bench.h"

static void test_events(void)
{
	struct ps_bench_events ev;
	char why[200];
	json_object *o = json_tokener_parse(
	    "{\"available\": true,"
	    " \"hardirq\": {\"captured\": true, \"lines\": [{\"count\": 100, \"unhandled\": 4},"
	    "   {\"count\": 7, \"unhandled\": 0}]},"
	    " \"softirq\": {\"captured\": true, \"vectors\": [{\"count\": 50}, {\"count\": 5}]},"
	    " \"block\": {\"captured\": true, \"disks\": [{\"latency\": {\"count\": 900}},"
	    "   {\"latency\": {\"count\": 100}, \"irq_to_complete\": {\"count\": 99}}]},"
	    " \"drops\": {\"rq_unknown\": 3}}");

	CHECK_INT(ps_bench_events(o, &ev, why, sizeof(why)), 0);
	/* the IRQ_NONE calls passed the tracepoints too */
	CHECK_INT(ev.hardirq, 111);
	CHECK_INT(ev.softirq, 55);
	CHECK_INT(ev.block_rq, 1000);
	CHECK_INT(ev.rq_unknown, 3);
	json_object_put(o);
	o = json_tokener_parse("{\"available\": false, \"reason\": \"probestick.ko not loaded\"}");
	CHECK_INT(ps_bench_events(o, &ev, why, sizeof(why)), -ENODATA);
	CHECK(strstr(why, "probestick.ko not loaded") != NULL);
	json_object_put(o);
}

static void test_median(void)
{
	/* failed runs (NAN) and nonsense are no figures */
	double v[] = {3, NAN, 1, -2, 4, 2, INFINITY};

	CHECK(fabs(ps_bench_median(v, 7) - 2.5) < 1e-12);
	CHECK(fabs(ps_bench_median(v, 3) - 2.0) < 1e-12);
	CHECK(isnan(ps_bench_median(v + 1, 1)));
	CHECK(isnan(v[1]) && v[6] > 0); /* the input is left as it was */
}

static void test_cost(void)
{
	/* 100000 IOPS off, 99000 on: 101 ns more per IO over 10 events */
	CHECK(fabs(ps_bench_cost_ns(100000, 99000, 10) - 10.101) < 0.01);
	CHECK(isnan(ps_bench_cost_ns(0, 99000, 10)));
}

/* likwid-bench 5.2.2 -t stream_sse -w N:50331648B:2, the lines around the figures */
static const char likwid_out[] =
    "Allocate: Process running on hwthread 0 (Domain N) - Vector length 6291456/50331648 "
    "Offset 0 Alignment 512\n"
    "Using 1 work groups\n"
    "Using 2 threads\n"
    "Time:\t\t\t2.822219e+00 sec\n"
    "MFlops/s:\t\t761.11\n"
    "MByte/s:\t\t9131.04\n"
    "Cycles per update:\t6.738513\n";

/* stress-ng 0.15.06 --stream 2 -v: one "memory rate" line per instance */
static const char stressng_out[] =
    "stress-ng: info:  [977] stream: memory rate: 2183.42 MB read/sec, 1455.62 MB write/sec, "
    "190.79 Mflop/sec (instance 0)\n"
    "stress-ng: info:  [978] stream: memory rate: 2083.40 MB read/sec, 1388.93 MB write/sec, "
    "182.05 Mflop/sec (instance 1)\n"
    "stress-ng: metrc: [976] stream              2132.83 memory read rate (MB per sec) "
    "(geometic mean of 2 instances)\n";

static void test_mem(void)
{
	double gbps = 0, v[3] = {2, 4, 4};
	unsigned int n = 0;

	CHECK_INT(ps_bench_parse_likwid(likwid_out, &gbps, &n), 0);
	CHECK(fabs(gbps - 9.13104) < 1e-9);
	CHECK_INT(n, 2); /* the threads, not the work groups */
	CHECK_INT(ps_bench_parse_likwid("ERROR: no such test\n", &gbps, &n), -EINVAL);
	CHECK_INT(ps_bench_parse_stressng(stressng_out, &gbps, &n), 0);
	CHECK(fabs(gbps - (2183.42 + 1455.62 + 2083.40 + 1388.93) / 1000) < 1e-9);
	CHECK_INT(n, 2);
	CHECK_INT(ps_bench_parse_stressng("stress-ng: info: run duration too short\n", &gbps, &n),
		  -EINVAL);
	/* one figure over all the bytes: 3 passes of equal bytes at 2, 4, 4 GB/s */
	CHECK(fabs(ps_bench_hmean(v, 3) - 3.0) < 1e-12);
	v[1] = 0;
	CHECK(isnan(ps_bench_hmean(v, 3)));
}

int main(void)
{
	test_events();
	test_median();
	test_cost();
	test_mem();
	return check_done("test_bench");
}
