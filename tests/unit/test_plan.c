/* test_plan.c - the plan runner: report folder, per-step statuses, aborts, errors,
 * skipped needs, the report on disk after every step, its config{} with no secret
 * in it, and the recorders' run summary (report.power) from the config. */
/* link: steps */
#include "check.h"
#include "cli/console.h"
#include "cli/ui.h"
#include "core/plan.h"
#include "core/step_run.h"
#include "step_harness.h"
#include "report/report.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char out_root[PATH_MAX];
static int seen_partial;      /* steps that found the report of earlier steps on disk */
static char seen_running[64]; /* running_step of the report on disk while "check" ran */

/* The inventory phase fills the typed inventory; the core names the folder after it. */
static int inv_run(struct ps_ctx *ctx)
{
	CHECK(ctx->inventory && ctx->inventory == ctx->inv);
	snprintf(ctx->inventory->machine.uuid, sizeof(ctx->inventory->machine.uuid),
		 "4C4C4544-0042-3510-8057-B7C04F4A3332");
	snprintf(ctx->inventory->machine.id, sizeof(ctx->inventory->machine.id),
		 "4c4c4544-0042-3510-8057-b7c04f4a3332");
	ctx->inventory->taken = true;
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
	ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){PS_DEV_DRIVE, "drive:sn:x:1", "sda"}, "rule",
		 "something is %s", "odd");
	json_object_object_add(ctx->data, "answer", json_object_new_int(42));
	return PS_PASS; /* the warn finding makes the step warn */
}

/* Only info findings: the step passes (issue: disk_seq ended warn on info alone). */
static int info_run(struct ps_ctx *ctx)
{
	ps_findf(ctx, PS_SEV_INFO, (struct ps_dev_ref){0}, "note", "just so you know");
	return PS_PASS;
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
	snprintf(seen_running, sizeof(seen_running), "%s",
		 ps_json_str(r, "running_step") ? ps_json_str(r, "running_step") : "(none)");
	json_object_put(r);
	return PS_PASS;
}

static int pass_run(struct ps_ctx *ctx)
{
	return PS_PASS;
}

