/*
 * compare.c - runs side by side: devices by stable identity, rows by the
 * views' keys, each figure's change against the first run judged against
 * the runs' own spread, and what differed in the conditions of the runs.
 * Knows no step: everything comes from the documents and their views.
 */
#include "report/compare.h"
#include "report/label.h"
#include "report/chart.h"
#include "report/html.h"
#include "report/label.h"
#include "lib/json.h"
#include "report/report.h"
#include "report/text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH	 79  /* as report.txt: fits an 80-column console */
#define NOISE_CV 2.0 /* without a min-max: a change within this many CVs is noise */
#define MAX_CATS 64  /* rows of one chart */

static const char run_letter[] = "ABCDEFGH";

/* ---- matching ---- */

static bool parent_level(const struct ps_col *c)
{
	return c->path && c->path[0] == '^';
}

/*
 * What identifies a row: its device ids (when the runs are of one machine)
 * and the keys that are not names of that device (a drive's name goes, its
 * block size stays); without ids, every key column.
 */
static void row_key(const struct ps_doc_block *db, size_t r, bool by_device, char *buf, size_t len)
{
	const struct ps_block *d = db->desc;
	const struct ps_cell *row = &db->cells[r * d->ncols];
	bool dev = false, level[2] = {false, false};
	size_t o = 0;

	buf[0] = '\0';
	for (size_t c = 0; by_device && c < d->ncols; c++)
		if ((d->cols[c].flags & PS_COL_DEVICE) && row[c].type == PS_CELL_STR &&
		    row[c].str) {
			dev = true;
			level[parent_level(&d->cols[c])] = true;
		}
	for (size_t c = 0; c < d->ncols && o + 1 < len; c++) {
		const struct ps_col *col = &d->cols[c];
		char v[200];

		if (col->flags & PS_COL_DEVICE) {
			if (dev && row[c].type == PS_CELL_STR)
				o += (size_t)snprintf(buf + o, len - o, "%s[%s]", o ? " " : "",
						      row[c].str);
			continue;
		}
		if (!(col->flags & PS_COL_KEY) || (dev && level[parent_level(col)]))
			continue;
		ps_cell_text(&row[c], col, v, sizeof(v), false);
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", v);
	}
}

/* The device ids of row r, blank separated ("" when the row names none). */
static void row_devices(const struct ps_doc_block *db, size_t r, char *buf, size_t len)
{
	const struct ps_block *d = db->desc;
	const struct ps_cell *row = &db->cells[r * d->ncols];
	size_t o = 0;

	buf[0] = '\0';
	for (size_t c = 0; c < d->ncols && o + 1 < len; c++)
		if ((d->cols[c].flags & PS_COL_DEVICE) && row[c].type == PS_CELL_STR && row[c].str)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", row[c].str);
}

static bool figure_col(const struct ps_col *col)
{
	return !(col->flags & (PS_COL_KEY | PS_COL_DEVICE)) && col->fmt != PS_FMT_RANGE;
}

static struct ps_cmp_figure *find_fig(struct ps_cmp *c, size_t *cap, const char *sec,
				      const struct ps_block *b, const struct ps_col *col,
				      const char *key)
{
	struct ps_cmp_figure *f;

	for (size_t i = 0; i < c->nfig; i++) {
		f = &c->fig[i];
		/* the same column of the same view; across two data versions of a step (an
		 * older view it keeps) the column of the same title: a member renamed for a
		 * new version keeps its title, and runs of both versions still compare */
		if (strcmp(f->section, sec) == 0 && strcmp(f->block->id, b->id) == 0 &&
		    (f->block == b ? f->col == col : strcmp(f->col->title, col->title) == 0) &&
		    strcmp(f->key, key) == 0)
			return f;
	}
	if (c->nfig == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		void *p = realloc(c->fig, ncap * sizeof(*c->fig));

		if (!p)
			return NULL;
		c->fig = p;
		*cap = ncap;
	}
	f = &c->fig[c->nfig++];
	memset(f, 0, sizeof(*f));
	f->section = sec;
	f->block = b;
	f->col = col;
	snprintf(f->key, sizeof(f->key), "%s", key);
	for (size_t j = 0; j < PS_CMP_MAX_RUNS; j++) {
		f->v[j].change_pct = NAN;
		f->v[j].mark = PS_CMP_MISSING;
	}
	return f;
}

static int collect_section(struct ps_cmp *c, size_t *cap, size_t run,
			   const struct ps_doc_section *s)
{
	for (size_t b = 0; b < s->nblocks; b++) {
		const struct ps_doc_block *db = &s->blocks[b];
		const struct ps_block *d = db->desc;

		if (d->kind == PS_BLOCK_SERIES || !db->cells)
			continue;
		for (size_t r = 0; r < db->nrows; r++) {
			char key[400], label[200];

			row_key(db, r, c->same_machine, key, sizeof(key));
			ps_doc_row_label(db, r, label, sizeof(label));
			for (size_t k = 0; k < d->ncols; k++) {
				struct ps_cmp_figure *f;

				if (!figure_col(&d->cols[k]))
					continue;
				f = find_fig(c, cap, s->id, d, &d->cols[k], key);
				if (!f)
					return -ENOMEM;
				if (!f->row[0]) {
					snprintf(f->row, sizeof(f->row), "%s", label);
					row_devices(db, r, f->dev, sizeof(f->dev));
				}
				f->env = (d->flags & PS_BLOCK_ENV) != 0;
				f->step = s->kind == PS_SEC_STEP;
				if (f->v[run].present)
					continue; /* two rows with one key: the first counts */
				f->v[run].present = true;
				f->v[run].cell = db->cells[r * d->ncols + k];
			}
		}
	}
	/* A step's load, interrupts and kernel log (its children) differ from run to run in
	 * which lines they list and carry no spread: compare leaves them to the reports. */
	return 0;
}

