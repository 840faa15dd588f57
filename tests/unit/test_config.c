/* test_config.c - probestick.cfg and kernel command line parsing, including damaged input. */
/* link: steps */
#include "check.h"
#include "lib/util.h"
#include "lib/json.h"
#include "core/config.h"

#include <errno.h>

#include <stdlib.h>
#include <string.h>

static int count(json_object *w)
{
	return (int)json_object_array_length(w);
}

static const char *warning(json_object *w, int i)
{
	return json_object_get_string(json_object_array_get_idx(w, i));
}

struct cfg_case {
	const char *text;
	const char *plan, *then, *console;
	int warnings;
	const char *warning_has; /* substring of the first warning, or NULL */
};

static const struct cfg_case cfg_cases[] = {
    {"", "menu", "menu", "tty0,ttyS0", 0, NULL},
    {"plan=quick\nthen=poweroff\n", "quick", "poweroff", "tty0,ttyS0", 0, NULL},
    {"  plan =  full  \r\nthen\t=\treboot\r\n", "full", "reboot", "tty0,ttyS0", 0, NULL},
    {"# comment\n\n   \nplan=quick # trailing\n", "quick", "menu", "tty0,ttyS0", 0, NULL},
    {"console=ttyS0,115200\n", "menu", "menu", "ttyS0,115200", 0, NULL},
    {"console=tty0,ttyS1,9600", "menu", "menu", "tty0,ttyS1,9600", 0, NULL},
    {"plan=fast\n", "menu", "menu", "tty0,ttyS0", 1, "line 1: plan=fast is not one of"},
    {"then=halt\n", "menu", "menu", "tty0,ttyS0", 1, "keeping then=menu"},
    {"colour=blue\n", "menu", "menu", "tty0,ttyS0", 1, "line 1: unknown key 'colour'"},
    {"plan quick\n", "menu", "menu", "tty0,ttyS0", 1, "has no '='"},
    {"\nplan=\n", "menu", "menu", "tty0,ttyS0", 1, "line 2: plan= is not"},
    {"=quick\n", "menu", "menu", "tty0,ttyS0", 1, "not a valid key=value"},
    {"console=ttyS0,12345\n", "menu", "menu", "tty0,ttyS0", 1, "not a serial speed"},
    {"console=115200\n", "menu", "menu", "tty0,ttyS0", 1, "does not follow a terminal"},
    {"console=../etc/passwd\n", "menu", "menu", "tty0,ttyS0", 1, "not a terminal name"},
    {"console=tty0,\n", "menu", "menu", "tty0,ttyS0", 1, "console="},
    {"plan=quick\nplan=full\n", "full", "menu", "tty0,ttyS0", 0, NULL},
    /* A Windows editor's UTF-8 byte order mark makes the first key unknown: said so. */
    {"\xef\xbb\xbfplan=quick\nthen=shell\n", "menu", "shell", "tty0,ttyS0", 1, "line 1"},
};

static void test_cfg_table(void)
{
	for (size_t i = 0; i < sizeof(cfg_cases) / sizeof(cfg_cases[0]); i++) {
		const struct cfg_case *c = &cfg_cases[i];
		struct ps_config cfg;
		json_object *w = json_object_new_array();

		ps_config_defaults(&cfg);
		ps_config_parse_text(&cfg, c->text, strlen(c->text), "probestick.cfg", w);
		CHECK_STR(cfg.plan, c->plan);
		CHECK_STR(cfg.then, c->then);
		CHECK_STR(cfg.console, c->console);
		CHECK_INT(count(w), c->warnings);
		if (c->warning_has && count(w) > 0 && !strstr(warning(w, 0), c->warning_has)) {
			fprintf(stderr, "case %zu: warning '%s' lacks '%s'\n", i, warning(w, 0),
				c->warning_has);
			CHECK(0);
		}
		json_object_put(w);
	}
}

static void test_cfg_garbage(void)
{
	struct ps_config cfg;
	json_object *w = json_object_new_array();
	char garbage[4096];
	char *longline;
	size_t n = 100000;

	/* binary garbage with NULs: warnings, no crash, defaults kept */
	srand(1);
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(rand() & 0xff);
	ps_config_defaults(&cfg);
	ps_config_parse_text(&cfg, garbage, sizeof(garbage), "probestick.cfg", w);
	CHECK(count(w) > 0);
	CHECK(strcmp(cfg.plan, "quick") == 0 || strcmp(cfg.plan, "full") == 0 ||
	      strcmp(cfg.plan, "menu") == 0);
	for (int i = 0; i < count(w); i++)
		CHECK(strlen(warning(w, i)) < 300);
	json_object_put(w);

	/* a 100 kB line, then a good one */
	w = json_object_new_array();
	longline = malloc(n + 32);
	memset(longline, 'x', n);
	memcpy(longline, "plan=", 5);
	strcpy(longline + n, "\nthen=reboot\n");
	ps_config_defaults(&cfg);
	ps_config_parse_text(&cfg, longline, strlen(longline), "probestick.cfg", w);
	CHECK_STR(cfg.plan, "menu");
	CHECK_STR(cfg.then, "reboot");
	CHECK_INT(count(w), 1);
	CHECK(strlen(warning(w, 0)) < 300);
	free(longline);
	json_object_put(w);

	/* a NUL inside a line */
	w = json_object_new_array();
	ps_config_defaults(&cfg);
	ps_config_parse_text(&cfg, "plan=qu\0ick\nthen=shell\n", 23, "probestick.cfg", w);
	CHECK_STR(cfg.plan, "menu");
	CHECK_STR(cfg.then, "shell");
	CHECK_INT(count(w), 1);
	json_object_put(w);
}