#define STEP(id, nm, nd, ord, fn)                                                                  \
	HARNESS_VIEW(id##_view, nm, 1);                                                            \
	static const struct ps_step_ops id = {.abi = PS_STEP_ABI,                                  \
					      .name = nm,                                          \
					      .title = nm " test",                                 \
					      .plans = PS_PLAN_QUICK,                              \
					      .needs = nd,                                         \
					      .order = ord,                                        \
					      .data_version = 1,                                   \
					      .view = &id##_view,                                  \
					      .flags =                                             \
						  (fn) == inv_run ? PS_STEP_TAKES_INVENTORY : 0,   \
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
STEP(s_info, "informer", 0, 9, info_run);

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
	const struct ps_step_ops *steps[] = {&s_inv,	 &s_fail,   &s_bogus, &s_warn,	&s_module,
					     &s_scratch, &s_sigint, &s_key,   &s_check, &s_info};
	struct ps_config cfg;
	json_object *warnings = json_object_new_array(), *r;
	struct ps_run_result res;
	struct ps_console con;
	struct ps_ui ui;
	int keys[2];
	char err[PATH_MAX + 64], expect_prefix[PATH_MAX + 64];
	struct stat st;
	struct ps_run_opts o = {
	    .root = FIXTURES "/core/empty-root",
	    .out_root = out_root,
	    .plan = {"custom", PS_PLAN_QUICK},
	    .steps = steps,
	    .n_steps = PS_ARRAY_SIZE(steps),
	    .cfg = &cfg,
	    .warnings = warnings,
	    .ui = &ui.ops,
	    .coldplug_json = FIXTURES "/core/coldplug.json",
	};

	ps_config_defaults(&cfg);
	snprintf(cfg.stick, sizeof(cfg.stick), "%s", FIXTURES "/core/stick-bad");
	/* a step's setting (burnin's, declared in steps/burnin.c) goes through the same call */
	CHECK_INT(ps_config_set(&cfg, "burnin", "10m", (char[128]){0}, 128), 0);
	snprintf(cfg.mtu, sizeof(cfg.mtu), "9000");
	/* the collector's secrets (no sink here: nothing is sent), the wall meter's reading */
	CHECK_INT(ps_config_set(&cfg, "collect", "https://fleet:s3cret@collector.lab/fleet/",
				(char[128]){0}, 128),
		  0);
	CHECK_INT(ps_config_set(&cfg, "collect_password", "hunter2", (char[128]){0}, 128), 0);
	CHECK_INT(ps_config_set(&cfg, "wall_idle", "105 W", (char[128]){0}, 128), 0);
	json_object_array_add(warnings, json_object_new_string("probestick.cfg line 1: test"));
	CHECK_INT(pipe(keys), 0);
	key_write_fd = keys[1];
	ps_console_stdio(&con, keys[0], STDERR_FILENO);
	ps_ui_init(&ui, &con, true);
	CHECK_INT(ps_plan_run(&o, &res), 0);
	json_object_put(res.report);
	ps_console_close(&con);
	close(keys[0]);
	close(keys[1]);

	snprintf(expect_prefix, sizeof(expect_prefix), "%s/4c4c4544-0042-3510-8057-b7c04f4a3332/",
		 out_root);
	CHECK(strncmp(res.dir, expect_prefix, strlen(expect_prefix)) == 0);
	CHECK(strstr(res.dir, "Z-custom") != NULL);
	CHECK_INT(res.count[PS_PASS], 3);
	CHECK_INT(res.count[PS_ERROR], 2);
	CHECK_INT(res.count[PS_WARN], 1);
	CHECK_INT(res.count[PS_SKIPPED], 2);
	CHECK_INT(res.count[PS_ABORTED], 2);
	CHECK_INT(seen_partial, 8);
	/* written at the step's start: a cut-off run tells where it stopped */
	CHECK_STR(seen_running, "check");

	CHECK_INT(ps_report_load(res.dir, &r, err, sizeof(err)), 0);
	if (!r)
		return;
	CHECK(json_object_get_boolean(ps_json_get(r, "complete")));
	CHECK(!ps_json_get(r, "running_step") &&
	      !json_object_object_get_ex(r, "running_step", NULL)); /* gone once the plan ended */
	CHECK_STR(ps_json_str(r, "plan"), "custom");
	/* the plan with all its parameters: what was set, and null for a default */
	{
		json_object *c = ps_json_get(ps_json_get(r, "probestick"), "config");

		CHECK_STR(ps_json_str(c, "burnin"), "10m");
		CHECK_STR(ps_json_str(c, "mtu"), "9000");
		CHECK_STR(ps_json_str(c, "then"), cfg.then);
		CHECK(json_object_object_get_ex(c, "memtest", NULL) && !ps_json_get(c, "memtest"));
		CHECK(json_object_object_get_ex(c, "scratch", NULL) && !ps_json_get(c, "scratch"));
		/* every core key, a secret one as a report may show it */
		CHECK_STR(ps_json_str(c, "collect"), "https://collector.lab/fleet/");
		CHECK_STR(ps_json_str(c, "collect_password"), "(not shown)");
		CHECK_STR(ps_json_str(c, "collect_wait"), "10m");
		CHECK(json_object_object_get_ex(c, "syslog", NULL) && !ps_json_get(c, "syslog"));
		CHECK_STR(ps_json_str(c, "wall_idle"), "105 W");
	}
	/* the energy recorder's summary through the registry: the reading in report.power */
	{
		json_object *w = ps_json_ptr(r, "/power/wall");
		double idle = 0;

		CHECK(ps_json_num(w, "idle_w", &idle) && idle == 105);
		CHECK_STR(ps_json_str(w, "source"), "probestick.cfg");
		CHECK(ps_json_get(w, "load_w") == NULL);
	}
	{
		char path[PATH_MAX + 16], *text;
		size_t len;

		snprintf(path, sizeof(path), "%s/report.json", res.dir);
		CHECK_INT(ps_read_all(path, &text, &len), 0);
		CHECK(text && !strstr(text, "s3cret") && !strstr(text, "hunter2"));
		free(text);
	}
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
	CHECK_STR(ps_json_str(ps_json_at(ps_json_get(step_at(r, 3), "findings"), 0), "rule"),
		  "warner.rule");
	CHECK_STR(ps_json_str(ps_json_at(ps_json_get(step_at(r, 3), "verdicts"), 0), "status"),
		  "warn");
	CHECK_INT(json_object_get_int(ps_json_get(step_at(r, 3), "data_version")), 1);
	CHECK_STR(ps_json_str(step_at(r, 9), "status"), "pass");
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
		{
			double dur;
			CHECK(ps_json_num(step_at(r, i), "duration_s", &dur));
		}
	}
	json_object_put(r);
	snprintf(err, sizeof(err), "%s/report.txt", res.dir);
	CHECK_INT(stat(err, &st), 0);
	json_object_put(warnings);
}

