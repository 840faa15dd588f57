/*
 * doc.c - build the neutral document from a report and the views: every
 * renderer reads the report through this, so none of them knows a step.
 */
#include "report/doc.h"
#include "lib/json.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena: the document's memory, freed at once ---- */

struct ps_doc_arena {
	struct ps_doc_arena *next;
	size_t used, cap;
	max_align_t data[];
};

static void *doc_alloc(struct ps_doc *doc, size_t size)
{
	struct ps_doc_arena *a = doc->arena;
	size_t need = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	void *p;

	if (!need)
		need = sizeof(max_align_t);
	if (!a || a->used + need > a->cap) {
		size_t cap = need > 65536 ? need : 65536;

		a = malloc(sizeof(*a) + cap);
		if (!a)
			abort(); /* json-c aborts on allocation failure too: no partial document */
		a->next = doc->arena;
		a->used = 0;
		a->cap = cap;
		doc->arena = a;
	}
	p = (char *)a->data + a->used;
	a->used += need;
	memset(p, 0, need);
	return p;
}

const char *ps_doc_strdup(struct ps_doc *doc, const char *s)
{
	size_t n;
	char *p;

	if (!s)
		return NULL;
	n = strlen(s);
	p = doc_alloc(doc, n + 1);
	memcpy(p, s, n + 1);
	return p;
}

/* Arrays that grow by doubling inside the arena. */
static void *grow(struct ps_doc *doc, void *old, size_t n, size_t *cap, size_t elem)
{
	void *p;

	if (n < *cap)
		return old;
	*cap = *cap ? *cap * 2 : 8;
	p = doc_alloc(doc, *cap * elem);
	if (old)
		memcpy(p, old, n * elem);
	return p;
}

/* ---- cells ---- */

static void cell_null(struct ps_cell *c)
{
	memset(c, 0, sizeof(*c));
	c->type = PS_CELL_NULL;
	c->spread_pct = c->min = c->max = NAN;
	c->noisy = -1;
}

/* Arrays of scalars read as "a, b, c"; objects as their JSON text. */
static const char *composite_text(struct ps_doc *doc, json_object *v)
{
	char buf[512];
	size_t o = 0;

	if (!json_object_is_type(v, json_type_array))
		return ps_doc_strdup(doc,
				     json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	buf[0] = '\0';
	for (size_t i = 0; i < ps_json_len(v) && o + 2 < sizeof(buf); i++) {
		json_object *e = ps_json_at(v, i);
		const char *s = e ? json_object_get_string(e) : "null";
		int n = snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? ", " : "", s);

		if (n < 0)
			break;
		o += (size_t)n < sizeof(buf) - o ? (size_t)n : sizeof(buf) - o - 1;
	}
	return ps_doc_strdup(doc, buf);
}

static void cell_from(struct ps_doc *doc, struct ps_cell *c, json_object *v)
{
	cell_null(c);
	if (!v)
		return;
	switch (json_object_get_type(v)) {
	case json_type_int:
	case json_type_double:
		c->type = PS_CELL_NUM;
		c->num = json_object_get_double(v);
		break;
	case json_type_boolean:
		c->type = PS_CELL_BOOL;
		c->b = json_object_get_boolean(v);
		break;
	case json_type_string:
		c->type = PS_CELL_STR;
		c->str = json_object_get_string(v);
		break;
	case json_type_array:
	case json_type_object:
		c->type = PS_CELL_STR;
		c->str = composite_text(doc, v);
		break;
	default:
		break;
	}
}

static double num_at(json_object *row, json_object *parent, const char *path)
{
	double v;

	return path && ps_json_as_num(ps_col_value(row, parent, path), &v) ? v : NAN;
}

/* A scalar as a template or pairs cell shows it: numbers as JSON has them, booleans on/off. */
static const char *scalar_text(json_object *v)
{
	if (!v)
		return NULL;
	if (json_object_is_type(v, json_type_boolean))
		return json_object_get_boolean(v) ? "on" : "off";
	if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
		return NULL;
	return json_object_get_string(v);
}

/* PS_FMT_TEMPLATE: tmpl with each {/pointer} replaced by that member of obj. */
static const char *template_text(struct ps_doc *doc, const char *tmpl, json_object *obj)
{
	char buf[256], ptr[96];
	size_t o = 0;

	for (const char *p = tmpl; *p && o + 1 < sizeof(buf);) {
		const char *end = p[0] == '{' ? strchr(p, '}') : NULL;
		const char *v;

		if (!end || (size_t)(end - p - 1) >= sizeof(ptr)) {
			buf[o++] = *p++;
			continue;
		}
		memcpy(ptr, p + 1, (size_t)(end - p - 1));
		ptr[end - p - 1] = '\0';
		v = scalar_text(ps_json_ptr(obj, ptr));
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s", v ? v : "?");
		o = o < sizeof(buf) ? o : sizeof(buf) - 1;
		p = end + 1;
	}
	buf[o] = '\0';
	return ps_doc_strdup(doc, buf);
}

