/* test_report.c - report skeleton, atomic write and read back, damaged report.json and text,
 * latest report lookup and the machine-id (the text view: test_render_text.c). */
#include "check.h"
#include "decode/machine_id.h"
#include "report/report.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[1024];

/* Copy a fixture into dir/report.json. */
static void put_report(const char *dir, const char *fixture)
{
	char *data;
	size_t len;

	CHECK_INT(ps_read_all(fixture, &data, &len), 0);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	CHECK_INT(ps_write_atomic(dir, "report.json", data, len), 0);
	free(data);
}

static void test_skeleton_roundtrip(void)
{
	json_object *r = ps_report_new("full", 0), *back;
	char dir[PATH_MAX + 32], err[PATH_MAX + 300];
	static const char *const keys[] = {"schema_version", "complete", "plan",       "created",
					   "machine_id",     "warnings", "probestick", "machine",
					   "pcie",	     "drives",	 "nics",       "memory",
					   "coldplug",	     "steps"};

	CHECK_STR(ps_json_str(r, "created"), "1970-01-01T00:00:00Z");
	snprintf(dir, sizeof(dir), "%s/skeleton", tmp);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	{
		struct ps_report_files files = {0};

		CHECK_INT(ps_report_write(r, dir, NULL, &files), 0);
		CHECK_INT(files.writes, 1);
		CHECK(files.text_current && !files.json_complete);
	}
	CHECK_INT(ps_report_load(dir, &back, err, sizeof(err)), 0);
	for (size_t i = 0; back && i < PS_ARRAY_SIZE(keys); i++) {
		json_object *v;

		if (!json_object_object_get_ex(back, keys[i], &v)) {
			fprintf(stderr, "skeleton lacks %s\n", keys[i]);
			CHECK(0);
		}
	}
	CHECK(back && !json_object_get_boolean(ps_json_get(back, "complete")));
	json_object_put(back);
	json_object_put(r);
}

struct bad_case {
	const char *content;
	int ret;
	const char *msg_has;
};

static const struct bad_case bad_cases[] = {
    {NULL, -EBADMSG, "not valid JSON (unexpected end"}, /* truncated.json */
    {"", -EBADMSG, "not valid JSON"},
    {"\x00\x01garbage\xff", -EBADMSG, "not valid JSON"},
    {"[1, 2]", -EBADMSG, "not a report"},
    {"{\"plan\": \"quick\"}", -EBADMSG, "no schema_version"},
    {"{\"schema_version\": 3}", -EBADMSG, "schema_version 3"},
    {"{\"schema_version\": 0}", -EBADMSG, "versions 1 to 2"},
    {"{\"schema_version\": 1} {}", -EBADMSG, "extra data"},
    {"{\"schema_version\": 1}\n\n", 0, NULL}, /* older versions are read */
    {"{\"schema_version\": 2}", 0, NULL},
};

static void test_damaged(void)
{
	char dir[PATH_MAX + 32], err[PATH_MAX + 300];
	json_object *r;

	for (size_t i = 0; i < PS_ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];

		snprintf(dir, sizeof(dir), "%s/bad%zu", tmp, i);
		if (c->content) {
			CHECK_INT(ps_mkdirs(dir, 0755), 0);
			CHECK_INT(ps_write_atomic(dir, "report.json", c->content,
						  i == 2 ? 11 : strlen(c->content)),
				  0);
		} else {
			put_report(dir, FIXTURES "/core/reports/truncated.json");
		}
		err[0] = '\0';
		CHECK_INT(ps_report_load(dir, &r, err, sizeof(err)), c->ret);
		if (c->msg_has && !strstr(err, c->msg_has)) {
			fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err, c->msg_has);
			CHECK(0);
		}
		CHECK(c->ret < 0 ? r == NULL : r != NULL);
		json_object_put(r);
	}
	snprintf(dir, sizeof(dir), "%s/none", tmp);
	CHECK_INT(ps_report_load(dir, &r, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "No such file") != NULL);
}

/* The text alone, as the fuzz harness gives it: bounded by len, messages follow a file name. */
static void test_parse_text(void)
{
	static const char text[] = "{\"schema_version\": 1, \"plan\": \"quick\"}{garbage";
	json_object *r = NULL;
	char err[300];

	CHECK_INT(ps_report_parse(text, strchr(text, '}') + 1 - text, &r, err, sizeof(err)), 0);
	CHECK_STR(ps_json_str(r, "plan"), "quick");
	json_object_put(r);
	r = (json_object *)err;
	CHECK_INT(ps_report_parse(text, sizeof(text) - 1, &r, err, sizeof(err)), -EBADMSG);
	CHECK(r == NULL);
	CHECK(strncmp(err, "is damaged: extra data after the JSON document at byte 38", 57) == 0);
	CHECK_INT(ps_report_parse(text, 10, &r, err, sizeof(err)), -EBADMSG);
	CHECK(strncmp(err, "is not valid JSON (unexpected end at byte 10 of 10)", 51) == 0);
}

static void test_latest(void)
{
	char root[PATH_MAX], dir[PATH_MAX + 128], found[PATH_MAX];

	snprintf(root, sizeof(root), "%s/reports", tmp);
	CHECK_INT(ps_report_latest(root, found, sizeof(found)), -ENOENT);
	snprintf(dir, sizeof(dir), "%s/machine-a/20261129T203708Z-quick", root);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/machine-b/20261130T080000Z-full", root);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/machine-a/20261129T210000Z-custom", root);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/machine-a/notes", root);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	CHECK_INT(ps_report_latest(root, found, sizeof(found)), 0);
	CHECK(strstr(found, "machine-b/20261130T080000Z-full") != NULL);
}

static void test_machine_id(void)
{
	struct {
		const char *uuid, *serial, *mac, *id;
	} cases[] = {
	    {"4C4C4544-0042-3510-8057-B7C04F4A3332", "7B5JJ32", NULL,
	     "4c4c4544-0042-3510-8057-b7c04f4a3332"},
	    {"00000000-0000-0000-0000-000000000000", "7B5JJ32", NULL, "7B5JJ32"},
	    {"FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "To be filled by O.E.M.", "52:54:00:12:34:56",
	     "525400123456"},
	    {NULL, "System Serial Number", NULL, "unknown"},
	    {NULL, "AB 12/34", NULL, "AB_12_34"},
	};

	for (size_t i = 0; i < PS_ARRAY_SIZE(cases); i++) {
		json_object *m = json_object_new_object(), *nics = json_object_new_array();
		char id[128];

		if (cases[i].uuid)
			json_object_object_add(m, "uuid", json_object_new_string(cases[i].uuid));
		json_object_object_add(m, "serial", json_object_new_string(cases[i].serial));
		if (cases[i].mac) {
			json_object *n = json_object_new_object();

			json_object_object_add(n, "mac", json_object_new_string(cases[i].mac));
			json_object_array_add(nics, n);
		}
		CHECK_STR(ps_machine_id(m, nics, id, sizeof(id)), cases[i].id);
		json_object_put(m);
		json_object_put(nics);
	}
}

int main(void)
{
	const char *out = getenv("OUT");

	snprintf(tmp, sizeof(tmp), "%s/tests/report-%d", out ? out : "out", (int)getpid());
	test_skeleton_roundtrip();
	test_damaged();
	test_parse_text();
	test_latest();
	test_machine_id();
	return check_done("test_report");
}
