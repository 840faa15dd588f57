/*
 * bench_net.c - `probestick bench net`: TCP throughput over a veth pair
 * between two network namespaces, probestick's libiperf pair against
 * Debian's iperf3 (same duration and streams), alternating, in pairs judged
 * by the median pair ratio and its 95 % interval (bench_judge.h).
 */
#include "cli/bench.h"
#include "lib/util.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/netns.h"
#include "lib/json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h> /* NAN, isnan: no libm */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PAIRS  500
#define GOAL	   1.0
#define PORT_OURS  5241
#define PORT_IPERF 5242

static const char usage[] =
    "usage: probestick bench net [--pairs N] [--seconds S] [--cap S] [--streams N]\n"
    "                            [--iperf3 PATH] [--json PATH]\n"
    "\n"
    "  TCP over a veth pair between two new network namespaces (nothing else is\n"
    "  touched): pairs of runs of S seconds (3) with P streams (1), probestick's\n"
    "  libiperf pair and Debian's iperf3, the one that goes first alternating.\n"
    "  The median pair ratio probestick/iperf3 and its 95% interval are judged\n"
    "  against the goal >= 1.0 from N pairs on (default 6), and the pairs go on\n"
    "  while undecided up to a cap of S seconds (default 300).\n";

struct setup {
	int ns[2];
};

static int make_pair(struct setup *s)
{
	struct ps_rtnl r[2];
	struct ps_link l;
	struct in_addr a;
	int ret;

	s->ns[0] = ps_netns_create();
	s->ns[1] = ps_netns_create();
	if (s->ns[0] < 0 || s->ns[1] < 0)
		return s->ns[0] < 0 ? s->ns[0] : s->ns[1];
	if ((ret = ps_rtnl_open(&r[0], s->ns[0])) < 0)
		return ret;
	if ((ret = ps_rtnl_open(&r[1], s->ns[1])) < 0)
		return ret;
	ret = ps_rtnl_veth_add(&r[0], "psbench0", "psbench1");
	if (ret == 0)
		ret = ps_rtnl_link_find(&r[0], "psbench1", NULL, 0, &l);
	if (ret == 0)
		ret = ps_rtnl_link_set_ns(&r[0], l.ifindex, s->ns[1]);
	for (int i = 0; i < 2 && ret == 0; i++) {
		const char *name = i ? "psbench1" : "psbench0", *lo = "lo";

		ret = ps_rtnl_link_find(&r[i], name, NULL, 0, &l);
		if (ret < 0)
			break;
		ps_rtnl_link_no_ipv6_ll(&r[i], l.ifindex);
		inet_pton(AF_INET, i ? "198.18.250.2" : "198.18.250.1", &a);
		ret = ps_rtnl_addr_add4(&r[i], l.ifindex, a, 24);
		if (ret == 0)
			ret = ps_rtnl_link_set_up(&r[i], l.ifindex, true);
		if (ret == 0 && ps_rtnl_link_find(&r[i], lo, NULL, 0, &l) == 0)
			ps_rtnl_link_set_up(&r[i], l.ifindex, true);
	}
	ps_rtnl_close(&r[0]);
	ps_rtnl_close(&r[1]);
	return ret;
}

/* Read a child's output until it ends (at most limit_s). */
static char *slurp(int fd, double limit_s)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	double end = ps_mono_now() + limit_s;

	if (!buf)
		return NULL;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (ps_mono_now() > end)
			break;
		if (poll(&p, 1, 200) <= 0)
			continue;
		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

/* Debian's iperf3: a one-off server in ns 1, the client in ns 0. Mbit/s or -errno. */
static double run_iperf3(const char *bin, const struct setup *s, int seconds, int streams,
			 char *why, size_t wlen)
{
	char port[8], secs[8], str[8];
	char *srv_argv[] = {(char *)bin, "-s", "-1", "-p", port, NULL};
	char *cli_argv[] = {(char *)bin, "-c", "198.18.250.2", "-p", port, "-t", secs,
			    "-P",	 str,  "-J",	       NULL};
	struct ps_iperf_result res;
	int sfd, cfd, st;
	pid_t spid, cpid;
	char *out;
	double mbps = -EIO;

	snprintf(port, sizeof(port), "%d", PORT_IPERF);
	snprintf(secs, sizeof(secs), "%d", seconds);
	snprintf(str, sizeof(str), "%d", streams);
	spid = ps_netns_spawn(s->ns[1], srv_argv, &sfd);
	if (spid < 0) {
		snprintf(why, wlen, "cannot start %s -s: %s", bin, strerror(-spid));
		return spid;
	}
	usleep(300000); /* its listener: iperf3 -s binds at once */
	cpid = ps_netns_spawn(s->ns[0], cli_argv, &cfd);
	if (cpid < 0) {
		kill(spid, SIGKILL);
		waitpid(spid, NULL, 0);
		close(sfd);
		snprintf(why, wlen, "cannot start %s -c: %s", bin, strerror(-cpid));
		return cpid;
	}
	out = slurp(cfd, seconds + 30);
	waitpid(cpid, &st, 0);
	close(cfd);
	kill(spid, SIGTERM);
	waitpid(spid, NULL, 0);
	close(sfd);
	if (out && ps_iperf_parse_client(out, &res) == 0)
		mbps = res.mbps;
	else
		snprintf(why, wlen, "iperf3: %s", out && out[0] ? res.error : "no output");
	free(out);
	return mbps;
}

