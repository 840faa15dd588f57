/*
 * render_html.c - the document as report.html: the verdicts first (FAIL and
 * WARN on top, with rule, value and limit), then each step's findings,
 * tables and charts, its load and interrupts, the inventory. Sibling of
 * render_text.c: it knows no step; charts come from the views' hints (a
 * column's min/max, a series' kind).
 */
#include "report/chart.h"
#include "report/doc.h"
#include "report/html.h"
#include "lib/json.h"
#include "report/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL		 256
#define MAX_HISTS	 4 /* histograms drawn on one chart per series block; all are in report.json */
#define CHART_MIN_POINTS 4  /* a line of fewer points is no chart (series()) */
#define MAX_KEYS	 64 /* categories of one bar chart */
#define PASS_NAMES	 12

static const char css[] =
    ":root{--fail:#c53030;--warn:#b7791f;--pass:#2f855a;--mute:#5a6473;--line:#e2e8f0}"
    "*{box-sizing:border-box}"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;"
    "margin:0 auto;max-width:62em;padding:0 1em 2em;color:#1a202c;background:#fff}"
    "h1{font-size:1.35em;margin:.8em 0 .2em}h2{font-size:1.15em;border-bottom:2px solid "
    "var(--line);margin:1.6em 0 .5em;padding-bottom:.15em}h3{font-size:1em;margin:1.1em 0 .3em}"
    "h4{font-size:.95em;margin:.8em 0 .2em;color:var(--mute)}"
    "a{color:#2b6cb0}p{margin:.3em 0}.meta{color:var(--mute)}"
    "table{border-collapse:collapse;font-size:.92em;margin:.2em 0 .6em}"
    "th,td{padding:.2em .6em;border-bottom:1px solid var(--line);text-align:left;"
    "vertical-align:top}th{background:#f7fafc;font-weight:600}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "table.kv th{background:none;font-weight:normal;color:var(--mute)}"
    ".tw{overflow-x:auto;max-width:100%}"
    ".st{display:inline-block;font-weight:600;font-size:.85em;padding:0 .45em;border-radius:3px;"
    "color:#fff;background:#718096;text-transform:uppercase}"
    ".st.fail,.st.error{background:var(--fail)}.st.warn{background:var(--warn)}"
    ".st.pass{background:var(--pass)}.st.info{background:#4a5568}"
    "tr.bad td{background:#fed7d7}tr.bad td:first-child{box-shadow:inset 4px 0 var(--fail)}"
    "tr.v-fail td{background:#fff5f5}tr.v-warn td{background:#fffbeb}"
    ".noisy{color:var(--warn);font-weight:600;cursor:help}"
    ".rule{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em;color:var(--mute)}"
    "ul.findings{list-style:none;padding:0;margin:.4em 0}ul.findings li{margin:.25em 0}"
    ".note{color:var(--mute);font-size:.9em}.incomplete{color:var(--fail);font-weight:600}"
    "details{margin:.6em 0 .6em;border-left:3px solid var(--line);padding-left:.7em}"
    "summary{cursor:pointer;font-weight:600}"
    "nav{font-size:.9em;margin:.4em 0}nav a{margin-right:.8em;white-space:nowrap}"
    "svg.chart{display:block;width:100%;min-width:460px;max-width:660px;height:auto;"
    "margin:.3em 0 1em}.cw{overflow-x:auto;max-width:100%}"
    "svg .grid{stroke:#edf2f7}svg .axis{stroke:#4a5568;fill:none}"
    "svg .ax{fill:#4a5568;font-size:10px}svg .val{fill:#1a202c;font-size:10px}"
    "svg .lg{fill:#1a202c;font-size:10px}svg .mk{fill:var(--fail);font-weight:600}"
    "svg .ln{fill:none;stroke-width:1.6}svg .wh{stroke:#1a202c;stroke-width:1.3;fill:none}"
    "svg .markbg{fill:#fed7d7}svg .nodata{fill:#edf2f7}svg text{fill:#1a202c}"
    "#selfcheck{font-size:.8em;color:var(--mute);margin-top:2em}"
    "@media (max-width:600px){body{font-size:13px;padding:0 .5em}th,td{padding:.15em .35em}}"
    "@media "
    "print{nav,#selfcheck{display:none}svg.chart{min-width:0}body{max-width:none;font-size:10.5px;"
    "padding:0}"
    "h2{break-after:avoid}svg.chart,tr,.verdicts{break-inside:avoid}details{border:0}"
    ".st,tr.bad td,tr.v-fail td,tr.v-warn td,svg *{-webkit-print-color-adjust:exact;"
    "print-color-adjust:exact}a{color:inherit;text-decoration:none}}";