/* ---- judging ---- */

static bool cells_equal(const struct ps_cell *a, const struct ps_cell *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case PS_CELL_NULL:
		return true;
	case PS_CELL_NUM:
		return a->num == b->num;
	case PS_CELL_BOOL:
		return a->b == b->b;
	case PS_CELL_STR:
		return strcmp(a->str ? a->str : "", b->str ? b->str : "") == 0;
	}
	return false;
}

/* Is b's change from a larger than their spread? -1 unknown, 0 within, 1 beyond. */
static int beyond_spread(const struct ps_cell *a, const struct ps_cell *b)
{
	if (!isnan(a->min) && !isnan(a->max) && !isnan(b->min) && !isnan(b->max))
		return a->max < b->min || b->max < a->min; /* the runs' ranges do not overlap */
	if (!isnan(a->spread_pct) || !isnan(b->spread_pct)) {
		double cv = isnan(a->spread_pct)	    ? b->spread_pct
			    : isnan(b->spread_pct)	    ? a->spread_pct
			    : a->spread_pct > b->spread_pct ? a->spread_pct
							    : b->spread_pct;
		double change = a->num ? (b->num - a->num) / fabs(a->num) * 100 : INFINITY;

		return fabs(change) > NOISE_CV * cv;
	}
	return -1;
}

static void judge(struct ps_cmp_figure *f, size_t j)
{
	const struct ps_cmp_value *a = &f->v[0];
	struct ps_cmp_value *b = &f->v[j];
	int spread;

	if (!a->present || !b->present) {
		b->mark = PS_CMP_MISSING;
		return;
	}
	if (cells_equal(&a->cell, &b->cell)) {
		b->mark = PS_CMP_SAME;
		b->change_pct = a->cell.type == PS_CELL_NUM ? 0 : NAN;
		return;
	}
	if (a->cell.type != PS_CELL_NUM || b->cell.type != PS_CELL_NUM) {
		b->mark = (f->col->flags & PS_COL_MEASURED) ? PS_CMP_UNJUDGED : PS_CMP_CHANGED;
		return;
	}
	b->change_pct =
	    a->cell.num ? (b->cell.num - a->cell.num) / fabs(a->cell.num) * 100 : INFINITY;
	if (f->col->flags & PS_COL_MEASURED) {
		b->mark = PS_CMP_UNJUDGED;
		return;
	}
	if (f->col->better == PS_BETTER_NONE) {
		b->mark = PS_CMP_CHANGED;
		return;
	}
	spread = beyond_spread(&a->cell, &b->cell);
	if (spread < 0)
		b->mark = PS_CMP_UNJUDGED;
	else if (!spread)
		b->mark = PS_CMP_NOISE;
	else if ((b->cell.num > a->cell.num) == (f->col->better == PS_BETTER_HIGHER))
		b->mark = PS_CMP_BETTER;
	else
		b->mark = PS_CMP_WORSE;
}

static int mark_rank(enum ps_cmp_mark m);

/* Is g the figure f, shown twice: one device's, a number in every run and equal in each? */
static bool same_figure(const struct ps_cmp *c, const struct ps_cmp_figure *f,
			const struct ps_cmp_figure *g)
{
	if (f->env || g->env || !f->dev[0] || strcmp(f->dev, g->dev) ||
	    strcmp(f->section, g->section))
		return false;
	for (size_t j = 0; j < c->nruns; j++) {
		const struct ps_cmp_value *a = &f->v[j], *b = &g->v[j];

		if (!a->present || !b->present || a->cell.type != PS_CELL_NUM ||
		    b->cell.type != PS_CELL_NUM || a->cell.num != b->cell.num)
			return false;
	}
	return true;
}

/* A mark made against the runs' spread. */
static bool judged(enum ps_cmp_mark m)
{
	return m == PS_CMP_WORSE || m == PS_CMP_BETTER || m == PS_CMP_NOISE;
}

/*
 * Two figures of one row measured by the same runs (one CV: MB/s and IOPS at
 * one block size) move together: the one without a min-max of its own takes
 * the judgement its sibling made from the ranges, so a row never reads WORSE
 * and "within spread" for one change.
 */
static void judge_siblings(struct ps_cmp *c)
{
	for (size_t i = 0; i < c->nfig; i++) {
		struct ps_cmp_figure *f = &c->fig[i];

		if (!f->col->spread || (f->col->min && f->col->max))
			continue;
		for (size_t k = 0; k < c->nfig; k++) {
			const struct ps_cmp_figure *g = &c->fig[k];

			if (g == f || g->block != f->block || strcmp(g->key, f->key) ||
			    !g->col->spread || strcmp(g->col->spread, f->col->spread) ||
			    !g->col->min || !g->col->max || g->col->better != f->col->better)
				continue;
			f->mark = PS_CMP_SAME;
			for (size_t j = 1; j < c->nruns; j++) {
				if (judged(f->v[j].mark) && judged(g->v[j].mark))
					f->v[j].mark = g->v[j].mark;
				if (mark_rank(f->v[j].mark) > mark_rank(f->mark))
					f->mark = f->v[j].mark;
			}
			break;
		}
	}
}

