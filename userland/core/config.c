/* config.c - parse probestick.cfg and the kernel command line into struct ps_config.
 * Pure string functions, except ps_config_load which reads the two files. */
#include "core/config.h"
#include "collect/bootnet.h"
#include "collect/url.h"
#include "core/scratch.h"
#include "core/wall.h"
#include "hw/md.h"
#include "core/util.h"
#include "report/json.h"

#include <autoconf.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const plan_values[] = {"quick", "full", "menu", "serve"};
static const char *const bond_values[] = {"off", "balance-rr", "802.3ad"};
static const char *const then_values[] = {"poweroff", "reboot", "menu", "shell"};
static const char *const stream_values[] = {"none", "serial"};
static const unsigned int serial_speeds[] = {1200,  2400,   4800,   9600,   19200, 38400,
					     57600, 115200, 230400, 460800, 921600};

void ps_config_defaults(struct ps_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->plan, sizeof(cfg->plan), "%s", CONFIG_DEFAULT_PLAN);
	snprintf(cfg->then, sizeof(cfg->then), "menu");
	snprintf(cfg->console, sizeof(cfg->console), "tty0,ttyS0");
	snprintf(cfg->net, sizeof(cfg->net), "auto");
	snprintf(cfg->mtu, sizeof(cfg->mtu), "max");
	snprintf(cfg->bond, sizeof(cfg->bond), "off");
	snprintf(cfg->array_chunk, sizeof(cfg->array_chunk), "512K");
	snprintf(cfg->surface, sizeof(cfg->surface), "sampled");
	snprintf(cfg->stream, sizeof(cfg->stream), "none");
	snprintf(cfg->collect_wait, sizeof(cfg->collect_wait), "10m");
}

static void warn(json_object *warnings, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(json_object *warnings, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!warnings)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* the text quotes a file anyone may have edited: valid UTF-8, controls escaped */
	json_object_array_add(warnings, ps_json_new_str(buf));
}

/* Warnings of one kind past the first few become one line with their count. */
#define WARN_KIND_MAX 5
enum warn_kind { W_NO_EQUALS, W_BAD_LINE, W_BAD_VALUE, W_BAD_KEY, W_KINDS };

static const char *const warn_kind_text[W_KINDS] = {"without '='", "that are not key=value",
						    "with a bad value", "with an unknown key"};

static bool warn_counted(unsigned int *counts, enum warn_kind k)
{
	return ++counts[k] <= WARN_KIND_MAX;
}

/* Quote user text for a message: printable ASCII only, at most 40 characters. */
static void quote(char *dst, size_t dstlen, const char *src, size_t srclen)
{
	size_t o = 0;

	for (size_t i = 0; i < srclen && o + 4 < dstlen; i++) {
		if (o >= 40) {
			memcpy(dst + o, "...", 3);
			o += 3;
			break;
		}
		dst[o++] = isprint((unsigned char)src[i]) ? src[i] : '?';
	}
	dst[o] = '\0';
}

static int pick(const char *value, const char *const *values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(value, values[i]) == 0)
			return (int)i;
	return -1;
}

int ps_console_spec_parse(const char *spec, struct ps_term_spec *terms, int max, char *why,
			  size_t whylen)
{
	int n = 0;
	const char *p = spec;

	if (!*spec) {
		snprintf(why, whylen, "no terminal named");
		return -EINVAL;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		bool digits = len > 0, alnum = len > 0;
		char tok[40];

		for (size_t i = 0; i < len; i++) {
			digits = digits && isdigit((unsigned char)p[i]);
			alnum = alnum && isalnum((unsigned char)p[i]);
		}
		quote(tok, sizeof(tok), p, len);
		if (len == 0 || !alnum || len >= sizeof(terms[0].name)) {
			snprintf(why, whylen, "'%s' is not a terminal name like tty0 or ttyS0",
				 tok);
			return -EINVAL;
		}
		if (digits) {
			unsigned long speed = strtoul(tok, NULL, 10);
			bool known = false;

			for (size_t i = 0; i < PS_ARRAY_SIZE(serial_speeds); i++)
				known = known || speed == serial_speeds[i];
			if (n == 0 || terms[n - 1].speed) {
				snprintf(why, whylen, "speed %s does not follow a terminal name",
					 tok);
				return -EINVAL;
			}
			if (!known) {
				snprintf(why, whylen,
					 "%s is not a serial speed (e.g. 9600, 115200)", tok);
				return -EINVAL;
			}
			terms[n - 1].speed = (unsigned int)speed;
		} else {
			if (n == max) {
				snprintf(why, whylen, "more than %d terminals", max);
				return -EINVAL;
			}
			memcpy(terms[n].name, p, len);
			terms[n].name[len] = '\0';
			terms[n].speed = 0;
			n++;
		}
		p += len;
		if (*p == ',')
			p++;
		if (*p == '\0' && p[-1] == ',') {
			snprintf(why, whylen, "ends with a comma");
			return -EINVAL;
		}
	}
	return n;
}

