/* test_registry.c - step validation, refusal of bad steps, and plan selection. */
#include "check.h"
#include "plan.h"
#include "util.h"

#include <errno.h>
#include <string.h>

static int run_ok(struct ps_ctx *ctx)
{
	return PS_PASS;
}

#define STEP(id, nm, pl, nd, ord)                                                                  \
	static const struct ps_step_ops id = {.abi = PS_STEP_ABI,                                  \
					      .name = nm,                                          \
					      .title = "test step " nm,                            \
					      .plans = pl,                                         \
					      .needs = nd,                                         \
					      .order = ord,                                        \
					      .run = run_ok}

STEP(s_inventory, "inventory", PS_PLAN_QUICK | PS_PLAN_FULL, 0, 0);
STEP(s_smart, "smart", PS_PLAN_QUICK | PS_PLAN_FULL, PS_NEED_ROOT, 10);
STEP(s_surface, "surface", PS_PLAN_FULL, 0, 30);
STEP(s_alpha, "alpha", PS_PLAN_FULL, 0, 10); /* same order as smart: name decides */
STEP(s_dup, "smart", PS_PLAN_FULL, 0, 99);
STEP(s_badname, "Bad-Name", PS_PLAN_QUICK, 0, 1);
STEP(s_noplan, "noplan", 0, 0, 1);
STEP(s_badplan, "badplan", 0x10, 0, 1);
STEP(s_badneed, "badneed", PS_PLAN_QUICK, 0x80, 1);
static const struct ps_step_ops s_badabi = {
    .abi = PS_STEP_ABI + 1, .name = "future", .plans = PS_PLAN_QUICK, .run = run_ok};
static const struct ps_step_ops s_norun = {
    .abi = PS_STEP_ABI, .name = "norun", .plans = PS_PLAN_QUICK};
static const struct ps_step_ops s_noname = {
    .abi = PS_STEP_ABI, .plans = PS_PLAN_QUICK, .run = run_ok};

/* Registered through the real section, so ps_registry() sees them. */
PS_STEP_REGISTER(s_smart);
PS_STEP_REGISTER(s_inventory);
PS_STEP_REGISTER(s_badname);

static char refusals[16][320];
static int n_refusals;

static void refuse(const char *msg, void *arg)
{
	snprintf(refusals[n_refusals++], sizeof(refusals[0]), "%s", msg);
}

static void test_validate(void)
{
	char why[256];

	CHECK(ps_step_valid(&s_smart, why, sizeof(why)));
	CHECK(!ps_step_valid(NULL, why, sizeof(why)));
	CHECK(!ps_step_valid(&s_badabi, why, sizeof(why)));
	CHECK(strstr(why, "future") && strstr(why, "ABI"));
	CHECK(!ps_step_valid(&s_badname, why, sizeof(why)));
	CHECK(strstr(why, "Bad-Name") != NULL);
	CHECK(!ps_step_valid(&s_noname, why, sizeof(why)));
	CHECK(!ps_step_valid(&s_norun, why, sizeof(why)));
	CHECK(strstr(why, "norun has no run") != NULL);
	CHECK(!ps_step_valid(&s_noplan, why, sizeof(why)));
	CHECK(!ps_step_valid(&s_badplan, why, sizeof(why)));
	CHECK(!ps_step_valid(&s_badneed, why, sizeof(why)));
	CHECK(strstr(why, "badneed") != NULL);
}

static void test_build(void)
{
	const struct ps_step_ops *in[] = {&s_surface, &s_smart, &s_badabi, NULL,      &s_inventory,
					  &s_dup,     &s_alpha, &s_norun,  &s_noname, &s_badname};
	const struct ps_step_ops *out[PS_ARRAY_SIZE(in)];
	size_t n;

	n_refusals = 0;
	n = ps_registry_build(in, PS_ARRAY_SIZE(in), out, refuse, NULL);
	CHECK_INT(n, 4);
	CHECK_STR(out[0]->name, "inventory");
	CHECK_STR(out[1]->name, "alpha");
	CHECK_STR(out[2]->name, "smart");
	CHECK(out[2] == &s_smart); /* the first registration wins */
	CHECK_STR(out[3]->name, "surface");
	CHECK_INT(n_refusals, 6);
	for (int i = 0; i < n_refusals; i++)
		CHECK(strncmp(refusals[i], "refusing ", 9) == 0);
	CHECK(strstr(refusals[2], "smart") && strstr(refusals[2], "twice"));
}

