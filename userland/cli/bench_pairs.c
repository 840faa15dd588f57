/* bench_pairs.c - runs two tools alternately, pair by pair, until the judge
 * (bench_judge.c) decides or the time cap ends it; prints and records each pair. */
#include "cli/bench.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Consecutive pairs without a ratio after which a tool is taken to be broken. */
#define MAX_FAILED_IN_A_ROW 3

static int grow(struct ps_pairs *r)
{
	size_t cap = r->room ? r->room * 2 : 16;
	double *a = realloc(r->a, cap * sizeof(*a));

	if (!a)
		return -1;
	r->a = a;
	a = realloc(r->b, cap * sizeof(*a));
	if (!a)
		return -1;
	r->b = a;
	a = realloc(r->ratio, cap * sizeof(*a));
	if (!a)
		return -1;
	r->ratio = a;
	r->room = cap;
	return 0;
}

/* One side's run: its figure or NAN, why says what went wrong (or a note). */
static double run_side(const struct ps_pair_plan *p, int side, char *why, size_t len)
{
	double v;

	why[0] = '\0';
	v = p->run(p->arg, side, why, len);
	return v > 0 ? v : NAN;
}

static void print_side(const struct ps_pair_plan *p, int side, double v, const char *why)
{
	const char *name = side ? p->name_b : p->name_a;

	if (isnan(v))
		printf("  %s failed: %s", name, why[0] ? why : "no figure");
	else
		printf("  %s %.1f", name, v);
}

/* One line per pair, in the order the tools ran, with any note below it. */
static void print_pair(const struct ps_pair_plan *p, size_t i, double a, double b,
		       const char *why_a, const char *why_b)
{
	int first = i % 2;

	printf("  pair %-3zu", i + 1);
	print_side(p, first, first ? b : a, first ? why_b : why_a);
	print_side(p, !first, first ? a : b, first ? why_a : why_b);
	if (!isnan(a / b))
		printf(" %s  %s %.4f", p->unit, p->what, a / b);
	printf("\n");
	if (!isnan(a) && why_a[0])
		printf("           note: %s\n", why_a);
	if (!isnan(b) && why_b[0])
		printf("           note: %s\n", why_b);
	fflush(stdout);
}

int ps_pairs_run(const struct ps_pair_plan *p, struct ps_pairs *r)
{
	/* fewer than PS_JUDGE_MIN_PAIRS only when asked: a smoke test, not a judgement */
	size_t first = p->first_look ? p->first_look : PS_JUDGE_MIN_PAIRS;
	double t0 = ps_mono_now();
	unsigned int failed_in_a_row = 0;

	memset(r, 0, sizeof(*r));
	for (;;) {
		double a, b, spent = ps_mono_now() - t0;
		char why_a[240], why_b[240];

		if (r->n >= first) {
			/* a look: decided ends it; otherwise go on while the cap allows one
			 * more pair at the pace so far */
			if (ps_judge_is_look(r->n, first)) {
				ps_judge_pairs(r->ratio, r->n, p->goal, &r->j);
				if (r->j.verdict != PS_JUDGE_UNDECIDED)
					break;
			}
			if (spent + spent / (double)r->n > p->cap_s ||
			    (p->max_pairs && r->n >= p->max_pairs)) {
				r->capped = true;
				break;
			}
		}
		if (r->n == r->room && grow(r) < 0) {
			ps_pairs_free(r);
			return -1;
		}
		/* who goes first alternates, so that a drift touches both alike */
		if (r->n % 2 == 0) {
			a = run_side(p, 0, why_a, sizeof(why_a));
			b = run_side(p, 1, why_b, sizeof(why_b));
		} else {
			b = run_side(p, 1, why_b, sizeof(why_b));
			a = run_side(p, 0, why_a, sizeof(why_a));
		}
		print_pair(p, r->n, a, b, why_a, why_b);
		r->a[r->n] = a;
		r->b[r->n] = b;
		r->ratio[r->n] = a / b;
		r->n++;
		if (!isnan(a / b)) {
			failed_in_a_row = 0;
		} else if (++failed_in_a_row >= MAX_FAILED_IN_A_ROW) {
			r->broken = true;
			break;
		}
	}
	r->seconds = ps_mono_now() - t0;
	ps_judge_pairs(r->ratio, r->n, p->goal, &r->j);
	r->median_a = ps_bench_median(r->a, r->n);
	r->median_b = ps_bench_median(r->b, r->n);
	return 0;
}

void ps_pairs_print(const struct ps_pair_plan *p, const struct ps_pairs *r)
{
	char words[400];

	ps_judge_words(&r->j, p->what, r->capped, words, sizeof(words));
	printf("  %s: median %.1f %s, %s: median %.1f %s (%zu pairs in %.0f s)\n", p->name_a,
	       r->median_a, p->unit, p->name_b, r->median_b, p->unit, r->n, r->seconds);
	printf("  goal %s >= %.2f: %s\n", p->what, p->goal, words);
	if (r->broken)
		printf("  stopped: %d pairs in a row gave no ratio\n", MAX_FAILED_IN_A_ROW);
	fflush(stdout);
}

static json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

json_object *ps_pairs_json(const struct ps_pair_plan *p, const struct ps_pairs *r)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array(), *iv;
	char words[400];

	for (size_t i = 0; i < r->n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "first",
				       json_object_new_string(i % 2 ? p->name_b : p->name_a));
		json_object_object_add(e, "a", jnum(r->a[i]));
		json_object_object_add(e, "b", jnum(r->b[i]));
		json_object_object_add(e, "ratio", jnum(r->ratio[i]));
		json_object_array_add(arr, e);
	}
	ps_judge_words(&r->j, p->what, r->capped, words, sizeof(words));
	json_object_object_add(o, "a", json_object_new_string(p->name_a));
	json_object_object_add(o, "b", json_object_new_string(p->name_b));
	json_object_object_add(o, "unit", json_object_new_string(p->unit));
	json_object_object_add(o, "goal", json_object_new_double(p->goal));
	json_object_object_add(o, "median_a", jnum(r->median_a));
	json_object_object_add(o, "median_b", jnum(r->median_b));
	json_object_object_add(o, "ratio_median", jnum(r->j.median));
	iv = json_object_new_array();
	json_object_array_add(iv, jnum(r->j.lo));
	json_object_array_add(iv, jnum(r->j.hi));
	json_object_object_add(o, "interval95", iv);
	json_object_object_add(o, "interval_coverage", jnum(r->j.coverage));
	json_object_object_add(o, "verdict",
			       json_object_new_string(ps_judge_verdict_name(r->j.verdict)));
	json_object_object_add(o, "why", json_object_new_string(words));
	json_object_object_add(o, "pairs_needed",
			       r->j.pairs_needed ? json_object_new_int64((int64_t)r->j.pairs_needed)
						 : NULL);
	json_object_object_add(o, "capped", json_object_new_boolean(r->capped));
	json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
	json_object_object_add(o, "pairs", arr);
	return o;
}

void ps_pairs_free(struct ps_pairs *r)
{
	free(r->a);
	free(r->b);
	free(r->ratio);
	memset(r, 0, sizeof(*r));
}
