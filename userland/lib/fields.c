/* fields.c - a struct through its field table into JSON and JSON Schema (fields.h). Pure. */
#include "lib/fields.h"
#include "lib/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CV_DECIMALS 1

static const void *at(const void *s, size_t off)
{
	return (const char *)s + off;
}

static int64_t get_int(const struct ps_field *f, const void *s)
{
	const void *p = at(s, f->off);

	switch (f->size) {
	case 1:
		return *(const int8_t *)p;
	case 2:
		return *(const int16_t *)p;
	case 4:
		return *(const int32_t *)p;
	default:
		return *(const int64_t *)p;
	}
}

static uint64_t get_uint(const struct ps_field *f, const void *s)
{
	const void *p = at(s, f->off);

	switch (f->size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		return *(const uint16_t *)p;
	case 4:
		return *(const uint32_t *)p;
	default:
		return *(const uint64_t *)p;
	}
}

static size_t get_count(const struct ps_field *f, const void *s)
{
	return *(const size_t *)at(s, f->count_off);
}

/* The elements of an ARRAY or NUMS field: inline, or where the member points. */
static const void *elements(const struct ps_field *f, const void *s)
{
	return f->pointer ? *(const void *const *)at(s, f->off) : at(s, f->off);
}

static size_t names_count(const char *const *names)
{
	size_t n = 0;

	while (names && names[n])
		n++;
	return n;
}

static json_object *text_json(const char *text, const struct ps_field *f, bool *empty)
{
	*empty = !text || !*text;
	if (*empty)
		return f->flags & PS_FLD_NULL ? NULL : json_object_new_string("");
	return ps_json_new_str(text);
}

static json_object *nums_json(const double *v, size_t n, int decimals)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; v && i < n; i++)
		json_object_array_add(a, ps_json_new_num(v[i], decimals));
	return a;
}

/* The value of one field (not a figure); *empty when it has none (for PS_FLD_OMIT). */
static json_object *value_json(const struct ps_field *f, const void *s, bool *empty)
{
	const void *p = at(s, f->off);
	int64_t i;
	double d;

	*empty = false;
	switch (f->type) {
	case PS_FT_INT:
		i = get_int(f, s);
		*empty = i < 0 && (f->flags & PS_FLD_NULL);
		return *empty ? NULL : json_object_new_int64(i);
	case PS_FT_UINT:
		return json_object_new_int64((int64_t)get_uint(f, s));
	case PS_FT_NUM:
		d = f->size == sizeof(float) ? *(const float *)p : *(const double *)p;
		*empty = isnan(d);
		return ps_json_new_num(d, f->decimals);
	case PS_FT_BOOL:
		*empty = !*(const bool *)p;
		return json_object_new_boolean(*(const bool *)p);
	case PS_FT_TRI:
		*empty = *(const int8_t *)p < 0;
		return ps_json_new_tri(*(const int8_t *)p);
	case PS_FT_TEXT:
		return text_json(p, f, empty);
	case PS_FT_STR:
		return text_json(*(const char *const *)p, f, empty);
	case PS_FT_ENUM:
		i = get_int(f, s);
		*empty = i < 0 || (size_t)i >= names_count(f->names);
		return *empty ? NULL : json_object_new_string(f->names[i]);
	case PS_FT_OBJ:
		return ps_fields_json(f->sub, p);
	case PS_FT_OBJP:
		p = *(const void *const *)p;
		*empty = !p;
		return p ? ps_fields_json(f->sub, p) : NULL;
	case PS_FT_ARRAY: {
		json_object *a = json_object_new_array();
		const char *e = elements(f, s);
		size_t n = e ? get_count(f, s) : 0;

		for (size_t k = 0; k < n; k++)
			json_object_array_add(a, ps_fields_json(f->sub, e + k * f->sub->size));
		*empty = n == 0;
		return a;
	}
	case PS_FT_NUMS: {
		const double *v = elements(f, s);

		*empty = !v || get_count(f, s) == 0;
		return nums_json(v, v ? get_count(f, s) : 0, f->decimals);
	}
	case PS_FT_JSON:
		p = *(json_object *const *)p;
		*empty = !p;
		return json_object_get((json_object *)p);
	case PS_FT_FIGURE:
		break;
	}
	*empty = true;
	return NULL;
}

