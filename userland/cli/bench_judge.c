/* bench_judge.c - the pair-ratio judge of the benches: median of the ratios of
 * adjacent A/B runs, its distribution-free 95 % interval, and the verdict. */
#include "cli/bench_judge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* P(Binomial(n, 1/2) <= m), summed in logs so that 2^-n cannot underflow. */
static double binom_half_cdf(size_t n, size_t m)
{
	double logp = -(double)n * log(2.0), sum = exp(logp);

	for (size_t i = 1; i <= m && i <= n; i++) {
		logp += log((double)(n - i + 1)) - log((double)i);
		sum += exp(logp);
	}
	return sum;
}

enum ps_judge_verdict ps_judge_pairs(const double *r, size_t n, double goal, struct ps_judgement *j)
{
	double *v = malloc((n ? n : 1) * sizeof(*v)), h, d, need;
	size_t m = 0, k = 0;

	memset(j, 0, sizeof(*j));
	j->verdict = PS_JUDGE_UNDECIDED;
	j->median = j->lo = j->hi = j->coverage = NAN;
	j->goal = goal;
	j->pairs_needed = PS_JUDGE_MIN_PAIRS;
	if (!v)
		return j->verdict;
	for (size_t i = 0; i < n; i++)
		if (isfinite(r[i]) && r[i] > 0)
			v[m++] = r[i];
	j->pairs = m;
	if (!m) {
		free(v);
		return j->verdict;
	}
	qsort(v, m, sizeof(*v), cmp_double);
	j->median = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
	/* the largest k with P(B < k) <= 2.5 %: both tails together at most 5 % */
	while (k < m / 2 && binom_half_cdf(m, k) <= 0.025)
		k++;
	if (k == 0) {
		free(v);
		return j->verdict;
	}
	j->k = (unsigned int)k;
	j->lo = v[k - 1];
	j->hi = v[m - k];
	j->coverage = 1 - 2 * binom_half_cdf(m, k - 1);
	free(v);
	if (j->lo >= goal)
		j->verdict = PS_JUDGE_ABOVE;
	else if (j->hi < goal)
		j->verdict = PS_JUDGE_BELOW;
	if (j->verdict != PS_JUDGE_UNDECIDED) {
		j->pairs_needed = 0;
		return j->verdict;
	}
	/* The half of the interval on the goal's side, against the distance to it. */
	h = j->median >= goal ? j->median - j->lo : j->hi - j->median;
	d = fabs(j->median - goal);
	if (!(d > 0)) {
		j->pairs_needed = 0;
		return j->verdict;
	}
	/* less a hair, so that an exact 25.0 computed as 25.000000001 stays 25 */
	need = ceil((double)m * (h / d) * (h / d) - 1e-9);
	j->pairs_needed = need > (double)m ? (need < 1e9 ? (size_t)need : 1000000000) : m + 1;
	return j->verdict;
}

const char *ps_judge_verdict_name(enum ps_judge_verdict v)
{
	switch (v) {
	case PS_JUDGE_ABOVE:
		return "above";
	case PS_JUDGE_BELOW:
		return "below";
	default:
		return "undecided";
	}
}

void ps_judge_words(const struct ps_judgement *j, const char *what, bool capped, char *buf,
		    size_t len)
{
	const char *cap = capped ? " (the time cap ended the runs)" : "";

	if (!j->pairs) {
		snprintf(buf, len, "undecided: no pair gave a ratio%s", cap);
		return;
	}
	if (isnan(j->lo)) {
		snprintf(buf, len,
			 "undecided after %zu pair%s: %s %.3f, but a 95%% interval of the median "
			 "needs %d pairs%s",
			 j->pairs, j->pairs == 1 ? "" : "s", what, j->median, PS_JUDGE_MIN_PAIRS,
			 cap);
		return;
	}
	switch (j->verdict) {
	case PS_JUDGE_ABOVE:
		snprintf(buf, len, "above: %s %.3f, 95%% interval %.3f to %.3f (%zu pairs) >= %.2f",
			 what, j->median, j->lo, j->hi, j->pairs, j->goal);
		return;
	case PS_JUDGE_BELOW:
		snprintf(buf, len, "below: %s %.3f, 95%% interval %.3f to %.3f (%zu pairs) < %.2f",
			 what, j->median, j->lo, j->hi, j->pairs, j->goal);
		return;
	default:
		break;
	}
	if (j->pairs_needed)
		snprintf(buf, len,
			 "undecided after %zu pairs: %s %.3f, 95%% interval %.3f to %.3f holds "
			 "the goal %.2f; about %zu pairs would tell%s",
			 j->pairs, what, j->median, j->lo, j->hi, j->goal, j->pairs_needed, cap);
	else
		snprintf(buf, len,
			 "undecided after %zu pairs: %s %.3f, 95%% interval %.3f to %.3f; the "
			 "median sits on the goal %.2f, which no number of pairs tells apart%s",
			 j->pairs, what, j->median, j->lo, j->hi, j->goal, cap);
}

bool ps_judge_is_look(size_t n, size_t first_look)
{
	size_t look = first_look > PS_JUDGE_MIN_PAIRS ? first_look : PS_JUDGE_MIN_PAIRS;

	while (look < n)
		look += look / 2 ? look / 2 : 1;
	return look == n;
}
