/*
 * ocp.h - the report in the OCP Test and Validation output format (schema
 * version 2.0): one JSON artifact per line, as report.ocp.jsonl and as a
 * stream on a serial line while the plan runs. The lines of a report are a
 * pure function of it, and a finished step only ever adds lines after those
 * of the steps before it, so the stream can send each step's lines as the
 * step ends and the file always holds the same lines.
 */
#ifndef PS_REPORT_OCP_H
#define PS_REPORT_OCP_H

#include "report/view.h"

#include <json-c/json.h>
#include <stddef.h>

/* Every artifact of the report, one per line (a testRunEnd only once it is complete). */
char *ps_ocp_text(json_object *report, const struct ps_view_set *views);

/* The lines a stream has sent so far. */
struct ps_ocp_stream {
	int fd;	      /* where lines go (a serial line); -1: nowhere */
	size_t lines; /* lines already written */
	int err;      /* the first write error, 0 or -errno; the stream stops on it */
};

/*
 * Write the artifacts of report that the stream has not sent yet, each
 * line started on a line of its own ("\r\n" before and after, for a
 * terminal that may hold half a progress line). 0 or -errno.
 */
int ps_ocp_stream_update(struct ps_ocp_stream *s, json_object *report,
			 const struct ps_view_set *views);

#endif
