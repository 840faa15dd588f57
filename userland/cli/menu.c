/* menu.c - the interactive menu: plain text and single keys, so VGA and serial
 * consoles work alike; a test drives it through a pipe. */
#include "cli/menu.h"
#include "cli/console.h"
#include "core/plan.h"
#include "core/recorders.h"
#include "core/scratch.h"
#include "decode/wall.h"
#include "lib/store.h"
#include "lib/util.h"
#include "hw/drive_use.h"
#include "hw/inventory.h"
#include "report/compare.h"
#include "report/doc.h"
#include "report/index.h"
#include "report/label.h"
#include "report/report.h"
#include "cli/ui.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAGE_LINES 22 /* and the pager's question: 23 of 24 lines */

const char *ps_action_name(enum ps_action a)
{
	switch (a) {
	case PS_ACT_REBOOT:
		return "reboot";
	case PS_ACT_POWEROFF:
		return "poweroff";
	default:
		return "shell";
	}
}

/* Wait for a key; -ENODEV when no terminal can give one any more. */
static int get_key(struct ps_console *con)
{
	for (;;) {
		int k = ps_console_key(con, -1);

		if (k != -ETIMEDOUT)
			return k;
	}
}

/* A line that a heading's underline follows ("Verdicts" over "--------"). */
static bool heading_at(char **line, size_t n, size_t i)
{
	const char *u = i + 1 < n ? line[i + 1] : NULL;

	if (!u || !*u || !*line[i] || strlen(u) != strlen(line[i]))
		return false;
	return strspn(u, "-") == strlen(u) || strspn(u, "=") == strlen(u);
}

/* The first line at or after from (wrapping) that is a heading starting with want, or
 * with want anywhere in it (headings off); -1 when none. */
static long find_line(char **line, size_t n, size_t from, const char *want, bool headings)
{
	for (size_t k = 0; k < n && want && *want; k++) {
		size_t i = (from + k) % n;

		if (headings
			? heading_at(line, n, i) && strncasecmp(line[i], want, strlen(want)) == 0
			: strcasestr(line[i], want) != NULL)
			return (long)i;
	}
	return -1;
}

static int get_line(struct ps_console *con, char *buf, size_t len);