/* PS_FMT_PAIRS: "name value, ..." of an object's members that have a value. */
static const char *pairs_text(struct ps_doc *doc, json_object *obj)
{
	char buf[512];
	size_t o = 0;

	buf[0] = '\0';
	json_object_object_foreach(obj, key, val)
	{
		const char *v = scalar_text(val);

		if (!v || o + 1 >= sizeof(buf))
			continue;
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s %s", o ? ", " : "", key, v);
		o = o < sizeof(buf) ? o : sizeof(buf) - 1;
	}
	return ps_doc_strdup(doc, buf);
}

static void fill_row(struct ps_doc *doc, const struct ps_block *b, struct ps_cell *cells,
		     json_object *row, json_object *parent)
{
	for (size_t c = 0; c < b->ncols; c++) {
		const struct ps_col *col = &b->cols[c];

		json_object *v = ps_col_value(row, parent, col->path);

		cell_from(doc, &cells[c], v);
		if ((col->fmt == PS_FMT_TEMPLATE || col->fmt == PS_FMT_PAIRS) &&
		    json_object_is_type(v, json_type_object)) {
			cells[c].type = PS_CELL_STR;
			cells[c].str = col->fmt == PS_FMT_TEMPLATE
					   ? template_text(doc, col->tmpl, v)
					   : pairs_text(doc, v);
		}
		if (col->unit_from) {
			const char *u = scalar_text(ps_col_value(row, parent, col->unit_from));

			cells[c].unit = u && *u ? ps_doc_strdup(doc, u) : NULL;
		}
		cells[c].spread_pct = num_at(row, parent, col->spread);
		cells[c].min = num_at(row, parent, col->min);
		cells[c].max = num_at(row, parent, col->max);
		if (col->noisy) {
			json_object *n = ps_col_value(row, parent, col->noisy);

			if (n && json_object_is_type(n, json_type_boolean))
				cells[c].noisy = json_object_get_boolean(n);
		}
		if (col->fmt == PS_FMT_RANGE && !isnan(cells[c].min) && !isnan(cells[c].max)) {
			cells[c].type = PS_CELL_NUM;
			cells[c].num = cells[c].max - cells[c].min;
		}
	}
}

static void block_id(struct ps_doc *doc, struct ps_doc_block *db, const char *sec_id)
{
	char id[160];

	snprintf(id, sizeof(id), "%s.%s", sec_id ? sec_id : "doc", db->desc->id);
	db->id = ps_doc_strdup(doc, id);
}

/* The capacity grow() gave an array of n elements: 8, 16, 32, ... */
static size_t cap_of(size_t n)
{
	size_t cap = 0;

	while (cap < n)
		cap = cap ? cap * 2 : 8;
	return cap;
}

static struct ps_doc_block *new_block(struct ps_doc *doc, struct ps_doc_section *sec,
				      const struct ps_block *desc)
{
	struct ps_doc_block *blocks;
	size_t cap = cap_of(sec->nblocks);

	blocks = grow(doc, sec->blocks, sec->nblocks, &cap, sizeof(*blocks));
	sec->blocks = blocks;
	memset(&blocks[sec->nblocks], 0, sizeof(*blocks));
	blocks[sec->nblocks].desc = desc;
	block_id(doc, &blocks[sec->nblocks], sec->id);
	return &blocks[sec->nblocks++];
}

static void build_kv(struct ps_doc *doc, struct ps_doc_block *db, json_object *root)
{
	json_object *obj = ps_json_ptr(root, db->desc->rows);

	if (!obj || !json_object_is_type(obj, json_type_object) || !ps_row_shown(db->desc, obj))
		return;
	db->nrows = 1;
	db->cells = doc_alloc(doc, db->desc->ncols * sizeof(*db->cells));
	fill_row(doc, db->desc, db->cells, obj, NULL);
}

static void build_table(struct ps_doc *doc, struct ps_doc_block *db, json_object *root)
{
	const struct ps_block *b = db->desc;
	json_object *rows = ps_json_ptr(root, b->rows);
	size_t n = 0, k = 0;

	if (!rows || !json_object_is_type(rows, json_type_array))
		return;
	for (size_t i = 0; i < ps_json_len(rows); i++) {
		json_object *r = ps_json_at(rows, i);

		if (!ps_row_shown(b, r))
			continue;
		n += b->nested ? ps_json_len(ps_json_ptr(r, b->nested)) : 1;
	}
	if (!n)
		return;
	db->cells = doc_alloc(doc, n * b->ncols * sizeof(*db->cells));
	for (size_t i = 0; i < ps_json_len(rows); i++) {
		json_object *r = ps_json_at(rows, i), *sub;

		if (!ps_row_shown(b, r))
			continue;
		if (!b->nested) {
			fill_row(doc, b, &db->cells[k++ * b->ncols], r, NULL);
			continue;
		}
		sub = ps_json_ptr(r, b->nested);
		for (size_t j = 0; j < ps_json_len(sub); j++)
			fill_row(doc, b, &db->cells[k++ * b->ncols], ps_json_at(sub, j), r);
	}
	db->nrows = k;
}

