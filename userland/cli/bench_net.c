/*
 * bench_net.c - `probestick bench net`: TCP throughput over a veth pair
 * between two network namespaces, probestick's libiperf pair against
 * Debian's iperf3 (same duration and streams), alternating, several runs;
 * the ratio of the medians and whether the spread lets it be judged.
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

#define MAX_RUNS   50
#define GOAL	   1.0
#define PORT_OURS  5241
#define PORT_IPERF 5242

static const char usage[] =
    "usage: probestick bench net [--runs N] [--seconds S] [--streams N] [--iperf3 PATH|none]\n"
    "                            [--json PATH]\n"
    "\n"
    "  TCP over a veth pair between two new network namespaces (nothing else is\n"
    "  touched): N runs (default 5) of S seconds (3) with P streams (1) through\n"
    "  probestick's libiperf pair and through Debian's iperf3, alternating. Prints\n"
    "  each run, the medians and the ratio probestick / iperf3 (goal >= 1.0),\n"
    "  judged only when the ratio +- its run-to-run spread lies on one side of it.\n";

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

int ps_bench_net(int argc, char **argv)
{
	int runs = 5, seconds = 3, streams = 1;
	const char *iperf3 = "iperf3", *json = NULL;
	double ours[MAX_RUNS], theirs[MAX_RUNS];
	size_t no = 0, nt = 0;
	struct setup s = {{-1, -1}};
	char why[300] = "";
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
		if (strcmp(a, "--runs") == 0)
			runs = atoi(v);
		else if (strcmp(a, "--seconds") == 0)
			seconds = atoi(v);
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
	if (runs < 1 || runs > MAX_RUNS || seconds < 1 || streams < 1 || streams > 64) {
		fprintf(stderr, "probestick bench net: runs 1-%d, seconds >= 1, streams 1-64\n",
			MAX_RUNS);
		return 2;
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
	printf("TCP over veth between two namespaces: %d runs x %d s, %d stream%s, alternating\n",
	       runs, seconds, streams, streams == 1 ? "" : "s");
	printf("%-4s %14s %14s\n", "run", "probestick", iperf3 ? "iperf3" : "(no iperf3)");
	for (int r = 0; r < runs; r++) {
		double a, b = NAN;

		/* alternate which goes first, so drift touches both alike */
		if (r % 2 == 0) {
			a = run_ours(&s, seconds, streams, why, sizeof(why));
			if (iperf3)
				b = run_iperf3(iperf3, &s, seconds, streams, why, sizeof(why));
		} else {
			if (iperf3)
				b = run_iperf3(iperf3, &s, seconds, streams, why, sizeof(why));
			a = run_ours(&s, seconds, streams, why, sizeof(why));
		}
		if (a > 0)
			ours[no++] = a;
		if (b > 0)
			theirs[nt++] = b;
		printf("%-4d %9.0f Mb/s %9.0f Mb/s%s%s\n", r + 1, a > 0 ? a : NAN, b > 0 ? b : NAN,
		       (a > 0 && (!iperf3 || b > 0)) ? "" : "  ",
		       (a > 0 && (!iperf3 || b > 0)) ? "" : why);
	}
	{
		double mo = NAN, lo, ho, mt = NAN, lt, ht, ratio = NAN, spread = NAN;
		enum ps_bench_verdict v = PS_BENCH_NOT_MEASURABLE;
		char verdict[340];

		if (no) {
			ps_bench_stats(ours, no, &mo, &lo, &ho);
		}
		if (nt) {
			ps_bench_stats(theirs, nt, &mt, &lt, &ht);
		}
		if (no && nt) {
			ratio = mo / mt;
			spread = (ho - lo) / mo > (ht - lt) / mt ? (ho - lo) / mo : (ht - lt) / mt;
		}
		v = ps_bench_judge(ratio, spread, (unsigned int)nt, (unsigned int)no, GOAL, verdict,
				   sizeof(verdict));
		printf("median %9.0f Mb/s %9.0f Mb/s\n", mo, mt);
		printf("ratio probestick / iperf3: %.3f (goal >= %.1f); spread %.1f%%\n", ratio,
		       GOAL, spread * 100);
		/* the judge speaks of probes "on" and "off": here probestick and iperf3 */
		printf("verdict: %s\n", ps_bench_verdict_name(v));
		{
			/* the judge's words are the probes bench's: on/off is probestick/iperf3
			 * here */
			char *w = strstr(verdict, "on/off");

			if (w) {
				memmove(w + 17, w + 6, strlen(w + 6) + 1);
				memcpy(w, "probestick/iperf3", 17);
			}
		}
		printf("why: %s\n", verdict);
		if (json) {
			json_object *o = json_object_new_object();
			FILE *f;

			ps_json_set_num(o, "probestick_median_mbps", mo, 1);
			ps_json_set_num(o, "iperf3_median_mbps", mt, 1);
			ps_json_set_num(o, "ratio", ratio, 4);
			ps_json_set_num(o, "spread", spread, 4);
			ps_json_set_str(o, "verdict", ps_bench_verdict_name(v));
			ps_json_set(o, "runs", json_object_new_int(runs));
			ps_json_set(o, "seconds", json_object_new_int(seconds));
			ps_json_set(o, "streams", json_object_new_int(streams));
			f = fopen(json, "w");
			if (f) {
				fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY),
				      f);
				fputc('\n', f);
				fclose(f);
			}
			json_object_put(o);
		}
	}
	close(s.ns[0]);
	close(s.ns[1]);
	return no ? 0 : 1;
}
