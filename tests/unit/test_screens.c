/*
 * test_screens.c - every screen the menu can show, driven by keys through a
 * pipe as on an 80x24 serial console: the menu, its unknown-key answer, the
 * settings, the step chooser with every registered step, a plan's end screen
 * with failing drives and its key, the pager (pages, back, verdicts, a step,
 * find), compare, the scratch confirmation (list, wrong serial, boot stick,
 * last check), the wall meter, reboot and power off. Fails on a line over 79
 * columns, a word split across lines, or a screen taller than 24 lines.
 */
#include "check.h"
#include "flat.h"
/* link: steps */
#include "cli/console.h"
#include "cli/menu.h"
#include "cli/ui.h"
#include "core/plan.h"
#include "lib/json.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char report_dir[1200];
static char reports_root[1024];
static struct ps_config cfg;
static char sysroot[] = "/var/tmp/test_screens_root.XXXXXX";

/* A recorded report with two drives turned to FAIL: a plan that found something. */
static json_object *failing_report(void)
{
	char *data;
	size_t len;
	json_object *r, *steps, *vs;
	int failed = 0;

	CHECK_INT(ps_read_all(FIXTURES "/core/reports/healthy-v2.json", &data, &len), 0);
	r = json_tokener_parse(data);
	free(data);
	steps = ps_json_arr(r, "steps");
	for (size_t i = 0; i < ps_json_len(steps); i++) {
		vs = ps_json_arr(ps_json_at(steps, i), "verdicts");
		for (size_t j = 0; j < ps_json_len(vs) && failed < 2; j++) {
			json_object *v = ps_json_at(vs, j);

			if (strcmp(ps_json_str_or(v, "kind", ""), "drive"))
				continue;
			ps_json_set_str(v, "status", "fail");
			ps_json_set_str(v, "rule", "disk_read.read_error");
			ps_json_set_str(
			    v, "message",
			    "a read failed (I/O error): the drive cannot return what it "
			    "stored; replace it and restore its data from a backup");
			failed++;
		}
	}
	CHECK_INT(failed, 2);
	return r;
}

/* A plan run: the end screen of the failing report, saved as the last report. */
static int fake_run(void *arg, const char *plan, const char *csv, char *dir, size_t len)
{
	struct ps_console *con = arg;
	struct ps_run_result res = {0};
	static const struct ps_plan_info quick = {"quick", PS_PLAN_QUICK};
	struct ps_ui ui;
	json_object *r = failing_report();

	CHECK_INT(ps_write_atomic(report_dir, "report.json", json_object_to_json_string(r),
				  strlen(json_object_to_json_string(r))),
		  0);
	ps_ui_init(&ui, con, false);
	ui.plan = &quick;
	snprintf(res.dir, sizeof(res.dir), "%s", report_dir);
	snprintf(res.saved, sizeof(res.saved),
		 "report.json, report.txt, report.html and report.ocp.jsonl, all written");
	res.count[PS_PASS] = 5;
	res.count[PS_FAIL] = 1;
	res.count[PS_WARN] = 2;
	res.json_complete = true;
	res.report = r;
	ps_ui_summary(&ui, &res, false, 1);
	json_object_put(r);
	snprintf(dir, len, "%s", report_dir);
	return 0;
}

static char *drive(const char *keys)
{
	size_t n;
	const struct ps_step_ops *const *all = ps_registry(&n);
	struct ps_console con;
	struct ps_menu_env env = {.steps = all,
				  .n_steps = n,
				  .run_plan = fake_run,
				  .cfg = &cfg,
				  .root = sysroot,
				  .reports_root = reports_root};
	int in[2];
	FILE *f = tmpfile();
	long size;
	char *out;

	CHECK_INT(pipe(in), 0);
	CHECK_INT(write(in[1], keys, strlen(keys)), (int)strlen(keys));
	close(in[1]);
	ps_console_stdio(&con, in[0], fileno(f));
	env.con = &con;
	env.arg = &con;
	ps_menu_run(&env);
	ps_console_close(&con);
	close(in[0]);
	size = ftell(f);
	out = calloc(1, (size_t)size + 1);
	rewind(f);
	CHECK_INT(fread(out, 1, (size_t)size, f), size);
	fclose(f);
	if (getenv("SCREENS_DEBUG"))
		fprintf(stderr, "---- %s ----\n%s\n", keys, out);
	return out;
}

/*
 * No line over 79 columns, and no word split: a line that fills all 79
 * columns with one unbroken run after its indent is a word cut to fit.
 */

static void check_lines(const char *what, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n"), ind = strspn(p, " ");
		bool one_run = len > ind && memchr(p + ind, ' ', len - ind) == NULL;

		if (len > 79 || (len == 79 && one_run)) {
			fprintf(stderr, "%s: %s line of %zu columns: %.*s\n", what,
				len > 79 ? "a" : "a cut", len, (int)len, p);
			CHECK(0);
		}
		p += len + (p[len] == '\n');
	}
	CHECK(1);
}

/* Lines from the last start before end (both found in text); -1 when not found. */
static int lines_between(const char *text, const char *start, const char *end)
{
	const char *e = strstr(text, end), *s = NULL, *p;
	int n = 0;

	for (p = text; e && (p = strstr(p, start)) && p < e; p++)
		s = p;
	if (!s)
		return -1;
	for (p = s; p < e; p++)
		n += *p == '\n';
	return n + 1;
}

