/* text.h - word wrapping shared by the report's text view and the console. */
#ifndef PS_REPORT_TEXT_H
#define PS_REPORT_TEXT_H

#include <stdio.h>

/*
 * Print text to f starting at column col, wrapped at width: continuation
 * lines are indented by indent, a word longer than a line is cut, "\n"
 * starts a new line; ends with a newline. Runs of spaces are kept (they
 * align columns).
 */
void ps_wrap(FILE *f, int width, int col, int indent, const char *text);

#endif
