/* report.h - the report document (docs/report.md): build it, write it safely, read it back. */
#ifndef PS_REPORT_H
#define PS_REPORT_H

#include <json-c/json.h>
#include <stddef.h>
#include <time.h>

#define PS_SCHEMA_VERSION 1

/* A report skeleton: every top-level field present, unknowns null, complete=false. */
json_object *ps_report_new(const char *plan, time_t created);

/* "2026-11-29T20:37:08Z" for t. */
void ps_rfc3339(time_t t, char *buf, size_t len);

/* "20261129T203708Z" for t: the start of a report folder name. */
void ps_stamp(time_t t, char *buf, size_t len);

/* report.json and report.txt in dir, each atomically. 0 or -errno. */
int ps_report_write(json_object *report, const char *dir);

/* The report as JSON text (pretty, no escaped slashes). Owned by report. */
const char *ps_report_json_text(json_object *report);

/*
 * Read dir/report.json. 0 and *report, or -errno / -EBADMSG with err[]
 * saying what is wrong in words a user can act on.
 */
int ps_report_load(const char *dir, json_object **report, char *err, size_t errlen);

/* The newest report folder below a reports root (by its stamp). 0 or -ENOENT. */
int ps_report_latest(const char *reports_root, char *dir, size_t len);

/* Report text rendering flags. */
#define PS_TEXT_INVENTORY 1U /* machine and hardware tables only (probestick info) */

/* Render the report as text for an 80-column console; malloc'd, never NULL. */
char *ps_report_text(json_object *report, unsigned int flags);

/* Lookup helpers tolerant of missing keys and wrong types. */
json_object *ps_json_get(json_object *obj, const char *key);
const char *ps_json_str(json_object *obj, const char *key); /* NULL when not a string */
int ps_json_has_num(json_object *obj, const char *key);

#endif
