/*
 * nic_tput.c - port-to-port TCP throughput: each NIC port in its own network
 * namespace so that the traffic really crosses the cable, both directions.
 */
/* clang-format off */
//config:config STEP_NIC_TPUT
//config:	bool "nic_tput: port-to-port throughput, each port in its own network namespace"
//config:	default y
//config:	help
//config:	  Moves every free physical port into a namespace of its own
//config:	  with a test address from 198.18.0.0/15 (RFC 2544, never
//config:	  routed), finds which ports reach each other, and measures
//config:	  TCP throughput with libiperf in both directions of each pair,
//config:	  with retransmits and CPU use. Ports with an address or a
//config:	  default route are left alone. Every port goes back to where
//config:	  it was, with its MTU and up/down state.
//kbuild:step-$(CONFIG_STEP_NIC_TPUT) += nic_tput.o
/* clang-format on */

#include "io/stats.h"
#include "net/iperf_pair.h"
#include "net/netns.h"
#include "net/pairing.h"
#include "step.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS     16
#define PROBE_PORT    5200 /* the reachability experiment's listeners */
#define IPERF_PORT    5201
#define CARRIER_S     5.0  /* autonegotiation takes 2-3 s on real copper */
#define PROBE_S	      3.0  /* ARP gives up after 3 tries 1 s apart */
#define RESTORE_S     5.0  /* namespace teardown runs from a kernel work queue */
#define SLOW_MIN_MBPS 1000 /* below this the slow rule is not judged: emulated NICs */

struct port {
	char name[IF_NAMESIZE];
	const char *mac_txt, *pci; /* from the report's nics[] */
	unsigned char mac[6];
	size_t mac_len;
	unsigned int orig_mtu;
	bool orig_up;
	int ns; /* its namespace, -1 before and after */
	struct ps_rtnl r;
	int ifindex; /* inside ns */
	bool in_ns;
	struct in_addr addr;
	char addr_txt[INET_ADDRSTRLEN];
	bool broken; /* setting it up failed: out of the experiment */
	bool carrier;
	int speed; /* Mbit/s, -1 unknown */
};

struct tput {
	struct ps_ctx *ctx;
	int home;
	struct ps_rtnl home_r;
	struct port p[MAX_PORTS];
	size_t n;
	json_object *pairs, *skipped, *restored;
	bool virtual_machine; /* emulated NICs: the slow rule is information only */
	int warns, fails;
	int durations, runs, nstreams, streams[2];
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The CPU's hypervisor flag: set in every VM, never on bare metal. */
static bool under_hypervisor(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[8192];
	bool yes = false;

	while (f && !yes && fgets(line, sizeof(line), f))
		if (strncmp(line, "flags", 5) == 0 && strstr(line, " hypervisor"))
			yes = true;
	if (f)
		fclose(f);
	return yes;
}

static bool stop_cb(void *arg)
{
	return ps_should_abort(arg);
}

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static json_object *num1(double v)
{
	char buf[32];

	/* The text form too, so that the JSON says 941.2, not 941.20000000000005. */
	snprintf(buf, sizeof(buf), "%.1f", ps_round(v, 1));
	return json_object_new_double_s(ps_round(v, 1), buf);
}

static void skip_port(struct tput *t, const char *name, const char *reason)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_array_add(t->skipped, o);
}

/* Leave ports the machine is managed through alone (CLI use on an installed system). */
static const char *in_use(struct tput *t, const struct ps_link *l, char *why, size_t len)
{
	char addr[64], master[IF_NAMESIZE];
	int ret;

	if (l->master) {
		snprintf(why, len, "in use: part of %s (bond or bridge)",
			 if_indextoname((unsigned int)l->master, master) ? master
									 : "a bond or bridge");
		return why;
	}
	ret = ps_rtnl_global_addr(&t->home_r, l->ifindex, addr, sizeof(addr));
	if (ret < 0) {
		snprintf(why, len, "cannot tell whether it is in use: reading its addresses: %s",
			 strerror(-ret));
		return why;
	}
	if (ret > 0) {
		snprintf(why, len, "in use: has address %s", addr);
		return why;
	}
	ret = ps_rtnl_default_route_via(&t->home_r, l->ifindex);
	if (ret != 0) {
		snprintf(why, len,
			 ret > 0 ? "in use: carries the default route"
				 : "cannot tell whether it carries the default route");
		return why;
	}
	return NULL;
}

