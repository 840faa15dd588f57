/*
 * ui.h - what a person watching the plan sees, on every console terminal:
 * one line per step with its headline figures, a progress bar (VGA) or a
 * progress line per phase and every PS_UI_PLAIN_EVERY seconds (serial), and
 * the end screen. Every line fits 79 columns, broken at words.
 */
#ifndef PS_CLI_UI_H
#define PS_CLI_UI_H

#include "cli/console.h"
#include "core/plan.h"
#include "report/doc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define PS_UI_WIDTH	  79 /* an 80-column terminal wraps a line of 80 on some consoles */
#define PS_UI_ROWS	  24
#define PS_UI_PLAIN_EVERY 20.0 /* seconds between progress lines of one phase on a serial line */

struct ps_ui {
	struct ps_console *con;
	bool key_aborts;
	struct ps_plan_ui ops;
	pthread_t keys;
	atomic_bool stop_keys;
	bool keys_running;
	bool bar_on_screen; /* a fancy terminal shows a progress bar to clear first */
	double last_plain;  /* when the last plain progress line went out */
	char phase[96];	    /* step and phase of the last progress call */
	double max_frac;    /* the most this phase has shown: progress never goes back */
	double plan_t0;
	/* the steps' estimates against the clock: est_sum estimated, act_sum taken */
	double est_prev, est_prev_t, est_sum, act_sum, est_said;
	const struct ps_plan_info *plan;
	json_object *report; /* the runner's, for device labels */
	size_t n_steps;
	int name_w; /* the plan's longest step name: the result lines' name column */
};

/* Ready ui to render a plan on con; key_aborts: a key press aborts the running step. */
void ps_ui_init(struct ps_ui *ui, struct ps_console *con, bool key_aborts);

/*
 * The end-of-plan screen (ps_ui_end_screen) on every terminal. When the
 * report could not be saved and the machine is about to power off
 * unattended, waits for a key (up to wait_s seconds) so the person can read
 * it; from the menu, the menu asks for the key (it leaves room for one line).
 */
void ps_ui_summary(struct ps_ui *ui, const struct ps_run_result *res, bool about_to_leave,
		   int wait_s);

/* What the end screen says besides the report's own document. */
struct ps_end_info {
	const char *plan;
	double took_s;
	const unsigned int *count; /* per enum ps_status */
	const char *dir;	   /* the report folder, "" or NULL when none was made */
	const char *saved;	   /* which files hold the record */
};

/*
 * Pure: the end screen, at most rows lines of at most PS_UI_WIDTH columns:
 * the counts, every FAIL then every WARN by its device's label (report/label.h)
 * with reason and advice, the steps aborted or skipped and what they left
 * unmeasured, where the report is. When they do not all fit, the most severe
 * first and "N more ...: press v". doc may be NULL (no report). malloc'd.
 */
char *ps_ui_end_screen(const struct ps_doc *doc, const struct ps_end_info *in, int rows);

/* Text wrapped to PS_UI_WIDTH columns (continuation lines indented 2 more), escaped. */
void ps_ui_say(struct ps_console *con, int indent, const char *text);

/* text wrapped at words, at most max lines (0: any), a longer one ends in " ...". */
void ps_ui_say_lines(struct ps_console *con, int indent, const char *text, size_t max);

/* Pure: a progress line within width columns; fancy adds a bar. Returns its length. */
size_t ps_ui_progress_line(const struct ps_progress_state *p, bool fancy, bool key_aborts,
			   char *buf, size_t len);

/* Pure: "[2/3] disk_seq   pass      4.1 s  sda read 1515 MB/s, ...": the name
 * padded to name_w (the plan's longest), the figures wrapped at words below
 * (indent 6) rather than cut; an unknown time is "?", never 0.0 s. */
size_t ps_ui_result_line(size_t i, size_t n, const char *name, int name_w, const char *status,
			 double dur, const char *headline, char *buf, size_t len);

#endif
