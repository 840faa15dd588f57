/* cli.c - the probestick commands: run, info, menu, coldplug, boot, show, steps.
 * Errors say what happened, to what, and what to do; exit 2 for usage, 1 for failure. */
#include "version.h"
#include "cli/bench.h"
#include "cli/cli.h"
#include "boot/coldplug.h"
#include "report/text.h"
#include "boot/stick_check.h"
#include "lib/store.h"
#include "core/config.h"
#include "cli/console.h"
#include "hw/drive_identity.h"
#include "hw/inventory.h"
#include "decode/machine_id.h"
#include "cli/menu.h"
#include "cli/send.h"
#include "cli/serve.h"
#include "cli/ui.h"
#include "collect/collect.h"
#include "core/plan.h"
#include "core/recorders.h"
#include "core/scratch.h"
#include "hw/hw.h"
#include "hw/readers.h"
#include "report/compare.h"
#include "report/fleet_compare.h"
#include "report/html.h"
#include "report/index.h"
#include "report/ocp.h"
#include "report/report.h"
#include "lib/util.h"
#include "record/kmsg.h"

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
    "      [--scratch SERIAL] run a plan and write a report folder below DIR;\n"
    "                        --scratch names a drive disk_write may OVERWRITE\n"
    "  info                  print the inventory as text; nothing is written\n"
    "  menu [--stick DIR] [--out DIR] [--scratch SERIAL]\n"
    "                        the interactive menu on this terminal\n"
    "  coldplug [--settle SECONDS] [--json PATH]\n"
    "                        load drivers for the hardware present, then probestick.ko\n"
    "  boot --stick DIR      what /init runs: probestick.cfg and /proc/cmdline decide;\n"
    "                        the last line of output is then=poweroff|reboot|shell|menu\n"
    "  check-stick DEVICE [--json PATH]\n"
    "                        fsck.fat the stick before it is mounted, repair what a cut\n"
    "                        write left; the record goes to PATH (" PS_STICK_CHECK_JSON ")\n"
    "  show [REPORT_DIR]     print the latest (or the given) report\n"
    "  compare A B [C...] [--html FILE]\n"
    "                        what changed between runs (run folders, or a stick: its\n"
    "                        newest run); --html also writes compare.html there\n"
    "  compare --fleet DIR   machines of one model below DIR (a collector's tree):\n"
    "                        each by its latest complete run; which differs from the\n"
    "                        others beyond their spread\n"
    "  index [STICK]         rebuild STICK/reports/index.html (every run on the stick, or\n"
    "                        of a collector's tree: a row per machine)\n"
    "  send [--collect URL] [--cfg FILE] ... PATH...\n"
    "                        deliver run folders to the collector ('probestick send')\n"
    "  steps                 list the compiled-in steps\n"
    "  schema BASE           the report's JSON Schema: BASE (docs/report-schema.json)\n"
    "                        with every step's data fragment and setting\n"
    "  serve [--stick DIR] [--ports a,b] [--net SPEC] [--mtu SPEC] [--seconds N]\n"
    "        [--no-export]   server mode: the peer of another stick (iperf3 server,\n"
    "                        echo service, NBD export of a RAM disk) until a key\n"
    "  bench probes [...]    the probes' overhead, IOPS with them off and on (make bench);\n"
    "  bench engine [...]    the io_uring engine against fio (make bench);\n"
    "  bench mem [...]       triad GB/s beside likwid-bench or stress-ng (make bench);\n"
    "  bench net [...]       TCP over veth against iperf3 (make bench); each judged on\n"
    "                        alternating pairs; 'probestick bench' lists its options\n"
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
	const char *scratch; /* --scratch SERIAL[,SERIAL]: may be given more than once */
	char scratch_buf[512];
	const char *format;
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
		} else if (strcmp(name, "scratch") == 0) {
			size_t used = strlen(o->scratch_buf);

			if (used + strlen(val) + 2 > sizeof(o->scratch_buf))
				return usage_error("too many --scratch serials at '%s'", val);
			snprintf(o->scratch_buf + used, sizeof(o->scratch_buf) - used, "%s%s",
				 used ? "," : "", val);
			o->scratch = o->scratch_buf;
		} else if (strcmp(name, "format") == 0) {
			o->format = val;
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

struct session {
	const char *root;
	json_object *stick; /* what this boot found on the stick and did, or NULL */
	char out_root[PATH_MAX];
	struct ps_config cfg;
	json_object *warnings;
	struct ps_console *con;
	bool key_aborts;
	bool leaving;		     /* the machine powers off or reboots after the plan */
	struct ps_ocp_stream stream; /* stream=serial: fd of the serial line, else -1 */
	struct ps_collect *collect;  /* collect=/syslog=: the fleet's collector, else NULL */
};

static int run_plan(void *arg, const char *plan, const char *steps_csv, char *dir, size_t len)
{
	struct session *s = arg;
	size_t n_all, n;
	const struct ps_step_ops *const *all = ps_registry(&n_all);
	const struct ps_step_ops **list = calloc(n_all ? n_all : 1, sizeof(*list));
	struct ps_run_result res;
	struct ps_ui ui;
	struct ps_run_opts o = {
	    .root = s->root,
	    .out_root = s->out_root,
	    .plan = {.name = steps_csv ? "custom" : plan,
		     .level = plan && strcmp(plan, "full") == 0 ? PS_PLAN_FULL : PS_PLAN_QUICK},
	    .cfg = &s->cfg,
	    .warnings = s->warnings,
	    .stick = s->stick,
	};
	char err[256];
	int ret;

	if (!list)
		return -ENOMEM;
	ret = ps_plan_select(all, n_all, steps_csv ? NULL : plan, steps_csv, list, &n, err,
			     sizeof(err));
	if (ret < 0) {
		ps_console_printf(s->con, "probestick: %s\n", err);
		free(list);
		return ret;
	}
	ps_ui_init(&ui, s->con, s->key_aborts);
	o.ui = &ui.ops;
	if (s->stream.fd >= 0) {
		s->stream.lines = 0; /* each plan is a test run of its own */
		s->stream.err = 0;
		o.stream = &s->stream;
	}
	o.steps = list;
	o.n_steps = n;
	o.sink = ps_collect_sink(s->collect);
	ret = ps_plan_run(&o, &res);
	ps_ui_summary(&ui, &res, s->leaving, 600);
	/* Leaving: as long as collect_wait allows; else a while, the rest in the background. */
	if (s->collect) {
		double wait = ps_collect_wait_s(s->cfg.collect_wait);

		ps_collect_settle(s->collect, s->leaving || wait < 30 ? wait : 30);
	}
	if (dir)
		snprintf(dir, len, "%s", res.dir);
	json_object_put(res.report);
	free(list);
	return ret;
}

static void session_init(struct session *s, const char *root, const char *stick, const char *out)
{
	memset(s, 0, sizeof(*s));
	s->root = root;
	s->stream.fd = -1;
	ps_config_defaults(&s->cfg);
	s->warnings = json_object_new_array();
	/* Every write on the stick goes through the store (lib/store.h). */
	ps_store_init(stick);
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

/* --scratch: the serials a person typed on the command line are their confirmation. */
static int set_scratch(struct session *s, const struct opts *o)
{
	char why[256];

	if (!o->scratch)
		return 0;
	if (ps_config_set(&s->cfg, "scratch", o->scratch, why, sizeof(why)) < 0) {
		fprintf(stderr, "probestick: --scratch: %s\n", why);
		json_object_put(s->warnings);
		return -EINVAL;
	}
	return 0;
}

/* At boot the first few warnings, then a count: twenty lines would scroll the rest away. */
#define BOOT_WARNINGS_SHOWN 3

/* Errors (config_error()) first, each in full; then warnings up to BOOT_WARNINGS_SHOWN. */
static void print_warnings(struct ps_console *con, json_object *w)
{
	size_t n = json_object_array_length(w), shown = 0, hidden = 0;
	char line[1200];

	for (int errors = 1; errors >= 0; errors--) {
		for (size_t i = 0; i < n; i++) {
			const char *t = json_object_get_string(json_object_array_get_idx(w, i));
			bool is_error = strncmp(t, "error: ", 7) == 0;

			if (is_error != errors)
				continue;
			if (!is_error && shown++ >= BOOT_WARNINGS_SHOWN) {
				hidden++;
				continue;
			}
			snprintf(line, sizeof(line), "%s%s", is_error ? "" : "warning: ", t);
			ps_ui_say(con, 0, line);
		}
	}
	if (hidden) {
		snprintf(line, sizeof(line),
			 "warning: %zu more: every warning is in each report, under Warnings "
			 "after the verdicts",
			 hidden);
		ps_ui_say(con, 0, line);
	}
}

/* The serials of l, comma separated, into out. */
static void serials_csv(const struct ps_scratch_list *l, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < l->n && o < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%s%s", i ? "," : "", l->serial[i]);
}

/*
 * scratch= checked against the drives before the menu: a serial no drive here
 * carries (scratch=NOPE, a drive since taken out) is an error said at once and
 * dropped, and the plans go on with the serials that match. disk_write decides
 * again before it writes (core/scratch.h).
 */
static void check_scratch(struct session *s)
{
	struct ps_inventory inv = {0};
	struct ps_scratch_list found, missing;
	char msg[2400], gone[sizeof(s->cfg.scratch)], kept[sizeof(s->cfg.scratch)], why[256];
	size_t o = 0;

	if (!ps_scratch_named(&s->cfg) ||
	    ps_read_drives(s->root, s->cfg.boot_disk, &inv.drives, &inv.n_drives) < 0)
		return;
	ps_inventory_smartctl_identity(&inv, s->root, NULL, NULL);
	if (ps_scratch_split(&s->cfg.scratch_list, inv.drives, inv.n_drives, &found, &missing)) {
		serials_csv(&missing, gone, sizeof(gone));
		serials_csv(&found, kept, sizeof(kept));
		o = (size_t)snprintf(
		    msg, sizeof(msg),
		    "error: scratch=%s: no drive here has the serial%s %s; the drives "
		    "are",
		    s->cfg.scratch, missing.n > 1 ? "s" : "", gone);
		for (size_t i = 0; i < inv.n_drives && o < sizeof(msg); i++)
			o += (size_t)snprintf(
			    msg + o, sizeof(msg) - o, "%s %s %s serial %s", i ? "," : "",
			    inv.drives[i].name, inv.drives[i].model[0] ? inv.drives[i].model : "?",
			    inv.drives[i].serial[0] ? inv.drives[i].serial : "(none)");
		if (o < sizeof(msg))
			snprintf(msg + o, sizeof(msg) - o,
				 "%s. The plans go on with %s%s; correct probestick.cfg or name "
				 "a drive in the menu (w).",
				 inv.n_drives ? "" : " none",
				 found.n ? "scratch=" : "no scratch drive", kept);
		ps_config_set(&s->cfg, "scratch", kept, why, sizeof(why));
		json_object_array_add(s->warnings, ps_json_new_str(msg));
	}
	free(inv.drives);
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
	if (set_scratch(&s, o) < 0)
		return 2;
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
	json_object *r = ps_report_new("quick", time(NULL)), *step = json_object_new_object();
	struct ps_inventory inv = {0};
	struct ps_inventory_opts io = {.root = o->root, .module_fd = -1};
	const struct ps_step_ops *const *all;
	const struct ps_step_ops *s;
	char path[PATH_MAX];
	char *text;
	size_t n;
	int ret = 0;

	ps_path(path, sizeof(path), o->root, "%s", PROBESTICK_DEVICE);
	io.module_fd = open(path, O_RDWR | O_CLOEXEC);
	ps_inventory_take(&inv, &io);
	ps_inventory_smartctl_identity(&inv, o->root, NULL, NULL);
	ps_environment_read(o->root, &inv.environment);
	ps_boot_read(o->root, &inv.boot);
	ps_inventory_json(&inv, r);
	ps_environment_json(&inv.environment, r);
	ps_boot_json(&inv.boot, r);
	ps_json_set_str(r, "machine_id", inv.machine.id);
	ps_json_set_str(ps_json_get(r, "probestick"), "module_status",
			io.module_fd >= 0 ? "loaded" : "not loaded");
	if (io.module_fd >= 0)
		close(io.module_fd);
	/* The inventory's view reads the report's sections: give it its step (the plan's
	 * first phase, whatever its name). */
	all = ps_registry(&n);
	s = NULL;
	for (size_t i = 0; i < n && !s; i++)
		if (all[i]->flags & PS_STEP_TAKES_INVENTORY)
			s = all[i];
	ps_json_set_str(step, "name", s ? s->name : "?");
	ps_json_set_str(step, "status", "pass");
	ps_json_set(step, "data_version", json_object_new_int(s ? (int)s->data_version : 0));
	json_object_array_add(ps_json_get(r, "steps"), step);
	text = ps_report_text(r, ps_views(), PS_TEXT_INVENTORY);
	fputs(text, stdout);
	free(text);
	for (int i = 0; i < PS_INV_SECTIONS; i++) {
		if (inv.err[i] < 0)
			fprintf(stderr,
				"probestick info: the %s reader: %s (what it could not read shows "
				"as -)\n",
				ps_inv_section_name((enum ps_inv_section)i), strerror(-inv.err[i]));
	}
	ps_inventory_free(&inv);
	json_object_put(r);
	return ret;
}

static void preset_last_report(struct session *s, struct ps_menu_env *env)
{
	if (ps_report_latest(s->out_root, env->last_report, sizeof(env->last_report)) < 0)
		env->last_report[0] = '\0';
}

static int serve_here(void *arg)
{
	struct session *s = arg;
	struct ps_serve_opts so = {.cfg = &s->cfg, .con = s->con};

	return ps_serve_run(&so);
}

static enum ps_action menu(struct session *s)
{
	size_t n;
	struct ps_menu_env env = {
	    .con = s->con,
	    .run_plan = run_plan,
	    .serve = serve_here,
	    .arg = s,
	    .cfg = &s->cfg,
	    .root = s->root,
	};

	env.steps = ps_registry(&n);
	env.n_steps = n;
	env.reports_root = s->out_root;
	preset_last_report(s, &env);
	return ps_menu_run(&env);
}

static void choose_reports_root(struct session *s, const char *stick);
static void say_stick(struct ps_console *con, json_object *stick);

static int cmd_menu(struct opts *o)
{
	struct session s;
	struct ps_console con;
	enum ps_action a;

	session_init(&s, o->root, o->stick, o->out);
	if (set_scratch(&s, o) < 0)
		return 2;
	/* After a crash /init runs the menu: the run cut off in this boot is marked now. */
	if (o->stick && *o->stick && !o->out)
		choose_reports_root(&s, o->stick);
	ps_console_stdio(&con, STDIN_FILENO, STDOUT_FILENO);
	s.con = &con;
	s.key_aborts = ps_console_interactive(&con);
	say_stick(&con, s.stick);
	a = menu(&s);
	ps_console_close(&con);
	json_object_put(s.warnings);
	json_object_put(s.stick);
	printf("then=%s\n", ps_action_name(a));
	return 0;
}

/*
 * The stick may be missing or read-only: reports then go to /run, and the
 * report says so. On a stick that takes writes, before any plan: what the
 * boot's check found (/init ran check-stick), the files its repair left, and
 * the runs an earlier boot left cut off (report/recover.c), all in stick{}.
 */
static void choose_reports_root(struct session *s, const char *stick)
{
	char dir[PATH_MAX], path[PATH_MAX], bootid[64] = "";
	json_object *check, *recovered;
	int ret;

	if (!*stick) {
		json_object_array_add(s->warnings,
				      json_object_new_string(
					  s->cfg.collect[0]
					      ? "no stick: reports go to " RUN_REPORTS
						" (RAM) and to the collector (collect{})"
					      : "the boot stick was not found: reports "
						"go to " RUN_REPORTS " and are lost at power off"));
		snprintf(s->out_root, sizeof(s->out_root), "%s", RUN_REPORTS);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/reports", stick);
	ps_path(path, sizeof(path), s->root, "%s", PS_STICK_CHECK_JSON);
	check = ps_json_read_file(path);
	recovered = json_object_new_array();
	s->stick = json_object_new_object();
	ps_json_set(s->stick, "check", check);
	ps_json_set(s->stick, "recovered", recovered);
	ret = ps_store_begin(dir);
	if (ret == 0) {
		ret = ps_mkdirs(dir, 0755);
		if (ret == 0) {
			json_object *done;

			ps_stick_check_settle(stick, check, recovered);
			ps_path(path, sizeof(path), s->root, "/proc/sys/kernel/random/boot_id");
			ps_read_str(path, bootid, sizeof(bootid));
			done = ps_reports_recover(dir, bootid, time(NULL), ps_views());
			for (size_t i = 0; i < ps_json_len(done); i++)
				json_object_array_add(recovered,
						      json_object_get(ps_json_at(done, i)));
			/* The stick's index says at once which runs were cut off. */
			if (ps_json_len(done))
				ps_index_write(dir);
			json_object_put(done);
		}
		ps_store_end(dir);
	}
	if (ret < 0) {
		char msg[PATH_MAX + 400];

		snprintf(msg, sizeof(msg),
			 "%s is not writable (%s): reports go to " RUN_REPORTS
			 " and are lost at power off",
			 dir, *ps_store_error() ? ps_store_error() : strerror(-ret));
		json_object_array_add(s->warnings, json_object_new_string(msg));
		snprintf(s->out_root, sizeof(s->out_root), "%s", RUN_REPORTS);
	}
}

/* What the boot found on the stick, on the console before the plan. */
static void say_stick(struct ps_console *con, json_object *stick)
{
	json_object *check = ps_json_get(stick, "check"), *rec = ps_json_arr(stick, "recovered");
	char line[1200];

	if (ps_json_bool(check, "clean") == 0) {
		json_object *probs = ps_json_arr(check, "problems");

		for (size_t i = 0; i < ps_json_len(probs); i++) {
			snprintf(line, sizeof(line), "stick: %s",
				 ps_json_str_or(ps_json_at(probs, i), "message", "?"));
			ps_ui_say(con, 0, line);
		}
		if (ps_json_bool(check, "repaired") != -1)
			ps_ui_say(
			    con, 0,
			    ps_json_bool(check, "clean_after") == 1
				? "stick: repaired by fsck.fat; the report says what was found"
				: "stick: fsck.fat could not repair it all: check it on a PC");
	}
	for (size_t i = 0; i < ps_json_len(rec); i++) {
		snprintf(line, sizeof(line), "stick: %s: %s",
			 ps_json_str_or(ps_json_at(rec, i), "path", "?"),
			 ps_json_str_or(ps_json_at(rec, i), "message", "?"));
		ps_ui_say(con, 0, line);
	}
}

/*
 * stream=serial: the OCP artifacts go to the first serial terminal of the
 * console (the line a lab watches through the BMC), else to <root>/dev/ttyS0.
 */
static void open_stream(struct session *s, struct ps_console *con)
{
	char path[PATH_MAX];

	if (strcmp(s->cfg.stream, "serial") != 0)
		return;
	for (int i = 0; i < con->n && s->stream.fd < 0; i++)
		if (strncmp(con->t[i].name, "ttyS", 4) == 0 && con->t[i].out_fd >= 0)
			s->stream.fd = fcntl(con->t[i].out_fd, F_DUPFD_CLOEXEC, 3);
	if (s->stream.fd < 0) {
		ps_path(path, sizeof(path), s->root, "/dev/ttyS0");
		s->stream.fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	}
	if (s->stream.fd < 0)
		json_object_array_add(
		    s->warnings,
		    ps_json_new_str("stream=serial: no serial line to stream the OCP artifacts "
				    "to (no ttyS terminal in console=, no /dev/ttyS0); they are "
				    "in report.ocp.jsonl"));
}

/* A collector line on the console. */
static void collect_say(void *arg, bool problem, const char *line)
{
	ps_ui_say(arg, 0, line);
}

/* collect=/syslog=: the boot port up and the sender started (collect/collect.h). */
static void start_collect(struct session *s, struct ps_console *con, const char *stick,
			  const char *cmdline_path)
{
	char *cmdline = NULL;
	size_t len;

	ps_read_all(cmdline_path, &cmdline, &len);
	s->collect = ps_collect_start(&(struct ps_collect_opts){
	    .keys = ps_config_collect_keys(&s->cfg),
	    .views = ps_views(),
	    .root = s->root,
	    .stick = stick,
	    .cmdline = cmdline,
	    .net = !*s->root,
	    .say = collect_say,
	    .arg = con,
	});
	free(cmdline);
}

static int cmd_boot(struct opts *o)
{
	struct session s;
	struct ps_console con;
	char cfg_path[PATH_MAX], cmdline[PATH_MAX], site_cfg[PATH_MAX];
	const char *then;
	enum ps_action a;

	if (!o->stick)
		return usage_error("%s",
				   "boot needs --stick DIR (\"\" when the stick was not found)");
	session_init(&s, o->root, o->stick, NULL);
	snprintf(cfg_path, sizeof(cfg_path), "%s/probestick.cfg", o->stick);
	ps_path(cmdline, sizeof(cmdline), o->root, "/proc/cmdline");
	/* The netboot tree's site.img: its probestick.cfg first, the stick's and the command
	 * line over it. */
	ps_path(site_cfg, sizeof(site_cfg), o->root, "/etc/probestick/probestick.cfg");
	if (access(site_cfg, R_OK) == 0)
		ps_config_load(&s.cfg, site_cfg, NULL, s.warnings);
	ps_config_load(&s.cfg, *o->stick ? cfg_path : NULL, cmdline, s.warnings);
	check_scratch(&s);
	choose_reports_root(&s, o->stick);
	ps_console_open(&con, o->root, s.cfg.console, s.warnings);
	s.con = &con;
	open_stream(&s, &con);
	/* Keys queued in a pipe are menu input for a script, not a request to abort. */
	s.key_aborts = ps_console_interactive(&con);
	print_warnings(&con, s.warnings);
	say_stick(&con, s.stick);
	start_collect(&s, &con, o->stick, cmdline);
	if (s.cfg.boot_disk[0]) {
		char line[160];

		snprintf(line, sizeof(line),
			 "probestick: booted from %s; it is never a test target", s.cfg.boot_disk);
		ps_ui_say(&con, 0, line);
	}
	then = s.cfg.then;
	s.leaving = strcmp(then, "poweroff") == 0 || strcmp(then, "reboot") == 0;
	/* Kernel messages go to the report (steps[].kmsg), not over the menu and progress. */
	if (!*o->root)
		ps_kmsg_console_quiet();
	if (strcmp(s.cfg.plan, "menu") == 0) {
		a = menu(&s);
		then = ps_action_name(a);
	} else if (strcmp(s.cfg.plan, "serve") == 0) {
		serve_here(&s);
		if (strcmp(then, "menu") == 0) {
			a = menu(&s);
			then = ps_action_name(a);
		}
	} else {
		/* steps= narrows the plan to those steps, at the plan's depth */
		run_plan(&s, s.cfg.plan, s.cfg.steps[0] ? s.cfg.steps : NULL, NULL, 0);
		if (strcmp(then, "menu") == 0) {
			a = menu(&s);
			then = ps_action_name(a);
		}
	}
	if (!*o->root)
		ps_kmsg_console_restore();
	/* runs from the menu that are not delivered yet: as long as collect_wait allows */
	ps_collect_settle(s.collect, ps_collect_wait_s(s.cfg.collect_wait));
	ps_collect_free(s.collect);
	ps_console_close(&con);
	if (s.stream.fd >= 0)
		close(s.stream.fd);
	json_object_put(s.warnings);
	json_object_put(s.stick);
	fflush(stdout);
	printf("then=%s\n", then);
	return 0;
}

static int cmd_check_stick(struct opts *o)
{
	const char *dev = o->positional;
	const char *out = o->json ? o->json : PS_STICK_CHECK_JSON;
	json_object *c, *probs;
	char dir[PATH_MAX], *slash;
	const char *text;
	int ret;

	if (!dev)
		return usage_error("%s", "check-stick needs the stick's partition (/dev/sdb1)");
	c = ps_stick_check(dev, NULL, NULL, NULL);
	probs = ps_json_arr(c, "problems");
	if (ps_json_str(c, "error"))
		printf("stick: %s\n", ps_json_str(c, "error"));
	else if (ps_json_bool(c, "clean") == 1)
		printf("stick: %s checked (%s): clean\n", dev, ps_json_str_or(c, "tool", "?"));
	for (size_t i = 0; i < ps_json_len(probs); i++)
		printf("stick: %s: %s\n", dev,
		       ps_json_str_or(ps_json_at(probs, i), "message", "?"));
	if (ps_json_bool(c, "clean") == 0 && !ps_json_str(c, "error"))
		printf("stick: %s %s\n", dev,
		       ps_json_bool(c, "repaired") == -1 ? "left as it is: nothing fsck.fat repairs"
		       : ps_json_bool(c, "clean_after") == 1
			   ? "repaired: clean now"
			   : "not fully repaired: check it on a PC");
	snprintf(dir, sizeof(dir), "%s", out);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	text = json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN);
	ret = ps_mkdirs(slash ? dir : ".", 0755);
	if (ret == 0)
		ret =
		    ps_write_atomic(slash ? dir : ".", slash ? slash + 1 : out, text, strlen(text));
	if (ret < 0)
		fprintf(stderr, "probestick check-stick: cannot write %s: %s\n", out,
			strerror(-ret));
	json_object_put(c);
	return ret < 0 ? 1 : 0;
}

static int cmd_coldplug(struct opts *o)
{
	struct ps_coldplug_opts c = {
	    .root = o->root,
	    .settle_s = o->settle,
	    .json_path = o->json ? o->json : "/run/probestick/coldplug.json",
	};
	struct ps_coldplug_result res;
	json_object *failed;
	int ret = ps_coldplug_run(&c, &res);

	if (res.error[0])
		fprintf(stderr, "probestick coldplug: %s\n", res.error);
	failed = ps_json_arr(res.doc, "failed");
	{
		char line[256];

		/* read on an 80-column console before the menu: wrapped at words */
		snprintf(line, sizeof(line),
			 "coldplug: %zu modules loaded, %zu failed, %zu found no device, %zu "
			 "devices, %d rounds, %.1f s",
			 ps_json_len(ps_json_arr(res.doc, "loaded")), ps_json_len(failed),
			 ps_json_len(ps_json_arr(res.doc, "unused")), res.devices, res.rounds,
			 res.seconds);
		ps_wrap(stdout, 79, 0, 2, line);
	}
	for (size_t i = 0; i < ps_json_len(failed); i++)
		printf("coldplug: %s: %s\n", ps_json_str_or(ps_json_at(failed, i), "module", "?"),
		       ps_json_str_or(ps_json_at(failed, i), "error", "?"));
	json_object_put(res.doc);
	return ret < 0 ? 1 : 0;
}

static int cmd_show(struct opts *o)
{
	static const char *const roots[] = {"/stick", RUN_REPORTS};
	char dir[PATH_MAX], err[PATH_MAX + 300], note[PATH_MAX + 32];
	json_object *r;
	char *text, *failed;
	size_t flen;
	int ret = -ENOENT;

	if (o->format && strcmp(o->format, "text") && strcmp(o->format, "html") &&
	    strcmp(o->format, "ocp"))
		return usage_error("show --format takes text, html or ocp, not '%s'", o->format);
	if (o->positional) {
		ret = ps_report_resolve(o->positional, dir, sizeof(dir));
		if (ret < 0) {
			fprintf(stderr,
				"probestick show: %s holds no report: give a report folder, a "
				"reports folder or the stick's root\n",
				o->positional);
			return 1;
		}
	} else {
		for (size_t i = 0; i < PS_ARRAY_SIZE(roots) && ret < 0; i++)
			ret = ps_report_resolve(roots[i], dir, sizeof(dir));
		if (ret < 0) {
			fprintf(stderr, "probestick show: no report on /stick or in " RUN_REPORTS
					"; run a plan first or name a report folder\n");
			return 1;
		}
	}
	/* A run whose report could not be written says so beside it. */
	snprintf(note, sizeof(note), "%s/WRITE-FAILED.txt", dir);
	if ((!o->format || !strcmp(o->format, "text")) && ps_read_all(note, &failed, &flen) == 0) {
		char *clean = ps_text_clean_dup(failed, flen, "\n");

		printf("%s", clean ? clean : "");
		free(clean);
		free(failed);
	}
	if (ps_report_load(dir, &r, err, sizeof(err)) < 0) {
		fprintf(stderr, "probestick show: %s\n", err);
		return 1;
	}
	if (o->format && strcmp(o->format, "text")) {
		text = strcmp(o->format, "html") == 0 ? ps_report_html(r, ps_views())
						      : ps_ocp_text(r, ps_views());
		fputs(text ? text : "", stdout);
		free(text);
		json_object_put(r);
		return text ? 0 : 1;
	}
	printf("Report %s\n", dir);
	text = ps_report_text(r, ps_views(), 0);
	fputs(text, stdout);
	free(text);
	json_object_put(r);
	return 0;
}

/* serve: its own options, and probestick.cfg (net=, mtu=) from --stick. */
static int cmd_serve(int argc, char **argv)
{
	struct ps_config cfg;
	struct ps_console con;
	struct ps_serve_opts so = {.cfg = &cfg, .con = &con};
	json_object *w = json_object_new_array();
	const char *stick = NULL;
	char why[256], path[PATH_MAX];
	int ret;

	ps_config_defaults(&cfg);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--no-export") == 0) {
			so.no_export = true;
			continue;
		}
		if (!v) {
			json_object_put(w);
			return usage_error("serve: %s needs a value", a);
		}
		i++;
		if (strcmp(a, "--stick") == 0) {
			stick = v;
		} else if (strcmp(a, "--ports") == 0) {
			so.ports = v;
		} else if (strcmp(a, "--seconds") == 0) {
			so.seconds = strtod(v, NULL);
		} else if (strcmp(a, "--net") == 0 || strcmp(a, "--mtu") == 0) {
			if (ps_config_set(&cfg, a + 2, v, why, sizeof(why)) < 0) {
				json_object_put(w);
				return usage_error("serve: %s", why);
			}
		} else {
			json_object_put(w);
			return usage_error("serve: unknown option %s", a);
		}
	}
	if (stick && *stick) {
		snprintf(path, sizeof(path), "%s/probestick.cfg", stick);
		ps_config_load(&cfg, path, NULL, w);
	}
	ps_console_stdio(&con, isatty(STDIN_FILENO) ? STDIN_FILENO : -1, STDOUT_FILENO);
	for (size_t i = 0; i < json_object_array_length(w); i++)
		ps_console_printf(&con, "warning: %s\n",
				  json_object_get_string(json_object_array_get_idx(w, i)));
	ret = ps_serve_run(&so);
	ps_console_close(&con);
	json_object_put(w);
	return ret;
}