/* The widest array a PS_COL_EACH column holds in the points of r: its line count. */
static size_t each_width(const struct ps_block *b, json_object *r)
{
	json_object *pts = ps_json_ptr(r, b->nested);
	size_t width = 0;

	for (size_t p = 0; p < ps_json_len(pts); p++) {
		size_t w = ps_json_len(ps_json_ptr(ps_json_at(pts, p), b->cols[2].path));

		width = w > width ? w : width;
	}
	return width;
}

/*
 * A series whose only y column holds an array per point (PS_COL_EACH): one
 * line per element, "<label title> <i>", over every point.
 */
static void series_each(struct ps_doc *doc, struct ps_doc_block *db, json_object *r)
{
	const struct ps_block *b = db->desc;
	json_object *pts = ps_json_ptr(r, b->nested);
	size_t npts = ps_json_len(pts), width = each_width(b, r);
	char label[96];

	for (size_t e = 0; e < width; e++) {
		struct ps_doc_line *l = &db->lines[db->nlines++];

		snprintf(label, sizeof(label), "%s %zu", b->cols[0].title, e);
		l->label = ps_doc_strdup(doc, label);
		l->n = npts;
		l->x = doc_alloc(doc, (npts ? npts : 1) * sizeof(double));
		l->y = doc_alloc(doc, (npts ? npts : 1) * sizeof(double));
		for (size_t p = 0; p < npts; p++) {
			json_object *pt = ps_json_at(pts, p);
			double v;

			l->x[p] = num_at(pt, NULL, b->cols[1].path);
			l->y[p] =
			    ps_json_as_num(ps_json_at(ps_json_ptr(pt, b->cols[2].path), e), &v)
				? v
				: NAN;
		}
	}
}

static void build_series(struct ps_doc *doc, struct ps_doc_block *db, json_object *root)
{
	const struct ps_block *b = db->desc;
	json_object *rows = ps_json_ptr(root, b->rows);
	size_t ny = b->ncols - 2;
	size_t nrows, nlines = 0;
	bool single, each = (b->cols[2].flags & PS_COL_EACH) != 0;

	if (!rows)
		return;
	/* rows naming an object: that object is the one line */
	single = json_object_is_type(rows, json_type_object);
	nrows = single ? 1 : ps_json_len(rows);
	for (size_t i = 0; i < nrows; i++) {
		json_object *r = single ? rows : ps_json_at(rows, i);

		if (ps_row_shown(b, r))
			nlines += each ? each_width(b, r) : 1;
	}
	if (!nlines)
		return;
	db->lines = doc_alloc(doc, nlines * sizeof(*db->lines));
	for (size_t i = 0; i < nrows; i++) {
		json_object *r = single ? rows : ps_json_at(rows, i), *pts, *label;
		struct ps_doc_line *l;

		if (!ps_row_shown(b, r))
			continue;
		if (each) {
			series_each(doc, db, r);
			continue;
		}
		pts = ps_json_ptr(r, b->nested);
		label = ps_json_ptr(r, b->cols[0].path);
		l = &db->lines[db->nlines++];
		l->label = label ? ps_doc_strdup(doc, json_object_get_string(label)) : NULL;
		l->n = ps_json_len(pts);
		l->x = doc_alloc(doc, (l->n ? l->n : 1) * sizeof(double));
		l->y = doc_alloc(doc, (l->n ? l->n : 1) * ny * sizeof(double));
		for (size_t p = 0; p < l->n; p++) {
			json_object *pt = ps_json_at(pts, p);

			l->x[p] = num_at(pt, NULL, b->cols[1].path);
			for (size_t y = 0; y < ny; y++)
				l->y[p * ny + y] = num_at(pt, NULL, b->cols[2 + y].path);
		}
	}
	db->nrows = db->nlines;
}

static void build_blocks(struct ps_doc *doc, struct ps_doc_section *sec, const struct ps_view *v,
			 json_object *root)
{
	for (size_t i = 0; i < v->nblocks; i++) {
		struct ps_doc_block *db = new_block(doc, sec, &v->blocks[i]);

		switch (v->blocks[i].kind) {
		case PS_BLOCK_KV:
			build_kv(doc, db, root);
			break;
		case PS_BLOCK_TABLE:
			build_table(doc, db, root);
			break;
		case PS_BLOCK_SERIES:
			build_series(doc, db, root);
			break;
		}
	}
	if (v->extend)
		v->extend(root, doc, sec);
}

