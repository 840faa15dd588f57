/* json.c - tolerant JSON lookups and rule-keeping constructors (json.h). */
#include "lib/json.h"
#include "lib/util.h"

#include <errno.h>
#include <json-c/json_pointer.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_object *ps_json_get(json_object *obj, const char *key)
{
	json_object *v;

	if (!obj || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

json_object *ps_json_ptr(json_object *obj, const char *pointer)
{
	json_object *v = NULL;

	if (!obj || !pointer)
		return NULL;
	if (!*pointer)
		return obj;
	if (json_pointer_get(obj, pointer, &v) < 0)
		return NULL;
	return v;
}

const char *ps_json_str(json_object *obj, const char *key)
{
	json_object *v = ps_json_get(obj, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

const char *ps_json_str_or(json_object *obj, const char *key, const char *dflt)
{
	const char *s = ps_json_str(obj, key);

	return s && *s ? s : dflt;
}

bool ps_json_as_num(json_object *v, double *out)
{
	if (!v ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return true;
}

bool ps_json_num(json_object *obj, const char *key, double *v)
{
	return ps_json_as_num(ps_json_get(obj, key), v);
}

bool ps_json_int(json_object *obj, const char *key, int64_t *v)
{
	json_object *o = ps_json_get(obj, key);

	if (!o ||
	    !(json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double)))
		return false;
	*v = json_object_get_int64(o);
	return true;
}

int ps_json_bool(json_object *obj, const char *key)
{
	json_object *o = ps_json_get(obj, key);

	if (!o || !json_object_is_type(o, json_type_boolean))
		return -1;
	return json_object_get_boolean(o) ? 1 : 0;
}

json_object *ps_json_arr(json_object *obj, const char *key)
{
	json_object *o = ps_json_get(obj, key);

	return o && json_object_is_type(o, json_type_array) ? o : NULL;
}

size_t ps_json_len(json_object *arr)
{
	return arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

json_object *ps_json_at(json_object *arr, size_t i)
{
	return i < ps_json_len(arr) ? json_object_array_get_idx(arr, i) : NULL;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned int c = s[0], len, min, cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		min = 0x80;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		min = 0x800;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		min = 0x10000;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (unsigned int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t ps_text_clean(const char *s, size_t n, const char *keep, char *out, size_t outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!outlen)
		return 0;
	for (size_t i = 0; s && i < n && p[i];) {
		size_t len = utf8_seq(p + i, n - i);
		char esc[8];
		const char *piece;
		size_t plen;

		if (len == 0) {
			piece = "\xef\xbf\xbd"; /* U+FFFD */
			plen = 3;
			len = 1;
		} else if ((p[i] < 0x20 || p[i] == 0x7f) && !(keep && strchr(keep, p[i]))) {
			snprintf(esc, sizeof(esc), "\\x%02x", p[i]);
			piece = esc;
			plen = 4;
		} else {
			piece = (const char *)p + i;
			plen = len;
		}
		if (o + plen + 1 > outlen)
			break;
		memcpy(out + o, piece, plen);
		o += plen;
		i += len;
	}
	out[o] = '\0';
	return o;
}

char *ps_text_clean_dup(const char *s, size_t n, const char *keep)
{
	/* Worst case: every byte becomes "\xNN" (4 bytes) or U+FFFD (3). */
	size_t room = n * 4 + 1;
	char *out = malloc(room);

	if (out)
		ps_text_clean(s, n, keep, out, room);
	return out;
}

json_object *ps_json_new_strn(const char *s, size_t n)
{
	char small[512], *buf = small;
	json_object *o;
	size_t len;

	if (!s || !n || !*s)
		return NULL;
	if (n * 4 + 1 > sizeof(small)) {
		buf = malloc(n * 4 + 1);
		if (!buf)
			return NULL;
	}
	len = ps_text_clean(s, n, "\n\t", buf, buf == small ? sizeof(small) : n * 4 + 1);
	o = len ? json_object_new_string_len(buf, (int)len) : NULL;
	if (buf != small)
		free(buf);
	return o;
}

/* s (n bytes) as ps_json_new_strn keeps it, malloc'd; NULL when it is clean already. */
static char *cleaned(const char *s, size_t n)
{
	char *c = ps_text_clean_dup(s, n, "\n\t");

	if (c && strlen(c) == n && memcmp(c, s, n) == 0) {
		free(c);
		return NULL;
	}
	return c ? c : strdup(""); /* out of memory: nothing rather than the raw bytes */
}

static bool is_clean(const char *s, size_t n)
{
	char *c = cleaned(s, n);

	free(c);
	return !c;
}

void ps_json_clean_tree(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_string: {
		char *c = cleaned(json_object_get_string(o), (size_t)json_object_get_string_len(o));

		if (c)
			json_object_set_string(o, c);
		free(c);
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			ps_json_clean_tree(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		size_t dirty = 0, k = 0;
		char **keys;

		json_object_object_foreach(o, key, val)
		{
			ps_json_clean_tree(val);
			dirty += !is_clean(key, strlen(key));
		}
		if (!dirty)
			break;
		/* member names cannot be renamed in place: take each out, put it back cleaned */
		keys = calloc(dirty, sizeof(*keys));
		if (!keys)
			break;
		json_object_object_foreach(o, key2, val2)
		{
			(void)val2;
			if (k < dirty && !is_clean(key2, strlen(key2)))
				keys[k++] = strdup(key2);
		}
		for (size_t i = 0; i < k; i++) {
			json_object *v;
			char *c;

			if (!keys[i])
				continue;
			c = cleaned(keys[i], strlen(keys[i]));
			if (json_object_object_get_ex(o, keys[i], &v) && c) {
				json_object_get(v);
				json_object_object_del(o, keys[i]);
				json_object_object_add(o, c, v);
			}
			free(c);
			free(keys[i]);
		}
		free(keys);
		break;
	}
	default:
		break;
	}
}

json_object *ps_json_new_str(const char *s)
{
	return s ? ps_json_new_strn(s, strlen(s)) : NULL;
}

json_object *ps_json_new_count(int64_t v)
{
	return v >= 0 ? json_object_new_int64(v) : NULL;
}

json_object *ps_json_new_num(double v, int decimals)
{
	char text[64];
	double r;

	if (isnan(v) || isinf(v))
		return NULL;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	r = ps_round(v, decimals);
	if (r == 0)
		r = 0; /* no "-0.0" */
	snprintf(text, sizeof(text), "%.*f", decimals, r);
	return json_object_new_double_s(r, text);
}

json_object *ps_json_new_tri(int v)
{
	return v < 0 ? NULL : json_object_new_boolean(v != 0);
}

void ps_json_set(json_object *obj, const char *key, json_object *v)
{
	if (!obj || !json_object_is_type(obj, json_type_object)) {
		json_object_put(v);
		return;
	}
	json_object_object_add(obj, key, v);
}

void ps_json_set_str(json_object *obj, const char *key, const char *s)
{
	ps_json_set(obj, key, ps_json_new_str(s));
}

void ps_json_set_count(json_object *obj, const char *key, int64_t v)
{
	ps_json_set(obj, key, ps_json_new_count(v));
}

void ps_json_set_num(json_object *obj, const char *key, double v, int decimals)
{
	ps_json_set(obj, key, ps_json_new_num(v, decimals));
}

void ps_json_set_tri(json_object *obj, const char *key, int v)
{
	ps_json_set(obj, key, ps_json_new_tri(v));
}

int ps_json_set_file(json_object *obj, const char *key, const char *path)
{
	char buf[512];
	int n = ps_read_str(path, buf, sizeof(buf));

	ps_json_set_str(obj, key, n > 0 ? buf : NULL);
	return n;
}

json_object *ps_json_reset_obj(json_object *obj, const char *key)
{
	json_object *v = json_object_new_object();

	ps_json_set(obj, key, v);
	return v;
}

json_object *ps_json_reset_arr(json_object *obj, const char *key)
{
	json_object *v = json_object_new_array();

	ps_json_set(obj, key, v);
	return v;
}

json_object *ps_json_read_file(const char *path)
{
	char *data;
	size_t len;
	json_object *obj;

	if (ps_read_all(path, &data, &len) < 0)
		return NULL;
	obj = json_tokener_parse(data);
	free(data);
	if (obj && !json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		obj = NULL;
	}
	return obj;
}
