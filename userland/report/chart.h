/*
 * chart.h - inline SVG charts drawn in C from the neutral document's
 * numbers: bars with min-max whiskers, lines over time, log-scale latency
 * histograms and heat strips. report.html and compare.html share them; one
 * chart may carry several series (one per run in a comparison).
 */
#ifndef PS_REPORT_CHART_H
#define PS_REPORT_CHART_H

#include "report/view.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum ps_chart_kind {
	PS_CHART_BARS,	/* a bar per category and series, with min-max whiskers */
	PS_CHART_LINES, /* y over x (time, position), a line per series */
	PS_CHART_HIST,	/* x = bucket lower bounds (log scale), y = counts */
	PS_CHART_HEAT,	/* a strip per series: x = position, colour = y */
};

/* One series: n points (BARS: one per category, x unused). NAN values are gaps. */
struct ps_chart_series {
	const char *label;
	size_t n;
	const double *x;
	const double *y;
	const double *lo, *hi; /* BARS: the run-to-run range per category, or NULL */
};

struct ps_chart {
	enum ps_chart_kind kind;
	const char *title;		  /* the SVG's accessible name */
	const struct ps_col *xcol, *ycol; /* formats and units of the axes (may be NULL) */
	const char *const *cats;	  /* BARS: category labels, ncats of them */
	size_t ncats;
	const struct ps_chart_series *s;
	size_t ns;
	const bool *marked; /* BARS: categories to draw as problems (ncats), or NULL */
};

/* The chart as one <svg class="chart"> element; nothing when it has no point to draw. */
void ps_chart_svg(FILE *f, const struct ps_chart *c);

/* Text with &, <, >, " and ' escaped for HTML (control bytes shown escaped, UTF-8 kept). */
void ps_html_esc(FILE *f, const char *s);

/* The colour of series i (the same in every chart of a page). */
const char *ps_chart_color(size_t i);

#endif