struct ps_doc_block *ps_doc_add_block(struct ps_doc *doc, struct ps_doc_section *sec,
				      const struct ps_block *desc, size_t nrows)
{
	struct ps_doc_block *db = new_block(doc, sec, desc);

	db->nrows = nrows;
	db->cells = doc_alloc(doc, (nrows ? nrows : 1) * desc->ncols * sizeof(*db->cells));
	for (size_t i = 0; i < nrows * desc->ncols; i++)
		cell_null(&db->cells[i]);
	return db;
}

void ps_doc_cell_num(struct ps_doc_block *b, size_t row, size_t col, double v)
{
	struct ps_cell *c;

	if (row >= b->nrows || col >= b->desc->ncols)
		return;
	c = &b->cells[row * b->desc->ncols + col];
	c->type = isnan(v) ? PS_CELL_NULL : PS_CELL_NUM;
	c->num = v;
}

void ps_doc_cell_str(struct ps_doc *doc, struct ps_doc_block *b, size_t row, size_t col,
		     const char *s)
{
	struct ps_cell *c;

	if (row >= b->nrows || col >= b->desc->ncols)
		return;
	c = &b->cells[row * b->desc->ncols + col];
	c->type = s ? PS_CELL_STR : PS_CELL_NULL;
	c->str = ps_doc_strdup(doc, s);
}

/* ---- findings, sections, verdicts ---- */

static double jnum(json_object *o, const char *key)
{
	double v;

	return ps_json_num(o, key, &v) ? v : NAN;
}

static void build_findings(struct ps_doc *doc, struct ps_doc_section *sec, json_object *findings)
{
	size_t n = ps_json_len(findings);

	if (!n)
		return;
	sec->findings = doc_alloc(doc, n * sizeof(*sec->findings));
	for (size_t i = 0; i < n; i++) {
		json_object *f = ps_json_at(findings, i);
		struct ps_doc_finding *d = &sec->findings[sec->nfindings++];

		d->severity = ps_json_str_or(f, "severity", "warn");
		d->rule = ps_json_str(f, "rule");
		d->kind = ps_json_str(f, "kind");
		d->device = ps_json_str(f, "device");
		d->subject = ps_json_str(f, "subject");
		d->message = ps_json_str_or(f, "message", "");
		d->value = jnum(f, "value");
		d->limit = jnum(f, "limit");
		d->unit = ps_json_str(f, "unit");
	}
}

static void section_for_step(struct ps_doc *doc, struct ps_doc_section *sec, json_object *step,
			     const struct ps_view_set *views)
{
	const char *name = ps_json_str_or(step, "name", "?");
	const struct ps_view *v = ps_view_find(views, name);
	int64_t ver = 1;
	char note[200];

	sec->kind = v && v->scope == PS_SCOPE_REPORT ? PS_SEC_INVENTORY : PS_SEC_STEP;
	sec->id = name;
	sec->title = name;
	sec->step = name;
	sec->status = ps_json_str_or(step, "status", "?");
	sec->duration_s = jnum(step, "duration_s");
	sec->reason = ps_json_str(step, "reason");
	build_findings(doc, sec, ps_json_arr(step, "findings"));
	ps_json_int(step, "data_version", &ver);
	/* a report of an earlier probestick: the view the step keeps for that version */
	if (v && v->version != ver && ver > 0 && ver <= UINT32_MAX &&
	    ps_view_find_version(views, name, (unsigned int)ver))
		v = ps_view_find_version(views, name, (unsigned int)ver);
	if (!v) {
		snprintf(note, sizeof(note),
			 "this probestick has no view of step %s: its figures are in report.json",
			 name);
		sec->note = ps_doc_strdup(doc, note);
	} else if (v->version != ver) {
		snprintf(note, sizeof(note),
			 "data version %lld of step %s; this probestick shows version %u: see "
			 "report.json",
			 (long long)ver, name, v->version);
		sec->note = ps_doc_strdup(doc, note);
	} else {
		build_blocks(doc, sec, v,
			     v->scope == PS_SCOPE_REPORT ? doc->report : ps_json_get(step, "data"));
	}
	/* The recorders every step carries (load, probes, kmsg): children of the step. */
	for (size_t i = 0; views && i < views->n; i++) {
		const struct ps_view *rv = views->v[i];
		json_object *member =
		    rv && rv->scope == PS_SCOPE_MEMBER ? ps_json_get(step, rv->name) : NULL;
		struct ps_doc_section *child;
		size_t cap;
		char id[160];

		if (!member)
			continue;
		cap = cap_of(sec->nchildren);
		sec->children = grow(doc, sec->children, sec->nchildren, &cap, sizeof(*child));
		child = &sec->children[sec->nchildren++];
		memset(child, 0, sizeof(*child));
		snprintf(id, sizeof(id), "%s.%s", name, rv->name);
		child->kind = PS_SEC_RECORDER;
		child->id = ps_doc_strdup(doc, id);
		child->title = rv->name;
		child->step = name;
		child->status = sec->status;
		child->duration_s = NAN;
		build_blocks(doc, child, rv, member);
	}
}

