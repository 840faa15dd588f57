/* test_plan.c - the plan runner: report folder, per-step statuses, aborts, errors,
 * skipped needs, and the report on disk after every step. */
#include "check.h"
#include "console.h"
#include "plan.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char out_root[PATH_MAX];
static int seen_partial; /* steps that found the report of earlier steps on disk */

static int inv_run(struct ps_ctx *ctx)
{
	json_object *m = json_object_new_object();

	json_object_object_add(m, "uuid",
			       json_object_new_string("4C4C4544-0042-3510-8057-B7C04F4A3332"));
	json_object_object_add(m, "serial", json_object_new_string("7B5JJ32"));
	json_object_object_add(ctx->report, "machine", m);
	return PS_PASS;
}

static int fail_run(struct ps_ctx *ctx)
{
	return -EIO;
}

static int bogus_run(struct ps_ctx *ctx)
{
	return 7;
}

static int warn_run(struct ps_ctx *ctx)
{
	json_object *data;

	ps_finding(ctx, "warn", "sda", "test.rule", "something is %s", "odd");
	json_object_object_get_ex(ctx->step, "data", &data);
	json_object_object_add(data, "answer", json_object_new_int(42));
	return PS_WARN;
}

/* Waits (at most 5 s) for an abort; raises SIGINT itself when asked to. */
static int wait_abort(struct ps_ctx *ctx, bool sigint)
{
	if (sigint)
		raise(SIGINT);
	for (int i = 0; i < 500 && !ps_should_abort(ctx); i++)
		usleep(10000);
	return ps_should_abort(ctx) ? PS_PASS : PS_FAIL;
}

static int sigint_run(struct ps_ctx *ctx)
{
	return wait_abort(ctx, true);
}

static int key_write_fd = -1;

/* Presses the key itself, so no earlier step can see it. */
static int key_run(struct ps_ctx *ctx)
{
	if (write(key_write_fd, "x", 1) != 1)
		return -EIO;
	return wait_abort(ctx, false);
}

/* Looks at the disk: the report of the steps before this one must be there already. */
static int check_run(struct ps_ctx *ctx)
{
	char dir[PATH_MAX], err[512];
	json_object *r, *steps;

	if (ps_report_latest(out_root, dir, sizeof(dir)) < 0)
		return -ENOENT;
	if (ps_report_load(dir, &r, err, sizeof(err)) < 0)
		return -EBADMSG;
	steps = ps_json_get(r, "steps");
	if (json_object_get_boolean(ps_json_get(r, "complete")) == 0 &&
	    json_object_array_length(steps) > 0)
		seen_partial = (int)json_object_array_length(steps);
	json_object_put(r);
	return PS_PASS;
}

static int pass_run(struct ps_ctx *ctx)
{
	return PS_PASS;
}

#define STEP(id, nm, nd, ord, fn)                                                                  \
	static const struct ps_step_ops id = {.abi = PS_STEP_ABI,                                  \
					      .name = nm,                                          \
					      .title = nm " test",                                 \
					      .plans = PS_PLAN_QUICK,                              \
					      .needs = nd,                                         \
					      .order = ord,                                        \
					      .run = fn}

STEP(s_inv, "inventory", 0, 0, inv_run);
STEP(s_fail, "failing", 0, 1, fail_run);
STEP(s_bogus, "bogus", 0, 2, bogus_run);
STEP(s_warn, "warner", 0, 3, warn_run);
STEP(s_module, "needs_module", PS_NEED_MODULE, 4, pass_run);
STEP(s_scratch, "needs_scratch", PS_NEED_SCRATCH, 5, pass_run);
STEP(s_sigint, "sigint", 0, 6, sigint_run);
STEP(s_key, "key", 0, 7, key_run);
STEP(s_check, "check", 0, 8, check_run);

static json_object *step_at(json_object *r, size_t i)
{
	return json_object_array_get_idx(ps_json_get(r, "steps"), i);
}

/* The step's reason, "" when it has none (so a failed check does not crash the test). */
static const char *reason(json_object *r, size_t i)
{
	const char *s = ps_json_str(step_at(r, i), "reason");

	return s ? s : "";
}

