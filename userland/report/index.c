/* index.c - reports/index.html from the stick's tree: every run, newest first. */
#include "report/index.h"
#include "lib/store.h"
#include "lib/util.h"
#include "report/chart.h"
#include "report/doc.h"
#include "report/html.h"
#include "lib/json.h"
#include "report/report.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool exists(const char *dir, const char *name)
{
	char p[2048];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* "20261201T093042Z" as "2026-12-01T09:30:42Z". */
static void stamp_time(const char *run_dir, char *buf, size_t len)
{
	const char *s = run_dir;

	snprintf(buf, len, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", s, s + 4, s + 6, s + 9, s + 11,
		 s + 13);
}

/* The first line of WRITE-FAILED.txt, when a run's report could not be written. */
static void failed_note(const char *dir, char *buf, size_t len)
{
	char p[2048], *data;
	size_t n;

	buf[0] = '\0';
	snprintf(p, sizeof(p), "%s/WRITE-FAILED.txt", dir);
	if (ps_read_all(p, &data, &n) < 0)
		return;
	n = strcspn(data, "\n");
	ps_text_clean(data, n, NULL, buf, len);
	free(data);
}

/* The loader's message names the file: the index names the folder already. */
static void reason_of(const char *err, const char *path, char *buf, size_t len)
{
	size_t pl = strlen(path);

	if (strncmp(err, path, pl) == 0 && strncmp(err + pl, "/", 1) == 0)
		err += pl + 1; /* "report.json is not valid JSON ..." */
	ps_text_clean(err, strlen(err), NULL, buf, len);
}

static void read_run(struct ps_index_run *r)
{
	json_object *rep;
	struct ps_doc *doc;
	char err[1400];

	r->has_html = exists(r->path, "report.html");
	r->has_txt = exists(r->path, "report.txt");
	r->has_ocp = exists(r->path, "report.ocp.jsonl");
	stamp_time(r->run_dir, r->created, sizeof(r->created));
	if (!exists(r->path, "report.json") && r->has_ocp) {
		/* a collector's run under way: its live stream has come, the rest comes at its end
		 */
		r->state = PS_RUN_INCOMPLETE;
		return;
	}
	if (!exists(r->path, "report.json")) {
		char note[400];

		r->state = PS_RUN_UNREADABLE;
		failed_note(r->path, note, sizeof(note));
		snprintf(r->reason, sizeof(r->reason), "no report.json%s%s", note[0] ? ": " : "",
			 note);
		return;
	}
	if (ps_report_load(r->path, &rep, err, sizeof(err)) < 0) {
		r->state = PS_RUN_UNREADABLE;
		reason_of(err, r->path, r->reason, sizeof(r->reason));
		return;
	}
	doc = ps_doc_build(rep, NULL);
	if (doc) {
		snprintf(r->plan, sizeof(r->plan), "%s", doc->plan);
		snprintf(r->created, sizeof(r->created), "%s", doc->created);
		snprintf(r->machine, sizeof(r->machine), "%s", doc->machine ? doc->machine : "");
		r->state = doc->complete ? PS_RUN_COMPLETE : PS_RUN_INCOMPLETE;
		snprintf(r->stopped_at, sizeof(r->stopped_at), "%s",
			 doc->stopped_at ? doc->stopped_at : "");
		r->cut = doc->cut;
		snprintf(r->cut_cause, sizeof(r->cut_cause), "%s",
			 doc->cut_cause ? doc->cut_cause : "");
		for (size_t i = 0, o = 0; i < doc->nverdicts; i++) {
			const struct ps_doc_verdict *v = &doc->verdicts[i];
			const char *s = v->status;

			r->fail += strcmp(s, "fail") == 0;
			r->warn += strcmp(s, "warn") == 0;
			r->pass += strcmp(s, "pass") == 0;
			/* fail first, then warn: the order the document keeps */
			if (strcmp(s, "pass") != 0 && o + 1 < sizeof(r->worst))
				o += (size_t)snprintf(
				    r->worst + o, sizeof(r->worst) - o, "%s%s %s %s: %s",
				    o ? "; " : "", s, v->kind ? v->kind : "",
				    v->subject ? v->subject : "", v->rule ? v->rule : "?");
		}
		ps_doc_free(doc);
	}
	json_object_put(rep);
}

/*
 * What the boot of the run in dir found on the stick (its stick{}): the
 * check's problems and whether they were repaired, the runs it marked.
 */
static void stick_note(const char *dir, char *buf, size_t len)
{
	json_object *rep, *stick, *check, *rec;
	char err[64];
	size_t marked = 0, probs;
	int n = 0;

	buf[0] = '\0';
	if (ps_report_load(dir, &rep, err, sizeof(err)) < 0)
		return;
	stick = ps_json_get(rep, "stick");
	check = ps_json_get(stick, "check");
	rec = ps_json_arr(stick, "recovered");
	probs = ps_json_len(ps_json_arr(check, "problems"));
	for (size_t i = 0; i < ps_json_len(rec); i++)
		marked += strcmp(ps_json_str_or(ps_json_at(rec, i), "action", ""), "marked") == 0;
	if (ps_json_bool(check, "clean") == 0 && probs)
		n = snprintf(
		    buf, len, "The last boot found %zu problem%s on the stick (first: %s)%s.",
		    probs, probs == 1 ? "" : "s",
		    ps_json_str_or(ps_json_at(ps_json_arr(check, "problems"), 0), "message", "?"),
		    ps_json_bool(check, "clean_after") == 1 ? " and fsck.fat repaired them"
		    : ps_json_bool(check, "repaired") != -1
			? "; fsck.fat could not repair them all: check the stick on a PC"
			: "");
	if (marked && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%sIt marked %zu run%s cut off.", n ? " " : "",
			 marked, marked == 1 ? "" : "s");
	json_object_put(rep);
}

static int run_cmp(const void *a, const void *b)
{
	const struct ps_index_run *x = a, *y = b;
	int c = strcmp(y->run_dir, x->run_dir);

	return c ? c : strcmp(x->machine_dir, y->machine_dir);
}

int ps_index_scan(const char *root, struct ps_index *idx)
{
	DIR *top = opendir(root);
	struct dirent *m;
	size_t cap = 0;

	memset(idx, 0, sizeof(*idx));
	if (!top)
		return -errno;
	idx->has_compare = exists(root, "compare.html");
	while ((m = readdir(top))) {
		char sub[1200];
		DIR *d;
		struct dirent *e;
		bool counted = false;

		if (m->d_name[0] == '.' || strlen(m->d_name) >= sizeof(idx->runs[0].machine_dir))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", root, m->d_name);
		d = opendir(sub);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			struct ps_index_run *r;

			if (!ps_report_dir_name(e->d_name) ||
			    strlen(e->d_name) >= sizeof(r->run_dir))
				continue;
			if (idx->n == cap) {
				void *p = realloc(idx->runs, (cap ? cap * 2 : 16) * sizeof(*r));

				if (!p) {
					closedir(d);
					closedir(top);
					return -ENOMEM;
				}
				idx->runs = p;
				cap = cap ? cap * 2 : 16;
			}
			r = &idx->runs[idx->n++];
			memset(r, 0, sizeof(*r));
			snprintf(r->machine_dir, sizeof(r->machine_dir), "%s", m->d_name);
			snprintf(r->run_dir, sizeof(r->run_dir), "%s", e->d_name);
			snprintf(r->path, sizeof(r->path), "%s/%s", sub, e->d_name);
			read_run(r);
			if (!counted)
				idx->machines++;
			counted = true;
		}
		closedir(d);
	}
	closedir(top);
	if (idx->n)
		qsort(idx->runs, idx->n, sizeof(*idx->runs), run_cmp);
	if (idx->n)
		stick_note(idx->runs[0].path, idx->stick_note, sizeof(idx->stick_note));
	return 0;
}