/*
 * A figure a step shows in two tables (the drive's headline and the same
 * median in its matrix) is judged once: the table that knows its spread
 * wins, else the first; the other copy is left out of the lists and tallies.
 */
static void judge_once(struct ps_cmp *c)
{
	for (size_t i = 0; i < c->nfig; i++) {
		struct ps_cmp_figure *f = &c->fig[i];

		for (size_t k = i + 1; k < c->nfig && !f->same_as && f->mark != PS_CMP_SAME; k++) {
			struct ps_cmp_figure *g = &c->fig[k];

			if (g->same_as || !same_figure(c, f, g))
				continue;
			if (judged(g->mark) && !judged(f->mark))
				f->same_as = g;
			else
				g->same_as = f;
		}
	}
}

static int mark_rank(enum ps_cmp_mark m)
{
	static const int rank[] = {
	    [PS_CMP_SAME] = 0,	  [PS_CMP_NOISE] = 1,  [PS_CMP_UNJUDGED] = 2, [PS_CMP_CHANGED] = 3,
	    [PS_CMP_MISSING] = 4, [PS_CMP_BETTER] = 5, [PS_CMP_WORSE] = 6};

	return rank[m];
}

/* ---- devices ---- */

static struct ps_cmp_device *find_dev(struct ps_cmp *c, size_t *cap, const char *kind,
				      const char *name, const char *id)
{
	struct ps_cmp_device *d;

	for (size_t i = 0; i < c->ndev; i++) {
		d = &c->dev[i];
		if (c->same_machine && id && d->id) {
			if (strcmp(d->id, id) == 0)
				return d;
			continue;
		}
		if (kind && name && d->kind && d->name && strcmp(d->kind, kind) == 0 &&
		    strcmp(d->name, name) == 0)
			return d;
	}
	if (c->ndev == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		void *p = realloc(c->dev, ncap * sizeof(*c->dev));

		if (!p)
			return NULL;
		c->dev = p;
		*cap = ncap;
	}
	d = &c->dev[c->ndev++];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->name = name;
	d->id = id;
	return d;
}

static int collect_devices(struct ps_cmp *c, size_t *cap, size_t run)
{
	const struct ps_doc *doc = c->runs[run].doc;

	for (size_t i = 0; i < doc->nverdicts; i++) {
		const struct ps_doc_verdict *v = &doc->verdicts[i];
		struct ps_cmp_device *d = find_dev(c, cap, v->kind, v->subject, v->device);

		if (!d)
			return -ENOMEM;
		d->in[run] = true;
		d->status[run] = v->status;
		d->rule[run] = v->rule;
		if (!d->name)
			d->name = v->subject;
	}
	/* devices the inventory lists with an id, examined by no step */
	for (size_t s = 0; c->same_machine && s < doc->nsections; s++) {
		const struct ps_doc_section *sec = &doc->sections[s];

		if (sec->kind != PS_SEC_INVENTORY)
			continue;
		for (size_t b = 0; b < sec->nblocks; b++) {
			const struct ps_doc_block *db = &sec->blocks[b];
			const struct ps_block *bd = db->desc;

			if (bd->kind != PS_BLOCK_TABLE)
				continue;
			for (size_t r = 0; r < db->nrows; r++)
				for (size_t k = 0; k < bd->ncols; k++) {
					const struct ps_cell *cell = &db->cells[r * bd->ncols + k];
					struct ps_cmp_device *d;

					if (!(bd->cols[k].flags & PS_COL_DEVICE) ||
					    cell->type != PS_CELL_STR)
						continue;
					d = find_dev(c, cap, NULL, NULL, cell->str);
					if (!d)
						return -ENOMEM;
					d->in[run] = true;
				}
		}
	}
	return 0;
}

struct ps_cmp *ps_compare(const struct ps_doc *const *docs, const char *const *labels, size_t n)
{
	struct ps_cmp *c;
	size_t fcap = 0, dcap = 0;

	if (n < 2 || n > PS_CMP_MAX_RUNS)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->nruns = n;
	c->same_machine = true;
	for (size_t j = 0; j < n; j++) {
		c->runs[j].doc = docs[j];
		c->runs[j].label = labels ? labels[j] : NULL;
		c->same_machine = c->same_machine &&
				  strcmp(docs[j]->machine_id, docs[0]->machine_id) == 0 &&
				  strcmp(docs[0]->machine_id, "unknown") != 0;
	}
	for (size_t j = 0; j < n; j++) {
		for (size_t s = 0; s < docs[j]->nsections; s++)
			if (collect_section(c, &fcap, j, &docs[j]->sections[s]) < 0)
				goto oom;
		if (collect_devices(c, &dcap, j) < 0)
			goto oom;
	}
	for (size_t i = 0; i < c->nfig; i++) {
		struct ps_cmp_figure *f = &c->fig[i];

		for (size_t j = 1; j < n; j++) {
			judge(f, j);
			if (mark_rank(f->v[j].mark) > mark_rank(f->mark))
				f->mark = f->v[j].mark;
		}
	}
	judge_siblings(c);
	judge_once(c);
	for (size_t i = 0; i < c->nfig; i++) {
		const struct ps_cmp_figure *f = &c->fig[i];

		if (f->same_as)
			continue;
		if (f->env) {
			c->env_changed += f->mark != PS_CMP_SAME;
			continue;
		}
		switch (f->mark) {
		case PS_CMP_WORSE:
			c->worse++;
			break;
		case PS_CMP_BETTER:
			c->better++;
			break;
		case PS_CMP_NOISE:
			c->noise++;
			break;
		case PS_CMP_UNJUDGED:
			c->unjudged++;
			break;
		case PS_CMP_CHANGED:
			c->changed++;
			break;
		case PS_CMP_MISSING:
			c->missing_rows++;
			break;
		default:
			break;
		}
	}
	for (size_t i = 0; i < c->ndev; i++) {
		const struct ps_cmp_device *d = &c->dev[i];
		bool all = true, differ = false;

		for (size_t j = 0; j < n; j++) {
			all = all && d->in[j];
			differ = differ || (j && d->in[j] && d->in[0] &&
					    strcmp(d->status[j] ? d->status[j] : "",
						   d->status[0] ? d->status[0] : ""));
		}
		c->missing_devices += !all;
		c->verdict_changes += all && differ;
	}
	return c;
oom:
	ps_compare_free(c);
	return NULL;
}

