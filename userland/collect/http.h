/*
 * http.h - the requests a delivery makes (PUT, MOVE, MKCOL) through
 * libcurl, checked against the collector's CA, with basic authentication;
 * failures sorted by what a person does about them. The credentials go to
 * libcurl alone: no URL, message or report holds them.
 */
#ifndef PS_COLLECT_HTTP_H
#define PS_COLLECT_HTTP_H

#include "collect/curl.h"

#include <stdbool.h>
#include <stddef.h>

enum ps_http_fail {
	PS_HTTP_OK = 0,
	PS_HTTP_UNREACHABLE, /* no route, no answer, refused, cut off: try again later */
	PS_HTTP_TLS,	     /* the certificate is not from the collector's CA, or no CA to check */
	PS_HTTP_AUTH,	     /* 401, 403: the user name or password, or its rights */
	PS_HTTP_REFUSED,     /* another 4xx or a redirect: the server does not take it there */
	PS_HTTP_SERVER,	     /* 5xx */
	PS_HTTP_LOCAL,	     /* on this side: memory, libcurl */
};

struct ps_http_result {
	enum ps_http_fail fail;
	long status; /* HTTP status, 0 when none came */
	int code;    /* CURLcode */
	char why[400];
};

struct ps_http {
	const struct ps_curl *c;
	CURL *h;
	char ca[512]; /* PEM file of the collector's CA; "" the system's (an installed Debian) */
	char user[128], password[256];
	long connect_s, stall_s; /* connect timeout; a transfer below 512 B/s this long ends */
};

/* 0, or -errno with why[] (libcurl not loadable). */
int ps_http_open(struct ps_http *h, const char *ca, const char *user, const char *password,
		 char *why, size_t whylen);
void ps_http_close(struct ps_http *h);

/*
 * One request: method PUT (body, len), MOVE (destination: an absolute URL,
 * overwriting) or MKCOL. 0 when the server answered 2xx, else -1 with
 * res filled (res is filled in every case).
 */
int ps_http_request(struct ps_http *h, const char *method, const char *url, const void *body,
		    size_t len, const char *destination, struct ps_http_result *res);

/* What a libcurl result and an HTTP status mean for a delivery. Pure. */
enum ps_http_fail ps_http_classify(int curl_code, long status);

/* The failure for people: "the collector refused the password (HTTP 401) ..." Pure. */
void ps_http_explain(const struct ps_http_result *r, const char *server, const char *ca, char *buf,
		     size_t len);

#endif
