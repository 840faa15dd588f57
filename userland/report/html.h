/*
 * html.h - report.html, index.html and compare.html: self-contained pages
 * (inline CSS, inline SVG charts, no network, no external file) that open
 * in any browser, print, and read on a phone. The only script is the page's
 * own self-check, which writes its verdict into the page.
 */
#ifndef PS_REPORT_HTML_H
#define PS_REPORT_HTML_H

#include "report/view.h"

#include <json-c/json.h>
#include <stdio.h>

struct ps_doc;

/* The document as report.html; malloc'd, never NULL. */
char *ps_render_html(const struct ps_doc *doc);

/* report.html of a report through views; malloc'd, never NULL. */
char *ps_report_html(json_object *report, const struct ps_view_set *views);

/*
 * The page around a body: <!DOCTYPE>, the content security policy that
 * forbids every fetch, the stylesheet, the self-check script. ps_html_end
 * closes it with the self-check's element (id "selfcheck": its data-result
 * becomes "pass" or "fail" once the page has loaded).
 */
void ps_html_begin(FILE *f, const char *title);
void ps_html_end(FILE *f);

#endif
