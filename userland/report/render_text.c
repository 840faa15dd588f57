/*
 * render_text.c - the document as plain text for an 80-column console or a
 * serial line: the verdict per device first, then each step's figures, the
 * inventory, and the load and interrupts of every step. Knows no step.
 */
#include "report/doc.h"
#include "lib/json.h"
#include "report/report.h"
#include "report/text.h"
#include "report/label.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH	   79 /* an 80-column console wraps a line of 80 on some terminals */
#define MAX_COL	   32 /* a text column wider than this is cut with '~' */
#define MIN_WIDE   16 /* below this a wide column goes on a line of its own */
#define CELL	   160
#define PASS_NAMES 6 /* devices named per kind in the "pass" line */

static void heading(FILE *f, const char *raw, char under)
{
	char title[WIDTH + 1];
	size_t n = ps_text_clean(raw, strlen(raw), NULL, title, sizeof(title));

	fprintf(f, "\n%s\n", title);
	for (size_t i = 0; i < n; i++)
		fputc(under, f);
	fputc('\n', f);
}

static void upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 32);
}

/* ---- tables ---- */

struct tcol {
	size_t idx; /* in the block's columns */
	int width;
	int values; /* the widest value's width */
	int split;  /* the head goes on two lines at this blank ("deg write" / "MB/s"); 0 none */
	bool right;
	bool wide;
};

static void col_head(const struct ps_col *c, char *buf, size_t len)
{
	/* values in these formats carry their own unit ("4.2 ms", "64.0 MB") */
	bool self = c->fmt == PS_FMT_NS || c->fmt == PS_FMT_US || c->fmt == PS_FMT_BYTES ||
		    c->fmt == PS_FMT_IBYTES || c->fmt == PS_FMT_SECONDS;

	if (!self && c->unit && *c->unit && !strstr(c->title, c->unit))
		snprintf(buf, len, "%s %s", c->title, c->unit);
	else
		snprintf(buf, len, "%s", c->title);
}

static bool numeric(const struct ps_cell *c, const struct ps_col *col)
{
	return c->type == PS_CELL_NUM || col->fmt == PS_FMT_RANGE;
}

static void cut(char *s, int width)
{
	if (width > 0 && (int)strlen(s) > width) {
		s[width - 1] = '~'; /* marks a cut: the whole value is in report.json */
		s[width] = '\0';
	}
}

/* One cell padded to its column: numbers right-aligned, text left. */
static void emit_cell(FILE *f, const char *s, const struct tcol *c, bool first, bool last, int *col)
{
	char buf[CELL];

	snprintf(buf, sizeof(buf), "%s", s);
	cut(buf, c->width);
	if (!first) {
		fputs("  ", f);
		*col += 2;
	}
	if (c->right)
		fprintf(f, "%*s", c->width, buf);
	else if (last)
		fputs(buf, f); /* no trailing blanks */
	else
		fprintf(f, "%-*s", c->width, buf);
	*col += c->width;
}

/*
 * The blank of head that splits it into the two most even lines; its width
 * then (the values' width at least) in *width. 0 when no split narrows it.
 */
static int head_split(const char *head, int values, int *width)
{
	int len = (int)strlen(head), best = 0, best_w = len;

	for (int i = 1; i + 1 < len; i++) {
		int w = i > len - i - 1 ? i : len - i - 1;

		if (head[i] == ' ' && (w > values ? w : values) < best_w) {
			best = i;
			best_w = w > values ? w : values;
		}
	}
	*width = best_w;
	return best;
}

/*
 * Fit the columns within WIDTH: drop the optional ones from the right, then
 * put the heads that are wider than their values on two lines (the widest
 * gain first: nothing is lost), then narrow the widest text column a
 * character at a time. Returns the width the columns take (the wide column
 * at MIN_WIDE).
 */
