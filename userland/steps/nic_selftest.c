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
/* clang-format on */

#include "core/step.h"
#include "engines/net/session.h"
#include "hw/ethtool.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RELINK_S     8.0 /* an offline test resets the port: autonegotiation again */
#define DATA_VERSION 1

/* ---- the result: data{} as a struct, described once ---- */

struct test_row {
	char name[32]; /* as the driver names it: "Register test  (offline)" */
	int64_t code;  /* what the driver returned: 0 passed */
	bool passed;
};

struct port_row {
	char name[IF_NAMESIZE];
	const char *device; /* the inventory's id, NULL for a port it does not know */
	ps_tri offline;
	const char *result; /* result_names */
	double seconds;	    /* NAN: it did not run */
	struct test_row *tests;
	size_t n_tests;
	char reason[200]; /* "" none */
};

struct selftest_result {
	struct port_row *ports;
	size_t n_ports;
	struct ps_put_back restored[PS_PUT_BACK_MAX];
	size_t n_restored;
};

static const char *const result_names[] = {"pass", "fail", "none", "error", "not run", NULL};

static const struct ps_field test_f[] = {
    PS_FIELD(struct test_row, name, "name"),
    PS_FIELD(struct test_row, code, "code"),
    PS_FIELD(struct test_row, passed, "passed"),
};
static const struct ps_fields test_fields = PS_FIELDS(struct test_row, test_f);

static const struct ps_field port_f[] = {
    PS_FIELD(struct port_row, name, "name"),
    PS_FIELD(struct port_row, device, "device", .flags = PS_FLD_NULL),
    PS_FIELD(struct port_row, offline, "offline", .flags = PS_FLD_NULL),
    PS_FIELD(struct port_row, result, "result", .names = result_names),
    PS_FIELD(struct port_row, seconds, "seconds", .unit = "s", .decimals = 1, .flags = PS_FLD_NULL),
    PS_FIELD_ARRAY(struct port_row, tests, n_tests, "tests", &test_fields),
    PS_FIELD(struct port_row, reason, "reason", .flags = PS_FLD_NULL),
};
static const struct ps_fields port_fields = PS_FIELDS(struct port_row, port_f);

static const struct ps_field selftest_f[] = {
    PS_FIELD_ARRAY(struct selftest_result, ports, n_ports, "ports", &port_fields),
    PS_FIELD_ARRAY(struct selftest_result, restored, n_restored, "restored", &ps_put_back_fields),
};
static const struct ps_fields selftest_fields = PS_FIELDS(struct selftest_result, selftest_f);

/* ---- testing ---- */

static struct port_row *row(struct selftest_result *r, const char *name, const struct ps_nic *nic,
			    const char *result, const char *reason)
{
	struct port_row *o = ps_fields_grow(&port_fields, &r->ports, &r->n_ports);

	if (!o)
		return NULL;
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->device = nic ? nic->id : NULL;
	o->result = result;
	snprintf(o->reason, sizeof(o->reason), "%s", reason ? reason : "");
	return o;
}

/* The driver's answers, each test a row and each failed one a finding; the port's verdict. */
static void take_results(struct ps_ctx *ctx, struct ps_dev_ref ref, const char *name,
			 const struct ps_eth_selftest *st, struct port_row *o)
{
	int failed = 0;

	o->tests = ps_fields_new(&test_fields, (size_t)st->n);
	o->n_tests = o->tests ? (size_t)st->n : 0;
	for (size_t i = 0; i < o->n_tests; i++) {
		snprintf(o->tests[i].name, sizeof(o->tests[i].name), "%s", st->names[i]);
		o->tests[i].code = (int64_t)st->result[i];
		o->tests[i].passed = st->result[i] == 0;
	}
	for (int i = 0; i < st->n; i++)
		if (st->result[i] != 0) {
			failed++;
			ps_findf(ctx, PS_SEV_FAIL, ref, "test_failed",
				 "%s: the driver's \"%s\" failed: the card failed its own test; "
				 "replace it (the driver's code is in the report)",
				 name, st->names[i]);
		}
	if (st->failed && failed == 0)
		ps_findf(ctx, PS_SEV_FAIL, ref, "test_failed",
			 "%s: the driver says its self-test failed", name);
	if (!st->failed && failed == 0)
		ps_examined(ctx, ref, "passed", "the driver's %d self-tests passed (offline)",
			    st->n);
	o->offline = 1;
	o->result = st->failed || failed ? "fail" : "pass";
}

