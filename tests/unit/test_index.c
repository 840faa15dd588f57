/*
 * test_index.c - reports/index.html over a stick tree with a complete run,
 * one cut off during a step, one whose report.json is damaged, one whose
 * report could not be written at all, on two machines: newest first, each
 * run in its state with the reason, verdict counts, links, escaped text;
 * a run the next boot marked cut off by a power loss, and what that boot
 * found on the stick.
 */
#include "check.h"
#include "lib/util.h"
#include "report/index.h"
#include "lib/json.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPORTS FIXTURES "/core/reports"

static char root[512];

static void put(const char *machine, const char *run, const char *name, const char *data,
		size_t len)
{
	char dir[1024];

	snprintf(dir, sizeof(dir), "%s/%s/%s", root, machine, run);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	CHECK_INT(ps_write_atomic(dir, name, data, len), 0);
}

static void put_fixture(const char *machine, const char *run, const char *fixture)
{
	char path[600], *data;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", REPORTS, fixture);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	put(machine, run, "report.json", data, len);
	free(data);
}

static void build_tree(void)
{
	char path[600], *data;
	size_t len;
	json_object *r;
	const char *text;

	/* machine 1: a complete run, then a newer one cut off during disk_read */
	put_fixture("525400500001", "20261201T122346Z-quick", "healthy-v2.json");
	put("525400500001", "20261201T122346Z-quick", "report.html", "<p>", 3);
	put("525400500001", "20261201T122346Z-quick", "report.txt", "text\n", 5);
	snprintf(path, sizeof(path), "%s/healthy-v2.json", REPORTS);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	r = json_tokener_parse(data);
	free(data);
	ps_json_set(r, "complete", json_object_new_boolean(0));
	ps_json_set_str(r, "running_step", "disk_read");
	/* a vendor string that must not become markup */
	ps_json_set_str(ps_json_get(r, "machine"), "vendor", "<b>Evil & Co</b>");
	text = ps_report_json_text(r);
	put("525400500001", "20261201T130000Z-full", "report.json", text, strlen(text));
	json_object_put(r);
	/* machine 2: a damaged report, and a folder whose report could not be written */
	put_fixture("4c4c4544-dell", "20261130T080000Z-quick", "truncated.json");
	put("4c4c4544-dell", "20261129T070000Z-quick", "WRITE-FAILED.txt",
	    "probestick could not write report.json in this folder: No space left on device.\n"
	    "more\n",
	    86);
	/* not runs: ignored */
	put("4c4c4544-dell", "notes", "x.txt", "x", 1);
	put("4c4c4544-dell", "20261129T070000Z", "report.json", "{}", 2);
}

static void test_scan(void)
{
	struct ps_index idx;

	CHECK_INT(ps_index_scan(root, &idx), 0);
	CHECK_INT(idx.n, 4);
	CHECK_INT(idx.machines, 2);
	CHECK(!idx.has_compare);
	if (idx.n == 4) {
		/* newest first, over both machines */
		CHECK_STR(idx.runs[0].run_dir, "20261201T130000Z-full");
		CHECK_STR(idx.runs[1].run_dir, "20261201T122346Z-quick");
		CHECK_STR(idx.runs[2].run_dir, "20261130T080000Z-quick");
		CHECK_STR(idx.runs[3].run_dir, "20261129T070000Z-quick");
		CHECK_INT(idx.runs[0].state, PS_RUN_INCOMPLETE);
		CHECK_STR(idx.runs[0].stopped_at, "disk_read");
		CHECK_INT(idx.runs[1].state, PS_RUN_COMPLETE);
		CHECK_STR(idx.runs[1].plan, "quick");
		CHECK_STR(idx.runs[1].created, "2026-12-01T12:23:46Z");
		CHECK_STR(idx.runs[1].machine, "QEMU Standard PC (Q35 + ICH9, 2009)");
		CHECK_INT(idx.runs[1].pass, 10);
		CHECK_INT(idx.runs[1].fail + idx.runs[1].warn, 0);
		CHECK(idx.runs[1].has_html && idx.runs[1].has_txt && !idx.runs[1].has_ocp);
		CHECK_INT(idx.runs[2].state, PS_RUN_UNREADABLE);
		CHECK(strstr(idx.runs[2].reason, "report.json is not valid JSON") != NULL);
		CHECK(strstr(idx.runs[2].reason, root) == NULL); /* the folder is named once */
		CHECK_STR(idx.runs[2].created, "2026-11-30T08:00:00Z"); /* from the stamp */
		CHECK_INT(idx.runs[3].state, PS_RUN_UNREADABLE);
		CHECK(strstr(idx.runs[3].reason, "no report.json") &&
		      strstr(idx.runs[3].reason, "No space left on device"));
	}
	ps_index_free(&idx);
}

