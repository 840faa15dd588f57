/* syslog.c - RFC 5425/6587 frames to a syslog receiver over libcurl's connect-only mode. */
#include "collect/syslog.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

static const char *const lib_dirs[] = {PS_CURL_DIR_NETBOOT, NULL};

int ps_syslog_open(struct ps_syslog_conn *s, const struct ps_syslog_target *t, const char *ca,
		   char *why, size_t whylen)
{
	memset(s, 0, sizeof(*s));
	s->t = *t;
	snprintf(s->ca, sizeof(s->ca), "%s", ca ? ca : "");
	s->c = ps_curl_load(lib_dirs, why, whylen);
	return s->c ? 0 : -ENOENT;
}

void ps_syslog_close(struct ps_syslog_conn *s)
{
	if (s->c && s->h)
		s->c->easy_cleanup(s->h);
	s->h = NULL;
	s->connected = false;
}

static int sock_of(struct ps_syslog_conn *s)
{
	curl_socket_t fd = CURL_SOCKET_BAD;

	s->c->easy_getinfo(s->h, CURLINFO_ACTIVESOCKET, &fd);
	return fd == CURL_SOCKET_BAD ? -1 : (int)fd;
}

static int fail(struct ps_syslog_conn *s, char *why, size_t whylen, const char *fmt,
		const char *detail)
{
	char where[300];

	ps_syslog_target_text(&s->t, where, sizeof(where));
	snprintf(why, whylen, fmt, where, detail);
	ps_syslog_close(s);
	return -1;
}

static int connect_now(struct ps_syslog_conn *s, char *why, size_t whylen)
{
	char url[400], err[CURL_ERROR_SIZE] = "";
	CURLcode code;

	s->h = s->c->easy_init();
	if (!s->h)
		return fail(s, why, whylen, "%s: %s", "libcurl could not make a handle");
	snprintf(url, sizeof(url), "%s://%s%s%s:%d/", s->t.tls ? "https" : "http",
		 s->t.host_v6 ? "[" : "", s->t.host, s->t.host_v6 ? "]" : "", s->t.port);
	s->c->easy_setopt(s->h, CURLOPT_URL, url);
	s->c->easy_setopt(s->h, CURLOPT_CONNECT_ONLY, 1L);
	s->c->easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L);
	s->c->easy_setopt(s->h, CURLOPT_CONNECTTIMEOUT, 10L);
	s->c->easy_setopt(s->h, CURLOPT_ERRORBUFFER, err);
	if (s->ca[0])
		s->c->easy_setopt(s->h, CURLOPT_CAINFO, s->ca);
	code = s->c->easy_perform(s->h);
	if (code == CURLE_PEER_FAILED_VERIFICATION)
		return fail(s, why, whylen, "%s is not the collector's syslog receiver: %s",
			    err[0] ? err : s->c->easy_strerror(code));
	if (code != CURLE_OK) /* the general words: the detail differs from try to try */
		return fail(s, why, whylen, "cannot reach the syslog receiver %s: %s",
			    s->c->easy_strerror(code));
	s->connected = true;
	return 0;
}

/* The receiver never writes: a readable socket is one the receiver closed. */
static bool closed_by_peer(struct ps_syslog_conn *s)
{
	struct pollfd p = {.fd = sock_of(s), .events = POLLIN};

	return p.fd < 0 || (poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)));
}

int ps_syslog_send(struct ps_syslog_conn *s, const char *frame, size_t len, char *why,
		   size_t whylen)
{
	size_t off = 0;

	if (s->connected && closed_by_peer(s))
		ps_syslog_close(s);
	if (!s->connected && connect_now(s, why, whylen) < 0)
		return -1;
	while (off < len) {
		size_t n = 0;
		CURLcode code = s->c->easy_send(s->h, frame + off, len - off, &n);

		if (code == CURLE_AGAIN) {
			struct pollfd p = {.fd = sock_of(s), .events = POLLOUT};

			if (p.fd < 0 || poll(&p, 1, 10000) <= 0)
				return fail(s, why, whylen, "the syslog receiver %s: %s",
					    "stopped taking data for 10 s");
			continue;
		}
		if (code != CURLE_OK)
			return fail(s, why, whylen, "the syslog receiver %s: %s",
				    s->c->easy_strerror(code));
		off += n;
	}
	return 0;
}
