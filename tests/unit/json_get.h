/* json_get.h - terse typed lookups into the probes' JSON for the unit tests:
 * a missing or mistyped field reads as NULL or -1, which the checks then catch. */
#ifndef PS_JSON_GET_H
#define PS_JSON_GET_H

#include <json-c/json.h>

static inline json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static inline const char *s(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static inline long long n(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
}

static inline int b(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_boolean) ? json_object_get_boolean(v) : -1;
}

static inline double d(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v ? json_object_get_double(v) : -1.0;
}

#endif
