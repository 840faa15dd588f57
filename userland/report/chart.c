/*
 * chart.c - inline SVG charts from numbers: no script draws them, so a
 * report opens the same in any browser, printed, or with scripts off.
 * The userland links no libm: the few logarithms are computed here.
 */
#include "report/chart.h"
#include "report/doc.h"
#include "lib/json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define W	   560 /* user units; the page scales the chart to its width */
#define FONT	   11
#define MAX_LEGEND 16 /* legend entries shown; the rest are counted */

static const char *const palette[] = {"#2b6cb0", "#dd6b20", "#2f855a", "#805ad5",
				      "#c53030", "#319795", "#b7791f", "#d53f8c"};

const char *ps_chart_color(size_t i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

void ps_html_esc(FILE *f, const char *s)
{
	char *clean;

	if (!s)
		return;
	clean = ps_text_clean_dup(s, strlen(s), "\n\t");
	for (const char *p = clean ? clean : ""; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*p, f);
		}
	}
	free(clean);
}

/* ---- arithmetic without libm ---- */

static double ln_pos(double x)
{
	/* x = m * 2^k with m in [1, 2), ln m = 2 atanh((m - 1) / (m + 1)) */
	int k = 0;
	double m = x, z, z2, term, sum = 0;

	if (!(x > 0))
		return -1e300;
	while (m >= 2) {
		m /= 2;
		k++;
	}
	while (m < 1) {
		m *= 2;
		k--;
	}
	z = (m - 1) / (m + 1);
	z2 = z * z;
	term = z;
	for (int i = 1; i < 60; i += 2) {
		sum += term / i;
		term *= z2;
	}
	return 2 * sum + k * 0.69314718055994530942;
}

static double lg10(double x)
{
	return ln_pos(x) / 2.30258509299404568402;
}

static double pow10i(int k)
{
	double r = 1;

	for (; k > 0; k--)
		r *= 10;
	for (; k < 0; k++)
		r /= 10;
	return r;
}

static int floor_int(double x)
{
	int i = (int)x;

	return (double)i > x ? i - 1 : i;
}

/* A round step (1, 2 or 5 times a power of ten) giving about n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, p;

	if (!(raw > 0))
		return 1;
	p = pow10i(floor_int(lg10(raw)));
	if (raw / p <= 1)
		return p;
	if (raw / p <= 2)
		return 2 * p;
	if (raw / p <= 5)
		return 5 * p;
	return 10 * p;
}

static double round_up(double v, double step)
{
	double n = (double)(int64_t)(v / step);

	if (n * step < v)
		n += 1;
	return n * step;
}

/* A value as its column shows it, without the unit unless the format carries one. */
static void fmt_value(const struct ps_col *col, double v, char *buf, size_t len, bool tick)
{
	struct ps_cell c = {.type = PS_CELL_NUM, .num = v};
	struct ps_col plain = {.title = "", .decimals = 0};

	if (!col) {
		ps_num_text(v, NULL, buf, len);
		return;
	}
	plain = *col;
	if (plain.fmt == PS_FMT_RANGE || plain.fmt == PS_FMT_STATUS || plain.fmt == PS_FMT_BOOL)
		plain.fmt = PS_FMT_AUTO;
	/* an axis tick needs no more decimals than its step has */
	if (tick && plain.fmt == PS_FMT_AUTO && v != (double)(int64_t)v && plain.decimals == 0)
		plain.decimals = 1;
	ps_cell_text(&c, &plain, buf, len, false);
}

static void svg_open(FILE *f, const struct ps_chart *c, int h)
{
	fprintf(f,
		"<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" font-size=\"%d\" aria-label=\"",
		W, h, FONT);
	ps_html_esc(f, c->title ? c->title : "chart");
	fputs("\"><title>", f);
	ps_html_esc(f, c->title ? c->title : "chart");
	fputs("</title>", f);
}

static void text(FILE *f, double x, double y, const char *anchor, const char *cls, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (anchor)
		fprintf(f, " text-anchor=\"%s\"", anchor);
	if (cls)
		fprintf(f, " class=\"%s\"", cls);
	fputc('>', f);
	ps_html_esc(f, s);
	fputs("</text>", f);
}

