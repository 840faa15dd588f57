/*
 * fields.h - a result as a C struct, described once by a table of its
 * fields (JSON name, member, type, unit, whether it may be null). From the
 * table: the struct as JSON (ps_fields_json), the JSON Schema of that JSON,
 * strict, naming every member and no other (ps_fields_schema), and the
 * release of what the struct owns (ps_fields_free). A figure's name is
 * written once, in the table; a step's view may name only what its schema
 * has (core/registry.c checks). Pure.
 *
 *	struct row { const char *name; int64_t sectors; double mbps; };
 *	static const struct ps_field row_f[] = {
 *	    PS_FIELD(struct row, name, "name"),
 *	    PS_FIELD(struct row, sectors, "sectors", .flags = PS_FLD_NULL),
 *	    PS_FIELD(struct row, mbps, "mbps", .unit = "MB/s", .decimals = 1),
 *	};
 *	static const struct ps_fields row_fields = PS_FIELDS(struct row, row_f);
 */
#ifndef PS_LIB_FIELDS_H
#define PS_LIB_FIELDS_H

#include "lib/stats.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ps_ftype {
	PS_FT_INT,    /* a signed integer member; with PS_FLD_NULL a negative one is null */
	PS_FT_UINT,   /* an unsigned one (unsigned, size_t, uint64_t): minimum 0 */
	PS_FT_NUM,    /* double: NAN is null */
	PS_FT_BOOL,   /* bool */
	PS_FT_TRI,    /* ps_tri (int8_t): PS_TRI_UNKNOWN is null */
	PS_FT_TEXT,   /* a char array: "" is null with PS_FLD_NULL */
	PS_FT_STR,    /* a const char * the struct does not own: NULL (and "") is null */
	PS_FT_ENUM,   /* an integer member naming one of names[]: out of range is null */
	PS_FT_OBJ,    /* an inline struct described by sub */
	PS_FT_OBJP,   /* a pointer to one, malloc'd and owned: NULL is null */
	PS_FT_ARRAY,  /* sub's elements, inline or a malloc'd (owned) pointer; count at count_off */
	PS_FT_NUMS,   /* doubles, inline or a malloc'd pointer; count at count_off */
	PS_FT_FIGURE, /* struct ps_figure: its members, named with the field's name (lib/stats.h) */
	PS_FT_JSON,   /* a json_object * built elsewhere (owned); its schema given as text */
};

/* Field flags. */
#define PS_FLD_NULL  (1U << 0) /* may be null (else a missing value is 0, "" or false) */
#define PS_FLD_OMIT  (1U << 1) /* left out when it has no value (null, "", false, no elements) */
#define PS_FLD_NEWER (1U << 2) /* not required: reports of this data version before it lack it */
#define PS_FLD_WARMUP                                                                              \
	(1U << 3) /* a figure with a warm-up run: warmup_<name> beside its runs                    \
		   */

struct ps_fields;

struct ps_field {
	const char *name; /* the JSON member */
	enum ps_ftype type;
	size_t off, size; /* of the member */
	bool pointer;	  /* ARRAY, NUMS: the member points to the elements (owned) */
	const char *unit; /* "MB/s", "s", "bytes", or NULL: the schema's description says it */
	int decimals;	  /* NUM, FIGURE: rounded to this many (0 by default) */
	unsigned int flags;
	const struct ps_fields *sub; /* OBJ, OBJP, ARRAY */
	size_t count_off;	     /* ARRAY, NUMS: the size_t member holding the count */
	const char *const *names;    /* ENUM: the names by value; STR, TEXT: the values allowed */
	const char *schema;	     /* JSON: the member's schema as JSON text */
	const char *help;	     /* one line for the schema's description, or NULL */
};

struct ps_fields {
	const struct ps_field *f;
	size_t n;
	size_t size; /* of the struct: the stride of an array of them */
};

/* The type code of a struct member, from its C type. */
#define PS_FT_OF(x)                                                                                \
	_Generic((x), _Bool: PS_FT_BOOL, signed char: PS_FT_TRI, short: PS_FT_INT, int: PS_FT_INT, \
	    long: PS_FT_INT, long long: PS_FT_INT, unsigned char: PS_FT_UINT,                      \
	    unsigned short: PS_FT_UINT, unsigned int: PS_FT_UINT, unsigned long: PS_FT_UINT,       \
	    unsigned long long: PS_FT_UINT, float: PS_FT_NUM, double: PS_FT_NUM,                   \
	    const char *: PS_FT_STR,                                                               \
	    char *: __builtin_types_compatible_p(__typeof__(x), char *) ? PS_FT_STR : PS_FT_TEXT,  \
	    struct ps_figure: PS_FT_FIGURE, json_object *: PS_FT_JSON)