static void test_full_run(void)
{
	const struct ps_step_ops *steps[] = {&s_inv,	 &s_fail,   &s_bogus, &s_warn, &s_module,
					     &s_scratch, &s_sigint, &s_key,   &s_check};
	struct ps_config cfg;
	json_object *warnings = json_object_new_array(), *r;
	struct ps_run_result res;
	struct ps_console con;
	int keys[2];
	char err[PATH_MAX + 64], expect_prefix[PATH_MAX + 64];
	struct stat st;
	struct ps_run_opts o = {
	    .root = FIXTURES "/core/empty-root",
	    .out_root = out_root,
	    .plan = "custom",
	    .steps = steps,
	    .n_steps = PS_ARRAY_SIZE(steps),
	    .cfg = &cfg,
	    .warnings = warnings,
	    .con = &con,
	    .key_aborts = true,
	    .coldplug_json = FIXTURES "/core/coldplug.json",
	};

	ps_config_defaults(&cfg);
	snprintf(cfg.stick, sizeof(cfg.stick), "%s", FIXTURES "/core/stick-bad");
	json_object_array_add(warnings, json_object_new_string("probestick.cfg line 1: test"));
	CHECK_INT(pipe(keys), 0);
	key_write_fd = keys[1];
	ps_console_stdio(&con, keys[0], STDERR_FILENO);
	CHECK_INT(ps_plan_run(&o, &res), 0);
	ps_console_close(&con);
	close(keys[0]);
	close(keys[1]);

	snprintf(expect_prefix, sizeof(expect_prefix), "%s/4c4c4544-0042-3510-8057-b7c04f4a3332/",
		 out_root);
	CHECK(strncmp(res.dir, expect_prefix, strlen(expect_prefix)) == 0);
	CHECK(strstr(res.dir, "Z-custom") != NULL);
	CHECK_INT(res.count[PS_PASS], 2);
	CHECK_INT(res.count[PS_ERROR], 2);
	CHECK_INT(res.count[PS_WARN], 1);
	CHECK_INT(res.count[PS_SKIPPED], 2);
	CHECK_INT(res.count[PS_ABORTED], 2);
	CHECK_INT(seen_partial, 8);

	CHECK_INT(ps_report_load(res.dir, &r, err, sizeof(err)), 0);
	if (!r)
		return;
	CHECK(json_object_get_boolean(ps_json_get(r, "complete")));
	CHECK_STR(ps_json_str(r, "plan"), "custom");
	CHECK_STR(ps_json_str(r, "machine_id"), "4c4c4544-0042-3510-8057-b7c04f4a3332");
	CHECK_STR(ps_json_str(ps_json_get(r, "machine"), "id"),
		  "4c4c4544-0042-3510-8057-b7c04f4a3332");
	CHECK(strlen(ps_json_str(ps_json_get(r, "probestick"), "version")) > 0);
	CHECK(strstr(ps_json_str(ps_json_get(r, "probestick"), "module_status"), "not loaded: ") !=
	      NULL);
	CHECK(json_object_is_type(ps_json_get(ps_json_get(r, "probestick"), "module_abi"),
				  json_type_null));
	CHECK(ps_json_get(ps_json_get(r, "probestick"), "image_manifest") == NULL);
	CHECK_INT(json_object_array_length(ps_json_get(ps_json_get(r, "coldplug"), "loaded")), 2);
	/* the config warning, then the corrupt manifest */
	CHECK_INT(json_object_array_length(ps_json_get(r, "warnings")), 2);
	CHECK(
	    strstr(json_object_get_string(json_object_array_get_idx(ps_json_get(r, "warnings"), 1)),
		   "manifest.json is not a valid JSON object") != NULL);

	CHECK_STR(ps_json_str(step_at(r, 0), "status"), "pass");
	CHECK_STR(ps_json_str(step_at(r, 1), "status"), "error");
	CHECK_STR(reason(r, 1), "Input/output error");
	CHECK_STR(ps_json_str(step_at(r, 2), "status"), "error");
	CHECK(strstr(reason(r, 2), "returned 7") != NULL);
	CHECK_STR(ps_json_str(step_at(r, 3), "status"), "warn");
	CHECK_INT(json_object_array_length(ps_json_get(step_at(r, 3), "findings")), 1);
	CHECK_INT(json_object_get_int(ps_json_get(ps_json_get(step_at(r, 3), "data"), "answer")),
		  42);
	CHECK_STR(ps_json_str(step_at(r, 4), "status"), "skipped");
	CHECK(strstr(reason(r, 4), "probestick.ko") != NULL);
	CHECK_STR(ps_json_str(step_at(r, 5), "status"), "skipped");
	CHECK(strstr(reason(r, 5), "scratch") != NULL);
	CHECK_STR(ps_json_str(step_at(r, 6), "status"), "aborted");
	CHECK(strstr(reason(r, 6), "SIGINT") != NULL);
	CHECK_STR(ps_json_str(step_at(r, 7), "status"), "aborted");
	CHECK(strstr(reason(r, 7), "key") != NULL);
	CHECK_STR(ps_json_str(step_at(r, 8), "status"), "pass");
	for (size_t i = 0; i < PS_ARRAY_SIZE(steps); i++) {
		CHECK(ps_json_str(step_at(r, i), "started") != NULL);
		CHECK(ps_json_has_num(step_at(r, i), "duration_s"));
	}
	json_object_put(r);
	snprintf(err, sizeof(err), "%s/report.txt", res.dir);
	CHECK_INT(stat(err, &st), 0);
	json_object_put(warnings);
}