/* Checks of a value: 0, or -EINVAL with why[] saying what is wrong (value quoted in v). */
typedef int (*check_fn)(const char *value, const char *v, char *why, size_t whylen);

static int check_plan(const char *value, const char *v, char *why, size_t whylen)
{
	if (pick(value, plan_values, PS_ARRAY_SIZE(plan_values)) >= 0)
		return 0;
	snprintf(why, whylen, "plan=%s is not one of quick, full, menu, serve", v);
	return -EINVAL;
}

static int check_then(const char *value, const char *v, char *why, size_t whylen)
{
	if (pick(value, then_values, PS_ARRAY_SIZE(then_values)) >= 0)
		return 0;
	snprintf(why, whylen, "then=%s is not one of poweroff, reboot, menu, shell", v);
	return -EINVAL;
}

static int check_stream(const char *value, const char *v, char *why, size_t whylen)
{
	if (pick(value, stream_values, PS_ARRAY_SIZE(stream_values)) >= 0)
		return 0;
	snprintf(why, whylen, "stream=%s is not one of none, serial", v);
	return -EINVAL;
}

static int check_console(const char *value, const char *v, char *why, size_t whylen)
{
	struct ps_term_spec terms[PS_MAX_TERMS];
	char reason[128];

	if (ps_console_spec_parse(value, terms, PS_MAX_TERMS, reason, sizeof(reason)) >= 0)
		return 0;
	snprintf(why, whylen, "console=%s: %s", v, reason);
	return -EINVAL;
}

int ps_net_spec_parse(const char *s, struct ps_net_spec *out, char *why, size_t whylen)
{
	char addr[64], *slash, *comma, *end;
	long len;

	memset(out, 0, sizeof(*out));
	if (!s[0] || strcmp(s, "auto") == 0)
		return 0;
	if (strcmp(s, "dhcp") == 0) {
		out->how = PS_NET_DHCP;
		return 0;
	}
	if (strlen(s) >= sizeof(addr)) {
		snprintf(why, whylen, "too long");
		return -EINVAL;
	}
	snprintf(addr, sizeof(addr), "%s", s);
	comma = strchr(addr, ',');
	if (comma) {
		*comma++ = '\0';
		if (inet_pton(AF_INET, comma, &out->gw) != 1) {
			snprintf(why, whylen, "the gateway is not an IPv4 address");
			return -EINVAL;
		}
		out->has_gw = true;
	}
	slash = strchr(addr, '/');
	if (!slash) {
		snprintf(why, whylen, "is not auto, dhcp or ADDR/LEN[,GW] (like 192.168.1.50/24)");
		return -EINVAL;
	}
	*slash++ = '\0';
	len = strtol(slash, &end, 10);
	if (!*slash || *end || len < 1 || len > 32) {
		snprintf(why, whylen, "the prefix length is not 1 to 32");
		return -EINVAL;
	}
	if (inet_pton(AF_INET, addr, &out->addr) != 1) {
		snprintf(why, whylen, "is not auto, dhcp or ADDR/LEN[,GW] (like 192.168.1.50/24)");
		return -EINVAL;
	}
	out->prefix = (int)len;
	out->how = PS_NET_STATIC;
	return 0;
}