#define PS_MEMBER(st, m) (((st *)0)->m)
/* True when the member is a pointer, false for an array (or anything else). */
#define PS_IS_POINTER(st, m)                                                                       \
	__builtin_types_compatible_p(__typeof__(PS_MEMBER(st, m)), __typeof__(&PS_MEMBER(st, m)[0]))

/* A scalar, text, figure or JSON member; more designated members may follow (.unit = ...). */
#define PS_FIELD(st, m, nm, ...)                                                                   \
	{                                                                                          \
		.name = (nm), .type = PS_FT_OF(PS_MEMBER(st, m)), .off = offsetof(st, m),          \
		.size = sizeof(PS_MEMBER(st, m)), __VA_ARGS__                                      \
	}
/* An integer member that names one of nms[] (a NULL-terminated list). */
#define PS_FIELD_ENUM(st, m, nm, nms, ...)                                                         \
	{                                                                                          \
		.name = (nm), .type = PS_FT_ENUM, .off = offsetof(st, m),                          \
		.size = sizeof(PS_MEMBER(st, m)), .names = (nms), __VA_ARGS__                      \
	}
/* An inline struct described by subfields. */
#define PS_FIELD_OBJ(st, m, nm, subfields, ...)                                                    \
	{                                                                                          \
		.name = (nm), .type = PS_FT_OBJ, .off = offsetof(st, m),                           \
		.size = sizeof(PS_MEMBER(st, m)), .sub = (subfields), __VA_ARGS__                  \
	}
/* A pointer to a struct described by subfields, malloc'd and owned: NULL is null. */
#define PS_FIELD_OBJP(st, m, nm, subfields, ...)                                                   \
	{                                                                                          \
		.name = (nm), .type = PS_FT_OBJP, .off = offsetof(st, m),                          \
		.size = sizeof(PS_MEMBER(st, m)), .sub = (subfields), __VA_ARGS__                  \
	}
/* An array of structs described by subfields: inline or a malloc'd pointer, count in cnt. */
#define PS_FIELD_ARRAY(st, m, cnt, nm, subfields, ...)                                             \
	{                                                                                          \
		.name = (nm), .type = PS_FT_ARRAY, .off = offsetof(st, m),                         \
		.size = sizeof(PS_MEMBER(st, m)), .pointer = PS_IS_POINTER(st, m),                 \
		.sub = (subfields), .count_off = offsetof(st, cnt), __VA_ARGS__                    \
	}
/* An array of doubles: inline or a malloc'd pointer, count in cnt. */
#define PS_FIELD_NUMS(st, m, cnt, nm, ...)                                                         \
	{                                                                                          \
		.name = (nm), .type = PS_FT_NUMS, .off = offsetof(st, m),                          \
		.size = sizeof(PS_MEMBER(st, m)), .pointer = PS_IS_POINTER(st, m),                 \
		.count_off = offsetof(st, cnt), __VA_ARGS__                                        \
	}

#define PS_FIELDS(st, arr)                                                                         \
	{                                                                                          \
		(arr), sizeof(arr) / sizeof((arr)[0]), sizeof(st)                                  \
	}

/*
 * Make s (t->size bytes) a struct that says nothing yet: zeroed, every
 * number NAN, every PS_FLD_NULL integer -1, every tri-state unknown, every
 * figure empty (inline structs and inline arrays' elements too). Unknown is
 * null, never 0.
 */
void ps_fields_init(const struct ps_fields *t, void *s);
/* calloc n elements of t, each ps_fields_init'ed; NULL when out of memory. */
void *ps_fields_new(const struct ps_fields *t, size_t n);
/*
 * One more element at the end of the malloc'd array *arr of *n elements of
 * t: grown, initialised, *n counted; returns it, or NULL (nothing changed)
 * when out of memory. Earlier elements may move.
 */
void *ps_fields_grow(const struct ps_fields *t, void *arr, size_t *n);

/* The struct at s as a JSON object (a new reference). */
json_object *ps_fields_json(const struct ps_fields *t, const void *s);
/* Its members set into obj (an existing object): what ps_fields_json adds. */
void ps_fields_to(const struct ps_fields *t, const void *s, json_object *obj);

/*
 * The JSON Schema of what ps_fields_json writes: an object with every
 * field's member (required unless PS_FLD_OMIT or PS_FLD_NEWER) and
 * additionalProperties false, at every level. A new reference.
 */
json_object *ps_fields_schema(const struct ps_fields *t);

/* Release what the struct owns (OBJP and pointer arrays, recursively; JSON members). */
void ps_fields_free(const struct ps_fields *t, void *s);

/* Why a table is unusable (a field without a name or type, a duplicate name, an ARRAY without
 * sub), or true. */
bool ps_fields_valid(const struct ps_fields *t, char *why, size_t whylen);

#endif
