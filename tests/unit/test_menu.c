/* test_menu.c - drive the menu with keys through a pipe and check what it ran and printed. */
#include "check.h"
#include "console.h"
#include "menu.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_ok(struct ps_ctx *ctx)
{
	return PS_PASS;
}

static const struct ps_step_ops s_inv = {.abi = PS_STEP_ABI,
					 .name = "inventory",
					 .title = "machine",
					 .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
					 .run = run_ok};
static const struct ps_step_ops s_surface = {.abi = PS_STEP_ABI,
					     .name = "surface",
					     .title = "surface scan",
					     .plans = PS_PLAN_FULL,
					     .order = 40,
					     .run = run_ok};

static char runs[8][128];
static int n_runs;
static char report_dir[1024];

static int fake_run(void *arg, const char *plan, const char *csv, char *dir, size_t len)
{
	snprintf(runs[n_runs++], sizeof(runs[0]), "%s:%s", plan, csv ? csv : "-");
	snprintf(dir, len, "%s", report_dir);
	return 0;
}

/* Feed keys, run the menu, return its action; *out gets what it printed (malloc'd). */
static enum ps_action drive(const char *keys, char **out)
{
	const struct ps_step_ops *steps[] = {&s_inv, &s_surface};
	struct ps_menu_env env = {.steps = steps, .n_steps = 2, .run_plan = fake_run};
	struct ps_console con;
	int in[2];
	FILE *f = tmpfile();
	enum ps_action a;
	long size;

	CHECK_INT(pipe(in), 0);
	CHECK_INT(write(in[1], keys, strlen(keys)), (int)strlen(keys));
	close(in[1]); /* the end of the keys is the end of input */
	ps_console_stdio(&con, in[0], fileno(f));
	env.con = &con;
	a = ps_menu_run(&env);
	ps_console_close(&con);
	close(in[0]);
	size = ftell(f);
	*out = calloc(1, (size_t)size + 1);
	rewind(f);
	CHECK_INT(fread(*out, 1, (size_t)size, f), size);
	fclose(f);
	return a;
}

static void test_session(void)
{
	char *out;
	enum ps_action a;

	n_runs = 0;
	/* bad key; quick; full; choose: toggle surface on, run; show report, stop paging;
	   power off refused; reboot confirmed */
	a = drive("9\n12"
		  "3b\r"
		  "4q"
		  "7n"
		  "6y",
		  &out);
	CHECK_INT(a, PS_ACT_REBOOT);
	CHECK_STR(ps_action_name(a), "reboot");
	CHECK_INT(n_runs, 3);
	CHECK_STR(runs[0], "quick:-");
	CHECK_STR(runs[1], "full:-");
	CHECK_STR(runs[2], "custom:inventory,surface");
	CHECK(strstr(out, "Not a menu item") != NULL);
	CHECK(strstr(out, "a [x] inventory") != NULL);
	CHECK(strstr(out, "b [ ] surface") != NULL);
	CHECK(strstr(out, "b [x] surface") != NULL); /* the list is redrawn after a toggle */
	CHECK(strstr(out, "PCI functions (3)") != NULL);
	CHECK(strstr(out, "-- more") != NULL);
	CHECK(strstr(out, "Memory") == NULL); /* q stopped the pager on page 1 */
	CHECK(strstr(out, "Power off now?") != NULL);
	free(out);
}

static void test_end_of_input(void)
{
	char *out;

	n_runs = 0;
	CHECK_INT(drive("3ab", &out), PS_ACT_SHELL);
	CHECK_INT(n_runs, 0);
	CHECK(strstr(out, "No more input") != NULL);
	free(out);
	CHECK_INT(drive("", &out), PS_ACT_SHELL);
	free(out);
	CHECK_INT(drive("7", &out), PS_ACT_SHELL); /* no confirmation: never powers off */
	CHECK(strstr(out, "No more input") != NULL);
	free(out);
	CHECK_INT(drive("5", &out), PS_ACT_SHELL);
	free(out);
	CHECK_INT(drive("7Y", &out), PS_ACT_POWEROFF);
	CHECK_STR(ps_action_name(PS_ACT_POWEROFF), "poweroff");
	free(out);
}

static void test_no_report(void)
{
	char *out;
	const char *keep = report_dir;

	(void)keep;
	report_dir[0] = '\0';
	drive("4", &out);
	CHECK(strstr(out, "No report yet") != NULL);
	free(out);
	/* a damaged report: a clear message, the menu goes on */
	snprintf(report_dir, sizeof(report_dir), "%s", FIXTURES "/core/reports/damaged");
	drive("14", &out);
	CHECK(strstr(out, "Cannot show the report") != NULL);
	CHECK(strstr(out, "not valid JSON") != NULL);
	free(out);
}

int main(void)
{
	char *data;
	size_t len;
	const char *o = getenv("OUT");

	snprintf(report_dir, sizeof(report_dir), "%s/tests/menu-%d", o ? o : "out", (int)getpid());
	CHECK_INT(ps_mkdirs(report_dir, 0755), 0);
	CHECK_INT(ps_read_all(FIXTURES "/core/reports/full.json", &data, &len), 0);
	CHECK_INT(ps_write_atomic(report_dir, "report.json", data, len), 0);
	free(data);
	test_session();
	test_end_of_input();
	test_no_report();
	return check_done("test_menu");
}
