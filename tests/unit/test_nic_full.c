/*
 * test_nic_full.c - the full plan's NIC steps for real on two veth pairs in
 * a private network namespace: nic_selftest (veth has no self-test: said
 * so, nothing changed), nic_coalesce (what veth lets be set, swept and put
 * back, or said why not), nic_aggregate (two pairs alone and together, the
 * ceiling named). The host's links are never touched.
 */
#include "check.h"
/* link: steps */
#include "step_harness.h"

#include "engines/net/netns.h"

#include <sched.h>
#include <stdlib.h>
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

static const char *const names[] = {"pstA", "pstB", "pstC", "pstD"};

static void inventory(struct harness *h)
{
	h->inv.nics = calloc(4, sizeof(*h->inv.nics));
	h->inv.n_nics = 4;
	h->inv.taken = true;
	for (int i = 0; i < 4; i++) {
		snprintf(h->inv.nics[i].name, sizeof(h->inv.nics[i].name), "%s", names[i]);
		snprintf(h->inv.nics[i].mac, sizeof(h->inv.nics[i].mac), "02:00:00:00:01:0%c",
			 (char)('0' + i));
		snprintf(h->inv.nics[i].id, sizeof(h->inv.nics[i].id), "nic:%s", names[i]);
		h->inv.nics[i].carrier = 1;
	}
}

static json_object *run(const char *name, int want)
{
	static struct harness h;
	json_object *data;

	harness_init(&h, step(name), "", PS_PLAN_FULL);
	inventory(&h);
	CHECK_INT(harness_run(&h), want);
	printf("%s:\n%s\n", name, json_object_to_json_string_ext(h.step, JSON_C_TO_STRING_PRETTY));
	data = json_object_get(h.data);
	harness_done(&h);
	return data;
}

static void all_restored(json_object *data)
{
	json_object *r = ps_json_get(data, "restored");

	CHECK(ps_json_len(r) > 0);
	for (size_t i = 0; i < ps_json_len(r); i++)
		CHECK_INT(ps_json_bool(ps_json_at(r, i), "restored"), 1);
}

int main(void)
{
	struct ps_rtnl r;
	struct ps_link l;
	json_object *d;

	if (geteuid() != 0) {
		printf("skip: needs root (CAP_NET_ADMIN) for network namespaces\n");
		return 77;
	}
	if (unshare(CLONE_NEWNET) < 0) {
		printf("skip: cannot make a network namespace here\n");
		return 77;
	}
	CHECK_INT(ps_rtnl_open(&r, -1), 0);
	CHECK_INT(ps_rtnl_veth_add(&r, "pstA", "pstB"), 0);
	CHECK_INT(ps_rtnl_veth_add(&r, "pstC", "pstD"), 0);
	for (int i = 0; i < 4; i++) {
		CHECK_INT(ps_rtnl_link_find(&r, names[i], NULL, 0, &l), 0);
		CHECK_INT(ps_rtnl_link_set_up(&r, l.ifindex, true), 0);
	}

	d = run("nic_selftest", PS_PASS);
	for (size_t i = 0; i < ps_json_len(ps_json_get(d, "ports")); i++)
		CHECK_STR(ps_json_str(ps_json_at(ps_json_get(d, "ports"), i), "result"), "none");
	json_object_put(d);

	d = run("nic_coalesce", PS_PASS);
	CHECK_INT(ps_json_len(ps_json_get(d, "pairs")), 2);
	for (size_t i = 0; i < 2; i++) {
		json_object *p = ps_json_at(ps_json_get(d, "pairs"), i);

		/* veth has what it has: either a sweep with figures, or why not */
		if (ps_json_str(p, "setting"))
			CHECK(ps_json_len(ps_json_get(p, "sweep")) >= 2);
		else
			CHECK(ps_json_str(p, "reason") != NULL);
	}
	all_restored(d);
	json_object_put(d);

	d = run("nic_aggregate", PS_PASS);
	CHECK_INT(ps_json_len(ps_json_get(d, "pairs")), 2);
	{
		double sum = -1, together = -1;

		CHECK(ps_json_num(d, "sum_alone_mbps", &sum) && sum > 1);
		CHECK(ps_json_num(d, "together_mbps", &together) && together > 1);
		CHECK(ps_json_str(d, "ceiling") != NULL);
		CHECK(ps_json_str(d, "ceiling_why") != NULL);
	}
	all_restored(d);
	json_object_put(d);

	/* Every port back up, at home. */
	for (int i = 0; i < 4; i++) {
		CHECK_INT(ps_rtnl_link_find(&r, names[i], NULL, 0, &l), 0);
		CHECK(l.flags & IFF_UP);
		CHECK_INT(l.mtu, 1500);
	}
	ps_rtnl_close(&r);
	return check_done("test_nic_full");
}