static void test_select(void)
{
	const struct ps_step_ops *all[] = {&s_inventory, &s_alpha, &s_smart, &s_surface};
	const struct ps_step_ops *out[4];
	size_t n;
	char err[256];

	CHECK_INT(ps_plan_select(all, 4, "quick", NULL, out, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 2);
	CHECK_STR(out[0]->name, "inventory");
	CHECK_STR(out[1]->name, "smart");
	CHECK_INT(ps_plan_select(all, 4, "full", NULL, out, &n, err, sizeof(err)), 0);
	CHECK_INT(n, 4);
	CHECK_STR(out[3]->name, "surface");
	/* custom: registry order, duplicates once */
	CHECK_INT(ps_plan_select(all, 4, "custom", "surface,inventory,surface", out, &n, err,
				 sizeof(err)),
		  0);
	CHECK_INT(n, 2);
	CHECK_STR(out[0]->name, "inventory");
	CHECK_STR(out[1]->name, "surface");
	CHECK_INT(ps_plan_select(all, 4, "custom", "inventory,smrt", out, &n, err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "no step named 'smrt'") && strstr(err, "probestick steps"));
	CHECK_INT(ps_plan_select(all, 4, "custom", "inv", out, &n, err, sizeof(err)), -EINVAL);
	CHECK_INT(ps_plan_select(all, 4, "custom", "", out, &n, err, sizeof(err)), -EINVAL);
	CHECK_INT(ps_plan_select(all, 4, "medium", NULL, out, &n, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "medium") != NULL);
}

static void test_section(void)
{
	size_t n;
	const struct ps_step_ops *const *list = ps_registry(&n);

	/* the invalid registered step is refused (on stderr), the others run */
	CHECK_INT(n, 2);
	CHECK_STR(list[0]->name, "inventory");
	CHECK_STR(list[1]->name, "smart");
	CHECK(ps_step_find(list, n, "smart") == &s_smart);
	CHECK(ps_step_find(list, n, "Bad-Name") == NULL);
}

static void test_status_and_findings(void)
{
	json_object *findings = json_object_new_array();
	volatile sig_atomic_t flag = 0;
	struct ps_ctx ctx = {.findings = findings, .abort_flag = &flag};
	json_object *f, *v;

	CHECK_STR(ps_status_name(PS_PASS), "pass");
	CHECK_STR(ps_status_name(PS_ABORTED), "aborted");
	CHECK_STR(ps_status_name((enum ps_status)42), "error");
	ps_finding(&ctx, "warn", "sda", "smart.reallocated", "%d reallocated sectors", 20);
	ps_finding(&ctx, "loud", NULL, NULL, "bad severity");
	CHECK_INT(json_object_array_length(findings), 2);
	f = json_object_array_get_idx(findings, 0);
	json_object_object_get_ex(f, "message", &v);
	CHECK_STR(json_object_get_string(v), "20 reallocated sectors");
	f = json_object_array_get_idx(findings, 1);
	json_object_object_get_ex(f, "severity", &v);
	CHECK_STR(json_object_get_string(v), "warn");
	CHECK(!ps_should_abort(&ctx));
	flag = 1;
	CHECK(ps_should_abort(&ctx));
	CHECK(!ps_should_abort(NULL));
	json_object_put(findings);
}

int main(void)
{
	test_validate();
	test_build();
	test_select();
	test_section();
	test_status_and_findings();
	return check_done("test_registry");
}
