/* report.c - build, write (atomically, after every step) and read back the report document. */
#include "report/report.h"
#include "report/html.h"
#include "report/ocp.h"
#include "lib/json.h"
#include "lib/store.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ps_rfc3339(time_t t, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void ps_stamp(time_t t, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm);
}

json_object *ps_report_new(const char *plan, time_t created)
{
	json_object *r = json_object_new_object();
	char when[32];

	ps_rfc3339(created, when, sizeof(when));
	json_object_object_add(r, "schema_version", json_object_new_int(PS_SCHEMA_VERSION));
	json_object_object_add(r, "complete", json_object_new_boolean(0));
	json_object_object_add(r, "plan", json_object_new_string(plan));
	json_object_object_add(r, "created", json_object_new_string(when));
	json_object_object_add(r, "machine_id", json_object_new_string("unknown"));
	json_object_object_add(r, "warnings", json_object_new_array());
	json_object_object_add(r, "probestick", json_object_new_object());
	json_object_object_add(r, "machine", json_object_new_object());
	json_object_object_add(r, "pcie", json_object_new_array());
	json_object_object_add(r, "drives", json_object_new_array());
	json_object_object_add(r, "nics", json_object_new_array());
	json_object_object_add(r, "memory", json_object_new_object());
	json_object_object_add(r, "environment", NULL);
	json_object_object_add(r, "boot", NULL);
	json_object_object_add(r, "coldplug", NULL);
	json_object_object_add(r, "steps", json_object_new_array());
	return r;
}

const char *ps_report_json_text(json_object *report)
{
	/* Compact: a quick plan's report is a fifth of its pretty size, which counts on a
	 * nearly full stick; report.txt is the one people read, jq pretty-prints this. */
	return json_object_to_json_string_ext(report, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
}

#define FAILED_NOTE "WRITE-FAILED.txt"

/* A note small enough to fit where the report no longer does. */
static void failure_note(const char *dir, struct ps_report_files *st, const char *what, int err)
{
	char note[768];
	int n;

	n = snprintf(note, sizeof(note),
		     "probestick could not write %s in this folder: %s.\n"
		     "report.json holds %zu finished step%s (%s)%s.\n"
		     "Free some room on the stick (older reports) and run the plan again.\n",
		     what, strerror(-err), st->json_steps, st->json_steps == 1 ? "" : "s",
		     st->json_complete ? "complete" : "the run did not finish",
		     st->text_current ? "; report.txt says the same"
				      : "; report.txt is missing or older");
	st->note_written = ps_store_write(dir, FAILED_NOTE, note, (size_t)n) == 0;
}

/* Write text (malloc'd, freed here) as dir/name, or remove an older name: 0 or -errno. */
static int write_view(const char *dir, const char *name, char *text)
{
	char path[4096];
	int ret = text ? ps_store_write(dir, name, text, strlen(text)) : -ENOMEM;

	free(text);
	if (ret < 0) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (access(path, F_OK) == 0)
			ps_store_unlink(path);
	}
	return ret;
}

static int write_files(json_object *report, const char *dir, const struct ps_view_set *views,
		       struct ps_report_files *st)
{
	const char *json = ps_report_json_text(report);
	size_t jlen = strlen(json);
	char *withnl = malloc(jlen + 2), *text, path[4096];
	int ret;

	if (!withnl)
		return -ENOMEM;
	memcpy(withnl, json, jlen);
	withnl[jlen] = '\n';
	ret = ps_store_write(dir, "report.json", withnl, jlen + 1);
	free(withnl);
	st->json_err = ret;
	if (ret < 0) {
		/* report.txt stays as it was: it renders the report.json still on disk */
		failure_note(dir, st, "report.json", ret);
		return ret;
	}
	st->writes++;
	st->json_steps = ps_json_len(ps_json_arr(report, "steps"));
	st->json_complete = ps_json_bool(report, "complete") == 1;
	text = ps_report_text(report, views, 0);
	ret = ps_store_write(dir, "report.txt", text, strlen(text));
	free(text);
	st->text_err = ret;
	st->text_current = ret == 0;
	if (ret < 0) {
		snprintf(path, sizeof(path), "%s/report.txt", dir);
		ps_store_unlink(path); /* an older text would disagree with report.json */
		failure_note(dir, st, "report.txt", ret);
		return ret;
	}
	/* The views for browsers and test executives: removed rather than left stale. */
	st->html_err = write_view(dir, "report.html", ps_report_html(report, views));
	st->ocp_err = write_view(dir, "report.ocp.jsonl", ps_ocp_text(report, views));
	/* Both files agree again: an earlier failure note no longer describes them. */
	snprintf(path, sizeof(path), "%s/" FAILED_NOTE, dir);
	if (access(path, F_OK) == 0)
		ps_store_unlink(path);
	st->note_written = false;
	return 0;
}

int ps_report_write(json_object *report, const char *dir, const struct ps_view_set *views,
		    struct ps_report_files *st)
{
	/* One read-write window of the stick for all the files of this write; a stick
	 * that stays read-write after it is the caller's warning (ps_store_error). */
	int ret = ps_store_begin(dir);

	if (ret < 0) {
		st->json_err = ret;
		return ret;
	}
	ret = write_files(report, dir, views, st);
	ps_store_end(dir);
	return ret;
}

