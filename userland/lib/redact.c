/* redact.c - the settings no message, report or log shows, and the kernel command line
 * with their values hidden. Pure. */
#include "lib/redact.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>

/* A password, and the collector's URL, which may hold one (user:password@). */
static const char *const secret_keys[] = {"collect_password", "collect"};

bool ps_config_secret(const char *key)
{
	for (size_t i = 0; i < PS_ARRAY_SIZE(secret_keys); i++)
		if (strcmp(key, secret_keys[i]) == 0)
			return true;
	return false;
}

void ps_config_redact_url(const char *url, char *out, size_t len)
{
	const char *auth = strstr(url, "://"), *at, *end;

	auth = auth ? auth + 3 : url;
	end = auth + strcspn(auth, "/?# ");
	at = memchr(auth, '@', (size_t)(end - auth));
	if (!at) {
		snprintf(out, len, "%s", url);
		return;
	}
	while (memchr(at + 1, '@', (size_t)(end - at - 1)))
		at = memchr(at + 1, '@', (size_t)(end - at - 1));
	snprintf(out, len, "%.*s%s", (int)(auth - url), url, at + 1);
}

/* The value at v (ending at a blank) with what is secret in it replaced by one '*'. */
static void hide(char *v, bool url)
{
	char *end = v + strcspn(v, " \t\n"), *cut = v, *at = NULL;

	if (url) {
		/* only the userinfo: https://\*@host/ */
		char *auth = strstr(v, "://");

		auth = auth && auth < end ? auth + 3 : v;
		for (char *q = auth; q < end && *q != '/'; q++)
			if (*q == '@')
				at = q;
		if (!at)
			return;
		cut = auth;
		end = at;
	}
	/* "*" for at least one byte: the line never grows (an empty userinfo stays empty) */
	if (end <= cut)
		return;
	memmove(cut + 1, end, strlen(end) + 1);
	*cut = '*';
}

void ps_config_redact_cmdline(char *s)
{
	for (size_t k = 0; k < PS_ARRAY_SIZE(secret_keys); k++) {
		char key[64];
		size_t kl = (size_t)snprintf(key, sizeof(key), "probestick.%s=", secret_keys[k]);

		for (char *p = strstr(s, key); p; p = strstr(p + 1, key))
			if (p == s || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '"')
				hide(p + kl, strcmp(secret_keys[k], "collect") == 0);
	}
}