static int status_rank(const char *s)
{
	if (!s)
		return 0;
	if (strcmp(s, "fail") == 0)
		return 3;
	if (strcmp(s, "warn") == 0)
		return 2;
	if (strcmp(s, "pass") == 0)
		return 1;
	return 0;
}

static bool same_dev(const struct ps_doc_verdict *v, json_object *o)
{
	const char *id = ps_json_str(o, "device"), *kind = ps_json_str(o, "kind"),
		   *subj = ps_json_str(o, "subject");

	if (v->device && id)
		return strcmp(v->device, id) == 0;
	return v->kind && kind && v->subject && subj && strcmp(v->kind, kind) == 0 &&
	       strcmp(v->subject, subj) == 0;
}

static const char *const kind_order[] = {"machine", "drive", "nic", "link", "dimm"};

static int kind_rank(const char *k)
{
	for (size_t i = 0; k && i < sizeof(kind_order) / sizeof(kind_order[0]); i++)
		if (strcmp(k, kind_order[i]) == 0)
			return (int)i;
	return 99;
}

static int verdict_cmp(const void *a, const void *b)
{
	const struct ps_doc_verdict *x = a, *y = b;
	int rx = status_rank(x->status), ry = status_rank(y->status);

	if (rx != ry)
		return ry - rx;
	if (kind_rank(x->kind) != kind_rank(y->kind))
		return kind_rank(x->kind) - kind_rank(y->kind);
	return strcmp(x->subject ? x->subject : "", y->subject ? y->subject : "");
}

bool ps_doc_verdict_passed(const struct ps_doc_verdict *v)
{
	return strcmp(v->status, "pass") == 0 && !v->untested_by;
}

/* A step could not measure v: its name joins untested_by, the first reason stays. */
static void untested(struct ps_doc *doc, struct ps_doc_verdict *v, const char *step, json_object *o)
{
	char by[512];

	snprintf(by, sizeof(by), "%s%s%s", v->untested_by ? v->untested_by : "",
		 v->untested_by ? ", " : "", step ? step : "?");
	v->untested_by = ps_doc_strdup(doc, by);
	if (!v->untested_why)
		v->untested_why = ps_json_str(o, "message");
}

static void build_verdicts(struct ps_doc *doc, json_object *steps)
{
	size_t cap = 0;

	for (size_t i = 0; i < ps_json_len(steps); i++) {
		json_object *s = ps_json_at(steps, i), *vs = ps_json_arr(s, "verdicts");

		for (size_t j = 0; j < ps_json_len(vs); j++) {
			json_object *o = ps_json_at(vs, j);
			struct ps_doc_verdict *v = NULL;
			bool fresh = false;

			for (size_t k = 0; k < doc->nverdicts && !v; k++)
				if (same_dev(&doc->verdicts[k], o))
					v = &doc->verdicts[k];
			if (!v) {
				doc->verdicts = grow(doc, doc->verdicts, doc->nverdicts, &cap,
						     sizeof(*doc->verdicts));
				v = &doc->verdicts[doc->nverdicts++];
				memset(v, 0, sizeof(*v));
				v->kind = ps_json_str(o, "kind");
				v->device = ps_json_str(o, "device");
				v->subject = ps_json_str(o, "subject");
				fresh = true;
			}
			if (strcmp(ps_json_str_or(o, "status", ""), "untested") == 0)
				untested(doc, v, ps_json_str(s, "name"), o);
			if (!fresh &&
			    status_rank(ps_json_str(o, "status")) <= status_rank(v->status))
				continue; /* the earliest step with the worst verdict decides */
			v->status = ps_json_str_or(o, "status", "pass");
			v->rule = ps_json_str(o, "rule");
			v->message = ps_json_str(o, "message");
			v->step = ps_json_str(s, "name");
			v->value = jnum(o, "value");
			v->limit = jnum(o, "limit");
			v->unit = ps_json_str(o, "unit");
		}
	}
	if (doc->nverdicts)
		qsort(doc->verdicts, doc->nverdicts, sizeof(*doc->verdicts), verdict_cmp);
}

