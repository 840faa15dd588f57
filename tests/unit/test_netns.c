/* test_netns.c - namespaces, links and an iperf pair for real: a veth pair in a
 * private home namespace, each end moved into its own namespace (needs root). */
#include "check.h"
#include "net/iperf_pair.h"
#include "net/netns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double stop_at;

static bool stop_after(void *arg)
{
	return mono_now() >= stop_at;
}

static int skip(const char *why)
{
	printf("skip: %s\n", why);
	return 77;
}

/* Bring a link up in its namespace with an address; wait for carrier. */
static int configure(int ns, const char *name, const char *addr, struct ps_link *l)
{
	struct ps_rtnl r;
	struct in_addr a;
	int ret = ps_rtnl_open(&r, ns);

	if (ret < 0)
		return ret;
	inet_pton(AF_INET, addr, &a);
	ret = ps_rtnl_link_find(&r, name, NULL, 0, l);
	CHECK_INT(ret, 0);
	CHECK_INT(ps_rtnl_link_no_ipv6_ll(&r, l->ifindex), 0);
	CHECK_INT(ps_rtnl_addr_add4(&r, l->ifindex, a, 24), 0);
	CHECK_INT(ps_rtnl_addr_add4(&r, l->ifindex, a, 24), -EEXIST);
	CHECK_INT(ps_rtnl_link_set_up(&r, l->ifindex, true), 0);
	ps_rtnl_close(&r);
	return ret;
}

static void wait_carrier(int ns, const char *name)
{
	struct ps_rtnl r;
	struct ps_link l = {0};
	double end = mono_now() + 5;

	CHECK_INT(ps_rtnl_open(&r, ns), 0);
	while (mono_now() < end) {
		if (ps_rtnl_link_find(&r, name, NULL, 0, &l) == 0 && l.carrier == 1)
			break;
		usleep(50000);
	}
	CHECK_INT(l.carrier, 1);
	CHECK(l.flags & IFF_UP);
	ps_rtnl_close(&r);
}

static void iperf_runs(int ns_a, int ns_b)
{
	struct ps_iperf_opts o = {.server_ns_fd = ns_b,
				  .client_ns_fd = ns_a,
				  .server_addr = "198.18.0.2",
				  .streams = 1,
				  .duration_s = 1};
	struct ps_iperf_result res;
	double t0;
	int ret;

	ret = ps_iperf_pair_run(&o, &res);
	CHECK_INT(ret, 0);
	printf("veth A->B, 1 stream, 1 s: %.0f Mbit/s (sent %.0f), retransmits %ld, cpu sender "
	       "%.1f%% receiver %.1f%%%s%s\n",
	       res.mbps, res.sent_mbps, res.retransmits, res.cpu_sender_pct, res.cpu_receiver_pct,
	       res.error[0] ? ", error: " : "", res.error);
	CHECK(res.mbps > 1);
	CHECK(res.retransmits >= 0);
	CHECK(res.cpu_sender_pct >= 0 && res.cpu_receiver_pct >= 0);
	CHECK_STR(res.error, "");

	o.server_ns_fd = ns_a;
	o.client_ns_fd = ns_b;
	o.server_addr = "198.18.0.1";
	o.streams = 4;
	ret = ps_iperf_pair_run(&o, &res);
	CHECK_INT(ret, 0);
	printf("veth B->A, 4 streams, 1 s: %.0f Mbit/s\n", res.mbps);
	CHECK(res.mbps > 1);

	/* Nobody has this address in B: the server cannot bind and says so. */
	o.server_ns_fd = ns_b;
	o.client_ns_fd = ns_a;
	o.server_addr = "198.18.0.9";
	ret = ps_iperf_pair_run(&o, &res);
	CHECK(ret < 0);
	CHECK(res.error[0] != '\0');
	printf("unbindable server: %d, %s\n", ret, res.error);

	/* A stop request ends a 30 s run within a fraction of a second. */
	o.server_addr = "198.18.0.2";
	o.duration_s = 30;
	o.should_stop = stop_after;
	stop_at = mono_now() + 0.5;
	t0 = mono_now();
	ret = ps_iperf_pair_run(&o, &res);
	CHECK_INT(ret, -ECANCELED);
	CHECK(mono_now() - t0 < 1.5);
	/* Both children were reaped. */
	CHECK_INT(waitpid(-1, NULL, WNOHANG), -1);
	CHECK_INT(errno, ECHILD);

	CHECK_INT(ps_iperf_pair_run(&(struct ps_iperf_opts){.streams = 0}, &res), -EINVAL);
}