void ps_compare_free(struct ps_cmp *c)
{
	if (!c)
		return;
	free(c->fig);
	free(c->dev);
	free(c);
}

/* ---- loading ---- */

int ps_compare_load(const char *const *paths, size_t n, const struct ps_view_set *views,
		    struct ps_doc **docs, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		docs[i] = NULL;
	for (size_t i = 0; i < n; i++) {
		char dir[PATH_MAX], why[PATH_MAX + 400];
		json_object *r;
		int ret = ps_report_resolve(paths[i], dir, sizeof(dir));

		if (ret < 0) {
			snprintf(err, errlen,
				 "%s holds no report: name a run folder, a reports folder or a "
				 "stick",
				 paths[i]);
			goto fail;
		}
		ret = ps_report_load(dir, &r, why, sizeof(why));
		if (ret < 0) {
			snprintf(err, errlen, "cannot compare %s: %s", paths[i], why);
			goto fail;
		}
		docs[i] = ps_doc_build(r, views);
		json_object_put(r);
		if (!docs[i]) {
			ret = -ENOMEM;
			snprintf(err, errlen, "out of memory reading %s", dir);
			goto fail;
		}
		continue;
	fail:
		for (size_t k = 0; k < n; k++) {
			ps_doc_free(docs[k]);
			docs[k] = NULL;
		}
		return ret;
	}
	return 0;
}

/* ---- text ---- */

static const char *mark_word(enum ps_cmp_mark m)
{
	switch (m) {
	case PS_CMP_SAME:
		return "same";
	case PS_CMP_NOISE:
		return "within spread";
	case PS_CMP_UNJUDGED:
		return "not judged";
	case PS_CMP_CHANGED:
		return "changed";
	case PS_CMP_BETTER:
		return "BETTER";
	case PS_CMP_WORSE:
		return "WORSE";
	case PS_CMP_MISSING:
		return "missing";
	}
	return "?";
}

static void value_text(const struct ps_cmp_value *v, const struct ps_col *col, char *buf,
		       size_t len)
{
	if (!v->present) {
		snprintf(buf, len, "(none)");
		return;
	}
	ps_cell_text(&v->cell, col, buf, len, false);
	if (v->cell.noisy == 1 && strlen(buf) + 1 < len)
		strcat(buf, "~");
}

static void change_text(const struct ps_cmp_value *v, char *buf, size_t len)
{
	if (isnan(v->change_pct))
		snprintf(buf, len, "%s", v->mark == PS_CMP_SAME ? "=" : "");
	else if (isinf(v->change_pct))
		snprintf(buf, len, "new");
	else
		snprintf(buf, len, "%+.1f%%", v->change_pct);
}

const char *ps_cmp_figure_unit(const struct ps_cmp_figure *f)
{
	const char *u = f->col->unit;

	/* a column whose rows differ in unit (seq MB/s, rand IOPS): the row's */
	for (size_t i = 0; !u && f->col->unit_from && i < PS_CMP_MAX_RUNS; i++)
		if (f->v[i].present)
			u = f->v[i].cell.unit;
	/* the unit once: some columns' titles hold it already ("best GB/s") */
	return u && *u && !strstr(f->col->title, u) ? u : NULL;
}

static void fig_label(const struct ps_cmp_figure *f, char *buf, size_t len)
{
	const char *unit = ps_cmp_figure_unit(f);

	snprintf(buf, len, "%s%s%s%s%s", f->row, f->row[0] ? " " : "", f->col->title,
		 unit ? " " : "", unit ? unit : "");
}

static const char *run_date(const struct ps_doc *d)
{
	return d->created ? d->created : "?";
}

static void header_text(FILE *out, const struct ps_cmp *c)
{
	char line[1600];

	snprintf(line, sizeof(line), "probestick compare: %zu runs of %s", c->nruns,
		 c->same_machine ? "the same machine" : "different machines");
	ps_wrap(out, WIDTH, 0, 2, line);
	for (size_t j = 0; j < c->nruns; j++) {
		const struct ps_doc *d = c->runs[j].doc;

		snprintf(line, sizeof(line), "  %c  %s  plan %s%s  %s (id %s)  %s", run_letter[j],
			 run_date(d), d->plan, d->complete ? "" : " (incomplete)",
			 d->machine ? d->machine : "?", d->machine_id,
			 c->runs[j].label ? c->runs[j].label : "");
		ps_wrap(out, WIDTH, 0, 5, line);
	}
	if (!c->same_machine)
		ps_wrap(out, WIDTH, 0, 2,
			"Rows are matched by name (sda, eth0), not by device identity: these are "
			"different machines.");
}

