/*
 * test_fields.c - a result struct through its field table (lib/fields.c) into
 * JSON and its strict schema, held to that schema by the C checker
 * (lib/schema.c), which must also refuse what does not fit: an unknown
 * member, a missing one, a wrong type.
 */
#include "check.h"
#include "decode/decode.h"
#include "lib/fields.h"
#include "lib/json.h"
#include "lib/schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct lat {
	double p50, p99;
};

struct run_row {
	const char *pattern;
	unsigned int bs;
	struct ps_figure mbps;
	double iops;
	char note[32];
};

struct drive {
	char name[16];
	int64_t sectors; /* -1 unknown */
	ps_tri trim;
	bool aborted;
	int state;
	struct lat lat;
	struct lat *user;
	struct run_row *rows;
	size_t n_rows;
	double runs[4];
	size_t n_runs;
	json_object *extra;
};

struct top {
	const char *plan;
	struct drive drives[2];
	size_t n_drives;
};

static const char *const states[] = {"idle", "busy", NULL};
static const char *const patterns[] = {"seq", "rand", NULL};

static const struct ps_field lat_f[] = {
    PS_FIELD(struct lat, p50, "p50", .unit = "us", .decimals = 1),
    PS_FIELD(struct lat, p99, "p99", .unit = "us", .decimals = 1, .flags = PS_FLD_NULL),
};
static const struct ps_fields lat_fields = PS_FIELDS(struct lat, lat_f);

static const struct ps_field row_f[] = {
    PS_FIELD(struct run_row, pattern, "pattern", .names = patterns),
    PS_FIELD(struct run_row, bs, "bs", .unit = "bytes"),
    PS_FIELD(struct run_row, mbps, "mbps", .unit = "MB/s", .decimals = 1, .flags = PS_FLD_WARMUP),
    PS_FIELD(struct run_row, iops, "median_iops", .flags = PS_FLD_NULL),
    PS_FIELD(struct run_row, note, "note", .flags = PS_FLD_OMIT),
};
static const struct ps_fields row_fields = PS_FIELDS(struct run_row, row_f);

static const struct ps_field drive_f[] = {
    PS_FIELD(struct drive, name, "name"),
    PS_FIELD(struct drive, sectors, "sectors", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive, trim, "trim", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive, aborted, "aborted", .flags = PS_FLD_OMIT),
    PS_FIELD_ENUM(struct drive, state, "state", states, .flags = PS_FLD_NULL),
    PS_FIELD_OBJ(struct drive, lat, "lat_us", &lat_fields),
    PS_FIELD_OBJP(struct drive, user, "user_latency", &lat_fields),
    PS_FIELD_ARRAY(struct drive, rows, n_rows, "results", &row_fields),
    PS_FIELD_NUMS(struct drive, runs, n_runs, "runs", .decimals = 2, .flags = PS_FLD_NEWER),
    PS_FIELD(struct drive, extra, "extra", .schema = "{\"type\": \"object\"}",
	     .flags = PS_FLD_NULL),
};
static const struct ps_fields drive_fields = PS_FIELDS(struct drive, drive_f);

static const struct ps_field top_f[] = {
    PS_FIELD(struct top, plan, "plan"),
    PS_FIELD_ARRAY(struct top, drives, n_drives, "drives", &drive_fields),
};
static const struct ps_fields top_fields = PS_FIELDS(struct top, top_f);

static int valid(json_object *schema, json_object *doc)
{
	char why[300];
	int ret = ps_schema_check(schema, doc, why, sizeof(why));

	if (ret < 0)
		fprintf(stderr, "  (schema: %s)\n", why);
	return ret;
}

/* The member types the macros derive from the C types. */
static void test_types(void)
{
	CHECK_INT(row_f[0].type, PS_FT_STR);
	CHECK_INT(row_f[1].type, PS_FT_UINT);
	CHECK_INT(row_f[2].type, PS_FT_FIGURE);
	CHECK_INT(row_f[4].type, PS_FT_TEXT);
	CHECK_INT(drive_f[1].type, PS_FT_INT);
	CHECK_INT(drive_f[2].type, PS_FT_TRI);
	CHECK_INT(drive_f[3].type, PS_FT_BOOL);
	CHECK_INT(drive_f[9].type, PS_FT_JSON);
	CHECK(drive_f[7].pointer);
	CHECK(!drive_f[8].pointer);
	CHECK(!top_f[1].pointer);
}