static int identify(const char *root, json_object *machine, json_object *nics)
{
	json_object *nic = json_object_new_object();

	json_object_object_add(machine, "serial", json_object_new_string("To be filled by O.E.M."));
	json_object_object_add(nic, "mac", json_object_new_string("52:54:00:12:34:56"));
	json_object_array_add(nics, nic);
	return 0;
}

/* No inventory step: the machine-id comes from identify(); the folder exists from the start. */
static void test_no_inventory(void)
{
	const struct ps_step_ops *steps[] = {&s_check};
	struct ps_config cfg;
	struct ps_run_result res;
	struct ps_run_opts o = {
	    .root = FIXTURES "/core/empty-root",
	    .out_root = out_root,
	    .plan = "quick",
	    .steps = steps,
	    .n_steps = 1,
	    .cfg = &cfg,
	    .identify = identify,
	    .coldplug_json = FIXTURES "/core/no-such-coldplug.json",
	};
	json_object *r;
	char err[512];

	ps_config_defaults(&cfg);
	snprintf(cfg.stick, sizeof(cfg.stick), "%s", FIXTURES "/core/stick-good");
	seen_partial = 0;
	CHECK_INT(ps_plan_run(&o, &res), 0);
	CHECK(strstr(res.dir, "/525400123456/") != NULL);
	CHECK(strstr(res.dir, "Z-quick") != NULL);
	CHECK_INT(ps_report_load(res.dir, &r, err, sizeof(err)), 0);
	if (!r)
		return;
	CHECK_STR(ps_json_str(r, "machine_id"), "525400123456");
	CHECK_INT(json_object_array_length(ps_json_get(r, "nics")), 1);
	CHECK(json_object_is_type(ps_json_get(r, "coldplug"), json_type_null));
	CHECK_STR(
	    ps_json_str(ps_json_get(ps_json_get(r, "probestick"), "image_manifest"), "version"),
	    "test");
	CHECK_INT(json_object_array_length(ps_json_get(r, "warnings")), 0);
	json_object_put(r);
}

/* A reports root that cannot be made: the plan still runs and says why. */
static void test_unwritable(void)
{
	const struct ps_step_ops *steps[] = {&s_warn};
	struct ps_run_result res;
	struct ps_run_opts o = {
	    .root = FIXTURES "/core/empty-root",
	    .out_root = "/proc/probestick-cannot-be-here",
	    .plan = "custom",
	    .steps = steps,
	    .n_steps = 1,
	    .identify = identify,
	};

	CHECK(ps_plan_run(&o, &res) < 0);
	CHECK_STR(res.dir, "");
	CHECK_INT(res.count[PS_WARN], 1);
}

int main(void)
{
	const char *out = getenv("OUT");

	snprintf(out_root, sizeof(out_root), "%s/tests/plan-reports-%d", out ? out : "out",
		 (int)getpid());
	test_full_run();
	test_no_inventory();
	test_unwritable();
	return check_done("test_plan");
}
