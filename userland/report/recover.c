/*
 * recover.c - what a boot does with the runs already on the stick before its
 * own plan starts: mark the runs that were cut off, render their text again,
 * and settle the temporary files a cut write left behind. Every change goes
 * through the stick store; a run that ended well is never touched.
 */
#include "report/report.h"
#include "lib/json.h"
#include "lib/store.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void record(json_object *done, const char *action, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void record(json_object *done, const char *action, const char *path, const char *fmt, ...)
{
	json_object *o = json_object_new_object();
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ps_json_set_str(o, "action", action);
	ps_json_set_str(o, "path", path);
	ps_json_set_str(o, "message", msg);
	json_object_array_add(done, o);
}

/* Report folders are <stamp>-<plan>; the stamp sorts by time. */
static bool is_run_dir_name(const char *name)
{
	return strlen(name) > 17 && name[8] == 'T' && name[15] == 'Z' && name[16] == '-';
}

/* Why the run did not finish, from the boot that wrote it and the one reading it. */
static const char *cut_cause(json_object *report, const char *boot_id)
{
	const char *then = ps_json_str(ps_json_get(report, "probestick"), "boot_id");

	if (!then || !boot_id || !*boot_id)
		return NULL;
	return strcmp(then, boot_id) == 0 ? "stopped" : "power_lost";
}

static void mark_cut(json_object *report, const char *boot_id, time_t now)
{
	json_object *cut = json_object_new_object();
	const char *during = ps_json_str(report, "running_step");
	const char *cause = cut_cause(report, boot_id);
	char when[32], msg[512], at[160];

	ps_rfc3339(now, when, sizeof(when));
	if (during)
		snprintf(at, sizeof(at), "during %s", during);
	else
		snprintf(at, sizeof(at), "after its last saved step");
	if (!cause)
		snprintf(msg, sizeof(msg),
			 "the run stopped %s and did not finish; its report does not say which "
			 "boot wrote it, so why is not known",
			 at);
	else if (strcmp(cause, "power_lost") == 0)
		snprintf(msg, sizeof(msg),
			 "the run stopped %s: the power was lost or the machine was reset before "
			 "the plan ended (a later boot found it)",
			 at);
	else
		snprintf(msg, sizeof(msg),
			 "the run stopped %s: probestick ended (crashed or was killed) before the "
			 "plan did, in the same boot",
			 at);
	ps_json_set_str(cut, "during", during);
	ps_json_set_str(cut, "cause", cause);
	ps_json_set_str(cut, "found", when);
	ps_json_set_str(cut, "message", msg);
	ps_json_set(report, "interrupted", cut);
}

/* The first line of a file, or "" (report.txt's first line says complete or not). */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
}

/*
 * report.txt renders report.json; a cut between the two writes leaves the
 * text one step behind (or missing). Only the first line is compared (it
 * says complete, or where the run stopped), so the text of a run from an
 * older probestick stays as it was.
 */
static void settle_text(json_object *report, const char *dir, const char *rel,
			const struct ps_view_set *views, json_object *done)
{
	char path[PATH_MAX], have[512], want[512];
	size_t n;
	char *text;
	int ret;

	if (snprintf(path, sizeof(path), "%s/report.txt", dir) >= (int)sizeof(path))
		return;
	first_line(path, have, sizeof(have));
	n = strlen(have);
	if (n && have[n - 1] == '\n')
		have[--n] = '\0';
	ps_report_title(report, want, sizeof(want));
	if (strcmp(have, want) == 0)
		return;
	text = ps_report_text(report, views, 0);
	ret = ps_store_write(dir, "report.txt", text, strlen(text));
	free(text);
	if (ret == 0)
		record(done, "text_rendered", rel,
		       "report.txt did not render report.json (a write was cut between them): "
		       "rendered again");
	else
		record(done, "failed", rel, "report.txt could not be rendered again: %s",
		       strerror(-ret));
}