void ps_page_text_at(struct ps_console *con, const char *text, const char *start)
{
	char *copy = strdup(text ? text : ""), **line = NULL, *p, want[64];
	size_t n = 0, top = 0;

	for (p = copy; p && *p;) {
		char *nl = strchr(p, '\n');
		char **more = realloc(line, (n + 1) * sizeof(*line));

		if (!more)
			break;
		line = more;
		line[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	if (start) {
		long at = find_line(line, n, 0, start, true);

		top = at < 0 ? 0 : (size_t)at;
	}
	for (;;) {
		size_t end = top + PAGE_LINES < n ? top + PAGE_LINES : n;
		int k;
		long at;

		for (size_t i = top; i < end; i++)
			ps_console_printf(con, "%s\n", line[i]);
		if (end >= n && top == 0)
			break; /* one page: nothing to move to */
		ps_console_printf(con,
				  "-- %s %zu-%zu of %zu: Space next, b back, v verdicts, "
				  "g step, / find, q quit ",
				  end >= n ? "end," : "more,", top + 1, end, n);
		k = get_key(con);
		ps_console_printf(con, "\n");
		if (k < 0 || k == 'q' || k == 'Q' || k == 27)
			break;
		if (k == 'b' || k == 'B') {
			top = top > PAGE_LINES ? top - PAGE_LINES : 0;
			continue;
		}
		if (k == 'v' || k == 'V' || k == 'g' || k == '/') {
			if (k == 'v' || k == 'V') {
				snprintf(want, sizeof(want), "Verdicts");
			} else {
				ps_console_printf(
				    con, "%s", k == 'g' ? "Step name (Enter): " : "Find (Enter): ");
				if (get_line(con, want, sizeof(want)) < 0)
					break;
			}
			at = find_line(line, n, k == '/' ? top + 1 : 0, want, k != '/');
			if (at < 0)
				ps_console_printf(con,
						  "'%s' is not in the report: still at line %zu.\n",
						  want, top + 1);
			else
				top = (size_t)at;
			continue;
		}
		if (end >= n)
			break; /* past the end: the pager ends */
		top = end;
	}
	free(line);
	free(copy);
}

void ps_page_text(struct ps_console *con, const char *text)
{
	ps_page_text_at(con, text, NULL);
}

/* The last report through the pager, from its top or from a heading. */
static void show_report_at(struct ps_menu_env *env, const char *start)
{
	json_object *r;
	char err[1024];
	char *text;

	if (!env->last_report[0]) {
		ps_console_printf(env->con, "No report yet: run a plan first (1, 2 or 3).\n");
		return;
	}
	if (ps_report_load(env->last_report, &r, err, sizeof(err)) < 0) {
		ps_ui_say(env->con, 0, "Cannot show the report:");
		ps_ui_say(env->con, 2, err);
		return;
	}
	text = ps_report_text(r, ps_views(), 0);
	ps_ui_say(env->con, 0, env->last_report);
	ps_page_text_at(env->con, text, start);
	free(text);
	json_object_put(r);
}

static void show_report(struct ps_menu_env *env)
{
	show_report_at(env, NULL);
}

/* Returns false when input ended. */
static bool run(struct ps_menu_env *env, const char *plan, const char *csv)
{
	char dir[PATH_MAX] = "", line[160];
	int ret = env->run_plan(env->arg, plan, csv, dir, sizeof(dir)), k;

	if (dir[0])
		snprintf(env->last_report, sizeof(env->last_report), "%s", dir);
	if (ret < 0) {
		snprintf(line, sizeof(line), "The %s plan ended with an error: %s", plan,
			 strerror(-ret));
		ps_ui_say(env->con, 0, line);
	}
	if (!ps_console_has_input(env->con))
		return true;
	/*
	 * the end screen stays until it was read: the 24th line. Keys pressed
	 * during the run are dropped before the question shows, never after: a
	 * key sent once the question is seen is the answer.
	 */
	ps_console_flush(env->con);
	ps_console_printf(env->con, "v: all verdicts, r: the report, any other key: the menu ");
	k = get_key(env->con);
	ps_console_printf(env->con, "\n");
	if (k < 0)
		return false;
	if (k == 'v' || k == 'V')
		show_report_at(env, "Verdicts");
	else if (k == 'r' || k == 'R')
		show_report(env);
	return true;
}

static char step_key(size_t i)
{
	return i < 26 ? (char)('a' + i) : (char)('A' + (i - 26));
}

/* "  b [x] surface        surface scan": one line of 79 columns at most, cut at a word. */
static void step_line(struct ps_menu_env *env, size_t i, bool on, bool titled)
{
	char line[256];
	const struct ps_step_ops *s = env->steps[i];
	int n = snprintf(line, sizeof(line), "  %c [%c] %-14s %s", step_key(i), on ? 'x' : ' ',
			 s->name, titled && s->title ? s->title : "");

	if (n > PS_UI_WIDTH) {
		/* a closing "(DESTRUCTIVE)" is kept: it is what must not be missed */
		const char *tail = titled && s->title && s->title[strlen(s->title) - 1] == ')'
				       ? strrchr(s->title, '(')
				       : NULL;
		size_t keep = tail && strlen(tail) < 24 ? strlen(tail) + 1 : 0;

		line[PS_UI_WIDTH - 4 - keep] = '\0';
		if (strrchr(line, ' '))
			*strrchr(line, ' ') = '\0';
		strcat(line, " ...");
		if (keep) {
			strcat(line, " ");
			strcat(line, tail);
		}
	}
	ps_console_printf(env->con, "%s\n", line);
}

/* The list in one screen: with titles while it fits 21 lines, else names in columns. */
static void step_list(struct ps_menu_env *env, const bool *chosen, size_t n)
{
	ps_console_printf(env->con, "\nChoose steps (a key toggles one, ? lists again):\n");
	if (n <= 20) {
		for (size_t i = 0; i < n; i++)
			step_line(env, i, chosen[i], true);
	} else {
		size_t rows = (n + 2) / 3;

		for (size_t r = 0; r < rows; r++) {
			for (size_t c = 0; c < 3 && r + c * rows < n; c++) {
				size_t i = r + c * rows;

				ps_console_printf(env->con, "  %c [%c] %-16.16s", step_key(i),
						  chosen[i] ? 'x' : ' ', env->steps[i]->name);
			}
			ps_console_printf(env->con, "\n");
		}
	}
}

/* Returns false when input ended. */
static bool choose_steps(struct ps_menu_env *env)
{
	size_t n = env->n_steps > 52 ? 52 : env->n_steps;
	bool chosen[52] = {false}, list = true;

	for (size_t i = 0; i < n; i++)
		chosen[i] = env->steps[i]->plans & PS_PLAN_QUICK;
	for (;;) {
		int k;
		size_t on = 0;

		if (list)
			step_list(env, chosen, n);
		list = false;
		for (size_t i = 0; i < n; i++)
			on += chosen[i];
		ps_console_printf(env->con, "%zu chosen. Enter runs them, 0 goes back: ", on);
		k = get_key(env->con);
		ps_console_printf(env->con, "\n");
		if (k < 0)
			return false;
		if (k == '0' || k == 27)
			return true;
		if (k == '?') {
			list = true;
			continue;
		}
		if (k == '\r' || k == '\n') {
			char csv[2048] = "";
			size_t used = 0;

			for (size_t i = 0; i < n; i++) {
				if (!chosen[i])
					continue;
				used += (size_t)snprintf(csv + used, sizeof(csv) - used, "%s%s",
							 used ? "," : "", env->steps[i]->name);
				if (used >= sizeof(csv))
					break;
			}
			if (!csv[0]) {
				ps_console_printf(env->con, "No step chosen.\n");
				continue;
			}
			return run(env, "custom", csv);
		}
		{
			bool known = false;

			/* the one line that changed, not the whole list again */
			for (size_t i = 0; i < n; i++)
				if (k == step_key(i)) {
					chosen[i] = !chosen[i];
					step_line(env, i, chosen[i], true);
					known = true;
				}
			if (!known)
				ps_console_printf(env->con,
						  "Not a step key: a-%c toggle, ? lists.\n",
						  step_key(n ? n - 1 : 0));
		}
	}
}

#define PICK_MAX 26

/* Compare the runs chosen from the stick's; the oldest is the baseline. */
static void compare_chosen(struct ps_menu_env *env, const struct ps_index *idx, const bool *chosen,
			   size_t n)
{
	const char *paths[PS_CMP_MAX_RUNS];
	struct ps_doc *docs[PS_CMP_MAX_RUNS];
	char err[PATH_MAX + 600];
	struct ps_cmp *c;
	size_t k = 0;
	char *text;
	int ret;

	for (size_t i = n; i-- > 0;)
		if (chosen[i] && k < PS_CMP_MAX_RUNS)
			paths[k++] = idx->runs[i].path;
	if (k < 2) {
		ps_console_printf(env->con, "Choose two runs or more.\n");
		return;
	}
	if (ps_compare_load(paths, k, ps_views(), docs, err, sizeof(err)) < 0) {
		ps_console_printf(env->con, "Cannot compare: %s\n", err);
		return;
	}
	c = ps_compare((const struct ps_doc *const *)docs, paths, k);
	if (c) {
		text = ps_compare_text(c);
		ps_page_text(env->con, text);
		free(text);
		text = ps_compare_html(c);
		ret = ps_write_atomic(env->reports_root, "compare.html", text, strlen(text));
		free(text);
		if (ret == 0) {
			ps_index_write(env->reports_root);
			ps_console_printf(env->con,
					  "Saved as %s/compare.html (linked from index.html).\n",
					  env->reports_root);
		} else {
			ps_console_printf(env->con, "compare.html could not be saved in %s: %s\n",
					  env->reports_root, strerror(-ret));
		}
	}
	ps_compare_free(c);
	for (size_t i = 0; i < k; i++)
		ps_doc_free(docs[i]);
}

/* Returns false when input ended. */
static bool compare_runs(struct ps_menu_env *env)
{
	struct ps_index idx;
	bool chosen[PICK_MAX] = {false};
	size_t n, picked = 0;

	if (!env->reports_root || ps_index_scan(env->reports_root, &idx) < 0 || idx.n < 2) {
		ps_console_printf(env->con,
				  "Fewer than two runs on the stick: nothing to compare yet.\n");
		if (env->reports_root)
			ps_index_free(&idx);
		return true;
	}
	n = idx.n < PICK_MAX ? idx.n : PICK_MAX;
	/* the newest two readable runs of the newest run's machine and plan: a quick run
	 * and a custom one measure different things */
	for (size_t i = 0; i < n && picked < 2; i++)
		if (idx.runs[i].state != PS_RUN_UNREADABLE &&
		    strcmp(idx.runs[i].machine_dir, idx.runs[0].machine_dir) == 0 &&
		    strcmp(idx.runs[i].plan, idx.runs[0].plan) == 0) {
			chosen[i] = true;
			picked++;
		}
	if (picked < 2) /* none of the same plan: the choice is the person's */
		memset(chosen, 0, sizeof(chosen));
	for (;;) {
		int k;

		ps_console_printf(env->con, "\nCompare runs (a key toggles one; newest first):\n");
		for (size_t i = 0; i < n; i++) {
			const struct ps_index_run *r = &idx.runs[i];

			ps_console_printf(env->con, "  %c [%c] %.20s %-6.6s %-28.28s %s\n",
					  (char)('a' + i), chosen[i] ? 'x' : ' ', r->created,
					  r->plan[0] ? r->plan : "?",
					  r->machine[0] ? r->machine : r->machine_dir,
					  r->state == PS_RUN_COMPLETE	  ? "complete"
					  : r->state == PS_RUN_INCOMPLETE ? "incomplete"
									  : "unreadable");
		}
		ps_console_printf(env->con, "Enter compares the chosen runs, 0 goes back: ");
		k = get_key(env->con);
		ps_console_printf(env->con, "\n");
		if (k < 0) {
			ps_index_free(&idx);
			return false;
		}
		if (k == '0' || k == 27)
			break;
		if (k == '\r' || k == '\n') {
			compare_chosen(env, &idx, chosen, n);
			break;
		}
		if (k >= 'a' && k < 'a' + (int)n)
			chosen[k - 'a'] = !chosen[k - 'a'];
	}
	ps_index_free(&idx);
	return true;
}

static int confirm(struct ps_menu_env *env, const char *what)
{
	int k;

	ps_console_printf(env->con, "%s now? y to confirm, any other key goes back: ", what);
	k = get_key(env->con);
	ps_console_printf(env->con, "\n");
	if (k < 0)
		return -1;
	return k == 'y' || k == 'Y';
}

/* A line typed on the console, echoed: Enter ends it, Esc gives up (-ECANCELED). */
static int get_line(struct ps_console *con, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (;;) {
		int k = get_key(con);

		if (k < 0)
			return k;
		if (k == '\r' || k == '\n') {
			ps_console_printf(con, "\n");
			return (int)n;
		}
		if (k == 27) {
			ps_console_printf(con, "\n");
			return -ECANCELED;
		}
		if ((k == 127 || k == 8) && n) {
			buf[--n] = '\0';
			ps_console_printf(con, "\b \b");
			continue;
		}
		if (k >= 32 && k < 127 && n + 1 < len) {
			buf[n++] = (char)k;
			buf[n] = '\0';
			ps_console_printf(con, "%c", k);
		}
	}
}

/* What a setting shows on its menu line: its text, or what its default choice means. */
static const char *shown(const struct ps_config *cfg, const struct ps_setting *st)
{
	const char *t = ps_config_text(cfg, st->key);

	return t && *t ? t : "default";
}

/* The menu keys of the steps' settings: each press steps to the setting's next choice. */
static const struct ps_setting *menu_setting(int k)
{
	size_t n;
	const struct ps_setting *const *all = ps_settings(&n);

	for (size_t i = 0; i < n; i++)
		if (all[i]->menu_key && all[i]->menu_key == k && all[i]->choices)
			return all[i];
	return NULL;
}

static void next_choice(struct ps_menu_env *env, const struct ps_setting *st)
{
	const char *now = ps_config_text(env->cfg, st->key);
	size_t i = 0, n = 0;
	char why[256], label[96];

	while (st->choices[n].value)
		n++;
	while (i < n && now && strcmp(now, st->choices[i].value) != 0)
		i++;
	i = i + 1 < n ? i + 1 : 0;
	if (ps_config_set(env->cfg, st->key, st->choices[i].value, why, sizeof(why)) < 0) {
		ps_console_printf(env->con, "%s\n", why);
		return;
	}
	snprintf(label, sizeof(label), "%s", st->menu_label ? st->menu_label : st->key);
	label[0] = (char)toupper((unsigned char)label[0]);
	{
		char line[512];

		snprintf(line, sizeof(line), "%s is now %s: %s.", label, shown(env->cfg, st),
			 st->choices[i].means);
		ps_ui_say(env->con, 0, line);
	}
}

/* scratch= with one more serial, through the config (which keeps its list parsed). */
static bool append_scratch(struct ps_config *cfg, char *list, size_t len, const char *serial)
{
	char why[256];
	size_t used = strlen(cfg->scratch);

	memcpy(list, cfg->scratch, used);
	list[used] = '\0';
	if (used)
		strncat(list, ",", len - strlen(list) - 1);
	strncat(list, serial, len - strlen(list) - 1);
	return ps_config_set(cfg, "scratch", list, why, sizeof(why)) == 0;
}

/*
 * One wall meter reading typed in watts into field (room len): Enter keeps
 * it, '-' clears it. Returns false when input ended.
 */
static bool wall_reading(struct ps_menu_env *env, const char *what, char *field, size_t len)
{
	char buf[16];
	double w;
	int n;

	ps_ui_say(env->con, 0, what);
	ps_console_printf(env->con,
			  "Watts (Enter keeps %s, - clears): ", field[0] ? field : "none");
	n = get_line(env->con, buf, sizeof(buf));
	if (n < 0 && n != -ECANCELED)
		return false;
	if (n <= 0)
		return true;
	if (strcmp(buf, "-") == 0)
		field[0] = '\0';
	else if (ps_wall_parse(buf, &w) == 0)
		snprintf(field, len, "%.1f", w);
	else
		ps_console_printf(env->con,
				  "'%s' is not a reading in watts (105, 98.5): kept %s.\n", buf,
				  field[0] ? field : "none");
	return true;
}

/* The readings into the last run's report, every file rewritten from it. */
static void wall_to_last_report(struct ps_menu_env *env, const struct ps_wall *w)
{
	struct ps_report_files files = {0};
	json_object *r;
	char err[1024];
	int ret;

	if (ps_report_load(env->last_report, &r, err, sizeof(err)) < 0) {
		ps_console_printf(env->con, "Cannot add them to the last report: %s\n", err);
		return;
	}
	ps_recorders_summary(r, w); /* report.power with them */
	ps_store_begin(env->last_report);
	ret = ps_report_write(r, env->last_report, ps_views(), &files);
	ps_store_end(env->last_report);
	if (ret < 0)
		ps_console_printf(env->con, "Cannot write %s: %s\n", env->last_report,
				  strerror(-ret));
	else
		ps_console_printf(env->con, "Stored with the run in %s.\n", env->last_report);
	json_object_put(r);
}

/*
 * Seed 001's wall meter, by hand: idle now (the machine waits at this
 * menu), full load during the burn-in (its progress line says when). The
 * readings go with the plans run from here, and with the last run if asked.
 */
static bool enter_wall(struct ps_menu_env *env)
{
	struct ps_config *c = env->cfg;
	struct ps_wall w;
	int k;

	ps_console_printf(env->con, "\n");
	ps_ui_say(env->con, 0,
		  "A wall power meter, read by hand (the machine's whole draw, beside RAPL's CPU "
		  "figures).");
	if (!wall_reading(env, "Idle: the machine waits at this menu now; read the meter.",
			  c->wall_idle, sizeof(c->wall_idle)) ||
	    !wall_reading(env,
			  "Full load: during the burn-in (b, then 2), when its progress line says "
			  "\"burn-in: read wall meter\".",
			  c->wall_load, sizeof(c->wall_load)))
		return false;
	snprintf(c->wall_source, sizeof(c->wall_source), "menu");
	ps_rfc3339(time(NULL), c->wall_entered, sizeof(c->wall_entered));
	w = ps_config_wall(c);
	ps_console_printf(env->con,
			  "Wall meter: idle %s W, full load %s W, for the plans run from "
			  "this menu.\n",
			  c->wall_idle[0] ? c->wall_idle : "-",
			  c->wall_load[0] ? c->wall_load : "-");
	if (!env->last_report[0])
		return true;
	ps_console_printf(env->con,
			  "Store them with the last run (%s) too? y/n: ", env->last_report);
	k = get_key(env->con);
	ps_console_printf(env->con, "\n");
	if (k < 0)
		return false;
	if (k == 'y' || k == 'Y')
		wall_to_last_report(env, &w);
	return true;
}

/* "500 GB", "64.0 MB": a size as drive makers label it (the report's own format). */
static void size_text(double bytes, char *buf, size_t len)
{
	static const struct ps_col col = {.fmt = PS_FMT_BYTES};
	struct ps_cell c = {.type = bytes > 0 ? PS_CELL_NUM : PS_CELL_NULL, .num = bytes};

	if (bytes <= 0)
		snprintf(buf, len, "size unknown");
	else
		ps_cell_text(&c, &col, buf, len, true);
}

/* "QEMU HARDDISK S/N PS-1 (sda), 2.1 GB": the report's label (inv: the inventory as JSON) */
static void drive_text(json_object *inv, const struct ps_drive *d, char *buf, size_t len)
{
	char size[32];
	size_t n = ps_device_label(inv, "drive", NULL, d->name, buf, len);

	size_text((double)d->size_bytes, size, sizeof(size));
	snprintf(buf + n, len - n, ", %s", size);
}

/* The drive whose serial is typed, asked again until one matches or the person gives up. */
static int ask_serial(struct ps_menu_env *env, const struct ps_inventory *inv,
		      const struct ps_drive **pick)
{
	char serial[PS_SCRATCH_SERIAL], line[PS_SCRATCH_SERIAL + 160];

	for (;;) {
		int n;

		ps_ui_say(env->con, 0,
			  "disk_write OVERWRITES the drive you name. Type its serial in full "
			  "(Enter or Esc goes back):");
		n = get_line(env->con, serial, sizeof(serial));
		if (n <= 0)
			return n == -ENODEV ? -ENODEV : 0;
		for (size_t i = 0; i < inv->n_drives; i++)
			if (strcmp(inv->drives[i].serial, serial) == 0)
				*pick = &inv->drives[i];
		if (*pick)
			return 1;
		snprintf(line, sizeof(line),
			 "No drive has serial '%s' (serials are matched in full, upper and lower "
			 "case as listed): try again.",
			 serial);
		ps_ui_say(env->con, 0, line);
	}
}

/*
 * Name a scratch drive: show every drive and what it holds, the boot stick
 * marked, then take the serial typed in full and a last y that names the
 * drive. The decision is core/scratch.c's, the one disk_write makes again
 * before it writes. Returns false when input ended.
 */
static bool confirm_scratch(struct ps_menu_env *env)
{
	struct ps_inventory inv = {0};
	struct ps_inventory_opts o = {
	    .root = env->root ? env->root : "", .module_fd = -1, .boot_disk = env->cfg->boot_disk};
	char why[512], line[1200], name[400];
	const struct ps_drive *pick = NULL;
	struct ps_drive_use use;
	int n, k;
	json_object *injson;

	ps_inventory_take(&inv, &o);
	injson = json_object_new_object();
	ps_inventory_json(&inv, injson);
	ps_console_printf(env->con, "\nDrives and what they hold:\n");
	for (size_t i = 0; i < inv.n_drives; i++) {
		const struct ps_drive *d = &inv.drives[i];
		char path[PATH_MAX], text[2048];

		drive_text(injson, d, name, sizeof(name));
		if (d->boot_device) {
			snprintf(line, sizeof(line), "%s: the probestick boot stick, never written",
				 name);
			ps_ui_say(env->con, 2, line);
			continue;
		}
		ps_ui_say(env->con, 2, name);
		ps_path(path, sizeof(path), o.root, "/dev/%s", d->name);
		ps_drive_use_read(o.root, d->name, path, &use);
		ps_drive_use_text(&use, text, sizeof(text));
		ps_console_printf(env->con, "%s", text);
	}
	n = ask_serial(env, &inv, &pick);
	if (n < 0) {
		ps_inventory_free(&inv);
		json_object_put(injson);
		return false;
	}
	if (pick) {
		struct ps_scratch_list l = {.n = 1};
		char path[PATH_MAX], list[sizeof(env->cfg->scratch)];
		size_t used = strlen(env->cfg->scratch);

		snprintf(l.serial[0], sizeof(l.serial[0]), "%s", pick->serial);
		ps_path(path, sizeof(path), o.root, "/dev/%s", pick->name);
		ps_drive_use_read(o.root, pick->name, path, &use);
		drive_text(injson, pick, name, sizeof(name));
		if (ps_scratch_decide(pick, &use, &l, why, sizeof(why)) != PS_SCRATCH_OK) {
			snprintf(line, sizeof(line), "%s is refused: %s.", name, why);
			ps_ui_say(env->con, 0, line);
		} else if (used + strlen(pick->serial) + 2 > sizeof(list)) {
			ps_console_printf(env->con, "Too many scratch drives named already.\n");
		} else {
			snprintf(line, sizeof(line),
				 "Last check: disk_write will OVERWRITE %s, everything on it, in "
				 "the plans run from this menu. y names it scratch, any other key "
				 "goes back:",
				 name);
			ps_ui_say(env->con, 0, line);
			k = get_key(env->con);
			if (k < 0) {
				ps_inventory_free(&inv);
				json_object_put(injson);
				return false;
			}
			if (k != 'y' && k != 'Y')
				ps_console_printf(env->con,
						  "Not named: nothing will be written.\n");
			else if (!append_scratch(env->cfg, list, sizeof(list), pick->serial))
				ps_console_printf(env->con,
						  "Too many scratch drives named already.\n");
			else {
				snprintf(line, sizeof(line), "%s is confirmed as scratch.", name);
				ps_ui_say(env->con, 0, line);
			}
		}
	}
	ps_inventory_free(&inv);
	json_object_put(injson);
	return true;
}

/* The terminal went away (or a test's keys ran out): a shell is the harmless way out. */
static enum ps_action no_input(struct ps_menu_env *env)
{
	ps_console_printf(env->con, "\nNo more input: leaving the menu for a shell.\n");
	return PS_ACT_SHELL;
}

/* "1-9, s, w or b": the keys the menu takes, the settings' among them. */
static const char *keys_text(struct ps_menu_env *env)
{
	static char buf[64];
	size_t n, o = (size_t)snprintf(buf, sizeof(buf), "1-9");
	const struct ps_setting *const *all = ps_settings(&n);

	for (size_t i = 0; i < n && o + 8 < sizeof(buf); i++)
		if (all[i]->menu_key && all[i]->choices)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, ", %c", all[i]->menu_key);
	snprintf(buf + o, sizeof(buf) - o, ", w or p");
	return buf;
}

static void draw_menu(struct ps_menu_env *env)
{
	size_t n;
	const struct ps_setting *const *all = ps_settings(&n);
	char line[700];

	ps_console_printf(env->con, "\nprobestick menu\n"
				    "  1  run the quick plan\n"
				    "  2  run the full plan\n"
				    "  3  choose steps and run them\n"
				    "  4  show the last report\n"
				    "  5  compare runs on this stick\n"
				    "  6  serve: be the peer of another stick\n"
				    "  7  shell\n"
				    "  8  reboot\n"
				    "  9  power off\n");
	for (size_t i = 0; env->cfg && i < n; i++)
		if (all[i]->menu_key && all[i]->choices) {
			snprintf(line, sizeof(line), "  %c  %s: %s", all[i]->menu_key,
				 all[i]->menu_label ? all[i]->menu_label : all[i]->key,
				 shown(env->cfg, all[i]));
			ps_ui_say(env->con, 0, line);
		}
	snprintf(line, sizeof(line), "  w  name a scratch drive for disk_write (%s)",
		 env->cfg && env->cfg->scratch[0] ? env->cfg->scratch : "none named");
	ps_ui_say(env->con, 0, line);
	ps_console_printf(
	    env->con, "  p  wall meter readings: idle %s W, full load %s W\nPress %s: ",
	    env->cfg && env->cfg->wall_idle[0] ? env->cfg->wall_idle : "-",
	    env->cfg && env->cfg->wall_load[0] ? env->cfg->wall_load : "-", keys_text(env));
}

enum ps_action ps_menu_run(struct ps_menu_env *env)
{
	bool redraw = true;

	for (;;) {
		int k, c;

		if (redraw)
			draw_menu(env);
		redraw = true;
		k = get_key(env->con);
		if (k < 0)
			return no_input(env);
		if (k == '\r' || k == '\n' || k == ' ') {
			redraw = false;
			continue;
		}
		ps_console_printf(env->con, "%c\n", k >= 32 && k < 127 ? k : '?');
		switch (k) {
		case '1':
		case '2':
			if (!run(env, k == '1' ? "quick" : "full", NULL))
				return no_input(env);
			break;
		case '3':
			if (!choose_steps(env))
				return no_input(env);
			break;
		case '4':
			show_report(env);
			break;
		case '5':
			if (!compare_runs(env))
				return no_input(env);
			break;
		case '6':
			if (env->serve)
				env->serve(env->arg);
			else
				ps_console_printf(env->con, "Server mode is not built in.\n");
			break;
		case '7':
			return PS_ACT_SHELL;
		case '8':
		case '9':
			c = confirm(env, k == '8' ? "Reboot" : "Power off");
			if (c < 0)
				return no_input(env);
			if (c)
				return k == '8' ? PS_ACT_REBOOT : PS_ACT_POWEROFF;
			break;
		case 'w':
			if (!env->cfg)
				ps_console_printf(env->con, "Not available here.\n");
			else if (!confirm_scratch(env))
				return no_input(env);
			break;
		case 'p':
			if (!env->cfg)
				ps_console_printf(env->con, "Not available here.\n");
			else if (!enter_wall(env))
				return no_input(env);
			break;
		default:
			if (menu_setting(k) && env->cfg)
				next_choice(env, menu_setting(k));
			else if (menu_setting(k))
				ps_console_printf(env->con, "Not available here.\n");
			else
				ps_console_printf(env->con, "Not a menu item: press one of %s.\n",
						  keys_text(env));
			break;
		}
	}
}
