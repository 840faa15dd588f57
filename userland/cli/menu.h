/* menu.h - the interactive menu: the same plain text on VGA and serial. */
#ifndef PS_MENU_H
#define PS_MENU_H

#include "core/config.h"
#include "core/step.h"

#include <limits.h>
#include <stddef.h>

struct ps_console;

enum ps_action {
	PS_ACT_SHELL = 0,
	PS_ACT_REBOOT,
	PS_ACT_POWEROFF,
};

struct ps_menu_env {
	struct ps_console *con; /* keys are read from, and the menu written to, here */
	const struct ps_step_ops *const *steps; /* for "choose steps" */
	size_t n_steps;
	/*
	 * Run a plan ("quick", "full", or "custom" with steps_csv); on success
	 * writes the report folder into dir. 0 or -errno.
	 */
	int (*run_plan)(void *arg, const char *plan, const char *steps_csv, char *dir, size_t len);
	/* Server mode (probestick serve) until a key; NULL: no such item. */
	int (*serve)(void *arg);
	void *arg;
	char last_report[PATH_MAX]; /* folder of the last report; "" when none yet */
	/* Settings the menu changes for the plans it runs (surface=, scratch=), or NULL. */
	struct ps_config *cfg;
	const char *root; /* where drives are read from for the scratch confirmation ("" live) */
	const char *reports_root; /* the runs "compare" offers, and where compare.html goes */
};

/* Show the menu until the user picks shell, reboot or power off (or input ends: shell). */
enum ps_action ps_menu_run(struct ps_menu_env *env);

/* "shell", "reboot", "poweroff": the then= word /init understands. */
const char *ps_action_name(enum ps_action a);

/*
 * Print a text page by page (22 lines and a question): Space (or any other
 * key) the next page, b back a page, v to the Verdicts heading, g a step's
 * heading by name, / the next line holding a text, q stops.
 */
void ps_page_text(struct ps_console *con, const char *text);
/* The same, starting at the heading that starts with start ("Verdicts"); NULL: the top. */
void ps_page_text_at(struct ps_console *con, const char *text, const char *start);

#endif