/* A whole report left in .report.json.tmp where report.json is missing or damaged. */
static json_object *promote_tmp(const char *dir, const char *rel, json_object *done)
{
	char tmp[PATH_MAX], err[PATH_MAX + 300];
	char *data;
	size_t len;
	json_object *r;

	if (snprintf(tmp, sizeof(tmp), "%s/.report.json.tmp", dir) >= (int)sizeof(tmp))
		return NULL;
	if (ps_report_load_file(tmp, &r, err, sizeof(err)) < 0)
		return NULL;
	if (ps_read_all(tmp, &data, &len) < 0) {
		json_object_put(r);
		return NULL;
	}
	if (ps_store_write(dir, "report.json", data, len) == 0) {
		record(done, "promoted", rel,
		       "report.json was missing or damaged and the write cut off had left the "
		       "whole new report in .report.json.tmp: it is report.json now");
		ps_store_unlink(tmp);
	} else {
		json_object_put(r);
		r = NULL;
	}
	free(data);
	return r;
}

/* Temporary files of writes that were cut off: never a report anyone reads. */
static void remove_tmps(const char *dir, const char *rel, json_object *done)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char names[32][NAME_MAX + 1];
	size_t n = 0;

	if (!d)
		return;
	while ((e = readdir(d)) && n < PS_ARRAY_SIZE(names)) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' && len > 5 && strcmp(e->d_name + len - 4, ".tmp") == 0)
			snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		int ret;

		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path))
			continue;
		ret = ps_store_unlink(path);
		if (ret == 0)
			record(done, "removed", rel,
			       "removed %s, the temporary file of a write that was cut off",
			       names[i]);
		else
			record(done, "failed", rel, "could not remove %s: %s", names[i],
			       strerror(-ret));
	}
}

static void recover_run(const char *dir, const char *rel, const char *boot_id, time_t now,
			const struct ps_view_set *views, json_object *done)
{
	char err[PATH_MAX + 300];
	json_object *r = NULL;
	int ret = ps_report_load(dir, &r, err, sizeof(err));

	if (ret < 0)
		r = promote_tmp(dir, rel, done);
	remove_tmps(dir, rel, done);
	if (!r) {
		if (ret != -ENOENT)
			record(done, "damaged", rel, "%s", err);
		return;
	}
	if (ps_json_bool(r, "complete") != 1 && !ps_json_get(r, "interrupted")) {
		struct ps_report_files files = {0};

		mark_cut(r, boot_id, now);
		ret = ps_report_write(r, dir, views, &files);
		if (ret == 0)
			record(done, "marked", rel, "%s",
			       ps_json_str_or(ps_json_get(r, "interrupted"), "message", ""));
		else
			record(done, "failed", rel, "the cut-off run could not be marked: %s",
			       strerror(-ret));
	} else {
		settle_text(r, dir, rel, views, done);
	}
	json_object_put(r);
}

json_object *ps_reports_recover(const char *reports_root, const char *boot_id, time_t now,
				const struct ps_view_set *views)
{
	json_object *done = json_object_new_array();
	DIR *top = opendir(reports_root);
	struct dirent *m;

	if (!top)
		return done;
	while ((m = readdir(top))) {
		char sub[PATH_MAX];
		DIR *d;
		struct dirent *e;

		if (m->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", reports_root, m->d_name) >=
		    (int)sizeof(sub))
			continue;
		d = opendir(sub);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			char dir[PATH_MAX], rel[2 * NAME_MAX + 2];

			if (!is_run_dir_name(e->d_name) ||
			    snprintf(dir, sizeof(dir), "%s/%s", sub, e->d_name) >= (int)sizeof(dir))
				continue;
			snprintf(rel, sizeof(rel), "%s/%s", m->d_name, e->d_name);
			recover_run(dir, rel, boot_id, now, views, done);
		}
		closedir(d);
	}
	closedir(top);
	return done;
}