static int fit_columns(const struct ps_block *d, struct tcol *cols, char head[][CELL], size_t *nc,
		       int indent)
{
	int total;

	for (;;) {
		bool changed = false;

		total = indent;
		for (size_t i = 0; i < *nc; i++)
			total += (cols[i].wide ? MIN_WIDE : cols[i].width) + (i ? 2 : 0);
		if (total <= WIDTH)
			break;
		for (size_t i = *nc; i-- > 0 && !changed;) {
			if (d->cols[cols[i].idx].flags & PS_COL_OPTIONAL) {
				memmove(&cols[i], &cols[i + 1], (*nc - i - 1) * sizeof(*cols));
				memmove(head[i], head[i + 1], (*nc - i - 1) * CELL);
				(*nc)--;
				changed = true;
			}
		}
		if (changed)
			continue;
		{
			size_t best = *nc;
			int best_gain = 0, best_w = 0, best_split = 0;

			for (size_t i = 0; i < *nc; i++) {
				int w, at;

				if (cols[i].wide || cols[i].split)
					continue;
				at = head_split(head[i], cols[i].values, &w);
				if (at && cols[i].width - w > best_gain) {
					best = i;
					best_gain = cols[i].width - w;
					best_w = w;
					best_split = at;
				}
			}
			if (best < *nc) {
				cols[best].split = best_split;
				cols[best].width = best_w;
				continue;
			}
		}
		{
			size_t widest = *nc;

			for (size_t i = 0; i < *nc; i++)
				if (!cols[i].right && !cols[i].wide && cols[i].width > 6 &&
				    (widest == *nc || cols[i].width > cols[widest].width))
					widest = i;
			if (widest == *nc)
				break; /* nothing left to give */
			cols[widest].width--;
		}
	}
	return total;
}

static void table_rows(FILE *f, const struct ps_doc_block *db, int indent)
{
	const struct ps_block *d = db->desc;
	struct tcol cols[32];
	size_t nc = 0;
	int total, wide = -1;
	char head[32][CELL];
	char(*text)[CELL];

	if (!db->nrows)
		return;
	text = calloc(db->nrows * d->ncols, CELL);
	if (!text)
		return;
	for (size_t c = 0; c < d->ncols && nc < 32; c++) {
		if (d->cols[c].flags & PS_COL_DEVICE)
			continue;
		col_head(&d->cols[c], head[nc], CELL);
		cols[nc] = (struct tcol){.idx = c, .width = (int)strlen(head[nc])};
		cols[nc].wide = (d->cols[c].flags & PS_COL_WIDE) != 0;
		for (size_t r = 0; r < db->nrows; r++) {
			const struct ps_cell *cell = &db->cells[r * d->ncols + c];
			char *t = text[r * d->ncols + c];
			int w;

			ps_cell_text(cell, &d->cols[c], t, CELL, false);
			if (cell->noisy == 1 && strlen(t) + 2 < CELL)
				strcat(t, "~"); /* still noisy after the extra runs */
			w = (int)strlen(t);
			if (!cols[nc].wide && w > MAX_COL)
				w = MAX_COL;
			if (w > cols[nc].values)
				cols[nc].values = w;
			if (w > cols[nc].width)
				cols[nc].width = w;
			cols[nc].right = cols[nc].right || numeric(cell, &d->cols[c]);
		}
		nc++;
	}
	total = fit_columns(d, cols, head, &nc, indent);
	for (size_t i = 0; i < nc; i++) {
		if (!cols[i].wide)
			continue;
		wide = (int)i;
		cols[i].width = WIDTH - (total - MIN_WIDE);
	}
	/* heads: the first parts of the split ones on a line above the others */
	for (int line = 0; line < 2; line++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		int col = indent;
		bool any = false;

		if (!m)
			break;
		fprintf(m, "%*s", indent, "");
		for (size_t i = 0; i < nc; i++) {
			const char *src = !cols[i].split ? (line ? head[i] : "")
					  : line	 ? head[i] + cols[i].split + 1
							 : head[i];
			size_t n = strnlen(src, CELL - 1);
			char part[CELL];

			memcpy(part, src, n);
			part[n] = '\0';
			if (!line && cols[i].split)
				part[cols[i].split] = '\0';
			any = any || (!line && cols[i].split);
			if ((int)i == wide) {
				fprintf(m, "%s%s", i ? "  " : "", part);
				break;
			}
			emit_cell(m, part, &cols[i], i == 0, i + 1 == nc, &col);
		}
		fclose(m);
		if (buf && (line || any)) {
			size_t n = strlen(buf);

			while (n && buf[n - 1] == ' ')
				n--; /* no trailing blanks where the last heads are on one line */
			fprintf(f, "%.*s\n", (int)n, buf);
		}
		free(buf);
	}
	for (size_t r = 0; r < db->nrows; r++) {
		int col = indent;

		fprintf(f, "%*s", indent, "");
		for (size_t i = 0; i < nc; i++) {
			const char *t = text[r * d->ncols + cols[i].idx];

			if ((int)i == wide) {
				int start = col + (i ? 2 : 0);

				if (i)
					fputs("  ", f);
				ps_wrap(f, WIDTH, start, start, t);
				col = -1;
				break;
			}
			emit_cell(f, t, &cols[i], i == 0, i + 1 == nc, &col);
		}
		if (col >= 0)
			fputc('\n', f);
	}
	free(text);
}