static const char *plans_text(unsigned int plans)
{
	switch (plans & (PS_PLAN_QUICK | PS_PLAN_FULL)) {
	case PS_PLAN_QUICK | PS_PLAN_FULL:
		return "quick,full";
	case PS_PLAN_QUICK:
		return "quick";
	case PS_PLAN_FULL:
		return "full";
	default:
		return "named"; /* only when steps= names it */
	}
}

static int cmd_steps(void)
{
	size_t n, nrec;
	const struct ps_step_ops *const *all = ps_registry(&n);
	const struct ps_recorder_ops *const *recs;

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
	recs = ps_recorders(&nrec);
	printf("\n%-16s %-5s %s\n", "RECORDER", "ORDER", "AROUND EVERY STEP, IN steps[].<name>");
	for (size_t i = 0; i < nrec; i++)
		printf("%-16s %5d %s\n", recs[i]->name, recs[i]->order,
		       recs[i]->view->blocks && recs[i]->view->nblocks &&
			       recs[i]->view->blocks[0].title
			   ? recs[i]->view->blocks[0].title
			   : "");
	return 0;
}

/* The report's JSON Schema: base (docs/report-schema.json) with what the registry knows. */
static int cmd_schema(int argc, char **argv)
{
	json_object *base;

	if (argc != 1) {
		fprintf(stderr, "usage: probestick schema docs/report-schema.json\n");
		return 2;
	}
	base = ps_json_read_file(argv[0]);
	if (!base) {
		fprintf(stderr, "probestick schema: %s is not a readable JSON object\n", argv[0]);
		return 1;
	}
	ps_report_schema(base);
	fputs(json_object_to_json_string_ext(base, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE),
	      stdout);
	fputc('\n', stdout);
	json_object_put(base);
	return 0;
}

