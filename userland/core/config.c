/* config.c - parse probestick.cfg and the kernel command line into struct ps_config.
 * Pure string functions, except ps_config_load which reads the two files. */
#include "core/config.h"
#include "collect/bootnet.h"
#include "collect/url.h"
#include "core/scratch.h"
#include "decode/wall.h"
#include "lib/util.h"
#include "lib/json.h"

#include <autoconf.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const plan_values[] = {"quick", "full", "menu", "serve"};
static const char *const then_values[] = {"poweroff", "reboot", "menu", "shell"};
static const char *const stream_values[] = {"none", "serial"};
static const unsigned int serial_speeds[] = {1200,  2400,   4800,   9600,   19200, 38400,
					     57600, 115200, 230400, 460800, 921600};

static void core_values(struct ps_config *cfg);
static int set_step(struct ps_setting_slot *sl, const char *value, const char *v, char *why,
		    size_t whylen);

void ps_config_defaults(struct ps_config *cfg)
{
	size_t n;
	const struct ps_setting *const *st = ps_settings(&n);
	char why[200];

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->plan, sizeof(cfg->plan), "%s", CONFIG_DEFAULT_PLAN);
	snprintf(cfg->then, sizeof(cfg->then), "menu");
	snprintf(cfg->console, sizeof(cfg->console), "tty0,ttyS0");
	snprintf(cfg->net, sizeof(cfg->net), "auto");
	snprintf(cfg->mtu, sizeof(cfg->mtu), "max");
	snprintf(cfg->stream, sizeof(cfg->stream), "none");
	snprintf(cfg->collect_wait, sizeof(cfg->collect_wait), "10m");
	core_values(cfg);
	for (size_t i = 0; i < n; i++) {
		struct ps_setting_slot *sl = &cfg->step[cfg->n_step++];

		sl->s = st[i];
		/* a default that does not parse is the step's bug: the setting starts empty */
		if (st[i]->def && set_step(sl, st[i]->def, st[i]->def, why, sizeof(why)) < 0)
			sl->text[0] = '\0';
	}
}

