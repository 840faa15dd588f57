/* registry.c - the registry that checks every compiled-in step before it may
 * run (fio's check_engine_ops), and plan selection with the steps' "after". */
#include "core/config.h"
#include "core/plan.h"
#include "core/step.h"
#include "lib/json.h"
#include "lib/schema.h"
#include "lib/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS_KNOWN_PLANS (PS_PLAN_QUICK | PS_PLAN_FULL | PS_PLAN_NAMED)
#define PS_KNOWN_NEEDS (PS_NEED_ROOT | PS_NEED_MODULE | PS_NEED_SCRATCH)

const char *ps_status_name(enum ps_status s)
{
	static const char *const names[] = {
	    [PS_PASS] = "pass",	  [PS_WARN] = "warn",	    [PS_FAIL] = "fail",
	    [PS_ERROR] = "error", [PS_SKIPPED] = "skipped", [PS_ABORTED] = "aborted",
	};

	if ((unsigned int)s >= PS_ARRAY_SIZE(names))
		return "error";
	return names[s];
}

static bool name_ok(const char *name)
{
	if (!name || !*name || strlen(name) > 32)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* Parsed schemas of the steps, by ops: generated from a result table or read from //schema:. */
static struct {
	const struct ps_step_ops *ops;
	json_object *schema;
} schema_cache[64];

json_object *ps_step_schema_json(const struct ps_step_ops *ops)
{
	size_t i;
	json_object *o;
	const char *text;

	for (i = 0; i < PS_ARRAY_SIZE(schema_cache) && schema_cache[i].ops; i++)
		if (schema_cache[i].ops == ops)
			return schema_cache[i].schema;
	if (ops->result) {
		o = ps_fields_schema(ops->result);
	} else {
		text = ps_step_schema(ops->name);
		o = text ? json_tokener_parse(text) : NULL;
		if (o && !json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			o = NULL;
		}
	}
	if (o && i < PS_ARRAY_SIZE(schema_cache)) {
		schema_cache[i].ops = ops;
		schema_cache[i].schema = o;
	}
	return o; /* past the cache's size it leaks: 64 steps are more than a program holds */
}

/* Where a view's path lands in a schema: 1 found (*out), 0 the schema does not say, -1 absent. */
static int reach(json_object *base, const char *path, json_object **out)
{
	bool open = false;

	*out = base ? ps_schema_member(base, path, &open) : NULL;
	if (*out)
		return 1;
	return open || !base ? 0 : -1;
}

static bool col_paths_ok(const struct ps_block *b, json_object *row, json_object *parent,
			 size_t from, char *why, size_t whylen)
{
	for (size_t c = from; c < b->ncols; c++) {
		const struct ps_col *col = &b->cols[c];
		const char *paths[] = {col->path, col->spread, col->min,
				       col->max,  col->noisy,  col->unit_from};

		for (size_t k = 0; k < PS_ARRAY_SIZE(paths); k++) {
			const char *p = paths[k];
			json_object *hit;

			if (!p)
				continue;
			if (reach(p[0] == '^' ? parent : row, p[0] == '^' ? p + 1 : p, &hit) < 0) {
				snprintf(why, whylen,
					 "its view's block %s names %s, which its data schema does "
					 "not have",
					 b->id, p);
				return false;
			}
		}
	}
	return true;
}

/*
 * Every path of a view names a member its data schema has (where the schema
 * lists its members): a typo in a view fails here, not as a "-" in a report.
 * A series' label column may name what its lines lack (the title labels it).
 */
static bool view_paths_ok(const struct ps_view *v, json_object *schema, char *why, size_t whylen)
{
	for (size_t i = 0; v->scope == PS_SCOPE_DATA && i < v->nblocks; i++) {
		const struct ps_block *b = &v->blocks[i];
		json_object *rows, *row, *parent = NULL, *nested, *hit;
		const char *conds[] = {b->when, b->unless};
		int r = reach(schema, b->rows, &rows);

		if (r < 0) {
			snprintf(
			    why, whylen,
			    "its view's block %s reads rows %s, which its data schema does not "
			    "have",
			    b->id, b->rows);
			return false;
		}
		if (r == 0)
			continue;
		row = b->kind == PS_BLOCK_KV ? rows : ps_schema_items(rows);
		for (size_t k = 0; k < PS_ARRAY_SIZE(conds); k++) {
			if (conds[k] && reach(row, conds[k], &hit) < 0) {
				snprintf(
				    why, whylen,
				    "its view's block %s is shown by %s, which its data schema "
				    "does not have",
				    b->id, conds[k]);
				return false;
			}
		}
		if (b->nested) {
			r = reach(row, b->nested, &nested);
			if (r < 0) {
				snprintf(why, whylen,
					 "its view's block %s nests %s, which its data schema does "
					 "not have",
					 b->id, b->nested);
				return false;
			}
			if (r == 0)
				continue;
			parent = row;
			row = ps_schema_items(nested);
		}
		if (!col_paths_ok(b, row, parent, b->kind == PS_BLOCK_SERIES ? 1 : 0, why, whylen))
			return false;
	}
	return true;
}

/* The step's data schema: from its result table (valid, and no //schema: lines beside it:
 * a figure is named once) or its //schema: lines; and its view's paths in it. */
static bool schema_ok(const struct ps_step_ops *ops, char *why, size_t whylen)
{
	json_object *schema;

	if (ops->result) {
		if (!ps_fields_valid(ops->result, why, whylen))
			return false;
		if (ps_step_schema(ops->name)) {
			snprintf(why, whylen,
				 "both a result table and //schema: lines: the table is its "
				 "schema; drop the lines");
			return false;
		}
	} else if (!ps_step_schema(ops->name)) {
		snprintf(why, whylen,
			 "no result table and no //schema: lines for its data in the step's file "
			 "(scripts/gather-steps.sh gathers them)");
		return false;
	}
	schema = ps_step_schema_json(ops);
	if (!schema) {
		snprintf(why, whylen, "its //schema: lines are not a JSON object");
		return false;
	}
	return view_paths_ok(ops->view, schema, why, whylen);
}

bool ps_step_valid(const struct ps_step_ops *ops, char *why, size_t whylen)
{
	char vwhy[200];
	const char *name = ops && ops->name && name_ok(ops->name) ? ops->name : NULL;

	if (!ops) {
		snprintf(why, whylen, "a NULL entry in section ps_steps");
		return false;
	}
	if (ops->abi != PS_STEP_ABI) {
		snprintf(why, whylen, "step %s has ABI %u, this program has %d: rebuild it",
			 name ? name : "(unnamed)", ops->abi, PS_STEP_ABI);
		return false;
	}
	if (!name) {
		snprintf(why, whylen, "a step named '%.40s' (names are [a-z0-9_]+, at most 32)",
			 ops->name ? ops->name : "(NULL)");
		return false;
	}
	if (!ops->run) {
		snprintf(why, whylen, "step %s has no run function", name);
		return false;
	}
	if (!ops->plans || (ops->plans & ~PS_KNOWN_PLANS)) {
		snprintf(why, whylen,
			 "step %s has plans 0x%x (known: quick 0x1, full 0x2, named 0x4)", name,
			 ops->plans);
		return false;
	}
	if (ops->needs & ~PS_KNOWN_NEEDS) {
		snprintf(why, whylen, "step %s needs unknown things 0x%x", name,
			 ops->needs & ~PS_KNOWN_NEEDS);
		return false;
	}
	if (ops->after && (!name_ok(ops->after) || strcmp(ops->after, name) == 0)) {
		snprintf(why, whylen, "step %s runs after '%.40s', which is not a step name", name,
			 ops->after);
		return false;
	}
	if (!ops->data_version) {
		snprintf(why, whylen, "step %s has no data_version", name);
		return false;
	}
	if (!ops->view) {
		snprintf(why, whylen, "step %s has no view: its figures would reach no report",
			 name);
		return false;
	}
	if (!ps_view_valid(ops->view, vwhy, sizeof(vwhy))) {
		snprintf(why, whylen, "step %s: %s", name, vwhy);
		return false;
	}
	if (!ops->view->name || strcmp(ops->view->name, name) != 0 ||
	    ops->view->version != ops->data_version) {
		snprintf(
		    why, whylen,
		    "step %s: its view is named '%.40s' version %u, the step's data version is "
		    "%u",
		    name, ops->view->name ? ops->view->name : "(NULL)", ops->view->version,
		    ops->data_version);
		return false;
	}
	for (size_t k = 0; ops->older_views && ops->older_views[k]; k++) {
		const struct ps_view *o = ops->older_views[k];

		if (!ps_view_valid(o, vwhy, sizeof(vwhy)) || !o->name ||
		    strcmp(o->name, name) != 0 || o->version >= ops->data_version) {
			snprintf(
			    why, whylen,
			    "step %s: an older view must be a valid view of the step for a data "
			    "version below %u",
			    name, ops->data_version);
			return false;
		}
	}
	if (!schema_ok(ops, vwhy, sizeof(vwhy))) {
		snprintf(why, whylen, "step %s: %s", name, vwhy);
		return false;
	}
	return true;
}

static int step_cmp(const void *a, const void *b)
{
	const struct ps_step_ops *x = *(const struct ps_step_ops *const *)a;
	const struct ps_step_ops *y = *(const struct ps_step_ops *const *)b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t ps_registry_build(const struct ps_step_ops *const *in, size_t n_in,
			 const struct ps_step_ops **out, void (*refuse)(const char *msg, void *arg),
			 void *arg)
{
	size_t n = 0;
	char why[256], msg[320];

	for (size_t i = 0; i < n_in; i++) {
		bool dup = false;

		if (!ps_step_valid(in[i], why, sizeof(why))) {
			snprintf(msg, sizeof(msg), "refusing %s", why);
			if (refuse)
				refuse(msg, arg);
			continue;
		}
		for (size_t j = 0; j < n && !dup; j++)
			dup = strcmp(out[j]->name, in[i]->name) == 0;
		if (dup) {
			snprintf(
			    msg, sizeof(msg),
			    "refusing step %s: the name is registered twice; the first one runs",
			    in[i]->name);
			if (refuse)
				refuse(msg, arg);
			continue;
		}
		out[n++] = in[i];
	}
	qsort(out, n, sizeof(*out), step_cmp);
	/* "after" must name a kept step that sorts before: the plan runs in order. */
	for (size_t i = 0; i < n;) {
		const struct ps_step_ops *dep =
		    out[i]->after ? ps_step_find(out, n, out[i]->after) : NULL;

		if (!out[i]->after || (dep && step_cmp(&dep, &out[i]) < 0)) {
			i++;
			continue;
		}
		snprintf(msg, sizeof(msg), "refusing step %s: it runs after %s, which %s",
			 out[i]->name, out[i]->after,
			 dep ? "does not come first in the plan order" : "is not registered");
		if (refuse)
			refuse(msg, arg);
		memmove(&out[i], &out[i + 1], (n - i - 1) * sizeof(*out));
		n--;
		i = 0; /* a step that ran after this one must be checked again */
	}
	return n;
}

/* Weak: a program with no step at all still links, with an empty registry. */
extern const struct ps_step_ops *const __start_ps_steps[] __attribute__((weak));
extern const struct ps_step_ops *const __stop_ps_steps[] __attribute__((weak));

static void refuse_stderr(const char *msg, void *arg)
{
	fprintf(stderr, "probestick: %s\n", msg);
}

const struct ps_step_ops *const *ps_registry(size_t *n)
{
	static const struct ps_step_ops **list;
	static size_t count;
	static bool done;

	if (!done) {
		size_t total = __start_ps_steps && __stop_ps_steps
				   ? (size_t)(__stop_ps_steps - __start_ps_steps)
				   : 0;

		done = true;
		list = calloc(total ? total : 1, sizeof(*list));
		if (list)
			count =
			    ps_registry_build(__start_ps_steps, total, list, refuse_stderr, NULL);
	}
	*n = count;
	return list;
}

const struct ps_step_ops *ps_step_find(const struct ps_step_ops *const *all, size_t n,
				       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

int ps_plan_select(const struct ps_step_ops *const *all, size_t n_all, const char *plan,
		   const char *steps_csv, const struct ps_step_ops **out, size_t *n_out, char *err,
		   size_t errlen)
{
	size_t n = 0;

	*n_out = 0;
	if (steps_csv) {
		bool *want = calloc(n_all ? n_all : 1, sizeof(*want));
		const char *p = steps_csv;

		if (!want) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		while (*p) {
			size_t len = strcspn(p, ",");
			bool found = false;

			for (size_t i = 0; i < n_all; i++) {
				if (strlen(all[i]->name) == len && !strncmp(all[i]->name, p, len)) {
					want[i] = true;
					found = true;
				}
			}
			if (!found) {
				snprintf(
				    err, errlen,
				    "no step named '%.*s' (see 'probestick steps' for the list)",
				    (int)(len > 40 ? 40 : len), p);
				free(want);
				return -EINVAL;
			}
			p += len;
			if (*p == ',')
				p++;
		}
		/* What a wanted step runs after is wanted too: its inputs are taken first. */
		for (bool more = true; more;) {
			more = false;
			for (size_t i = 0; i < n_all; i++) {
				for (size_t j = 0; want[i] && all[i]->after && j < n_all; j++) {
					if (!want[j] && strcmp(all[j]->name, all[i]->after) == 0) {
						want[j] = true;
						more = true;
					}
				}
			}
		}
		for (size_t i = 0; i < n_all; i++)
			if (want[i])
				out[n++] = all[i];
		free(want);
		if (n == 0) {
			snprintf(err, errlen, "--steps names no step");
			return -EINVAL;
		}
		*n_out = n;
		return 0;
	}
	unsigned int bit;

	if (plan && strcmp(plan, "quick") == 0) {
		bit = PS_PLAN_QUICK;
	} else if (plan && strcmp(plan, "full") == 0) {
		bit = PS_PLAN_FULL;
	} else {
		snprintf(err, errlen, "unknown plan '%.40s' (quick or full, or --steps a,b)",
			 plan ? plan : "");
		return -EINVAL;
	}
	for (size_t i = 0; i < n_all; i++)
		if (all[i]->plans & bit)
			out[n++] = all[i];
	*n_out = n;
	return 0;
}

/* out/gen/step_schemas.c, from the steps' //schema: lines. */
extern const struct {
	const char *name, *schema;
} ps_step_schemas[];

/* Fragments of steps built outside userland/steps (tests): added at run time. */
static struct {
	const char *name, *schema;
} extra[16];
static size_t n_extra;

int ps_step_schema_add(const char *name, const char *schema)
{
	if (n_extra == sizeof(extra) / sizeof(extra[0]))
		return -ENOSPC;
	extra[n_extra].name = name;
	extra[n_extra++].schema = schema;
	return 0;
}

const char *ps_step_schema(const char *name)
{
	/* a test's fake step may share a real step's name: its own fragment first */
	for (size_t i = 0; name && i < n_extra; i++)
		if (strcmp(extra[i].name, name) == 0)
			return extra[i].schema;
	for (size_t i = 0; name && ps_step_schemas[i].name; i++)
		if (strcmp(ps_step_schemas[i].name, name) == 0)
			return ps_step_schemas[i].schema;
	return NULL;
}

/* config{}: every step's setting, as its text or null, described by its help. */
static void config_schema(json_object *props)
{
	size_t n;
	const struct ps_setting *const *all = ps_settings(&n);

	for (size_t i = 0; props && i < n; i++) {
		json_object *o = json_tokener_parse("{\"type\": [\"string\", \"null\"]}");

		ps_json_set_str(o, "description", all[i]->help);
		ps_json_set(props, all[i]->key, o);
	}
}

void ps_report_schema(json_object *base)
{
	size_t n;
	const struct ps_step_ops *const *all = ps_registry(&n);
	json_object *defs = ps_json_get(base, "$defs"), *step = ps_json_get(defs, "step");
	json_object *all_of = json_object_new_array();

	/* A step that ran to its end holds all of its data of its version; a skipped,
	 * aborted or failed-to-run one may hold part of it, and an older version
	 * another shape: those are only held to "an object". */
	for (size_t i = 0; step && i < n; i++) {
		json_object *frag = ps_step_schema_json(all[i]), *cond, *props, *name, *status,
			    *ver, *then, *tprops, *rule;

		if (!frag)
			continue;
		cond = json_object_new_object();
		props = json_object_new_object();
		name = json_object_new_object();
		status = json_object_new_object();
		ver = json_object_new_object();
		ps_json_set(name, "const", json_object_new_string(all[i]->name));
		ps_json_set(status, "enum", json_tokener_parse("[\"pass\", \"warn\", \"fail\"]"));
		ps_json_set(ver, "const", json_object_new_int((int)all[i]->data_version));
		ps_json_set(props, "name", name);
		ps_json_set(props, "status", status);
		ps_json_set(props, "data_version", ver);
		ps_json_set(cond, "properties", props);
		ps_json_set(cond, "required",
			    json_tokener_parse("[\"name\", \"status\", \"data_version\"]"));
		then = json_object_new_object();
		tprops = json_object_new_object();
		ps_json_set(tprops, "data", json_object_get(frag));
		ps_json_set(then, "properties", tprops);
		rule = json_object_new_object();
		ps_json_set(rule, "if", cond);
		ps_json_set(rule, "then", then);
		json_object_array_add(all_of, rule);
	}
	if (step)
		ps_json_set(step, "allOf", all_of);
	else
		json_object_put(all_of);
	config_schema(ps_json_ptr(base, "/$defs/probestick/properties/config/properties"));
}