/* The first len characters of s (UTF-8 aware), "~" marking a cut. */
static void short_label(const char *s, size_t max, char *buf, size_t len)
{
	size_t chars = 0, o = 0;

	for (const char *p = s ? s : ""; *p && o + 5 < len; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && ++chars > max) {
			buf[o++] = '~';
			break;
		}
		buf[o++] = *p;
	}
	buf[o] = '\0';
}

/* Legend rows of coloured swatches; returns the height it takes (0 for one series). */
static int legend(FILE *f, const struct ps_chart *c, int y0, bool draw)
{
	double x = 8;
	int y = y0, shown = 0;
	char lab[64];

	if (c->ns < 2)
		return 0;
	for (size_t i = 0; i < c->ns; i++) {
		double wdt;

		if (shown == MAX_LEGEND) {
			snprintf(lab, sizeof(lab), "+%zu more", c->ns - i);
			if (draw)
				text(f, x, y + 9, NULL, "lg", lab);
			break;
		}
		short_label(c->s[i].label ? c->s[i].label : "-", 24, lab, sizeof(lab));
		wdt = 16 + strlen(lab) * 6.2 + 12;
		if (x + wdt > W && x > 8) {
			x = 8;
			y += 14;
		}
		if (draw) {
			fprintf(
			    f, "<rect x=\"%.1f\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>",
			    x, y, ps_chart_color(i));
			text(f, x + 14, y + 9, NULL, "lg", lab);
		}
		x += wdt;
		shown++;
	}
	return y - y0 + 16;
}

/* ---- bars: a row per category, a bar per series, whiskers for the range ---- */

static void bars(FILE *f, const struct ps_chart *c)
{
	const int bh = 13, gap = 7, lw = 150, pr = 70, pw = W - lw - pr;
	int top = 6 + legend(f, c, 4, false), h, axis_y;
	double vmax = 0, step, amax;
	char buf[64];

	for (size_t j = 0; j < c->ns; j++)
		for (size_t i = 0; i < c->ncats && i < c->s[j].n; i++) {
			double v = c->s[j].y[i], hi = c->s[j].hi ? c->s[j].hi[i] : NAN;

			if (!isnan(v) && v > vmax)
				vmax = v;
			if (!isnan(hi) && hi > vmax)
				vmax = hi;
		}
	if (!(vmax > 0))
		vmax = 1;
	step = nice_step(vmax, 4);
	amax = round_up(vmax, step);
	axis_y = top + (int)c->ncats * ((int)c->ns * bh + gap);
	h = axis_y + 24;
	svg_open(f, c, h);
	legend(f, c, 4, true);
	for (double t = 0; t <= amax + step / 2; t += step) {
		double x = lw + t / amax * pw;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>", x,
			top - 2, x, axis_y);
		fmt_value(c->ycol, t, buf, sizeof(buf), true);
		text(f, x, axis_y + 14, "middle", "ax", buf);
	}
	for (size_t i = 0; i < c->ncats; i++) {
		int gy = top + (int)i * ((int)c->ns * bh + gap);
		char lab[96];

		if (c->marked && c->marked[i])
			fprintf(
			    f,
			    "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"markbg\"/>",
			    gy - 2, W, (int)c->ns * bh + 3);
		short_label(c->cats[i], 24, lab, sizeof(lab));
		text(f, lw - 6, gy + c->ns * bh / 2.0 + 4, "end",
		     c->marked && c->marked[i] ? "mk" : NULL, lab);
		for (size_t j = 0; j < c->ns; j++) {
			double v = i < c->s[j].n ? c->s[j].y[i] : NAN;
			double lo = c->s[j].lo && i < c->s[j].n ? c->s[j].lo[i] : NAN;
			double hi = c->s[j].hi && i < c->s[j].n ? c->s[j].hi[i] : NAN;
			double y = gy + (double)j * bh, end = lw;

			if (isnan(v)) {
				text(f, lw + 4, y + bh - 3, NULL, "ax", "-");
				continue;
			}
			end = lw + (v > 0 ? v : 0) / amax * pw;
			fprintf(
			    f,
			    "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
			    lw, y, end - lw, bh - 2, ps_chart_color(j));
			if (!isnan(lo) && !isnan(hi)) {
				double x1 = lw + (lo > 0 ? lo : 0) / amax * pw;
				double x2 = lw + hi / amax * pw, ym = y + (bh - 2) / 2.0;

				fprintf(f,
					"<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\" "
					"class=\"wh\"/>",
					x1, ym, x2, x1, ym - 4, ym + 4, x2, ym - 4, ym + 4);
				if (x2 > end)
					end = x2;
			}
			fmt_value(c->ycol, v, buf, sizeof(buf), false);
			text(f, end + 4, y + bh - 3, NULL, "val", buf);
		}
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>", lw, axis_y,
		lw + pw, axis_y);
	fputs("</svg>\n", f);
}