/* No inventory step: the machine-id comes from the machine and NIC readers; the
 * folder exists from the start. */
static void test_no_inventory(void)
{
	const struct ps_step_ops *steps[] = {&s_check};
	struct ps_config cfg;
	struct ps_run_result res;
	struct ps_run_opts o = {
	    .root = FIXTURES "/sysroot-workstation",
	    .out_root = out_root,
	    .plan = {"quick", PS_PLAN_QUICK},
	    .steps = steps,
	    .n_steps = 1,
	    .cfg = &cfg,
	    .coldplug_json = FIXTURES "/core/no-such-coldplug.json",
	};
	json_object *r;
	char err[512];

	ps_config_defaults(&cfg);
	snprintf(cfg.stick, sizeof(cfg.stick), "%s", FIXTURES "/core/stick-good");
	seen_partial = 0;
	seen_running[0] = '\0';
	CHECK_INT(ps_plan_run(&o, &res), 0);
	json_object_put(res.report);
	/* no inventory: the folder is there before the first step, and so is its start */
	CHECK_STR(seen_running, "check");
	CHECK(strstr(res.dir, "/6805ca123456/") != NULL);
	CHECK(strstr(res.dir, "Z-quick") != NULL);
	CHECK_INT(ps_report_load(res.dir, &r, err, sizeof(err)), 0);
	if (!r)
		return;
	CHECK_STR(ps_json_str(r, "machine_id"), "6805ca123456");
	CHECK_INT(json_object_array_length(ps_json_get(r, "nics")), 2);
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
	    .plan = {"custom", PS_PLAN_QUICK},
	    .steps = steps,
	    .n_steps = 1,
	};

	CHECK(ps_plan_run(&o, &res) < 0);
	json_object_put(res.report);
	CHECK_STR(res.dir, "");
	CHECK_INT(res.count[PS_WARN], 1);
}

/* The progress the person watching last saw. */
static struct {
	char phase[96];
	uint64_t done;
	double rate;
	int calls;
} seen_progress;

static void on_progress(void *arg, const struct ps_progress_state *p)
{
	snprintf(seen_progress.phase, sizeof(seen_progress.phase), "%s", p->phase);
	seen_progress.done = p->done;
	seen_progress.rate = p->rate;
	seen_progress.calls++;
}

/* A renamed phase (the burn-in's wall meter cue) keeps its work and its rate. */
static void test_progress_rename(void)
{
	static const struct ps_step_ops ops = {.abi = PS_STEP_ABI, .name = "burnin"};
	struct ps_plan_ui ui = {.progress = on_progress};
	struct ps_step_run run;
	struct ps_ctx ctx = {.run = &run};
	json_object *step = json_object_new_object();

	ps_step_run_init(&run, &ops, step, &ui, 0, 1);
	ps_progress_phase(&ctx, "burn-in", 60, "s");
	for (int i = 1; i <= 4; i++) {
		struct timespec ts = {0, 300 * 1000 * 1000};

		nanosleep(&ts, NULL);
		ps_progress_set(&ctx, (uint64_t)i);
	}
	ps_progress_rename(&ctx, "burn-in: read wall meter");
	CHECK_STR(seen_progress.phase, "burn-in: read wall meter");
	CHECK_INT(seen_progress.done, 4);
	/* the rate of the samples before the cue (about 3 a second here), not restarted */
	CHECK(seen_progress.rate > 2 && seen_progress.rate < 5);
	ps_step_run_done(&run);
	json_object_put(run.findings);
	json_object_put(step);
}

int main(void)
{
	const char *out = getenv("OUT");
	static const char *const names[] = {"inventory",    "failing",	     "bogus",  "warner",
					    "needs_module", "needs_scratch", "sigint", "key",
					    "check",	    "informer"};

	for (size_t i = 0; i < PS_ARRAY_SIZE(names); i++)
		ps_step_schema_add(names[i], "{\"type\": \"object\"}");
	snprintf(out_root, sizeof(out_root), "%s/tests/plan-reports-%d", out ? out : "out",
		 (int)getpid());
	test_full_run();
	test_no_inventory();
	test_progress_rename();
	test_unwritable();
	return check_done("test_plan");
}