static double run_ours(const struct setup *s, int seconds, int streams, char *why, size_t wlen)
{
	struct ps_iperf_opts o = {.server_ns_fd = s->ns[1],
				  .client_ns_fd = s->ns[0],
				  .server_addr = "198.18.250.2",
				  .port = PORT_OURS,
				  .streams = streams,
				  .duration_s = seconds};
	struct ps_iperf_result res;
	int ret = ps_iperf_pair_run(&o, &res);

	if (ret < 0) {
		snprintf(why, wlen, "%s", res.error);
		return ret;
	}
	return res.mbps;
}

struct net_run {
	const struct setup *s;
	const char *iperf3;
	int seconds, streams;
};

static double run_side(void *arg, int side, char *why, size_t len)
{
	const struct net_run *n = arg;
	double v = side == 0 ? run_ours(n->s, n->seconds, n->streams, why, len)
			     : run_iperf3(n->iperf3, n->s, n->seconds, n->streams, why, len);

	return v > 0 ? v : NAN;
}

int ps_bench_net(int argc, char **argv)
{
	int seconds = 3, streams = 1, pairs = 6;
	double cap = PS_BENCH_CAP_S;
	const char *iperf3 = "iperf3", *json = NULL;
	struct setup s = {{-1, -1}};
	struct net_run nr;
	struct ps_pair_plan plan = {.name_a = "probestick",
				    .name_b = "iperf3",
				    .unit = "Mb/s",
				    .what = "probestick/iperf3",
				    .goal = GOAL,
				    .run = run_side,
				    .arg = &nr};
	struct ps_pairs pr;
	int ret;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (!v) {
			fprintf(stderr, "probestick bench net: %s needs a value\n%s", a, usage);
			return 2;
		}
		i++;
		if (strcmp(a, "--pairs") == 0)
			pairs = atoi(v);
		else if (strcmp(a, "--seconds") == 0)
			seconds = atoi(v);
		else if (strcmp(a, "--cap") == 0)
			cap = atof(v);
		else if (strcmp(a, "--streams") == 0)
			streams = atoi(v);
		else if (strcmp(a, "--iperf3") == 0)
			iperf3 = strcmp(v, "none") ? v : NULL;
		else if (strcmp(a, "--json") == 0)
			json = v;
		else {
			fprintf(stderr, "probestick bench net: unknown option %s\n%s", a, usage);
			return 2;
		}
	}
	if (pairs < 1 || pairs > MAX_PAIRS || seconds < 1 || streams < 1 || streams > 64 ||
	    !(cap >= 0)) {
		fprintf(stderr,
			"probestick bench net: pairs 1-%d, seconds >= 1, streams 1-64, cap >= 0\n",
			MAX_PAIRS);
		return 2;
	}
	if (!iperf3) {
		fprintf(stderr, "probestick bench net: no reference (--iperf3 none): nothing to "
				"compare\n");
		return 1;
	}
	ret = make_pair(&s);
	if (ret < 0) {
		fprintf(
		    stderr,
		    "probestick bench net: cannot make two namespaces joined by veth: %s (needs "
		    "root and CONFIG_VETH)\n",
		    strerror(-ret));
		return 1;
	}
	nr = (struct net_run){.s = &s, .iperf3 = iperf3, .seconds = seconds, .streams = streams};
	plan.first_look = (size_t)pairs;
	plan.max_pairs = MAX_PAIRS;
	plan.cap_s = cap;
	printf("TCP over veth between two namespaces: pairs of %d s runs, %d stream%s, the tool\n"
	       "that goes first alternating; judged from %d pairs on, and on while undecided\n"
	       "for at most %g s. Reference: %s -c -t %d -P %d -J (server %s -s -1)\n",
	       seconds, streams, streams == 1 ? "" : "s", pairs, cap, iperf3, seconds, streams,
	       iperf3);
	ret = ps_pairs_run(&plan, &pr);
	if (ret == 0) {
		ps_pairs_print(&plan, &pr);
		if (json) {
			json_object *o = ps_pairs_json(&plan, &pr);

			ps_json_set(o, "seconds_per_run", json_object_new_int(seconds));
			ps_json_set(o, "streams", json_object_new_int(streams));
			if (json_object_to_file_ext(json, o, JSON_C_TO_STRING_PRETTY) < 0)
				fprintf(stderr, "probestick bench net: cannot write %s\n", json);
			json_object_put(o);
		}
	}
	close(s.ns[0]);
	close(s.ns[1]);
	ret = ret == 0 && pr.j.pairs && !pr.broken ? 0 : 1;
	ps_pairs_free(&pr);
	return ret;
}