int ps_peer_spec_parse(const char *s, struct in_addr *addr, int *port, char *why, size_t whylen)
{
	char host[64], *colon, *end;

	*port = 0;
	memset(addr, 0, sizeof(*addr));
	if (!s[0])
		return 0;
	if (strlen(s) >= sizeof(host)) {
		snprintf(why, whylen, "too long");
		return -EINVAL;
	}
	snprintf(host, sizeof(host), "%s", s);
	*port = 5201;
	colon = strchr(host, ':');
	if (colon) {
		long p;

		*colon++ = '\0';
		p = strtol(colon, &end, 10);
		if (!*colon || *end || p < 1 || p > 65535) {
			snprintf(why, whylen, "the port is not 1 to 65535");
			return -EINVAL;
		}
		*port = (int)p;
	}
	if (inet_pton(AF_INET, host, addr) != 1) {
		snprintf(why, whylen,
			 "is not an IPv4 address with an optional :PORT (names "
			 "need DNS, which the stick has not)");
		return -EINVAL;
	}
	return 0;
}

int ps_mtu_spec_parse(const char *s, int *mtu)
{
	char *end;
	long v;

	if (!s[0] || strcmp(s, "max") == 0) {
		*mtu = -1;
		return 0;
	}
	if (strcmp(s, "keep") == 0) {
		*mtu = 0;
		return 0;
	}
	v = strtol(s, &end, 10);
	if (*end || v < 576 || v > 65535)
		return -EINVAL;
	*mtu = (int)v;
	return 0;
}

int ps_memtest_spec_parse(const char *s, uint64_t *bytes, unsigned int *pct)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	*bytes = 0;
	*pct = 0;
	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v == 0)
		return -EINVAL;
	if (strcmp(end, "%") == 0) {
		if (v > 90)
			return -EINVAL;
		*pct = (unsigned int)v;
		return 0;
	}
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	end++;
	if (toupper((unsigned char)*end) == 'I')
		end++;
	if (toupper((unsigned char)*end) == 'B')
		end++;
	if (*end || v > (UINT64_MAX >> shift) || (v << shift) < (1ULL << 20))
		return -EINVAL; /* at least 1 MiB */
	*bytes = (uint64_t)v << shift;
	return 0;
}

int ps_duration_parse(const char *s, unsigned int *seconds)
{
	unsigned long long total = 0;
	const char *p = s;
	int units = 0;

	*seconds = 0;
	while (*p) {
		char *end;
		unsigned long long v;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		v = strtoull(p, &end, 10);
		if (v > 7ULL * 86400)
			return -EINVAL;
		switch (*end) {
		case 'h':
			v *= 3600;
			break;
		case 'm':
			v *= 60;
			break;
		case 's':
			break;
		case '\0':
			if (units)
				return -EINVAL; /* "1h30": say the unit */
			end--;
			break;
		default:
			return -EINVAL;
		}
		total += v;
		units++;
		p = end + 1;
	}
	if (!units || total < 10 || total > 7ULL * 86400)
		return -EINVAL;
	*seconds = (unsigned int)total;
	return 0;
}

static int check_memtest(const char *value, const char *v, char *why, size_t whylen)
{
	uint64_t bytes;
	unsigned int pct;

	if (ps_memtest_spec_parse(value, &bytes, &pct) == 0)
		return 0;
	snprintf(why, whylen,
		 "memtest=%s is not a size (256M, 2G; at least 1M) or a share of the free memory "
		 "(1%% to 90%%)",
		 v);
	return -EINVAL;
}

static int check_burnin(const char *value, const char *v, char *why, size_t whylen)
{
	unsigned int s;

	if (ps_duration_parse(value, &s) == 0)
		return 0;
	snprintf(why, whylen,
		 "burnin=%s is not a duration from 10s to 7 days (90s, 10m, 1h, 1h30m)", v);
	return -EINVAL;
}

static int check_wall(const char *value, const char *v, char *why, size_t whylen)
{
	double w;

	if (!*value || ps_wall_parse(value, &w) == 0)
		return 0;
	snprintf(why, whylen, "'%s' is not a wall meter's reading in watts (105, 98.5W)", v);
	return -EINVAL;
}

