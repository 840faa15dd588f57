/* test_registry.c - step validation (views, schema fragments, "after"),
 * refusal of bad steps, plan selection with dependencies, findings. */
#include "check.h"
#include "core/plan.h"
#include "lib/util.h"
#include "step_harness.h"

#include <errno.h>
#include <string.h>

static int run_ok(struct ps_ctx *ctx)
{
	return PS_PASS;
}

#define STEP(id, nm, pl, nd, ord)                                                                  \
	HARNESS_VIEW(id##_view, nm, 1);                                                            \
	static const struct ps_step_ops id = {.abi = PS_STEP_ABI,                                  \
					      .name = nm,                                          \
					      .title = "test step " nm,                            \
					      .plans = pl,                                         \
					      .needs = nd,                                         \
					      .order = ord,                                        \
					      .data_version = 1,                                   \
					      .view = &id##_view,                                  \
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
STEP(s_noschema, "noschema", PS_PLAN_QUICK, 0, 1);
/* surface runs after smart; a chain pulls both in */
HARNESS_VIEW(s_after_view, "scan", 1);
HARNESS_VIEW(s_orphan_view, "orphan", 1);
static const struct ps_step_ops s_after = {.abi = PS_STEP_ABI,
					   .name = "scan",
					   .plans = PS_PLAN_FULL,
					   .order = 50,
					   .after = "surface",
					   .data_version = 1,
					   .view = &s_after_view,
					   .run = run_ok};
static const struct ps_step_ops s_after_missing = {.abi = PS_STEP_ABI,
						   .name = "orphan",
						   .plans = PS_PLAN_FULL,
						   .order = 60,
						   .after = "nosuchstep",
						   .data_version = 1,
						   .view = &s_orphan_view,
						   .run = run_ok};
/* a view that names another step, or another data version */
static const struct ps_step_ops s_wrongview = {.abi = PS_STEP_ABI,
					       .name = "wrongview",
					       .plans = PS_PLAN_QUICK,
					       .data_version = 1,
					       .view = &s_after_view,
					       .run = run_ok};
static const struct ps_step_ops s_noview = {
    .abi = PS_STEP_ABI, .name = "noview", .plans = PS_PLAN_QUICK, .data_version = 1, .run = run_ok};
static const struct ps_col nokey_cols[] = {{.path = "/x", .title = "x"}};
static const struct ps_block nokey_blocks[] = {
    {.kind = PS_BLOCK_TABLE, .id = "t", .rows = "/rows", .cols = PS_COLS(nokey_cols)}};
static const struct ps_view nokey_view = {
    .name = "nokey", .version = 1, .blocks = PS_BLOCKS(nokey_blocks)};
static const struct ps_step_ops s_nokey = {.abi = PS_STEP_ABI,
					   .name = "nokey",
					   .plans = PS_PLAN_QUICK,
					   .data_version = 1,
					   .view = &nokey_view,
					   .run = run_ok};
static const struct ps_step_ops s_badabi = {
    .abi = PS_STEP_ABI + 1, .name = "future", .plans = PS_PLAN_QUICK, .run = run_ok};
static const struct ps_step_ops s_norun = {
    .abi = PS_STEP_ABI, .name = "norun", .plans = PS_PLAN_QUICK};
static const struct ps_step_ops s_noname = {
    .abi = PS_STEP_ABI, .plans = PS_PLAN_QUICK, .run = run_ok};

/* Steps with a typed result: the table is the schema, and the view may name only what it has. */
struct typed_row {
	const char *name;
	double mbps;
};
struct typed_data {
	struct typed_row *rows;
	size_t n_rows;
};
static const struct ps_field typed_row_f[] = {
    PS_FIELD(struct typed_row, name, "name"),
    PS_FIELD(struct typed_row, mbps, "mbps", .decimals = 2, .flags = PS_FLD_NULL),
};
static const struct ps_fields typed_row_fields = PS_FIELDS(struct typed_row, typed_row_f);
static const struct ps_field typed_f[] = {
    PS_FIELD_ARRAY(struct typed_data, rows, n_rows, "rows", &typed_row_fields),
};
static const struct ps_fields typed_fields = PS_FIELDS(struct typed_data, typed_f);
static const struct ps_col typo_cols[] = {{.path = "/name", .title = "name", .flags = PS_COL_KEY},
					  {.path = "/mpbs", .title = "MB/s"}};
static const struct ps_block typo_blocks[] = {
    {.kind = PS_BLOCK_TABLE, .id = "t", .rows = "/rows", .cols = PS_COLS(typo_cols)}};
HARNESS_VIEW(s_typed_view, "typed", 1);
HARNESS_VIEW(s_both_view, "both", 1);
static const struct ps_view typo_view = {
    .name = "typo", .version = 1, .blocks = PS_BLOCKS(typo_blocks)};
static const struct ps_view badrows_view = {
    .name = "badrows", .version = 1, .blocks = PS_BLOCKS(s_typed_view_blocks)};
static const struct ps_field badrows_f[] = {
    PS_FIELD_ARRAY(struct typed_data, rows, n_rows, "lines", &typed_row_fields),
};
static const struct ps_fields badrows_fields = PS_FIELDS(struct typed_data, badrows_f);
#define TYPED(id, nm, vw, res)                                                                     \
	static const struct ps_step_ops id = {.abi = PS_STEP_ABI,                                  \
					      .name = nm,                                          \
					      .plans = PS_PLAN_QUICK,                              \
					      .data_version = 1,                                   \
					      .view = &vw,                                         \
					      .result = &res,                                      \
					      .run = run_ok}
TYPED(s_typed, "typed", s_typed_view, typed_fields);
TYPED(s_typo, "typo", typo_view, typed_fields);
TYPED(s_badrows, "badrows", badrows_view, badrows_fields);
TYPED(s_both, "both", s_both_view, typed_fields);

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

static void add_schemas(void)
{
	static const char *const names[] = {"inventory", "smart",   "surface", "alpha", "badname",
					    "noplan",	 "badplan", "badneed", "scan",	"orphan",
					    "wrongview", "noview",  "nokey"};

	for (size_t i = 0; i < PS_ARRAY_SIZE(names); i++)
		ps_step_schema_add(names[i], "{\"type\": \"object\"}");
	ps_step_schema_add("broken", "{\"type\": ");
	ps_step_schema_add("both", "{\"type\": \"object\"}");
}

static int typed_run(struct ps_ctx *ctx)
{
	struct typed_data *d = ctx->result;
	struct typed_row *r = ps_fields_grow(&typed_row_fields, &d->rows, &d->n_rows);

	CHECK(ctx->data == NULL); /* a typed step never sees data{} */
	r->name = "sda";
	r->mbps = 512.25;
	r = ps_fields_grow(&typed_row_fields, &d->rows, &d->n_rows);
	r->name = "sdb"; /* mbps unmeasured: null */
	return PS_PASS;
}

static void test_typed(void)
{
	struct ps_step_ops ops = s_typed;
	struct harness h;
	json_object *rows, *frag;
	char why[256];
	double v;

	CHECK(ps_step_valid(&s_typed, why, sizeof(why)));
	/* a typo in a view path is a refusal at start-up, not a "-" in a report */
	CHECK(!ps_step_valid(&s_typo, why, sizeof(why)));
	CHECK(strstr(why, "/mpbs") && strstr(why, "schema"));
	CHECK(!ps_step_valid(&s_badrows, why, sizeof(why)));
	CHECK(strstr(why, "/rows") != NULL);
	/* a figure is named once: a table and //schema: lines is one too many */
	CHECK(!ps_step_valid(&s_both, why, sizeof(why)));
	CHECK(strstr(why, "//schema:") != NULL);
	frag = ps_step_schema_json(&s_typed);
	CHECK(frag && json_object_get_boolean(ps_json_get(frag, "additionalProperties")) == 0 &&
	      ps_json_get(frag, "additionalProperties"));

	ops.run = typed_run;
	harness_init(&h, &ops, "", PS_PLAN_QUICK);
	CHECK_INT(harness_run(&h), PS_PASS);
	rows = ps_json_arr(h.data, "rows");
	CHECK_INT(ps_json_len(rows), 2);
	CHECK(ps_json_num(ps_json_at(rows, 0), "mbps", &v) && v == 512.25);
	CHECK(json_object_object_get_ex(ps_json_at(rows, 1), "mbps", NULL) &&
	      !ps_json_get(ps_json_at(rows, 1), "mbps"));
	harness_done(&h);
}

static void test_views_and_schema(void)
{
	char why[256];

	CHECK(!ps_step_valid(&s_noschema, why, sizeof(why)));
	CHECK(strstr(why, "noschema") && strstr(why, "//schema:"));
	CHECK(!ps_step_valid(&s_noview, why, sizeof(why)));
	CHECK(strstr(why, "no view") != NULL);
	CHECK(!ps_step_valid(&s_wrongview, why, sizeof(why)));
	CHECK(strstr(why, "view is named 'scan'") != NULL);
	CHECK(!ps_step_valid(&s_nokey, why, sizeof(why)));
	CHECK(strstr(why, "no key column") != NULL);
	CHECK(ps_step_valid(&s_after, why, sizeof(why)));
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

static void test_after(void)
{
	const struct ps_step_ops *in[] = {&s_after, &s_surface, &s_after_missing, &s_inventory};
	const struct ps_step_ops *out[PS_ARRAY_SIZE(in)], *sel[PS_ARRAY_SIZE(in)];
	char err[256];
	size_t n, m;

	n_refusals = 0;
	n = ps_registry_build(in, PS_ARRAY_SIZE(in), out, refuse, NULL);
	CHECK_INT(n, 3);
	CHECK_INT(n_refusals, 1);
	CHECK(strstr(refusals[0], "orphan") && strstr(refusals[0], "not registered"));

	/* asking for scan alone runs surface first */
	CHECK_INT(ps_plan_select(out, n, NULL, "scan", sel, &m, err, sizeof(err)), 0);
	CHECK_INT(m, 2);
	CHECK_STR(sel[0]->name, "surface");
	CHECK_STR(sel[1]->name, "scan");
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
	struct harness h;
	struct ps_finding f = {.severity = PS_SEV_FAIL,
			       .dev = {PS_DEV_DRIVE, "drive:sn:M:S1", "sda"},
			       .rule = "reallocated",
			       .value = 2015,
			       .limit = 0,
			       .unit = "sectors"};
	json_object *fo, *v;
	double num;

	CHECK_STR(ps_status_name(PS_PASS), "pass");
	CHECK_STR(ps_status_name(PS_ABORTED), "aborted");
	CHECK_STR(ps_status_name((enum ps_status)42), "error");
	harness_init(&h, &s_smart, "", PS_PLAN_QUICK);
	ps_find(&h.ctx, &f, "%d reallocated sectors", 2015);
	ps_findf(&h.ctx, (enum ps_severity)9, (struct ps_dev_ref){0}, NULL, "bad severity");
	ps_examined(&h.ctx, (struct ps_dev_ref){PS_DEV_DRIVE, "drive:sn:M:S2", "sdb"}, "ok",
		    "healthy");
	ps_examined(&h.ctx, (struct ps_dev_ref){PS_DEV_DRIVE, "drive:sn:M:S1", "sda"}, "ok",
		    "looked at");
	CHECK_INT(json_object_array_length(h.run.findings), 2);
	fo = json_object_array_get_idx(h.run.findings, 0);
	CHECK_STR(ps_json_str(fo, "message"), "2015 reallocated sectors");
	CHECK_STR(ps_json_str(fo, "rule"), "smart.reallocated");
	CHECK_STR(ps_json_str(fo, "kind"), "drive");
	CHECK_STR(ps_json_str(fo, "device"), "drive:sn:M:S1");
	CHECK(ps_json_num(fo, "value", &num) && num == 2015);
	CHECK_STR(ps_json_str(fo, "unit"), "sectors");
	fo = json_object_array_get_idx(h.run.findings, 1);
	CHECK_STR(ps_json_str(fo, "severity"), "warn");
	CHECK_STR(ps_json_str(fo, "rule"), "smart.unnamed");
	CHECK(ps_json_get(fo, "value") == NULL && ps_json_get(fo, "unit") == NULL);
	/* verdicts: sdb passes on its examination, sda fails on its finding */
	harness_run(&h);
	CHECK_INT(ps_json_len(h.verdicts), 2);
	v = ps_json_at(h.verdicts, 0);
	CHECK_STR(ps_json_str(v, "subject"), "sdb");
	CHECK_STR(ps_json_str(v, "status"), "pass");
	CHECK_STR(ps_json_str(v, "rule"), "smart.ok");
	v = ps_json_at(h.verdicts, 1);
	CHECK_STR(ps_json_str(v, "subject"), "sda");
	CHECK_STR(ps_json_str(v, "status"), "fail");
	CHECK_STR(ps_json_str(v, "rule"), "smart.reallocated");
	CHECK(ps_json_num(v, "value", &num) && num == 2015);
	CHECK(!ps_should_abort(&h.ctx));
	h.abort_flag = 1;
	CHECK(ps_should_abort(&h.ctx));
	CHECK(!ps_should_abort(NULL));
	harness_done(&h);
}

int main(void)
{
	add_schemas();
	test_views_and_schema();
	test_typed();
	test_after();
	test_validate();
	test_build();
	test_select();
	test_section();
	test_status_and_findings();
	return check_done("test_registry");
}