static void test_cmdline(void)
{
	struct ps_config cfg;
	json_object *w = json_object_new_array();

	ps_config_defaults(&cfg);
	ps_config_parse_text(&cfg, "plan=full\nthen=reboot\n", 22, "probestick.cfg", w);
	ps_config_parse_cmdline(
	    &cfg,
	    "BOOT_IMAGE=/vmlinuz console=tty0 console=ttyS0,115200 "
	    "probestick.partuuid=1234-01 probestick.break=shell probestick.plan=quick "
	    "probestick.then=poweroff quiet\n",
	    w);
	CHECK_STR(cfg.plan, "quick");
	CHECK_STR(cfg.then, "poweroff");
	CHECK_STR(cfg.console, "tty0,ttyS0");
	CHECK_INT(count(w), 0);

	ps_config_parse_cmdline(&cfg, "probestick.plan=bogus probestick.colour=red probestick.then",
				w);
	CHECK_STR(cfg.plan, "quick");
	CHECK_INT(count(w), 3);
	CHECK(strstr(warning(w, 0), "kernel command line") != NULL);
	CHECK(strstr(warning(w, 0), "keeping plan=quick (set earlier; the default is menu)") !=
	      NULL);
	CHECK(strstr(warning(w, 1), "colour") != NULL);
	CHECK(strstr(warning(w, 2), "no '='") != NULL);

	ps_config_parse_cmdline(&cfg, "probestick.console=\"ttyS1,57600\" x=\"a b\"", w);
	CHECK_STR(cfg.console, "ttyS1,57600");
	CHECK_INT(count(w), 3);
	json_object_put(w);
}

static void test_load_files(void)
{
	struct ps_config cfg;
	json_object *w = json_object_new_array();

	ps_config_defaults(&cfg);
	ps_config_load(&cfg, FIXTURES "/core/cfg/windows.cfg", FIXTURES "/core/cfg/cmdline", w);
	CHECK_STR(cfg.plan, "full");	 /* file said quick, command line full */
	CHECK_STR(cfg.then, "poweroff"); /* from the file */
	CHECK_STR(cfg.console, "ttyS0,115200");
	CHECK_INT(count(w), 1); /* the file's unknown key */
	json_object_put(w);

	w = json_object_new_array();
	ps_config_defaults(&cfg);
	ps_config_load(&cfg, FIXTURES "/core/cfg/missing.cfg", NULL, w);
	CHECK_STR(cfg.plan, "menu");
	CHECK_INT(count(w), 1);
	CHECK(strstr(warning(w, 0), "missing.cfg: No such file or directory") != NULL);
	json_object_put(w);
}

static void test_console_spec(void)
{
	struct ps_term_spec t[PS_MAX_TERMS];
	char why[128];

	CHECK_INT(ps_console_spec_parse("tty0,ttyS0,115200", t, PS_MAX_TERMS, why, sizeof(why)), 2);
	CHECK_STR(t[0].name, "tty0");
	CHECK_INT(t[0].speed, 0);
	CHECK_STR(t[1].name, "ttyS0");
	CHECK_INT(t[1].speed, 115200);
	CHECK_INT(ps_console_spec_parse("", t, PS_MAX_TERMS, why, sizeof(why)), -EINVAL);
	CHECK_INT(ps_console_spec_parse("a,b,c", t, 2, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "more than 2") != NULL);
	CHECK_INT(ps_console_spec_parse("ttyS0,9600,9600", t, PS_MAX_TERMS, why, sizeof(why)),
		  -EINVAL);
}

/* A file of random bytes: the defaults stay, a handful of warnings per kind and
 * one line with the count of the rest, every one valid UTF-8 without control bytes. */
static void test_cfg_random_bytes(void)
{
	struct ps_config cfg, def;
	json_object *w = json_object_new_array();
	static char text[200000];
	unsigned int seed = 12345;
	bool summary = false;

	for (size_t i = 0; i < sizeof(text); i++) {
		seed = seed * 1103515245u + 12345u;
		text[i] = (char)(seed >> 16);
	}
	ps_config_defaults(&cfg);
	ps_config_defaults(&def);
	ps_config_parse_text(&cfg, text, sizeof(text), "probestick.cfg", w);
	CHECK_STR(cfg.plan, def.plan);
	CHECK_STR(cfg.then, def.then);
	CHECK(json_object_array_length(w) <= 4 * 5 + 4);
	for (size_t i = 0; i < json_object_array_length(w); i++) {
		const char *m = json_object_get_string(json_object_array_get_idx(w, i));
		char *clean = ps_text_clean_dup(m, strlen(m), NULL);

		CHECK_STR(clean, m);
		free(clean);
		summary = summary || strstr(m, "more lines") != NULL;
	}
	CHECK(summary);
	json_object_put(w);
}

