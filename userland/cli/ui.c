/* ui.c - the plan as a person watches it on VGA and serial (ui.h). */
#include "cli/ui.h"
#include "lib/util.h"
#include "report/doc.h"
#include "lib/json.h"
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

size_t ps_ui_result_line(size_t i, size_t n, const char *name, const char *status, double dur,
			 const char *headline, char *buf, size_t len)
{
	char st[16];
	size_t k;

	snprintf(st, sizeof(st), "%s", status ? status : "?");
	if (strcmp(st, "pass") && strcmp(st, "skipped"))
		for (char *c = st; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
	k = (size_t)snprintf(buf, len, "[%zu/%zu] %-10s %-4s %5.1f s  %s", i + 1, n, name, st,
			     isnan(dur) ? 0.0 : dur, headline ? headline : "");
	while (k > 0 && buf[k - 1] == ' ')
		buf[--k] = '\0';
	if (k >= len)
		k = len - 1;
	if (k > PS_UI_WIDTH) {
		fit(buf, PS_UI_WIDTH);
		k = PS_UI_WIDTH;
	}
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
	ui->plan_t0 = ps_mono_now();
	snprintf(line, sizeof(line), "probestick: plan %s, %zu step%s%s", plan->name, n,
		 n == 1 ? "" : "s", ui->key_aborts ? " (any key aborts the running step)" : "");
	say(ui, 0, line);
}

static void on_estimate(void *arg, double s)
{
	struct ps_ui *ui = arg;
	char line[160], t[24];

	if (isnan(s) || ui->n_steps < 2)
		return;
	clear_bar(ui);
	if (s < 60)
		snprintf(t, sizeof(t), "%.0f s", s < 1 ? 1 : s);
	else if (s < 3600)
		snprintf(t, sizeof(t), "%.0f min", ceil(s / 60));
	else
		snprintf(t, sizeof(t), "%.1f h", s / 3600);
	snprintf(line, sizeof(line), "probestick: the remaining steps take about %s", t);
	say(ui, 0, line);
}

static void on_step_start(void *arg, size_t i, size_t n, const struct ps_step_ops *s)
{
	struct ps_ui *ui = arg;
	char line[160];

	clear_bar(ui);
	snprintf(line, sizeof(line), "[%zu/%zu] %s: %s ...", i + 1, n, s->name,
		 s->title ? s->title : "");
	fit(line, PS_UI_WIDTH);
	ps_console_printf(ui->con, "%s\n", line);
	ui->last_plain = ps_mono_now();
	if (ui->key_aborts && ps_console_has_input(ui->con)) {
		ps_console_flush(ui->con);
		atomic_store(&ui->stop_keys, false);
		ui->keys_running = pthread_create(&ui->keys, NULL, watch_keys, ui) == 0;
	}
}

static void on_progress(void *arg, const struct ps_progress_state *p)
{
	struct ps_ui *ui = arg;
	char line[160];
	double now = ps_mono_now();
	bool plain_due = now - ui->last_plain >= PS_UI_PLAIN_EVERY;

	for (int i = 0; i < ui->con->n; i++) {
		size_t n;

		if (ui->con->t[i].fancy) {
			char out[192];

			n = ps_ui_progress_line(p, true, ui->key_aborts, line, sizeof(line));
			n = (size_t)snprintf(out, sizeof(out), "\r%s\033[K", line);
			ps_console_write_term(ui->con, i, out, n);
			ui->bar_on_screen = true;
		} else if (plain_due) {
			n = ps_ui_progress_line(p, false, ui->key_aborts, line, sizeof(line));
			line[n++] = '\n';
			ps_console_write_term(ui->con, i, line, n);
		}
	}
	if (plain_due)
		ui->last_plain = now;
}

static void on_step_end(void *arg, size_t i, size_t n, const struct ps_step_ops *s,
			json_object *step)
{
	struct ps_ui *ui = arg;
	json_object *empty = json_object_new_object();
	struct ps_doc *doc = ps_doc_build(empty, ps_views());
	struct ps_doc_section *sec;
	char head[600] = "", line[256];
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
	ps_ui_result_line(i, n, s->name, ps_json_str(step, "status"), dur, head, line,
			  sizeof(line));
	ps_console_printf(ui->con, "%s\n", line);
	if (ps_json_str(step, "reason") && strcmp(ps_json_str_or(step, "status", ""), "pass")) {
		char why[600];

		snprintf(why, sizeof(why), "%s", ps_json_str(step, "reason"));
		say(ui, 6, why);
	}
	/* warn and fail: the reason a person needs now, the rest is in the report */
	for (size_t k = 0; sec && k < sec->nfindings && shown < 3; k++) {
		const struct ps_doc_finding *f = &sec->findings[k];
		char msg[1400];

		if (strcmp(f->severity, "warn") && strcmp(f->severity, "fail"))
			continue;
		snprintf(msg, sizeof(msg), "%s %s%s%s",
			 strcmp(f->severity, "fail") ? "WARN" : "FAIL",
			 f->subject ? f->subject : "", f->subject ? ": " : "", f->message);
		if (strlen(msg) > 2 * PS_UI_WIDTH - 20)
			strcpy(msg + 2 * PS_UI_WIDTH - 23, "...");
		say(ui, 6, msg);
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
	    .step_end = on_step_end,
	    .notice = on_notice,
	};
	atomic_init(&ui->stop_keys, false);
}

void ps_ui_summary(struct ps_ui *ui, const struct ps_run_result *res, bool about_to_leave,
		   int wait_s)
{
	char line[PATH_MAX + 400], *verdicts;
	const unsigned int *c = res->count;
	bool saved = res->json_complete && res->dir[0] && !res->write_error;

	clear_bar(ui);
	ps_console_printf(ui->con, "\n%.*s\n", PS_UI_WIDTH,
			  "================================================================"
			  "================");
	{
		size_t o =
		    (size_t)snprintf(line, sizeof(line), "probestick: plan %s done in %.0f s:",
				     ui->plan ? ui->plan->name : "?", ps_mono_now() - ui->plan_t0);
		const char *sep = " ";

		for (int k = 0; k <= PS_ABORTED && o < sizeof(line); k++) {
			if (!c[k])
				continue;
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%u %s", sep, c[k],
					      ps_status_name((enum ps_status)k));
			sep = ", ";
		}
		say(ui, 0, line);
	}
	if (res->report) {
		verdicts = ps_report_text(res->report, ps_views(), PS_TEXT_VERDICTS);
		ps_console_printf(ui->con, "%s", verdicts);
		free(verdicts);
	}
	if (res->dir[0]) {
		snprintf(line, sizeof(line), "Report: %s", res->dir);
		say(ui, 0, line);
		snprintf(line, sizeof(line), "Saved: %s", res->saved);
		say(ui, 0, line);
	} else {
		snprintf(line, sizeof(line), "The report was not saved: %s", res->saved);
		say(ui, 0, line);
	}
	ps_console_printf(ui->con, "%.*s\n", PS_UI_WIDTH,
			  "================================================================"
			  "================");
	if (saved || !about_to_leave || !ps_console_interactive(ui->con))
		return;
	snprintf(line, sizeof(line),
		 "The report is not complete on the stick: read the above, then press a key to "
		 "go on (it goes on by itself in %d s).",
		 wait_s);
	say(ui, 0, line);
	ps_console_flush(ui->con);
	ps_console_key(ui->con, wait_s * 1000);
}
