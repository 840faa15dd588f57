/* test_recover.c - what a boot does with the runs on the stick before its plan:
 * cut-off runs marked (power lost, program ended, unknown), temporary files of
 * cut writes removed or promoted, a report.txt one write behind rendered again,
 * finished runs left byte for byte, and nothing done twice. */
#include "check.h"
#include "report/report.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[PATH_MAX];

static void run_dir(const char *run, char *dir, size_t len)
{
	snprintf(dir, len, "%s/m1/%s", root, run);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
}

static json_object *report(bool complete, const char *running, const char *boot_id)
{
	json_object *r = ps_report_new("quick", 1796115148);
	json_object *step = json_object_new_object();

	ps_json_set_str(step, "name", "inventory");
	ps_json_set_str(step, "status", "pass");
	json_object_array_add(ps_json_get(r, "steps"), step);
	ps_json_set(r, "complete", json_object_new_boolean(complete));
	if (running)
		ps_json_set_str(r, "running_step", running);
	if (boot_id)
		ps_json_set_str(ps_json_get(r, "probestick"), "boot_id", boot_id);
	return r;
}

static void put(const char *run, json_object *r)
{
	char dir[PATH_MAX + 64];
	struct ps_report_files files = {0};

	run_dir(run, dir, sizeof(dir));
	CHECK_INT(ps_report_write(r, dir, NULL, &files), 0);
	json_object_put(r);
}

static char *file(const char *run, const char *name)
{
	char path[PATH_MAX + 128], *data = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/m1/%s/%s", root, run, name);
	return ps_read_all(path, &data, &len) == 0 ? data : NULL;
}

static void put_file(const char *run, const char *name, const char *text)
{
	char dir[PATH_MAX + 64];

	run_dir(run, dir, sizeof(dir));
	CHECK_INT(ps_write_atomic(dir, name, text, strlen(text)), 0);
}

static json_object *load(const char *run)
{
	char dir[PATH_MAX + 64], err[PATH_MAX + 300];
	json_object *r = NULL;

	snprintf(dir, sizeof(dir), "%s/m1/%s", root, run);
	ps_report_load(dir, &r, err, sizeof(err));
	return r;
}

/* The entry of done for path and action, or NULL. */
static json_object *did(json_object *done, const char *run, const char *action)
{
	char path[256];

	snprintf(path, sizeof(path), "m1/%s", run);
	for (size_t i = 0; i < ps_json_len(done); i++) {
		json_object *o = ps_json_at(done, i);

		if (strcmp(ps_json_str_or(o, "path", ""), path) == 0 &&
		    strcmp(ps_json_str_or(o, "action", ""), action) == 0)
			return o;
	}
	return NULL;
}

#define R_DONE	"20261201T080000Z-quick"
#define R_POWER "20261201T081000Z-quick"
#define R_SAME	"20261201T082000Z-quick"
#define R_OLD	"20261201T083000Z-quick"
#define R_TMP	"20261201T084000Z-quick"
#define R_LEFT	"20261201T085000Z-quick"
#define R_TEXT	"20261201T086000Z-quick"
#define R_BAD	"20261201T087000Z-quick"