/* A figure's members: runs_<name>, min_, median_, max_, cv_pct, extra_runs, noisy, warmup_. */
static void figure_to(const struct ps_field *f, const struct ps_figure *g, json_object *obj)
{
	char key[96];

	snprintf(key, sizeof(key), "runs_%s", f->name);
	ps_json_set(obj, key, nums_json(g->v, g->n, f->decimals));
	snprintf(key, sizeof(key), "min_%s", f->name);
	ps_json_set_num(obj, key, g->min, f->decimals);
	snprintf(key, sizeof(key), "median_%s", f->name);
	ps_json_set_num(obj, key, g->median, f->decimals);
	snprintf(key, sizeof(key), "max_%s", f->name);
	ps_json_set_num(obj, key, g->max, f->decimals);
	ps_json_set_num(obj, PS_FIGURE_CV, g->cv_pct, CV_DECIMALS);
	ps_json_set(obj, PS_FIGURE_EXTRA, json_object_new_int((int)g->extra_runs));
	ps_json_set(obj, PS_FIGURE_NOISY, json_object_new_boolean(g->noisy));
	if (f->flags & PS_FLD_WARMUP) {
		snprintf(key, sizeof(key), "warmup_%s", f->name);
		ps_json_set_num(obj, key, g->warmup, f->decimals);
	}
}

void ps_fields_to(const struct ps_fields *t, const void *s, json_object *obj)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct ps_field *f = &t->f[i];
		json_object *v;
		bool empty;

		if (f->type == PS_FT_FIGURE) {
			figure_to(f, at(s, f->off), obj);
			continue;
		}
		v = value_json(f, s, &empty);
		if (empty && (f->flags & PS_FLD_OMIT)) {
			json_object_put(v);
			continue;
		}
		ps_json_set(obj, f->name, v);
	}
}

json_object *ps_fields_json(const struct ps_fields *t, const void *s)
{
	json_object *o = json_object_new_object();

	ps_fields_to(t, s, o);
	return o;
}

/* ---- the schema ---- */

static json_object *typed(const char *type, bool null)
{
	json_object *o = json_object_new_object(), *a;

	if (!null) {
		json_object_object_add(o, "type", json_object_new_string(type));
		return o;
	}
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string(type));
	json_object_array_add(a, json_object_new_string("null"));
	json_object_object_add(o, "type", a);
	return o;
}

static json_object *enum_of(const char *const *names, bool null)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	for (size_t i = 0; names && names[i]; i++)
		json_object_array_add(a, json_object_new_string(names[i]));
	if (null)
		json_object_array_add(a, NULL);
	json_object_object_add(o, "enum", a);
	return o;
}

static json_object *array_of(json_object *items)
{
	json_object *o = typed("array", false);

	json_object_object_add(o, "items", items);
	return o;
}

static json_object *field_schema(const struct ps_field *f)
{
	bool null = f->flags & PS_FLD_NULL;
	json_object *o;

	switch (f->type) {
	case PS_FT_INT:
		return typed("integer", null);
	case PS_FT_UINT:
		o = typed("integer", false);
		json_object_object_add(o, "minimum", json_object_new_int(0));
		return o;
	case PS_FT_NUM:
		return typed("number", null);
	case PS_FT_BOOL:
		return typed("boolean", false);
	case PS_FT_TRI:
		return typed("boolean", null);
	case PS_FT_TEXT:
	case PS_FT_STR:
		return f->names ? enum_of(f->names, null) : typed("string", null);
	case PS_FT_ENUM:
		return enum_of(f->names, null);
	case PS_FT_OBJ:
		return ps_fields_schema(f->sub);
	case PS_FT_OBJP: {
		json_object *a = json_object_new_array();

		o = ps_fields_schema(f->sub);
		json_object_array_add(a, json_object_new_string("object"));
		json_object_array_add(a, json_object_new_string("null"));
		json_object_object_add(o, "type", a);
		return o;
	}
	case PS_FT_ARRAY:
		return array_of(ps_fields_schema(f->sub));
	case PS_FT_NUMS:
		return array_of(typed("number", false));
	case PS_FT_JSON:
		o = f->schema ? json_tokener_parse(f->schema) : NULL;
		if (!o)
			o = json_object_new_object();
		if (null) {
			json_object *any = json_object_new_array(), *w = json_object_new_object();

			json_object_array_add(any, o);
			json_object_array_add(any, typed("null", false));
			json_object_object_add(w, "anyOf", any);
			return w;
		}
		return o;
	case PS_FT_FIGURE:
		break;
	}
	return json_object_new_object();
}

