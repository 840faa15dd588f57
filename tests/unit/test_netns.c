/* test_netns.c - namespaces, links, an iperf pair and the whole nic_loop step for
 * real, on veth pairs in a private home namespace: the host's links are never touched. */
#include "check.h"
#include "step_harness.h"

#include "../../userland/steps/nic_loop.c"
#include "report/report.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double stop_at;

static bool stop_after(void *arg)
{
	return ps_mono_now() >= stop_at;
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

static void wait_link(int ns, const char *name)
{
	struct ps_rtnl r;
	struct ps_link l = {0};
	double end = ps_mono_now() + 5;

	CHECK_INT(ps_rtnl_open(&r, ns), 0);
	while (ps_mono_now() < end) {
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
	stop_at = ps_mono_now() + 0.5;
	t0 = ps_mono_now();
	ret = ps_iperf_pair_run(&o, &res);
	CHECK_INT(ret, -ECANCELED);
	CHECK(ps_mono_now() - t0 < 1.5);
	/* Both children were reaped. */
	CHECK_INT(waitpid(-1, NULL, WNOHANG), -1);
	CHECK_INT(errno, ECHILD);

	CHECK_INT(ps_iperf_pair_run(&(struct ps_iperf_opts){.streams = 0}, &res), -EINVAL);
}

/* The step runs in a thread that lives in the home namespace: its "initial" one. */
struct step_run {
	int home;
	const char *plan;
	volatile sig_atomic_t abort_flag;
	double abort_after; /* seconds, 0: never */
	struct harness *h;
	json_object *step; /* the harness's step object: data and findings */
	int ret;
	double took;
};

static void *step_thread(void *arg)
{
	struct step_run *sr = arg;
	static const char *const names[] = {"pstB", "pstA", "pstC", "pstD"};
	double t0 = ps_mono_now();
	struct harness *h = sr->h;

	if (setns(sr->home, CLONE_NEWNET) < 0) {
		sr->ret = -errno;
		return NULL;
	}
	harness_init(h, &nic_loop_ops, "",
		     strcmp(sr->plan, "full") == 0 ? PS_PLAN_FULL : PS_PLAN_QUICK);
	h->ctx.abort_flag = &sr->abort_flag;
	h->inv.nics = calloc(PS_ARRAY_SIZE(names), sizeof(*h->inv.nics));
	h->inv.n_nics = PS_ARRAY_SIZE(names);
	h->inv.taken = true;
	for (size_t i = 0; i < PS_ARRAY_SIZE(names); i++) {
		struct ps_nic *n = &h->inv.nics[i];

		snprintf(n->name, sizeof(n->name), "%s", names[i]);
		snprintf(n->mac, sizeof(n->mac), "02:00:00:00:00:0a");
		snprintf(n->id, sizeof(n->id), "nic:%s", names[i]);
	}
	sr->step = h->step;
	sr->ret = harness_run(h);
	sr->took = ps_mono_now() - t0;
	return NULL;
}

static struct harness the_harness;

static int run_step(struct step_run *sr)
{
	pthread_t th;

	sr->h = &the_harness;
	double t0 = ps_mono_now();

	CHECK_INT(pthread_create(&th, NULL, step_thread, sr), 0);
	while (sr->abort_after > 0 && !sr->took) {
		if (ps_mono_now() - t0 >= sr->abort_after)
			sr->abort_flag = 1;
		usleep(20000);
	}
	pthread_join(th, NULL);
	return sr->ret;
}

static json_object *port_row_of(json_object *data, const char *name)
{
	json_object *s = ps_json_get(data, "ports");

	for (size_t i = 0; s && i < json_object_array_length(s); i++)
		if (strcmp(ps_json_str(json_object_array_get_idx(s, i), "name"), name) == 0)
			return json_object_array_get_idx(s, i);
	return NULL;
}

/* The restored row of port's setting. */
static json_object *restored_row(json_object *data, const char *port, const char *setting)
{
	json_object *s = ps_json_get(data, "restored");

	for (size_t i = 0; s && i < json_object_array_length(s); i++) {
		json_object *r = json_object_array_get_idx(s, i);

		if (strcmp(ps_json_str_or(r, "port", ""), port) == 0 &&
		    strcmp(ps_json_str_or(r, "setting", ""), setting) == 0)
			return r;
	}
	return NULL;
}

static void check_restored(struct ps_rtnl *home_r)
{
	struct ps_link l;

	CHECK_INT(ps_rtnl_link_find(home_r, "pstA", NULL, 0, &l), 0);
	CHECK_INT(l.mtu, 1400);
	CHECK(!(l.flags & IFF_UP));
	CHECK_INT(ps_rtnl_link_find(home_r, "pstB", NULL, 0, &l), 0);
	CHECK_INT(l.mtu, 1500);
	CHECK(l.flags & IFF_UP);
	CHECK_INT(ps_rtnl_link_find(home_r, "pstC", NULL, 0, &l), 0);
	CHECK_INT(ps_rtnl_link_find(home_r, "pstD", NULL, 0, &l), 0);
	CHECK(l.flags & IFF_UP);
}

/*
 * pstA-pstB: a cable, pstA with MTU 1400 and down, pstB up (both must come
 * back so). pstC: its peer stays down, so no link. pstD: has an address, in use.
 */
static void step_on_veth(void)
{
	struct ps_rtnl home_r;
	struct ps_link l;
	struct in_addr a;
	struct step_run sr = {.plan = "quick"};
	json_object *data, *pairs, *pair, *dirs, *s;

	sr.home = ps_netns_create();
	CHECK(sr.home >= 0);
	CHECK_INT(ps_rtnl_open(&home_r, sr.home), 0);
	CHECK_INT(ps_rtnl_veth_add(&home_r, "pstA", "pstB"), 0);
	CHECK_INT(ps_rtnl_veth_add(&home_r, "pstC", "pstX"), 0);
	CHECK_INT(ps_rtnl_veth_add(&home_r, "pstD", "pstY"), 0);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstA", NULL, 0, &l), 0);
	CHECK_INT(ps_rtnl_link_set_mtu(&home_r, l.ifindex, 1400), 0);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstB", NULL, 0, &l), 0);
	CHECK_INT(ps_rtnl_link_set_up(&home_r, l.ifindex, true), 0);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstD", NULL, 0, &l), 0);
	inet_pton(AF_INET, "198.19.5.1", &a);
	CHECK_INT(ps_rtnl_addr_add4(&home_r, l.ifindex, a, 24), 0);
	CHECK_INT(ps_rtnl_link_set_up(&home_r, l.ifindex, true), 0);

	CHECK_INT(run_step(&sr), PS_PASS);
	printf("step (quick) on veth: %.1f s\n%s\n", sr.took,
	       json_object_to_json_string_ext(sr.step, JSON_C_TO_STRING_PRETTY));
	/* 4 rows x 2-3 runs (the noise rule) x 3 s, the probe frames, the namespaces */
	CHECK(sr.took < 45);
	data = ps_json_get(sr.step, "data");
	pairs = ps_json_get(data, "pairs");
	CHECK_INT(pairs ? json_object_array_length(pairs) : 0, 1);
	pair = pairs ? json_object_array_get_idx(pairs, 0) : NULL;
	/* No PCI addresses: name order; found by the probe frame, not assumed. */
	CHECK_STR(ps_json_str(pair, "a"), "pstA");
	CHECK_STR(ps_json_str(pair, "b"), "pstB");
	CHECK_STR(ps_json_str(pair, "found_by"), "probe frame");
	CHECK_INT(json_object_get_int(ps_json_get(pair, "link_mbps")), 10000);
	dirs = ps_json_get(pair, "tests");
	/* a->b, b->a, and both at once (two rows) */
	CHECK_INT(dirs ? json_object_array_length(dirs) : 0, 4);
	for (size_t i = 0; dirs && i < json_object_array_length(dirs); i++) {
		static const char *const from[] = {"pstA", "pstB", "pstA", "pstB"};
		static const char *const mode[] = {"one way", "one way", "both ways", "both ways"};
		json_object *d = json_object_array_get_idx(dirs, i);

		CHECK_STR(ps_json_str(d, "from"), from[i]);
		CHECK_STR(ps_json_str(d, "mode"), mode[i]);
		/* the quick plan's two runs, a third while they vary (the noise rule) */
		CHECK(json_object_array_length(ps_json_get(d, "runs_mbps")) >= 2 &&
		      json_object_array_length(ps_json_get(d, "runs_mbps")) <= 3);
		CHECK_INT(json_object_get_int(ps_json_get(d, "extra_runs")),
			  json_object_array_length(ps_json_get(d, "runs_mbps")) - 2);
		CHECK(json_object_get_double(ps_json_get(d, "median_mbps")) > 1);
		CHECK(ps_json_get(d, "cv_pct") != NULL);
		CHECK(ps_json_get(d, "cpu_sender_pct") != NULL);
		/* what the measurement cost: every core's share, the busiest one named */
		CHECK(ps_json_ptr(d, "/cost/busiest_core_pct") != NULL);
		CHECK(ps_json_ptr(d, "/cost/cores") != NULL);
		CHECK(ps_json_str(d, "verdict") != NULL);
	}
	CHECK_STR(ps_json_str(port_row_of(data, "pstA"), "state"), "paired");
	CHECK_STR(ps_json_str(port_row_of(data, "pstA"), "partner"), "pstB");
	/* pstC was moved too: everything it had is back */
	s = restored_row(data, "pstA", "mtu");
	CHECK_STR(ps_json_str(s, "was"), "1400");
	CHECK_STR(ps_json_str(s, "now"), "1400");
	CHECK_INT(ps_json_bool(s, "restored"), 1);
	s = restored_row(data, "pstA", "up");
	CHECK_STR(ps_json_str(s, "now"), "down");
	CHECK(restored_row(data, "pstC", "namespace") != NULL);
	s = port_row_of(data, "pstC");
	CHECK_STR(ps_json_str(s, "state"), "no link");
	s = port_row_of(data, "pstD");
	CHECK_STR(ps_json_str(s, "state"), "in use");
	CHECK_STR(ps_json_str(s, "reason"), "in use: has address 198.19.5.1/24");
	check_restored(&home_r);
	harness_done(&the_harness);

	/* A key press during the measurement: aborted, and everything is back. */
	sr = (struct step_run){.home = sr.home, .plan = "quick", .abort_after = 2.5};
	CHECK_INT(run_step(&sr), PS_ABORTED);
	printf("aborted after %.1f s\n", sr.took);
	CHECK(sr.took < 4);
	check_restored(&home_r);
	harness_done(&the_harness);

	/* Only one port with link, the other in use: nothing measured, so skipped (never a
	 * pass), and every port's verdict says why it was not tested. */
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstB", NULL, 0, &l), 0);
	CHECK_INT(ps_rtnl_link_del(&home_r, l.ifindex), 0);
	CHECK_INT(ps_rtnl_link_find(&home_r, "pstX", NULL, 0, &l), 0);
	CHECK_INT(ps_rtnl_link_set_up(&home_r, l.ifindex, true), 0);
	sr = (struct step_run){.home = sr.home, .plan = "quick"};
	CHECK_INT(run_step(&sr), PS_SKIPPED);
	CHECK_STR(the_harness.run.reason,
		  "no port pair measured: only one port has link: cable two ports to each other "
		  "to measure them");
	data = ps_json_get(sr.step, "data");
	CHECK_INT(json_object_array_length(ps_json_get(data, "pairs")), 0);
	CHECK_STR(ps_json_str(port_row_of(data, "pstB"), "reason"),
		  "not found when the step started: No such device");
	CHECK_STR(ps_json_str(port_row_of(data, "pstC"), "state"), "unpaired");
	s = ps_json_get(sr.step, "findings");
	CHECK(strstr(json_object_to_json_string(s), "only one port has link") != NULL);
	for (size_t i = 0; i < ps_json_len(the_harness.verdicts); i++) {
		json_object *v = ps_json_at(the_harness.verdicts, i);

		CHECK_STR(ps_json_str(v, "status"), "untested");
		if (strcmp(ps_json_str_or(v, "subject", ""), "pstD") == 0)
			CHECK_STR(ps_json_str(v, "message"), "in use: has address 198.19.5.1/24");
	}
	CHECK_INT(ps_json_len(the_harness.verdicts), 4);
	harness_done(&the_harness);

	/* With --root (a fixture tree) it never touches a link. */
	{
		struct harness h;

		harness_init(&h, &nic_loop_ops, "tests/fixtures", PS_PLAN_QUICK);
		CHECK_INT(harness_run(&h), PS_SKIPPED);
		CHECK(h.run.reason[0] != '\0');
		harness_done(&h);
	}
	ps_rtnl_close(&home_r);
	close(sr.home);
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
	wait_link(ns_a, "pstA");
	wait_link(ns_b, "pstB");
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

	step_on_veth();
	return check_done("test_netns");
}