static int check_steps(const char *value, const char *v, char *why, size_t whylen)
{
	/* Names are checked when the plan is chosen, against the steps compiled in. */
	for (const char *p = value; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_' ||
		      *p == ',')) {
			snprintf(why, whylen,
				 "steps=%s is not a comma-separated list of step names", v);
			return -EINVAL;
		}
	return 0;
}

static int check_peer(const char *value, const char *v, char *why, size_t whylen)
{
	struct in_addr a;
	char reason[160];
	int port;

	if (ps_peer_spec_parse(value, &a, &port, reason, sizeof(reason)) == 0)
		return 0;
	snprintf(why, whylen, "peer=%s: %s", v, reason);
	return -EINVAL;
}

static int check_net(const char *value, const char *v, char *why, size_t whylen)
{
	struct ps_net_spec n;
	char reason[160];

	if (ps_net_spec_parse(value, &n, reason, sizeof(reason)) == 0)
		return 0;
	snprintf(why, whylen, "net=%s: %s", v, reason);
	return -EINVAL;
}

static int check_mtu(const char *value, const char *v, char *why, size_t whylen)
{
	int mtu;

	if (ps_mtu_spec_parse(value, &mtu) == 0)
		return 0;
	snprintf(why, whylen, "mtu=%s is not max, keep or a number from 576 to 65535", v);
	return -EINVAL;
}

static int check_bond(const char *value, const char *v, char *why, size_t whylen)
{
	if (pick(value, bond_values, PS_ARRAY_SIZE(bond_values)) >= 0)
		return 0;
	snprintf(why, whylen, "bond=%s is not one of off, balance-rr, 802.3ad", v);
	return -EINVAL;
}

static int check_surface(const char *value, const char *v, char *why, size_t whylen)
{
	if (strcmp(value, "sampled") == 0 || strcmp(value, "full") == 0)
		return 0;
	snprintf(why, whylen, "surface=%s is not one of sampled, full", v);
	return -EINVAL;
}

static int check_scratch(const char *value, const char *v, char *why, size_t whylen)
{
	struct ps_scratch_list l;
	char reason[128];

	if (ps_scratch_parse(value, &l, reason, sizeof(reason)) == 0)
		return 0;
	snprintf(why, whylen, "scratch=%s: %s", v, reason);
	return -EINVAL;
}

static int check_array(const char *value, const char *v, char *why, size_t whylen)
{
	struct ps_md_levels l;
	char reason[128];

	if (ps_md_levels_parse(value, &l, reason, sizeof(reason)) == 0)
		return 0;
	snprintf(why, whylen, "array=%s: %s", v, reason);
	return -EINVAL;
}

static int check_array_chunk(const char *value, const char *v, char *why, size_t whylen)
{
	uint64_t b;
	char reason[128];

	if (ps_md_chunk_parse(value, &b, reason, sizeof(reason)) == 0)
		return 0;
	snprintf(why, whylen, "array_chunk=%s: %s", v, reason);
	return -EINVAL;
}

static int check_array_extrapolate(const char *value, const char *v, char *why, size_t whylen)
{
	uint64_t b;

	if (!*value || (ps_md_size_parse(value, &b) == 0 && b > 0))
		return 0;
	snprintf(why, whylen, "array_extrapolate=%s is not a size (2TB, 500GB, 4TiB)", v);
	return -EINVAL;
}

/* The collector's settings: their values may hold a password, so no message quotes them. */
static int check_collect(const char *value, const char *v, char *why, size_t whylen)
{
	struct ps_url u;
	char reason[200];
	int ret = ps_url_parse(value, &u, reason, sizeof(reason));

	memset(u.password, 0, sizeof(u.password));
	if (ret == 0 || !*value)
		return 0;
	snprintf(why, whylen, "collect=: %s (like https://collector.lab/fleet/)", reason);
	return -EINVAL;
}

static int check_syslog(const char *value, const char *v, char *why, size_t whylen)
{
	struct ps_syslog_target t;
	char reason[200];

	if (!*value || ps_syslog_target_parse(value, &t, reason, sizeof(reason)) == 0)
		return 0;
	snprintf(why, whylen, "syslog=%s: %s (like tls://collector.lab:6514)", v, reason);
	return -EINVAL;
}