static void kv(FILE *f, const struct ps_doc_block *db, int indent)
{
	const struct ps_block *d = db->desc;
	int lw = 0;

	if (!db->nrows)
		return;
	for (size_t c = 0; c < d->ncols; c++)
		if (!(d->cols[c].flags & PS_COL_DEVICE) && (int)strlen(d->cols[c].title) > lw)
			lw = (int)strlen(d->cols[c].title);
	if (lw > 20)
		lw = 20;
	for (size_t c = 0; c < d->ncols; c++) {
		const struct ps_cell *cell = &db->cells[c];
		char val[CELL * 4], line[CELL * 5];

		if ((d->cols[c].flags & PS_COL_DEVICE) || cell->type == PS_CELL_NULL)
			continue;
		ps_cell_text(cell, &d->cols[c], val, sizeof(val), true);
		snprintf(line, sizeof(line), "%-*s %s", lw, d->cols[c].title, val);
		fprintf(f, "%*s", indent, "");
		ps_wrap(f, WIDTH, indent, indent + lw + 1, line);
	}
}

static void series(FILE *f, const struct ps_doc_block *db, int indent)
{
	const struct ps_block *d = db->desc;

	for (size_t l = 0; l < db->nlines; l++) {
		const struct ps_doc_line *ln = &db->lines[l];
		double lo = INFINITY, hi = -INFINITY;
		size_t ny = d->ncols - 2;
		char line[256], a[64], b[64];
		struct ps_cell c = {.type = PS_CELL_NUM};

		for (size_t p = 0; p < ln->n; p++) {
			double y = ln->y[p * ny];

			if (isnan(y))
				continue;
			lo = y < lo ? y : lo;
			hi = y > hi ? y : hi;
		}
		if (!ln->n || lo > hi)
			continue;
		c.num = lo;
		ps_cell_text(&c, &d->cols[2], a, sizeof(a), false);
		c.num = hi;
		ps_cell_text(&c, &d->cols[2], b, sizeof(b), true);
		snprintf(line, sizeof(line), "%s: %zu points, %s %s to %s",
			 ln->label ? ln->label : "-", ln->n, d->cols[2].title, a, b);
		fprintf(f, "%*s", indent, "");
		ps_wrap(f, WIDTH, indent, indent + 2, line);
	}
}

static void blocks(FILE *f, const struct ps_doc_section *sec, int indent)
{
	for (size_t b = 0; b < sec->nblocks; b++) {
		const struct ps_doc_block *db = &sec->blocks[b];
		const struct ps_block *d = db->desc;

		if (d->flags & PS_BLOCK_NO_TEXT)
			continue;
		if (!db->nrows && !d->empty)
			continue;
		if (d->title) {
			fprintf(f, "\n%*s", indent, "");
			ps_wrap(f, WIDTH, indent, indent, d->title);
		}
		if (!db->nrows) {
			fprintf(f, "%*s", indent + 2, "");
			ps_wrap(f, WIDTH, indent + 2, indent + 2, d->empty);
			continue;
		}
		switch (d->kind) {
		case PS_BLOCK_KV:
			kv(f, db, indent + 2);
			break;
		case PS_BLOCK_TABLE:
			table_rows(f, db, indent + 2);
			break;
		case PS_BLOCK_SERIES:
			series(f, db, indent + 2);
			break;
		}
		if (d->note) {
			fprintf(f, "%*s", indent + 2, "");
			ps_wrap(f, WIDTH, indent + 2, indent + 2, d->note);
		}
	}
}

/* ---- findings and verdicts ---- */