/* The ports from the inventory that are present, free and now remembered as they are. */
static void collect(struct tput *t)
{
	json_object *nics = NULL;
	size_t total;

	json_object_object_get_ex(t->ctx->report, "nics", &nics);
	total =
	    nics && json_object_is_type(nics, json_type_array) ? json_object_array_length(nics) : 0;
	for (size_t i = 0; i < total; i++) {
		json_object *nic = json_object_array_get_idx(nics, i);
		const char *name = str(nic, "name");
		struct ps_link l;
		char why[160];
		struct port *p;
		int ret;

		if (!name || strlen(name) >= IF_NAMESIZE)
			continue;
		if (t->n == MAX_PORTS) {
			skip_port(t, name, "more than 16 ports: only the first 16 are tested");
			continue;
		}
		ret = ps_rtnl_link_find(&t->home_r, name, NULL, 0, &l);
		if (ret < 0) {
			snprintf(why, sizeof(why), "not found when the step started: %s",
				 strerror(-ret));
			skip_port(t, name, why);
			continue;
		}
		if (in_use(t, &l, why, sizeof(why))) {
			ps_finding(t->ctx, "info", name, "nic_tput_in_use", "%s is not tested: %s",
				   name, why);
			skip_port(t, name, why);
			continue;
		}
		p = &t->p[t->n++];
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", name);
		p->mac_txt = str(nic, "mac");
		p->pci = str(nic, "pci_address");
		memcpy(p->mac, l.mac, sizeof(p->mac));
		p->mac_len = l.mac_len;
		p->orig_mtu = l.mtu;
		p->orig_up = l.flags & IFF_UP;
		p->ns = -1;
		p->speed = -1;
	}
}

/* Own namespace, test address 198.18.0.<k+1>/24, up. */
static int setup_port(struct tput *t, struct port *p, size_t k)
{
	struct ps_link l;
	int ret;

	p->ns = ps_netns_create();
	if (p->ns < 0)
		return p->ns;
	ret = ps_rtnl_link_find(&t->home_r, p->name, NULL, 0, &l);
	if (ret < 0)
		return ret;
	ret = ps_rtnl_link_set_ns(&t->home_r, l.ifindex, p->ns);
	if (ret < 0)
		return ret;
	p->in_ns = true;
	ret = ps_rtnl_open(&p->r, p->ns);
	if (ret < 0)
		return ret;
	ret = ps_rtnl_link_find(&p->r, p->name, NULL, 0, &l);
	if (ret < 0)
		return ret;
	p->ifindex = l.ifindex;
	/* Best effort: a kernel without IPv6 refuses, and that is just as quiet. */
	ps_rtnl_link_no_ipv6_ll(&p->r, p->ifindex);
	p->addr.s_addr = htonl(0xc6120000u | (unsigned int)(k + 1)); /* 198.18.0.k+1 */
	inet_ntop(AF_INET, &p->addr, p->addr_txt, sizeof(p->addr_txt));
	ret = ps_rtnl_addr_add4(&p->r, p->ifindex, p->addr, 24);
	if (ret < 0)
		return ret;
	return ps_rtnl_link_set_up(&p->r, p->ifindex, true);
}

/* Returns false when aborted. */
static bool wait_carrier(struct tput *t)
{
	double end = mono_now() + CARRIER_S;

	for (;;) {
		bool all = true;

		for (size_t i = 0; i < t->n; i++) {
			struct port *p = &t->p[i];
			struct ps_link l;

			if (!p->in_ns || p->broken || p->carrier)
				continue;
			if (ps_rtnl_link_find(&p->r, p->name, NULL, 0, &l) == 0 && l.carrier == 1)
				p->carrier = true;
			else
				all = false;
		}
		if (all || mono_now() >= end)
			return true;
		if (ps_should_abort(t->ctx))
			return false;
		usleep(100000);
	}
}

/*
 * The experiment: a listener on every port with link, and a TCP connection
 * from each port to every later one. A completed handshake proves the two
 * share a segment. reach is n*n. Returns false when aborted.
 */