static int check_ip(const char *value, const char *v, char *why, size_t whylen)
{
	struct ps_bootnet b;
	char reason[200];

	if (!*value || ps_bootnet_parse_ip(value, &b, reason, sizeof(reason)) == 0)
		return 0;
	snprintf(why, whylen, "ip=%s: %s", v, reason);
	return -EINVAL;
}

static int check_collect_wait(const char *value, const char *v, char *why, size_t whylen)
{
	unsigned int s;

	if (strcmp(value, "0") == 0 || ps_duration_parse(value, &s) == 0)
		return 0;
	snprintf(why, whylen, "collect_wait=%s is not 0 or a duration from 10s (90s, 10m, 1h)", v);
	return -EINVAL;
}

static int check_credential(const char *value, const char *v, char *why, size_t whylen)
{
	for (const char *p = value; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f) {
			snprintf(why, whylen, "the value holds a control byte (not shown)");
			return -EINVAL;
		}
	return 0;
}

static int check_collect_user(const char *value, const char *v, char *why, size_t whylen)
{
	if (strchr(value, ':')) {
		snprintf(why, whylen,
			 "collect_user=%s: a user name for basic authentication has no ':'", v);
		return -EINVAL;
	}
	return check_credential(value, v, why, whylen);
}

/* inspect=: an http:// or https:// URL without blanks or controls (the inspector's own check
 * is its answer). */
static int check_inspect(const char *value, const char *v, char *why, size_t whylen)
{
	bool ok = strncmp(value, "http://", 7) == 0 || strncmp(value, "https://", 8) == 0;

	for (const char *p = value; ok && *p; p++)
		ok = (unsigned char)*p > ' ' && *p != 0x7f;
	if (!*value || ok)
		return 0;
	snprintf(why, whylen, "inspect=%s is not an http:// or https:// URL", v);
	return -EINVAL;
}

/* ironic_node=: a UUID, as Ironic names its nodes. */
static int check_uuid(const char *value, const char *v, char *why, size_t whylen)
{
	size_t n = strlen(value);
	bool ok = n == 36;

	for (size_t i = 0; ok && i < n; i++)
		ok = (i == 8 || i == 13 || i == 18 || i == 23) ? value[i] == '-'
							       : isxdigit((unsigned char)value[i]);
	if (!*value || ok)
		return 0;
	snprintf(why, whylen, "ironic_node=%s is not a node's UUID", v);
	return -EINVAL;
}

/*
 * Every key of probestick.cfg and the kernel command line (probestick.KEY=):
 * where its value lives in struct ps_config and how it is checked. A new
 * setting is one row here and one field in config.h.
 */
#define KEY(name, field, check)                                                                    \
	{                                                                                          \
#name, offsetof(struct ps_config, field), sizeof(((struct ps_config *)0)->field),  \
		    check                                                                          \
	}
static const struct config_key {
	const char *name;
	size_t off, size;
	check_fn check;
} keys[] = {
    KEY(plan, plan, check_plan),
    KEY(then, then, check_then),
    KEY(console, console, check_console),
    KEY(steps, steps, check_steps),
    KEY(surface, surface, check_surface),
    KEY(scratch, scratch, check_scratch),
    KEY(peer, peer, check_peer),
    KEY(net, net, check_net),
    KEY(mtu, mtu, check_mtu),
    KEY(bond, bond, check_bond),
    KEY(array, array, check_array),
    KEY(array_chunk, array_chunk, check_array_chunk),
    KEY(array_extrapolate, array_extrapolate, check_array_extrapolate),
    KEY(stream, stream, check_stream),
    KEY(memtest, memtest, check_memtest),
    KEY(burnin, burnin, check_burnin),
    KEY(wall_idle, wall_idle, check_wall),
    KEY(wall_load, wall_load, check_wall),
    KEY(collect, collect, check_collect),
    KEY(collect_ca, collect_ca, check_credential),
    KEY(collect_user, collect_user, check_collect_user),
    KEY(collect_password, collect_password, check_credential),
    KEY(collect_wait, collect_wait, check_collect_wait),
    KEY(syslog, syslog, check_syslog),
    KEY(ip, ip, check_ip),
    KEY(inspect, inspect, check_inspect),
    KEY(ironic_node, ironic_node, check_uuid),
};