/* What this run's boot found on the stick and did (stick{}), as lines for people. */
static void stick_notes(struct ps_doc *doc, json_object *stick)
{
	json_object *check = ps_json_get(stick, "check"), *rec = ps_json_arr(stick, "recovered");
	json_object *probs = ps_json_arr(check, "problems");
	size_t n = 0, cap = 1 + ps_json_len(rec);
	char line[2048];

	doc->stick_notes = doc_alloc(doc, cap * sizeof(*doc->stick_notes));
	if (ps_json_str(check, "error")) {
		snprintf(line, sizeof(line), "not checked at boot: %s",
			 ps_json_str(check, "error"));
		doc->stick_notes[n++] = ps_doc_strdup(doc, line);
	} else if (check && ps_json_bool(check, "clean") == 0) {
		int len =
		    snprintf(line, sizeof(line),
			     "checked at boot (%s):", ps_json_str_or(check, "tool", "fsck.fat"));

		for (size_t i = 0; i < ps_json_len(probs) && len < (int)sizeof(line); i++)
			len += snprintf(line + len, sizeof(line) - len, "%s %s", i ? ";" : "",
					ps_json_str_or(ps_json_at(probs, i), "message", "?"));
		if (len < (int)sizeof(line))
			snprintf(line + len, sizeof(line) - len, "%s",
				 ps_json_bool(check, "clean_after") == 1 ? "; repaired, clean now"
				 : ps_json_bool(check, "repaired") == 1
				     ? "; repaired, still not clean"
				     : "; not repaired");
		doc->stick_notes[n++] = ps_doc_strdup(doc, line);
	}
	for (size_t i = 0; i < ps_json_len(rec) && n < cap; i++) {
		json_object *r = ps_json_at(rec, i);

		snprintf(line, sizeof(line), "%s: %s", ps_json_str_or(r, "path", "?"),
			 ps_json_str_or(r, "message", "?"));
		doc->stick_notes[n++] = ps_doc_strdup(doc, line);
	}
	doc->nstick_notes = n;
}

struct ps_doc *ps_doc_build(json_object *report, const struct ps_view_set *views)
{
	struct ps_doc *doc = calloc(1, sizeof(*doc));
	json_object *steps = ps_json_arr(report, "steps"), *ps = ps_json_get(report, "probestick");
	json_object *m = ps_json_get(report, "machine"), *w = ps_json_arr(report, "warnings");
	int64_t ver = 0;
	char machine[256];

	if (!doc)
		return NULL;
	doc->report = json_object_get(report);
	ps_json_int(report, "schema_version", &ver);
	doc->schema_version = (int)ver;
	doc->plan = ps_json_str_or(report, "plan", "?");
	doc->created = ps_json_str_or(report, "created", "?");
	doc->machine_id = ps_json_str_or(report, "machine_id", "unknown");
	doc->complete = ps_json_bool(report, "complete") == 1;
	doc->stopped_at = ps_json_str(report, "running_step");
	if (ps_json_get(report, "interrupted")) {
		json_object *cut = ps_json_get(report, "interrupted");

		doc->cut = true;
		doc->cut_cause = ps_json_str(cut, "cause");
		doc->cut_message = ps_json_str(cut, "message");
		doc->cut_found = ps_json_str(cut, "found");
	}
	if (ps_json_get(report, "stick"))
		stick_notes(doc, ps_json_get(report, "stick"));
	/* collect{}: its summary is written for people (collect/collect.c) */
	doc->collect_note = ps_json_str(ps_json_get(report, "collect"), "summary");
	doc->collect_failed = strcmp(ps_json_str_or(ps_json_get(report, "collect"), "status", ""),
				     "not_delivered") == 0;
	doc->version = ps_json_str_or(ps, "version", "?");
	doc->kernel = ps_json_str(ps, "kernel");
	doc->module_status = ps_json_str(ps, "module_status");
	if (ps_json_str(m, "vendor") || ps_json_str(m, "product")) {
		snprintf(machine, sizeof(machine), "%s %s", ps_json_str_or(m, "vendor", ""),
			 ps_json_str_or(m, "product", ""));
		doc->machine = ps_doc_strdup(doc, machine);
	}
	doc->nwarnings = ps_json_len(w);
	if (doc->nwarnings) {
		doc->warnings = doc_alloc(doc, doc->nwarnings * sizeof(*doc->warnings));
		for (size_t i = 0; i < doc->nwarnings; i++) {
			json_object *s = ps_json_at(w, i);

			doc->warnings[i] = s && json_object_is_type(s, json_type_string)
					       ? json_object_get_string(s)
					       : "?";
		}
	}
	if (ps_json_len(steps)) {
		doc->sections = doc_alloc(doc, ps_json_len(steps) * sizeof(*doc->sections));
		for (size_t i = 0; i < ps_json_len(steps); i++)
			section_for_step(doc, &doc->sections[doc->nsections++],
					 ps_json_at(steps, i), views);
	}
	build_verdicts(doc, steps);
	return doc;
}

