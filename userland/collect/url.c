/* url.c - the collector's URL, the syslog receiver and a run's URLs below the collector. */
#include "collect/url.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool bad_byte(unsigned char c)
{
	return c <= ' ' || c >= 0x7f;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decode n bytes into dst; -EINVAL for a bad escape, a control byte or no room. */
static int decode(const char *src, size_t n, char *dst, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)src[i];

		if (c == '%') {
			int h, l;

			if (i + 2 >= n)
				return -EINVAL;
			h = hexval(src[i + 1]);
			l = hexval(src[i + 2]);
			if (h < 0 || l < 0)
				return -EINVAL;
			c = h * 16 + l;
			i += 2;
		}
		if (c < ' ' || c == 0x7f || o + 1 >= len)
			return -EINVAL;
		dst[o++] = (char)c;
	}
	dst[o] = '\0';
	return 0;
}

/* HOST[:PORT] or [V6][:PORT], n bytes at p. */
static int parse_hostport(const char *p, size_t n, char *host, size_t hostlen, bool *v6, int *port,
			  int default_port, char *why, size_t whylen)
{
	const char *colon;
	size_t hn;

	*v6 = false;
	*port = default_port;
	if (n && p[0] == '[') {
		const char *close = memchr(p, ']', n);
		struct in6_addr a6;

		hn = close ? (size_t)(close - p - 1) : 0;
		if (!close || hn == 0 || hn >= hostlen) {
			snprintf(why, whylen, "an IPv6 address needs [brackets] around it");
			return -EINVAL;
		}
		memcpy(host, p + 1, hn);
		host[hn] = '\0';
		if (inet_pton(AF_INET6, host, &a6) != 1) {
			snprintf(why, whylen, "[%s] is not an IPv6 address", host);
			return -EINVAL;
		}
		*v6 = true;
		colon = close + 1 < p + n ? close + 1 : NULL;
		if (colon && *colon != ':') {
			snprintf(why, whylen, "text after the IPv6 address's ']'");
			return -EINVAL;
		}
	} else {
		colon = memchr(p, ':', n);
		hn = colon ? (size_t)(colon - p) : n;
		if (hn == 0) {
			snprintf(why, whylen, "no host name or address");
			return -EINVAL;
		}
		if (hn >= hostlen) {
			snprintf(why, whylen, "the host name is longer than %zu bytes",
				 hostlen - 1);
			return -EINVAL;
		}
		for (size_t i = 0; i < hn; i++)
			if (!(isalnum((unsigned char)p[i]) || p[i] == '-' || p[i] == '.')) {
				snprintf(why, whylen,
					 "the host holds '%c': a name (letters, digits, '-', '.'), "
					 "an IPv4 address or an [IPv6] address",
					 isprint((unsigned char)p[i]) ? p[i] : '?');
				return -EINVAL;
			}
		memcpy(host, p, hn);
		host[hn] = '\0';
	}
	if (colon) {
		size_t pn = n - (size_t)(colon + 1 - p);
		char digits[8];
		char *end;
		long v;

		if (pn == 0 || pn >= sizeof(digits)) {
			snprintf(why, whylen, "the port is not 1 to 65535");
			return -EINVAL;
		}
		memcpy(digits, colon + 1, pn);
		digits[pn] = '\0';
		v = strtol(digits, &end, 10);
		if (*end || !isdigit((unsigned char)digits[0]) || v < 1 || v > 65535) {
			snprintf(why, whylen, "the port is not 1 to 65535");
			return -EINVAL;
		}
		*port = (int)v;
	}
	return 0;
}