/* ---- lines and histograms: a plot area with axes ---- */

struct area {
	int l, t, pw, ph;
	double x0, x1, y0, y1;
	bool logx;
};

static double ax(const struct area *a, double x)
{
	double u;

	if (a->logx)
		u = (lg10(x > a->x0 ? x : a->x0) - lg10(a->x0)) / (lg10(a->x1) - lg10(a->x0));
	else
		u = (x - a->x0) / (a->x1 - a->x0);
	return a->l + u * a->pw;
}

static double ay(const struct area *a, double y)
{
	return a->t + a->ph - (y - a->y0) / (a->y1 - a->y0) * a->ph;
}

static void axes(FILE *f, const struct ps_chart *c, const struct area *a)
{
	double step = nice_step(a->y1 - a->y0, 4);
	char buf[64];

	for (double t = a->y0; t <= a->y1 + step / 2; t += step) {
		double y = ay(a, t);

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>",
			a->l, y, a->l + a->pw, y);
		fmt_value(c->kind == PS_CHART_HIST ? NULL : c->ycol, t, buf, sizeof(buf), true);
		text(f, a->l - 4, y + 4, "end", "ax", buf);
	}
	if (a->logx) {
		for (int k = floor_int(lg10(a->x0)); pow10i(k) <= a->x1; k++) {
			double v = pow10i(k);

			if (v < a->x0)
				continue;
			fprintf(
			    f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>",
			    ax(a, v), a->t, ax(a, v), a->t + a->ph);
			fmt_value(c->xcol, v, buf, sizeof(buf), true);
			text(f, ax(a, v), a->t + a->ph + 14, "middle", "ax", buf);
		}
	} else {
		double xs = nice_step(a->x1 - a->x0, 5), first = round_up(a->x0, xs);

		for (double t = first; t <= a->x1 + xs / 1000; t += xs) {
			fmt_value(c->xcol, t, buf, sizeof(buf), true);
			text(f, ax(a, t), a->t + a->ph + 14, "middle", "ax", buf);
		}
	}
	fprintf(f, "<path d=\"M%d %dV%dH%d\" class=\"axis\"/>", a->l, a->t, a->t + a->ph,
		a->l + a->pw);
}

static bool extent(const struct ps_chart *c, double *x0, double *x1, double *y1, bool positive_x)
{
	bool any = false;

	*x0 = INFINITY;
	*x1 = -INFINITY;
	*y1 = 0;
	for (size_t j = 0; j < c->ns; j++)
		for (size_t i = 0; i < c->s[j].n; i++) {
			double x = c->s[j].x ? c->s[j].x[i] : (double)i, y = c->s[j].y[i];

			if (isnan(x) || isnan(y))
				continue;
			any = true;
			if (!positive_x || x > 0)
				*x0 = x < *x0 ? x : *x0;
			*x1 = x > *x1 ? x : *x1;
			*y1 = y > *y1 ? y : *y1;
		}
	return any;
}

