/* cli.c - the probestick commands: run, info, menu, coldplug, boot, show, steps.
 * Errors say what happened, to what, and what to do; exit 2 for usage, 1 for failure. */
#include "version.h"
#include "bench.h"
#include "cli.h"
#include "coldplug.h"
#include "config.h"
#include "console.h"
#include "machine_id.h"
#include "menu.h"
#include "plan.h"
#include "probes.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <probestick.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define RUN_REPORTS "/run/probestick/reports"

static const char usage[] =
    "usage: probestick [--root DIR] COMMAND [OPTIONS]\n"
    "\n"
    "  run --plan quick|full [--steps a,b] [--out DIR] [--stick DIR]\n"
    "                        run a plan and write a report folder below DIR\n"
    "  info                  print the inventory as text; nothing is written\n"
    "  menu [--stick DIR] [--out DIR]\n"
    "                        the interactive menu on this terminal\n"
    "  coldplug [--settle SECONDS] [--json PATH]\n"
    "                        load drivers for the hardware present, then probestick.ko\n"
    "  boot --stick DIR      what /init runs: probestick.cfg and /proc/cmdline decide;\n"
    "                        the last line of output is then=poweroff|reboot|shell|menu\n"
    "  show [REPORT_DIR]     print the latest (or the given) report\n"
    "  steps                 list the compiled-in steps\n"
    "  bench probes [...]    the probes' overhead, IOPS with them off and on (make bench);\n"
    "                        'probestick bench' lists its options\n"
    "\n"
    "  --root DIR            read /sys, /proc and /dev below DIR (fixture trees)\n"
    "  --out DIR             reports root (default STICK/reports with --stick, else\n"
    "                        " RUN_REPORTS ")\n";

struct opts {
	const char *root;
	const char *plan;
	const char *steps;
	const char *out;
	const char *stick;
	const char *json;
	double settle;
	const char *positional;
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "probestick: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'probestick --help'.\n");
	return 2;
}

/* Fills o from argv; returns -1 on success or an exit code. */
static int parse_opts(int argc, char **argv, const char *cmd, const char *allowed, struct opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *name = a + 2;
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (strncmp(a, "--", 2) != 0) {
			if (strstr(allowed, "positional") && !o->positional) {
				o->positional = a;
				continue;
			}
			return usage_error("unexpected argument '%s'", a);
		}
		if (!strstr(allowed, name) || strcmp(name, "positional") == 0) {
			fprintf(stderr, "probestick %s: unknown option %s\n", cmd, a);
			fprintf(stderr, "Try 'probestick --help'.\n");
			return 2;
		}
		if (!val) {
			fprintf(stderr, "probestick %s: %s needs a value\n", cmd, a);
			return 2;
		}
		i++;
		if (strcmp(name, "plan") == 0) {
			o->plan = val;
		} else if (strcmp(name, "steps") == 0) {
			o->steps = val;
		} else if (strcmp(name, "out") == 0) {
			o->out = val;
		} else if (strcmp(name, "stick") == 0) {
			o->stick = val;
		} else if (strcmp(name, "json") == 0) {
			o->json = val;
		} else if (strcmp(name, "settle") == 0) {
			char *end;

			o->settle = strtod(val, &end);
			if (*end || o->settle < 0 || o->settle > 600)
				return usage_error("--settle takes seconds from 0 to 600, not '%s'",
						   val);
		}
	}
	return -1;
}

static int identify(const char *root, json_object *machine, json_object *nics)
{
	int ret = ps_probe_machine(root, machine);
	int ret2 = ps_probe_nics(root, nics);

	return ret < 0 ? ret : ret2 < 0 ? ret2 : 0;
}

struct session {
	const char *root;
	char out_root[PATH_MAX];
	struct ps_config cfg;
	json_object *warnings;
	struct ps_console *con;
	bool key_aborts;
};

static int run_plan(void *arg, const char *plan, const char *steps_csv, char *dir, size_t len)
{
	struct session *s = arg;
	size_t n_all, n;
	const struct ps_step_ops *const *all = ps_registry(&n_all);
	const struct ps_step_ops **list = calloc(n_all ? n_all : 1, sizeof(*list));
	struct ps_run_result res;
	struct ps_run_opts o = {
	    .root = s->root,
	    .out_root = s->out_root,
	    .plan = steps_csv ? "custom" : plan,
	    .cfg = &s->cfg,
	    .warnings = s->warnings,
	    .con = s->con,
	    .key_aborts = s->key_aborts,
	    .identify = identify,
	};
	char err[256];
	int ret;

	if (!list)
		return -ENOMEM;
	ret = ps_plan_select(all, n_all, plan, steps_csv, list, &n, err, sizeof(err));
	if (ret < 0) {
		ps_console_printf(s->con, "probestick: %s\n", err);
		free(list);
		return ret;
	}
	o.steps = list;
	o.n_steps = n;
	ret = ps_plan_run(&o, &res);
	if (dir)
		snprintf(dir, len, "%s", res.dir);
	free(list);
	return ret;
}