/* compare: positional run folders and --html FILE, parsed here (more than one positional). */
/* compare --fleet: every machine below root by its latest complete run, grouped by model. */
static int compare_fleet(const char *where)
{
	struct ps_index idx;
	struct ps_doc **docs;
	const char **labels;
	struct ps_fleet_cmp *fc;
	char root[PATH_MAX], *text;
	size_t n = 0;
	struct stat st;
	int ret;

	snprintf(root, sizeof(root), "%s/reports", where);
	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
		snprintf(root, sizeof(root), "%s", where);
	ret = ps_index_scan(root, &idx);
	if (ret < 0) {
		fprintf(stderr, "probestick compare --fleet: cannot read %s: %s\n", root,
			strerror(-ret));
		return 1;
	}
	docs = calloc(idx.n + 1, sizeof(*docs));
	labels = calloc(idx.n + 1, sizeof(*labels));
	for (size_t i = 0; docs && labels && i < idx.n; i++) {
		const struct ps_index_run *r = &idx.runs[i];
		json_object *rep;
		char err[PATH_MAX + 400];
		bool seen = false;

		/* the runs are newest first: a machine's first complete run is its latest */
		for (size_t k = 0; k < n; k++)
			seen = seen || strcmp(labels[k], r->machine_dir) == 0;
		if (seen || r->state != PS_RUN_COMPLETE)
			continue;
		if (ps_report_load(r->path, &rep, err, sizeof(err)) < 0) {
			fprintf(stderr, "probestick compare --fleet: %s (left out)\n", err);
			continue;
		}
		docs[n] = ps_doc_build(rep, ps_views());
		json_object_put(rep);
		if (docs[n])
			labels[n++] = r->machine_dir;
	}
	fc = docs && labels ? ps_fleet_compare((const struct ps_doc *const *)docs, n) : NULL;
	if (fc) {
		printf("%zu machine%s below %s, each by its latest complete run\n", n,
		       n == 1 ? "" : "s", root);
		text = ps_fleet_compare_text(fc, labels);
		fputs(text, stdout);
		free(text);
	} else {
		fprintf(stderr, "probestick compare --fleet: out of memory\n");
	}
	ps_fleet_compare_free(fc);
	for (size_t i = 0; i < n; i++)
		ps_doc_free(docs[i]);
	free(docs);
	free(labels);
	ps_index_free(&idx);
	return fc ? 0 : 1;
}