/*
 * The page's own check, and the only script: every chart drawn with a size,
 * no script error or console error, no network request (the policy above
 * refuses them; a refusal is counted too). Its verdict goes into #selfcheck.
 */
static const char selfcheck[] =
    "(function(){var errs=0,blocked=0;"
    "window.addEventListener('error',function(){errs++},true);"
    "document.addEventListener('securitypolicyviolation',function(){blocked++});"
    "var ce=console.error;console.error=function(){errs++;return ce.apply(console,arguments)};"
    "function check(){var c=document.querySelectorAll('svg.chart'),empty=0;"
    "for(var i=0;i<c.length;i++){var r=c[i].getBoundingClientRect();"
    "if(!(r.width>0&&r.height>0))empty++}"
    "var net=(performance.getEntriesByType?performance.getEntriesByType('resource').length:0)"
    "+blocked;var ok=empty===0&&errs===0&&net===0;"
    "var e=document.getElementById('selfcheck');if(!e)return;"
    "e.setAttribute('data-result',ok?'pass':'fail');"
    "e.setAttribute('data-charts',String(c.length));"
    "e.textContent='self-check '+(ok?'passed':'FAILED')+': '+c.length+' charts ('+empty+"
    "' without a size), '+errs+' script or console errors, '+net+' network requests'}"
    "if(document.readyState==='complete')setTimeout(check,0);"
    "else window.addEventListener('load',function(){setTimeout(check,0)})})();";

void ps_html_begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
	      "<meta name=\"generator\" content=\"probestick\"><title>",
	      f);
	ps_html_esc(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n<script>%s</script>\n</head>\n<body>\n", css,
		selfcheck);
}

void ps_html_end(FILE *f)
{
	fputs("<p id=\"selfcheck\" data-result=\"pending\">self-check: not run (scripts are "
	      "off)</p>\n</body></html>\n",
	      f);
}

/* ---- small pieces ---- */

