/* test_report.c - report skeleton, atomic write and read back, damaged report.json,
 * latest report lookup, machine-id, and the text view of a full report. */
#include "check.h"
#include "machine_id.h"
#include "report.h"
#include "util.h"

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
	CHECK_INT(ps_report_write(r, dir), 0);
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
    {"{\"schema_version\": 2}", -EBADMSG, "schema_version 2"},
    {"{\"schema_version\": 1} {}", -EBADMSG, "extra data"},
    {"{\"schema_version\": 1}\n\n", 0, NULL},
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

static bool has_line(const char *text, const char *a, const char *b)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), p);
		if (strstr(line, a) && (!b || strstr(line, b)))
			return true;
		p = nl ? nl + 1 : NULL;
	}
	fprintf(stderr, "no line with '%s' and '%s'\n", a, b ? b : "");
	return false;
}

static void test_text(void)
{
	char dir[PATH_MAX + 32], err[PATH_MAX + 300];
	json_object *r;
	char *text;
	int longest = 0, col = 0;

	snprintf(dir, sizeof(dir), "%s/full", tmp);
	put_report(dir, FIXTURES "/core/reports/full.json");
	CHECK_INT(ps_report_load(dir, &r, err, sizeof(err)), 0);
	if (!r)
		return;
	text = ps_report_text(r, 0);
	for (const char *p = text; *p; p++) {
		col = *p == '\n' ? 0 : col + 1;
		longest = col > longest ? col : longest;
	}
	CHECK(longest <= 80);
	CHECK(has_line(text, "plan quick", "complete"));
	CHECK(has_line(text, "Dell Inc. PowerEdge T320", "4c4c4544-0042"));
	CHECK(has_line(text, "6.1.0-57-amd64", NULL));
	CHECK(has_line(text, "module", "loaded (ABI 1)"));
	CHECK(has_line(text, "12 logical, 6 cores, 1 package", "0x42e"));
	CHECK(has_line(text, "00:1f.2", "PCI (no link)"));
	CHECK(has_line(text, "00:01.0", "5 GT/s x4 of 8 GT/s x8"));
	CHECK(has_line(text, "02:00.0", "2.5 GT/s x4 of 8 GT/s x16 downgraded"));
	CHECK(has_line(text, "sda", "SATA 3.0 Gb/s"));
	CHECK(has_line(text, "1.00 TB", "512/512"));
	CHECK(has_line(text, "HGST HDS721010CLA332", "JP2940HD0K9RYC"));
	CHECK(has_line(text, "sdb", "SSD removable"));
	CHECK(has_line(text, "BOOT STICK (never a test target): SanDisk", NULL));
	CHECK(has_line(text, "eno1", "up 1000 Mb/s full"));
	CHECK(has_line(text, "eno1", "b8:ca:3a:6e:11:20"));
	CHECK(has_line(text, "eno2", "no carrier"));
	CHECK(has_line(text, "eno2", "9000"));
	CHECK(has_line(text, "1 of 2 slots populated", NULL));
	CHECK(has_line(text, "DIMM_A1", "1600 (at 1333)"));
	CHECK(has_line(text, "DIMM_A2", "empty"));
	CHECK(has_line(text, "nouveau", "No such device"));
	CHECK(has_line(text, "smart", "needs root"));
	CHECK(has_line(text, "warn 0000:02:00.0", "link trained"));
	CHECK(has_line(text, "unknown key 'speed'", NULL));
	free(text);

	text = ps_report_text(r, PS_TEXT_INVENTORY);
	CHECK(strstr(text, "Steps") == NULL);
	CHECK(strstr(text, "PCI functions (3)") != NULL);
	free(text);
	json_object_put(r);

	/* a report with wrong types everywhere renders, with ? for what it cannot use */
	r = json_tokener_parse("{\"schema_version\":1,\"pcie\":{},\"drives\":[1,\"x\",{}],"
			       "\"nics\":[{\"speed_mbps\":\"fast\"}],\"steps\":[null]}");
	text = ps_report_text(r, 0);
	CHECK(strstr(text, "Drives (3)") != NULL);
	free(text);
	json_object_put(r);
}

int main(void)
{
	const char *out = getenv("OUT");

	snprintf(tmp, sizeof(tmp), "%s/tests/report-%d", out ? out : "out", (int)getpid());
	test_skeleton_roundtrip();
	test_damaged();
	test_latest();
	test_machine_id();
	test_text();
	return check_done("test_report");
}