static int cmd_compare(int argc, char **argv)
{
	const char *paths[PS_CMP_MAX_RUNS], *html = NULL;
	struct ps_doc *docs[PS_CMP_MAX_RUNS];
	char err[PATH_MAX + 600];
	struct ps_cmp *c;
	char *text;
	size_t n = 0;
	int ret;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--fleet") == 0) {
			if (i + 2 != argc)
				return usage_error(
				    "%s", "compare --fleet takes one folder and nothing else");
			return compare_fleet(argv[i + 1]);
		}
		if (strcmp(argv[i], "--html") == 0) {
			if (i + 1 == argc)
				return usage_error("%s", "compare --html needs a file name");
			html = argv[++i];
		} else if (strncmp(argv[i], "--", 2) == 0) {
			return usage_error("compare: unknown option %s", argv[i]);
		} else if (n == PS_CMP_MAX_RUNS) {
			fprintf(stderr, "probestick compare: at most %d runs at a time\n",
				PS_CMP_MAX_RUNS);
			return 2;
		} else {
			paths[n++] = argv[i];
		}
	}
	if (n < 2)
		return usage_error("%s", "compare needs two or more report folders (or sticks)");
	ret = ps_compare_load(paths, n, ps_views(), docs, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "probestick compare: %s\n", err);
		return 1;
	}
	c = ps_compare((const struct ps_doc *const *)docs, paths, n);
	if (!c) {
		fprintf(stderr, "probestick compare: out of memory\n");
		ret = -ENOMEM;
	} else {
		text = ps_compare_text(c);
		fputs(text, stdout);
		free(text);
	}
	if (c && html) {
		char dir[PATH_MAX], *slash;
		const char *name = html;

		snprintf(dir, sizeof(dir), "%s", html);
		slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			name = slash + 1;
		} else {
			snprintf(dir, sizeof(dir), ".");
		}
		text = ps_compare_html(c);
		ret = ps_write_atomic(dir[0] ? dir : "/", name, text, strlen(text));
		free(text);
		if (ret < 0)
			fprintf(stderr, "probestick compare: cannot write %s: %s\n", html,
				strerror(-ret));
	}
	ps_compare_free(c);
	for (size_t i = 0; i < n; i++)
		ps_doc_free(docs[i]);
	return ret < 0 ? 1 : 0;
}

