/*
 * json.h - the one set of JSON helpers in probestick: lookups that tolerate
 * missing keys and wrong types (a report from another version, a damaged
 * file), and constructors that keep the report's rules: unknown is null,
 * every string is valid UTF-8 with its control bytes escaped.
 */
#ifndef PS_REPORT_JSON_H
#define PS_REPORT_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- lookups: NULL / false / -1 when the member is missing or of another type ---- */

/* Member key of an object. */
json_object *ps_json_get(json_object *obj, const char *key);
/* RFC 6901 pointer below obj ("/drives/0/name"; "" is obj itself). */
json_object *ps_json_ptr(json_object *obj, const char *pointer);
/* String member. */
const char *ps_json_str(json_object *obj, const char *key);
/* String member, or dflt when missing, null or empty. */
const char *ps_json_str_or(json_object *obj, const char *key, const char *dflt);
/* Number member (int or double): true and *v. */
bool ps_json_num(json_object *obj, const char *key, double *v);
bool ps_json_int(json_object *obj, const char *key, int64_t *v);
/* A number value itself (not a member). */
bool ps_json_as_num(json_object *v, double *out);
/* Boolean member: 1, 0, or -1 when null or missing. */
int ps_json_bool(json_object *obj, const char *key);
/* Array member, or NULL. */
json_object *ps_json_arr(json_object *obj, const char *key);
/* Length of an array, 0 for NULL or a non-array. */
size_t ps_json_len(json_object *arr);
/* Element i of an array, NULL out of range. */
json_object *ps_json_at(json_object *arr, size_t i);

/* ---- constructors ---- */

/* A string, or null for NULL and "". Invalid UTF-8 becomes U+FFFD, control bytes "\xNN". */
json_object *ps_json_new_str(const char *s);
json_object *ps_json_new_strn(const char *s, size_t n);
/* A count or size: null when v < 0 (the probes' "unknown"). */
json_object *ps_json_new_count(int64_t v);
/* A measured figure rounded to decimals, whose text form stays short (941.2, not
 * 941.20000000000005); null when v is NaN. */
json_object *ps_json_new_num(double v, int decimals);
/* true, false, or null for a negative tri-state. */
json_object *ps_json_new_tri(int v);

/* obj[key] = v (v may be NULL: a JSON null). Replaces an existing member. */
void ps_json_set(json_object *obj, const char *key, json_object *v);
void ps_json_set_str(json_object *obj, const char *key, const char *s);
void ps_json_set_count(json_object *obj, const char *key, int64_t v);
void ps_json_set_num(json_object *obj, const char *key, double v, int decimals);
void ps_json_set_tri(json_object *obj, const char *key, int v);
/* obj[key] = the trimmed text of the file at path, or null; returns its length or -errno. */
int ps_json_set_file(json_object *obj, const char *key, const char *path);
/* obj[key] as an empty object / array, created or emptied; returned. */
json_object *ps_json_reset_obj(json_object *obj, const char *key);
json_object *ps_json_reset_arr(json_object *obj, const char *key);

/* ---- text safety (also used for what the console prints) ---- */

/*
 * Copy n bytes of s to out (room outlen, always NUL-terminated): invalid
 * UTF-8 sequences become U+FFFD, and C0 controls other than those in keep
 * (e.g. "\n\t"; NULL: none) and DEL become the four characters "\xNN".
 * Returns the length written (truncated at a character boundary).
 */
size_t ps_text_clean(const char *s, size_t n, const char *keep, char *out, size_t outlen);
/* The same into a malloc'd string (NULL only when out of memory). */
char *ps_text_clean_dup(const char *s, size_t n, const char *keep);

/*
 * Make a parsed document keep the report's rule for strings (what
 * ps_json_new_strn does to one string: invalid UTF-8 U+FFFD, control
 * bytes but newline and tab "\xNN", the text cut at a NUL), in every
 * string and member name of the tree, in place; for JSON another
 * program printed (smartctl's) that a report keeps.
 */
void ps_json_clean_tree(json_object *o);

/* A small JSON file holding an object, parsed; NULL when missing or not an object. */
json_object *ps_json_read_file(const char *path);

#endif