static void describe(json_object *o, const struct ps_field *f)
{
	char text[300];

	if (!f->help && !f->unit)
		return;
	snprintf(text, sizeof(text), "%s%s%s%s", f->help ? f->help : "",
		 f->help && f->unit ? " (" : "", f->unit ? f->unit : "",
		 f->help && f->unit ? ")" : "");
	json_object_object_add(o, "description", json_object_new_string(text));
}

static void figure_schema(const struct ps_field *f, json_object *props, json_object *req)
{
	bool required = !(f->flags & (PS_FLD_OMIT | PS_FLD_NEWER));
	const char *stats[] = {"min", "median", "max", "warmup"};
	char key[96];
	json_object *o;

	snprintf(key, sizeof(key), "runs_%s", f->name);
	o = array_of(typed("number", false));
	describe(o, f);
	json_object_object_add(props, key, o);
	if (required)
		json_object_array_add(req, json_object_new_string(key));
	for (size_t i = 0; i < 4; i++) {
		if (i == 3 && !(f->flags & PS_FLD_WARMUP))
			break;
		snprintf(key, sizeof(key), "%s_%s", stats[i], f->name);
		o = typed("number", true);
		describe(o, f);
		json_object_object_add(props, key, o);
		if (required && i == 1)
			json_object_array_add(req, json_object_new_string(key));
	}
	json_object_object_add(props, PS_FIGURE_CV, typed("number", true));
	if (required)
		json_object_array_add(req, json_object_new_string(PS_FIGURE_CV));
	o = typed("integer", false);
	json_object_object_add(o, "minimum", json_object_new_int(0));
	json_object_object_add(props, PS_FIGURE_EXTRA, o);
	json_object_object_add(props, PS_FIGURE_NOISY, typed("boolean", false));
}

json_object *ps_fields_schema(const struct ps_fields *t)
{
	json_object *o = typed("object", false), *props = json_object_new_object(),
		    *req = json_object_new_array();

	for (size_t i = 0; i < t->n; i++) {
		const struct ps_field *f = &t->f[i];
		json_object *fs;

		if (f->type == PS_FT_FIGURE) {
			figure_schema(f, props, req);
			continue;
		}
		fs = field_schema(f);
		describe(fs, f);
		json_object_object_add(props, f->name, fs);
		if (!(f->flags & (PS_FLD_OMIT | PS_FLD_NEWER)))
			json_object_array_add(req, json_object_new_string(f->name));
	}
	json_object_object_add(o, "properties", props);
	json_object_object_add(o, "required", req);
	json_object_object_add(o, "additionalProperties", json_object_new_boolean(0));
	return o;
}

/* ---- new structs ---- */

void ps_fields_init(const struct ps_fields *t, void *s)
{
	memset(s, 0, t->size);
	for (size_t i = 0; i < t->n; i++) {
		const struct ps_field *f = &t->f[i];
		char *p = (char *)s + f->off;

		switch (f->type) {
		case PS_FT_NUM:
			if (f->size == sizeof(float))
				*(float *)p = NAN;
			else
				*(double *)p = NAN;
			break;
		case PS_FT_INT:
			if (f->flags & PS_FLD_NULL)
				memset(p, 0xff, f->size); /* -1 at any width */
			break;
		case PS_FT_TRI:
			*(int8_t *)p = -1;
			break;
		case PS_FT_ENUM:
			memset(p, 0xff, f->size);
			break;
		case PS_FT_FIGURE:
			ps_figure_init((struct ps_figure *)p);
			break;
		case PS_FT_OBJ:
			ps_fields_init(f->sub, p);
			break;
		case PS_FT_ARRAY:
			for (size_t k = 0; !f->pointer && k < f->size / f->sub->size; k++)
				ps_fields_init(f->sub, p + k * f->sub->size);
			break;
		default:
			break;
		}
	}
}

void *ps_fields_new(const struct ps_fields *t, size_t n)
{
	char *a = calloc(n ? n : 1, t->size);

	for (size_t i = 0; a && i < n; i++)
		ps_fields_init(t, a + i * t->size);
	return a;
}

void *ps_fields_grow(const struct ps_fields *t, void *arr, size_t *n)
{
	void **slot = arr;
	char *a = realloc(*slot, (*n + 1) * t->size);

	if (!a)
		return NULL;
	*slot = a;
	ps_fields_init(t, a + *n * t->size);
	return a + (*n)++ * t->size;
}

/* ---- ownership ---- */