static void finding(FILE *f, const struct ps_doc_finding *fi, int indent)
{
	char sev[8], line[1600];

	snprintf(sev, sizeof(sev), "%s", fi->severity);
	upper(sev);
	snprintf(line, sizeof(line), "%-4s %s%s%s [%s]", sev, fi->subject ? fi->subject : "",
		 fi->subject ? ": " : "", fi->message, fi->rule ? fi->rule : "-");
	fprintf(f, "%*s", indent, "");
	ps_wrap(f, WIDTH, indent, indent + 5, line);
}

/* What was not measured, and why: devices a step could not test, then steps skipped. */
static void not_tested(FILE *f, const struct ps_doc *doc)
{
	char line[1600], label[400];
	size_t o = 0, n = 0;

	for (size_t i = 0; i < doc->nverdicts; i++) {
		const struct ps_doc_verdict *v = &doc->verdicts[i];
		bool passed = strcmp(v->status, "pass") == 0;

		if (!v->untested_by)
			continue;
		ps_device_label(doc->report, v->kind, v->device, v->subject, label, sizeof(label));
		snprintf(line, sizeof(line), "NOT TESTED %s by %s: %s%s%s%s", label, v->untested_by,
			 v->untested_why ? v->untested_why : "no reason given",
			 passed && v->step ? " (" : "", passed && v->step ? v->step : "",
			 passed && v->step ? " passed what it measured)" : "");
		ps_wrap(f, WIDTH, 0, 5, line);
	}
	for (size_t i = 0; i < doc->nsections && o < sizeof(line) - 64; i++) {
		const struct ps_doc_section *s = &doc->sections[i];

		if (s->kind != PS_SEC_STEP || strcmp(s->status, "skipped"))
			continue;
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s", n++ ? ", " : "NOT RUN ",
				      s->step);
	}
	if (n) {
		snprintf(line + o, sizeof(line) - o, " (skipped: why under Steps)");
		ps_wrap(f, WIDTH, 0, 5, line);
	}
}

static void verdicts(FILE *f, const struct ps_doc *doc)
{
	static const char *const kinds[] = {"machine", "drive", "nic", "link", "dimm"};
	static const char *const plural[] = {"machine", "drives", "NICs", "links", "DIMMs"};
	char line[1600], label[400];
	size_t passes = 0;

	heading(f, "Verdicts", '-');
	if (!doc->nverdicts) {
		fprintf(f, "no step examined a device%s\n",
			doc->complete ? "" : " yet (the run is incomplete)");
		not_tested(f, doc);
		return;
	}
	for (size_t i = 0; i < doc->nverdicts; i++) {
		const struct ps_doc_verdict *v = &doc->verdicts[i];
		char st[8];

		if (ps_doc_verdict_passed(v))
			passes++;
		if (strcmp(v->status, "fail") && strcmp(v->status, "warn"))
			continue;
		snprintf(st, sizeof(st), "%s", v->status);
		upper(st);
		ps_device_label(doc->report, v->kind, v->device, v->subject, label, sizeof(label));
		snprintf(line, sizeof(line), "%-4s %s: %s [%s]", st, label,
			 v->message ? v->message : "", v->rule ? v->rule : "-");
		ps_wrap(f, WIDTH, 0, 5, line);
	}
	not_tested(f, doc);
	if (!passes)
		return;
	/* Passing devices in one line per kind: the first screen stays short. */
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t n = 0, o;

		for (size_t i = 0; i < doc->nverdicts; i++)
			n += ps_doc_verdict_passed(&doc->verdicts[i]) && doc->verdicts[i].kind &&
			     strcmp(doc->verdicts[i].kind, kinds[k]) == 0;
		if (!n)
			continue;
		o = (size_t)snprintf(line, sizeof(line), "pass %zu %s:", n,
				     n == 1 ? kinds[k] : plural[k]);
		for (size_t i = 0, shown = 0; i < doc->nverdicts && o < sizeof(line) - 64; i++) {
			const struct ps_doc_verdict *v = &doc->verdicts[i];

			if (!ps_doc_verdict_passed(v) || !v->kind || strcmp(v->kind, kinds[k]))
				continue;
			if (shown++ == PASS_NAMES) {
				o += (size_t)snprintf(line + o, sizeof(line) - o, " ...");
				break;
			}
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s %s",
					      shown > 1 ? "," : "", v->subject ? v->subject : "?");
		}
		ps_wrap(f, WIDTH, 0, 5, line);
	}
}