static void test_page(void)
{
	char path[600], *html;
	size_t len;
	struct stat st;

	CHECK_INT(ps_index_write(root), 0);
	snprintf(path, sizeof(path), "%s/index.html", root);
	CHECK_INT(ps_read_all(path, &html, &len), 0);
	CHECK(strncmp(html, "<!DOCTYPE html>", 15) == 0);
	CHECK(strstr(html, "4 runs of 2 machines") != NULL);
	CHECK(strstr(html, "href=\"525400500001/20261201T122346Z-quick/report.html\">html</a>"));
	CHECK(strstr(html, "href=\"525400500001/20261201T122346Z-quick/report.txt\">txt</a>"));
	/* no link to a file that is not there */
	CHECK(strstr(html, "20261201T130000Z-full/report.html") == NULL);
	CHECK(strstr(html, "incomplete</span>: stopped during disk_read") != NULL);
	CHECK(strstr(html, "unreadable</span>: report.json is not valid JSON") != NULL);
	CHECK(strstr(html, "no report.json: probestick could not write") != NULL);
	CHECK(strstr(html, "<span class=\"st pass\">10 pass</span>") != NULL);
	CHECK(strstr(html, "&lt;b&gt;Evil &amp; Co&lt;/b&gt;") != NULL);
	CHECK(strstr(html, "<b>Evil") == NULL);
	/* the newest run comes first on the page */
	CHECK(strstr(html, "20261201T110000Z") < strstr(html, "20261129T070000Z"));
	free(html);
	/* atomic: no temporary file left beside it */
	snprintf(path, sizeof(path), "%s/.index.html.tmp", root);
	CHECK(stat(path, &st) < 0);
	/* a comparison saved on the stick is linked */
	put(".", "", "compare.html", "<p>", 3);
	CHECK_INT(ps_index_write(root), 0);
	snprintf(path, sizeof(path), "%s/index.html", root);
	CHECK_INT(ps_read_all(path, &html, &len), 0);
	CHECK(strstr(html, "href=\"compare.html\"") != NULL);
	free(html);
}

static void test_empty_and_missing(void)
{
	char dir[600], *html;
	struct ps_index idx;

	snprintf(dir, sizeof(dir), "%s-empty", root);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	CHECK_INT(ps_index_scan(dir, &idx), 0);
	CHECK_INT(idx.n, 0);
	html = ps_index_html(&idx);
	CHECK(strstr(html, "No report yet") != NULL);
	free(html);
	ps_index_free(&idx);
	CHECK(ps_index_scan("/nonexistent/probestick", &idx) < 0);
}

/* A run cut off during nic_tput, marked by the next boot, whose run found a dirty stick. */
static void test_cut_run(void)
{
	char dir[600], path[700], *data, *html;
	size_t len;
	json_object *r, *done, *stick, *check, *probs, *p;
	const char *text;
	struct ps_index idx;

	snprintf(dir, sizeof(dir), "%s-cut", root);
	snprintf(path, sizeof(path), "%s/healthy-v2.json", REPORTS);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	r = json_tokener_parse(data);
	free(data);
	ps_json_set(r, "complete", json_object_new_boolean(0));
	ps_json_set_str(r, "running_step", "nic_tput");
	ps_json_set_str(ps_json_get(r, "probestick"), "boot_id", "boot-1");
	text = ps_report_json_text(r);
	snprintf(path, sizeof(path), "%s/m1/20261201T100000Z-quick", dir);
	CHECK_INT(ps_mkdirs(path, 0755), 0);
	CHECK_INT(ps_write_atomic(path, "report.json", text, strlen(text)), 0);
	json_object_put(r);
	done = ps_reports_recover(dir, "boot-2", 1796118748, NULL);
	CHECK_INT(ps_json_len(done), 1);
	json_object_put(done);
	/* the next run: complete, its boot found the stick dirty and repaired it */
	snprintf(path, sizeof(path), "%s/healthy-v2.json", REPORTS);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	r = json_tokener_parse(data);
	free(data);
	stick = json_object_new_object();
	check = json_object_new_object();
	probs = json_object_new_array();
	p = json_object_new_object();
	ps_json_set_str(p, "kind", "dirty");
	ps_json_set_str(p, "message", "the volume was not cleanly unmounted");
	json_object_array_add(probs, p);
	ps_json_set(check, "clean", json_object_new_boolean(0));
	ps_json_set(check, "problems", probs);
	ps_json_set(check, "repaired", json_object_new_boolean(1));
	ps_json_set(check, "clean_after", json_object_new_boolean(1));
	ps_json_set(stick, "check", check);
	ps_json_set(stick, "recovered", json_object_new_array());
	p = json_object_new_object();
	ps_json_set_str(p, "action", "marked");
	json_object_array_add(ps_json_arr(stick, "recovered"), p);
	ps_json_set(r, "stick", stick);
	text = ps_report_json_text(r);
	snprintf(path, sizeof(path), "%s/m1/20261201T101000Z-quick", dir);
	CHECK_INT(ps_mkdirs(path, 0755), 0);
	CHECK_INT(ps_write_atomic(path, "report.json", text, strlen(text)), 0);
	json_object_put(r);

	CHECK_INT(ps_index_scan(dir, &idx), 0);
	CHECK_INT(idx.n, 2);
	if (idx.n == 2) {
		CHECK_INT(idx.runs[1].state, PS_RUN_INCOMPLETE);
		CHECK(idx.runs[1].cut);
		CHECK_STR(idx.runs[1].cut_cause, "power_lost");
		CHECK(!idx.runs[0].cut);
	}
	CHECK(strstr(idx.stick_note, "1 problem") &&
	      strstr(idx.stick_note, "not cleanly unmounted") &&
	      strstr(idx.stick_note, "fsck.fat repaired") &&
	      strstr(idx.stick_note, "marked 1 run cut off"));
	html = ps_index_html(&idx);
	CHECK(strstr(html, "incomplete</span>: cut off during nic_tput: power lost") != NULL);
	CHECK(strstr(html, "marked 1 run cut off") != NULL);
	free(html);
	ps_index_free(&idx);
}

int main(void)
{
	snprintf(root, sizeof(root), "%s/tests/index-%d/reports",
		 getenv("OUT") ? getenv("OUT") : "out", (int)getpid());
	build_tree();
	test_scan();
	test_page();
	test_empty_and_missing();
	test_cut_run();
	return check_done("test_index");
}