static bool probe_reach(struct tput *t, bool *reach)
{
	int lis[MAX_PORTS], cli[MAX_PORTS * MAX_PORTS];
	size_t n = t->n;
	double end;
	bool aborted = false;

	for (size_t i = 0; i < n * n; i++)
		cli[i] = -1;
	for (size_t i = 0; i < n; i++) {
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(PROBE_PORT)};
		int one = 1;

		lis[i] = -1;
		if (!t->p[i].carrier)
			continue;
		sa.sin_addr = t->p[i].addr;
		lis[i] = ps_netns_socket(t->p[i].ns, AF_INET, SOCK_STREAM, 0);
		if (lis[i] < 0)
			continue;
		setsockopt(lis[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lis[i], (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    listen(lis[i], 16) < 0) {
			close(lis[i]);
			lis[i] = -1;
		}
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			struct sockaddr_in sa = {.sin_family = AF_INET,
						 .sin_port = htons(PROBE_PORT)};
			int fd;

			if (lis[i] < 0 || lis[j] < 0)
				continue;
			sa.sin_addr = t->p[j].addr;
			fd = ps_netns_socket(t->p[i].ns, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
			if (fd < 0)
				continue;
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
				reach[i * n + j] = true;
			else if (errno != EINPROGRESS) {
				close(fd);
				continue;
			}
			cli[i * n + j] = fd;
		}
	end = mono_now() + PROBE_S;
	while (mono_now() < end) {
		struct pollfd pf[MAX_PORTS * MAX_PORTS];
		size_t idx[MAX_PORTS * MAX_PORTS], np = 0;

		for (size_t k = 0; k < n * n; k++)
			if (cli[k] >= 0 && !reach[k]) {
				pf[np] = (struct pollfd){.fd = cli[k], .events = POLLOUT};
				idx[np++] = k;
			}
		if (np == 0)
			break;
		if (ps_should_abort(t->ctx)) {
			aborted = true;
			break;
		}
		if (poll(pf, np, 100) <= 0)
			continue;
		for (size_t k = 0; k < np; k++) {
			int err = 0;
			socklen_t len = sizeof(err);

			if (!pf[k].revents)
				continue;
			getsockopt(pf[k].fd, SOL_SOCKET, SO_ERROR, &err, &len);
			if (err == 0)
				reach[idx[k]] = true;
			close(cli[idx[k]]);
			cli[idx[k]] = -1;
		}
	}
	for (size_t k = 0; k < n * n; k++)
		if (cli[k] >= 0)
			close(cli[k]);
	for (size_t i = 0; i < n; i++)
		if (lis[i] >= 0)
			close(lis[i]);
	return !aborted;
}

/* All runs of one direction at one stream count. Returns false when aborted. */
static bool measure(struct tput *t, json_object *dirs, const struct port *from,
		    const struct port *to, int streams, int link_mbps)
{
	double mbps[8], cpu_s = 0, cpu_r = 0;
	struct ps_run_summary sum;
	long retr = 0;
	int ok = 0, ncpu_s = 0, ncpu_r = 0;
	bool retr_known = true, aborted = false;
	json_object *d = json_object_new_object(), *runs = json_object_new_array();
	char errors[512] = "";

	for (int r = 0; r < t->runs && r < 8; r++) {
		struct ps_iperf_opts o = {.server_ns_fd = to->ns,
					  .client_ns_fd = from->ns,
					  .server_addr = to->addr_txt,
					  .port = IPERF_PORT,
					  .streams = streams,
					  .duration_s = t->durations,
					  .should_stop = stop_cb,
					  .stop_arg = t->ctx};
		struct ps_iperf_result res;
		int ret = ps_iperf_pair_run(&o, &res);

		if (ret == -ECANCELED || ps_should_abort(t->ctx)) {
			aborted = true;
			break;
		}
		if (ret < 0) {
			t->warns++;
			ps_finding(t->ctx, "warn", from->name, "nic_tput_run_failed",
				   "%s -> %s, %d stream%s, run %d: %s", from->name, to->name,
				   streams, streams == 1 ? "" : "s", r + 1,
				   res.error[0] ? res.error : strerror(-ret));
			if (!errors[0])
				snprintf(errors, sizeof(errors), "%s",
					 res.error[0] ? res.error : strerror(-ret));
			continue;
		}
		mbps[ok++] = res.mbps;
		json_object_array_add(runs, num1(res.mbps));
		if (res.retransmits >= 0)
			retr += res.retransmits;
		else
			retr_known = false;
		if (res.cpu_sender_pct >= 0) {
			cpu_s += res.cpu_sender_pct;
			ncpu_s++;
		}
		if (res.cpu_receiver_pct >= 0) {
			cpu_r += res.cpu_receiver_pct;
			ncpu_r++;
		}
	}
	json_object_object_add(d, "from", json_object_new_string(from->name));
	json_object_object_add(d, "to", json_object_new_string(to->name));
	json_object_object_add(d, "streams", json_object_new_int(streams));
	json_object_object_add(d, "runs_mbps", runs);
	if (ok > 0 && ps_run_summary(mbps, (size_t)ok, &sum) == 0) {
		json_object_object_add(d, "min_mbps", num1(sum.min));
		json_object_object_add(d, "median_mbps", num1(sum.median));
		json_object_object_add(d, "max_mbps", num1(sum.max));
		/* One run says nothing about spread: unknown, not 0. */
		json_object_object_add(d, "cv_pct", ok > 1 ? num1(sum.cv_pct) : NULL);
	} else {
		ok = 0;
		json_object_object_add(d, "min_mbps", NULL);
		json_object_object_add(d, "median_mbps", NULL);
		json_object_object_add(d, "max_mbps", NULL);
		json_object_object_add(d, "cv_pct", NULL);
	}
	json_object_object_add(d, "retransmits",
			       ok > 0 && retr_known ? json_object_new_int64(retr) : NULL);
	json_object_object_add(d, "cpu_sender_pct", ncpu_s ? num1(cpu_s / ncpu_s) : NULL);
	json_object_object_add(d, "cpu_receiver_pct", ncpu_r ? num1(cpu_r / ncpu_r) : NULL);
	if (errors[0])
		json_object_object_add(d, "error", json_object_new_string(errors));
	json_object_array_add(dirs, d);

	if (ok > 0 && link_mbps >= SLOW_MIN_MBPS && sum.median < 0.5 * link_mbps) {
		if (!t->virtual_machine)
			t->warns++;
		ps_finding(
		    t->ctx, t->virtual_machine ? "info" : "warn", from->name, "nic_tput_slow",
		    "%s -> %s, %d stream%s: median %.0f Mbit/s is below half the %d Mbit/s "
		    "link (rule: median < 50%% of the slower port's speed, judged at 1000 "
		    "Mbit/s and up)%s",
		    from->name, to->name, streams, streams == 1 ? "" : "s", sum.median, link_mbps,
		    t->virtual_machine
			? "; this is a virtual machine, whose emulated NICs report a speed "
			  "they do not reach, so it is not a warning here"
			: ": check the cable, duplex, interrupt coalescing and the PCIe "
			  "link of both ports");
	}
	return !aborted;
}

static bool measure_pair(struct tput *t, const struct ps_pair *pr)
{
	const struct port *a = &t->p[pr->a], *b = &t->p[pr->b];
	json_object *o = json_object_new_object(), *dirs = json_object_new_array();
	int link = a->speed > 0 && b->speed > 0 ? (a->speed < b->speed ? a->speed : b->speed) : -1;
	bool go_on = true;

	json_object_object_add(o, "a", json_object_new_string(a->name));
	json_object_object_add(o, "b", json_object_new_string(b->name));
	json_object_object_add(o, "a_mac", a->mac_txt ? json_object_new_string(a->mac_txt) : NULL);
	json_object_object_add(o, "b_mac", b->mac_txt ? json_object_new_string(b->mac_txt) : NULL);
	json_object_object_add(o, "reachable", json_object_new_boolean(pr->reachable));
	json_object_object_add(o, "link_mbps", link > 0 ? json_object_new_int(link) : NULL);
	json_object_object_add(o, "directions", dirs);
	json_object_array_add(t->pairs, o);
	if (!pr->reachable) {
		t->warns++;
		ps_finding(t->ctx, "warn", a->name, "nic_tput_unreachable",
			   "%s and %s both have link but cannot reach each other (TCP to %s from "
			   "%s within %.0f s): they are on different segments, VLANs or "
			   "switches; cable them to each other to measure them",
			   a->name, b->name, b->addr_txt, a->name, PROBE_S);
		return true;
	}
	for (int s = 0; go_on && s < t->nstreams; s++)
		go_on = measure(t, dirs, a, b, t->streams[s], link) &&
			measure(t, dirs, b, a, t->streams[s], link);
	return go_on;
}

/* Every port back home as it was; whatever does not come back is a fail finding. */
static void teardown(struct tput *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct port *p = &t->p[i];

		if (p->in_ns && p->r.nl) {
			int ret = ps_rtnl_link_set_ns(&p->r, p->ifindex, t->home);

			/* Else closing the namespace sends it to the initial one. */
			if (ret == 0)
				p->in_ns = false;
		}
		ps_rtnl_close(&p->r);
		if (p->ns >= 0)
			close(p->ns);
		p->ns = -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct port *p = &t->p[i];
		double end = mono_now() + RESTORE_S;
		struct ps_link l;
		int ret;

		while ((ret = ps_rtnl_link_find(&t->home_r, p->name, p->mac, p->mac_len, &l)) ==
			   -ENODEV &&
		       mono_now() < end)
			usleep(100000);
		if (ret < 0) {
			t->fails++;
			ps_finding(
			    t->ctx, "fail", p->name, "nic_tput_not_restored",
			    "%s did not come back from its test namespace within %.0f s (%s): "
			    "reboot before using this port",
			    p->name, RESTORE_S, strerror(-ret));
			continue;
		}
		if (strcmp(l.name, p->name) != 0) {
			t->fails++;
			ps_finding(
			    t->ctx, "fail", p->name, "nic_tput_not_restored",
			    "%s came back from its test namespace as %s (the name was taken)",
			    p->name, l.name);
		}
		if (l.mtu != p->orig_mtu)
			ps_rtnl_link_set_mtu(&t->home_r, l.ifindex, p->orig_mtu);
		if (!!(l.flags & IFF_UP) != p->orig_up)
			ps_rtnl_link_set_up(&t->home_r, l.ifindex, p->orig_up);
		ret = ps_rtnl_link_find(&t->home_r, l.name, NULL, 0, &l);
		if (ret == 0) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "name", json_object_new_string(l.name));
			json_object_object_add(o, "mtu", json_object_new_int((int)l.mtu));
			json_object_object_add(o, "up", json_object_new_boolean(l.flags & IFF_UP));
			json_object_array_add(t->restored, o);
		}
		if (ret < 0 || l.mtu != p->orig_mtu || !!(l.flags & IFF_UP) != p->orig_up) {
			t->fails++;
			ps_finding(t->ctx, "fail", p->name, "nic_tput_not_restored",
				   "%s is back but not as it was: MTU %u (was %u), %s (was %s)",
				   p->name, l.mtu, p->orig_mtu, l.flags & IFF_UP ? "up" : "down",
				   p->orig_up ? "up" : "down");
		}
	}
}

