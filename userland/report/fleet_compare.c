/* fleet_compare.c - machines of one model compared two by two: who differs from most. */
#include "report/fleet_compare.h"
#include "report/compare.h"
#include "lib/json.h"
#include "report/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One figure over the machines of a group: counts per member. */
struct tally {
	char id[900]; /* section, block, column and row key: what ps_compare matched on */
	char label[400];
	int better; /* the view's direction */
	size_t *of, *beyond;
	double *value;
	bool *has;
};

struct tallies {
	struct tally *t;
	size_t n, cap, members;
};

static struct tally *tally_of(struct tallies *ts, const char *id)
{
	struct tally *t;

	for (size_t i = 0; i < ts->n; i++)
		if (strcmp(ts->t[i].id, id) == 0)
			return &ts->t[i];
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 64;
		void *p = realloc(ts->t, cap * sizeof(*ts->t));

		if (!p)
			return NULL;
		ts->t = p;
		ts->cap = cap;
	}
	t = &ts->t[ts->n];
	memset(t, 0, sizeof(*t));
	t->of = calloc(ts->members, sizeof(*t->of));
	t->beyond = calloc(ts->members, sizeof(*t->beyond));
	t->value = calloc(ts->members, sizeof(*t->value));
	t->has = calloc(ts->members, sizeof(*t->has));
	if (!t->of || !t->beyond || !t->value || !t->has) {
		free(t->of);
		free(t->beyond);
		free(t->value);
		free(t->has);
		return NULL;
	}
	snprintf(t->id, sizeof(t->id), "%s", id);
	ts->n++;
	return t;
}

static void tallies_free(struct tallies *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		free(ts->t[i].of);
		free(ts->t[i].beyond);
		free(ts->t[i].value);
		free(ts->t[i].has);
	}
	free(ts->t);
}

/* A measured figure of a step, numeric in both runs, with a spread to judge it by. */
static bool judged(const struct ps_cmp_figure *f)
{
	const struct ps_cmp_value *a = &f->v[0], *b = &f->v[1];

	return f->step && !f->env && a->present && b->present && a->cell.type == PS_CELL_NUM &&
	       b->cell.type == PS_CELL_NUM &&
	       (b->mark == PS_CMP_SAME || b->mark == PS_CMP_NOISE || b->mark == PS_CMP_BETTER ||
		b->mark == PS_CMP_WORSE);
}