static int cmd_index(struct opts *o)
{
	const char *where = o->positional ? o->positional : "/stick";
	char root[PATH_MAX];
	struct stat st;
	int ret;

	snprintf(root, sizeof(root), "%s/reports", where);
	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
		snprintf(root, sizeof(root), "%s", where);
	ret = ps_index_write(root);
	if (ret < 0) {
		fprintf(stderr,
			"probestick index: cannot write %s/index.html: %s; give the stick's root "
			"or its reports folder\n",
			root, strerror(-ret));
		return 1;
	}
	printf("%s/index.html\n", root);
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
		ret = parse_opts(nrest, rest, cmd, "plan steps out stick scratch", &o);
		if (ret < 0)
			ret = cmd_run(&o);
	} else if (strcmp(cmd, "info") == 0) {
		ret = parse_opts(nrest, rest, cmd, "", &o);
		if (ret < 0)
			ret = cmd_info(&o);
	} else if (strcmp(cmd, "menu") == 0) {
		ret = parse_opts(nrest, rest, cmd, "stick out scratch", &o);
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
	} else if (strcmp(cmd, "check-stick") == 0) {
		ret = parse_opts(nrest, rest, cmd, "positional json", &o);
		if (ret < 0)
			ret = cmd_check_stick(&o);
	} else if (strcmp(cmd, "show") == 0) {
		ret = parse_opts(nrest, rest, cmd, "positional format", &o);
		if (ret < 0)
			ret = cmd_show(&o);
	} else if (strcmp(cmd, "serve") == 0) {
		ret = cmd_serve(nrest, rest);
	} else if (strcmp(cmd, "compare") == 0) {
		ret = cmd_compare(nrest, rest);
	} else if (strcmp(cmd, "schema") == 0) {
		ret = cmd_schema(nrest, rest);
	} else if (strcmp(cmd, "index") == 0) {
		ret = parse_opts(nrest, rest, cmd, "positional", &o);
		if (ret < 0)
			ret = cmd_index(&o);
	} else if (strcmp(cmd, "bench") == 0) {
		ret = ps_bench_main(nrest, rest);
	} else if (strcmp(cmd, "send") == 0) {
		ret = ps_send_main(nrest, rest);
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