static void session_init(struct session *s, const char *root, const char *stick, const char *out)
{
	memset(s, 0, sizeof(*s));
	s->root = root;
	ps_config_defaults(&s->cfg);
	s->warnings = json_object_new_array();
	if (stick) {
		snprintf(s->cfg.stick, sizeof(s->cfg.stick), "%s", stick);
		if (*stick &&
		    ps_boot_disk(root, stick, s->cfg.boot_disk, sizeof(s->cfg.boot_disk)) < 0)
			s->cfg.boot_disk[0] = '\0';
	}
	if (out)
		snprintf(s->out_root, sizeof(s->out_root), "%s", out);
	else if (stick && *stick)
		snprintf(s->out_root, sizeof(s->out_root), "%s/reports", stick);
	else
		snprintf(s->out_root, sizeof(s->out_root), "%s", RUN_REPORTS);
}

static void print_warnings(struct ps_console *con, json_object *w)
{
	for (size_t i = 0; i < json_object_array_length(w); i++)
		ps_console_printf(con, "warning: %s\n",
				  json_object_get_string(json_object_array_get_idx(w, i)));
}

static int cmd_run(struct opts *o)
{
	struct session s;
	struct ps_console con;
	char dir[PATH_MAX] = "";
	int ret;

	if (!o->plan && !o->steps)
		return usage_error("%s", "run needs --plan quick|full or --steps a,b");
	if (o->plan && strcmp(o->plan, "quick") && strcmp(o->plan, "full"))
		return usage_error("unknown plan '%s' (quick or full)", o->plan);
	session_init(&s, o->root, o->stick, o->out);
	ps_console_stdio(&con, isatty(STDIN_FILENO) ? STDIN_FILENO : -1, STDOUT_FILENO);
	s.con = &con;
	s.key_aborts = isatty(STDIN_FILENO);
	ret = run_plan(&s, o->plan ? o->plan : "custom", o->steps, dir, sizeof(dir));
	ps_console_close(&con);
	json_object_put(s.warnings);
	if (ret == -EINVAL && !dir[0])
		return 2;
	if (ret < 0) {
		fprintf(stderr,
			"probestick run: the report could not be written below %s: %s; choose a "
			"writable folder with --out DIR\n",
			s.out_root, strerror(-ret));
		return 1;
	}
	return 0;
}

static int cmd_info(struct opts *o)
{
	json_object *r = ps_report_new("quick", time(NULL));
	char path[PATH_MAX], id[128];
	int fd, ret;
	char *text;
	struct utsname u;
	struct {
		const char *what;
		int ret;
	} res[5];

	ps_path(path, sizeof(path), o->root, "%s", PROBESTICK_DEVICE);
	fd = open(path, O_RDWR | O_CLOEXEC);
	res[0].what = "machine";
	res[0].ret = ps_probe_machine(o->root, ps_json_get(r, "machine"));
	res[1].what = "pcie";
	res[1].ret = ps_probe_pcie(o->root, fd, ps_json_get(r, "pcie"));
	res[2].what = "drives";
	res[2].ret = ps_probe_drives(o->root, NULL, ps_json_get(r, "drives"));
	res[3].what = "nics";
	res[3].ret = ps_probe_nics(o->root, ps_json_get(r, "nics"));
	res[4].what = "memory";
	res[4].ret = ps_probe_memory(o->root, ps_json_get(r, "memory"));
	if (fd >= 0)
		close(fd);
	ps_machine_id(ps_json_get(r, "machine"), ps_json_get(r, "nics"), id, sizeof(id));
	json_object_object_add(r, "machine_id", json_object_new_string(id));
	if (uname(&u) == 0)
		json_object_object_add(ps_json_get(r, "probestick"), "kernel",
				       json_object_new_string(u.release));
	json_object_object_add(ps_json_get(r, "probestick"), "module_status",
			       json_object_new_string(fd >= 0 ? "loaded" : "not loaded"));
	text = ps_report_text(r, PS_TEXT_INVENTORY);
	fputs(text, stdout);
	free(text);
	ret = 0;
	for (size_t i = 0; i < PS_ARRAY_SIZE(res); i++) {
		if (res[i].ret < 0) {
			fprintf(stderr,
				"probestick info: the %s probe: %s (what it could not read shows "
				"as ? or -)\n",
				res[i].what, strerror(-res[i].ret));
		}
	}
	json_object_put(r);
	return ret;
}

