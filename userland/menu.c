/* menu.c - the interactive menu: plain text and single keys, so VGA and serial
 * consoles work alike; a test drives it through a pipe. */
#include "menu.h"
#include "console.h"
#include "report.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_LINES 20

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

void ps_page_text(struct ps_console *con, const char *text)
{
	const char *p = text;
	int lines = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);

		ps_console_write(con, p, len);
		if (!nl)
			ps_console_write(con, "\n", 1);
		p += len;
		if (++lines == PAGE_LINES && *p) {
			int k;

			ps_console_printf(con, "-- more: any key for the next page, q to stop --");
			k = get_key(con);
			ps_console_printf(con, "\r%50s\r", "");
			if (k < 0 || k == 'q' || k == 'Q')
				return;
			lines = 0;
		}
	}
}

static void show_report(struct ps_menu_env *env)
{
	json_object *r;
	char err[1024];
	char *text;

	if (!env->last_report[0]) {
		ps_console_printf(env->con, "No report yet: run a plan first (1, 2 or 3).\n");
		return;
	}
	if (ps_report_load(env->last_report, &r, err, sizeof(err)) < 0) {
		ps_console_printf(env->con, "Cannot show the report: %s\n", err);
		return;
	}
	text = ps_report_text(r, 0);
	ps_console_printf(env->con, "Report %s\n", env->last_report);
	ps_page_text(env->con, text);
	free(text);
	json_object_put(r);
}

static void run(struct ps_menu_env *env, const char *plan, const char *csv)
{
	char dir[PATH_MAX] = "";
	int ret = env->run_plan(env->arg, plan, csv, dir, sizeof(dir));

	if (dir[0])
		snprintf(env->last_report, sizeof(env->last_report), "%s", dir);
	if (ret < 0)
		ps_console_printf(env->con, "The %s plan ended with an error: %s\n", plan,
				  strerror(-ret));
}

static char step_key(size_t i)
{
	return i < 26 ? (char)('a' + i) : (char)('A' + (i - 26));
}

/* Returns false when input ended. */
static bool choose_steps(struct ps_menu_env *env)
{
	size_t n = env->n_steps > 52 ? 52 : env->n_steps;
	bool chosen[52] = {false};

	for (size_t i = 0; i < n; i++)
		chosen[i] = env->steps[i]->plans & PS_PLAN_QUICK;
	for (;;) {
		int k;

		ps_console_printf(env->con, "\nChoose steps (a key toggles one):\n");
		for (size_t i = 0; i < n; i++)
			ps_console_printf(env->con, "  %c [%c] %-14s %s\n", step_key(i),
					  chosen[i] ? 'x' : ' ', env->steps[i]->name,
					  env->steps[i]->title ? env->steps[i]->title : "");
		ps_console_printf(env->con, "Enter runs the chosen steps, 0 goes back: ");
		k = get_key(env->con);
		ps_console_printf(env->con, "\n");
		if (k < 0)
			return false;
		if (k == '0' || k == 27)
			return true;
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
			run(env, "custom", csv);
			return true;
		}
		for (size_t i = 0; i < n; i++)
			if (k == step_key(i))
				chosen[i] = !chosen[i];
	}
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

/* The terminal went away (or a test's keys ran out): a shell is the harmless way out. */
static enum ps_action no_input(struct ps_menu_env *env)
{
	ps_console_printf(env->con, "\nNo more input: leaving the menu for a shell.\n");
	return PS_ACT_SHELL;
}

enum ps_action ps_menu_run(struct ps_menu_env *env)
{
	bool redraw = true;

	for (;;) {
		int k, c;

		if (redraw)
			ps_console_printf(env->con, "\nprobestick menu\n"
						    "  1  run the quick plan\n"
						    "  2  run the full plan\n"
						    "  3  choose steps and run them\n"
						    "  4  show the last report\n"
						    "  5  shell\n"
						    "  6  reboot\n"
						    "  7  power off\n"
						    "Press 1-7: ");
		redraw = true;
		k = get_key(env->con);
		if (k < 0) {
			ps_console_printf(env->con,
					  "\nNo more input: leaving the menu for a shell.\n");
			return PS_ACT_SHELL;
		}
		if (k == '\r' || k == '\n' || k == ' ') {
			redraw = false;
			continue;
		}
		ps_console_printf(env->con, "%c\n", k >= 32 && k < 127 ? k : '?');
		switch (k) {
		case '1':
			run(env, "quick", NULL);
			break;
		case '2':
			run(env, "full", NULL);
			break;
		case '3':
			if (!choose_steps(env))
				return no_input(env);
			break;
		case '4':
			show_report(env);
			break;
		case '5':
			return PS_ACT_SHELL;
		case '6':
		case '7':
			c = confirm(env, k == '6' ? "Reboot" : "Power off");
			if (c < 0)
				return no_input(env);
			if (c)
				return k == '6' ? PS_ACT_REBOOT : PS_ACT_POWEROFF;
			break;
		default:
			ps_console_printf(env->con,
					  "Not a menu item: press a digit from 1 to 7.\n");
			break;
		}
	}
}
