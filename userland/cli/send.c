/*
 * send.c - `probestick send`: deliver run folders to the collector as a
 * netbooted machine does (temporary name and MOVE, report.json last), from
 * a stick whose runs did not get there, or from any reports folder.
 */
#include "cli/send.h"
#include "collect/collect.h"
#include "core/config.h"
#include "core/plan.h"
#include "lib/util.h"
#include "report/report.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: probestick send [--cfg FILE] [--collect URL] [--ca FILE] [--user NAME]\n"
    "                       [--password-file FILE] [--syslog TARGET] [--wait SECONDS] PATH...\n"
    "  Deliver run folders to the collector: PATH is a run folder, a machine's\n"
    "  folder, a reports folder or a stick (every run below it). Settings as in\n"
    "  probestick.cfg (--cfg FILE reads one: collect=, collect_ca=, ...); the\n"
    "  password comes from --password-file or PROBESTICK_COLLECT_PASSWORD, never\n"
    "  from the command line. --wait: how long to keep trying (default 60 s).\n";

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Every run folder at or below path (a run, a machine, a reports root, a stick). */
static int add_runs(struct ps_collect *c, const char *path, int depth, size_t *n)
{
	char base[PATH_MAX], sub[PATH_MAX];
	const char *slash = strrchr(path, '/');
	DIR *d;
	struct dirent *e;

	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : path);
	if (ps_report_dir_name(base)) {
		(*n)++;
		return ps_collect_add_run(c, path);
	}
	if (depth > 2 || !(d = opendir(path)))
		return 0;
	snprintf(sub, sizeof(sub), "%.4000s/reports", path);
	if (depth == 0 && is_dir(sub)) {
		closedir(d);
		return add_runs(c, sub, 1, n);
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%.3800s/%.255s", path, e->d_name);
		if (is_dir(sub))
			add_runs(c, sub, depth + 1, n);
	}
	closedir(d);
	return 0;
}

static void say(void *arg, bool problem, const char *line)
{
	fprintf(problem ? stderr : stdout, "%s\n", line);
}

static int set(struct ps_config *cfg, const char *key, const char *value)
{
	char why[400];

	if (ps_config_set(cfg, key, value, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "probestick send: %s\n", why);
	return -1;
}

int ps_send_main(int argc, char **argv)
{
	struct ps_config cfg;
	json_object *warnings = json_object_new_array();
	const char *paths[256];
	size_t npaths = 0, runs = 0;
	double wait = 60, t0;
	struct ps_collect *c;
	bool ok;
	const char *env = getenv("PROBESTICK_COLLECT_PASSWORD");

	ps_config_defaults(&cfg);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int ret = 0;

		if (a[0] != '-') {
			if (npaths < 256)
				paths[npaths++] = a;
			continue;
		}
		if (!v) {
			fprintf(stderr, "probestick send: %s needs a value\n%s", a, usage);
			json_object_put(warnings);
			return 2;
		}
		i++;
		if (strcmp(a, "--cfg") == 0) {
			ps_config_load(&cfg, v, NULL, warnings);
		} else if (strcmp(a, "--collect") == 0) {
			ret = set(&cfg, "collect", v);
		} else if (strcmp(a, "--ca") == 0) {
			ret = set(&cfg, "collect_ca", v);
		} else if (strcmp(a, "--user") == 0) {
			ret = set(&cfg, "collect_user", v);
		} else if (strcmp(a, "--syslog") == 0) {
			ret = set(&cfg, "syslog", v);
		} else if (strcmp(a, "--password-file") == 0) {
			char pw[256];

			if (ps_read_str(v, pw, sizeof(pw)) < 0) {
				fprintf(stderr, "probestick send: cannot read %s\n", v);
				ret = -1;
			} else {
				ret = set(&cfg, "collect_password", pw);
			}
			memset(pw, 0, sizeof(pw));
		} else if (strcmp(a, "--wait") == 0) {
			char *end;

			wait = strtod(v, &end);
			if (*end || wait < 0)
				ret = -1;
		} else {
			fprintf(stderr, "probestick send: unknown option %s\n%s", a, usage);
			ret = -1;
		}
		if (ret < 0) {
			json_object_put(warnings);
			return 2;
		}
	}
	for (size_t i = 0; i < json_object_array_length(warnings); i++)
		fprintf(stderr, "probestick send: %s\n",
			json_object_get_string(json_object_array_get_idx(warnings, i)));
	json_object_put(warnings);
	if (env && env[0] && !cfg.collect_password[0] && set(&cfg, "collect_password", env) < 0)
		return 2;
	if (!npaths || (!cfg.collect[0] && !cfg.syslog[0])) {
		fputs(usage, stderr);
		return 2;
	}
	c = ps_collect_start(&(struct ps_collect_opts){
	    .keys = ps_config_collect_keys(&cfg), .views = ps_views(), .root = "", .say = say});
	memset(cfg.collect_password, 0, sizeof(cfg.collect_password));
	if (!c)
		return 1;
	t0 = ps_mono_now();
	for (size_t i = 0; i < npaths; i++)
		add_runs(c, paths[i], 0, &runs);
	if (!runs)
		fprintf(stderr, "probestick send: no run folder below %s\n", paths[0]);
	ok = runs && ps_collect_settle(c, wait);
	printf("send: %zu run%s, %llu bytes in %.1f s: %s\n", runs, runs == 1 ? "" : "s",
	       ps_collect_bytes(c), ps_mono_now() - t0, ok ? "all delivered" : "NOT all delivered");
	ps_collect_free(c);
	return ok ? 0 : 1;
}