static void devices_text(FILE *out, const struct ps_cmp *c)
{
	char line[1600], label[400] = "";

	fputs("\nDevices\n-------\n", out);
	if (!c->missing_devices) {
		snprintf(line, sizeof(line), "%zu device%s, in every run (matched by %s)", c->ndev,
			 c->ndev == 1 ? "" : "s",
			 c->same_machine ? "stable identity" : "kind and name");
		ps_wrap(out, WIDTH, 0, 2, line);
	}
	for (size_t i = 0; i < c->ndev; i++) {
		const struct ps_cmp_device *d = &c->dev[i];
		size_t o;

		for (size_t j = 0; j < c->nruns; j++)
			if (!d->in[j])
				goto missing;
		continue;
	missing:
		/* named as the run that has it labels it (report/label.h), not by its raw id */
		for (size_t j = 0; j < c->nruns; j++)
			if (d->in[j]) {
				ps_device_label(c->runs[j].doc->report, d->kind, d->id, d->name,
						label, sizeof(label));
				break;
			}
		o = (size_t)snprintf(line, sizeof(line), "MISSING %s: only in", label);
		for (size_t j = 0; j < c->nruns && o < sizeof(line) - 4; j++)
			if (d->in[j])
				o += (size_t)snprintf(line + o, sizeof(line) - o, " %c",
						      run_letter[j]);
		ps_wrap(out, WIDTH, 0, 8, line);
	}
	fputs("\nVerdicts\n--------\n", out);
	if (!c->verdict_changes)
		fputs("no device's verdict changed\n", out);
	for (size_t i = 0; i < c->ndev; i++) {
		const struct ps_cmp_device *d = &c->dev[i];
		size_t o;
		bool differ = false, all = true;

		for (size_t j = 0; j < c->nruns; j++) {
			all = all && d->in[j];
			differ = differ || (j && strcmp(d->status[j] ? d->status[j] : "",
							d->status[0] ? d->status[0] : ""));
		}
		if (!all || !differ)
			continue;
		o = (size_t)snprintf(line, sizeof(line), "%s %s:", d->kind ? d->kind : "device",
				     d->name ? d->name : "?");
		for (size_t j = 0; j < c->nruns && o < sizeof(line) - 80; j++)
			o += (size_t)snprintf(line + o, sizeof(line) - o, " %c %s (%s)%s",
					      run_letter[j], d->status[j] ? d->status[j] : "-",
					      d->rule[j] ? d->rule[j] : "-",
					      j + 1 < c->nruns ? "," : "");
		ps_wrap(out, WIDTH, 0, 2, line);
	}
}

/* A step's figures that differ; the conditions of the runs have their own list. */
static bool fig_shown(const struct ps_cmp_figure *f)
{
	return !f->env && f->mark != PS_CMP_SAME && !f->same_as;
}

static void block_heading(FILE *out, const struct ps_cmp_figure *f)
{
	char title[400];
	size_t n;

	snprintf(title, sizeof(title), "%s: %s", f->section,
		 f->block->title ? f->block->title : f->block->id);
	n = strlen(title) > WIDTH ? WIDTH : strlen(title);
	fputc('\n', out);
	ps_wrap(out, WIDTH, 0, 2, title);
	for (size_t i = 0; i < n; i++)
		fputc('-', out);
	fputc('\n', out);
}

static void figures_text(FILE *out, const struct ps_cmp *c)
{
	const struct ps_cmp_figure *prev = NULL;

	for (size_t i = 0; i < c->nfig; i++) {
		const struct ps_cmp_figure *f = &c->fig[i];
		char label[300], a[64], b[64], ch[32], line[1600];

		if (!fig_shown(f))
			continue;
		if (!prev || strcmp(prev->section, f->section) || prev->block != f->block)
			block_heading(out, f);
		prev = f;
		fig_label(f, label, sizeof(label));
		value_text(&f->v[0], f->col, a, sizeof(a));
		if (c->nruns == 2) {
			char lab[40];

			value_text(&f->v[1], f->col, b, sizeof(b));
			change_text(&f->v[1], ch, sizeof(ch));
			snprintf(lab, sizeof(lab), "%.32s", label);
			if (strlen(label) > 32)
				lab[31] = '~';
			snprintf(line, sizeof(line), "  %-32s %9.9s %9.9s %8s  %s", lab, a, b, ch,
				 f->v[1].mark == PS_CMP_SAME ? "" : mark_word(f->v[1].mark));
			/* no trailing blanks */
			for (size_t k = strlen(line); k > 0 && line[k - 1] == ' '; k--)
				line[k - 1] = '\0';
			fprintf(out, "%s\n", line);
			continue;
		}
		{
			size_t o = (size_t)snprintf(line, sizeof(line), "%s: A %s", label, a);

			for (size_t j = 1; j < c->nruns && o < sizeof(line) - 100; j++) {
				value_text(&f->v[j], f->col, b, sizeof(b));
				change_text(&f->v[j], ch, sizeof(ch));
				o += (size_t)snprintf(
				    line + o, sizeof(line) - o, ", %c %s%s%s%s%s", run_letter[j], b,
				    ch[0] ? " " : "", ch, f->v[j].mark == PS_CMP_SAME ? "" : " ",
				    f->v[j].mark == PS_CMP_SAME ? "" : mark_word(f->v[j].mark));
			}
			fputs("  ", out);
			ps_wrap(out, WIDTH, 2, 6, line);
		}
	}
}