static void no_pairs_finding(struct tput *t, size_t with_link)
{
	json_object *nics = NULL;
	size_t total = json_object_object_get_ex(t->ctx->report, "nics", &nics) && nics
			   ? json_object_array_length(nics)
			   : 0;
	char why[160];

	if (total == 0)
		snprintf(why, sizeof(why), "the inventory found no physical network port");
	else if (t->n == 0)
		snprintf(why, sizeof(why),
			 "none of the %zu port%s is free to test (see skipped_ports)", total,
			 total == 1 ? "" : "s");
	else if (with_link == 0)
		snprintf(why, sizeof(why), "no port has link: cable two ports to each other");
	else if (with_link == 1)
		snprintf(why, sizeof(why),
			 "only one port has link: cable two ports to each other to measure them");
	else
		snprintf(why, sizeof(why), "no two ports with link could be paired");
	ps_finding(t->ctx, "info", NULL, "nic_tput_no_pairs", "no port pairs measured: %s", why);
}

static int run(struct ps_ctx *ctx)
{
	struct tput t = {.ctx = ctx, .home = -1};
	const char *plan = str(ctx->report, "plan");
	json_object *data = NULL;
	struct ps_pair pairs[MAX_PORTS / 2];
	bool reach[MAX_PORTS * MAX_PORTS] = {false}, aborted = false;
	size_t npairs = 0, with_link = 0;
	int ret;

	if (ctx->root && ctx->root[0]) {
		json_object_object_add(
		    ctx->step, "reason",
		    json_object_new_string("moves real network ports: live system only, not "
					   "with --root"));
		return PS_SKIPPED;
	}
	if (plan && strcmp(plan, "full") == 0) {
		t.durations = 10;
		t.runs = 3;
		t.nstreams = 2;
		t.streams[0] = 1;
		t.streams[1] = 4;
	} else {
		t.durations = 3;
		t.runs = 2;
		t.nstreams = 1;
		t.streams[0] = 1;
	}
	if (!json_object_object_get_ex(ctx->step, "data", &data) ||
	    !json_object_is_type(data, json_type_object)) {
		data = json_object_new_object();
		json_object_object_add(ctx->step, "data", data);
	}
	t.pairs = json_object_new_array();
	t.skipped = json_object_new_array();
	json_object_object_add(data, "duration_s", json_object_new_int(t.durations));
	json_object_object_add(data, "runs", json_object_new_int(t.runs));
	json_object_object_add(data, "pairs", t.pairs);
	json_object_object_add(data, "skipped_ports", t.skipped);
	t.restored = json_object_new_array();
	json_object_object_add(data, "restored", t.restored);
	t.virtual_machine = under_hypervisor();

	t.home = ps_netns_open_current();
	if (t.home < 0)
		return t.home;
	ret = ps_rtnl_open(&t.home_r, -1);
	if (ret < 0) {
		close(t.home);
		return ret;
	}
	collect(&t);

	for (size_t i = 0; i < t.n; i++) {
		ret = setup_port(&t, &t.p[i], i);
		if (ret < 0) {
			char why[160];

			snprintf(why, sizeof(why), "setting it up in a test namespace failed: %s",
				 strerror(-ret));
			t.warns++;
			ps_finding(ctx, "warn", t.p[i].name, "nic_tput_setup_failed", "%s: %s",
				   t.p[i].name, why);
			skip_port(&t, t.p[i].name, why);
			t.p[i].broken = true;
		}
	}
	aborted = !wait_carrier(&t);
	for (size_t i = 0; !aborted && i < t.n; i++) {
		struct port *p = &t.p[i];

		if (p->broken)
			continue;
		if (!p->carrier) {
			ps_finding(ctx, "info", p->name, "nic_tput_no_link",
				   "%s has no link after %.0f s up: no cable?", p->name, CARRIER_S);
			skip_port(&t, p->name, "no link: no cable?");
			continue;
		}
		with_link++;
		p->speed = ps_netns_link_speed(p->ns, p->name);
		if (p->speed < 0)
			p->speed = -1;
	}
	if (!aborted && with_link >= 2)
		aborted = !probe_reach(&t, reach);
	if (!aborted) {
		struct ps_pair_port pp[MAX_PORTS];
		bool paired[MAX_PORTS] = {false};

		for (size_t i = 0; i < t.n; i++)
			pp[i] = (struct ps_pair_port){
			    .name = t.p[i].name, .pci = t.p[i].pci, .carrier = t.p[i].carrier};
		npairs = ps_pair_ports(pp, t.n, reach, pairs);
		for (size_t k = 0; k < npairs; k++)
			paired[pairs[k].a] = paired[pairs[k].b] = true;
		for (size_t i = 0; i < t.n; i++)
			if (t.p[i].carrier && !paired[i] && npairs > 0) {
				ps_finding(
				    ctx, "info", t.p[i].name, "nic_tput_no_partner",
				    "%s has link but no free port reaches it: its cable goes "
				    "elsewhere",
				    t.p[i].name);
				skip_port(&t, t.p[i].name, "has link, but no free partner port");
			}
		if (npairs == 0) {
			for (size_t i = 0; i < t.n; i++)
				if (t.p[i].carrier)
					skip_port(&t, t.p[i].name,
						  with_link == 1 ? "has link, but the only one"
								 : "has link, but no partner port");
			no_pairs_finding(&t, with_link);
		}
	}
	for (size_t k = 0; !aborted && k < npairs; k++)
		aborted = !measure_pair(&t, &pairs[k]);

	teardown(&t);
	ps_rtnl_close(&t.home_r);
	close(t.home);
	if (aborted)
		return PS_ABORTED;
	return t.fails ? PS_FAIL : t.warns ? PS_WARN : PS_PASS;
}

static const struct ps_step_ops nic_tput_ops = {
    .abi = PS_STEP_ABI,
    .name = "nic_tput",
    .title = "port-to-port throughput, each port in its own network namespace",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 40,
    .run = run,
};
PS_STEP_REGISTER(nic_tput_ops);