/* As it was: up or down, MTU, link; a row each, and a finding when not. */
static void check_back(struct ps_ctx *ctx, struct selftest_result *r, struct ps_rtnl *rt,
		       const struct ps_port *p, struct ps_dev_ref ref)
{
	struct ps_link l;
	int ret = ps_rtnl_link_find(rt, p->name, NULL, 0, &l);
	const char *up = ret < 0 ? NULL : l.flags & IFF_UP ? "up" : "down";
	char was[16], now[16];

	ps_put_back_add(r->restored, &r->n_restored, PS_PUT_BACK_MAX, p->name, "up",
			p->orig_up ? "up" : "down", up);
	snprintf(was, sizeof(was), "%u", p->orig_mtu);
	snprintf(now, sizeof(now), "%u", ret < 0 ? 0 : l.mtu);
	ps_put_back_add(r->restored, &r->n_restored, PS_PUT_BACK_MAX, p->name, "mtu", was,
			ret < 0 ? NULL : now);
	if (p->orig_carrier)
		ps_put_back_add(r->restored, &r->n_restored, PS_PUT_BACK_MAX, p->name, "link", "up",
				ret < 0		 ? NULL
				: l.carrier == 1 ? "up"
						 : "down");
	if (ret < 0 || !!(l.flags & IFF_UP) != p->orig_up || l.mtu != p->orig_mtu)
		ps_findf(ctx, PS_SEV_FAIL, ref, "not_restored",
			 "%s is not as it was after its self-test (%s, MTU %u; was %s, MTU %u)",
			 p->name, up ? up : "gone", ret < 0 ? 0 : l.mtu, p->orig_up ? "up" : "down",
			 p->orig_mtu);
	else if (p->orig_carrier && l.carrier != 1)
		ps_findf(ctx, PS_SEV_WARN, ref, "link_not_back",
			 "%s had link before its self-test and none %.0f s after it", p->name,
			 RELINK_S);
}

static void test_port(struct ps_ctx *ctx, struct ps_ethtool *et, struct ps_rtnl *rt,
		      const struct ps_port *p)
{
	struct selftest_result *r = ctx->result;
	struct ps_dev_ref ref =
	    p->nic ? ps_nic_ref(p->nic) : (struct ps_dev_ref){PS_DEV_NIC, NULL, p->name};
	struct ps_eth_selftest st;
	struct ps_port_hold hold;
	struct port_row *o;
	double t0;
	int n = ps_ethtool_selftest_count(et, p->name), ret;

	if (n <= 0) {
		bool none = n == 0 || n == -EOPNOTSUPP;
		const char *why = none ? "the driver has no self-test" : strerror(-n);

		ps_findf(ctx, PS_SEV_INFO, ref, "no_selftest", "%s: %s", p->name, why);
		row(r, p->name, p->nic, none ? "none" : "error", why);
		return;
	}
	ps_port_hold_begin(&hold, rt, p->name, p->nic ? p->nic->mac : NULL);
	t0 = ps_mono_now();
	ret = ps_ethtool_selftest(et, p->name, true, &st);
	ps_port_hold_end(&hold, rt, p->orig_up && p->orig_carrier ? RELINK_S : 0);
	o = row(r, p->name, p->nic, "error", NULL);
	if (o)
		o->seconds = ps_mono_now() - t0;
	if (ret < 0) {
		if (o)
			snprintf(o->reason, sizeof(o->reason), "ETHTOOL_TEST: %s", strerror(-ret));
		ps_findf(ctx, PS_SEV_WARN, ref, "selftest_error",
			 "%s: the self-test could not run: %s", p->name, strerror(-ret));
	} else if (o) {
		take_results(ctx, ref, p->name, &st, o);
	}
	check_back(ctx, r, rt, p, ref);
}

static int run(struct ps_ctx *ctx)
{
	struct selftest_result *r = ctx->result;
	struct ps_ports ps;
	struct ps_ethtool et;
	int ret;

	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "tests real ports: live system only, not with --root");
		return PS_SKIPPED;
	}
	ret = ps_ports_open(&ps, ctx->inv, NULL, NULL);
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
		row(r, ps.left[i].name, ps.left[i].nic, "not run", ps.left[i].why);
	ps_progress_phase(ctx, "self-tests", ps.n, "ports");
	for (size_t i = 0; i < ps.n && !ps_should_abort(ctx); i++) {
		test_port(ctx, &et, &ps.home_r, &ps.p[i]);
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
    PS_NIC_RESTORED_BLOCK,
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
    .result = &selftest_fields,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(nic_selftest_ops);
