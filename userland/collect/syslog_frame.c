/* syslog_frame.c - OCP artifacts as RFC 5424 messages with RFC 6587 octet counting. */
#include "collect/syslog_frame.h"
#include "lib/json.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A header field: PRINTUSASCII (33..126) only, at most max bytes, "-" when empty. */
static void field(char *dst, size_t dstlen, const char *src, size_t max)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)(src ? src : "");
	     *p && o < max && o + 1 < dstlen; p++)
		if (*p >= 33 && *p <= 126)
			dst[o++] = (char)*p;
	if (!o && dstlen > 1)
		dst[o++] = '-';
	dst[o] = '\0';
}

char *ps_syslog_frame(const struct ps_syslog_msg *m, size_t *len)
{
	char ts[64], host[256], app[49], proc[129], id[33], head[600], digits[24];
	int fac = m->facility < 0 || m->facility > 23 ? PS_SYSLOG_LOCAL0 : m->facility;
	int sev = m->severity < 0 || m->severity > 7 ? 6 : m->severity;
	size_t hl, dl, total;
	char *out;

	field(ts, sizeof(ts), m->timestamp, 32);
	field(host, sizeof(host), m->hostname, 255);
	field(app, sizeof(app), m->app, 48);
	field(proc, sizeof(proc), m->procid, 128);
	field(id, sizeof(id), m->msgid, 32);
	hl = (size_t)snprintf(head, sizeof(head), "<%d>1 %s %s %s %s %s - ", fac * 8 + sev, ts,
			      host, app, proc, id);
	dl = (size_t)snprintf(digits, sizeof(digits), "%zu ", hl + m->msglen);
	total = dl + hl + m->msglen;
	out = malloc(total + 1);
	if (!out)
		return NULL;
	memcpy(out, digits, dl);
	memcpy(out + dl, head, hl);
	if (m->msglen)
		memcpy(out + dl + hl, m->msg, m->msglen);
	out[total] = '\0';
	*len = total;
	return out;
}

int ps_syslog_severity(const char *line, size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *o, *step, *log;
	int sev = 6;
	const char *s;

	if (!tok)
		return sev;
	o = json_tokener_parse_ex(tok, line, (int)(len > 1 << 24 ? 1 << 24 : len));
	json_tokener_free(tok);
	step = ps_json_get(o, "testStepArtifact");
	if (!step)
		step = ps_json_get(o, "testRunArtifact");
	if (ps_json_get(step, "error")) {
		sev = 3;
	} else if ((s = ps_json_str(ps_json_get(step, "diagnosis"), "type")) &&
		   strcmp(s, "FAIL") == 0) {
		sev = 4;
	} else if ((log = ps_json_get(step, "log")) && (s = ps_json_str(log, "severity")) &&
		   (strcmp(s, "WARNING") == 0 || strcmp(s, "ERROR") == 0 ||
		    strcmp(s, "FATAL") == 0)) {
		sev = 4;
	}
	json_object_put(o);
	return sev;
}

void ps_syslog_time(double wall, char *buf, size_t len)
{
	time_t t = (time_t)wall;
	int ms = (int)((wall - (double)t) * 1000);
	struct tm tm;

	if (wall < 0 || !gmtime_r(&t, &tm)) {
		snprintf(buf, len, "-");
		return;
	}
	if (ms < 0 || ms > 999)
		ms = 0;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}