static void esc_fmt(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void esc_fmt(FILE *f, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ps_html_esc(f, buf);
}

static const char *status_class(const char *s)
{
	static const char *const known[] = {"pass", "warn",    "fail",	 "error",
					    "info", "skipped", "aborted"};

	for (size_t i = 0; s && i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(s, known[i]) == 0)
			return known[i];
	return "other";
}

static void badge(FILE *f, const char *status)
{
	fprintf(f, "<span class=\"st %s\">", status_class(status));
	ps_html_esc(f, status ? status : "?");
	fputs("</span>", f);
}

/* An anchor id from a section or block id: letters, digits, '-' and '_' only. */
static void anchor(FILE *f, const char *prefix, const char *id)
{
	fputs(prefix, f);
	for (const char *p = id ? id : ""; *p; p++)
		fputc((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'
			  ? *p
			  : '-',
		      f);
}

static void num_or_dash(FILE *f, double v, const char *unit)
{
	char text[96];

	ps_num_text(v, unit, text, sizeof(text));
	ps_html_esc(f, text);
}

static void col_head(FILE *f, const struct ps_col *c)
{
	ps_html_esc(f, c->title);
	if (c->unit && *c->unit && !strstr(c->title, c->unit)) {
		fputc(' ', f);
		ps_html_esc(f, c->unit);
	}
}

static bool numeric_col(const struct ps_doc_block *db, size_t c)
{
	const struct ps_col *col = &db->desc->cols[c];

	if (col->fmt == PS_FMT_RANGE)
		return true;
	for (size_t r = 0; r < db->nrows; r++)
		if (db->cells[r * db->desc->ncols + c].type == PS_CELL_NUM)
			return true;
	return false;
}

static void cell_html(FILE *f, const struct ps_cell *cell, const struct ps_col *col)
{
	char text[CELL];

	ps_cell_text(cell, col, text, sizeof(text), false);
	if (col->fmt == PS_FMT_STATUS && cell->type == PS_CELL_STR)
		badge(f, cell->str);
	else
		ps_html_esc(f, text);
	if (cell->noisy == 1)
		fputs(
		    " <span class=\"noisy\" title=\"noisy: the spread stayed above the limit after "
		    "the extra runs\">~</span>",
		    f);
}

/* ---- findings and verdicts ---- */

static void finding_li(FILE *f, const struct ps_doc_finding *fi)
{
	fputs("<li>", f);
	badge(f, fi->severity);
	fputc(' ', f);
	if (fi->subject) {
		fputs("<b>", f);
		ps_html_esc(f, fi->subject);
		fputs("</b>: ", f);
	}
	ps_html_esc(f, fi->message);
	if (!isnan(fi->value)) {
		fputs(" <span class=\"note\">(value ", f);
		num_or_dash(f, fi->value, fi->unit);
		if (!isnan(fi->limit)) {
			fputs(", limit ", f);
			num_or_dash(f, fi->limit, fi->unit);
		}
		fputs(")</span>", f);
	}
	if (fi->rule) {
		fputs(" <span class=\"rule\">", f);
		ps_html_esc(f, fi->rule);
		fputs("</span>", f);
	}
	fputs("</li>\n", f);
}

/* What was not measured, and why: devices a step could not test, then steps skipped. */
static void not_tested(FILE *f, const struct ps_doc *doc)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < doc->nverdicts; i++) {
		const struct ps_doc_verdict *v = &doc->verdicts[i];

		if (!v->untested_by)
			continue;
		if (!n++)
			fputs("<ul class=\"findings\">\n", f);
		fputs("<li>", f);
		badge(f, "not tested");
		esc_fmt(f, " %s %s by %s: ", v->kind ? v->kind : "", v->subject ? v->subject : "-",
			v->untested_by);
		ps_html_esc(f, v->untested_why ? v->untested_why : "no reason given");
		if (!strcmp(v->status, "pass") && v->step)
			esc_fmt(f, " (%s passed what it measured)", v->step);
		fputs("</li>\n", f);
	}
	for (size_t i = 0; i < doc->nsections; i++) {
		const struct ps_doc_section *s = &doc->sections[i];

		if (s->kind != PS_SEC_STEP || strcmp(s->status, "skipped"))
			continue;
		if (!n++)
			fputs("<ul class=\"findings\">\n", f);
		if (!k++) {
			fputs("<li>", f);
			badge(f, "not run");
		}
		esc_fmt(f, "%s %s", k > 1 ? "," : "", s->step);
	}
	if (k)
		fputs(" (skipped: why under Steps)</li>\n", f);
	if (n)
		fputs("</ul>\n", f);
}

