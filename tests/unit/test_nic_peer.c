/*
 * test_nic_peer.c - the peer steps for real on veth pairs in private
 * namespaces: `probestick serve` (ps_serve_run) in one namespace, found by
 * its discovery broadcast; nic_peer against it and against Debian's iperf3
 * server; Debian's iperf3 client against serve; the port's address from
 * busybox udhcpc against busybox udhcpd; mtu finding seed 003's 4088 vs
 * 4074 mismatch; serve putting its port back. The host's links are never
 * touched (the test unshares its own network namespace first).
 */
#include "check.h"
/* link: steps */
#include "step_harness.h"

#include "cli/console.h"
#include "cli/serve.h"
#include "lib/util.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/netns.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct ps_step_ops *step(const char *name)
{
	size_t n;
	const struct ps_step_ops *const *all = ps_registry(&n);
	const struct ps_step_ops *s = ps_step_find(all, n, name);

	if (!s) {
		fprintf(stderr, "step %s is not compiled in\n", name);
		exit(1);
	}
	return s;
}

static int skip(const char *why)
{
	printf("skip: %s\n", why);
	return 77;
}

static bool have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* A child in namespace ns running argv, its output into log. */
static pid_t spawn_in(int ns, char *const argv[], const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (ns >= 0 && setns(ns, CLONE_NEWNET) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static pid_t serve_in(int ns, const char *port, const char *net, const char *mtu)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct ps_config cfg;
		struct ps_console con;
		struct ps_serve_opts so = {
		    .cfg = &cfg, .con = &con, .ports = port, .seconds = 120, .no_export = true};
		char why[128];

		if (setns(ns, CLONE_NEWNET) < 0)
			_exit(126);
		ps_config_defaults(&cfg);
		ps_config_set(&cfg, "net", net, why, sizeof(why));
		ps_config_set(&cfg, "mtu", mtu, why, sizeof(why));
		ps_console_stdio(&con, -1, STDOUT_FILENO);
		_exit(ps_serve_run(&so));
	}
	return pid;
}

static void stop(pid_t pid)
{
	int st;

	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
}

/* One port in the inventory, as the step sees it. */
static void one_nic(struct harness *h, const char *name, const char *mac)
{
	h->inv.nics = calloc(1, sizeof(*h->inv.nics));
	h->inv.n_nics = 1;
	h->inv.taken = true;
	snprintf(h->inv.nics[0].name, sizeof(h->inv.nics[0].name), "%s", name);
	snprintf(h->inv.nics[0].mac, sizeof(h->inv.nics[0].mac), "%s", mac);
	snprintf(h->inv.nics[0].id, sizeof(h->inv.nics[0].id), "nic:%s", mac);
	h->inv.nics[0].carrier = 1; /* up at the start, as init leaves ports */
}

static void set_up(struct ps_rtnl *r, const char *name, bool up)
{
	struct ps_link l;

	CHECK_INT(ps_rtnl_link_find(r, name, NULL, 0, &l), 0);
	CHECK_INT(ps_rtnl_link_set_up(r, l.ifindex, up), 0);
}

static void peer_by_discovery(struct ps_config *cfg)
{
	struct harness h;
	json_object *d, *tests;

	harness_init(&h, step("nic_peer"), "", PS_PLAN_QUICK);
	h.ctx.cfg = cfg;
	one_nic(&h, "pstP", "02:00:00:00:00:0a");
	CHECK_INT(harness_run(&h), PS_PASS);
	d = h.data;
	printf("nic_peer by discovery:\n%s\n",
	       json_object_to_json_string_ext(d, JSON_C_TO_STRING_PRETTY));
	CHECK_STR(ps_json_str(ps_json_get(d, "peer"), "found_by"), "discovery");
	CHECK_INT(ps_json_bool(ps_json_get(d, "peer"), "probestick"), 1);
	CHECK_STR(ps_json_str(ps_json_get(d, "peer"), "address"), "198.51.100.1");
	CHECK_STR(ps_json_str(ps_json_get(d, "port"), "how"), "static");
	tests = ps_json_get(d, "tests");
	/* to the peer, from it, both at once (two rows) */
	CHECK_INT(ps_json_len(tests), 4);
	for (size_t i = 0; i < ps_json_len(tests); i++) {
		double v = -1;

		CHECK(ps_json_num(ps_json_at(tests, i), "median_mbps", &v) && v > 1);
	}
	CHECK_STR(ps_json_str(ps_json_at(tests, 1), "from"), "198.51.100.1");
	harness_done(&h);
}

