/* ui.c - the plan as a person watches it on VGA and serial (ui.h). */
#include "cli/ui.h"
#include "lib/util.h"
#include "report/doc.h"
#include "lib/json.h"
#include "report/label.h"
#include "report/report.h"
#include "report/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cut s to width columns (bytes: the console text is ASCII but for names). */
static void fit(char *s, size_t width)
{
	if (strlen(s) > width) {
		if (width > 3)
			memcpy(s + width - 3, "...", 3);
		s[width] = '\0';
	}
}

static void eta_text(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static void rate_text(const struct ps_progress_state *p, char *buf, size_t len)
{
	buf[0] = '\0';
	if (isnan(p->rate) || !p->unit)
		return;
	if (strcmp(p->unit, "B") == 0)
		snprintf(buf, len, "%.0f MB/s", p->rate / 1e6);
	else if (strcmp(p->unit, "ms") != 0 && *p->unit)
		snprintf(buf, len, "%.1f %s/s", p->rate, p->unit);
}

static void amount_text(const struct ps_progress_state *p, char *buf, size_t len)
{
	if (p->unit && strcmp(p->unit, "ms") == 0)
		snprintf(buf, len, "%.0f of %.0f s", (double)p->done / 1e3, (double)p->total / 1e3);
	else if (p->unit && strcmp(p->unit, "B") == 0)
		snprintf(buf, len, "%.0f of %.0f MB", (double)p->done / 1e6,
			 (double)p->total / 1e6);
	else if (!p->total) /* the whole is not known: what was done */
		snprintf(buf, len, "%llu %s", (unsigned long long)p->done, p->unit ? p->unit : "");
	else
		snprintf(buf, len, "%llu of %llu %s", (unsigned long long)p->done,
			 (unsigned long long)p->total, p->unit ? p->unit : "");
}

size_t ps_ui_progress_line(const struct ps_progress_state *p, bool fancy, bool key_aborts,
			   char *buf, size_t len)
{
	char phase[40], rate[32], eta[24] = "", amount[48], bar[24];
	double frac = p->total ? (double)p->done / (double)p->total : NAN;

	/* after a phase grew (the noise rule added runs) the bar holds its place */
	if (!isnan(frac) && !isnan(p->frac) && p->frac > frac)
		frac = p->frac;
	int pct = isnan(frac) ? -1 : (int)(frac > 1 ? 100 : frac * 100);
	size_t n;

	snprintf(phase, sizeof(phase), "%s", p->phase && *p->phase ? p->phase : p->step);
	fit(phase, 24);
	rate_text(p, rate, sizeof(rate));
	if (!isnan(p->eta_s) && p->eta_s >= 0.5)
		eta_text(p->eta_s, eta, sizeof(eta));
	amount_text(p, amount, sizeof(amount));
	if (fancy) {
		int fill = pct < 0 ? 0 : pct / 5;

		for (int i = 0; i < 20; i++)
			bar[i] = i < fill ? '#' : '.';
		bar[20] = '\0';
		n = (size_t)snprintf(buf, len, "  %-24s [%s] %3d%% %s%s%s%s", phase, bar,
				     pct < 0 ? 0 : pct, rate, eta[0] ? " ETA " : "", eta,
				     key_aborts ? " (key: abort)" : "");
	} else if (pct >= 0) {
		n = (size_t)snprintf(buf, len, "  %s: %d%% (%s)%s%s%s%s%s", phase, pct, amount,
				     rate[0] ? ", " : "", rate, eta[0] ? ", " : "",
				     eta[0] ? eta : "", eta[0] ? " left" : "");
	} else {
		n = (size_t)snprintf(buf, len, "  %s: %s%s%s", phase, amount, rate[0] ? ", " : "",
				     rate);
	}
	if (n >= len)
		n = len - 1;
	if (n > PS_UI_WIDTH - 1) {
		buf[PS_UI_WIDTH - 1] = '\0';
		n = PS_UI_WIDTH - 1;
	}
	return n;
}

size_t ps_ui_result_line(size_t i, size_t n, const char *name, int name_w, const char *status,
			 double dur, const char *headline, char *buf, size_t len)
{
	char st[16], took[16], *raw = NULL, *out = NULL;
	size_t k, rawlen = 0, outlen = 0;
	FILE *f;

	snprintf(st, sizeof(st), "%s", status ? status : "?");
	if (strcmp(st, "pass") && strcmp(st, "skipped"))
		for (char *c = st; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
	f = open_memstream(&raw, &rawlen);
	if (!f)
		return 0;
	if (isnan(dur))
		snprintf(took, sizeof(took), "%7s", "?");
	else
		snprintf(took, sizeof(took), "%5.1f s", dur);
	fprintf(f, "[%zu/%zu] %-*s %-7s %s  %s", i + 1, n, name_w > 0 && name_w < 32 ? name_w : 10,
		name, st, took, headline ? headline : "");
	fclose(f);
	/* the figures go on below, at words, rather than being cut */
	f = open_memstream(&out, &outlen);
	if (!f) {
		free(raw);
		return 0;
	}
	ps_wrap(f, PS_UI_WIDTH, 0, 6, raw ? raw : "");
	fclose(f);
	k = (size_t)snprintf(buf, len, "%s", out ? out : "");
	if (k >= len)
		k = len - 1;
	while (k > 0 && (buf[k - 1] == ' ' || buf[k - 1] == '\n'))
		buf[--k] = '\0';
	free(raw);
	free(out);
	return k;
}

void ps_ui_say(struct ps_console *con, int indent, const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	fprintf(f, "%*s", indent, "");
	ps_wrap(f, PS_UI_WIDTH, indent, indent + 2, text);
	fclose(f);
	if (buf)
		ps_console_printf(con, "%s", buf);
	free(buf);
}

static void say(struct ps_ui *ui, int indent, const char *text)
{
	ps_ui_say(ui->con, indent, text);
}

/* Clear a progress bar from the fancy terminals before a line goes out. */
static void clear_bar(struct ps_ui *ui)
{
	if (!ui->bar_on_screen)
		return;
	for (int i = 0; i < ui->con->n; i++)
		if (ui->con->t[i].fancy)
			ps_console_write_term(ui->con, i, "\r\033[K", 4);
	ui->bar_on_screen = false;
}

static void *watch_keys(void *arg)
{
	struct ps_ui *ui = arg;

	while (!atomic_load(&ui->stop_keys)) {
		int k = ps_console_key(ui->con, 100);

		if (k >= 0)
			ps_plan_request_abort(1);
		else if (k == -ENODEV)
			break;
	}
	return NULL;
}

static void on_plan_start(void *arg, const struct ps_plan_info *plan,
			  const struct ps_step_ops *const *steps, size_t n)
{
	struct ps_ui *ui = arg;
	char line[256];

	ui->plan = plan;
	ui->n_steps = n;
	ui->name_w = 10;
	for (size_t k = 0; k < n; k++)
		if (steps[k] && steps[k]->name && (int)strlen(steps[k]->name) > ui->name_w)
			ui->name_w = (int)strlen(steps[k]->name);
	ui->plan_t0 = ps_mono_now();
	snprintf(line, sizeof(line), "probestick: plan %s, %zu step%s%s", plan->name, n,
		 n == 1 ? "" : "s", ui->key_aborts ? " (any key aborts the running step)" : "");
	say(ui, 0, line);
}

static void duration_text(double s, char *t, size_t len)
{
	if (s < 60)
		snprintf(t, len, "%.0f s", s < 1 ? 1 : s);
	else if (s < 3600)
		snprintf(t, len, "%.0f min", ceil(s / 60));
	else
		snprintf(t, len, "%.1f h", s / 3600);
}

/*
 * The steps' estimate of the rest, corrected by how long the steps since
 * the last estimate took against what they were estimated to take. Said
 * again only when the corrected figure moved by a third or more.
 */
static void on_estimate(void *arg, double s)
{
	struct ps_ui *ui = arg;
	char line[160], t[24];
	double now = ps_mono_now(), ratio = 1, rest;

	if (isnan(s))
		return;
	if (ui->est_prev_t > 0 && ui->est_prev > s) {
		ui->est_sum += ui->est_prev - s;
		ui->act_sum += now - ui->est_prev_t;
	}
	ui->est_prev = s;
	ui->est_prev_t = now;
	if (ui->est_sum >= 5)
		ratio = ui->act_sum / ui->est_sum;
	ratio = ratio < 0.2 ? 0.2 : ratio > 5 ? 5 : ratio;
	rest = s * ratio;
	if (ui->n_steps < 2 || rest < 1 ||
	    (ui->est_said > 0 && fabs(rest - ui->est_said) < ui->est_said / 3))
		return;
	clear_bar(ui);
	duration_text(rest, t, sizeof(t));
	snprintf(line, sizeof(line), "probestick: the remaining steps take about %s%s", t,
		 ui->est_said > 0 ? " (learned from the steps so far)" : "");
	ui->est_said = rest;
	say(ui, 0, line);
}

static void on_step_start(void *arg, size_t i, size_t n, const struct ps_step_ops *s)
{
	struct ps_ui *ui = arg;
	char line[160];

	clear_bar(ui);
	snprintf(line, sizeof(line), "[%zu/%zu] %s: %s ...", i + 1, n, s->name,
		 s->title ? s->title : "");
	say(ui, 0, line);
	ui->last_plain = ps_mono_now();
	ui->phase[0] = '\0';
	if (ui->key_aborts && ps_console_has_input(ui->con)) {
		ps_console_flush(ui->con);
		atomic_store(&ui->stop_keys, false);
		ui->keys_running = pthread_create(&ui->keys, NULL, watch_keys, ui) == 0;
	}
}

static void on_progress(void *arg, const struct ps_progress_state *in)
{
	struct ps_ui *ui = arg;
	struct ps_progress_state p = *in;
	char line[160], phase[sizeof(ui->phase)];
	double now = ps_mono_now(), frac;
	bool changed, plain_due;

	snprintf(phase, sizeof(phase), "%s/%s", p.step ? p.step : "", p.phase ? p.phase : "");
	changed = strcmp(phase, ui->phase) != 0;
	if (changed) {
		snprintf(ui->phase, sizeof(ui->phase), "%s", phase);
		ui->max_frac = 0;
	}
	/* a phase that grew (the noise rule added runs) holds the share it showed */
	frac = p.total ? (double)p.done / (double)p.total : NAN;
	if (!isnan(p.frac) && (isnan(frac) || p.frac > frac))
		frac = p.frac;
	if (!isnan(frac)) {
		if (frac < ui->max_frac)
			frac = ui->max_frac;
		ui->max_frac = frac;
		p.frac = frac;
	}
	plain_due = changed || now - ui->last_plain >= PS_UI_PLAIN_EVERY;
	for (int i = 0; i < ui->con->n; i++) {
		size_t n;

		if (ui->con->t[i].fancy) {
			char out[192];

			n = ps_ui_progress_line(&p, true, ui->key_aborts, line, sizeof(line));
			n = (size_t)snprintf(out, sizeof(out), "\r%s\033[K", line);
			ps_console_write_term(ui->con, i, out, n);
			ui->bar_on_screen = true;
		} else if (plain_due) {
			n = ps_ui_progress_line(&p, false, ui->key_aborts, line, sizeof(line));
			line[n++] = '\n';
			ps_console_write_term(ui->con, i, line, n);
		}
	}
	if (plain_due)
		ui->last_plain = now;
}

static void on_report(void *arg, json_object *report)
{
	((struct ps_ui *)arg)->report = report;
}

static void on_step_end(void *arg, size_t i, size_t n, const struct ps_step_ops *s,
			json_object *step)
{
	struct ps_ui *ui = arg;
	json_object *empty = json_object_new_object();
	struct ps_doc *doc = ps_doc_build(empty, ps_views());
	struct ps_doc_section *sec;
	char head[600] = "", line[1024];
	double dur = NAN;
	size_t shown = 0;

	json_object_put(empty);
	if (ui->keys_running) {
		atomic_store(&ui->stop_keys, true);
		pthread_join(ui->keys, NULL);
		ui->keys_running = false;
	}
	clear_bar(ui);
	ps_json_num(step, "duration_s", &dur);
	sec = doc ? ps_doc_build_step(doc, step, ps_views()) : NULL;
	if (sec)
		ps_doc_headline(sec, head, sizeof(head));
	ps_ui_result_line(i, n, s->name, ui->name_w, ps_json_str(step, "status"), dur, head, line,
			  sizeof(line));
	ps_console_printf(ui->con, "%s\n", line);
	if (ps_json_str(step, "reason") && strcmp(ps_json_str_or(step, "status", ""), "pass")) {
		char why[600];

		snprintf(why, sizeof(why), "%s", ps_json_str(step, "reason"));
		say(ui, 6, why);
	}
	/* warn and fail: the device as a person finds it and the reason; the rest (and
	 * every one of them) on the end screen and in the report */
	for (size_t k = 0; sec && k < sec->nfindings && shown < 3; k++) {
		const struct ps_doc_finding *f = &sec->findings[k];
		char msg[1800], label[400];

		if (strcmp(f->severity, "warn") && strcmp(f->severity, "fail"))
			continue;
		ps_device_label(ui->report, f->kind, f->device, f->subject, label, sizeof(label));
		snprintf(msg, sizeof(msg), "%s %s%s%s",
			 strcmp(f->severity, "fail") ? "WARN" : "FAIL", label, label[0] ? ": " : "",
			 f->message);
		ps_ui_say_lines(ui->con, 6, msg, 3);
		shown++;
	}
	ps_doc_free(doc);
}

static void on_notice(void *arg, enum ps_severity sev, const char *text)
{
	struct ps_ui *ui = arg;
	char line[1200];

	clear_bar(ui);
	snprintf(line, sizeof(line), "probestick: %s%s",
		 sev == PS_SEV_FAIL   ? "ERROR: "
		 : sev == PS_SEV_WARN ? "WARNING: "
				      : "",
		 text);
	say(ui, 0, line);
}

void ps_ui_init(struct ps_ui *ui, struct ps_console *con, bool key_aborts)
{
	memset(ui, 0, sizeof(*ui));
	ui->con = con;
	ui->key_aborts = key_aborts;
	ui->ops = (struct ps_plan_ui){
	    .arg = ui,
	    .plan_start = on_plan_start,
	    .estimate = on_estimate,
	    .step_start = on_step_start,
	    .progress = on_progress,
	    .report = on_report,
	    .step_end = on_step_end,
	    .notice = on_notice,
	};
	atomic_init(&ui->stop_keys, false);
}

/* ---- the end screen ---- */

struct screen {
	char **line;
	size_t n;
};

static void screen_add(struct screen *sc, const char *s, size_t len)
{
	char **more = realloc(sc->line, (sc->n + 1) * sizeof(*more));

	if (!more)
		return;
	sc->line = more;
	sc->line[sc->n] = strndup(s, len);
	if (sc->line[sc->n])
		sc->n++;
}

static void screen_free(struct screen *sc)
{
	for (size_t i = 0; i < sc->n; i++)
		free(sc->line[i]);
	free(sc->line);
	sc->line = NULL;
	sc->n = 0;
}

/*
 * text wrapped at words (continuation indent), at most max lines (0: any):
 * a longer text ends its last line with " ..." after a whole word.
 */
static void screen_wrap(struct screen *sc, int indent, const char *text, size_t max)
{
	char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *p;

	if (!f)
		return;
	ps_wrap(f, PS_UI_WIDTH, 0, indent, text);
	fclose(f);
	for (p = buf; p && *p; n++) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (max && n + 1 == max && nl && nl[1]) {
			char last[PS_UI_WIDTH + 8];

			/* room for " ...": drop whole words from the end */
			snprintf(last, sizeof(last), "%.*s", (int)l, p);
			while (strlen(last) + 4 > PS_UI_WIDTH && strrchr(last, ' '))
				*strrchr(last, ' ') = '\0';
			strcat(last, " ...");
			screen_add(sc, last, strlen(last));
			break;
		}
		screen_add(sc, p, l);
		p = nl ? nl + 1 : p + l;
	}
	free(buf);
}

void ps_ui_say_lines(struct ps_console *con, int indent, const char *text, size_t max)
{
	struct screen sc = {0};
	char *lead = NULL;

	if (asprintf(&lead, "%*s%s", indent, "", text) < 0)
		return;
	screen_wrap(&sc, indent + 2, lead, max);
	for (size_t i = 0; i < sc.n; i++)
		ps_console_printf(con, "%s\n", sc.line[i]);
	screen_free(&sc);
	free(lead);
}

/* One entry of the end screen: a verdict, an aborted step, a device left untested. */
struct entry {
	char text[2000];
	bool fail; /* counted as "N more FAIL" when it does not fit */
};

static size_t end_entries(const struct ps_doc *doc, struct entry *e, size_t max)
{
	size_t n = 0;
	char label[400];
	static const char *const order[] = {"fail", "aborted", "warn", "untested", "skipped"};

	for (size_t o = 0; doc && o < sizeof(order) / sizeof(order[0]); o++) {
		char skipped[1200] = "";
		size_t sk = 0;

		for (size_t i = 0; i < doc->nverdicts && n < max; i++) {
			const struct ps_doc_verdict *v = &doc->verdicts[i];

			if (strcmp(order[o], "untested") == 0 && v->untested_by) {
				ps_device_label(doc->report, v->kind, v->device, v->subject, label,
						sizeof(label));
				snprintf(e[n].text, sizeof(e[n].text), "NOT TESTED %s by %s: %s",
					 label, v->untested_by,
					 v->untested_why ? v->untested_why : "no reason given");
				e[n++].fail = false;
				continue;
			}
			if (strcmp(v->status, order[o]))
				continue;
			ps_device_label(doc->report, v->kind, v->device, v->subject, label,
					sizeof(label));
			snprintf(e[n].text, sizeof(e[n].text), "%s %s\n%s [%s]",
				 strcmp(v->status, "fail") ? "WARN" : "FAIL", label,
				 v->message ? v->message : "", v->rule ? v->rule : "-");
			e[n++].fail = strcmp(v->status, "fail") == 0;
		}
		for (size_t i = 0; i < doc->nsections && n < max; i++) {
			const struct ps_doc_section *sec = &doc->sections[i];

			if (sec->kind != PS_SEC_STEP || strcmp(sec->status, order[o]))
				continue;
			if (strcmp(order[o], "aborted") == 0) {
				snprintf(e[n].text, sizeof(e[n].text),
					 "ABORTED %s: %s; what it had not measured yet is not "
					 "judged",
					 sec->step, sec->reason ? sec->reason : "stopped");
				e[n++].fail = true;
			} else if (strcmp(order[o], "skipped") == 0) {
				sk += (size_t)snprintf(skipped + sk, sizeof(skipped) - sk, "%s%s",
						       sk ? ", " : "", sec->step);
				if (sk >= sizeof(skipped))
					sk = sizeof(skipped) - 1;
			}
		}
		if (sk && n < max) {
			snprintf(e[n].text, sizeof(e[n].text),
				 "NOT RUN %s (skipped: the report says why)", skipped);
			e[n++].fail = false;
		}
	}
	return n;
}

static void counts_text(const struct ps_end_info *in, char *line, size_t len)
{
	const unsigned int *c = in->count;
	bool cut = c && (c[PS_ABORTED] || c[PS_ERROR]);
	size_t o = (size_t)snprintf(line, len, "probestick: plan %s %s", in->plan ? in->plan : "?",
				    cut ? "ended, not in full" : "done");
	const char *sep = " ";

	if (!isnan(in->took_s) && o < len)
		o += (size_t)snprintf(line + o, len - o, " %s %.0f s", cut ? "after" : "in",
				      in->took_s);
	if (o < len)
		o += (size_t)snprintf(line + o, len - o, ":");

	for (int k = 0; c && k <= PS_ABORTED && o < len; k++) {
		if (!c[k])
			continue;
		o += (size_t)snprintf(line + o, len - o, "%s%u %s", sep, c[k],
				      ps_status_name((enum ps_status)k));
		sep = ", ";
	}
}

char *ps_ui_end_screen(const struct ps_doc *doc, const struct ps_end_info *in, int rows)
{
	enum { MAX_ENTRIES = 256 };
	struct entry *e = calloc(MAX_ENTRIES, sizeof(*e));
	struct screen head = {0}, foot = {0}, body = {0};
	char line[PATH_MAX + 400], *out = NULL;
	size_t n = e ? end_entries(doc, e, MAX_ENTRIES) : 0, room, shown = 0, outlen = 0;
	FILE *f;

	screen_add(&head,
		   "==============================================================================",
		   PS_UI_WIDTH - 1);
	counts_text(in, line, sizeof(line));
	screen_wrap(&head, 2, line, 2);
	if (in->dir && in->dir[0]) {
		snprintf(line, sizeof(line), "Report: %s", in->dir);
		screen_wrap(&foot, 2, line, 0);
		snprintf(line, sizeof(line), "Saved: %s", in->saved ? in->saved : "?");
	} else {
		snprintf(line, sizeof(line), "The report was not saved: %s",
			 in->saved ? in->saved : "?");
	}
	screen_wrap(&foot, 2, line, 2);
	{
		size_t bad = 0;

		for (size_t i = 0; doc && i < doc->nverdicts; i++)
			bad += strcmp(doc->verdicts[i].status, "fail") == 0 ||
			       strcmp(doc->verdicts[i].status, "warn") == 0;
		if (!bad)
			screen_wrap(&head, 2,
				    doc && doc->nverdicts
					? "No FAIL or WARN: every device examined passed."
					: "No step examined a device.",
				    1);
	}
	room = (size_t)rows > head.n + foot.n ? (size_t)rows - head.n - foot.n : 0;
	/* as many lines per entry as lets them all fit (5 down to 1), the most severe first */
	for (size_t per = 5; n && per >= 1; per--) {
		screen_free(&body);
		shown = 0;
		for (size_t i = 0; i < n; i++) {
			struct screen one = {0};
			char flat[sizeof(e[i].text)];

			snprintf(flat, sizeof(flat), "%s", e[i].text);
			if (per < 3) /* label and reason run on */
				for (char *c = flat; *c; c++)
					*c = *c == '\n' ? ' ' : *c;
			screen_wrap(&one, 5, flat, per);
			if (body.n + one.n + (i + 1 < n ? 1 : 0) > room) {
				screen_free(&one);
				break;
			}
			for (size_t k = 0; k < one.n; k++)
				screen_add(&body, one.line[k], strlen(one.line[k]));
			screen_free(&one);
			shown++;
		}
		if (shown == n)
			break;
	}
	if (shown < n) {
		size_t fails = 0;

		for (size_t i = shown; i < n; i++)
			fails += e[i].fail;
		snprintf(line, sizeof(line),
			 "%zu more (%zu FAIL or ABORTED): press v for all verdicts", n - shown,
			 fails);
		screen_wrap(&body, 2, line, 1);
	}
	f = open_memstream(&out, &outlen);
	if (f) {
		struct screen *parts[] = {&head, &body, &foot};

		for (size_t p = 0; p < 3; p++)
			for (size_t i = 0; i < parts[p]->n; i++)
				fprintf(f, "%s\n", parts[p]->line[i]);
		fclose(f);
	}
	screen_free(&head);
	screen_free(&body);
	screen_free(&foot);
	free(e);
	return out ? out : strdup("");
}

void ps_ui_summary(struct ps_ui *ui, const struct ps_run_result *res, bool about_to_leave,
		   int wait_s)
{
	char line[400], *screen;
	bool saved = res->json_complete && res->dir[0] && !res->write_error;
	struct ps_doc *doc = res->report ? ps_doc_build(res->report, ps_views()) : NULL;
	struct ps_end_info in = {.plan = ui->plan ? ui->plan->name : "?",
				 .took_s = ui->plan_t0 > 0 ? ps_mono_now() - ui->plan_t0 : NAN,
				 .count = res->count,
				 .dir = res->dir,
				 .saved = res->saved};

	clear_bar(ui);
	/* the menu's question is the 24th line */
	screen = ps_ui_end_screen(doc, &in, PS_UI_ROWS - 1);
	ps_console_printf(ui->con, "\n%s", screen);
	free(screen);
	ps_doc_free(doc);
	if (saved || !about_to_leave || !ps_console_interactive(ui->con))
		return;
	snprintf(line, sizeof(line),
		 "The report is not complete on the stick: read the above, then press a key to "
		 "go on (it goes on by itself in %d s).",
		 wait_s);
	ps_console_flush(ui->con); /* before the question: a key seen after it counts */
	say(ui, 0, line);
	ps_console_key(ui->con, wait_s * 1000);
}
