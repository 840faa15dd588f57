/* report.c - build, write (atomically, after every step) and read back the report document. */
#include "report.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	json_object_object_add(r, "coldplug", NULL);
	json_object_object_add(r, "steps", json_object_new_array());
	return r;
}

const char *ps_report_json_text(json_object *report)
{
	return json_object_to_json_string_ext(report, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_SPACED |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
}

int ps_report_write(json_object *report, const char *dir)
{
	const char *json = ps_report_json_text(report);
	char *text;
	size_t jlen = strlen(json);
	int ret, ret2;
	char *withnl = malloc(jlen + 2);

	if (!withnl)
		return -ENOMEM;
	memcpy(withnl, json, jlen);
	withnl[jlen] = '\n';
	ret = ps_write_atomic(dir, "report.json", withnl, jlen + 1);
	free(withnl);
	text = ps_report_text(report, 0);
	ret2 = ps_write_atomic(dir, "report.txt", text, strlen(text));
	free(text);
	return ret ? ret : ret2;
}

int ps_report_load(const char *dir, json_object **report, char *err, size_t errlen)
{
	char path[PATH_MAX];
	char *data;
	size_t len;
	int ret;
	json_tokener *tok;
	json_object *r, *v;
	enum json_tokener_error jerr;
	size_t off;

	*report = NULL;
	snprintf(path, sizeof(path), "%s/report.json", dir);
	ret = ps_read_all(path, &data, &len);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	tok = json_tokener_new();
	if (!tok) {
		free(data);
		return -ENOMEM;
	}
	r = json_tokener_parse_ex(tok, data, (int)len);
	jerr = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!r || jerr != json_tokener_success) {
		snprintf(err, errlen,
			 "%s is not valid JSON (%s at byte %zu of %zu): the file is damaged or was "
			 "cut off; report.txt beside it may still be readable",
			 path,
			 jerr == json_tokener_continue ? "unexpected end"
						       : json_tokener_error_desc(jerr),
			 off, len);
		json_object_put(r);
		free(data);
		return -EBADMSG;
	}
	while (off < len && isspace((unsigned char)data[off]))
		off++;
	free(data);
	if (off < len) {
		snprintf(err, errlen,
			 "%s is damaged: extra data after the JSON document at byte %zu", path,
			 off);
		json_object_put(r);
		return -EBADMSG;
	}
	if (!json_object_is_type(r, json_type_object)) {
		snprintf(err, errlen, "%s is JSON but not a report (not an object)", path);
		json_object_put(r);
		return -EBADMSG;
	}
	v = ps_json_get(r, "schema_version");
	if (!v || !json_object_is_type(v, json_type_int)) {
		snprintf(err, errlen, "%s is not a probestick report (no schema_version)", path);
		json_object_put(r);
		return -EBADMSG;
	}
	if (json_object_get_int(v) != PS_SCHEMA_VERSION) {
		snprintf(err, errlen,
			 "%s has schema_version %d; this probestick reads version %d: use a "
			 "matching probestick",
			 path, json_object_get_int(v), PS_SCHEMA_VERSION);
		json_object_put(r);
		return -EBADMSG;
	}
	*report = r;
	return 0;
}

/* Report folders are <stamp>-<plan>; the stamp sorts by time. */
static int is_report_dir_name(const char *name)
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
			if (!is_report_dir_name(e->d_name) || strcmp(e->d_name, best) <= 0)
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

json_object *ps_json_get(json_object *obj, const char *key)
{
	json_object *v;

	if (!obj || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

const char *ps_json_str(json_object *obj, const char *key)
{
	json_object *v = ps_json_get(obj, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int ps_json_has_num(json_object *obj, const char *key)
{
	json_object *v = ps_json_get(obj, key);

	return v &&
	       (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}