static void mtu_mismatch(struct ps_config *cfg)
{
	struct harness h;
	json_object *path;

	harness_init(&h, step("mtu"), "", PS_PLAN_QUICK);
	h.ctx.cfg = cfg;
	one_nic(&h, "pstP", "02:00:00:00:00:0a");
	CHECK_INT(harness_run(&h), PS_PASS);
	printf("mtu against serve (here 4088, there 4074):\n%s\n",
	       json_object_to_json_string_ext(h.step, JSON_C_TO_STRING_PRETTY));
	path = ps_json_at(ps_json_get(h.data, "paths"), 0);
	CHECK_STR(ps_json_str(path, "kind"), "peer");
	CHECK_STR(ps_json_str(path, "method"), "UDP echo, DF, both ways");
	CHECK_INT(json_object_get_int(ps_json_get(path, "mtu_here")), 4088);
	CHECK_INT(json_object_get_int(ps_json_get(path, "mtu_there")), 4074);
	/* seed 003: 4074 crosses, payload 4046 */
	CHECK_INT(json_object_get_int(ps_json_get(path, "path_mtu")), 4074);
	CHECK_INT(json_object_get_int(ps_json_get(path, "payload")), 4046);
	CHECK_INT(json_object_get_int(ps_json_get(path, "reverse_mtu")), 4074);
	CHECK_INT(ps_json_bool(path, "mismatch"), 1);
	CHECK_INT((int)harness_count(&h, "mtu.mismatch", "warn"), 1);
	/* the port's MTU went back */
	{
		json_object *r = ps_json_get(h.data, "restored");
		bool mtu_back = false;

		for (size_t i = 0; i < ps_json_len(r); i++) {
			json_object *x = ps_json_at(r, i);

			if (!strcmp(ps_json_str_or(x, "setting", ""), "mtu"))
				mtu_back = ps_json_bool(x, "restored") == 1 &&
					   !strcmp(ps_json_str_or(x, "now", ""), "1500");
		}
		CHECK(mtu_back);
	}
	harness_done(&h);
}