/* memtest= and burnin=: the sizes, shares and durations they take, and what they refuse. */
static void test_memtest_burnin(void)
{
	struct ps_config cfg;
	uint64_t bytes;
	unsigned int pct, sec;
	char why[256];

	CHECK_INT(ps_memtest_spec_parse("256M", &bytes, &pct), 0);
	CHECK(bytes == 256ULL << 20 && pct == 0);
	CHECK_INT(ps_memtest_spec_parse("2GiB", &bytes, &pct), 0);
	CHECK(bytes == 2ULL << 30);
	CHECK_INT(ps_memtest_spec_parse("25%", &bytes, &pct), 0);
	CHECK(bytes == 0 && pct == 25);
	CHECK_INT(ps_memtest_spec_parse("91%", &bytes, &pct), -EINVAL);
	CHECK_INT(ps_memtest_spec_parse("512K", &bytes, &pct), -EINVAL); /* under 1 MiB */
	CHECK_INT(ps_memtest_spec_parse("256", &bytes, &pct), -EINVAL);	 /* no unit */
	CHECK_INT(ps_memtest_spec_parse("-1G", &bytes, &pct), -EINVAL);
	CHECK_INT(ps_memtest_spec_parse("1Gx", &bytes, &pct), -EINVAL);
	CHECK_INT(ps_duration_parse("90s", &sec), 0);
	CHECK_INT(sec, 90);
	CHECK_INT(ps_duration_parse("10m", &sec), 0);
	CHECK_INT(sec, 600);
	CHECK_INT(ps_duration_parse("1h30m", &sec), 0);
	CHECK_INT(sec, 5400);
	CHECK_INT(ps_duration_parse("60", &sec), 0);
	CHECK_INT(sec, 60);
	CHECK_INT(ps_duration_parse("5s", &sec), -EINVAL); /* under 10 s */
	CHECK_INT(ps_duration_parse("8d", &sec), -EINVAL);
	CHECK_INT(ps_duration_parse("1h30", &sec), -EINVAL); /* the 30 has no unit */
	CHECK_INT(ps_duration_parse("", &sec), -EINVAL);
	ps_config_defaults(&cfg);
	CHECK_INT(ps_config_set(&cfg, "memtest", "10%", why, sizeof(why)), 0);
	CHECK_STR(ps_config_text(&cfg, "memtest"), "10%");
	CHECK_INT(ps_config_set(&cfg, "burnin", "1h", why, sizeof(why)), 0);
	CHECK_STR(ps_config_text(&cfg, "burnin"), "1h");
	CHECK_INT(ps_config_set(&cfg, "burnin", "forever", why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "burnin=forever") != NULL);
	CHECK_STR(ps_config_text(&cfg, "burnin"), "1h");
	/* the wall meter's readings: watts as a person types them, never a guess */
	CHECK_INT(ps_config_set(&cfg, "wall_idle", "105", why, sizeof(why)), 0);
	CHECK_INT(ps_config_set(&cfg, "wall_load", "205.5 W", why, sizeof(why)), 0);
	CHECK_STR(cfg.wall_load, "205.5 W");
	CHECK_INT(ps_config_set(&cfg, "wall_load", "lots", why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "'lots' is not a wall meter's reading in watts") != NULL);
	CHECK_STR(cfg.wall_load, "205.5 W");
	CHECK_INT(ps_config_set(&cfg, "wall_idle", "", why, sizeof(why)), 0);
	CHECK_STR(cfg.wall_idle, "");
}

/* A rejected value's warning names what stays and what the default is. */
static void test_keeping_names_default(void)
{
	static const char text[] = "burnin=forever\nthen=halt\nburnin=10m\nburnin=x\n";
	struct ps_config cfg;
	json_object *w = json_object_new_array();

	ps_config_defaults(&cfg);
	ps_config_parse_text(&cfg, text, strlen(text), "probestick.cfg", w);
	CHECK_INT(count(w), 3);
	/* burnin's default is unset: the plan's own budget, which its help names */
	CHECK(strstr(warning(w, 0), "keeping the default (burnin unset: ") != NULL);
	CHECK(strstr(warning(w, 0), "full plan: 60s") != NULL);
	CHECK(strstr(warning(w, 1), "keeping then=menu, the default") != NULL);
	CHECK(strstr(warning(w, 2), "keeping burnin=10m (set earlier; by default unset: ") != NULL);
	json_object_put(w);
}

int main(void)
{
	test_memtest_burnin();
	test_keeping_names_default();
	test_cfg_random_bytes();
	test_cfg_table();
	test_cfg_garbage();
	test_cmdline();
	test_load_files();
	test_console_spec();
	return check_done("test_config");
}
