/* fuzz_collect.c - what the collector's side parses (a first byte picks): collect=, syslog=,
 * ip=, BOOTIF=, a whole kernel command line (the boot port's address, and the line with its
 * secrets hidden for the report), and an OCP line into an RFC 5424 frame. */
// fuzz-sources: collect/url.c collect/bootnet.c collect/syslog_frame.c lib/redact.c
// fuzz-sources: lib/util.c lib/json.c lib/store.c
#include "fuzz.h"

#include "collect/bootnet.h"
#include "collect/syslog_frame.h"
#include "collect/url.h"
#include "core/config.h"

static void url(const char *s)
{
	struct ps_url u;
	char why[256], base[1200];

	if (ps_url_parse(s, &u, why, sizeof(why)) < 0) {
		FUZZ_CHECK(why[0]);
		FUZZ_CHECK(!u.password[0]);
		return;
	}
	FUZZ_CHECK(u.port >= 1 && u.port <= 65535);
	FUZZ_CHECK(u.path[0] == '/' && u.path[strlen(u.path) - 1] == '/');
	ps_url_base(&u, base, sizeof(base));
	/* what reports and messages show has no user:password@ before the host */
	{
		const char *auth = strstr(base, "://") + 3;

		FUZZ_CHECK(!memchr(auth, '@', strcspn(auth, "/")));
	}
}

static void cmdline(char *s)
{
	struct ps_bootnet b;
	char why[256], *p;

	ps_bootnet_from_cmdline(s, "", &b, why, sizeof(why));
	FUZZ_CHECK(b.how >= PS_BOOTNET_AUTO && b.how <= PS_BOOTNET_OFF);
	FUZZ_CHECK(b.how != PS_BOOTNET_STATIC || (b.prefix >= 1 && b.prefix <= 32));
	ps_config_redact_cmdline(s);
	/* every probestick.collect_password= that starts a word now says '*' (or nothing) */
	for (p = strstr(s, "probestick.collect_password="); p;
	     p = strstr(p + 1, "probestick.collect_password="))
		FUZZ_CHECK((p != s && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '"') ||
			   p[28] == '*' || strchr(" \t\n", p[28]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, why[256];

	if (!size)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	switch (data[0] % 6) {
	case 0:
		url(s);
		break;
	case 1: {
		struct ps_syslog_target t;

		if (ps_syslog_target_parse(s, &t, why, sizeof(why)) == 0)
			FUZZ_CHECK(t.port >= 1 && t.port <= 65535 && t.host[0]);
		break;
	}
	case 2: {
		struct ps_bootnet b = {0};

		if (ps_bootnet_parse_ip(s, &b, why, sizeof(why)) == 0 && b.how == PS_BOOTNET_STATIC)
			FUZZ_CHECK(b.prefix >= 1 && b.prefix <= 32 && b.ndns <= 2);
		break;
	}
	case 3: {
		unsigned char mac[6];

		ps_bootnet_parse_bootif(s, mac);
		break;
	}
	case 4:
		cmdline(s);
		break;
	case 5: {
		struct ps_syslog_msg m = {.facility = 16,
					  .hostname = s,
					  .procid = s,
					  .msg = s,
					  .msglen = size - 1,
					  .app = "probestick",
					  .msgid = "ocp"};
		size_t len, digits;
		char *f;

		m.severity = ps_syslog_severity(s, size - 1);
		FUZZ_CHECK(m.severity == 3 || m.severity == 4 || m.severity == 6);
		f = ps_syslog_frame(&m, &len);
		FUZZ_CHECK(f);
		/* octet counting: the count names exactly the bytes after its space */
		digits = strspn(f, "0123456789");
		FUZZ_CHECK(digits && f[digits] == ' ');
		FUZZ_CHECK(strtoul(f, NULL, 10) == len - digits - 1);
		FUZZ_CHECK(f[digits + 1] == '<');
		free(f);
		break;
	}
	}
	free(s);
	return 0;
}
