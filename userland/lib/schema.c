/* schema.c - a JSON Schema subset checked in C, and member lookup for views (schema.h). Pure. */
#include "lib/schema.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static bool type_is(json_object *doc, const char *t)
{
	enum json_type jt = json_object_get_type(doc);

	if (strcmp(t, "null") == 0)
		return jt == json_type_null;
	if (strcmp(t, "boolean") == 0)
		return jt == json_type_boolean;
	if (strcmp(t, "object") == 0)
		return jt == json_type_object;
	if (strcmp(t, "array") == 0)
		return jt == json_type_array;
	if (strcmp(t, "string") == 0)
		return jt == json_type_string;
	if (strcmp(t, "integer") == 0)
		return jt == json_type_int ||
		       (jt == json_type_double &&
			json_object_get_double(doc) == floor(json_object_get_double(doc)));
	if (strcmp(t, "number") == 0)
		return jt == json_type_int || jt == json_type_double;
	return true; /* a type this subset does not know: not judged */
}

static bool type_ok(json_object *type, json_object *doc)
{
	if (json_object_is_type(type, json_type_string))
		return type_is(doc, json_object_get_string(type));
	if (!json_object_is_type(type, json_type_array))
		return true;
	for (size_t i = 0; i < json_object_array_length(type); i++) {
		json_object *t = json_object_array_get_idx(type, i);

		if (json_object_is_type(t, json_type_string) &&
		    type_is(doc, json_object_get_string(t)))
			return true;
	}
	return false;
}

static bool equal(json_object *a, json_object *b)
{
	return json_object_equal(a, b) == 1;
}

static int fail(char *why, size_t whylen, const char *at, const char *what, json_object *doc)
{
	snprintf(why, whylen, "%s: %s (%.80s)", at[0] ? at : "/", what,
		 doc ? json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN) : "null");
	return -EINVAL;
}

static int check(json_object *s, json_object *doc, char *at, size_t atlen, char *why,
		 size_t whylen);

static int check_object(json_object *s, json_object *doc, char *at, size_t atlen, char *why,
			size_t whylen)
{
	json_object *props = NULL, *req = NULL, *extra = NULL;
	size_t len = strlen(at);
	int ret;

	json_object_object_get_ex(s, "properties", &props);
	json_object_object_get_ex(s, "required", &req);
	json_object_object_get_ex(s, "additionalProperties", &extra);
	for (size_t i = 0; req && i < json_object_array_length(req); i++) {
		const char *k = json_object_get_string(json_object_array_get_idx(req, i));

		if (k && !json_object_object_get_ex(doc, k, NULL)) {
			snprintf(at + len, atlen - len, "/%s", k);
			return fail(why, whylen, at, "a required member is missing", NULL);
		}
	}
	json_object_object_foreach(doc, key, val)
	{
		json_object *sub = NULL;

		snprintf(at + len, atlen - len, "/%s", key);
		if (props && json_object_object_get_ex(props, key, &sub))
			ret = check(sub, val, at, atlen, why, whylen);
		else if (extra && json_object_is_type(extra, json_type_boolean) &&
			 !json_object_get_boolean(extra))
			return fail(why, whylen, at, "a member the schema does not name", val);
		else if (extra && json_object_is_type(extra, json_type_object))
			ret = check(extra, val, at, atlen, why, whylen);
		else
			ret = 0;
		if (ret < 0)
			return ret;
	}
	at[len] = '\0';
	return 0;
}

