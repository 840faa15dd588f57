/*
 * syslog_frame.h - one OCP artifact as an RFC 5424 syslog message, framed
 * by octet counting (RFC 6587 3.4.1, the framing RFC 5425 requires over
 * TLS): "LEN <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID - MSG".
 * HOSTNAME is the machine id and PROCID the run, so a receiver can file
 * the lines as <machine-id>/<run>, as the collector's tree does. Pure.
 */
#ifndef PS_COLLECT_SYSLOG_FRAME_H
#define PS_COLLECT_SYSLOG_FRAME_H

#include <stddef.h>

#define PS_SYSLOG_LOCAL0 16

struct ps_syslog_msg {
	int facility;	       /* 0..23; PS_SYSLOG_LOCAL0 */
	int severity;	       /* 0..7 */
	const char *timestamp; /* RFC 3339; NULL or "": "-" (unknown) */
	const char *hostname, *app, *procid, *msgid;
	const char *msg; /* the OCP line, without its newline */
	size_t msglen;
};

/*
 * The frame, malloc'd, its length in *len; NULL when out of memory. Header
 * fields keep printable ASCII but the space, are cut to RFC 5424's lengths
 * (255, 48, 128, 32) and are "-" when empty; the message is sent as it is.
 */
char *ps_syslog_frame(const struct ps_syslog_msg *m, size_t *len);

/* Severity of an OCP line: 3 (error) for an error artifact, 4 (warning) for a FAIL
 * diagnosis or a WARNING/ERROR log, 6 (informational) for the rest. */
int ps_syslog_severity(const char *line, size_t len);

/* Wall-clock seconds as RFC 3339 UTC with milliseconds ("2026-01-31T09:30:42.125Z"). */
void ps_syslog_time(double wall, char *buf, size_t len);

#endif
