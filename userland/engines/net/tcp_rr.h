/*
 * tcp_rr.h - request/response latency over TCP, the way netperf's TCP_RR
 * measures it: one byte there, one byte back, as fast as the round trips
 * go, for a few seconds; the transactions per second and the round trip's
 * percentiles. What interrupt coalescing trades against throughput.
 */
#ifndef PS_NET_TCP_RR_H
#define PS_NET_TCP_RR_H

#include <stdbool.h>
#include <stdint.h>

#define PS_RR_PORT 5211

struct ps_rr_opts {
	int server_ns_fd, client_ns_fd; /* -1: ours */
	const char *server_addr;	/* numeric IPv4 of the server's port */
	int port;			/* PS_RR_PORT when 0 */
	double seconds;			/* > 0 */
	bool (*should_stop)(void *arg);
	void *stop_arg;
};

struct ps_rr_result {
	uint64_t transactions;
	double per_s;
	double p50_us, p90_us, p99_us, min_us, max_us;
	char error[160];
};

/* 0, -ECANCELED, or -errno with error set. The server is a thread of ours. */
int ps_tcp_rr_run(const struct ps_rr_opts *o, struct ps_rr_result *r);

#endif