static void test_menu_screens(void)
{
	char *out = drive("x\n");
	int n;

	check_lines("menu", out);
	n = lines_between(out, "probestick menu", "Press 1-9");
	CHECK(n > 0 && n <= 24);
	/* numbered in order, an unknown key answered */
	CHECK(
	    strstr(out, "  4  show the last report\n  5  compare runs on this stick\n  6  serve") !=
	    NULL);
	CHECK(strstr(out, "Not a menu item: press one of 1-9") != NULL);
	free(out);
	out = drive("sbsb8n9n");
	check_lines("settings, reboot and power off questions", out);
	CHECK(strstr(out, "Reboot now?") && strstr(out, "Power off now?"));
	free(out);
	out = drive("p100\r\r");
	check_lines("wall meter", out);
	free(out);
}

static void test_chooser(void)
{
	char *out = drive("3ab0");
	int n;

	/* a toggle redraws one line, not the list */
	CHECK(strstr(out, "... (DESTRUCTIVE)") != NULL);
	{
		const char *p1 = strstr(out, "chosen. Enter"),
			   *p2 = p1 ? strstr(p1 + 1, "chosen. Enter") : NULL;
		const char *p3 = p2 ? strstr(p2 + 1, "chosen. Enter") : NULL;
		int lines = 0;

		for (const char *q = p2; p3 && q < p3; q++)
			lines += *q == '\n';
		CHECK(p3 && lines == 2); /* the prompt's end and the toggled line */
	}
	free(out);
	out = drive("3ab?Z0");

	check_lines("step chooser", out);
	n = lines_between(out, "Choose steps", "chosen. Enter runs them");
	CHECK(n > 0 && n <= 24);
	CHECK(strstr(out, "Not a step key") != NULL);
	free(out);
}

/* A plan from the menu: its end screen with every FAIL, the key, the pager's jumps. */
static void test_end_screen_and_pager(void)
{
	char *out = drive("1v \x20"
			  "bgsmart\r/sda\r/nothing-like-it\rq"
			  "4   q");
	int n;

	check_lines("end screen and pager", out);
	n = lines_between(out, "=====", "v: all verdicts, r: the report");
	CHECK(n > 0 && n <= 24);
	CHECK(strstr(out, "FAIL ") != NULL);
	CHECK(strstr(out, "-- more, ") != NULL);
	CHECK(strstr(out, "'nothing-like-it' is not in the report") != NULL);
	/* every page of the pager with its question fits 24 lines (the answer to g or / is
	   the line the page pushes off) */
	for (const char *p = strstr(out, "-- more, "); p; p = strstr(p + 1, "-- more, ")) {
		const char *next = strstr(p + 1, "-- more, ");
		int lines = 0;

		for (const char *q = strchr(p, '\n'); q && next && q < next;
		     q = strchr(q + 1, '\n'))
			lines += strncmp(q + 1, "Step name", 9) && strncmp(q + 1, "Find", 4) &&
				 q[1] != '\'';
		/* (q left the pager when the menu came between) */
		CHECK(!next || lines <= 23 || memmem(p, (size_t)(next - p), "probestick menu", 15));
	}
	free(out);
}

static void test_compare_and_scratch(void)
{
	char *out = drive("5\nq");

	check_lines("compare", out);
	free(out);
	out = drive("wNOPE\r\x1b"
		    "wPS-SATA-0002\rn"
		    "wPSNVME0001\r");
	check_lines("scratch", out);
	flat(out);
	CHECK(strstr(out, "Last check: disk_write will OVERWRITE") != NULL);
	free(out);
	snprintf(cfg.boot_disk, sizeof(cfg.boot_disk), "sdb");
	out = drive("wPS-SATA-0002\r");
	check_lines("scratch, the boot stick", out);
	flat(out);
	CHECK(strstr(out, "the probestick boot stick, never written") != NULL);
	CHECK(strstr(out, "is refused: the boot stick probestick runs from") != NULL);
	free(out);
	cfg.boot_disk[0] = '\0';
}

int main(void)
{
	const char *o = getenv("OUT");
	char cmd[4200], dir[1300], *data;
	size_t len;

	snprintf(reports_root, sizeof(reports_root), "%s/tests/screens-%d/reports", o ? o : "out",
		 (int)getpid());
	snprintf(report_dir, sizeof(report_dir), "%s/525400500001/20261201T122522Z-quick",
		 reports_root);
	CHECK_INT(ps_mkdirs(report_dir, 0755), 0);
	/* an older run to compare with */
	snprintf(dir, sizeof(dir), "%s/525400500001/20261201T122346Z-quick", reports_root);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	CHECK_INT(ps_read_all(FIXTURES "/core/reports/healthy-v2.json", &data, &len), 0);
	CHECK_INT(ps_write_atomic(dir, "report.json", data, len), 0);
	CHECK_INT(ps_write_atomic(report_dir, "report.json", data, len), 0);
	free(data);
	CHECK(mkdtemp(sysroot) != NULL);
	snprintf(cmd, sizeof(cmd),
		 "cp -a %s/sysroot-qemu/. %s/ && mkdir -p %s/dev && truncate -s 64M %s/dev/sdb && "
		 "printf 'start=2048,type=83\\n' | sfdisk -q %s/dev/sdb >/dev/null 2>&1",
		 FIXTURES, sysroot, sysroot, sysroot, sysroot);
	CHECK_INT(system(cmd), 0);
	ps_config_defaults(&cfg);
	test_menu_screens();
	test_chooser();
	test_end_screen_and_pager();
	test_compare_and_scratch();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s/tests/screens-%d'", sysroot, o ? o : "out",
		 (int)getpid());
	CHECK(system(cmd) == 0);
	return check_done("test_screens");
}
