/*
 * curl.h - Debian's libcurl, loaded when a collector is configured and not
 * before: its libraries (libcurl and the TLS, HTTP/2, IDN, Kerberos and
 * LDAP libraries it is linked with: about 10 MiB) would otherwise cost
 * every stick boot that much RAM. They live in the netboot tree's
 * collect.img (unpacked to /usr/lib/probestick/collect), on the stick in
 * tools/collect/lib, or on an installed Debian where the linker finds them.
 */
#ifndef PS_COLLECT_CURL_H
#define PS_COLLECT_CURL_H

#include <curl/curl.h>
#include <stddef.h>

/* The calls probestick makes, resolved from the library. */
struct ps_curl {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *h);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *h);
	void (*easy_reset)(CURL *h);
	const char *(*easy_strerror)(CURLcode code);
	CURLcode (*easy_send)(CURL *h, const void *buf, size_t len, size_t *sent);
	CURLcode (*easy_recv)(CURL *h, void *buf, size_t len, size_t *got);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	curl_version_info_data *(*version_info)(CURLversion v);
};

/* Where the libraries are looked for, in order, before the linker's own paths. */
#define PS_CURL_DIR_NETBOOT "/usr/lib/probestick/collect"
#define PS_CURL_DIR_STICK   "tools/collect/lib" /* below the stick's mount point */

/*
 * Load libcurl once (later calls return the first result): from each
 * directory of dirs (NULL-terminated, may be NULL) with its libraries, else
 * as the linker finds it. The table, or NULL with why[] saying what is
 * missing.
 */
const struct ps_curl *ps_curl_load(const char *const *dirs, char *why, size_t whylen);

#endif