static void lines(FILE *f, const struct ps_chart *c)
{
	struct area a = {.l = 56, .pw = W - 56 - 12, .ph = 150};
	double x0, x1, y1;

	if (!extent(c, &x0, &x1, &y1, false))
		return;
	a.t = 8 + legend(f, c, 4, false);
	a.x0 = x0;
	a.x1 = x1 > x0 ? x1 : x0 + 1;
	a.y0 = 0;
	a.y1 = y1 > 0 ? round_up(y1, nice_step(y1, 4)) : 1;
	svg_open(f, c, a.t + a.ph + 22);
	legend(f, c, 4, true);
	axes(f, c, &a);
	for (size_t j = 0; j < c->ns; j++) {
		bool open = false;
		size_t pts = 0;

		for (size_t i = 0; i < c->s[j].n; i++) {
			double x = c->s[j].x ? c->s[j].x[i] : (double)i, y = c->s[j].y[i];

			if (isnan(x) || isnan(y)) {
				if (open)
					fputs("\"/>", f);
				open = false;
				continue;
			}
			if (!open)
				fprintf(f, "<polyline class=\"ln\" stroke=\"%s\" points=\"",
					ps_chart_color(j));
			fprintf(f, "%s%.1f,%.1f", open ? " " : "", ax(&a, x), ay(&a, y));
			open = true;
			pts++;
		}
		if (open)
			fputs("\"/>", f);
		/* a single point is no line: mark it */
		if (pts == 1)
			for (size_t i = 0; i < c->s[j].n; i++)
				if (!isnan(c->s[j].y[i]))
					fprintf(
					    f,
					    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>",
					    ax(&a, c->s[j].x ? c->s[j].x[i] : (double)i),
					    ay(&a, c->s[j].y[i]), ps_chart_color(j));
	}
	fputs("</svg>\n", f);
}

/* The log-linear buckets are 1/16 of their power of two wide (at most 6.25%). */
#define BUCKET_WIDTH 1.0625

static void hist(FILE *f, const struct ps_chart *c)
{
	struct area a = {.l = 56, .pw = W - 56 - 12, .ph = 120, .logx = true};
	double x0, x1, y1;

	if (!extent(c, &x0, &x1, &y1, true))
		return;
	a.t = 8 + legend(f, c, 4, false);
	a.x0 = isinf(x0) ? 1 : x0 / BUCKET_WIDTH;
	a.x1 = x1 * BUCKET_WIDTH * BUCKET_WIDTH;
	if (!(a.x1 > a.x0 * 1.5))
		a.x1 = a.x0 * 10;
	a.y0 = 0;
	a.y1 = y1 > 0 ? round_up(y1, nice_step(y1, 4)) : 1;
	svg_open(f, c, a.t + a.ph + 22);
	legend(f, c, 4, true);
	axes(f, c, &a);
	for (size_t j = 0; j < c->ns; j++) {
		/* Buckets closer than a few pixels share one bar, as tall as the tallest
		 * of them: a log-linear histogram has 16 buckets per octave and the page
		 * would carry thousands of invisible rectangles otherwise. */
		double bl = NAN, br = 0, by = 0;

		fprintf(f, "<g fill=\"%s\"%s>", ps_chart_color(j),
			c->ns > 1 ? " fill-opacity=\"0.5\"" : "");
		for (size_t i = 0; i <= c->s[j].n; i++) {
			double x = i < c->s[j].n ? c->s[j].x[i] : NAN;
			double y = i < c->s[j].n ? c->s[j].y[i] : NAN;
			double xl = 0, xr = 0;
			bool ok = !isnan(x) && !isnan(y) && y > 0;

			if (ok) {
				xl = ax(&a, x > 0 ? x : a.x0);
				xr = ax(&a, (x > 0 ? x : a.x0) * BUCKET_WIDTH);
			}
			if (!isnan(bl) && (!ok || xl - bl >= 3 || i == c->s[j].n)) {
				if (br - bl < 1.2)
					br = bl + 1.2;
				fprintf(f,
					"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
					"height=\"%.1f\"/>",
					bl, ay(&a, by), br - bl, a.t + a.ph - ay(&a, by));
				bl = NAN;
			}
			if (!ok)
				continue;
			if (isnan(bl)) {
				bl = xl;
				by = 0;
			}
			br = xr;
			by = y > by ? y : by; /* the tallest bucket stands for its neighbours */
		}
		fputs("</g>", f);
	}
	fputs("</svg>\n", f);
}

/* ---- heat strips: colour from light (low) to dark red (high) ---- */