static void verdicts(FILE *f, const struct ps_doc *doc)
{
	static const char *const kinds[] = {"machine", "drive", "nic", "link", "dimm"};
	static const char *const plural[] = {"machine", "drives", "NICs", "links", "DIMMs"};
	size_t bad = 0, passes = 0;

	fputs("<section id=\"verdicts\" class=\"verdicts\"><h2>Verdicts</h2>\n", f);
	if (!doc->nverdicts) {
		esc_fmt(f, "no step examined a device%s",
			doc->complete ? "" : " yet (the run is incomplete)");
		fputs("</section>\n", f);
		return;
	}
	for (size_t i = 0; i < doc->nverdicts; i++) {
		bad += !strcmp(doc->verdicts[i].status, "fail") ||
		       !strcmp(doc->verdicts[i].status, "warn");
		passes += ps_doc_verdict_passed(&doc->verdicts[i]);
	}
	if (bad) {
		fputs("<div class=\"tw\"><table><thead><tr><th>verdict</th><th>device</th>"
		      "<th>rule</th><th class=\"n\">value</th><th class=\"n\">limit</th>"
		      "<th>why</th></tr></thead><tbody>\n",
		      f);
		for (size_t i = 0; i < doc->nverdicts; i++) {
			const struct ps_doc_verdict *v = &doc->verdicts[i];

			if (strcmp(v->status, "fail") && strcmp(v->status, "warn"))
				continue;
			fprintf(f, "<tr class=\"v-%s\"", status_class(v->status));
			if (v->device) {
				fputs(" title=\"", f);
				ps_html_esc(f, v->device);
				fputc('"', f);
			}
			fputs("><td>", f);
			badge(f, v->status);
			fputs("</td><td>", f);
			esc_fmt(f, "%s %s", v->kind ? v->kind : "", v->subject ? v->subject : "-");
			fputs("</td><td class=\"rule\">", f);
			ps_html_esc(f, v->rule ? v->rule : "-");
			fputs("</td><td class=\"n\">", f);
			num_or_dash(f, v->value, v->unit);
			fputs("</td><td class=\"n\">", f);
			num_or_dash(f, v->limit, v->unit);
			fputs("</td><td>", f);
			ps_html_esc(f, v->message ? v->message : "");
			fputs("</td></tr>\n", f);
		}
		fputs("</tbody></table></div>\n", f);
	}
	not_tested(f, doc);
	if (passes) {
		fputs("<ul class=\"findings\">\n", f);
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			size_t n = 0, shown = 0;

			for (size_t i = 0; i < doc->nverdicts; i++)
				n += ps_doc_verdict_passed(&doc->verdicts[i]) &&
				     doc->verdicts[i].kind &&
				     strcmp(doc->verdicts[i].kind, kinds[k]) == 0;
			if (!n)
				continue;
			fputs("<li>", f);
			badge(f, "pass");
			esc_fmt(f, " %zu %s: ", n, n == 1 ? kinds[k] : plural[k]);
			for (size_t i = 0; i < doc->nverdicts; i++) {
				const struct ps_doc_verdict *v = &doc->verdicts[i];

				if (!ps_doc_verdict_passed(v) || !v->kind ||
				    strcmp(v->kind, kinds[k]))
					continue;
				if (shown++ == PASS_NAMES) {
					fputs(", ...", f);
					break;
				}
				fputs(shown > 1 ? ", <span title=\"" : "<span title=\"", f);
				ps_html_esc(f, v->message ? v->message : "");
				fputs("\">", f);
				ps_html_esc(f, v->subject ? v->subject : "?");
				fputs("</span>", f);
			}
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	fputs("</section>\n", f);
}

static void step_summary(FILE *f, const struct ps_doc *doc)
{
	fputs("<section id=\"steps\"><h2>Steps</h2>\n", f);
	if (!doc->nsections) {
		fputs("<p>none run yet</p></section>\n", f);
		return;
	}
	fputs("<div class=\"tw\"><table><thead><tr><th>step</th><th>status</th>"
	      "<th class=\"n\">time</th><th>result</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < doc->nsections; i++) {
		const struct ps_doc_section *s = &doc->sections[i];
		char head[600];

		head[0] = '\0';
		ps_doc_headline(s, head, sizeof(head));
		fputs("<tr><td><a href=\"#", f);
		anchor(f, "s-", s->id);
		fputs("\">", f);
		ps_html_esc(f, s->title);
		fputs("</a></td><td>", f);
		badge(f, s->status);
		fputs("</td><td class=\"n\">", f);
		if (!isnan(s->duration_s))
			esc_fmt(f, "%.1f s", s->duration_s);
		fputs("</td><td>", f);
		ps_html_esc(f, head);
		if (s->reason) {
			fputs(head[0] ? "; " : "", f);
			ps_html_esc(f, s->reason);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
	if (!doc->complete)
		fprintf(f, "<p class=\"incomplete\">%s</p>\n",
			doc->stopped_at ? "The run stopped during the step named at the top: "
					  "the steps after it are missing."
					: "The run has not finished (or was cut off): steps after "
					  "these are missing.");
	fputs("</section>\n", f);
}

/* ---- blocks ---- */

static void kv(FILE *f, const struct ps_doc_block *db)
{
	const struct ps_block *d = db->desc;

	fputs("<div class=\"tw\"><table class=\"kv\"><tbody>\n", f);
	for (size_t c = 0; c < d->ncols; c++) {
		const struct ps_cell *cell = &db->cells[c];

		if ((d->cols[c].flags & PS_COL_DEVICE) || cell->type == PS_CELL_NULL)
			continue;
		fputs("<tr><th>", f);
		ps_html_esc(f, d->cols[c].title);
		fputs("</th><td>", f);
		{
			char text[CELL * 4];

			ps_cell_text(cell, &d->cols[c], text, sizeof(text), true);
			if (d->cols[c].fmt == PS_FMT_STATUS && cell->type == PS_CELL_STR)
				badge(f, cell->str);
			else
				ps_html_esc(f, text);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

static bool row_marked(const struct ps_doc_block *db, size_t r)
{
	const struct ps_block *d = db->desc;

	for (size_t c = 0; c < d->ncols; c++)
		if (ps_cell_marked(&db->cells[r * d->ncols + c], &d->cols[c]))
			return true;
	return false;
}

static void table(FILE *f, const struct ps_doc_block *db)
{
	const struct ps_block *d = db->desc;
	bool num[64];
	size_t nc = d->ncols < 64 ? d->ncols : 64;

	for (size_t c = 0; c < nc; c++)
		num[c] = numeric_col(db, c);
	fputs("<div class=\"tw\"><table><thead><tr>", f);
	for (size_t c = 0; c < nc; c++) {
		if (d->cols[c].flags & PS_COL_DEVICE)
			continue;
		fprintf(f, "<th%s>", num[c] ? " class=\"n\"" : "");
		col_head(f, &d->cols[c]);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (size_t r = 0; r < db->nrows; r++) {
		const struct ps_cell *row = &db->cells[r * d->ncols];
		bool titled = false;

		fputs("<tr", f);
		if (row_marked(db, r))
			fputs(" class=\"bad\"", f);
		for (size_t c = 0; c < nc && !titled; c++) {
			if ((d->cols[c].flags & PS_COL_DEVICE) && row[c].type == PS_CELL_STR) {
				fputs(" title=\"", f);
				ps_html_esc(f, row[c].str);
				fputc('"', f);
				titled = true;
			}
		}
		fputc('>', f);
		for (size_t c = 0; c < nc; c++) {
			if (d->cols[c].flags & PS_COL_DEVICE)
				continue;
			fprintf(f, "<td%s>", num[c] ? " class=\"n\"" : "");
			cell_html(f, &row[c], &d->cols[c]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

static const char *first_key_title(const struct ps_block *d)
{
	for (size_t c = 0; c < d->ncols; c++)
		if ((d->cols[c].flags & PS_COL_KEY) && !(d->cols[c].flags & PS_COL_DEVICE))
			return d->cols[c].title;
	return "row";
}

/* A column with a run-to-run range: a bar per row with its min-max whisker. */
static void range_charts(FILE *f, const struct ps_doc_block *db)
{
	const struct ps_block *d = db->desc;
	size_t n = db->nrows < MAX_KEYS ? db->nrows : MAX_KEYS;

	for (size_t c = 0; c < d->ncols; c++) {
		const struct ps_col *col = &d->cols[c];
		const char *cats[MAX_KEYS];
		char labels[MAX_KEYS][96], title[256];
		double y[MAX_KEYS], lo[MAX_KEYS], hi[MAX_KEYS];
		bool marked[MAX_KEYS], any = false;
		struct ps_chart_series s = {.n = n, .y = y, .lo = lo, .hi = hi};
		struct ps_chart ch = {.kind = PS_CHART_BARS,
				      .ycol = col,
				      .cats = cats,
				      .ncats = n,
				      .s = &s,
				      .ns = 1,
				      .marked = marked};

		if (!col->min || !col->max || col->fmt == PS_FMT_RANGE)
			continue;
		for (size_t r = 0; r < n; r++) {
			const struct ps_cell *cell = &db->cells[r * d->ncols + c];

			ps_doc_row_label(db, r, labels[r], sizeof(labels[r]));
			cats[r] = labels[r];
			y[r] = cell->type == PS_CELL_NUM ? cell->num : NAN;
			lo[r] = cell->min;
			hi[r] = cell->max;
			marked[r] = row_marked(db, r);
			any = any || !isnan(y[r]);
		}
		if (!any)
			continue;
		snprintf(title, sizeof(title),
			 "%s%s%s per %s: the figure, and its range over the runs", col->title,
			 col->unit && !strstr(col->title, col->unit) ? " " : "",
			 col->unit && !strstr(col->title, col->unit) ? col->unit : "",
			 first_key_title(d));
		fputs("<h4>", f);
		ps_html_esc(f, title);
		fputs("</h4>\n", f);
		ch.title = title;
		ps_chart_svg(f, &ch);
	}
}

/* The busiest lines of a latency histogram overlaid on one log-scale chart. */
static void hist_chart(FILE *f, const struct ps_doc_block *db)
{
	const struct ps_block *d = db->desc;
	size_t ny = d->ncols - 2, pick[MAX_HISTS], np = 0;
	double total[MAX_HISTS], *ys[MAX_HISTS] = {0};
	struct ps_chart_series s[MAX_HISTS];
	struct ps_chart ch = {
	    .kind = PS_CHART_HIST, .xcol = &d->cols[1], .ycol = &d->cols[2], .s = s};
	char title[256];

	for (size_t l = 0; l < db->nlines; l++) {
		const struct ps_doc_line *ln = &db->lines[l];
		double sum = 0;
		size_t at;

		for (size_t p = 0; p < ln->n; p++)
			sum += isnan(ln->y[p * ny]) ? 0 : ln->y[p * ny];
		if (!ln->n || sum <= 0)
			continue;
		/* keep the MAX_HISTS busiest, busiest first */
		for (at = np; at > 0 && total[at - 1] < sum; at--)
			;
		if (at >= MAX_HISTS)
			continue;
		if (np < MAX_HISTS)
			np++;
		memmove(&pick[at + 1], &pick[at], (np - 1 - at) * sizeof(*pick));
		memmove(&total[at + 1], &total[at], (np - 1 - at) * sizeof(*total));
		pick[at] = l;
		total[at] = sum;
	}
	for (size_t k = 0; k < np; k++) {
		const struct ps_doc_line *ln = &db->lines[pick[k]];

		ys[k] = malloc(ln->n * sizeof(double));
		if (!ys[k])
			break;
		for (size_t p = 0; p < ln->n; p++)
			ys[k][p] = ln->y[p * ny];
		s[ch.ns++] = (struct ps_chart_series){
		    .label = ln->label, .n = ln->n, .x = ln->x, .y = ys[k]};
	}
	snprintf(title, sizeof(title), "%s", d->title ? d->title : d->id);
	ch.title = title;
	ps_chart_svg(f, &ch);
	for (size_t k = 0; k < np; k++)
		free(ys[k]);
	if (db->nlines > ch.ns)
		fprintf(f,
			"<p class=\"note\">the %zu busiest of %zu are drawn; every histogram is in "
			"report.json</p>\n",
			ch.ns, db->nlines);
}

/* Every line and every y column of it, one series each: lines over time, or a surface map. */
static void line_chart(FILE *f, const struct ps_doc_block *db)
{
	const struct ps_block *d = db->desc;
	size_t ny = d->ncols - 2, n = db->nlines * ny, k = 0;
	struct ps_chart_series *s = calloc(n ? n : 1, sizeof(*s));
	double **ys = calloc(n ? n : 1, sizeof(*ys));
	char(*labels)[128] = calloc(n ? n : 1, sizeof(*labels)), title[256];
	struct ps_chart ch = {.xcol = &d->cols[1], .ycol = &d->cols[2], .s = s};

	for (size_t l = 0; s && ys && labels && l < db->nlines; l++) {
		const struct ps_doc_line *ln = &db->lines[l];

		for (size_t j = 0; j < ny; j++, k++) {
			ys[k] = malloc((ln->n ? ln->n : 1) * sizeof(double));
			if (!ys[k])
				goto out;
			for (size_t p = 0; p < ln->n; p++)
				ys[k][p] = ln->y[p * ny + j];
			snprintf(labels[k], sizeof(labels[k]), "%s%s%s", ln->label ? ln->label : "",
				 ln->label && ny > 1 ? " " : "",
				 ny > 1 || !ln->label ? d->cols[2 + j].title : "");
			s[k] = (struct ps_chart_series){
			    .label = labels[k], .n = ln->n, .x = ln->x, .y = ys[k]};
		}
	}
	ch.kind = d->series == PS_SERIES_MAP ? PS_CHART_HEAT : PS_CHART_LINES;
	ch.ns = k;
	snprintf(title, sizeof(title), "%s", d->title ? d->title : d->cols[2].title);
	ch.title = title;
	if (!d->title) {
		fputs("<h4>", f);
		col_head(f, &d->cols[2]);
		fputs(" over ", f);
		ps_html_esc(f, d->cols[1].title);
		fputs("</h4>\n", f);
	}
	ps_chart_svg(f, &ch);
out:
	for (size_t i = 0; ys && i < k && i < n; i++)
		free(ys[i]);
	free(ys);
	free(s);
	free(labels);
}

/*
 * A series block as a chart, when there is something to draw: a line of
 * fewer than CHART_MIN_POINTS points (a 0.2 s step's load, sampled once) is
 * a nearly empty chart, so a note says so and report.json keeps the points.
 */
static void series(FILE *f, const struct ps_doc_block *db)
{
	size_t most = 0;

	if (!db->nlines)
		return;
	if (db->desc->series == PS_SERIES_LOGHIST) {
		hist_chart(f, db);
		return;
	}
	for (size_t l = 0; l < db->nlines; l++)
		most = db->lines[l].n > most ? db->lines[l].n : most;
	if (most >= CHART_MIN_POINTS) {
		line_chart(f, db);
		return;
	}
	fputs("<p class=\"note\">", f);
	esc_fmt(f, "%s: %zu point%s, too few to draw; they are in report.json",
		db->desc->title ? db->desc->title : db->desc->cols[2].title, most,
		most == 1 ? "" : "s");
	fputs("</p>\n", f);
}

static bool block_shows(const struct ps_doc_block *db)
{
	return db->nrows || db->desc->empty;
}

static void blocks(FILE *f, const struct ps_doc_section *sec)
{
	for (size_t b = 0; b < sec->nblocks; b++) {
		const struct ps_doc_block *db = &sec->blocks[b];
		const struct ps_block *d = db->desc;

		if (!block_shows(db))
			continue;
		fputs("<div class=\"block\" id=\"", f);
		anchor(f, "b-", db->id);
		fputs("\">", f);
		if (d->title) {
			fputs("<h3>", f);
			ps_html_esc(f, d->title);
			fputs("</h3>\n", f);
		}
		if (!db->nrows) {
			fputs("<p class=\"note\">", f);
			ps_html_esc(f, d->empty);
			fputs("</p></div>\n", f);
			continue;
		}
		switch (d->kind) {
		case PS_BLOCK_KV:
			kv(f, db);
			break;
		case PS_BLOCK_TABLE:
			table(f, db);
			range_charts(f, db);
			break;
		case PS_BLOCK_SERIES:
			series(f, db);
			break;
		}
		if (d->note) {
			fputs("<p class=\"note\">", f);
			ps_html_esc(f, d->note);
			fputs("</p>\n", f);
		}
		fputs("</div>\n", f);
	}
}

static bool section_shows(const struct ps_doc_section *s)
{
	if (s->nfindings || s->note)
		return true;
	for (size_t b = 0; b < s->nblocks; b++)
		if (s->blocks[b].nrows)
			return true;
	return false;
}

static void section_body(FILE *f, const struct ps_doc_section *s)
{
	if (s->reason) {
		fputs("<p>", f);
		ps_html_esc(f, s->reason);
		fputs("</p>\n", f);
	}
	if (s->nfindings) {
		fputs("<ul class=\"findings\">\n", f);
		for (size_t j = 0; j < s->nfindings; j++)
			finding_li(f, &s->findings[j]);
		fputs("</ul>\n", f);
	}
	if (s->note) {
		fputs("<p class=\"note\">", f);
		ps_html_esc(f, s->note);
		fputs("</p>\n", f);
	}
	blocks(f, s);
}

static void section(FILE *f, const struct ps_doc_section *s)
{
	fputs("<section id=\"", f);
	anchor(f, "s-", s->id);
	fputs("\"><h2>", f);
	ps_html_esc(f, s->kind == PS_SEC_INVENTORY ? "Inventory" : s->title);
	fputc(' ', f);
	badge(f, s->status);
	if (!isnan(s->duration_s))
		esc_fmt(f, " %.1f s", s->duration_s);
	fputs("</h2>\n", f);
	section_body(f, s);
	for (size_t c = 0; c < s->nchildren; c++) {
		const struct ps_doc_section *ch = &s->children[c];

		if (!section_shows(ch))
			continue;
		fputs("<details open id=\"", f);
		anchor(f, "s-", ch->id);
		fputs("\"><summary>", f);
		esc_fmt(f, "%s during %s", ch->title, s->title);
		fputs("</summary>\n", f);
		section_body(f, ch);
		fputs("</details>\n", f);
	}
	fputs("</section>\n", f);
}

static void header(FILE *f, const struct ps_doc *doc)
{
	fputs("<header><h1>probestick report", f);
	if (doc->machine) {
		fputs(": ", f);
		ps_html_esc(f, doc->machine);
	}
	fputs("</h1>\n<p class=\"meta\">", f);
	esc_fmt(f, "plan %s, created %s, probestick %s, kernel %s", doc->plan, doc->created,
		doc->version, doc->kernel ? doc->kernel : "?");
	fputs("<br>", f);
	esc_fmt(f, "machine id %s", doc->machine_id);
	if (doc->module_status)
		esc_fmt(f, ", module %s", doc->module_status);
	fputs("</p>\n", f);
	if (doc->collect_note) {
		fputs(doc->collect_failed ? "<p class=\"incomplete\">" : "<p class=\"meta\">", f);
		esc_fmt(f, "collector: %s", doc->collect_note);
		fputs("</p>\n", f);
	}
	if (!doc->complete) {
		fputs("<p class=\"incomplete\">", f);
		if (doc->stopped_at)
			esc_fmt(f, "INCOMPLETE: the run stopped during %s", doc->stopped_at);
		else
			ps_html_esc(f, "INCOMPLETE: the run was cut off, or is still running");
		fputs("</p>\n", f);
	}
	fputs("</header>\n<nav><a href=\"#verdicts\">verdicts</a><a href=\"#steps\">steps</a>", f);
	for (size_t i = 0; i < doc->nsections; i++) {
		fputs("<a href=\"#", f);
		anchor(f, "s-", doc->sections[i].id);
		fputs("\">", f);
		ps_html_esc(f, doc->sections[i].kind == PS_SEC_INVENTORY ? "inventory"
									 : doc->sections[i].title);
		fputs("</a>", f);
	}
	fputs("</nav>\n", f);
}

char *ps_render_html(const struct ps_doc *doc)
{
	char *buf = NULL, title[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("<!DOCTYPE html><p>probestick: out of memory rendering the report");
	snprintf(title, sizeof(title), "probestick %s: %s, plan %s%s", doc->created,
		 doc->machine ? doc->machine : doc->machine_id, doc->plan,
		 doc->complete ? "" : " (incomplete)");
	ps_html_begin(f, title);
	header(f, doc);
	verdicts(f, doc);
	/* beside the verdicts, as in the text: a setting ignored can explain one */
	if (doc->nwarnings) {
		fputs("<section id=\"warnings\"><h2>Warnings</h2><ul>\n", f);
		for (size_t i = 0; i < doc->nwarnings; i++) {
			fputs("<li>", f);
			ps_html_esc(f, doc->warnings[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul></section>\n", f);
	}
	step_summary(f, doc);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < doc->nsections; i++)
			if ((doc->sections[i].kind == PS_SEC_INVENTORY) == (pass == 1))
				section(f, &doc->sections[i]);
	ps_html_end(f);
	fclose(f);
	return buf ? buf : strdup("");
}

char *ps_report_html(json_object *report, const struct ps_view_set *views)
{
	struct ps_doc *doc = ps_doc_build(report, views);
	char *html;

	if (!doc)
		return strdup("<!DOCTYPE html><p>probestick: out of memory rendering the report");
	html = ps_render_html(doc);
	ps_doc_free(doc);
	return html;
}
