/*
 * ui.h - what a person watching the plan sees, on every console terminal:
 * one line per step with its headline figures, a progress bar (VGA) or a
 * progress line every few seconds (serial), and the summary at the end.
 * Every line fits 80 columns.
 */
#ifndef PS_CLI_UI_H
#define PS_CLI_UI_H

#include "cli/console.h"
#include "core/plan.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define PS_UI_WIDTH	  80
#define PS_UI_PLAIN_EVERY 5.0 /* seconds between progress lines on a serial line */

struct ps_ui {
	struct ps_console *con;
	bool key_aborts;
	struct ps_plan_ui ops;
	pthread_t keys;
	atomic_bool stop_keys;
	bool keys_running;
	bool bar_on_screen; /* a fancy terminal shows a progress bar to clear first */
	double last_plain;  /* when the last plain progress line went out */
	double plan_t0;
	const struct ps_plan_info *plan;
	size_t n_steps;
};

/* Ready ui to render a plan on con; key_aborts: a key press aborts the running step. */
void ps_ui_init(struct ps_ui *ui, struct ps_console *con, bool key_aborts);

/*
 * The end-of-plan screen: verdicts, where the report is and which files
 * hold the complete record. When the report could not be saved and the
 * machine is about to power off unattended, waits for a key (up to
 * wait_s seconds) so the person can read it.
 */
void ps_ui_summary(struct ps_ui *ui, const struct ps_run_result *res, bool about_to_leave,
		   int wait_s);

/* Text wrapped to 80 columns (continuation lines indented 2 more), escaped. */
void ps_ui_say(struct ps_console *con, int indent, const char *text);

/* Pure: a progress line within width columns; fancy adds a bar. Returns its length. */
size_t ps_ui_progress_line(const struct ps_progress_state *p, bool fancy, bool key_aborts,
			   char *buf, size_t len);

/* Pure: "[2/3] disk_seq  pass  4.1 s  sda 1515 MB/s, ..." within width columns. */
size_t ps_ui_result_line(size_t i, size_t n, const char *name, const char *status, double dur,
			 const char *headline, char *buf, size_t len);

#endif