static void step_summary(FILE *f, const struct ps_doc *doc)
{
	heading(f, "Steps", '-');
	if (!doc->nsections) {
		fprintf(f, "none run yet\n");
		return;
	}
	/* the names' column as wide as the longest (disk_aggregate), 24 at most */
	int namew = 12;

	for (size_t i = 0; i < doc->nsections; i++) {
		int w = (int)strlen(doc->sections[i].title);

		namew = w > namew ? w < 24 ? w : 24 : namew;
	}
	for (size_t i = 0; i < doc->nsections; i++) {
		const struct ps_doc_section *s = &doc->sections[i];
		char line[1200], head[600], st[16], took[16];

		snprintf(st, sizeof(st), "%s", s->status);
		if (strcmp(st, "pass") && strcmp(st, "skipped"))
			upper(st);
		head[0] = '\0';
		ps_doc_headline(s, head, sizeof(head));
		/* a step whose time the report does not hold took an unknown time, not 0 */
		if (isnan(s->duration_s))
			snprintf(took, sizeof(took), "%10s", "?");
		else
			snprintf(took, sizeof(took), "%8.1f s", s->duration_s);
		snprintf(line, sizeof(line), "%-*s %-7s %s  %s%s%s", namew, s->title, st, took,
			 head, head[0] && s->reason ? "; " : "", s->reason ? s->reason : "");
		ps_wrap(f, WIDTH, 0, namew + 21, line);
	}
	if (!doc->complete)
		fprintf(f, "%s\n",
			doc->stopped_at
			    ? "(the run stopped here: see the top of this report)"
			    : "(the run has not finished: steps after these are missing)");
}

static void section_body(FILE *f, const struct ps_doc_section *s)
{
	for (size_t j = 0; j < s->nfindings; j++)
		finding(f, &s->findings[j], 2);
	if (s->note) {
		fprintf(f, "  ");
		ps_wrap(f, WIDTH, 2, 2, s->note);
	}
	blocks(f, s, 2);
}

static void step_sections(FILE *f, const struct ps_doc *doc, enum ps_section_kind kind)
{
	for (size_t i = 0; i < doc->nsections; i++) {
		const struct ps_doc_section *s = &doc->sections[i];
		char title[200];

		if (s->kind != kind)
			continue;
		if (kind == PS_SEC_INVENTORY)
			snprintf(title, sizeof(title), "Inventory (%s)", s->status);
		else if (isnan(s->duration_s))
			snprintf(title, sizeof(title), "%s: %s", s->title, s->status);
		else
			snprintf(title, sizeof(title), "%s: %s (%.1f s)", s->title, s->status,
				 s->duration_s);
		heading(f, title, kind == PS_SEC_INVENTORY ? '=' : '-');
		if (s->reason) {
			fprintf(f, "  ");
			ps_wrap(f, WIDTH, 2, 2, s->reason);
		}
		section_body(f, s);
	}
}

static void recorders(FILE *f, const struct ps_doc *doc)
{
	bool any = false;

	for (size_t i = 0; i < doc->nsections; i++)
		any = any || doc->sections[i].nchildren;
	if (!any)
		return;
	heading(f, "Load, interrupts and kernel messages per step", '=');
	for (size_t i = 0; i < doc->nsections; i++) {
		const struct ps_doc_section *s = &doc->sections[i];

		for (size_t c = 0; c < s->nchildren; c++) {
			char title[200];
			bool shows = s->children[c].nfindings > 0;

			for (size_t b = 0; b < s->children[c].nblocks && !shows; b++)
				shows = s->children[c].blocks[b].nrows > 0 &&
					!(s->children[c].blocks[b].desc->flags & PS_BLOCK_NO_TEXT);
			if (!shows)
				continue;
			snprintf(title, sizeof(title), "%s: %s", s->title, s->children[c].title);
			heading(f, title, '-');
			section_body(f, &s->children[c]);
		}
	}
}

/* The report's first line: the one thing a glance must get right. */
static void title(char *buf, size_t len, const char *plan, bool complete, const char *stopped_at,
		  bool cut, const char *cause)
{
	const char *why = !cut				     ? ""
			  : !cause			     ? " (cut off)"
			  : strcmp(cause, "power_lost") == 0 ? " (power lost)"
							     : " (probestick ended)";

	if (complete)
		snprintf(buf, len, "probestick report: plan %s, complete", plan);
	else if (stopped_at)
		snprintf(buf, len, "probestick report: plan %s, INCOMPLETE: stopped during %s%s",
			 plan, stopped_at, why);
	else if (cut)
		snprintf(buf, len,
			 "probestick report: plan %s, INCOMPLETE: stopped after its last "
			 "saved step%s",
			 plan, why);
	else
		snprintf(buf, len,
			 "probestick report: plan %s, INCOMPLETE (cut off, or still running)",
			 plan);
}

