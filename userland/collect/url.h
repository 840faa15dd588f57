/*
 * url.h - where a fleet's results go: the collector's URL (collect=), the
 * syslog receiver (syslog=), and the URLs of one run below the collector,
 * built so that the collector's tree reads like a stick's reports/. Pure.
 */
#ifndef PS_COLLECT_URL_H
#define PS_COLLECT_URL_H

#include <stdbool.h>
#include <stddef.h>

/* collect=[https://][USER[:PASSWORD]@]HOST[:PORT][/PATH/] */
struct ps_url {
	bool tls;	    /* https (the default); http only when the URL says http:// */
	char host[256];	    /* a name, an IPv4 address, or an IPv6 address without brackets */
	bool host_v6;	    /* host needs [brackets] in a URL */
	int port;	    /* 443 or 80 when not given */
	char path[512];	    /* starts and ends with '/', percent-encoding kept as given */
	char user[128];	    /* from the URL's userinfo, percent-decoded; "" none */
	char password[256]; /* likewise: never printed, never written into a report */
};

/*
 * Parse a collector URL. No query, fragment, "..", white space or control
 * bytes; a path is made to end with '/'. 0, or -EINVAL and why[] (which
 * never quotes the password).
 */
int ps_url_parse(const char *s, struct ps_url *u, char *why, size_t whylen);

/* "https://host:port/path/" without credentials: what reports and messages show. */
void ps_url_base(const struct ps_url *u, char *buf, size_t len);

/*
 * base, then each segment percent-encoded (everything but letters, digits
 * and "-._~"), joined by '/', with a trailing '/' when dir. 0, or
 * -ENAMETOOLONG, or -EINVAL for an empty segment, "." or "..".
 */
int ps_url_join(const struct ps_url *u, const char *const *segs, size_t n, bool dir, char *buf,
		size_t len);

/* syslog=[tls://|tcp://]HOST[:PORT]: RFC 5425 over TLS (the default, port 6514) or plain
 * TCP (port 514, only when named). */
struct ps_syslog_target {
	bool tls;
	char host[256];
	bool host_v6;
	int port;
};
int ps_syslog_target_parse(const char *s, struct ps_syslog_target *t, char *why, size_t whylen);

/* "tls://host:6514" */
void ps_syslog_target_text(const struct ps_syslog_target *t, char *buf, size_t len);

#endif
