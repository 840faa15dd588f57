/* bench_judge.h - the judge of every `probestick bench`: tool A and tool B run
 * alternately, each adjacent pair gives a ratio A/B, and the median of those
 * ratios with its 95 % interval is held against a goal "A/B >= goal". */
#ifndef PS_BENCH_JUDGE_H
#define PS_BENCH_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

/* Fewest pairs with a 95 % interval of their median: 2 / 2^6 <= 5 %. */
#define PS_JUDGE_MIN_PAIRS 6

enum ps_judge_verdict {
	PS_JUDGE_ABOVE,	    /* the interval's low end reaches the goal */
	PS_JUDGE_BELOW,	    /* the interval's high end falls short of it */
	PS_JUDGE_UNDECIDED, /* the goal lies inside the interval, or too few pairs */
};

struct ps_judgement {
	enum ps_judge_verdict verdict;
	size_t pairs;	 /* pair ratios judged (positive and finite ones) */
	double median;	 /* of the pair ratios; NAN without any */
	double lo, hi;	 /* the interval; NAN below PS_JUDGE_MIN_PAIRS */
	unsigned int k;	 /* lo and hi are the k-th smallest and k-th largest ratio */
	double coverage; /* the interval's exact coverage, >= 0.95 */
	double goal;
	/*
	 * Undecided: the pairs it would take in all, from the interval's width
	 * on the goal's side shrinking as 1/sqrt(pairs); 0 when the median
	 * sits on the goal (no number of pairs tells then).
	 */
	size_t pairs_needed;
};

/*
 * Judges the pair ratios r[0..n) (A/B of figures where higher is better)
 * against "A/B >= goal". Distribution-free: the interval of the median is
 * [r(k), r(n+1-k)] of the sorted ratios, k the largest with
 * P(Binomial(n, 1/2) < k) <= 2.5 %, so it covers the true median at least
 * 95 % of the time whatever the ratios' distribution, given independent
 * pairs. Ratios that are not positive and finite are left out. Pure: r is
 * not modified.
 */
enum ps_judge_verdict ps_judge_pairs(const double *r, size_t n, double goal,
				     struct ps_judgement *j);

/* "above", "below", "undecided". */
const char *ps_judge_verdict_name(enum ps_judge_verdict v);

/*
 * The judgement in one line of words, "what" naming the ratio
 * ("probestick/fio"): above / below with the interval, or undecided after N
 * pairs with the pairs it would take; capped says the time cap ended it.
 */
void ps_judge_words(const struct ps_judgement *j, const char *what, bool capped, char *buf,
		    size_t len);

/*
 * When the judge looks: at PS_JUDGE_MIN_PAIRS pairs (or first_look, if
 * larger), then each time the pairs have grown by half (6, 9, 13, 19, 28,
 * ...). Every look is one more chance for a 95 % interval to miss, so
 * the bench does not look after every pair. True when n pairs is a look.
 */
bool ps_judge_is_look(size_t n, size_t first_look);

#endif