/* Members i and j (indexes into the group) compared; 0 or -ENOMEM. */
static int pair(struct tallies *ts, const struct ps_doc *const *docs, const size_t *members,
		size_t i, size_t j, size_t *differences)
{
	const struct ps_doc *two[2] = {docs[members[i]], docs[members[j]]};
	struct ps_cmp *c = ps_compare(two, NULL, 2);

	if (!c)
		return -1;
	for (size_t k = 0; k < c->nfig; k++) {
		const struct ps_cmp_figure *f = &c->fig[k];
		struct tally *t;
		char id[900];
		bool beyond;

		if (!judged(f))
			continue;
		snprintf(id, sizeof(id), "%s|%s|%s|%s|%s", f->section, f->block->id, f->col->path,
			 f->col->title, f->key);
		t = tally_of(ts, id);
		if (!t) {
			ps_compare_free(c);
			return -1;
		}
		if (!t->label[0]) {
			const char *unit = ps_cmp_figure_unit(f);

			if (!unit)
				unit = "";

			snprintf(t->label, sizeof(t->label), "%s %s %s%s%s", f->section, f->row,
				 f->col->title, unit[0] ? " " : "", unit);
			t->better = f->col->better == PS_BETTER_HIGHER	? 1
				    : f->col->better == PS_BETTER_LOWER ? -1
									: 0;
		}
		beyond = f->v[1].mark == PS_CMP_BETTER || f->v[1].mark == PS_CMP_WORSE;
		t->of[i]++;
		t->of[j]++;
		t->beyond[i] += beyond;
		t->beyond[j] += beyond;
		t->value[i] = f->v[0].cell.num;
		t->value[j] = f->v[1].cell.num;
		t->has[i] = t->has[j] = true;
		*differences += beyond;
	}
	ps_compare_free(c);
	return 0;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the group's values but member m's. */
static double others_median(const struct tally *t, size_t n, size_t m)
{
	double *v = malloc(n * sizeof(*v)), med = NAN;
	size_t k = 0;

	if (!v)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (i != m && t->has[i])
			v[k++] = t->value[i];
	if (k) {
		qsort(v, k, sizeof(*v), dbl_cmp);
		med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return med;
}

static int judge_group(struct ps_fleet_group *g, const struct ps_doc *const *docs)
{
	struct tallies ts = {.members = g->n};
	int ret = 0;

	for (size_t i = 0; i < g->n && !ret; i++)
		for (size_t j = i + 1; j < g->n && !ret; j++)
			ret = pair(&ts, docs, g->members, i, j, &g->pair_differences);
	for (size_t k = 0; k < ts.n && !ret && g->n >= 3; k++) {
		struct tally *t = &ts.t[k];

		for (size_t m = 0; m < g->n; m++) {
			struct ps_fleet_odd *o;
			void *p;

			/* beyond the spread of more than half of the others it was compared with */
			if (t->of[m] < 2 || t->beyond[m] * 2 <= t->of[m])
				continue;
			p = realloc(g->odd, (g->nodd + 1) * sizeof(*g->odd));
			if (!p) {
				ret = -1;
				break;
			}
			g->odd = p;
			o = &g->odd[g->nodd++];
			memset(o, 0, sizeof(*o));
			o->machine = g->members[m];
			snprintf(o->figure, sizeof(o->figure), "%s", t->label);
			o->value = t->value[m];
			o->median = others_median(t, g->n, m);
			o->beyond = t->beyond[m];
			o->of = t->of[m];
			o->worse = t->better == 0 ? -1 : (o->value > o->median) != (t->better > 0);
		}
	}
	tallies_free(&ts);
	return ret;
}

struct ps_fleet_cmp *ps_fleet_compare(const struct ps_doc *const *docs, size_t n)
{
	struct ps_fleet_cmp *fc = calloc(1, sizeof(*fc));

	if (!fc)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct ps_fleet_group *g = NULL;
		size_t *p;

		if (!docs[i]->machine) {
			fc->unknown++;
			continue;
		}
		for (size_t k = 0; k < fc->ngroups; k++)
			if (strcmp(fc->groups[k].model, docs[i]->machine) == 0)
				g = &fc->groups[k];
		if (!g) {
			void *q = realloc(fc->groups, (fc->ngroups + 1) * sizeof(*fc->groups));

			if (!q)
				goto oom;
			fc->groups = q;
			g = &fc->groups[fc->ngroups++];
			memset(g, 0, sizeof(*g));
			snprintf(g->model, sizeof(g->model), "%s", docs[i]->machine);
		}
		p = realloc(g->members, (g->n + 1) * sizeof(*g->members));
		if (!p)
			goto oom;
		g->members = p;
		g->members[g->n++] = i;
	}
	for (size_t k = 0; k < fc->ngroups; k++)
		if (fc->groups[k].n >= 2 && judge_group(&fc->groups[k], docs) < 0)
			goto oom;
	return fc;
oom:
	ps_fleet_compare_free(fc);
	return NULL;
}

void ps_fleet_compare_free(struct ps_fleet_cmp *fc)
{
	if (!fc)
		return;
	for (size_t k = 0; k < fc->ngroups; k++) {
		free(fc->groups[k].members);
		free(fc->groups[k].odd);
	}
	free(fc->groups);
	free(fc);
}

static void line(FILE *f, int indent, const char *text)
{
	char clean[1200];

	ps_text_clean(text, strlen(text), NULL, clean, sizeof(clean));
	fprintf(f, "%*s", indent, "");
	ps_wrap(f, 79, indent, indent + 4, clean);
}

char *ps_fleet_compare_text(const struct ps_fleet_cmp *fc, const char *const *labels)
{
	char *buf = NULL, text[1200];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("probestick: out of memory\n");
	for (size_t k = 0; k < fc->ngroups; k++) {
		const struct ps_fleet_group *g = &fc->groups[k];

		snprintf(text, sizeof(text), "%s: %zu machine%s", g->model, g->n,
			 g->n == 1 ? "" : "s");
		line(f, 0, text);
		if (g->n == 1)
			continue;
		if (g->n == 2) {
			snprintf(text, sizeof(text),
				 "%zu figure%s beyond the runs' spread between %s and %s; a "
				 "third machine of the model tells which one is odd",
				 g->pair_differences,
				 g->pair_differences == 1 ? " differs" : "s differ",
				 labels[g->members[0]], labels[g->members[1]]);
			line(f, 2, text);
			continue;
		}
		for (size_t m = 0; m < g->n; m++) {
			size_t idx = g->members[m], shown = 0;

			for (size_t i = 0; i < g->nodd; i++) {
				const struct ps_fleet_odd *o = &g->odd[i];

				if (o->machine != idx)
					continue;
				if (!shown++) {
					snprintf(text, sizeof(text),
						 "%s differs from the others of its model beyond "
						 "their spread:",
						 labels[idx]);
					line(f, 2, text);
				}
				snprintf(
				    text, sizeof(text),
				    "%s  %.4g (the others' median %.4g, %+.1f%%)%s: beyond %zu "
				    "of %zu",
				    o->figure, o->value, o->median,
				    o->median ? (o->value - o->median) / fabs(o->median) * 100 : 0,
				    o->worse == 1   ? " WORSE"
				    : o->worse == 0 ? " BETTER"
						    : "",
				    o->beyond, o->of);
				line(f, 4, text);
			}
			if (!shown) {
				snprintf(text, sizeof(text), "%s: within the others' spread",
					 labels[idx]);
				line(f, 2, text);
			}
		}
	}
	if (fc->unknown) {
		snprintf(text, sizeof(text),
			 "%zu machine%s without a model (no DMI vendor and product): "
			 "not compared",
			 fc->unknown, fc->unknown == 1 ? "" : "s");
		line(f, 0, text);
	}
	if (!fc->ngroups && !fc->unknown)
		line(f, 0, "no machine's run to compare");
	fclose(f);
	return buf ? buf : strdup("");
}
