/*
 * schema.h - the part of JSON Schema (draft 2020-12) the report's schemas use,
 * checked in C: so that every step run in a unit test is held to its data
 * fragment, and a view's paths to what the fragment names. The full report is
 * validated by python3-jsonschema in tests/build/test_report_schema.sh; this
 * is no replacement for it. Pure.
 *
 * Keywords: type (a name or a list), enum, const, properties, required,
 * additionalProperties (false or a schema), items, minimum, maximum, anyOf,
 * oneOf (as anyOf). Others are ignored.
 */
#ifndef PS_LIB_SCHEMA_H
#define PS_LIB_SCHEMA_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* 0 when doc satisfies schema, else -EINVAL and the first problem in why ("/a/0/b: ..."). */
int ps_schema_check(json_object *schema, json_object *doc, char *why, size_t whylen);

/*
 * What a view's path may reach: the schema of member pointer (RFC 6901,
 * "/a/b"; "" is schema itself) below schema, stepping into properties (and
 * the branches of anyOf/oneOf). *open is set when the path leaves the
 * schema's knowledge: an object that does not list its members and does not
 * forbid others (so nothing can be said); NULL then, and also when a
 * strict object has no such member.
 */
json_object *ps_schema_member(json_object *schema, const char *pointer, bool *open);

/* An array schema's items, or schema itself when it is not one of an array. */
json_object *ps_schema_items(json_object *schema);

#endif