static bool secret(const char *key)
{
	return ps_config_secret(key);
}

static const struct config_key *find_key(const char *name)
{
	for (size_t i = 0; i < PS_ARRAY_SIZE(keys); i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static char *field(struct ps_config *cfg, const struct config_key *k)
{
	return (char *)cfg + k->off;
}

int ps_config_set(struct ps_config *cfg, const char *key, const char *value, char *why,
		  size_t whylen)
{
	const struct config_key *k = find_key(key);
	char v[48], known[256];
	size_t o = 0;
	int ret;

	quote(v, sizeof(v), value, strlen(value));
	if (secret(key))
		snprintf(v, sizeof(v), "(not shown)");
	if (!k) {
		char kq[48];

		for (size_t i = 0; i < PS_ARRAY_SIZE(keys) && o < sizeof(known); i++)
			o += (size_t)snprintf(known + o, sizeof(known) - o, "%s%s", i ? ", " : "",
					      keys[i].name);
		quote(kq, sizeof(kq), key, strlen(key));
		snprintf(why, whylen, "unknown key '%s' (known: %s)", kq, known);
		return -ENOENT;
	}
	if (strlen(value) >= k->size) {
		snprintf(why, whylen, "%s=%s is too long", k->name, v);
		return -EINVAL;
	}
	ret = k->check ? k->check(value, v, why, whylen) : 0;
	if (ret < 0)
		return ret;
	snprintf(field(cfg, k), k->size, "%s", value);
	return 0;
}

static const char *current(struct ps_config *cfg, const char *key)
{
	const struct config_key *k = find_key(key);

	if (k && secret(key))
		return field(cfg, k)[0] ? "(not shown)" : "";
	return k ? field(cfg, k) : "";
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

void ps_config_parse_text(struct ps_config *cfg, const char *text, size_t len, const char *source,
			  json_object *warnings)
{
	size_t pos = 0;
	int lineno = 0;
	unsigned int counts[W_KINDS] = {0};

	while (pos < len) {
		const char *line = text + pos, *eq;
		size_t n = 0, klen, vstart, vlen;
		char key[40], value[600], why[256], shown[48];
		int ret;

		while (pos + n < len && text[pos + n] != '\n')
			n++;
		pos += n + 1;
		lineno++;
		/* A comment runs to the end of the line; '#' in a value is not supported. */
		for (size_t i = 0; i < n; i++) {
			if (line[i] == '#') {
				n = i;
				break;
			}
		}
		while (n > 0 && (is_blank(line[n - 1]) || line[n - 1] == '\0'))
			n--;
		while (n > 0 && (is_blank(*line) || *line == '\0')) {
			line++;
			n--;
		}
		if (n == 0)
			continue;
		quote(shown, sizeof(shown), line, n);
		eq = memchr(line, '=', n);
		if (!eq) {
			if (warn_counted(counts, W_NO_EQUALS))
				warn(warnings,
				     "%s line %d: '%s' has no '=': ignored (expected key=value)",
				     source, lineno, shown);
			continue;
		}
		klen = (size_t)(eq - line);
		while (klen > 0 && is_blank(line[klen - 1]))
			klen--;
		vstart = (size_t)(eq - line) + 1;
		while (vstart < n && is_blank(line[vstart]))
			vstart++;
		vlen = n - vstart;
		if (klen == 0 || klen >= sizeof(key) || vlen >= sizeof(value) ||
		    memchr(line, '\0', n)) {
			if (warn_counted(counts, W_BAD_LINE))
				warn(warnings,
				     "%s line %d: '%s' is not a valid key=value line: ignored",
				     source, lineno, shown);
			continue;
		}
		memcpy(key, line, klen);
		key[klen] = '\0';
		memcpy(value, line + vstart, vlen);
		value[vlen] = '\0';
		ret = ps_config_set(cfg, key, value, why, sizeof(why));
		if (ret == -EINVAL && warn_counted(counts, W_BAD_VALUE))
			warn(warnings, "%s line %d: %s: keeping %s=%s", source, lineno, why, key,
			     current(cfg, key));
		else if (ret < 0 && ret != -EINVAL && warn_counted(counts, W_BAD_KEY))
			warn(warnings, "%s line %d: %s: ignored", source, lineno, why);
	}
	for (int k = 0; k < W_KINDS; k++)
		if (counts[k] > WARN_KIND_MAX)
			warn(warnings, "%s: %u more lines %s were ignored (the first %d are above)",
			     source, counts[k] - WARN_KIND_MAX, warn_kind_text[k], WARN_KIND_MAX);
}

/* Next word of a kernel command line, honouring "double quotes"; NULL at the end. */
static const char *next_word(const char *p, char *word, size_t wlen)
{
	size_t o = 0;
	bool quoted = false;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!*p)
		return NULL;
	for (; *p && (quoted || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
		if (*p == '"') {
			quoted = !quoted;
			continue;
		}
		if (o + 1 < wlen)
			word[o++] = *p;
	}
	word[o] = '\0';
	return p;
}

void ps_config_parse_cmdline(struct ps_config *cfg, const char *cmdline, json_object *warnings)
{
	const char *p = cmdline;
	char word[512], why[256];
	static const char prefix[] = "probestick.";

	while ((p = next_word(p, word, sizeof(word)))) {
		char *eq, *key;
		int ret;

		/* Ironic's inspection boots the agent's ramdisk with this: nobody waits at a menu
		 */
		if (strncmp(word, "ipa-inspection-callback-url=", 28) == 0) {
			if (ps_config_set(cfg, "inspect", word + 28, why, sizeof(why)) < 0)
				warn(warnings, "kernel command line: %s: ignored", why);
			ps_config_unattended(cfg);
			continue;
		}
		if (strncmp(word, prefix, sizeof(prefix) - 1) != 0)
			continue;
		key = word + sizeof(prefix) - 1;
		eq = strchr(key, '=');
		if (!eq) {
			warn(warnings, "kernel command line: '%s' has no '=': ignored", word);
			continue;
		}
		*eq = '\0';
		/* partuuid (finding the stick) and break (debug shells) are for /init. */
		if (strcmp(key, "partuuid") == 0 || strcmp(key, "break") == 0)
			continue;
		ret = ps_config_set(cfg, key, eq + 1, why, sizeof(why));
		if (ret == 0 && strcmp(key, "inspect") == 0 && eq[1])
			ps_config_unattended(cfg);
		if (ret == -EINVAL)
			warn(warnings, "kernel command line: probestick.%s: keeping %s=%s", why,
			     key, current(cfg, key));
		else if (ret < 0)
			warn(warnings, "kernel command line: probestick.%s: %s: ignored", key, why);
	}
}

void ps_config_unattended(struct ps_config *cfg)
{
	if (strcmp(cfg->plan, "menu") == 0)
		snprintf(cfg->plan, sizeof(cfg->plan), "quick");
	if (strcmp(cfg->then, "menu") == 0)
		snprintf(cfg->then, sizeof(cfg->then), "poweroff");
}

static void load_file(const char *path, json_object *warnings,
		      void (*apply)(const char *text, size_t len, const char *path, void *arg),
		      void *arg)
{
	char *data;
	size_t len;
	int ret = ps_read_all(path, &data, &len);

	if (ret < 0) {
		warn(warnings, "%s: %s: using the defaults for what it would set", path,
		     strerror(-ret));
		return;
	}
	apply(data, len, path, arg);
	free(data);
}

struct load_arg {
	struct ps_config *cfg;
	json_object *warnings;
};

static void apply_cfg(const char *text, size_t len, const char *path, void *arg)
{
	struct load_arg *a = arg;

	ps_config_parse_text(a->cfg, text, len, path, a->warnings);
}

static void apply_cmdline(const char *text, size_t len, const char *path, void *arg)
{
	struct load_arg *a = arg;

	/* /proc/cmdline is one line; a NUL inside ends it. */
	ps_config_parse_cmdline(a->cfg, text, a->warnings);
}

void ps_config_load(struct ps_config *cfg, const char *cfg_path, const char *cmdline_path,
		    json_object *warnings)
{
	struct load_arg a = {cfg, warnings};

	if (cfg_path)
		load_file(cfg_path, warnings, apply_cfg, &a);
	if (cmdline_path)
		load_file(cmdline_path, warnings, apply_cmdline, &a);
}