void ps_report_files_text(const struct ps_report_files *st, char *buf, size_t len)
{
	int err = st->json_err ? st->json_err : st->text_err ? st->text_err : -EIO;

	if (!st->writes)
		snprintf(buf, len, "nothing could be saved (%s)", strerror(-err));
	else if (st->json_complete && st->text_current && !st->html_err && !st->ocp_err)
		snprintf(buf, len,
			 "report.json, report.txt, report.html and report.ocp.jsonl, complete");
	else if (st->json_complete && st->text_current)
		snprintf(buf, len,
			 "report.json and report.txt, complete (%s could not be written: %s)",
			 st->html_err ? "report.html" : "report.ocp.jsonl",
			 strerror(-(st->html_err ? st->html_err : st->ocp_err)));
	else if (st->json_complete)
		snprintf(buf, len, "report.json, complete (report.txt could not be written: %s)",
			 strerror(-err));
	else
		snprintf(buf, len,
			 "report.json%s with %zu step%s only, marked incomplete: the last write "
			 "failed (%s)%s",
			 st->text_current ? " and report.txt" : "", st->json_steps,
			 st->json_steps == 1 ? "" : "s", strerror(-err),
			 st->note_written ? "; " FAILED_NOTE " says so" : "");
}

int ps_report_parse(const char *data, size_t len, json_object **report, char *err, size_t errlen)
{
	json_tokener *tok;
	json_object *r, *v;
	enum json_tokener_error jerr;
	size_t off;

	*report = NULL;
	if (len > INT_MAX) {
		snprintf(err, errlen, "is %zu bytes, far more than any report: not a report", len);
		return -EBADMSG;
	}
	tok = json_tokener_new();
	if (!tok) {
		snprintf(err, errlen, "cannot be read: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r = json_tokener_parse_ex(tok, data, (int)len);
	jerr = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!r || jerr != json_tokener_success) {
		snprintf(err, errlen,
			 "is not valid JSON (%s at byte %zu of %zu): the file is damaged or was "
			 "cut off; report.txt beside it may still be readable",
			 jerr == json_tokener_continue ? "unexpected end"
						       : json_tokener_error_desc(jerr),
			 off, len);
		json_object_put(r);
		return -EBADMSG;
	}
	while (off < len && isspace((unsigned char)data[off]))
		off++;
	if (off < len) {
		snprintf(err, errlen, "is damaged: extra data after the JSON document at byte %zu",
			 off);
		json_object_put(r);
		return -EBADMSG;
	}
	if (!json_object_is_type(r, json_type_object)) {
		snprintf(err, errlen, "is JSON but not a report (not an object)");
		json_object_put(r);
		return -EBADMSG;
	}
	v = ps_json_get(r, "schema_version");
	if (!v || !json_object_is_type(v, json_type_int)) {
		snprintf(err, errlen, "is not a probestick report (no schema_version)");
		json_object_put(r);
		return -EBADMSG;
	}
	if (json_object_get_int(v) < PS_SCHEMA_OLDEST ||
	    json_object_get_int(v) > PS_SCHEMA_VERSION) {
		snprintf(err, errlen,
			 "has schema_version %d; this probestick reads versions %d to %d: "
			 "use a newer probestick",
			 json_object_get_int(v), PS_SCHEMA_OLDEST, PS_SCHEMA_VERSION);
		json_object_put(r);
		return -EBADMSG;
	}
	*report = r;
	return 0;
}

int ps_report_load(const char *dir, json_object **report, char *err, size_t errlen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/report.json", dir);
	return ps_report_load_file(path, report, err, errlen);
}

int ps_report_load_file(const char *path, json_object **report, char *err, size_t errlen)
{
	char why[512];
	char *data;
	size_t len;
	int ret;

	*report = NULL;
	ret = ps_read_all(path, &data, &len);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = ps_report_parse(data, len, report, why, sizeof(why));
	free(data);
	if (ret < 0)
		snprintf(err, errlen, "%s %s", path, why);
	return ret;
}

/* Report folders are <stamp>-<plan>; the stamp sorts by time. */
bool ps_report_dir_name(const char *name)
{
	return strlen(name) > 17 && name[8] == 'T' && name[15] == 'Z' && name[16] == '-';
}

int ps_report_latest(const char *reports_root, char *dir, size_t len)
{
	DIR *top = opendir(reports_root);
	struct dirent *m;
	char best[NAME_MAX + 1] = "", best_dir[PATH_MAX + NAME_MAX + 2] = "";

	if (!top)
		return -errno;
	while ((m = readdir(top))) {
		char sub[PATH_MAX];
		DIR *d;
		struct dirent *e;

		if (m->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", reports_root, m->d_name);
		d = opendir(sub);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			if (!ps_report_dir_name(e->d_name) || strcmp(e->d_name, best) <= 0)
				continue;
			snprintf(best, sizeof(best), "%s", e->d_name);
			if (snprintf(best_dir, sizeof(best_dir), "%s/%s", sub, e->d_name) >=
			    (int)sizeof(best_dir))
				continue;
		}
		closedir(d);
	}
	closedir(top);
	if (!best_dir[0])
		return -ENOENT;
	snprintf(dir, len, "%s", best_dir);
	return 0;
}

int ps_report_resolve(const char *path, char *dir, size_t len)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/report.json", path);
	if (stat(p, &st) == 0) {
		snprintf(dir, len, "%s", path);
		return 0;
	}
	snprintf(p, sizeof(p), "%s/" FAILED_NOTE, path);
	if (stat(p, &st) == 0) {
		snprintf(dir, len, "%s", path);
		return 0;
	}
	snprintf(p, sizeof(p), "%s/reports", path);
	if (stat(p, &st) == 0 && S_ISDIR(st.st_mode) && ps_report_latest(p, dir, len) == 0)
		return 0;
	return ps_report_latest(path, dir, len);
}