int main(void)
{
	char *before_json, *before_txt, *s;
	json_object *done, *r, *cut;

	snprintf(root, sizeof(root), "/tmp/ps-test-recover-%d", (int)getpid());
	put(R_DONE, report(true, NULL, "boot-1"));
	put(R_POWER, report(false, "nic_tput", "boot-1"));
	put(R_SAME, report(false, "disk_seq", "boot-2"));
	put(R_OLD, report(false, NULL, NULL));
	/* a cut during the first write: no report.json yet, the whole new one in the tmp */
	{
		json_object *t = report(false, "disk_seq", "boot-1");

		put_file(R_TMP, ".report.json.tmp", ps_report_json_text(t));
		json_object_put(t);
	}
	/* temporary files left beside a finished run; one of them cut short */
	put(R_LEFT, report(true, NULL, "boot-1"));
	put_file(R_LEFT, ".report.json.tmp", "{\"schema_version\":2,\"comp");
	put_file(R_LEFT, ".report.txt.tmp", "probestick report: plan quick, INCOMP");
	/* a cut between report.json and report.txt: the text one step behind */
	put(R_TEXT, report(true, NULL, "boot-1"));
	put_file(R_TEXT, "report.txt",
		 "probestick report: plan quick, INCOMPLETE: stopped during "
		 "nic_tput\nold text\n");
	put_file(R_BAD, "report.json", "{\"schema_version\":2,\"complete\":fal");
	before_json = file(R_DONE, "report.json");
	before_txt = file(R_DONE, "report.txt");

	done = ps_reports_recover(root, "boot-2", 1796118748, NULL);

	/* finished: not touched */
	s = file(R_DONE, "report.json");
	CHECK_STR(s, before_json);
	free(s);
	s = file(R_DONE, "report.txt");
	CHECK_STR(s, before_txt);
	free(s);
	CHECK(!did(done, R_DONE, "marked") && !did(done, R_DONE, "text_rendered"));

	/* another boot wrote it: the power was lost */
	r = load(R_POWER);
	cut = ps_json_get(r, "interrupted");
	CHECK_STR(ps_json_str(cut, "during"), "nic_tput");
	CHECK_STR(ps_json_str(cut, "cause"), "power_lost");
	CHECK_STR(ps_json_str(cut, "found"), "2026-12-01T09:52:28Z");
	CHECK(strstr(ps_json_str_or(cut, "message", ""), "power was lost") != NULL);
	CHECK_INT(ps_json_bool(r, "complete"), 0);
	json_object_put(r);
	s = file(R_POWER, "report.txt");
	CHECK(s && strncmp(s,
			   "probestick report: plan quick, INCOMPLETE: stopped during nic_tput "
			   "(power lost)\ncut off: the run stopped during nic_tput: the power",
			   120) == 0);
	free(s);
	CHECK(did(done, R_POWER, "marked") != NULL);

	/* this boot wrote it: probestick ended, the machine did not */
	r = load(R_SAME);
	CHECK_STR(ps_json_str(ps_json_get(r, "interrupted"), "cause"), "stopped");
	json_object_put(r);
	s = file(R_SAME, "report.txt");
	CHECK(s && strstr(s, "stopped during disk_seq (probestick ended)") != NULL);
	free(s);

	/* no boot id, no running step: why is unknown, and said so */
	r = load(R_OLD);
	cut = ps_json_get(r, "interrupted");
	CHECK(cut && !ps_json_str(cut, "cause") && !ps_json_str(cut, "during"));
	CHECK(json_object_object_get_ex(cut, "cause", NULL)); /* null, not absent */
	CHECK(strstr(ps_json_str_or(cut, "message", ""), "why is not known") != NULL);
	json_object_put(r);

	/* the whole report in the tmp becomes report.json, then is marked */
	r = load(R_TMP);
	CHECK(r && ps_json_get(r, "interrupted"));
	json_object_put(r);
	CHECK(did(done, R_TMP, "promoted") != NULL);
	s = file(R_TMP, ".report.json.tmp");
	CHECK(s == NULL);
	free(s);
	s = file(R_TMP, "report.txt");
	CHECK(s != NULL);
	free(s);

	/* leftovers removed, the finished report as it was */
	s = file(R_LEFT, ".report.json.tmp");
	CHECK(s == NULL);
	free(s);
	s = file(R_LEFT, ".report.txt.tmp");
	CHECK(s == NULL);
	free(s);
	CHECK(did(done, R_LEFT, "removed") != NULL);
	r = load(R_LEFT);
	CHECK(r && !ps_json_get(r, "interrupted"));
	json_object_put(r);

	/* report.txt one write behind: rendered again from report.json */
	s = file(R_TEXT, "report.txt");
	CHECK(s && strncmp(s, "probestick report: plan quick, complete\n", 40) == 0);
	free(s);
	CHECK(did(done, R_TEXT, "text_rendered") != NULL);

	/* damaged with nothing to recover it from: said, left alone */
	CHECK(did(done, R_BAD, "damaged") != NULL);
	s = file(R_BAD, "report.json");
	CHECK_STR(s, "{\"schema_version\":2,\"complete\":fal");
	free(s);
	json_object_put(done);

	/* a second boot finds nothing more to do but the damaged report */
	done = ps_reports_recover(root, "boot-3", 1796122348, NULL);
	CHECK_INT(ps_json_len(done), 1);
	CHECK(did(done, R_BAD, "damaged") != NULL);
	r = load(R_POWER);
	CHECK_STR(ps_json_str(ps_json_get(r, "interrupted"), "found"), "2026-12-01T09:52:28Z");
	json_object_put(r);
	json_object_put(done);

	free(before_json);
	free(before_txt);
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		CHECK_INT(system(cmd), 0);
	}
	return check_done("test_recover");
}
