/* config.c - parse probestick.cfg and the kernel command line into struct ps_config.
 * Pure string functions, except ps_config_load which reads the two files. */
#include "config.h"
#include "util.h"

#include <autoconf.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const plan_values[] = {"quick", "full", "menu"};
static const char *const then_values[] = {"poweroff", "reboot", "menu", "shell"};
static const unsigned int serial_speeds[] = {1200,  2400,   4800,   9600,   19200, 38400,
					     57600, 115200, 230400, 460800, 921600};

void ps_config_defaults(struct ps_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->plan, sizeof(cfg->plan), "%s", CONFIG_DEFAULT_PLAN);
	snprintf(cfg->then, sizeof(cfg->then), "menu");
	snprintf(cfg->console, sizeof(cfg->console), "tty0,ttyS0");
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
	json_object_array_add(warnings, json_object_new_string(buf));
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

int ps_config_set(struct ps_config *cfg, const char *key, const char *value, char *why,
		  size_t whylen)
{
	char v[40];

	quote(v, sizeof(v), value, strlen(value));
	if (strcmp(key, "plan") == 0) {
		if (pick(value, plan_values, PS_ARRAY_SIZE(plan_values)) < 0) {
			snprintf(why, whylen, "plan=%s is not one of quick, full, menu", v);
			return -EINVAL;
		}
		snprintf(cfg->plan, sizeof(cfg->plan), "%s", value);
		return 0;
	}
	if (strcmp(key, "then") == 0) {
		if (pick(value, then_values, PS_ARRAY_SIZE(then_values)) < 0) {
			snprintf(why, whylen, "then=%s is not one of poweroff, reboot, menu, shell",
				 v);
			return -EINVAL;
		}
		snprintf(cfg->then, sizeof(cfg->then), "%s", value);
		return 0;
	}
	if (strcmp(key, "console") == 0) {
		struct ps_term_spec terms[PS_MAX_TERMS];
		char reason[128];

		if (strlen(value) >= sizeof(cfg->console)) {
			snprintf(why, whylen, "console=%s is too long", v);
			return -EINVAL;
		}
		if (ps_console_spec_parse(value, terms, PS_MAX_TERMS, reason, sizeof(reason)) < 0) {
			snprintf(why, whylen, "console=%s: %s", v, reason);
			return -EINVAL;
		}
		snprintf(cfg->console, sizeof(cfg->console), "%s", value);
		return 0;
	}
	snprintf(why, whylen, "unknown key '%s' (known: plan, then, console)", key);
	return -ENOENT;
}

static const char *current(const struct ps_config *cfg, const char *key)
{
	if (strcmp(key, "plan") == 0)
		return cfg->plan;
	if (strcmp(key, "then") == 0)
		return cfg->then;
	return cfg->console;
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

	while (pos < len) {
		const char *line = text + pos, *eq;
		size_t n = 0, klen, vstart, vlen;
		char key[40], value[200], why[256], shown[48];
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
			warn(warnings, "%s line %d: '%s' has no '=': ignored (expected key=value)",
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
			warn(warnings, "%s line %d: '%s' is not a valid key=value line: ignored",
			     source, lineno, shown);
			continue;
		}
		memcpy(key, line, klen);
		key[klen] = '\0';
		memcpy(value, line + vstart, vlen);
		value[vlen] = '\0';
		ret = ps_config_set(cfg, key, value, why, sizeof(why));
		if (ret == -EINVAL)
			warn(warnings, "%s line %d: %s: keeping %s=%s", source, lineno, why, key,
			     current(cfg, key));
		else if (ret < 0)
			warn(warnings, "%s line %d: %s: ignored", source, lineno, why);
	}
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
		if (ret == -EINVAL)
			warn(warnings, "kernel command line: probestick.%s: keeping %s=%s", why,
			     key, current(cfg, key));
		else if (ret < 0)
			warn(warnings, "kernel command line: probestick.%s: %s: ignored", key, why);
	}
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