/* A struct just made says nothing: its numbers are null, never 0. */
static void test_unknown(void)
{
	struct top t;
	json_object *o, *schema = ps_fields_schema(&top_fields), *d;

	ps_fields_init(&top_fields, &t);
	t.plan = "quick";
	t.n_drives = 1;
	o = ps_fields_json(&top_fields, &t);
	d = ps_json_at(ps_json_arr(o, "drives"), 0);
	CHECK(json_object_is_type(ps_json_get(d, "sectors"), json_type_null));
	CHECK(ps_json_get(d, "sectors") == NULL && json_object_object_get_ex(d, "sectors", NULL));
	CHECK(json_object_object_get_ex(d, "trim", NULL) && !ps_json_get(d, "trim"));
	CHECK(json_object_object_get_ex(d, "state", NULL) && !ps_json_get(d, "state"));
	CHECK(!json_object_object_get_ex(d, "aborted", NULL)); /* PS_FLD_OMIT, false */
	CHECK(json_object_object_get_ex(ps_json_get(d, "lat_us"), "p50", NULL) &&
	      !ps_json_get(ps_json_get(d, "lat_us"), "p50"));
	CHECK(json_object_object_get_ex(d, "user_latency", NULL) &&
	      !ps_json_get(d, "user_latency"));
	CHECK_STR(ps_json_str(d, "name"), ""); /* not nullable: "" */
	/* p50 is not nullable: an unmeasured struct is not a valid result */
	CHECK(valid(schema, o) < 0);
	json_object_put(o);
	json_object_put(schema);
	ps_fields_free(&top_fields, &t);
}

static void fill(struct top *t)
{
	struct drive *d = &t->drives[0];
	struct run_row *r;

	ps_fields_init(&top_fields, t);
	t->plan = "full";
	t->n_drives = 1;
	snprintf(d->name, sizeof(d->name), "sda");
	d->sectors = 1000;
	d->trim = 1;
	d->aborted = true;
	d->state = 1;
	d->lat.p50 = 12.34;
	d->user = ps_fields_new(&lat_fields, 1);
	d->user->p50 = 5;
	r = ps_fields_grow(&row_fields, &d->rows, &d->n_rows);
	r->pattern = "seq";
	r->bs = 4096;
	ps_figure_add(&r->mbps, 100);
	ps_figure_add(&r->mbps, 110);
	ps_figure_add(&r->mbps, 90);
	r->mbps.warmup = 50;
	ps_figure_finish(&r->mbps, &(struct ps_noise_rule){.runs = 2, .cv_limit_pct = 5});
	r = ps_fields_grow(&row_fields, &d->rows, &d->n_rows);
	r->pattern = "rand";
	snprintf(r->note, sizeof(r->note), "time-limited");
	d->runs[0] = 1.234;
	d->n_runs = 1;
	d->extra = json_tokener_parse("{\"a\": 1}");
}