void ps_fields_free(const struct ps_fields *t, void *s)
{
	for (size_t i = 0; s && i < t->n; i++) {
		const struct ps_field *f = &t->f[i];
		void **pp = (void **)((char *)s + f->off);

		switch (f->type) {
		case PS_FT_OBJ:
			ps_fields_free(f->sub, (char *)s + f->off);
			break;
		case PS_FT_OBJP:
			ps_fields_free(f->sub, *pp);
			free(*pp);
			*pp = NULL;
			break;
		case PS_FT_ARRAY: {
			char *e = f->pointer ? *pp : (char *)pp;
			size_t n = e ? get_count(f, s) : 0;

			for (size_t k = 0; k < n; k++)
				ps_fields_free(f->sub, e + k * f->sub->size);
			if (f->pointer) {
				free(*pp);
				*pp = NULL;
			}
			break;
		}
		case PS_FT_NUMS:
			if (f->pointer) {
				free(*pp);
				*pp = NULL;
			}
			break;
		case PS_FT_JSON:
			json_object_put(*pp);
			*pp = NULL;
			break;
		default:
			break;
		}
	}
}

/* ---- checks ---- */

#define MAX_MEMBERS 128

struct names {
	char n[MAX_MEMBERS][64];
	size_t count;
};

static bool add_name(struct names *seen, const char *pre, const char *name, char *why,
		     size_t whylen)
{
	char key[64];

	snprintf(key, sizeof(key), "%s%s", pre, name);
	for (size_t i = 0; i < seen->count; i++)
		if (strcmp(seen->n[i], key) == 0) {
			snprintf(why, whylen, "member '%s' is named twice", key);
			return false;
		}
	if (seen->count < MAX_MEMBERS)
		snprintf(seen->n[seen->count++], sizeof(seen->n[0]), "%s", key);
	return true;
}

static bool field_valid(const struct ps_field *f, size_t i, char *why, size_t whylen)
{
	bool needs_sub = f->type == PS_FT_OBJ || f->type == PS_FT_OBJP || f->type == PS_FT_ARRAY;
	json_object *o;
	bool ok;

	if (!f->name || !*f->name || f->type > PS_FT_JSON) {
		snprintf(why, whylen, "field %zu has no name or no known type", i);
		return false;
	}
	if (needs_sub != (f->sub != NULL) || (f->type == PS_FT_ENUM && !f->names) ||
	    (f->type == PS_FT_JSON && !f->schema)) {
		snprintf(why, whylen, "field '%s' lacks its %s", f->name,
			 f->type == PS_FT_ENUM	 ? "names"
			 : f->type == PS_FT_JSON ? "schema text"
						 : "field table (or has one it may not)");
		return false;
	}
	if (f->type != PS_FT_JSON)
		return !f->sub || ps_fields_valid(f->sub, why, whylen);
	o = json_tokener_parse(f->schema);
	ok = o && json_object_is_type(o, json_type_object);
	json_object_put(o);
	if (!ok)
		snprintf(why, whylen, "field '%s': its schema is not a JSON object", f->name);
	return ok;
}

bool ps_fields_valid(const struct ps_fields *t, char *why, size_t whylen)
{
	static const char *const figure_pre[] = {"runs_", "min_", "median_", "max_", "warmup_"};
	struct names *seen;
	size_t figures = 0;
	bool ok = true;

	if (!t || !t->f || !t->n || !t->size) {
		snprintf(why, whylen, "a field table without fields or size");
		return false;
	}
	seen = calloc(1, sizeof(*seen));
	if (!seen) {
		snprintf(why, whylen, "out of memory");
		return false;
	}
	for (size_t i = 0; ok && i < t->n; i++) {
		const struct ps_field *f = &t->f[i];

		ok = field_valid(f, i, why, whylen);
		if (!ok)
			break;
		if (f->type != PS_FT_FIGURE) {
			ok = add_name(seen, "", f->name, why, whylen);
			continue;
		}
		if (++figures > 1) {
			snprintf(
			    why, whylen,
			    "figure '%s': a row holds one figure (cv_pct, extra_runs and noisy "
			    "are its own); put another in a row of its own",
			    f->name);
			ok = false;
			break;
		}
		for (size_t k = 0; ok && k < 5; k++)
			ok = add_name(seen, figure_pre[k], f->name, why, whylen);
		ok = ok && add_name(seen, "", PS_FIGURE_CV, why, whylen) &&
		     add_name(seen, "", PS_FIGURE_EXTRA, why, whylen) &&
		     add_name(seen, "", PS_FIGURE_NOISY, why, whylen);
	}
	free(seen);
	return ok;
}