struct ps_doc_section *ps_doc_build_step(struct ps_doc *doc, json_object *step,
					 const struct ps_view_set *views)
{
	struct ps_doc_section *sec = doc_alloc(doc, sizeof(*sec));

	section_for_step(doc, sec, step, views);
	return sec;
}

void ps_doc_free(struct ps_doc *doc)
{
	if (!doc)
		return;
	while (doc->arena) {
		struct ps_doc_arena *next = doc->arena->next;

		free(doc->arena);
		doc->arena = next;
	}
	json_object_put(doc->report);
	free(doc);
}

/* ---- formatting ---- */

static size_t scaled(char *buf, size_t len, double v, double base, const char *const *units,
		     size_t nunits)
{
	size_t u = 0;

	while (fabs(v) >= base && u + 1 < nunits) {
		v /= base;
		u++;
	}
	if (u == 0)
		return (size_t)snprintf(buf, len, "%.0f %s", v, units[0]);
	return (size_t)snprintf(buf, len, "%.*f %s",
				fabs(v) < 10	? 2
				: fabs(v) < 100 ? 1
						: 0,
				v, units[u]);
}

static size_t duration(char *buf, size_t len, double s)
{
	if (s < 60)
		return (size_t)snprintf(buf, len, "%.*f s", s < 10 ? 1 : 0, s);
	if (!(s < 3600.0 * INT_MAX)) /* NaN, infinite, or past what int hours hold */
		return (size_t)snprintf(buf, len, "%g s", s);
	if (s < 3600)
		return (size_t)snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
	return (size_t)snprintf(buf, len, "%d h %02d min", (int)(s / 3600),
				(int)((long long)(s / 60) % 60));
}

static size_t latency_ns(char *buf, size_t len, double ns)
{
	if (ns < 1000)
		return (size_t)snprintf(buf, len, "%.0f ns", ns);
	if (ns < 1e6)
		return (size_t)snprintf(buf, len, "%.*f us",
					ns < 1e4   ? 2
					: ns < 1e5 ? 1
						   : 0,
					ns / 1e3);
	if (ns < 1e9)
		return (size_t)snprintf(buf, len, "%.*f ms",
					ns < 1e7   ? 2
					: ns < 1e8 ? 1
						   : 0,
					ns / 1e6);
	return (size_t)snprintf(buf, len, "%.2f s", ns / 1e9);
}

size_t ps_num_text(double v, const char *unit, char *buf, size_t len)
{
	double a = fabs(v);
	int dec = a >= 100 ? 0 : a >= 10 ? 1 : 2;
	char num[64];
	size_t n;

	if (!len)
		return 0;
	if (isnan(v))
		return (size_t)snprintf(buf, len, "-");
	if ((a < 1e15 && v == (double)(int64_t)v) || (unit && strcmp(unit, "%") == 0 && a >= 10))
		dec = 0;
	else if (unit && strcmp(unit, "%") == 0)
		dec = 1;
	n = (size_t)snprintf(num, sizeof(num), "%.*f", dec, v);
	/* "3.70" reads as more precise than it was measured: "3.7" */
	while (dec && n > 1 && num[n - 1] == '0')
		num[--n] = '\0';
	if (n && num[n - 1] == '.')
		num[--n] = '\0';
	return (size_t)snprintf(buf, len, "%s%s%s", num, unit && *unit ? " " : "",
				unit ? unit : "");
}