void ps_index_free(struct ps_index *idx)
{
	free(idx->runs);
	memset(idx, 0, sizeof(*idx));
}

/* A relative link: bytes other than letters, digits and "._-/" percent-encoded. */
void ps_index_href(FILE *f, const struct ps_index_run *r, const char *file)
{
	char rel[1024];

	snprintf(rel, sizeof(rel), "%.255s/%.255s/%.64s", r->machine_dir, r->run_dir, file);
	fputs("<a href=\"", f);
	for (const unsigned char *p = (const unsigned char *)rel; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-' || *p == '/')
			fputc(*p, f);
		else
			fprintf(f, "%%%02X", *p);
	}
	fputs("\">", f);
	ps_html_esc(f, strrchr(file, '.') + 1);
	fputs("</a> ", f);
}

void ps_index_row(FILE *f, const struct ps_index_run *r)
{
	fprintf(f, "<tr%s><td>",
		r->state == PS_RUN_UNREADABLE ? " class=\"bad\""
		: r->fail		      ? " class=\"v-fail\""
		: r->warn		      ? " class=\"v-warn\""
					      : "");
}

void ps_index_machine(FILE *f, const struct ps_index_run *r)
{
	if (r->machine[0]) {
		ps_html_esc(f, r->machine);
		fputs("<br>", f);
	}
	fputs("<span class=\"rule\">", f);
	ps_html_esc(f, r->machine_dir);
	fputs("</span>", f);
}