/* Debian's iperf3 -s as the peer, named in probestick.cfg. */
static void against_iperf3(struct ps_rtnl *home_r)
{
	struct ps_config cfg;
	struct harness h;
	struct ps_link l;
	char why[128];
	int ns = ps_netns_create();
	pid_t srv;
	json_object *tests;

	CHECK(ns >= 0);
	CHECK_INT(ps_rtnl_veth_add(home_r, "pstQ", "pstT"), 0);
	CHECK_INT(ps_rtnl_link_find(home_r, "pstT", NULL, 0, &l), 0);
	CHECK_INT(ps_rtnl_link_set_ns(home_r, l.ifindex, ns), 0);
	set_up(home_r, "pstQ", true);
	{
		struct ps_rtnl r;
		struct in_addr a;

		CHECK_INT(ps_rtnl_open(&r, ns), 0);
		CHECK_INT(ps_rtnl_link_find(&r, "pstT", NULL, 0, &l), 0);
		inet_pton(AF_INET, "198.51.100.9", &a);
		CHECK_INT(ps_rtnl_addr_add4(&r, l.ifindex, a, 24), 0);
		CHECK_INT(ps_rtnl_link_set_up(&r, l.ifindex, true), 0);
		ps_rtnl_close(&r);
	}
	{
		char *const argv[] = {"iperf3", "-s", "-p", "5301", NULL};

		srv = spawn_in(ns, argv, "/tmp/test_nic_peer.iperf3-s.log");
	}
	usleep(500000);
	ps_config_defaults(&cfg);
	CHECK_INT(ps_config_set(&cfg, "peer", "198.51.100.9:5301", why, sizeof(why)), 0);
	CHECK_INT(ps_config_set(&cfg, "net", "198.51.100.10/24", why, sizeof(why)), 0);
	harness_init(&h, step("nic_peer"), "", PS_PLAN_QUICK);
	h.ctx.cfg = &cfg;
	one_nic(&h, "pstQ", "02:00:00:00:00:0b");
	CHECK_INT(harness_run(&h), PS_PASS);
	CHECK_STR(ps_json_str(ps_json_get(h.data, "peer"), "found_by"), "probestick.cfg");
	CHECK_INT(ps_json_bool(ps_json_get(h.data, "peer"), "probestick"), 0);
	tests = ps_json_get(h.data, "tests");
	CHECK_INT(ps_json_len(tests), 4);
	for (size_t i = 0; i < ps_json_len(tests); i++) {
		double v = -1;

		CHECK(ps_json_num(ps_json_at(tests, i), "median_mbps", &v) && v > 1);
		printf("probestick -> Debian's iperf3 -s: %s %s: %.0f Mbit/s\n",
		       ps_json_str(ps_json_at(tests, i), "path"),
		       ps_json_str(ps_json_at(tests, i), "mode"), v);
	}
	harness_done(&h);
	stop(srv);
	CHECK_INT(ps_rtnl_link_find(home_r, "pstQ", NULL, 0, &l), 0);
	ps_rtnl_link_del(home_r, l.ifindex);
	close(ns);
}

/* Debian's iperf3 client against probestick serve: figures both ways. */
static void iperf3_client(struct ps_rtnl *home_r)
{
	struct ps_link l;
	struct in_addr a;

	CHECK_INT(ps_rtnl_link_find(home_r, "pstP", NULL, 0, &l), 0);
	inet_pton(AF_INET, "198.51.100.2", &a);
	CHECK_INT(ps_rtnl_addr_add4(home_r, l.ifindex, a, 24), 0);
	for (int rev = 0; rev < 2; rev++) {
		char *const fwd[] = {"iperf3", "-c", "198.51.100.1", "-t", "2", "-J", NULL};
		char *const bwd[] = {"iperf3", "-c", "198.51.100.1", "-t", "2", "-J", "-R", NULL};
		const char *log = "/tmp/test_nic_peer.iperf3-c.json";
		pid_t pid = spawn_in(-1, rev ? bwd : fwd, log);
		struct ps_iperf_result res;
		char *text;
		size_t len;
		int st;

		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		CHECK_INT(ps_read_all(log, &text, &len), 0);
		CHECK_INT(ps_iperf_parse_client(text, &res), 0);
		printf("Debian's iperf3 -c%s -> probestick serve: %.0f Mbit/s\n", rev ? " -R" : "",
		       res.mbps);
		CHECK(res.mbps > 1);
		free(text);
	}
	CHECK_INT(ps_rtnl_addr_del4(home_r, l.ifindex, a, 24), 0);
}