void ps_report_title(json_object *report, char *buf, size_t len)
{
	json_object *cut = ps_json_get(report, "interrupted");

	title(buf, len, ps_json_str_or(report, "plan", "?"), ps_json_bool(report, "complete") == 1,
	      ps_json_str(report, "running_step"), cut != NULL, ps_json_str(cut, "cause"));
}

static void header(FILE *f, const struct ps_doc *doc)
{
	char line[2200];

	title(line, sizeof(line), doc->plan, doc->complete, doc->stopped_at, doc->cut,
	      doc->cut_cause);
	fprintf(f, "%s\n", line);
	if (doc->cut_message) {
		snprintf(line, sizeof(line), "cut off: %s%s%s", doc->cut_message,
			 doc->cut_found ? "; found " : "", doc->cut_found ? doc->cut_found : "");
		ps_wrap(f, WIDTH, 0, 8, line);
	}
	snprintf(line, sizeof(line), "created %s  probestick %s  kernel %s", doc->created,
		 doc->version, doc->kernel ? doc->kernel : "?");
	ps_wrap(f, WIDTH, 0, 8, line);
	snprintf(line, sizeof(line), "machine %s  (id %s)", doc->machine ? doc->machine : "?",
		 doc->machine_id);
	ps_wrap(f, WIDTH, 0, 8, line);
	if (doc->module_status) {
		snprintf(line, sizeof(line), "module  %s", doc->module_status);
		ps_wrap(f, WIDTH, 0, 8, line);
	}
	for (size_t i = 0; i < doc->nstick_notes; i++) {
		char clean[2100];

		ps_text_clean(doc->stick_notes[i], strlen(doc->stick_notes[i]), NULL, clean,
			      sizeof(clean));
		snprintf(line, sizeof(line), "stick   %s", clean);
		ps_wrap(f, WIDTH, 0, 8, line);
	}
	if (doc->collect_note) {
		char clean[2100];

		ps_text_clean(doc->collect_note, strlen(doc->collect_note), NULL, clean,
			      sizeof(clean));
		snprintf(line, sizeof(line), "collect %s", clean);
		ps_wrap(f, WIDTH, 0, 8, line);
	}
}

static void warnings(FILE *f, const struct ps_doc *doc)
{
	if (!doc->nwarnings)
		return;
	heading(f, "Warnings", '-');
	for (size_t i = 0; i < doc->nwarnings; i++) {
		char clean[2048];

		ps_text_clean(doc->warnings[i], strlen(doc->warnings[i]), NULL, clean,
			      sizeof(clean));
		fprintf(f, "- ");
		ps_wrap(f, WIDTH, 2, 2, clean);
	}
}

char *ps_render_text(const struct ps_doc *doc, unsigned int flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("probestick: out of memory rendering the report\n");
	if (flags & PS_TEXT_VERDICTS) {
		verdicts(f, doc);
	} else if (flags & PS_TEXT_INVENTORY) {
		for (size_t i = 0; i < doc->nsections; i++)
			if (doc->sections[i].kind == PS_SEC_INVENTORY)
				blocks(f, &doc->sections[i], 0);
	} else {
		header(f, doc);
		verdicts(f, doc);
		/* beside the verdicts: a setting ignored can explain one */
		warnings(f, doc);
		step_summary(f, doc);
		step_sections(f, doc, PS_SEC_STEP);
		step_sections(f, doc, PS_SEC_INVENTORY);
		recorders(f, doc);
	}
	fclose(f);
	return buf ? buf : strdup("");
}

char *ps_report_text(json_object *report, const struct ps_view_set *views, unsigned int flags)
{
	struct ps_doc *doc = ps_doc_build(report, views);
	char *text;

	if (!doc)
		return strdup("probestick: out of memory rendering the report\n");
	text = ps_render_text(doc, flags);
	ps_doc_free(doc);
	return text;
}