static void warn(json_object *warnings, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(json_object *warnings, const char *fmt, ...)
{
	char buf[1024];
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

static int check_scratch(const char *value, const char *v, char *why, size_t whylen)
{
	struct ps_scratch_list l;
	char reason[128];

	if (ps_scratch_parse(value, &l, reason, sizeof(reason)) == 0)
		return 0;
	snprintf(why, whylen, "scratch=%s: %s", v, reason);
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
 * The core's keys of probestick.cfg and the kernel command line
 * (probestick.KEY=): where the value lives in struct ps_config and how it is
 * checked. A step's setting is declared in the step's file (struct
 * ps_setting) and lives in cfg->step[].
 */
#define KEY(name, field, check, hlp)                                                               \
	{                                                                                          \
#name, offsetof(struct ps_config, field), sizeof(((struct ps_config *)0)->field),  \
		    check, hlp                                                                     \
	}
static const struct config_key {
	const char *name;
	size_t off, size;
	check_fn check;
	const char *help;
} keys[] = {
    KEY(plan, plan, check_plan, "what runs at boot: quick, full, menu or serve"),
    KEY(then, then, check_then, "what follows the plan: poweroff, reboot, menu or shell"),
    KEY(console, console, check_console, "the terminals of the menu and progress: tty0,ttyS0"),
    KEY(steps, steps, check_steps, "only these steps (and what they run after), comma separated"),
    KEY(scratch, scratch, check_scratch, "serials of drives a writing step may OVERWRITE"),
    KEY(peer, peer, check_peer, "HOST[:PORT]: an iperf3 server or a stick in server mode"),
    KEY(net, net, check_net, "auto, dhcp or ADDR/LEN[,GW]: the address of the port facing a peer"),
    KEY(mtu, mtu, check_mtu, "max, keep or N: the MTU of the jumbo-frame tests"),
    KEY(stream, stream, check_stream, "none or serial: OCP artifacts on the serial line"),
    KEY(wall_idle, wall_idle, check_wall, "a wall meter's reading in watts, the machine idle"),
    KEY(wall_load, wall_load, check_wall, "a wall meter's reading in watts under full load"),
    KEY(collect, collect, check_collect, "https://HOST[:PORT]/PATH/: the fleet's collector"),
    KEY(collect_ca, collect_ca, check_credential, "the collector's CA certificate (PEM file)"),
    KEY(collect_user, collect_user, check_collect_user, "the collector's user name"),
    KEY(collect_password, collect_password, check_credential, "the collector's password"),
    KEY(collect_wait, collect_wait, check_collect_wait,
	"0 or a duration: how long the plan's end waits for the collector"),
    KEY(syslog, syslog, check_syslog, "tls://HOST[:PORT]: the OCP stream as syslog"),
    KEY(ip, ip, check_ip, "dhcp, off or the kernel's ip= syntax: the boot port's address"),
    KEY(inspect, inspect, check_inspect,
	"http(s)://...: ironic-inspector's callback (Ironic's ipa-inspection-callback-url)"),
    KEY(ironic_node, ironic_node, check_uuid, "the Ironic node's UUID, for a ramdisk deploy"),
};

const struct ps_core_key *ps_config_core_keys(size_t *n)
{
	static struct ps_core_key out[PS_ARRAY_SIZE(keys)];

	for (size_t i = 0; i < PS_ARRAY_SIZE(keys); i++)
		out[i] = (struct ps_core_key){keys[i].name, keys[i].help};
	*n = PS_ARRAY_SIZE(keys);
	return out;
}

/* Every step's settings, from the steps compiled in (section ps_steps, as the registry reads it).
 */
extern const struct ps_step_ops *const __start_ps_steps[] __attribute__((weak));
extern const struct ps_step_ops *const __stop_ps_steps[] __attribute__((weak));

const struct ps_setting *const *ps_settings(size_t *n)
{
	static const struct ps_setting *list[PS_STEP_SETTINGS_MAX];
	static size_t count;
	static bool done;

	if (!done && __start_ps_steps && __stop_ps_steps) {
		for (const struct ps_step_ops *const *o = __start_ps_steps; o < __stop_ps_steps;
		     o++) {
			for (size_t k = 0; *o && (*o)->settings && (*o)->settings[k]; k++) {
				const struct ps_setting *st = (*o)->settings[k];
				bool taken = false;

				for (size_t i = 0; i < PS_ARRAY_SIZE(keys); i++)
					taken = taken || strcmp(keys[i].name, st->key) == 0;
				for (size_t i = 0; i < count; i++)
					taken = taken || strcmp(list[i]->key, st->key) == 0;
				if (!taken && count < PS_STEP_SETTINGS_MAX &&
				    st->size <= PS_SETTING_VALUE_MAX && st->parse)
					list[count++] = st;
			}
		}
	}
	done = true;
	*n = count;
	return list;
}

static const struct config_key *find_key(const char *name)
{
	for (size_t i = 0; i < PS_ARRAY_SIZE(keys); i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static struct ps_setting_slot *find_slot(const struct ps_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_step; i++)
		if (strcmp(cfg->step[i].s->key, name) == 0)
			return (struct ps_setting_slot *)&cfg->step[i];
	return NULL;
}

static char *field(struct ps_config *cfg, const struct config_key *k)
{
	return (char *)cfg + k->off;
}

/* What the core keeps parsed: the scratch list, and net=, peer=, mtu= (each checked before). */
static void core_values(struct ps_config *cfg)
{
	struct ps_net_want *w = &cfg->net_want;
	char why[160];

	if (ps_scratch_parse(cfg->scratch, &cfg->scratch_list, why, sizeof(why)) < 0)
		memset(&cfg->scratch_list, 0, sizeof(cfg->scratch_list));
	memset(w, 0, sizeof(*w));
	w->mtu = -1;
	if (ps_net_spec_parse(cfg->net, &w->net, why, sizeof(why)) < 0)
		memset(&w->net, 0, sizeof(w->net));
	if (ps_peer_spec_parse(cfg->peer, &w->peer, &w->peer_port, why, sizeof(why)) < 0)
		w->peer_port = 0;
	if (ps_mtu_spec_parse(cfg->mtu, &w->mtu) < 0)
		w->mtu = -1;
}

/* A step setting's text into its slot: parsed first, kept only when it parses. */
static int set_step(struct ps_setting_slot *sl, const char *value, const char *v, char *why,
		    size_t whylen)
{
	unsigned char parsed[PS_SETTING_VALUE_MAX];
	char reason[200] = "";

	memset(parsed, 0, sizeof(parsed));
	if (strlen(value) >= sizeof(sl->text)) {
		snprintf(why, whylen, "%s=%s is too long", sl->s->key, v);
		return -EINVAL;
	}
	if (*value && sl->s->parse(value, parsed, reason, sizeof(reason)) < 0) {
		snprintf(why, whylen, "%s=%s: %s", sl->s->key, v, reason[0] ? reason : sl->s->help);
		return -EINVAL;
	}
	snprintf(sl->text, sizeof(sl->text), "%s", value);
	memcpy(sl->value, parsed, sizeof(sl->value));
	return 0;
}

int ps_config_set(struct ps_config *cfg, const char *key, const char *value, char *why,
		  size_t whylen)
{
	const struct config_key *k = find_key(key);
	struct ps_setting_slot *sl = k ? NULL : find_slot(cfg, key);
	char v[48], known[400];
	size_t o = 0;
	int ret;

	quote(v, sizeof(v), value, strlen(value));
	if (ps_config_secret(key))
		snprintf(v, sizeof(v), "(not shown)");
	if (sl)
		return set_step(sl, value, v, why, whylen);
	if (!k) {
		char kq[48];

		for (size_t i = 0; i < PS_ARRAY_SIZE(keys) && o < sizeof(known); i++)
			o += (size_t)snprintf(known + o, sizeof(known) - o, "%s%s", i ? ", " : "",
					      keys[i].name);
		for (size_t i = 0; i < cfg->n_step && o < sizeof(known); i++)
			o += (size_t)snprintf(known + o, sizeof(known) - o, ", %s",
					      cfg->step[i].s->key);
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
	core_values(cfg);
	return 0;
}

const char *ps_config_text(const struct ps_config *cfg, const char *key)
{
	const struct config_key *k = find_key(key);
	const struct ps_setting_slot *sl;

	if (k)
		return (const char *)cfg + k->off;
	sl = find_slot(cfg, key);
	return sl ? sl->text : NULL;
}

/* The text a message may quote: a secret key's only as "(not shown)". */
static const char *current(struct ps_config *cfg, const char *key)
{
	const char *t = ps_config_text(cfg, key);

	if (t && t[0] && ps_config_secret(key))
		return "(not shown)";
	return t ? t : "";
}

/*
 * What a rejected value leaves in place, with the default named: "burnin=10m,
 * the default", "the default (burnin unset: HELP)" when the default is unset,
 * "burnin=5m (set earlier; the default is 10m)".
 */
static const char *kept(struct ps_config *cfg, const char *key, char *buf, size_t len)
{
	const struct config_key *k = find_key(key);
	const struct ps_setting_slot *sl = k ? NULL : find_slot(cfg, key);
	const char *now = current(cfg, key), *help = k ? k->help : sl ? sl->s->help : "";
	const char *def = sl ? (sl->s->def ? sl->s->def : "") : "";
	struct ps_config *d = k ? malloc(sizeof(*d)) : NULL;

	if (d) {
		ps_config_defaults(d);
		def = current(d, key);
	}
	if (strcmp(now, def) == 0 && !def[0])
		snprintf(buf, len, "the default (%s unset: %s)", key, help);
	else if (strcmp(now, def) == 0)
		snprintf(buf, len, "%s=%s, the default", key, now);
	else if (!def[0])
		snprintf(buf, len, "%s=%s (set earlier; by default unset: %s)", key, now, help);
	else
		snprintf(buf, len, "%s=%s (set earlier; the default is %s)", key, now, def);
	free(d);
	return buf;
}

const char *ps_config_shown(const struct ps_config *cfg, const char *key, char *buf, size_t len)
{
	const char *t = ps_config_text(cfg, key);

	if (!t || !t[0] || !ps_config_secret(key))
		return t;
	if (strcmp(key, "collect") == 0)
		ps_config_redact_url(t, buf, len);
	else
		snprintf(buf, len, "(not shown)");
	return buf;
}

struct ps_wall ps_config_wall(const struct ps_config *cfg)
{
	struct ps_wall w = {NAN, NAN, "probestick.cfg", NULL};

	if (!cfg)
		return w;
	if (ps_wall_parse(cfg->wall_idle, &w.idle_w) < 0)
		w.idle_w = NAN;
	if (ps_wall_parse(cfg->wall_load, &w.load_w) < 0)
		w.load_w = NAN;
	if (cfg->wall_source[0])
		w.source = cfg->wall_source;
	if (cfg->wall_entered[0])
		w.entered = cfg->wall_entered;
	return w;
}

struct ps_collect_keys ps_config_collect_keys(const struct ps_config *cfg)
{
	return (struct ps_collect_keys){cfg->collect,	       cfg->collect_ca, cfg->collect_user,
					cfg->collect_password, cfg->syslog,	cfg->ip,
					cfg->collect_wait,     cfg->inspect,	cfg->ironic_node};
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
		char key[40], value[600], why[256], shown[48], kept_buf[300];
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
			warn(warnings, "%s line %d: %s: keeping %s", source, lineno, why,
			     kept(cfg, key, kept_buf, sizeof(kept_buf)));
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
	char word[512], why[256], kept_buf[300];
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
			warn(warnings, "kernel command line: probestick.%s: keeping %s", why,
			     kept(cfg, key, kept_buf, sizeof(kept_buf)));
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

/* A setting's default parsed once, for a step run without a config (tests) or not in it. */
static const void *default_value(const struct ps_setting *s)
{
	static struct {
		const struct ps_setting *s;
		_Alignas(16) unsigned char value[PS_SETTING_VALUE_MAX];
	} cache[PS_STEP_SETTINGS_MAX];
	static const unsigned char zeros[PS_SETTING_VALUE_MAX];
	static size_t n;
	char why[200];

	for (size_t i = 0; i < n; i++)
		if (cache[i].s == s)
			return cache[i].value;
	if (n == PS_STEP_SETTINGS_MAX || s->size > PS_SETTING_VALUE_MAX)
		return zeros;
	cache[n].s = s;
	if (s->def && *s->def && s->parse(s->def, cache[n].value, why, sizeof(why)) < 0)
		memset(cache[n].value, 0, sizeof(cache[n].value));
	return cache[n++].value;
}

const void *ps_setting(const struct ps_ctx *ctx, const struct ps_setting *s)
{
	const struct ps_setting_slot *sl = ctx && ctx->cfg ? find_slot(ctx->cfg, s->key) : NULL;

	return sl ? sl->value : default_value(s);
}

const char *ps_setting_text(const struct ps_ctx *ctx, const struct ps_setting *s)
{
	const struct ps_setting_slot *sl = ctx && ctx->cfg ? find_slot(ctx->cfg, s->key) : NULL;

	return sl ? sl->text : s->def ? s->def : "";
}