size_t ps_cell_text(const struct ps_cell *c, const struct ps_col *col, char *buf, size_t len,
		    bool with_unit)
{
	static const char *const si[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	static const char *const iec[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	size_t n;

	if (!len)
		return 0;
	if (col->fmt == PS_FMT_RANGE) {
		if (isnan(c->min) || isnan(c->max))
			return (size_t)snprintf(buf, len, "-");
		return (size_t)snprintf(buf, len, "%.*f-%.*f", col->decimals, c->min, col->decimals,
					c->max);
	}
	switch (c->type) {
	case PS_CELL_NULL:
		return (size_t)snprintf(buf, len, "-");
	case PS_CELL_BOOL:
		return (size_t)snprintf(buf, len, "%s", c->b ? "yes" : "no");
	case PS_CELL_STR:
		if (col->fmt == PS_FMT_STATUS && c->str &&
		    (!strcmp(c->str, "warn") || !strcmp(c->str, "fail") ||
		     !strcmp(c->str, "error"))) {
			n = (size_t)snprintf(buf, len, "%s", c->str);
			for (size_t i = 0; i < n && i < len; i++)
				buf[i] =
				    (char)(buf[i] >= 'a' && buf[i] <= 'z' ? buf[i] - 32 : buf[i]);
			return n;
		}
		return ps_text_clean(c->str ? c->str : "", strlen(c->str ? c->str : ""), NULL, buf,
				     len);
	case PS_CELL_NUM:
		break;
	}
	switch (col->fmt) {
	case PS_FMT_BYTES:
		return scaled(buf, len, c->num, 1000, si, 6);
	case PS_FMT_IBYTES:
		return scaled(buf, len, c->num, 1024, iec, 6);
	case PS_FMT_BLOCK: {
		/* saturated: a report's number may be past what uint64_t holds */
		uint64_t b = c->num > 0 ? c->num < 0x1p64 ? (uint64_t)c->num : UINT64_MAX : 0;

		if (b && b % (1024 * 1024) == 0)
			return (size_t)snprintf(buf, len, "%lluM", (unsigned long long)(b >> 20));
		if (b && b % 1024 == 0)
			return (size_t)snprintf(buf, len, "%lluK", (unsigned long long)(b >> 10));
		return (size_t)snprintf(buf, len, "%llu", (unsigned long long)b);
	}
	case PS_FMT_BOOL:
		return (size_t)snprintf(buf, len, "%s", c->num != 0 ? "yes" : "no");
	case PS_FMT_SECONDS:
		return duration(buf, len, c->num);
	case PS_FMT_NS:
		return latency_ns(buf, len, c->num);
	case PS_FMT_US:
		return latency_ns(buf, len, c->num * 1e3);
	default:
		break;
	}
	n = (size_t)snprintf(buf, len, "%.*f", col->decimals, c->num);
	if (with_unit && (c->unit || col->unit) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " %s", c->unit ? c->unit : col->unit);
	return n;
}

size_t ps_doc_headline(const struct ps_doc_section *sec, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (size_t b = 0; sec && b < sec->nblocks; b++) {
		const struct ps_doc_block *db = &sec->blocks[b];
		const struct ps_block *d = db->desc;

		if (d->kind == PS_BLOCK_SERIES)
			continue;
		for (size_t r = 0; r < db->nrows; r++) {
			const struct ps_cell *row = &db->cells[r * d->ncols];
			char piece[200];
			size_t p = 0;
			bool any = false;

			/* the row as a person names it: every key, "eth0 -> eth1 tcp str 4" */
			if (d->kind == PS_BLOCK_TABLE)
				p = ps_doc_row_label(db, r, piece, sizeof(piece));
			for (size_t c = 0; c < d->ncols && p + 2 < sizeof(piece); c++) {
				const struct ps_col *col = &d->cols[c];

				if (!(col->flags & PS_COL_HEADLINE) || row[c].type == PS_CELL_NULL)
					continue;
				/* never a bare number: "errors 0", "triad 3.7 GB/s", "882 MB/s" */
				const char *word = col->head			   ? col->head
						   : !col->unit && !col->unit_from ? col->title
										   : NULL;

				if (p)
					p += (size_t)snprintf(piece + p, sizeof(piece) - p, "%s",
							      word && any ? ", " : " ");
				if (word && p < sizeof(piece))
					p += (size_t)snprintf(piece + p, sizeof(piece) - p, "%s ",
							      word);
				if (p < sizeof(piece))
					p += ps_cell_text(&row[c], col, piece + p,
							  sizeof(piece) - p, true);
				any = true;
			}
			if (p >= sizeof(piece))
				p = sizeof(piece) - 1;
			if (!any)
				continue;
			if (o + p + 3 >= len)
				return o;
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", piece);
		}
	}
	return o;
}

bool ps_cell_marked(const struct ps_cell *c, const struct ps_col *col)
{
	const char *p = col->bad;
	size_t n;

	if (!p || c->type != PS_CELL_STR || !c->str)
		return false;
	n = strlen(c->str);
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && strncmp(p, c->str, n) == 0)
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

const struct ps_doc_block *ps_doc_block_find(const struct ps_doc_section *sec, const char *id)
{
	for (size_t i = 0; sec && id && i < sec->nblocks; i++)
		if (sec->blocks[i].desc->id && strcmp(sec->blocks[i].desc->id, id) == 0)
			return &sec->blocks[i];
	return NULL;
}

size_t ps_doc_row_label(const struct ps_doc_block *b, size_t row, char *buf, size_t len)
{
	const struct ps_block *d = b->desc;
	size_t o = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (row >= b->nrows || !b->cells)
		return 0;
	for (size_t c = 0; c < d->ncols && o + 1 < len; c++) {
		const struct ps_col *col = &d->cols[c];
		const struct ps_cell *cell = &b->cells[row * d->ncols + c];
		char v[160];

		if (!(col->flags & PS_COL_KEY) || (col->flags & PS_COL_DEVICE))
			continue;
		ps_cell_text(cell, col, v, sizeof(v), false);
		if (cell->type == PS_CELL_NUM && col->fmt == PS_FMT_AUTO)
			o += (size_t)snprintf(buf + o, len - o, "%s%s %s", o ? " " : "", col->title,
					      v);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", v);
	}
	return o < len ? o : len - 1;
}