int ps_url_parse(const char *s, struct ps_url *u, char *why, size_t whylen)
{
	const char *p = s, *auth_end, *at;
	size_t n;
	int ret;

	memset(u, 0, sizeof(*u));
	u->tls = true;
	why[0] = '\0';
	for (const char *q = s; *q; q++)
		if (bad_byte((unsigned char)*q)) {
			snprintf(why, whylen, "holds a space or a control byte");
			return -EINVAL;
		}
	if (strncmp(p, "https://", 8) == 0) {
		p += 8;
	} else if (strncmp(p, "http://", 7) == 0) {
		u->tls = false;
		p += 7;
	} else if (strstr(p, "://")) {
		snprintf(why, whylen, "only https:// (or http://, when named) is a collector");
		return -EINVAL;
	}
	auth_end = p + strcspn(p, "/?#");
	if (*auth_end == '?' || *auth_end == '#' || strpbrk(auth_end, "?#")) {
		snprintf(why, whylen, "a query or fragment ('?', '#') has no place in it");
		return -EINVAL;
	}
	at = memchr(p, '@', (size_t)(auth_end - p));
	if (at) {
		const char *colon = memchr(p, ':', (size_t)(at - p));
		size_t un = colon ? (size_t)(colon - p) : (size_t)(at - p);

		if (memchr(at + 1, '@', (size_t)(auth_end - at - 1)) ||
		    decode(p, un, u->user, sizeof(u->user)) < 0 || !u->user[0] ||
		    (colon && decode(colon + 1, (size_t)(at - colon - 1), u->password,
				     sizeof(u->password)) < 0)) {
			memset(u->password, 0, sizeof(u->password));
			snprintf(why, whylen, "the user name or password before '@' is not valid");
			return -EINVAL;
		}
		p = at + 1;
	}
	ret = parse_hostport(p, (size_t)(auth_end - p), u->host, sizeof(u->host), &u->host_v6,
			     &u->port, u->tls ? 443 : 80, why, whylen);
	if (ret < 0) {
		memset(u->password, 0, sizeof(u->password));
		return ret;
	}
	p = auth_end;
	n = strlen(p);
	if (n + 2 >= sizeof(u->path)) {
		memset(u->password, 0, sizeof(u->password));
		snprintf(why, whylen, "the path is longer than %zu bytes", sizeof(u->path) - 3);
		return -EINVAL;
	}
	snprintf(u->path, sizeof(u->path), "%s%s", p, n && p[n - 1] == '/' ? "" : "/");
	for (const char *seg = u->path + 1; *seg;) {
		size_t sl = strcspn(seg, "/");
		char dec[512];

		if ((sl == 1 && seg[0] == '.') || (sl == 2 && seg[0] == '.' && seg[1] == '.') ||
		    (sl && decode(seg, sl, dec, sizeof(dec)) < 0)) {
			memset(u->password, 0, sizeof(u->password));
			snprintf(why, whylen,
				 "the path holds '.', '..', a bad %%-escape or a control byte");
			return -EINVAL;
		}
		seg += sl;
		if (*seg == '/')
			seg++;
	}
	return 0;
}

static void host_text(const char *host, bool v6, int port, const char *scheme, char *buf,
		      size_t len)
{
	snprintf(buf, len, "%s://%s%s%s:%d", scheme, v6 ? "[" : "", host, v6 ? "]" : "", port);
}

void ps_url_base(const struct ps_url *u, char *buf, size_t len)
{
	char hp[300];

	host_text(u->host, u->host_v6, u->port, u->tls ? "https" : "http", hp, sizeof(hp));
	snprintf(buf, len, "%s%s", hp, u->path);
}

int ps_url_join(const struct ps_url *u, const char *const *segs, size_t n, bool dir, char *buf,
		size_t len)
{
	size_t o;

	ps_url_base(u, buf, len);
	o = strlen(buf);
	for (size_t i = 0; i < n; i++) {
		const char *s = segs[i];

		if (!s[0] || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
			return -EINVAL;
		for (; *s; s++) {
			unsigned char c = (unsigned char)*s;
			bool plain = isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';

			if (o + (plain ? 1 : 3) + 2 > len)
				return -ENAMETOOLONG;
			if (plain)
				buf[o++] = (char)c;
			else
				o += (size_t)snprintf(buf + o, len - o, "%%%02X", c);
		}
		if (i + 1 < n || dir)
			buf[o++] = '/';
		buf[o] = '\0';
	}
	return 0;
}

int ps_syslog_target_parse(const char *s, struct ps_syslog_target *t, char *why, size_t whylen)
{
	const char *p = s;
	size_t n;

	memset(t, 0, sizeof(*t));
	t->tls = true;
	why[0] = '\0';
	for (const char *q = s; *q; q++)
		if (bad_byte((unsigned char)*q)) {
			snprintf(why, whylen, "holds a space or a control byte");
			return -EINVAL;
		}
	if (strncmp(p, "tls://", 6) == 0) {
		p += 6;
	} else if (strncmp(p, "tcp://", 6) == 0) {
		t->tls = false;
		p += 6;
	} else if (strstr(p, "://")) {
		snprintf(why, whylen,
			 "only tls:// (RFC 5425) or tcp:// (when named) is a receiver");
		return -EINVAL;
	}
	n = strlen(p);
	if (n && p[n - 1] == '/')
		n--;
	if (memchr(p, '/', n) || memchr(p, '@', n)) {
		snprintf(why, whylen, "a syslog receiver is HOST[:PORT], without a path or a user");
		return -EINVAL;
	}
	return parse_hostport(p, n, t->host, sizeof(t->host), &t->host_v6, &t->port,
			      t->tls ? 6514 : 514, why, whylen);
}

void ps_syslog_target_text(const struct ps_syslog_target *t, char *buf, size_t len)
{
	host_text(t->host, t->host_v6, t->port, t->tls ? "tls" : "tcp", buf, len);
}