void ps_index_badge(FILE *f, const char *cls, const char *word, unsigned int n)
{
	if (n)
		fprintf(f, "<span class=\"st %s\">%u %s</span> ", cls, n, word);
}

char *ps_index_html(const struct ps_index *idx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("<!DOCTYPE html><p>probestick: out of memory");
	/* several machines: a collector's tree, or a stick carried from box to box */
	const char *title =
	    idx->machines > 1 ? "probestick reports: a fleet" : "probestick reports on this stick";

	ps_html_begin(f, title);
	fprintf(f, "<header><h1>%s</h1>\n<p class=\"meta\">", title);
	fprintf(f, "%zu run%s of %zu machine%s, newest first.", idx->n, idx->n == 1 ? "" : "s",
		idx->machines, idx->machines == 1 ? "" : "s");
	fputs(" Verdicts count devices by their worst verdict in the run.", f);
	if (idx->has_compare)
		fputs(" The last comparison made on the stick: <a href=\"compare.html\">"
		      "compare.html</a>.",
		      f);
	if (idx->stick_note[0]) {
		fputc(' ', f);
		ps_html_esc(f, idx->stick_note);
	}
	fputs("</p></header>\n", f);
	if (idx->machines > 1)
		ps_fleet_table(f, idx);
	if (!idx->n) {
		fputs("<p>No report yet: boot the stick on a machine and run a plan.</p>\n", f);
		ps_html_end(f);
		fclose(f);
		return buf ? buf : strdup("");
	}
	fputs("<div class=\"tw\"><table class=\"runs\"><thead><tr><th>date</th><th>machine</th>"
	      "<th>plan</th><th>state</th><th>verdicts</th><th>report</th></tr></thead>"
	      "<tbody>\n",
	      f);
	for (size_t i = 0; i < idx->n; i++) {
		const struct ps_index_run *r = &idx->runs[i];

		ps_index_row(f, r);
		ps_html_esc(f, r->created);
		fputs("<br><span class=\"rule\">", f);
		ps_html_esc(f, r->run_dir);
		fputs("</span></td><td>", f);
		ps_index_machine(f, r);
		fputs("</td><td>", f);
		ps_html_esc(f, r->plan[0] ? r->plan : strchr(r->run_dir, '-') + 1);
		fputs("</td><td>", f);
		switch (r->state) {
		case PS_RUN_COMPLETE:
			fputs("complete", f);
			break;
		case PS_RUN_INCOMPLETE:
			fputs("<span class=\"incomplete\">incomplete</span>", f);
			if (r->cut) {
				fputs(r->stopped_at[0] ? ": cut off during " : ": cut off", f);
				ps_html_esc(f, r->stopped_at);
				fputs(strcmp(r->cut_cause, "power_lost") == 0 ? ": power lost"
				      : strcmp(r->cut_cause, "stopped") == 0
					  ? ": probestick stopped before the plan ended"
					  : "",
				      f);
			} else if (r->stopped_at[0]) {
				fputs(": stopped during ", f);
				ps_html_esc(f, r->stopped_at);
			} else {
				fputs(": cut off, or still running", f);
			}
			break;
		case PS_RUN_UNREADABLE:
			fputs("<span class=\"incomplete\">unreadable</span>: ", f);
			ps_html_esc(f, r->reason);
			break;
		}
		fputs("</td><td>", f);
		ps_index_badge(f, "fail", "fail", r->fail);
		ps_index_badge(f, "warn", "warn", r->warn);
		ps_index_badge(f, "pass", "pass", r->pass);
		if (r->state != PS_RUN_UNREADABLE && !r->fail && !r->warn && !r->pass)
			fputs("none yet", f);
		fputs("</td><td>", f);
		if (r->has_html)
			ps_index_href(f, r, "report.html");
		if (r->has_txt)
			ps_index_href(f, r, "report.txt");
		if (r->state != PS_RUN_UNREADABLE || exists(r->path, "report.json"))
			ps_index_href(f, r, "report.json");
		if (r->has_ocp)
			ps_index_href(f, r, "report.ocp.jsonl");
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
	ps_html_end(f);
	fclose(f);
	return buf ? buf : strdup("");
}

int ps_index_write(const char *root)
{
	struct ps_index idx;
	char *html;
	int ret = ps_index_scan(root, &idx);

	if (ret < 0)
		return ret;
	html = ps_index_html(&idx);
	ret = ps_store_write(root, "index.html", html, strlen(html));
	free(html);
	ps_index_free(&idx);
	return ret;
}