static void heat_color(double t, char *buf, size_t len)
{
	static const int stops[][3] = {{255, 247, 188}, {254, 196, 79}, {217, 95, 14}, {127, 0, 0}};
	double u;
	int k, rgb[3];

	t = t < 0 ? 0 : t > 1 ? 1 : t;
	u = t * 3;
	k = (int)u >= 3 ? 2 : (int)u;
	u -= k;
	for (int i = 0; i < 3; i++)
		rgb[i] = (int)(stops[k][i] + (stops[k + 1][i] - stops[k][i]) * u + 0.5);
	snprintf(buf, len, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static void heat(FILE *f, const struct ps_chart *c)
{
	const int lw = 110, sh = 22, gap = 6, pw = W - lw - 12;
	double x0, x1, y1, ymin = INFINITY;
	char col[16], buf[64], buf2[64];
	size_t nmax = 0;
	int h, ly;

	if (!extent(c, &x0, &x1, &y1, false))
		return;
	for (size_t j = 0; j < c->ns; j++)
		for (size_t i = 0; i < c->s[j].n; i++)
			if (!isnan(c->s[j].y[i]) && c->s[j].y[i] < ymin)
				ymin = c->s[j].y[i];
	if (!(x1 > x0))
		x1 = x0 + 1;
	for (size_t j = 0; j < c->ns; j++)
		nmax = c->s[j].n > nmax ? c->s[j].n : nmax;
	ly = 6 + (int)c->ns * (sh + gap);
	h = ly + 40;
	svg_open(f, c, h);
	for (size_t j = 0; j < c->ns; j++) {
		int y = 6 + (int)j * (sh + gap);
		char lab[64];

		short_label(c->s[j].label ? c->s[j].label : "-", 18, lab, sizeof(lab));
		text(f, lw - 6, y + sh / 2.0 + 4, "end", NULL, lab);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"nodata\"/>",
			lw, y, pw, sh);
		for (size_t i = 0; i < c->s[j].n; i++) {
			size_t n = c->s[j].n;
			/* one scale for every strip: the densest one's cell width */
			double cellw = (x1 - x0) / (double)(nmax > 1 ? nmax - 1 : 1);
			double total = x1 - x0 + cellw;
			double x = c->s[j].x ? c->s[j].x[i] : (double)i, v = c->s[j].y[i];
			double next =
			    i + 1 < n ? (c->s[j].x ? c->s[j].x[i + 1] : (double)i + 1) : x + cellw;
			double xl = lw + (x - x0) / total * pw, xr = lw + (next - x0) / total * pw;

			if (isnan(v) || isnan(x))
				continue;
			heat_color(y1 > ymin ? (v - ymin) / (y1 - ymin) : 0, col, sizeof(col));
			fprintf(
			    f,
			    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
			    xl, y, xr - xl > 0.5 ? xr - xl : 0.5, sh, col);
		}
	}
	/* the colour scale */
	for (int i = 0; i < 20; i++) {
		heat_color(i / 19.0, col, sizeof(col));
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"8\" fill=\"%s\"/>",
			lw + i * (pw / 2.0 / 20), ly, pw / 2.0 / 20 + 0.3, col);
	}
	fmt_value(c->ycol, isinf(ymin) ? 0 : ymin, buf, sizeof(buf), true);
	fmt_value(c->ycol, y1, buf2, sizeof(buf2), true);
	text(f, lw, ly + 22, NULL, "ax", buf);
	text(f, lw + pw / 2.0, ly + 22, "end", "ax", buf2);
	fmt_value(c->xcol, x0, buf, sizeof(buf), true);
	fmt_value(c->xcol, x1, buf2, sizeof(buf2), true);
	{
		char range[160];

		snprintf(range, sizeof(range), "%s %s to %s%s%s", c->xcol ? c->xcol->title : "x",
			 buf, buf2, c->xcol && c->xcol->unit ? " " : "",
			 c->xcol && c->xcol->unit ? c->xcol->unit : "");
		text(f, W - 12, ly + 22, "end", "ax", range);
	}
	fputs("</svg>\n", f);
}

void ps_chart_svg(FILE *f, const struct ps_chart *c)
{
	if (!c || !c->ns)
		return;
	/* on a phone the chart keeps a readable size and scrolls sideways */
	fputs("<div class=\"cw\">", f);
	switch (c->kind) {
	case PS_CHART_BARS:
		if (c->ncats)
			bars(f, c);
		break;
	case PS_CHART_LINES:
		lines(f, c);
		break;
	case PS_CHART_HIST:
		hist(f, c);
		break;
	case PS_CHART_HEAT:
		heat(f, c);
		break;
	}
	fputs("</div>\n", f);
}
