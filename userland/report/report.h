/* report.h - the report document (docs/report.md): build it, write it safely, read it back. */
#ifndef PS_REPORT_H
#define PS_REPORT_H

#include "lib/json.h"
#include "report/view.h"

#include <json-c/json.h>
#include <stddef.h>
#include <time.h>

/* 2: findings carry rule, device, value, limit and unit; steps carry verdicts,
 * data_version and kmsg; per-CPU interrupt figures count handled and unhandled
 * calls alike. Readers also read version 1. */
#define PS_SCHEMA_VERSION 2
#define PS_SCHEMA_OLDEST  1

/* A report skeleton: every top-level field present, unknowns null, complete=false. */
json_object *ps_report_new(const char *plan, time_t created);

/* "2026-11-29T20:37:08Z" for t. */
void ps_rfc3339(time_t t, char *buf, size_t len);

/* "20261129T203708Z" for t: the start of a report folder name. */
void ps_stamp(time_t t, char *buf, size_t len);

/* What is on the stick after the writes so far: which files hold which record. */
struct ps_report_files {
	int json_err;	     /* the last write of report.json: 0 or -errno */
	int text_err;	     /* the last write of report.txt */
	unsigned int writes; /* successful writes of report.json */
	size_t json_steps;   /* steps in the report.json on disk */
	bool json_complete;  /* the report.json on disk says complete: true */
	bool text_current;   /* report.txt on disk renders that report.json */
	bool note_written;   /* WRITE-FAILED.txt says what failed (it may not fit either) */
	int html_err;	     /* the last write of report.html: 0 or -errno (then it is removed) */
	int ocp_err;	     /* the last write of report.ocp.jsonl: 0 or -errno (removed too) */
};

/*
 * Something that follows the report folder as the plan runner (core/plan.h)
 * writes it: the fleet's collector (collect/). Both calls come from the
 * runner's thread, only once the folder exists (dir).
 */
struct ps_report_sink {
	void *arg;
	/* Just before each write: the sink may set its own top-level member. */
	void (*annotate)(void *arg, json_object *report, const char *dir);
	/* Just after each write: dir holds what was written (complete: the last write). */
	void (*written)(void *arg, json_object *report, const char *dir);
};

/*
 * report.json, then report.txt, report.html and report.ocp.jsonl rendered
 * from the same document, each atomically. When report.json cannot be
 * written, the others are left as they were (all still agree on what
 * completed) and a short WRITE-FAILED.txt says what happened; when one of
 * the others cannot be written, its old copy is removed rather than left to
 * disagree. 0 or the -errno of report.json or report.txt; report.html and
 * report.ocp.jsonl are views for other readers: their errors are only in
 * files->html_err and files->ocp_err.
 */
int ps_report_write(json_object *report, const char *dir, const struct ps_view_set *views,
		    struct ps_report_files *files);

/* "report.json and report.txt (complete)": what the summary screen says of files. */
void ps_report_files_text(const struct ps_report_files *files, char *buf, size_t len);

/* The report as JSON text (pretty, no escaped slashes). Owned by report. */
const char *ps_report_json_text(json_object *report);

/*
 * The text of a report.json (len bytes, need not be NUL-terminated): 0 and
 * *report, or -EBADMSG (-ENOMEM) with err[] saying what is wrong with it,
 * worded to follow the file's name ("is not valid JSON (...)").
 */
int ps_report_parse(const char *data, size_t len, json_object **report, char *err, size_t errlen);

/*
 * Read dir/report.json through ps_report_parse. 0 and *report, or -errno /
 * -EBADMSG with err[] saying what is wrong in words a user can act on.
 */
int ps_report_load(const char *dir, json_object **report, char *err, size_t errlen);

/* The same for a report file by its path (a temporary file left by a cut write). */
int ps_report_load_file(const char *path, json_object **report, char *err, size_t errlen);

/* A run folder's name: "<YYYYmmddTHHMMSSZ>-<plan>[-N]". */
bool ps_report_dir_name(const char *name);

/* The newest report folder below a reports root (by its stamp). 0 or -ENOENT. */
int ps_report_latest(const char *reports_root, char *dir, size_t len);

/*
 * The report folder a person means by path: a run folder (it holds
 * report.json or WRITE-FAILED.txt), a reports root (its newest run), or the
 * stick's root (the newest run in its reports/). 0 or -ENOENT.
 */
int ps_report_resolve(const char *path, char *dir, size_t len);

/* Report text rendering flags. */
#define PS_TEXT_INVENTORY 1U /* machine and hardware tables only (probestick info) */
#define PS_TEXT_VERDICTS  2U /* the verdict block alone (the end-of-plan summary screen) */

/* The first line of report.txt for this report ("probestick report: plan quick, complete"). */
void ps_report_title(json_object *report, char *buf, size_t len);

/*
 * Before a boot's own plan: every run below reports_root whose report says
 * complete: false was cut off (nothing else runs a plan now): its report
 * gets interrupted{} (the step it stopped in, why: power_lost when another
 * boot wrote it, stopped when this one did; when found) and report.txt is
 * rendered again. A temporary file a cut write left is removed, or becomes
 * report.json when that one is missing or damaged and the temporary file
 * holds a whole report; a report.txt that no longer renders its report.json
 * (a cut between the two writes) is rendered again. Writes go through the
 * stick store. Returns what was done, [{action, path, message}], never NULL.
 */
json_object *ps_reports_recover(const char *reports_root, const char *boot_id, time_t now,
				const struct ps_view_set *views);

/* Render the report as text for an 80-column console, through views; malloc'd, never NULL. */
char *ps_report_text(json_object *report, const struct ps_view_set *views, unsigned int flags);

struct ps_doc;
char *ps_render_text(const struct ps_doc *doc, unsigned int flags);

#endif