static void env_text(FILE *out, const struct ps_cmp *c)
{
	fputs("\nConditions of the runs that differ (they may explain a change)\n"
	      "--------------------------------------------------------------\n",
	      out);
	if (!c->env_changed) {
		fputs("none: firmware, kernel, governor, links and DIMMs are the same\n", out);
		return;
	}
	for (size_t i = 0; i < c->nfig; i++) {
		const struct ps_cmp_figure *f = &c->fig[i];
		char label[300], v[64], line[1600];
		size_t o;

		if (!f->env || f->mark == PS_CMP_SAME)
			continue;
		fig_label(f, label, sizeof(label));
		o = (size_t)snprintf(line, sizeof(line),
				     "%s %s%s%s:", f->block->title ? f->block->title : f->block->id,
				     f->row[0] ? f->row : "", f->row[0] ? " " : "", f->col->title);
		for (size_t j = 0; j < c->nruns && o < sizeof(line) - 100; j++) {
			value_text(&f->v[j], f->col, v, sizeof(v));
			o += (size_t)snprintf(line + o, sizeof(line) - o, " %c %s%s", run_letter[j],
					      v, j + 1 < c->nruns ? "," : "");
		}
		ps_wrap(out, WIDTH, 0, 2, line);
	}
}

char *ps_compare_text(const struct ps_cmp *c)
{
	char *buf = NULL, line[600];
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return strdup("probestick compare: out of memory\n");
	header_text(out, c);
	fputs("\nSummary\n-------\n", out);
	snprintf(line, sizeof(line),
		 "%zu figure%s worse and %zu better beyond the runs' spread; %zu changed within "
		 "it, %zu not judged (no spread known), %zu settings changed, %zu rows missing "
		 "in a run; %zu condition%s of the runs differ%s",
		 c->worse, c->worse == 1 ? "" : "s", c->better, c->noise, c->unjudged, c->changed,
		 c->missing_rows, c->env_changed, c->env_changed == 1 ? "" : "s",
		 c->env_changed == 1 ? "s" : "");
	ps_wrap(out, WIDTH, 0, 0, line);
	ps_wrap(out, WIDTH, 0, 0,
		"A change is marked WORSE or BETTER only when it is larger than the runs' own "
		"spread (their min-max ranges do not overlap, or it exceeds twice their CV) and "
		"in the direction the step calls better; ~ after a value: still noisy after the "
		"extra runs.");
	devices_text(out, c);
	figures_text(out, c);
	{
		size_t same = 0;

		for (size_t i = 0; i < c->nfig; i++)
			same += !c->fig[i].env && c->fig[i].mark == PS_CMP_SAME;
		snprintf(line, sizeof(line),
			 "\n%zu other figure%s of the steps are the same in every run.", same,
			 same == 1 ? "" : "s");
		ps_wrap(out, WIDTH, 0, 0, line);
	}
	env_text(out, c);
	fclose(out);
	return buf ? buf : strdup("");
}

/* ---- HTML ---- */

static const char *mark_class(enum ps_cmp_mark m)
{
	switch (m) {
	case PS_CMP_WORSE:
		return "fail";
	case PS_CMP_BETTER:
		return "pass";
	case PS_CMP_MISSING:
	case PS_CMP_CHANGED:
		return "warn";
	default:
		return "info";
	}
}

static void html_chart(FILE *f, const struct ps_cmp *c, size_t first)
{
	const struct ps_cmp_figure *f0 = &c->fig[first];
	const char *cats[MAX_CATS];
	double y[PS_CMP_MAX_RUNS][MAX_CATS], lo[PS_CMP_MAX_RUNS][MAX_CATS],
	    hi[PS_CMP_MAX_RUNS][MAX_CATS];
	struct ps_chart_series s[PS_CMP_MAX_RUNS];
	char labels[PS_CMP_MAX_RUNS][160], title[300];
	size_t n = 0;
	struct ps_chart ch = {
	    .kind = PS_CHART_BARS, .ycol = f0->col, .cats = cats, .s = s, .ns = c->nruns};

	for (size_t i = first; i < c->nfig && n < MAX_CATS; i++) {
		const struct ps_cmp_figure *fi = &c->fig[i];

		if (fi->block != f0->block || strcmp(fi->section, f0->section) ||
		    fi->col != f0->col)
			continue;
		cats[n] = fi->row;
		for (size_t j = 0; j < c->nruns; j++) {
			const struct ps_cmp_value *v = &fi->v[j];

			y[j][n] = v->present && v->cell.type == PS_CELL_NUM ? v->cell.num : NAN;
			lo[j][n] = v->present ? v->cell.min : NAN;
			hi[j][n] = v->present ? v->cell.max : NAN;
		}
		n++;
	}
	for (size_t j = 0; j < c->nruns; j++) {
		snprintf(labels[j], sizeof(labels[j]), "%c %s", run_letter[j],
			 run_date(c->runs[j].doc));
		s[j] = (struct ps_chart_series){
		    .label = labels[j], .n = n, .y = y[j], .lo = lo[j], .hi = hi[j]};
	}
	ch.ncats = n;
	fig_label(&(struct ps_cmp_figure){.col = f0->col}, title, sizeof(title));
	snprintf(title + strlen(title), sizeof(title) - strlen(title),
		 ": each run, with its range over its runs");
	fputs("<h4>", f);
	ps_html_esc(f, title);
	fputs("</h4>\n", f);
	ch.title = title;
	ps_chart_svg(f, &ch);
}