static void preset_last_report(struct session *s, struct ps_menu_env *env)
{
	if (ps_report_latest(s->out_root, env->last_report, sizeof(env->last_report)) < 0)
		env->last_report[0] = '\0';
}

static enum ps_action menu(struct session *s)
{
	size_t n;
	struct ps_menu_env env = {
	    .con = s->con,
	    .run_plan = run_plan,
	    .arg = s,
	};

	env.steps = ps_registry(&n);
	env.n_steps = n;
	preset_last_report(s, &env);
	return ps_menu_run(&env);
}

static int cmd_menu(struct opts *o)
{
	struct session s;
	struct ps_console con;
	enum ps_action a;

	session_init(&s, o->root, o->stick, o->out);
	ps_console_stdio(&con, STDIN_FILENO, STDOUT_FILENO);
	s.con = &con;
	s.key_aborts = ps_console_interactive(&con);
	a = menu(&s);
	ps_console_close(&con);
	json_object_put(s.warnings);
	printf("then=%s\n", ps_action_name(a));
	return 0;
}

/* The stick may be missing or read-only: reports then go to /run, and the report says so. */
static void choose_reports_root(struct session *s, const char *stick)
{
	char dir[PATH_MAX];
	int ret;

	if (!*stick) {
		json_object_array_add(
		    s->warnings,
		    json_object_new_string("the boot stick was not found: reports "
					   "go to " RUN_REPORTS " and are lost at power off"));
		snprintf(s->out_root, sizeof(s->out_root), "%s", RUN_REPORTS);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/reports", stick);
	ret = ps_mkdirs(dir, 0755);
	if (ret == 0 && access(dir, W_OK) < 0)
		ret = -errno;
	if (ret < 0) {
		char msg[PATH_MAX + 200];

		snprintf(msg, sizeof(msg),
			 "%s is not writable (%s): reports go to " RUN_REPORTS
			 " and are lost at power off",
			 dir, strerror(-ret));
		json_object_array_add(s->warnings, json_object_new_string(msg));
		snprintf(s->out_root, sizeof(s->out_root), "%s", RUN_REPORTS);
	}
}

static int cmd_boot(struct opts *o)
{
	struct session s;
	struct ps_console con;
	char cfg_path[PATH_MAX], cmdline[PATH_MAX];
	const char *then;
	enum ps_action a;

	if (!o->stick)
		return usage_error("%s",
				   "boot needs --stick DIR (\"\" when the stick was not found)");
	session_init(&s, o->root, o->stick, NULL);
	snprintf(cfg_path, sizeof(cfg_path), "%s/probestick.cfg", o->stick);
	ps_path(cmdline, sizeof(cmdline), o->root, "/proc/cmdline");
	ps_config_load(&s.cfg, *o->stick ? cfg_path : NULL, cmdline, s.warnings);
	choose_reports_root(&s, o->stick);
	ps_console_open(&con, o->root, s.cfg.console, s.warnings);
	s.con = &con;
	/* Keys queued in a pipe are menu input for a script, not a request to abort. */
	s.key_aborts = ps_console_interactive(&con);
	print_warnings(&con, s.warnings);
	if (s.cfg.boot_disk[0])
		ps_console_printf(&con, "probestick: booted from %s; it is never a test target\n",
				  s.cfg.boot_disk);
	then = s.cfg.then;
	if (strcmp(s.cfg.plan, "menu") == 0) {
		a = menu(&s);
		then = ps_action_name(a);
	} else {
		run_plan(&s, s.cfg.plan, NULL, NULL, 0);
		if (strcmp(then, "menu") == 0) {
			a = menu(&s);
			then = ps_action_name(a);
		}
	}
	ps_console_close(&con);
	json_object_put(s.warnings);
	fflush(stdout);
	printf("then=%s\n", then);
	return 0;
}

static int cmd_coldplug(struct opts *o)
{
	struct ps_coldplug_opts c = {
	    .root = o->root,
	    .settle_s = o->settle,
	    .json_path = o->json ? o->json : "/run/probestick/coldplug.json",
	};

	return ps_coldplug_run(&c) < 0 ? 1 : 0;
}

static int cmd_show(struct opts *o)
{
	char dir[PATH_MAX], path[PATH_MAX], err[PATH_MAX + 300];
	json_object *r;
	struct stat st;
	char *text;

	if (o->positional) {
		snprintf(path, sizeof(path), "%s/report.json", o->positional);
		if (stat(path, &st) == 0) {
			snprintf(dir, sizeof(dir), "%s", o->positional);
		} else if (ps_report_latest(o->positional, dir, sizeof(dir)) < 0) {
			fprintf(stderr,
				"probestick show: %s holds no report.json and no report folders; "
				"give a report folder or a reports root\n",
				o->positional);
			return 1;
		}
	} else {
		static const char *const roots[] = {"/stick/reports", RUN_REPORTS};
		size_t i;

		for (i = 0; i < PS_ARRAY_SIZE(roots); i++)
			if (ps_report_latest(roots[i], dir, sizeof(dir)) == 0)
				break;
		if (i == PS_ARRAY_SIZE(roots)) {
			fprintf(stderr,
				"probestick show: no report in /stick/reports or " RUN_REPORTS
				"; run a plan first or name a report folder\n");
			return 1;
		}
	}
	if (ps_report_load(dir, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "probestick show: %s\n", err);
		return 1;
	}
	printf("Report %s\n", dir);
	text = ps_report_text(r, 0);
	fputs(text, stdout);
	free(text);
	json_object_put(r);
	return 0;
}

static const char *plans_text(unsigned int plans)
{
	switch (plans & (PS_PLAN_QUICK | PS_PLAN_FULL)) {
	case PS_PLAN_QUICK | PS_PLAN_FULL:
		return "quick,full";
	case PS_PLAN_QUICK:
		return "quick";
	default:
		return "full";
	}
}

static int cmd_steps(void)
{
	size_t n;
	const struct ps_step_ops *const *all = ps_registry(&n);

	printf("%-16s %-10s %-5s %-14s %s\n", "STEP", "PLANS", "ORDER", "NEEDS", "WHAT");
	for (size_t i = 0; i < n; i++) {
		const struct ps_step_ops *s = all[i];
		char needs[32] = "";

		if (s->needs & PS_NEED_ROOT)
			strcat(needs, "root,");
		if (s->needs & PS_NEED_MODULE)
			strcat(needs, "module,");
		if (s->needs & PS_NEED_SCRATCH)
			strcat(needs, "scratch,");
		if (needs[0])
			needs[strlen(needs) - 1] = '\0';
		else
			strcpy(needs, "-");
		printf("%-16s %-10s %5d %-14s %s\n", s->name, plans_text(s->plans), s->order, needs,
		       s->title ? s->title : "");
	}
	if (n == 0)
		printf("(no step is compiled in: see 'make menuconfig', Test steps)\n");
	return 0;
}

int ps_cli_main(int argc, char **argv)
{
	struct opts o = {.root = "", .settle = 15};
	const char *cmd = NULL;
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int nrest = 0, ret;

	if (!rest)
		return 1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("probestick %s\n%s", PS_VERSION, usage);
			free(rest);
			return 0;
		}
		if (strcmp(argv[i], "--root") == 0) {
			if (i + 1 == argc) {
				free(rest);
				return usage_error("%s", "--root needs a directory");
			}
			o.root = argv[++i];
			continue;
		}
		if (!cmd && argv[i][0] != '-')
			cmd = argv[i];
		else
			rest[nrest++] = argv[i];
	}
	if (!cmd) {
		fputs(usage, stderr);
		free(rest);
		return 2;
	}
	if (*o.root) {
		struct stat st;

		if (stat(o.root, &st) < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "probestick: --root %s is not a directory\n", o.root);
			free(rest);
			return 2;
		}
	}
	ret = -1;
	if (strcmp(cmd, "run") == 0) {
		ret = parse_opts(nrest, rest, cmd, "plan steps out stick", &o);
		if (ret < 0)
			ret = cmd_run(&o);
	} else if (strcmp(cmd, "info") == 0) {
		ret = parse_opts(nrest, rest, cmd, "", &o);
		if (ret < 0)
			ret = cmd_info(&o);
	} else if (strcmp(cmd, "menu") == 0) {
		ret = parse_opts(nrest, rest, cmd, "stick out", &o);
		if (ret < 0)
			ret = cmd_menu(&o);
	} else if (strcmp(cmd, "coldplug") == 0) {
		ret = parse_opts(nrest, rest, cmd, "settle json", &o);
		if (ret < 0)
			ret = cmd_coldplug(&o);
	} else if (strcmp(cmd, "boot") == 0) {
		ret = parse_opts(nrest, rest, cmd, "stick", &o);
		if (ret < 0)
			ret = cmd_boot(&o);
	} else if (strcmp(cmd, "show") == 0) {
		ret = parse_opts(nrest, rest, cmd, "positional", &o);
		if (ret < 0)
			ret = cmd_show(&o);
	} else if (strcmp(cmd, "bench") == 0) {
		ret = ps_bench_main(nrest, rest);
	} else if (strcmp(cmd, "steps") == 0) {
		ret = parse_opts(nrest, rest, cmd, "", &o);
		if (ret < 0)
			ret = cmd_steps();
	} else {
		fprintf(stderr, "probestick: unknown command '%s'\n%s", cmd, usage);
		ret = 2;
	}
	free(rest);
	return ret;
}
