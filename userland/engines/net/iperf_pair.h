/* iperf_pair.h - TCP throughput with libiperf (iperf3's protocol): one run
 * between two network namespaces (the server in one, the client in the
 * other), one run of a client against any iperf3 server, and a server that
 * keeps answering (server mode). */
#ifndef PS_IPERF_PAIR_H
#define PS_IPERF_PAIR_H

#include <stdbool.h>

struct ps_iperf_opts {
	int server_ns_fd, client_ns_fd;
	const char *server_addr; /* numeric IPv4 address of the server's port */
	int port;		 /* 5201 when 0 */
	int streams;		 /* parallel TCP streams, >= 1 */
	int duration_s;		 /* >= 1 */
	bool reverse;		 /* the server sends (iperf3 -R) */
	bool bidir;		 /* both ways at once (iperf3 --bidir): rev_* get the other way */
	int connect_timeout_ms;	 /* 3000 when 0 */
	/* Polled at least every 100 ms; true stops the run (-ECANCELED). */
	bool (*should_stop)(void *arg);
	void *stop_arg;
};

struct ps_iperf_result {
	double mbps;		 /* received at the far end of the test's direction: what crossed */
	double sent_mbps;	 /* sent in that direction */
	long retransmits;	 /* TCP retransmits on the sender, -1 unknown */
	double cpu_sender_pct;	 /* libiperf's host_total of the client, -1 unknown */
	double cpu_receiver_pct; /* remote_total: the server's, -1 unknown */
	double rev_mbps;	 /* bidir: received the other way (server to client), -1 */
	long rev_retransmits;	 /* bidir: the server's retransmits, -1 */
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

/*
 * One client run in client_ns_fd (-1: ours) against an iperf3 server at
 * server_addr:port that runs elsewhere (another stick in server mode, or
 * Debian's iperf3 -s). server_ns_fd is ignored. As ps_iperf_pair_run.
 */
int ps_iperf_client_run(const struct ps_iperf_opts *o, struct ps_iperf_result *res);

/*
 * A server that answers one client after the other until it is killed, in
 * ns_fd (-1: ours), on bind_addr (NULL: every address) and port. The child's
 * pid, or -errno. Stop it with kill(pid, SIGTERM) and waitpid.
 */
int ps_iperf_server_spawn(int ns_fd, const char *bind_addr, int port);

/* Parse a client's JSON output into res: 0, or -EIO with res->error. Pure. */
int ps_iperf_parse_client(const char *text, struct ps_iperf_result *res);

#endif
