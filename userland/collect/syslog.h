/*
 * syslog.h - a connection to the syslog receiver (syslog=): TLS checked
 * against the collector's CA (RFC 5425) or plain TCP when named, through
 * libcurl's connect-only mode, carrying frames ps_syslog_frame() made.
 * Syslog over TCP has no acknowledgement: a frame the receiver lost as it
 * went down is lost; the HTTP copy on the collector is the record.
 */
#ifndef PS_COLLECT_SYSLOG_H
#define PS_COLLECT_SYSLOG_H

#include "collect/curl.h"
#include "collect/url.h"

#include <stdbool.h>
#include <stddef.h>

struct ps_syslog_conn {
	const struct ps_curl *c;
	CURL *h;
	bool connected;
	struct ps_syslog_target t;
	char ca[512];
};

/* 0, or -errno with why[] (libcurl not loadable). Connects at the first send. */
int ps_syslog_open(struct ps_syslog_conn *s, const struct ps_syslog_target *t, const char *ca,
		   char *why, size_t whylen);

/* Send one whole frame, connecting first when needed: 0, or -1 with why[] (then the
 * connection is closed; the next send connects again). */
int ps_syslog_send(struct ps_syslog_conn *s, const char *frame, size_t len, char *why,
		   size_t whylen);

void ps_syslog_close(struct ps_syslog_conn *s);

#endif