int main(void)
{
	struct ps_rtnl home_r, r;
	struct ps_link a0, b0, l;
	char addr[64];
	int home, ns_a, ns_b, ret;

	if (geteuid() != 0)
		return skip("needs root (CAP_NET_ADMIN) for network namespaces");
	home = ps_netns_create();
	if (home == -EPERM || home == -ENOSYS || home == -EINVAL)
		return skip("cannot create a network namespace here");
	CHECK(home >= 0);
	if (home < 0)
		return check_done("test_netns");
	CHECK_INT(ps_rtnl_open(&home_r, home), 0);
	ret = ps_rtnl_veth_add(&home_r, "pstA", "pstB");
	if (ret == -EOPNOTSUPP || ret == -ENOTSUP)
		return skip("the kernel has no veth driver (CONFIG_VETH)");
	CHECK_INT(ret, 0);
	CHECK_INT(ps_rtnl_veth_add(&home_r, "pstA", "pstC"), -EEXIST);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstA", NULL, 0, &a0), 0);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstB", NULL, 0, &b0), 0);
	CHECK_INT(ps_rtnl_link_find(&home_r, "nonexistent0", NULL, 0, &l), -ENODEV);
	/* By MAC when the name is not there. */
	CHECK_INT(ps_rtnl_link_find(&home_r, "nonexistent0", b0.mac, b0.mac_len, &l), 0);
	CHECK_STR(l.name, "pstB");
	CHECK(!(a0.flags & IFF_UP));
	CHECK_INT(a0.mtu, 1500);

	ns_a = ps_netns_create();
	ns_b = ps_netns_create();
	CHECK(ns_a >= 0 && ns_b >= 0);
	CHECK_INT(ps_rtnl_link_set_ns(&home_r, a0.ifindex, ns_a), 0);
	CHECK_INT(ps_rtnl_link_set_ns(&home_r, b0.ifindex, ns_b), 0);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstA", NULL, 0, &l), -ENODEV);

	CHECK_INT(configure(ns_a, "pstA", "198.18.0.1", &l), 0);
	CHECK_INT(configure(ns_b, "pstB", "198.18.0.2", &l), 0);
	wait_carrier(ns_a, "pstA");
	wait_carrier(ns_b, "pstB");
	CHECK_INT(ps_rtnl_open(&r, ns_a), 0);
	CHECK_INT(ps_rtnl_link_find(&r, "pstA", NULL, 0, &l), 0);
	CHECK_INT(ps_rtnl_global_addr(&r, l.ifindex, addr, sizeof(addr)), 1);
	CHECK_STR(addr, "198.18.0.1/24");
	CHECK_INT(ps_rtnl_default_route_via(&r, l.ifindex), 0);
	CHECK_INT(ps_rtnl_link_set_mtu(&r, l.ifindex, 1400), 0);
	CHECK(ps_netns_link_speed(ns_a, "pstA") > 0);
	CHECK_INT(ps_netns_link_speed(ns_a, "nonexistent0"), -ENODEV);

	iperf_runs(ns_a, ns_b);

	/* Back home: state and MTU as they were once restored. */
	CHECK_INT(ps_rtnl_link_set_ns(&r, l.ifindex, home), 0);
	ps_rtnl_close(&r);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstA", NULL, 0, &l), 0);
	CHECK(!(l.flags & IFF_UP));
	CHECK_INT(l.mtu, 1400);
	CHECK_INT(ps_rtnl_global_addr(&home_r, l.ifindex, addr, sizeof(addr)), 0);
	CHECK_INT(ps_rtnl_link_set_mtu(&home_r, l.ifindex, a0.mtu), 0);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstA", NULL, 0, &l), 0);
	CHECK_INT(l.mtu, 1500);
	/* Deleting one end removes its peer in the other namespace too. */
	CHECK_INT(ps_rtnl_link_del(&home_r, l.ifindex), 0);
	CHECK_INT(ps_rtnl_open(&r, ns_b), 0);
	CHECK_INT(ps_rtnl_link_find(&r, "pstB", NULL, 0, &l), -ENODEV);
	ps_rtnl_close(&r);

	ps_rtnl_close(&home_r);
	close(ns_a);
	close(ns_b);
	close(home);
	return check_done("test_netns");
}
