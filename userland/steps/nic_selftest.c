/*
 * nic_selftest.c - the driver's own self-test of every free port (ETHTOOL_TEST,
 * offline where the driver has offline tests: registers, EEPROM, interrupts,
 * loopback), each test's name and result, and the port checked back as it was.
 */
/* clang-format off */
//config:config STEP_NIC_SELFTEST
//config:	bool "nic_selftest: the NIC driver's own self-test (full plan)"
//config:	default y
//config:	help
//config:	  Runs each free port's driver self-test (ethtool -t PORT offline):
//config:	  register, EEPROM, interrupt, loopback and link tests where the
//config:	  driver has them. Offline tests take the link down for a few
//config:	  seconds; the port is checked back as it was afterwards (up or
//config:	  down, MTU, link). Ports with an address are left alone.
//kbuild:step-$(CONFIG_STEP_NIC_SELFTEST) += nic_selftest.o
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "ports": {"type": "array", "items": {"type": "object",
//schema:      "properties": {
//schema:        "name": {"type": "string"}, "device": {"type": ["string", "null"]},
//schema:        "offline": {"type": ["boolean", "null"]},
//schema:        "result": {"enum": ["pass", "fail", "none", "error", "not run"]},
//schema:        "seconds": {"type": ["number", "null"]},
//schema:        "tests": {"type": "array", "items": {"type": "object",
//schema:          "properties": {"name": {"type": "string"}, "code": {"type": "integer"},
//schema:                         "passed": {"type": "boolean"}},
//schema:          "required": ["name", "code", "passed"]}},
//schema:        "reason": {"type": ["string", "null"]}
//schema:      },
//schema:      "required": ["name", "result", "tests"]}},
//schema:    "restored": {"type": "array", "items": {"type": "object"}}
//schema:  },
//schema:  "required": ["ports", "restored"]
//schema:}
/* clang-format on */

#include "core/step.h"
#include "lib/util.h"
#include "engines/net/ports.h"
#include "hw/ethtool.h"
#include "lib/json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RELINK_S     8.0 /* an offline test resets the port: autonegotiation again */
#define DATA_VERSION 1

static void row(json_object *ports, const char *name, const char *id, const char *result,
		const char *reason, json_object *tests, int offline, double seconds)
{
	json_object *o = json_object_new_object();

	ps_json_set_str(o, "name", name);
	ps_json_set_str(o, "device", id);
	ps_json_set_tri(o, "offline", offline);
	ps_json_set_str(o, "result", result);
	ps_json_set(o, "seconds", seconds >= 0 ? ps_json_new_num(seconds, 1) : NULL);
	ps_json_set(o, "tests", tests ? tests : json_object_new_array());
	ps_json_set_str(o, "reason", reason);
	json_object_array_add(ports, o);
}

static void test_port(struct ps_ctx *ctx, struct ps_ethtool *et, struct ps_rtnl *r,
		      const struct ps_port *p, json_object *ports, json_object *restored)
{
	struct ps_dev_ref ref =
	    p->nic ? ps_nic_ref(p->nic) : (struct ps_dev_ref){PS_DEV_NIC, NULL, p->name};
	const char *id = p->nic ? p->nic->id : NULL;
	struct ps_eth_selftest st;
	struct ps_port_hold hold;
	struct ps_link l;
	json_object *tests;
	char was[16], now[16], why[200];
	double t0;
	int n = ps_ethtool_selftest_count(et, p->name), ret, failed = 0;

	if (n <= 0) {
		snprintf(why, sizeof(why), "%s",
			 n == 0		    ? "the driver has no self-test"
			 : n == -EOPNOTSUPP ? "the driver has no self-test"
					    : strerror(-n));
		ps_findf(ctx, PS_SEV_INFO, ref, "no_selftest", "%s: %s", p->name, why);
		row(ports, p->name, id, n == 0 || n == -EOPNOTSUPP ? "none" : "error", why, NULL,
		    PS_TRI_UNKNOWN, -1);
		return;
	}
	ps_port_hold_begin(&hold, r, p->name, p->nic ? p->nic->mac : NULL);
	t0 = ps_mono_now();
	ret = ps_ethtool_selftest(et, p->name, true, &st);
	ps_port_hold_end(&hold, r, p->orig_up && p->orig_carrier ? RELINK_S : 0);
	if (ret < 0) {
		snprintf(why, sizeof(why), "ETHTOOL_TEST: %s", strerror(-ret));
		ps_findf(ctx, PS_SEV_WARN, ref, "selftest_error",
			 "%s: the self-test could not run: %s", p->name, strerror(-ret));
		row(ports, p->name, id, "error", why, NULL, PS_TRI_UNKNOWN, ps_mono_now() - t0);
	} else {
		tests = json_object_new_array();
		for (int i = 0; i < st.n; i++) {
			json_object *t = json_object_new_object();

			ps_json_set_str(t, "name", st.names[i]);
			ps_json_set(t, "code", json_object_new_int64((int64_t)st.result[i]));
			ps_json_set(t, "passed", json_object_new_boolean(st.result[i] == 0));
			json_object_array_add(tests, t);
			if (st.result[i] != 0) {
				failed++;
				ps_findf(ctx, PS_SEV_FAIL, ref, "test_failed",
					 "%s: the driver's \"%s\" failed (code %llu)", p->name,
					 st.names[i], (unsigned long long)st.result[i]);
			}
		}
		if (st.failed && failed == 0)
			ps_findf(ctx, PS_SEV_FAIL, ref, "test_failed",
				 "%s: the driver says its self-test failed", p->name);
		if (!st.failed && failed == 0)
			ps_examined(ctx, ref, "passed",
				    "the driver's %d self-tests passed (offline)", st.n);
		row(ports, p->name, id, st.failed || failed ? "fail" : "pass", NULL, tests, 1,
		    ps_mono_now() - t0);
	}
	/* As it was: up or down, MTU, link. */
	ret = ps_rtnl_link_find(r, p->name, NULL, 0, &l);
	ps_restored_row(restored, p->name, "up", p->orig_up ? "up" : "down",
			ret < 0		   ? NULL
			: l.flags & IFF_UP ? "up"
					   : "down");
	snprintf(was, sizeof(was), "%u", p->orig_mtu);
	snprintf(now, sizeof(now), "%u", ret < 0 ? 0 : l.mtu);
	ps_restored_row(restored, p->name, "mtu", was, ret < 0 ? NULL : now);
	if (p->orig_carrier)
		ps_restored_row(restored, p->name, "link", "up",
				ret < 0		 ? NULL
				: l.carrier == 1 ? "up"
						 : "down");
	if (ret < 0 || !!(l.flags & IFF_UP) != p->orig_up || l.mtu != p->orig_mtu)
		ps_findf(ctx, PS_SEV_FAIL, ref, "not_restored",
			 "%s is not as it was after its self-test (%s, MTU %u; was %s, MTU %u)",
			 p->name,
			 ret < 0	    ? "gone"
			 : l.flags & IFF_UP ? "up"
					    : "down",
			 ret < 0 ? 0 : l.mtu, p->orig_up ? "up" : "down", p->orig_mtu);
	else if (p->orig_carrier && l.carrier != 1)
		ps_findf(ctx, PS_SEV_WARN, ref, "link_not_back",
			 "%s had link before its self-test and none %.0f s after it", p->name,
			 RELINK_S);
}

static int run(struct ps_ctx *ctx)
{
	json_object *ports = json_object_new_array(), *restored = json_object_new_array();
	struct ps_ports ps;
	struct ps_ethtool et;
	int ret;

	ps_json_set(ctx->data, "ports", ports);
	ps_json_set(ctx->data, "restored", restored);
	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "tests real ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ret = ps_ports_open(&ps, ctx->inv, NULL, restored);
	if (ret < 0)
		return ret;
	ret = ps_ethtool_open(&et);
	if (ret < 0) {
		ps_rtnl_close(&ps.home_r);
		close(ps.home);
		ps_step_reason(ctx, "cannot open the ethtool interfaces: %s", strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < ps.n_left; i++)
		row(ports, ps.left[i].name, ps.left[i].nic ? ps.left[i].nic->id : NULL, "not run",
		    ps.left[i].why, NULL, PS_TRI_UNKNOWN, -1);
	ps_progress_phase(ctx, "self-tests", ps.n, "ports");
	for (size_t i = 0; i < ps.n && !ps_should_abort(ctx); i++) {
		test_port(ctx, &et, &ps.home_r, &ps.p[i], ports, restored);
		ps_progress_set(ctx, i + 1);
	}
	ps_ethtool_close(&et);
	ps_rtnl_close(&ps.home_r);
	close(ps.home);
	if (ctx->inv->n_nics == 0)
		ps_step_reason(ctx, "the inventory found no physical network port");
	return ps_should_abort(ctx) ? PS_ABORTED : ctx->inv->n_nics ? PS_PASS : PS_SKIPPED;
}

static double estimate(const struct ps_ctx *ctx)
{
	return (double)ctx->inv->n_nics * 10;
}

/* ---- view ---- */

static const struct ps_col port_cols[] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/device", .title = "id", .flags = PS_COL_DEVICE},
    {.path = "/result", .title = "self-test", .fmt = PS_FMT_STATUS, .flags = PS_COL_HEADLINE},
    {.path = "/offline", .title = "offline", .fmt = PS_FMT_BOOL},
    {.path = "/seconds", .title = "took", .fmt = PS_FMT_SECONDS, .flags = PS_COL_MEASURED},
    {.path = "/reason", .title = "why", .flags = PS_COL_WIDE},
};

static const struct ps_col test_cols[] = {
    {.path = "^/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/name", .title = "test", .flags = PS_COL_KEY},
    {.path = "/passed", .title = "passed", .fmt = PS_FMT_BOOL},
    {.path = "/code", .title = "code"},
};

static const struct ps_col restored_cols[] = {
    {.path = "/port", .title = "port", .flags = PS_COL_KEY},
    {.path = "/setting", .title = "setting", .flags = PS_COL_KEY},
    {.path = "/was", .title = "was"},
    {.path = "/now", .title = "now"},
    {.path = "/restored", .title = "restored", .fmt = PS_FMT_BOOL},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "ports",
     .title = "Driver self-test per port",
     .rows = "/ports",
     .cols = PS_COLS(port_cols),
     .empty = "no physical network port"},
    {.kind = PS_BLOCK_TABLE,
     .id = "tests",
     .title = "Tests",
     .rows = "/ports",
     .nested = "/tests",
     .cols = PS_COLS(test_cols),
     .note = "code: what the driver returned; 0 is a pass"},
    {.kind = PS_BLOCK_TABLE,
     .id = "restored",
     .title = "After the tests",
     .rows = "/restored",
     .cols = PS_COLS(restored_cols)},
};

static const struct ps_view view = {
    .name = "nic_selftest",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops nic_selftest_ops = {
    .abi = PS_STEP_ABI,
    .name = "nic_selftest",
    .title = "each port's driver self-test (offline)",
    .plans = PS_PLAN_FULL,
    .needs = PS_NEED_ROOT,
    .order = 35,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_selftest_ops);
