/*
 * test_settings.c - settings declared by their step (struct ps_setting in
 * ops->settings): a step's file alone adds a key that probestick.cfg, the
 * kernel command line, the report's config{} and its schema all know, the
 * step reads it parsed; every compiled-in setting is sound (help, parser,
 * a default that parses, menu choices that parse); docs/report-schema.json
 * and docs/design.md name every key.
 */
/* link: steps */
#include "check.h"
#include "core/config.h"
#include "core/plan.h"
#include "lib/json.h"
#include "lib/util.h"
#include "step_harness.h"

#include <errno.h>
#include <string.h>

/* A step of this test, with a setting of its own: nothing else in the tree names it. */
struct demo_value {
	int level;
};

static int parse_demo(const char *text, void *value, char *why, size_t whylen)
{
	static const char *const levels[] = {"low", "high", NULL};

	return ps_parse_choice(text, levels, &((struct demo_value *)value)->level, why, whylen);
}

static const struct ps_setting demo_level = {
    .key = "demo_level",
    .help = "the demo step's level: low or high",
    .def = "low",
    .size = sizeof(struct demo_value),
    .parse = parse_demo,
};

static int seen_level = -1;

static int demo_run(struct ps_ctx *ctx)
{
	seen_level = ((const struct demo_value *)ps_setting(ctx, &demo_level))->level;
	return PS_PASS;
}

HARNESS_VIEW(demo_view, "demo", 1);
static const struct ps_step_ops demo_ops = {
    .abi = PS_STEP_ABI,
    .name = "demo",
    .plans = PS_PLAN_NAMED,
    .data_version = 1,
    .view = &demo_view,
    .settings = (const struct ps_setting *const[]){&demo_level, NULL},
    .run = demo_run,
};
PS_STEP_REGISTER(demo_ops);

static void test_own_setting(void)
{
	struct ps_config cfg;
	struct harness h;
	json_object *schema = json_tokener_parse("{\"$defs\": {\"probestick\": {\"properties\": "
						 "{\"config\": {\"properties\": {}}}}}}");
	char why[256];

	ps_config_defaults(&cfg);
	CHECK_STR(ps_config_text(&cfg, "demo_level"), "low");
	harness_init(&h, &demo_ops, "", PS_PLAN_QUICK);
	h.ctx.cfg = &cfg;
	harness_run(&h);
	CHECK_INT(seen_level, 0);
	harness_done(&h);

	/* probestick.cfg and the command line, through the same table */
	ps_config_parse_text(&cfg, "demo_level = high\n", 18, "probestick.cfg", NULL);
	CHECK_STR(ps_config_text(&cfg, "demo_level"), "high");
	harness_init(&h, &demo_ops, "", PS_PLAN_QUICK);
	h.ctx.cfg = &cfg;
	harness_run(&h);
	CHECK_INT(seen_level, 1);
	harness_done(&h);
	ps_config_parse_cmdline(&cfg, "quiet probestick.demo_level=low", NULL);
	CHECK_STR(ps_config_text(&cfg, "demo_level"), "low");

	/* a bad value is refused with the step's reason, the old value kept */
	CHECK_INT(ps_config_set(&cfg, "demo_level", "medium", why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "demo_level=medium") && strstr(why, "low, high"));
	CHECK_STR(ps_config_text(&cfg, "demo_level"), "low");
	/* an unknown key lists the steps' keys too */
	CHECK_INT(ps_config_set(&cfg, "demo_levle", "low", why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "demo_level") != NULL);

	/* the report schema's config{} knows it */
	ps_report_schema(schema);
	CHECK(
	    ps_json_ptr(schema, "/$defs/probestick/properties/config/properties/demo_level/type") !=
	    NULL);
	json_object_put(schema);

	/* without a config (a test's harness): the default */
	harness_init(&h, &demo_ops, "", PS_PLAN_QUICK);
	harness_run(&h);
	CHECK_INT(seen_level, 0);
	harness_done(&h);
}

/* Every setting compiled in is sound, and its default and menu choices parse. */
static void test_sound(void)
{
	size_t n;
	const struct ps_setting *const *all = ps_settings(&n);
	unsigned char v[PS_SETTING_VALUE_MAX];
	char why[256];

	CHECK(n >= 8); /* surface, bond, array x3, memtest, burnin, and the demo */
	for (size_t i = 0; i < n; i++) {
		const struct ps_setting *s = all[i];

		CHECK(s->key && s->key[0] && s->help && s->help[0] && s->parse);
		CHECK(s->size > 0 && s->size <= PS_SETTING_VALUE_MAX);
		for (const char *p = s->key; *p; p++)
			CHECK((*p >= 'a' && *p <= 'z') || *p == '_');
		if (s->def && s->def[0])
			CHECK_INT(s->parse(s->def, memset(v, 0, sizeof(v)), why, sizeof(why)), 0);
		for (size_t c = 0; s->choices && s->choices[c].value; c++)
			if (s->choices[c].value[0])
				CHECK_INT(s->parse(s->choices[c].value, memset(v, 0, sizeof(v)),
						   why, sizeof(why)),
					  0);
		CHECK(!s->choices || (s->menu_key && s->menu_label));
	}
}

/* The docs name every key the program takes, and no other. */
static void test_documented(void)
{
	json_object *doc = ps_json_read_file("docs/report-schema.json");
	json_object *props = ps_json_ptr(doc, "/$defs/probestick/properties/config/properties");
	char *design;
	size_t len, n, nk, documented = 0;
	const struct ps_setting *const *all = ps_settings(&n);
	const struct ps_core_key *core = ps_config_core_keys(&nk);

	CHECK(props != NULL);
	CHECK_INT(ps_read_all("docs/design.md", &design, &len), 0);
	for (size_t i = 0; i < nk; i++) {
		char line[64];

		CHECK(ps_json_get(props, core[i].key) ||
		      json_object_object_get_ex(props, core[i].key, NULL));
		snprintf(line, sizeof(line), "\n%s=", core[i].key);
		CHECK(design && strstr(design, line));
	}
	for (size_t i = 0; i < n; i++) {
		char line[64];

		if (all[i] == &demo_level)
			continue;
		documented++;
		if (!json_object_object_get_ex(props, all[i]->key, NULL))
			fprintf(stderr, "docs/report-schema.json: config has no %s\n", all[i]->key);
		CHECK(json_object_object_get_ex(props, all[i]->key, NULL));
		snprintf(line, sizeof(line), "\n%s=", all[i]->key);
		if (!design || !strstr(design, line))
			fprintf(stderr, "docs/design.md: probestick.cfg names no %s=\n",
				all[i]->key);
		CHECK(design && strstr(design, line));
	}
	/* config{} holds "depth" beside the keys */
	CHECK_INT(json_object_object_length(props), (int)(nk + documented + 1));
	free(design);
	json_object_put(doc);
}

int main(void)
{
	ps_step_schema_add("demo", "{\"type\": \"object\"}");
	test_own_setting();
	test_sound();
	test_documented();
	return check_done("test_settings");
}