static void test_json_and_schema(void)
{
	struct top t;
	json_object *o, *schema = ps_fields_schema(&top_fields), *d, *r0, *r1, *bad;
	double v;

	fill(&t);
	o = ps_fields_json(&top_fields, &t);
	CHECK_INT(valid(schema, o), 0);
	d = ps_json_at(ps_json_arr(o, "drives"), 0);
	CHECK_STR(ps_json_str(d, "state"), "busy");
	CHECK_INT(ps_json_bool(d, "aborted"), 1);
	CHECK(ps_json_num(ps_json_get(d, "lat_us"), "p50", &v) && v == 12.3);
	CHECK(ps_json_num(ps_json_get(d, "user_latency"), "p50", &v) && v == 5);
	r0 = ps_json_at(ps_json_arr(d, "results"), 0);
	r1 = ps_json_at(ps_json_arr(d, "results"), 1);
	/* the figure's one JSON form, named after the field */
	CHECK_INT(ps_json_len(ps_json_arr(r0, PS_FIGURE_RUNS("mbps"))), 3);
	CHECK(ps_json_num(r0, PS_FIGURE_MEDIAN("mbps"), &v) && v == 100);
	CHECK(ps_json_num(r0, PS_FIGURE_MIN("mbps"), &v) && v == 90);
	CHECK(ps_json_num(r0, PS_FIGURE_MAX("mbps"), &v) && v == 110);
	CHECK(ps_json_num(r0, PS_FIGURE_WARMUP("mbps"), &v) && v == 50);
	CHECK(ps_json_num(r0, PS_FIGURE_CV, &v) && v == 10);
	CHECK(ps_json_int(r0, PS_FIGURE_EXTRA, &(int64_t){0}));
	CHECK_INT(ps_json_bool(r0, PS_FIGURE_NOISY), 1);
	/* no runs: unknown figures, and no spread from one run or none */
	CHECK(json_object_object_get_ex(r1, "median_mbps", NULL) &&
	      !ps_json_get(r1, "median_mbps"));
	CHECK(!ps_json_get(r1, "cv_pct"));
	CHECK_STR(ps_json_str(r1, "note"), "time-limited");
	CHECK(!json_object_object_get_ex(r0, "note", NULL));

	/* strict: an unknown member, a missing required one, a wrong type, a bad enum */
	bad = json_tokener_parse(json_object_to_json_string(o));
	json_object_object_add(ps_json_at(ps_json_arr(bad, "drives"), 0), "typo", NULL);
	CHECK(valid(schema, bad) < 0);
	json_object_put(bad);
	bad = json_tokener_parse(json_object_to_json_string(o));
	json_object_object_del(ps_json_at(ps_json_arr(bad, "drives"), 0), "sectors");
	CHECK(valid(schema, bad) < 0);
	json_object_put(bad);
	bad = json_tokener_parse(json_object_to_json_string(o));
	json_object_object_del(ps_json_at(ps_json_arr(bad, "drives"), 0), "runs"); /* NEWER */
	CHECK_INT(valid(schema, bad), 0);
	json_object_object_add(bad, "plan", json_object_new_int(1));
	CHECK(valid(schema, bad) < 0);
	json_object_put(bad);
	bad = json_tokener_parse(json_object_to_json_string(o));
	ps_json_set_str(
	    ps_json_at(ps_json_arr(ps_json_at(ps_json_arr(bad, "drives"), 0), "results"), 0),
	    "pattern", "sideways");
	CHECK(valid(schema, bad) < 0);
	json_object_put(bad);

	json_object_put(o);
	json_object_put(schema);
	ps_fields_free(&top_fields, &t);
	CHECK(t.drives[0].rows == NULL && t.drives[0].user == NULL && t.drives[0].extra == NULL);
}

/* What a view may name: members of a strict schema, not others; an open one says nothing. */
static void test_member(void)
{
	json_object *schema = ps_fields_schema(&top_fields), *m, *open_s;
	bool open;

	m = ps_schema_member(ps_schema_items(ps_schema_member(schema, "/drives", &open)),
			     "/lat_us/p99", &open);
	CHECK(m && !open);
	m = ps_schema_member(ps_schema_items(ps_schema_member(schema, "/drives", &open)),
			     "/lat_us/p42", &open);
	CHECK(!m && !open);
	m = ps_schema_member(ps_schema_items(ps_schema_member(schema, "/drives", &open)),
			     "/extra/anything", &open);
	CHECK(!m && open);
	open_s = json_tokener_parse("{\"type\": \"object\"}");
	CHECK(!ps_schema_member(open_s, "/x", &open) && open);
	json_object_put(open_s);
	json_object_put(schema);
}

static void test_valid(void)
{
	static const struct ps_field two_figures[] = {
	    PS_FIELD(struct run_row, mbps, "mbps"),
	    PS_FIELD(struct run_row, mbps, "gbps"),
	};
	static const struct ps_field clash[] = {
	    PS_FIELD(struct run_row, mbps, "mbps"),
	    PS_FIELD(struct run_row, iops, "median_mbps"),
	};
	static const struct ps_field no_names[] = {
	    PS_FIELD_ENUM(struct drive, state, "state", NULL),
	};
	const struct ps_fields t1 = PS_FIELDS(struct run_row, two_figures);
	const struct ps_fields t2 = PS_FIELDS(struct run_row, clash);
	const struct ps_fields t3 = PS_FIELDS(struct drive, no_names);
	char why[200];

	CHECK(ps_fields_valid(&top_fields, why, sizeof(why)));
	CHECK(!ps_fields_valid(&t1, why, sizeof(why)) && strstr(why, "one figure"));
	CHECK(!ps_fields_valid(&t2, why, sizeof(why)) && strstr(why, "median_mbps"));
	CHECK(!ps_fields_valid(&t3, why, sizeof(why)) && strstr(why, "names"));
}

int main(void)
{
	test_types();
	test_unknown();
	test_json_and_schema();
	test_member();
	test_valid();
	return check_done("test_fields");
}
