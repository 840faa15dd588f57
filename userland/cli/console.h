/* console.h - the terminals the menu and progress talk to: VGA and serial alike, or stdio. */
#ifndef PS_CONSOLE_H
#define PS_CONSOLE_H

#include "core/config.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <termios.h>

struct ps_term {
	int in_fd; /* -1: output only, or input ended */
	int out_fd;
	bool close_fds;
	bool restore; /* saved holds the mode to put back on close */
	bool fancy;   /* a screen that takes "\r" redraws and ESC[K: the VGA console */
	struct termios saved;
	char name[32];
};

struct ps_console {
	struct ps_term t[PS_MAX_TERMS];
	int n;
};

/*
 * Open each terminal of spec ("tty0,ttyS0,115200") as <root>/dev/<name>,
 * single-key mode, serial speed when given. A terminal that cannot be
 * opened is a warning. When none opens, falls back to stdin/stdout.
 * Returns how many named terminals opened.
 */
int ps_console_open(struct ps_console *con, const char *root, const char *spec,
		    json_object *warnings);

/* Use in_fd/out_fd (stdin/stdout, a pipe in tests); in_fd -1 for no input. */
void ps_console_stdio(struct ps_console *con, int in_fd, int out_fd);

/* Put every terminal back in the mode it had and close what was opened. */
void ps_console_close(struct ps_console *con);

/*
 * Text for people: control bytes other than newline, CR and tab are shown
 * escaped ("\x1b"), invalid UTF-8 as U+FFFD, so nothing a device or a file
 * says can drive the terminal.
 */
void ps_console_printf(struct ps_console *con, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Bytes as they are (our own escape sequences), to every terminal. */
void ps_console_write(struct ps_console *con, const char *buf, size_t len);
/* Bytes as they are to terminal i only. */
void ps_console_write_term(struct ps_console *con, int i, const char *buf, size_t len);

/*
 * Wait up to timeout_ms (-1 forever) for a key on any terminal. Returns the
 * key (0..255), -ETIMEDOUT, or -ENODEV when no terminal can give input.
 */
int ps_console_key(struct ps_console *con, int timeout_ms);

/* Drop typed-ahead keys, so that an old key press does not abort a new step. */
void ps_console_flush(struct ps_console *con);

/* True when a terminal (not a pipe or file) gives input: a person may press keys. */
bool ps_console_interactive(const struct ps_console *con);

/* True when at least one terminal can still give input. */
bool ps_console_has_input(const struct ps_console *con);

#endif
