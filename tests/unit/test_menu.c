/* test_menu.c - drive the menu with keys through a pipe and check what it ran and printed. */
#include "check.h"
/* link: steps */
#include "cli/console.h"
#include "cli/menu.h"
#include "lib/json.h"
#include "lib/util.h"

#include <json-c/json.h>
#include <math.h>

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
static char saved_report_dir[1024];
static const char *reports_root; /* what "compare" offers; NULL: none */

static int fake_run(void *arg, const char *plan, const char *csv, char *dir, size_t len)
{
	snprintf(runs[n_runs++], sizeof(runs[0]), "%s:%s", plan, csv ? csv : "-");
	snprintf(dir, len, "%s", report_dir);
	return 0;
}

static struct ps_config menu_cfg;
static char sysroot[] = "/var/tmp/test_menu_root.XXXXXX";

/* Feed keys, run the menu, return its action; *out gets what it printed (malloc'd). */
static enum ps_action drive(const char *keys, char **out)
{
	const struct ps_step_ops *steps[] = {&s_inv, &s_surface};
	struct ps_menu_env env = {.steps = steps,
				  .n_steps = 2,
				  .run_plan = fake_run,
				  .cfg = &menu_cfg,
				  .root = sysroot,
				  .reports_root = reports_root};
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
	/* bad key; serve (not built in here); quick; full; choose: toggle surface on, run; show
	   report, stop paging; power off refused; reboot confirmed */
	a = drive("0\n9\n12"
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
	CHECK(strstr(out, "Server mode is not built in.") != NULL); /* 9 without env->serve */
	CHECK(strstr(out, "a [x] inventory") != NULL);
	CHECK(strstr(out, "b [ ] surface") != NULL);
	CHECK(strstr(out, "b [x] surface") != NULL); /* the list is redrawn after a toggle */
	CHECK(strstr(out, "Verdicts") != NULL);	     /* the first page leads with the answer */
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

/* s switches the surface scan; w takes a typed serial after showing what each drive holds. */
static void test_surface_and_scratch(void)
{
	char *out;

	ps_config_defaults(&menu_cfg);
	drive("s", &out);
	CHECK_STR(ps_config_text(&menu_cfg, "surface"), "full");
	CHECK(strstr(out, "s  surface scan of the full plan: sampled") != NULL);
	CHECK(strstr(out, "Surface scan of the full plan is now full: every sector") != NULL);
	free(out);
	drive("s", &out);
	CHECK_STR(ps_config_text(&menu_cfg, "surface"), "sampled");
	free(out);

	/* b steps the burn-in's budget through 10m, 1h, 4h and back to the default */
	drive("bb", &out);
	CHECK_STR(ps_config_text(&menu_cfg, "burnin"), "1h");
	CHECK(strstr(out, "b  burn-in budget: default") != NULL);
	CHECK(strstr(out, "Burn-in budget is now 10m: 10 minutes") != NULL);
	CHECK(strstr(out, "b  burn-in budget: 10m") != NULL);
	free(out);
	drive("bb", &out);
	CHECK_STR(ps_config_text(&menu_cfg, "burnin"), "");
	CHECK(strstr(out, "is now default: 60 s, the full plan's default") != NULL);
	free(out);

	/* a serial no drive has; then Esc; then the SATA disk's, with a typo fixed */
	drive("wNOPE\rw\x1b"
	      "wPS-SATA-0003\x7f"
	      "2\r",
	      &out);
	CHECK(strstr(out, "No drive has serial 'NOPE'") != NULL);
	CHECK(strstr(out, "sdb  QEMU HARDDISK  serial PS-SATA-0002") != NULL);
	/* what it holds, read with libblkid: the DOS table and the labelled filesystem */
	CHECK(strstr(out, "partition table: dos, 1 partitions") != NULL);
	CHECK(strstr(out, "'MENUTEST'") != NULL);
	CHECK(strstr(out, "sdb (serial PS-SATA-0002) is confirmed as scratch") != NULL);
	CHECK_STR(menu_cfg.scratch, "PS-SATA-0002");
	CHECK(strstr(out, "scratch drive for disk_write (PS-SATA-0002)") != NULL);
	free(out);
	/* a drive whose contents cannot be read is refused, not confirmed blind */
	drive("wPSNVME0001\r", &out);
	CHECK(strstr(out, "nvme0n1 is refused: what it holds could not be read") != NULL);
	CHECK_STR(menu_cfg.scratch, "PS-SATA-0002");
	free(out);
	ps_config_defaults(&menu_cfg);
}

/* p: the wall meter's readings by hand, for the plans run from here and the last run. */
static void test_wall(void)
{
	char *out, *data, path[1200];
	size_t len;
	json_object *r, *w;

	ps_config_defaults(&menu_cfg);
	/* before any run: only the menu's plans get them; a typo is refused */
	report_dir[0] = '\0';
	drive("pabc\r205 W\r", &out);
	CHECK(strstr(out, "'abc' is not a reading in watts") != NULL);
	CHECK(strstr(out, "the machine waits at this menu now") != NULL);
	CHECK(strstr(out, "\"burn-in: read wall meter\"") != NULL);
	CHECK_STR(menu_cfg.wall_idle, "");
	CHECK_STR(menu_cfg.wall_load, "205.0");
	CHECK_STR(menu_cfg.wall_source, "menu");
	CHECK(strstr(out, "wall meter readings: idle - W, full load 205.0 W") != NULL);
	free(out);
	/* after a run: idle typed, load kept, stored with that run (every file rewritten) */
	snprintf(report_dir, sizeof(report_dir), "%s", saved_report_dir);
	drive("1p98.5\r\ry", &out);
	CHECK(strstr(out, "Stored with the run in") != NULL);
	CHECK_STR(menu_cfg.wall_idle, "98.5");
	free(out);
	snprintf(path, sizeof(path), "%s/report.json", report_dir);
	r = json_object_from_file(path);
	w = r ? ps_json_ptr(r, "/power/wall") : NULL;
	CHECK(w != NULL);
	CHECK(fabs(json_object_get_double(ps_json_get(w, "idle_w")) - 98.5) < 1e-9);
	CHECK(fabs(json_object_get_double(ps_json_get(w, "load_w")) - 205) < 1e-9);
	CHECK_STR(ps_json_str(w, "source"), "menu");
	json_object_put(r);
	snprintf(path, sizeof(path), "%s/report.txt", report_dir);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	CHECK(strstr(data, "wall, idle") != NULL && strstr(data, "98.5 W") != NULL);
	free(data);
	/* '-' clears a reading */
	drive("p-\r\rn", &out);
	CHECK_STR(menu_cfg.wall_idle, "");
	free(out);
	ps_config_defaults(&menu_cfg);
}

/* Item 8: the runs on the stick, the newest two of the newest machine chosen, compared. */
static void test_compare(void)
{
	char root[1100], dir[1200], *data, *out, path[1300];
	size_t len;
	static const char *const fixtures[] = {"healthy-v2.json", "nomodule-v2.json"};
	static const char *const stamps[] = {"20261201T122346Z-quick", "20261201T122522Z-quick"};

	snprintf(root, sizeof(root), "%s/tests/menu-stick-%d/reports",
		 getenv("OUT") ? getenv("OUT") : "out", (int)getpid());
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), FIXTURES "/core/reports/%s", fixtures[i]);
		snprintf(dir, sizeof(dir), "%s/525400500001/%s", root, stamps[i]);
		CHECK_INT(ps_mkdirs(dir, 0755), 0);
		CHECK_INT(ps_read_all(path, &data, &len), 0);
		CHECK_INT(ps_write_atomic(dir, "report.json", data, len), 0);
		free(data);
	}
	reports_root = root;
	/* 8, Enter compares; q stops the paging; input ends: a shell */
	drive("8\nq", &out);
	CHECK(strstr(out, "  8  compare runs on this stick") != NULL);
	CHECK(strstr(out, "  a [x] 2026-12-01T12:25:22Z quick") != NULL);
	CHECK(strstr(out, "  b [x] 2026-12-01T12:23:46Z quick") != NULL);
	CHECK(strstr(out, "probestick compare: 2 runs of the same machine") != NULL);
	free(out);
	snprintf(path, sizeof(path), "%s/compare.html", root);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	CHECK(strstr(data, "<h1>probestick compare</h1>") != NULL);
	free(data);
	snprintf(path, sizeof(path), "%s/index.html", root);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	CHECK(strstr(data, "href=\"compare.html\"") != NULL);
	free(data);
	/* one run chosen only: no comparison */
	drive("8a\n", &out);
	CHECK(strstr(out, "Choose two runs or more.") != NULL);
	free(out);
	/* no stick: nothing to compare, the menu goes on */
	reports_root = NULL;
	drive("8", &out);
	CHECK(strstr(out, "Fewer than two runs on the stick") != NULL);
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
	snprintf(saved_report_dir, sizeof(saved_report_dir), "%s", report_dir);
	free(data);
	{
		char cmd[4200];

		CHECK(mkdtemp(sysroot) != NULL);
		snprintf(cmd, sizeof(cmd),
			 "cp -a %s/sysroot-qemu/. %s/ && mkdir -p %s/dev && truncate -s 64M "
			 "%s/dev/sdb && printf 'start=2048,type=83\\n' | sfdisk -q %s/dev/sdb "
			 ">/dev/null 2>&1 && mkfs.vfat -n MENUTEST --offset 2048 %s/dev/sdb 32768 "
			 ">/dev/null 2>&1",
			 FIXTURES, sysroot, sysroot, sysroot, sysroot, sysroot);
		CHECK_INT(system(cmd), 0);
	}
	ps_config_defaults(&menu_cfg);
	test_session();
	test_surface_and_scratch();
	test_wall();
	test_end_of_input();
	test_no_report();
	test_compare();
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sysroot);
		CHECK(system(cmd) == 0);
	}
	return check_done("test_menu");
}
