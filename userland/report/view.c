/* view.c - checks of a view description (the registry refuses a step whose view is unusable),
 * and how a row and its columns are read by every renderer. */
#include "report/view.h"
#include "lib/json.h"

#include <stdio.h>
#include <string.h>

json_object *ps_col_value(json_object *row, json_object *parent, const char *path)
{
	if (!path)
		return NULL;
	if (path[0] == '^')
		return ps_json_ptr(parent, path + 1);
	return ps_json_ptr(row, path);
}

static bool present(json_object *row, const char *path)
{
	json_object *v = ps_json_ptr(row, path);

	if (!v)
		return false;
	if (json_object_is_type(v, json_type_array))
		return json_object_array_length(v) > 0;
	if (json_object_is_type(v, json_type_boolean))
		return json_object_get_boolean(v);
	return true;
}

bool ps_row_shown(const struct ps_block *b, json_object *row)
{
	if (b->when && !present(row, b->when))
		return false;
	if (b->unless && present(row, b->unless))
		return false;
	return true;
}

static bool path_ok(const char *p, bool parent_ok)
{
	if (!p)
		return false;
	if (parent_ok && p[0] == '^')
		p++;
	return p[0] == '\0' || p[0] == '/';
}

static bool col_ok(const struct ps_col *c, bool parent_ok, char *why, size_t whylen,
		   const char *block)
{
	if (!path_ok(c->path, parent_ok)) {
		snprintf(why, whylen, "block %s: a column path '%.40s' is not a JSON pointer",
			 block, c->path ? c->path : "(NULL)");
		return false;
	}
	if (!c->title || !*c->title) {
		snprintf(why, whylen, "block %s: column %s has no title", block, c->path);
		return false;
	}
	if ((c->spread && !path_ok(c->spread, parent_ok)) ||
	    (c->noisy && !path_ok(c->noisy, parent_ok)) ||
	    (c->unit_from && !path_ok(c->unit_from, parent_ok)) ||
	    (c->min && !path_ok(c->min, parent_ok)) || (c->max && !path_ok(c->max, parent_ok))) {
		snprintf(why, whylen,
			 "block %s: column %s has a spread or unit path that is not a pointer",
			 block, c->path);
		return false;
	}
	if ((c->fmt == PS_FMT_TEMPLATE) != (c->tmpl != NULL)) {
		snprintf(why, whylen,
			 "block %s: column %s: a template format needs its tmpl, and only it",
			 block, c->path);
		return false;
	}
	if (c->decimals < 0 || c->decimals > 6) {
		snprintf(why, whylen, "block %s: column %s has %d decimals (0-6)", block, c->path,
			 c->decimals);
		return false;
	}
	return true;
}

bool ps_view_valid(const struct ps_view *v, char *why, size_t whylen)
{
	if (!v || !v->name || !*v->name) {
		snprintf(why, whylen, "a view without a name");
		return false;
	}
	if (!v->version) {
		snprintf(why, whylen, "view %s has no version", v->name);
		return false;
	}
	if (!v->nblocks && !v->extend) {
		snprintf(why, whylen, "view %s shows nothing (no blocks, no extend hook)", v->name);
		return false;
	}
	for (size_t i = 0; i < v->nblocks; i++) {
		const struct ps_block *b = &v->blocks[i];
		bool keyed = false;

		if (!b->id || !*b->id || strchr(b->id, '.')) {
			snprintf(why, whylen, "view %s: block %zu has no id (or a '.' in it)",
				 v->name, i);
			return false;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(v->blocks[j].id, b->id) == 0) {
				snprintf(why, whylen, "view %s: two blocks named %s", v->name,
					 b->id);
				return false;
			}
		}
		if (!path_ok(b->rows, false) || (b->nested && !path_ok(b->nested, false)) ||
		    (b->when && !path_ok(b->when, false)) ||
		    (b->unless && !path_ok(b->unless, false))) {
			snprintf(why, whylen, "view %s: block %s has a path that is not a pointer",
				 v->name, b->id);
			return false;
		}
		if (!b->cols || !b->ncols) {
			snprintf(why, whylen, "view %s: block %s has no columns", v->name, b->id);
			return false;
		}
		if (b->kind == PS_BLOCK_SERIES && (b->ncols < 3 || !b->nested)) {
			snprintf(why, whylen,
				 "view %s: series %s needs a label, an x and a y column and its "
				 "points (nested)",
				 v->name, b->id);
			return false;
		}
		for (size_t c = 0; c < b->ncols; c++) {
			if ((b->cols[c].flags & PS_COL_EACH) &&
			    (b->kind != PS_BLOCK_SERIES || b->ncols != 3 || c != 2)) {
				snprintf(
				    why, whylen,
				    "view %s: block %s: only the one y column of a three-column "
				    "series can be PS_COL_EACH",
				    v->name, b->id);
				return false;
			}
			if (!col_ok(&b->cols[c], b->nested && b->kind == PS_BLOCK_TABLE, why,
				    whylen, b->id))
				return false;
			keyed = keyed || (b->cols[c].flags & PS_COL_KEY);
		}
		if (b->kind == PS_BLOCK_TABLE && !keyed) {
			snprintf(why, whylen,
				 "view %s: table %s has no key column (compare could not match its "
				 "rows)",
				 v->name, b->id);
			return false;
		}
	}
	return true;
}

const struct ps_view *ps_view_find(const struct ps_view_set *set, const char *name)
{
	for (size_t i = 0; set && name && i < set->n; i++)
		if (set->v[i] && set->v[i]->name && strcmp(set->v[i]->name, name) == 0)
			return set->v[i];
	return NULL;
}

const struct ps_view *ps_view_find_version(const struct ps_view_set *set, const char *name,
					   unsigned int version)
{
	for (size_t i = 0; set && name && i < set->n; i++)
		if (set->v[i] && set->v[i]->name && strcmp(set->v[i]->name, name) == 0 &&
		    set->v[i]->version == version)
			return set->v[i];
	return NULL;
}
