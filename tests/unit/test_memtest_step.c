/*
 * test_memtest_step.c - the memtest step itself on this machine: 8 MiB
 * locked (memtest=8M), every pattern twice over it, no word failing; its
 * typed result held to its strict schema by the harness, and the sizes,
 * counts and seed it reports.
 */
#include "check.h"
#include "step_harness.h"

#include "../../userland/steps/memtest.c"

#include "core/config.h"

static void test_run(void)
{
	struct harness h;
	struct ps_config cfg;
	json_object *pats;
	char why[128];

	ps_config_defaults(&cfg);
	CHECK_INT(ps_config_set(&cfg, "memtest", "8M", why, sizeof(why)), 0);
	harness_init(&h, &memtest_ops, "", PS_PLAN_FULL);
	h.ctx.cfg = &cfg;
	harness_run(&h);
	if (h.status == PS_SKIPPED) {
		/* no mlock here (RLIMIT_MEMLOCK): what it says then */
		CHECK(ps_json_get(h.data, "seed") == NULL);
		CHECK_INT(ps_json_len(ps_json_arr(h.data, "patterns")), 0);
		harness_done(&h);
		return;
	}
	CHECK_INT(h.status, PS_PASS);
	CHECK_STR(ps_json_str(h.data, "requested"), "8M");
	CHECK_INT(json_object_get_int64(ps_json_get(h.data, "size_bytes")), 8 << 20);
	CHECK_INT(json_object_get_int(ps_json_get(h.data, "errors")), 0);
	CHECK(json_object_get_boolean(ps_json_get(h.data, "complete")));
	CHECK(json_object_get_boolean(ps_json_get(h.data, "locked")));
	CHECK(json_object_get_int64(ps_json_get(h.data, "seed")) >= 0);
	pats = ps_json_arr(h.data, "patterns");
	CHECK_INT(ps_json_len(pats), PS_MT_PATTERNS);
	for (size_t i = 0; i < ps_json_len(pats); i++)
		CHECK_INT(json_object_get_int(ps_json_get(ps_json_at(pats, i), "passes")),
			  PS_MT_PASSES);
	CHECK_INT(ps_json_len(ps_json_arr(h.data, "failures")), 0);
	CHECK_INT((int)ps_json_len(h.verdicts), 1); /* the machine, examined */
	CHECK_INT((int)harness_count(&h, "memtest.pattern_error", "fail"), 0);
	harness_done(&h);
}

int main(void)
{
	test_run();
	return check_done("test_memtest_step");
}