/* net=dhcp: busybox udhcpc gets a lease from busybox udhcpd on the serving side. */
static void peer_by_dhcp(int srv_ns)
{
	struct ps_config cfg;
	struct harness h;
	char why[128];
	const char *conf = "/tmp/test_nic_peer.udhcpd.conf";
	FILE *f = fopen(conf, "w");
	pid_t dhcpd;
	const char *addr;

	fprintf(f, "start 198.51.100.100\nend 198.51.100.110\ninterface pstS\n"
		   "lease_file /tmp/test_nic_peer.leases\noption subnet 255.255.255.0\n");
	fclose(f);
	fclose(fopen("/tmp/test_nic_peer.leases", "w"));
	{
		char *const argv[] = {"busybox", "udhcpd", "-f", (char *)conf, NULL};

		dhcpd = spawn_in(srv_ns, argv, "/tmp/test_nic_peer.udhcpd.log");
	}
	usleep(300000);
	ps_config_defaults(&cfg);
	CHECK_INT(ps_config_set(&cfg, "net", "dhcp", why, sizeof(why)), 0);
	harness_init(&h, step("nic_peer"), "", PS_PLAN_QUICK);
	h.ctx.cfg = &cfg;
	one_nic(&h, "pstP", "02:00:00:00:00:0a");
	CHECK_INT(harness_run(&h), PS_PASS);
	CHECK_STR(ps_json_str(ps_json_get(h.data, "port"), "how"), "dhcp");
	addr = ps_json_str(ps_json_get(h.data, "port"), "address");
	printf("net=dhcp: %s\n", addr ? addr : "(none)");
	CHECK(addr && strncmp(addr, "198.51.100.1", 12) == 0 && strstr(addr, "/24"));
	CHECK_INT(ps_json_len(ps_json_get(h.data, "tests")), 4);
	harness_done(&h);
	stop(dhcpd);
}

int main(void)
{
	struct ps_rtnl home_r, sr;
	struct ps_link l;
	struct ps_config cfg;
	char why[128];
	int srv_ns;
	pid_t srv;

	if (geteuid() != 0)
		return skip("needs root (CAP_NET_ADMIN) for network namespaces");
	if (!have("iperf3"))
		return skip("Debian's iperf3 is not installed (scripts/deps.sh)");
	if (!have("busybox"))
		return skip("busybox is not installed (scripts/deps.sh: busybox-static)");
	if (unshare(CLONE_NEWNET) < 0)
		return skip("cannot make a network namespace here");
	CHECK_INT(ps_rtnl_open(&home_r, -1), 0);
	{
		/* loopback up: iperf3's client talks to nothing local, but udhcpc's script does */
		CHECK_INT(ps_rtnl_link_find(&home_r, "lo", NULL, 0, &l), 0);
		ps_rtnl_link_set_up(&home_r, l.ifindex, true);
	}
	if (ps_rtnl_veth_add(&home_r, "pstP", "pstS") < 0)
		return skip("no veth here");
	srv_ns = ps_netns_create();
	CHECK(srv_ns >= 0);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstS", NULL, 0, &l), 0);
	CHECK_INT(ps_rtnl_link_set_ns(&home_r, l.ifindex, srv_ns), 0);
	/* the client's port up, so the server sees carrier while it sets up */
	set_up(&home_r, "pstP", true);
	srv = serve_in(srv_ns, "pstS", "198.51.100.1/24", "4074");
	sleep(2);

	ps_config_defaults(&cfg);
	CHECK_INT(ps_config_set(&cfg, "net", "198.51.100.2/24", why, sizeof(why)), 0);
	peer_by_discovery(&cfg);
	CHECK_INT(ps_config_set(&cfg, "mtu", "4088", why, sizeof(why)), 0);
	mtu_mismatch(&cfg);
	peer_by_dhcp(srv_ns);
	iperf3_client(&home_r);
	against_iperf3(&home_r);

	stop(srv);
	/* serve put its port back: no address, MTU as it was */
	CHECK_INT(ps_rtnl_open(&sr, srv_ns), 0);
	CHECK_INT(ps_rtnl_link_find(&sr, "pstS", NULL, 0, &l), 0);
	CHECK_INT(l.mtu, 1500);
	{
		char a[64];

		CHECK_INT(ps_rtnl_global_addr(&sr, l.ifindex, a, sizeof(a)), 0);
	}
	ps_rtnl_close(&sr);
	ps_rtnl_close(&home_r);
	close(srv_ns);
	return check_done("test_nic_peer");
}
