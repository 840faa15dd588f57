/* iperf_pair.h - one TCP throughput run with libiperf between two network
 * namespaces: the server in one, the client in the other. */
#ifndef PS_IPERF_PAIR_H
#define PS_IPERF_PAIR_H

#include <stdbool.h>

struct ps_iperf_opts {
	int server_ns_fd, client_ns_fd;
	const char *server_addr; /* numeric IPv4 address of the server's port */
	int port;		 /* 5201 when 0 */
	int streams;		 /* parallel TCP streams, >= 1 */
	int duration_s;		 /* >= 1 */
	/* Polled at least every 100 ms; true stops the run (-ECANCELED). */
	bool (*should_stop)(void *arg);
	void *stop_arg;
};

struct ps_iperf_result {
	double mbps;		 /* received by the server: what crossed the wire */
	double sent_mbps;	 /* sent by the client */
	long retransmits;	 /* TCP retransmits on the sender, -1 unknown */
	double cpu_sender_pct;	 /* libiperf's host_total of the client, -1 unknown */
	double cpu_receiver_pct; /* remote_total: the server's, -1 unknown */
	char error[256];	 /* why the run failed, "" on success */
};

/*
 * Run the server and the client, each in a child process that has setns()'d
 * into its namespace (libiperf 3.12 keeps its timers and errno in globals,
 * so two tests cannot share a process; a child also keeps libiperf's exit()
 * paths from ending probestick). 0 on success; -ECANCELED when should_stop
 * said so; another negative errno with res->error saying what went wrong.
 * The children are always reaped before it returns.
 */
int ps_iperf_pair_run(const struct ps_iperf_opts *o, struct ps_iperf_result *res);

#endif