/* The parts of the page, what changed first: which figures each lists. */
enum fig_part { PART_JUDGED, PART_OTHER, PART_NOISE, PART_UNJUDGED, PARTS };

static bool in_part(const struct ps_cmp_figure *f, enum fig_part p)
{
	if (!fig_shown(f))
		return false;
	switch (p) {
	case PART_JUDGED:
		return f->mark == PS_CMP_WORSE || f->mark == PS_CMP_BETTER;
	case PART_OTHER:
		return f->mark == PS_CMP_MISSING || f->mark == PS_CMP_CHANGED;
	case PART_NOISE:
		return f->mark == PS_CMP_NOISE;
	default:
		return f->mark == PS_CMP_UNJUDGED;
	}
}

/* Close a block's table; for figures judged against a spread a chart per column with a range. */
static void block_end(FILE *f, const struct ps_cmp *c, const struct ps_cmp_figure *last,
		      enum fig_part part)
{
	fputs("</tbody></table></div>\n", f);
	for (size_t k = 0; (part == PART_JUDGED || part == PART_NOISE) && k < c->nfig; k++) {
		const struct ps_cmp_figure *fk = &c->fig[k];
		bool first = true;

		if (fk->block != last->block || strcmp(fk->section, last->section) ||
		    !fk->col->min || !fk->col->max || !in_part(fk, part))
			continue;
		for (size_t m = 0; m < k && first; m++)
			first = !(c->fig[m].block == fk->block &&
				  !strcmp(c->fig[m].section, fk->section) &&
				  c->fig[m].col == fk->col && in_part(&c->fig[m], part));
		if (first)
			html_chart(f, c, k);
	}
	fputs("</section>\n", f);
}

static void html_value(FILE *f, const struct ps_cmp_value *v, const struct ps_col *col, size_t j)
{
	char t[64], ch[32];

	value_text(v, col, t, sizeof(t));
	fputs("<td class=\"n\">", f);
	ps_html_esc(f, t);
	fputs("</td>", f);
	if (!j)
		return;
	change_text(v, ch, sizeof(ch));
	fputs("<td class=\"n\">", f);
	ps_html_esc(f, ch);
	if (v->mark != PS_CMP_SAME) {
		fprintf(f, " <span class=\"st %s\">", mark_class(v->mark));
		ps_html_esc(f, mark_word(v->mark));
		fputs("</span>", f);
	}
	fputs("</td>", f);
}

static void html_table_head(FILE *f, const struct ps_cmp *c, const char *first)
{
	fprintf(f, "<div class=\"tw\"><table><thead><tr><th>%s</th>", first);
	for (size_t j = 0; j < c->nruns; j++) {
		fprintf(f, "<th class=\"n\">%c</th>", run_letter[j]);
		if (j)
			fprintf(f, "<th class=\"n\">%c vs A</th>", run_letter[j]);
	}
	fputs("</tr></thead><tbody>\n", f);
}

