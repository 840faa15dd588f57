/*
 * fleet.c - the machines table of an index over several machines (a
 * collector's tree, or a stick carried from box to box): a row per machine,
 * the worst first, with its latest run, that run's verdicts worst first and
 * links, from what ps_index_scan() read.
 */
#include "report/chart.h"
#include "report/html.h"
#include "report/index.h"

#include <stdlib.h>
#include <string.h>

struct machine_row {
	const struct ps_index_run *latest;
	size_t runs;
};

static int rank(const struct ps_index_run *r)
{
	if (r->fail)
		return 0;
	if (r->warn)
		return 1;
	if (r->state == PS_RUN_UNREADABLE)
		return 2;
	if (r->state == PS_RUN_INCOMPLETE)
		return 3;
	return 4;
}

static int row_cmp(const void *a, const void *b)
{
	const struct ps_index_run *x = ((const struct machine_row *)a)->latest;
	const struct ps_index_run *y = ((const struct machine_row *)b)->latest;
	int c = rank(x) - rank(y);

	if (!c)
		c = (int)y->fail - (int)x->fail;
	if (!c)
		c = (int)y->warn - (int)x->warn;
	if (!c)
		c = strcmp(x->machine, y->machine);
	return c ? c : strcmp(x->machine_dir, y->machine_dir);
}

void ps_fleet_table(FILE *f, const struct ps_index *idx)
{
	struct machine_row *rows = calloc(idx->machines ? idx->machines : 1, sizeof(*rows));
	size_t n = 0;

	if (!rows)
		return;
	/* the runs are newest first: a machine's first run is its latest */
	for (size_t i = 0; i < idx->n; i++) {
		size_t k = 0;

		while (k < n && strcmp(rows[k].latest->machine_dir, idx->runs[i].machine_dir) != 0)
			k++;
		if (k == n) {
			if (n == idx->machines)
				continue;
			rows[n++].latest = &idx->runs[i];
		}
		rows[k].runs++;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	fprintf(f,
		"<h2>Machines</h2>\n<p class=\"meta\">%zu machines, each by its latest run, the "
		"worst first. <code>probestick compare --fleet</code> over this folder names the "
		"machine that differs from the others of its model.</p>\n",
		n);
	fputs("<div class=\"tw\"><table class=\"fleet\"><thead><tr><th>machine</th>"
	      "<th>latest run</th><th>verdicts</th><th>worst</th><th>runs</th><th>report</th>"
	      "</tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct ps_index_run *r = rows[i].latest;

		ps_index_row(f, r);
		ps_index_machine(f, r);
		fputs("</td><td>", f);
		ps_html_esc(f, r->created);
		fputs(" ", f);
		ps_html_esc(f, r->plan[0] ? r->plan : strchr(r->run_dir, '-') + 1);
		fputs(r->state == PS_RUN_COMPLETE ? ""
		      : r->state == PS_RUN_INCOMPLETE
			  ? " <span class=\"incomplete\">incomplete</span>"
			  : " <span class=\"incomplete\">unreadable</span>",
		      f);
		fputs("</td><td>", f);
		ps_index_badge(f, "fail", "fail", r->fail);
		ps_index_badge(f, "warn", "warn", r->warn);
		ps_index_badge(f, "pass", "pass", r->pass);
		fputs("</td><td>", f);
		ps_html_esc(f, r->worst[0] ? r->worst : "-");
		fprintf(f, "</td><td>%zu</td><td>", rows[i].runs);
		if (r->has_html)
			ps_index_href(f, r, "report.html");
		if (r->has_txt)
			ps_index_href(f, r, "report.txt");
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n<h2>Runs</h2>\n", f);
	free(rows);
}