static int check(json_object *s, json_object *doc, char *at, size_t atlen, char *why, size_t whylen)
{
	json_object *v;
	size_t len = strlen(at);

	if (!json_object_is_type(s, json_type_object))
		return 0; /* true, or a schema this subset does not read */
	if ((json_object_object_get_ex(s, "anyOf", &v) ||
	     json_object_object_get_ex(s, "oneOf", &v)) &&
	    json_object_is_type(v, json_type_array)) {
		bool any = false;
		char sub[256];

		for (size_t i = 0; i < json_object_array_length(v) && !any; i++) {
			snprintf(sub, sizeof(sub), "%s", at);
			any = check(json_object_array_get_idx(v, i), doc, sub, sizeof(sub), why,
				    whylen) == 0;
		}
		if (!any)
			return fail(why, whylen, at, "matches none of its alternatives", doc);
	}
	if (json_object_object_get_ex(s, "type", &v) && !type_ok(v, doc))
		return fail(why, whylen, at, "not of the schema's type", doc);
	if (json_object_object_get_ex(s, "const", &v) && !equal(v, doc))
		return fail(why, whylen, at, "not the schema's constant", doc);
	if (json_object_object_get_ex(s, "enum", &v) && json_object_is_type(v, json_type_array)) {
		bool in = false;

		for (size_t i = 0; i < json_object_array_length(v) && !in; i++)
			in = equal(json_object_array_get_idx(v, i), doc);
		if (!in)
			return fail(why, whylen, at, "not one of the schema's values", doc);
	}
	if (json_object_is_type(doc, json_type_int) || json_object_is_type(doc, json_type_double)) {
		double d = json_object_get_double(doc);

		if (json_object_object_get_ex(s, "minimum", &v) && d < json_object_get_double(v))
			return fail(why, whylen, at, "below the schema's minimum", doc);
		if (json_object_object_get_ex(s, "maximum", &v) && d > json_object_get_double(v))
			return fail(why, whylen, at, "above the schema's maximum", doc);
	}
	if (json_object_is_type(doc, json_type_object))
		return check_object(s, doc, at, atlen, why, whylen);
	if (json_object_is_type(doc, json_type_array) &&
	    json_object_object_get_ex(s, "items", &v)) {
		for (size_t i = 0; i < json_object_array_length(doc); i++) {
			int ret;

			snprintf(at + len, atlen - len, "/%zu", i);
			ret = check(v, json_object_array_get_idx(doc, i), at, atlen, why, whylen);
			if (ret < 0)
				return ret;
		}
		at[len] = '\0';
	}
	return 0;
}

int ps_schema_check(json_object *schema, json_object *doc, char *why, size_t whylen)
{
	char at[256] = "";

	return check(schema, doc, at, sizeof(at), why, whylen);
}

json_object *ps_schema_items(json_object *schema)
{
	json_object *items;

	if (json_object_object_get_ex(schema, "items", &items))
		return items;
	return schema;
}

/* Does the object schema s forbid members it does not list? */
static bool strict(json_object *s)
{
	json_object *extra;

	return json_object_object_get_ex(s, "additionalProperties", &extra) &&
	       json_object_is_type(extra, json_type_boolean) && !json_object_get_boolean(extra);
}

static json_object *member(json_object *s, const char *key, bool *open)
{
	json_object *props, *v, *alt;

	if (!json_object_is_type(s, json_type_object)) {
		*open = true;
		return NULL;
	}
	if (json_object_object_get_ex(s, "properties", &props) &&
	    json_object_object_get_ex(props, key, &v))
		return v;
	if ((json_object_object_get_ex(s, "anyOf", &alt) ||
	     json_object_object_get_ex(s, "oneOf", &alt)) &&
	    json_object_is_type(alt, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(alt); i++) {
			bool o = false;
			json_object *m = member(json_object_array_get_idx(alt, i), key, &o);

			if (m)
				return m;
			*open = *open || o;
		}
		return NULL;
	}
	if (!strict(s))
		*open = true;
	return NULL;
}

json_object *ps_schema_member(json_object *schema, const char *pointer, bool *open)
{
	json_object *s = schema;
	char key[128];

	*open = false;
	if (!pointer)
		return NULL;
	for (const char *p = pointer; s && *p == '/';) {
		size_t n = strcspn(p + 1, "/"), o = 0;

		for (size_t i = 0; i < n && o + 1 < sizeof(key); i++) {
			char c = p[1 + i];

			/* RFC 6901: ~1 is '/', ~0 is '~' */
			if (c == '~' && i + 1 < n && (p[2 + i] == '0' || p[2 + i] == '1')) {
				c = p[2 + i] == '1' ? '/' : '~';
				i++;
			}
			key[o++] = c;
		}
		key[o] = '\0';
		s = member(s, key, open);
		p += 1 + n;
	}
	return s;
}