/* The runs, and what the comparison found in one sentence. */
static void html_header(FILE *f, const struct ps_cmp *c)
{
	char line[800];

	fputs("<header><h1>probestick compare</h1>\n<div class=\"tw\"><table><thead><tr><th>run"
	      "</th><th>created</th><th>plan</th><th>machine</th><th>folder</th></tr></thead>"
	      "<tbody>\n",
	      f);
	for (size_t j = 0; j < c->nruns; j++) {
		const struct ps_doc *d = c->runs[j].doc;

		fprintf(f, "<tr><td><b>%c</b></td><td>", run_letter[j]);
		ps_html_esc(f, run_date(d));
		fputs("</td><td>", f);
		ps_html_esc(f, d->plan);
		if (!d->complete)
			fputs(" <span class=\"incomplete\">incomplete</span>", f);
		fputs("</td><td>", f);
		ps_html_esc(f, d->machine ? d->machine : "?");
		fputs(" <span class=\"rule\">", f);
		ps_html_esc(f, d->machine_id);
		fputs("</span></td><td class=\"rule\">", f);
		ps_html_esc(f, c->runs[j].label ? c->runs[j].label : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n<p>", f);
	snprintf(line, sizeof(line),
		 "%s. %zu figures worse and %zu better beyond the runs' spread; %zu changed "
		 "within it; %zu not judged (no spread known); %zu devices missing from a run; "
		 "%zu verdicts changed; %zu conditions of the runs differ.",
		 c->same_machine ? "The same machine: devices matched by stable identity"
				 : "Different machines: rows matched by name",
		 c->worse, c->better, c->noise, c->unjudged, c->missing_devices, c->verdict_changes,
		 c->env_changed);
	ps_html_esc(f, line);
	fputs("</p></header>\n", f);
}

/* A verdict as a badge: fail, warn, or pass for anything else examined. */
static void html_status(FILE *f, const char *status)
{
	const char *s = status && !strcmp(status, "fail")   ? "fail"
			: status && !strcmp(status, "warn") ? "warn"
							    : "pass";

	fprintf(f, "<span class=\"st %s\">%s</span>", s, s);
}

/* Every device by the label a person finds it by, and its verdict in each run. */
static void html_devices(FILE *f, const struct ps_cmp *c)
{
	char label[600];

	fputs("<section id=\"devices\"><h2>Devices and verdicts</h2>\n<div class=\"tw\"><table>"
	      "<thead><tr><th>device</th>",
	      f);
	for (size_t j = 0; j < c->nruns; j++)
		fprintf(f, "<th>%c</th>", run_letter[j]);
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < c->ndev; i++) {
		const struct ps_cmp_device *d = &c->dev[i];
		size_t in = 0, all = 0;

		for (size_t j = c->nruns; j-- > 0;)
			if (d->in[j]) {
				in = j; /* the first run that has it names it */
				all++;
			}
		ps_device_label(c->runs[in].doc->report, d->kind, d->id, d->name, label,
				sizeof(label));
		fprintf(f, "<tr%s", all == c->nruns ? "" : " class=\"bad\"");
		if (d->id) {
			fputs(" title=\"", f);
			ps_html_esc(f, d->id);
			fputs("\"", f);
		}
		fputs("><td>", f);
		ps_html_esc(f, label);
		fputs("</td>", f);
		for (size_t j = 0; j < c->nruns; j++) {
			fputs("<td>", f);
			if (!d->in[j])
				fputs("<span class=\"st fail\">missing</span>", f);
			else if (d->status[j])
				html_status(f, d->status[j]);
			else
				fputs("listed", f);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div></section>\n", f);
}

/* The figures of one part of the page: a table per view block, in the views' order. */
static void html_figures(FILE *f, const struct ps_cmp *c, enum fig_part part)
{
	const struct ps_cmp_figure *prev = NULL;
	char line[800];

	for (size_t i = 0; i < c->nfig; i++) {
		const struct ps_cmp_figure *fi = &c->fig[i];

		if (!in_part(fi, part))
			continue;
		if (!prev || strcmp(prev->section, fi->section) || prev->block != fi->block) {
			if (prev)
				block_end(f, c, prev, part);
			fputs("<section><h3>", f);
			snprintf(line, sizeof(line), "%s: %s", fi->section,
				 fi->block->title ? fi->block->title : fi->block->id);
			ps_html_esc(f, line);
			fputs("</h3>\n", f);
			html_table_head(f, c, "figure");
		}
		prev = fi;
		fprintf(f, "<tr%s><td>", fi->mark == PS_CMP_WORSE ? " class=\"bad\"" : "");
		fig_label(fi, line, sizeof(line));
		ps_html_esc(f, line);
		fputs("</td>", f);
		for (size_t j = 0; j < c->nruns; j++)
			html_value(f, &fi->v[j], fi->col, j);
		fputs("</tr>\n", f);
	}
	if (prev)
		block_end(f, c, prev, part);
}

/* What differed in the conditions of the runs. */
static void html_conditions(FILE *f, const struct ps_cmp *c)
{
	char line[800];

	fputs("<section id=\"conditions\"><h2>Conditions of the runs that differ</h2>\n", f);
	if (!c->env_changed) {
		fputs("<p>None: firmware, kernel, governor, links and DIMMs are the same.</p>\n"
		      "</section>\n",
		      f);
		return;
	}
	html_table_head(f, c, "condition");
	for (size_t i = 0; i < c->nfig; i++) {
		const struct ps_cmp_figure *fi = &c->fig[i];

		if (!fi->env || fi->mark == PS_CMP_SAME)
			continue;
		fputs("<tr><td>", f);
		snprintf(line, sizeof(line), "%s %s%s%s",
			 fi->block->title ? fi->block->title : fi->block->id, fi->row,
			 fi->row[0] ? " " : "", fi->col->title);
		ps_html_esc(f, line);
		fputs("</td>", f);
		for (size_t j = 0; j < c->nruns; j++)
			html_value(f, &fi->v[j], fi->col, j);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div></section>\n", f);
}

/*
 * What changed leads: figures worse or better beyond the spread, then settings
 * changed and rows missing, the devices, what moved within the spread, and
 * last, collapsed, the figures no spread lets compare judge.
 */
char *ps_compare_html(const struct ps_cmp *c)
{
	static const char *const heads[PARTS] = {
	    "Worse or better beyond the runs' spread", "Settings changed, rows missing",
	    "Changed within the runs' spread", "Not judged (no spread known)"};
	size_t count[PARTS] = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("<!DOCTYPE html><p>probestick compare: out of memory");
	for (size_t i = 0; i < c->nfig; i++)
		for (int p = 0; p < PARTS; p++)
			count[p] += in_part(&c->fig[i], (enum fig_part)p);
	ps_html_begin(f, "probestick compare");
	html_header(f, c);
	for (int p = 0; p < PARTS; p++) {
		if (p == PART_NOISE)
			html_devices(f, c);
		if (!count[p] && p != PART_JUDGED)
			continue;
		fprintf(f,
			p == PART_UNJUDGED ? "<details id=\"part-%d\"><summary>"
					   : "<h2 id=\"part-%d\">",
			p);
		fprintf(f, "%s: %zu figure%s", heads[p], count[p], count[p] == 1 ? "" : "s");
		fputs(p == PART_UNJUDGED ? "</summary>\n" : "</h2>\n", f);
		html_figures(f, c, (enum fig_part)p);
		if (p == PART_UNJUDGED)
			fputs("</details>\n", f);
	}
	html_conditions(f, c);
	ps_html_end(f);
	fclose(f);
	return buf ? buf : strdup("");
}
