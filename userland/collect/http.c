/* http.c - PUT, MOVE and MKCOL to the collector through libcurl. */
#include "collect/http.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const lib_dirs[] = {PS_CURL_DIR_NETBOOT, NULL};

int ps_http_open(struct ps_http *h, const char *ca, const char *user, const char *password,
		 char *why, size_t whylen)
{
	memset(h, 0, sizeof(*h));
	h->c = ps_curl_load(lib_dirs, why, whylen);
	if (!h->c)
		return -ENOENT;
	h->h = h->c->easy_init();
	if (!h->h) {
		snprintf(why, whylen, "libcurl could not make a handle");
		return -ENOMEM;
	}
	snprintf(h->ca, sizeof(h->ca), "%s", ca ? ca : "");
	snprintf(h->user, sizeof(h->user), "%s", user ? user : "");
	snprintf(h->password, sizeof(h->password), "%s", password ? password : "");
	h->connect_s = 10;
	h->stall_s = 30;
	return 0;
}

void ps_http_close(struct ps_http *h)
{
	if (h->c && h->h)
		h->c->easy_cleanup(h->h);
	memset(h->password, 0, sizeof(h->password));
	h->h = NULL;
}

struct body {
	const char *p;
	size_t left;
};

static size_t read_body(char *buf, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t k = size * n < b->left ? size * n : b->left;

	memcpy(buf, b->p, k);
	b->p += k;
	b->left -= k;
	return k;
}

static size_t discard(char *buf, size_t size, size_t n, void *arg)
{
	return size * n;
}

enum ps_http_fail ps_http_classify(int code, long status)
{
	switch (code) {
	case CURLE_OK:
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CRL_BADFILE:
		return PS_HTTP_TLS;
	case CURLE_OUT_OF_MEMORY:
	case CURLE_FAILED_INIT:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_NOT_BUILT_IN:
		return PS_HTTP_LOCAL;
	default:
		return PS_HTTP_UNREACHABLE;
	}
	if (status >= 200 && status < 300)
		return PS_HTTP_OK;
	if (status == 401 || status == 403)
		return PS_HTTP_AUTH;
	if (status == 408 || status == 429)
		return PS_HTTP_UNREACHABLE; /* busy or slow: later */
	if (status >= 500)
		return PS_HTTP_SERVER;
	return PS_HTTP_REFUSED;
}

void ps_http_explain(const struct ps_http_result *r, const char *server, const char *ca, char *buf,
		     size_t len)
{
	switch (r->fail) {
	case PS_HTTP_OK:
		snprintf(buf, len, "%s answered %ld", server, r->status);
		break;
	case PS_HTTP_UNREACHABLE:
		if (r->status)
			snprintf(buf, len, "%s is busy (HTTP %ld); trying again", server,
				 r->status);
		else
			snprintf(buf, len, "cannot reach %s: %s", server, r->why);
		break;
	case PS_HTTP_TLS:
		if (r->code == CURLE_SSL_CACERT_BADFILE)
			snprintf(buf, len,
				 "no CA certificate to check %s with (%s): put the collector's CA "
				 "in the netboot tree (make netboot COLLECT_CA=) or on the stick "
				 "(collector-ca.pem), or name it with collect_ca=",
				 server, ca && ca[0] ? ca : "none named");
		else
			snprintf(buf, len,
				 "%s is not the collector: its certificate is not signed by the CA "
				 "in %s (%s)",
				 server, ca && ca[0] ? ca : "the system's store", r->why);
		break;
	case PS_HTTP_AUTH:
		snprintf(buf, len,
			 r->status == 401
			     ? "%s refused the user name or password (HTTP %ld): check "
			       "collect_user= and collect_password="
			     : "%s does not let this user write there (HTTP %ld): check the "
			       "collector's configuration",
			 server, r->status);
		break;
	case PS_HTTP_REFUSED:
		snprintf(buf, len,
			 r->status == 409 ? "%s has no such folder (HTTP %ld): create the "
					    "collect= folder on the collector"
			 : r->status >= 300 && r->status < 400
			     ? "%s redirects (HTTP %ld): give collect= the URL it points to"
			     : "%s does not take the file there (HTTP %ld): is it a WebDAV "
			       "folder that takes PUT and MOVE?",
			 server, r->status);
		break;
	case PS_HTTP_SERVER:
		snprintf(buf, len, "%s failed (HTTP %ld); trying again", server, r->status);
		break;
	case PS_HTTP_LOCAL:
		snprintf(buf, len, "this machine could not send: %s", r->why);
		break;
	}
}

int ps_http_request(struct ps_http *h, const char *method, const char *url, const void *data,
		    size_t len, const char *destination, struct ps_http_result *res)
{
	const struct ps_curl *c = h->c;
	char err[CURL_ERROR_SIZE] = "", dest[1200];
	struct curl_slist *hdr = NULL;
	struct body b = {data, len};
	CURLcode code;

	memset(res, 0, sizeof(*res));
	c->easy_reset(h->h);
	c->easy_setopt(h->h, CURLOPT_URL, url);
	c->easy_setopt(h->h, CURLOPT_NOSIGNAL, 1L);
	c->easy_setopt(h->h, CURLOPT_ERRORBUFFER, err);
	c->easy_setopt(h->h, CURLOPT_CONNECTTIMEOUT, h->connect_s);
	c->easy_setopt(h->h, CURLOPT_LOW_SPEED_LIMIT, 512L);
	c->easy_setopt(h->h, CURLOPT_LOW_SPEED_TIME, h->stall_s);
	c->easy_setopt(h->h, CURLOPT_PROTOCOLS_STR, "http,https");
	c->easy_setopt(h->h, CURLOPT_FOLLOWLOCATION, 0L);
	c->easy_setopt(h->h, CURLOPT_WRITEFUNCTION, discard);
	if (h->ca[0])
		c->easy_setopt(h->h, CURLOPT_CAINFO, h->ca);
	if (h->user[0]) {
		c->easy_setopt(h->h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		c->easy_setopt(h->h, CURLOPT_USERNAME, h->user);
		c->easy_setopt(h->h, CURLOPT_PASSWORD, h->password);
	}
	if (strcmp(method, "PUT") == 0) {
		c->easy_setopt(h->h, CURLOPT_UPLOAD, 1L);
		c->easy_setopt(h->h, CURLOPT_READFUNCTION, read_body);
		c->easy_setopt(h->h, CURLOPT_READDATA, &b);
		c->easy_setopt(h->h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
		/* no Expect: 100-continue round trip: the files are small */
		hdr = c->slist_append(hdr, "Expect:");
	} else {
		c->easy_setopt(h->h, CURLOPT_CUSTOMREQUEST, method);
	}
	if (destination) {
		snprintf(dest, sizeof(dest), "Destination: %s", destination);
		hdr = c->slist_append(hdr, dest);
		hdr = c->slist_append(hdr, "Overwrite: T");
	}
	if (hdr)
		c->easy_setopt(h->h, CURLOPT_HTTPHEADER, hdr);
	code = c->easy_perform(h->h);
	c->easy_getinfo(h->h, CURLINFO_RESPONSE_CODE, &res->status);
	c->slist_free_all(hdr);
	res->code = (int)code;
	res->fail = ps_http_classify((int)code, res->status);
	/* libcurl's own words, but for an unreachable server its general ones: the detail
	 * ("after 3001 ms") differs from try to try, and a problem is said once */
	snprintf(res->why, sizeof(res->why), "%s",
		 err[0] && res->fail != PS_HTTP_UNREACHABLE ? err : c->easy_strerror(code));
	return res->fail == PS_HTTP_OK ? 0 : -1;
}
