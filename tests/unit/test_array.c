/*
 * test_array.c - the array step's pure parts (decode/md.c) fed files recorded in
 * a guest (tests/fixtures/md: /proc/mdstat and /sys/block/mdX/md/sync_* as
 * tests/boot/test_array's guest showed them mid-rebuild), and the step's
 * refusals on file drives: the drive not confirmed, a mounted member, the
 * stick, a member of an array that was there before; the clean-up when
 * mdadm fails (a stand-in mdadm that records what it was asked).
 */
#include "check.h"
#include "step_harness.h"

#include "../../userland/steps/array.c"

#include <stdlib.h>
#include <sys/stat.h>

#define DRV_SIZE (4U << 20)

static char root[] = "/var/tmp/test_array.XXXXXX";

static char *fixture(const char *name, size_t *len)
{
	char p[4200], *d = NULL;
	size_t l = 0;

	snprintf(p, sizeof(p), "%s/md/%s", FIXTURES, name);
	CHECK_INT(ps_read_all(p, &d, &l), 0);
	if (len)
		*len = l;
	return d;
}

static void test_levels(void)
{
	struct ps_md_levels l;
	char why[128];

	CHECK_INT(ps_md_levels_parse("1,5,6", &l, why, sizeof(why)), 0);
	CHECK_INT(l.n, 3);
	CHECK_INT(l.level[0], 1);
	CHECK_INT(l.level[2], 6);
	CHECK_INT(ps_md_levels_parse(" raid10 , 0", &l, why, sizeof(why)), 0);
	CHECK_INT(l.n, 2);
	CHECK_INT(l.level[0], 10);
	CHECK_INT(l.level[1], 0);
	CHECK_INT(ps_md_levels_parse("", &l, why, sizeof(why)), 0);
	CHECK_INT(l.n, 0);
	CHECK_INT(ps_md_levels_parse("4", &l, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "'4'") != NULL);
	CHECK_INT(ps_md_levels_parse("5,5", &l, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "twice") != NULL);
	CHECK_INT(ps_md_levels_parse("1,", &l, why, sizeof(why)), -EINVAL);
	CHECK_INT(ps_md_levels_parse("1x", &l, why, sizeof(why)), -EINVAL);
	/* the drive counts: RAID 5 needs 3, 6 and 10 need 4 */
	CHECK_INT(ps_md_level_min_drives(0), 2);
	CHECK_INT(ps_md_level_min_drives(1), 2);
	CHECK_INT(ps_md_level_min_drives(5), 3);
	CHECK_INT(ps_md_level_min_drives(6), 4);
	CHECK_INT(ps_md_level_min_drives(10), 4);
	CHECK_INT(ps_md_level_min_drives(4), -1);
	CHECK_INT(ps_md_level_redundancy(0), 0);
	CHECK_INT(ps_md_level_redundancy(5), 1);
	CHECK_INT(ps_md_level_redundancy(6), 2);
}

static void test_sizes(void)
{
	uint64_t b;
	char why[128];

	CHECK_INT(ps_md_size_parse("2TB", &b), 0);
	CHECK(b == 2000000000000ULL);
	CHECK_INT(ps_md_size_parse("2TiB", &b), 0);
	CHECK(b == 2ULL << 40);
	CHECK_INT(ps_md_size_parse("1.5t", &b), 0);
	CHECK(b == 1500000000000ULL);
	CHECK_INT(ps_md_size_parse("4096", &b), 0);
	CHECK(b == 4096);
	CHECK_INT(ps_md_size_parse("2 XB", &b), -EINVAL);
	CHECK_INT(ps_md_size_parse("TB", &b), -EINVAL);
	CHECK_INT(ps_md_size_parse("-1T", &b), -EINVAL);
	/* a chunk is binary: 512K is 512 KiB, as mdadm takes it */
	CHECK_INT(ps_md_chunk_parse("512K", &b, why, sizeof(why)), 0);
	CHECK(b == 512 * 1024);
	CHECK_INT(ps_md_chunk_parse("1M", &b, why, sizeof(why)), 0);
	CHECK(b == 1 << 20);
	CHECK_INT(ps_md_chunk_parse("96K", &b, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "power of two") != NULL);
	CHECK_INT(ps_md_chunk_parse("2K", &b, why, sizeof(why)), -EINVAL);
	/* seed 000: a RAID 6 rebuild of 40 GB members in 30 minutes is about 25 h at 2 TB */
	CHECK(fabs(ps_md_extrapolate_s(1800, 40000000000ULL, 2000000000000ULL) - 90000) < 1e-6);
	CHECK(isnan(ps_md_extrapolate_s(1800, 0, 2000000000000ULL)));
	CHECK(isnan(ps_md_extrapolate_s(NAN, 1, 2)));
	CHECK(isnan(ps_md_extrapolate_s(10, 1, 0)));
}

static void test_progress_files(void)
{
	struct ps_md_sync s;
	int64_t kib;
	char *t;

	/* recorded in tests/boot/test_array's guest, mid-rebuild */
	t = fixture("sync_completed", NULL);
	CHECK_INT(ps_md_sync_completed_parse(t, &s), 0);
	CHECK_INT(s.state, PS_MD_SYNC_RUNNING);
	CHECK(s.total > 0 && s.done > 0 && s.done <= s.total);
	free(t);
	t = fixture("sync_speed", NULL);
	CHECK_INT(ps_md_sync_speed_parse(t, &kib), 0);
	CHECK(kib > 0);
	free(t);
	CHECK(ps_md_sync_eta_s(&s, kib) > 0);
	/* the same files when no sync runs, and text that is neither */
	CHECK_INT(ps_md_sync_completed_parse("none\n", &s), 0);
	CHECK_INT(s.state, PS_MD_SYNC_NONE);
	CHECK(isnan(ps_md_sync_eta_s(&s, 1000)));
	CHECK_INT(ps_md_sync_completed_parse("delayed\n", &s), 0);
	CHECK_INT(s.state, PS_MD_SYNC_DELAYED);
	CHECK_INT(ps_md_sync_completed_parse("12 / 100\n", &s), 0);
	CHECK(s.done == 12 && s.total == 100);
	/* 88 sectors left at 44 KiB/s: 1 s */
	CHECK(fabs(ps_md_sync_eta_s(&s, 44) - 1.0) < 1e-9);
	CHECK_INT(ps_md_sync_completed_parse("200 / 100\n", &s), -EINVAL);
	CHECK_INT(ps_md_sync_completed_parse("12 of 100", &s), -EINVAL);
	CHECK_INT(ps_md_sync_completed_parse("", &s), -EINVAL);
	CHECK_INT(ps_md_sync_speed_parse("none\n", &kib), 0);
	CHECK_INT(kib, -1);
	CHECK_INT(ps_md_sync_speed_parse("fast", &kib), -EINVAL);
}

static void test_mdstat(void)
{
	struct ps_mdstat st;
	const struct ps_mdstat_array *a;
	size_t len;
	char *t = fixture("mdstat-rebuild", &len);

	/* recorded mid-rebuild: one array, a member being recovered */
	CHECK_INT(ps_mdstat_parse(t, len, &st), 0);
	CHECK_INT(st.n, 1);
	a = &st.a[0];
	CHECK(strncmp(a->name, "md", 2) == 0);
	CHECK(a->active);
	CHECK(strncmp(a->level, "raid", 4) == 0);
	CHECK_INT(a->n_members, 4);
	CHECK(a->raid_disks == 4 && a->working < 4);
	CHECK_STR(a->action, "recovery");
	CHECK(a->progress_pct >= 0 && a->progress_pct <= 100);
	CHECK(a->speed_kib_s > 0);
	CHECK(strstr(st.personalities, "[raid1]") != NULL);
	CHECK(ps_mdstat_member_of(&st, a->members[0]) == a);
	CHECK(ps_mdstat_member_of(&st, "sdz") == NULL);
	free(t);
	/* the end of the step: the personalities, no array */
	t = fixture("mdstat-after", &len);
	CHECK_INT(ps_mdstat_parse(t, len, &st), 0);
	CHECK_INT(st.n, 0);
	free(t);
	/* an array of another system, inactive, on a partition; a failed and a spare member */
	{
		static const char txt[] =
		    "Personalities : [raid1] \n"
		    "md127 : inactive sdc1[1](S)\n"
		    "      976630488 blocks super 1.2\n"
		    "       \n"
		    "md0 : active raid1 sdb[2](F) sdd[1] sde[3](S)\n"
		    "      1048512 blocks super 1.2 [2/1] [_U]\n"
		    "      [===>.................]  resync = 17.5% (183424/1048512) finish=0.4min "
		    "speed=30570K/sec\n"
		    "      \n"
		    "unused devices: <none>\n";

		CHECK_INT(ps_mdstat_parse(txt, sizeof(txt) - 1, &st), 0);
		CHECK_INT(st.n, 2);
		CHECK(!st.a[0].active);
		CHECK_STR(st.a[0].members[0], "sdc1");
		CHECK(st.a[0].spare[0]);
		CHECK(ps_mdstat_member_of(&st, "sdc") == &st.a[0]);
		CHECK_STR(st.a[1].level, "raid1");
		CHECK(st.a[1].faulty[0] && !st.a[1].faulty[1] && st.a[1].spare[2]);
		CHECK(st.a[1].raid_disks == 2 && st.a[1].working == 1);
		CHECK_STR(st.a[1].action, "resync");
		CHECK(fabs(st.a[1].progress_pct - 17.5) < 1e-9);
		CHECK(fabs(st.a[1].finish_min - 0.4) < 1e-9);
		CHECK_INT(st.a[1].speed_kib_s, 30570);
	}
	CHECK_INT(ps_mdstat_parse("hello\n", 6, &st), -EINVAL);
}

/* ---- the step on file drives ---- */

static void put(const char *rel, const char *text, unsigned int mode)
{
	char p[4200], dir[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", p);
	*strrchr(dir, '/') = 0;
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	f = fopen(p, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
}

static void make_drive(const char *name)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/dev", root);
	CHECK_INT(ps_mkdirs(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/dev/%s", root, name);
	f = fopen(p, "w");
	for (unsigned int i = 0; i < DRV_SIZE; i++)
		fputc((int)(i * 7 + name[0]) & 0xff, f);
	fclose(f);
}

static uint64_t sum_of(const char *name)
{
	char p[4200], *d = NULL;
	size_t len = 0;
	uint64_t h = 1469598103934665603ULL;

	snprintf(p, sizeof(p), "%s/dev/%s", root, name);
	CHECK_INT(ps_read_all(p, &d, &len), 0);
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)d[i]) * 1099511628211ULL;
	free(d);
	return h;
}

static struct ps_drive drv(const char *name, const char *serial, bool boot)
{
	struct ps_drive d = {.logical_sector = 512, .boot_device = boot, .size_bytes = DRV_SIZE};

	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.serial, sizeof(d.serial), "%s", serial);
	snprintf(d.id, sizeof(d.id), "drive:test:%s", name);
	return d;
}

static struct ps_config cfg;

static bool abort_at_start;

static void run_step(struct harness *h, const char *scratch, const char *levels,
		     const struct ps_drive *d, size_t n)
{
	char why[256];

	ps_config_defaults(&cfg);
	CHECK_INT(ps_config_set(&cfg, "scratch", scratch, why, sizeof(why)), 0);
	CHECK_INT(ps_config_set(&cfg, "array", levels, why, sizeof(why)), 0);
	CHECK_INT(ps_config_set(&cfg, "array_extrapolate", "2TB", why, sizeof(why)), 0);
	harness_init(h, &array_ops, root, PS_PLAN_QUICK);
	h->ctx.cfg = &cfg;
	h->inv.drives = calloc(n, sizeof(*d));
	memcpy(h->inv.drives, d, n * sizeof(*d));
	h->inv.n_drives = n;
	h->inv.taken = true;
	h->abort_flag = abort_at_start; /* the key pressed as the step starts */
	harness_run(h);
}

static const char *decision(struct harness *h, const char *name)
{
	json_object *ds = ps_json_arr(h->data, "drives");

	for (size_t i = 0; i < ps_json_len(ds); i++)
		if (strcmp(ps_json_str_or(ps_json_at(ds, i), "name", ""), name) == 0)
			return ps_json_str(ps_json_at(ds, i), "decision");
	return NULL;
}

static const char *reason(struct harness *h)
{
	return h->run.reason;
}

static void test_refusals(void)
{
	struct ps_drive d[] = {drv("scr1", "SCR1", false), drv("scr2", "SCR2", false),
			       drv("stick", "STICK1", true), drv("keep", "KEEP1", false),
			       drv("scr3", "SCR3", false)};
	uint64_t before[5];
	struct harness h;

	for (size_t i = 0; i < 5; i++) {
		make_drive(d[i].name);
		before[i] = sum_of(d[i].name);
	}
	/* array= empty: skipped before a drive is looked at */
	run_step(&h, "SCR1,SCR2", "", d, 2);
	CHECK_INT(h.status, PS_SKIPPED);
	CHECK(strstr(reason(&h), "array=") != NULL);
	harness_done(&h);

	/* scr2 mounted, the stick named, keep not named, scr3 in an array of before: one left */
	put("sys/class/block/scr2/dev", "8:32\n", 0644);
	put("proc/self/mountinfo", "40 1 8:32 / /mnt/scr rw - ext4 /dev/scr2 rw\n", 0644);
	put("proc/mdstat",
	    "Personalities : [raid1] \nmd0 : active raid1 scr3[0] other[1]\n"
	    "      4096 blocks super 1.2 [2/2] [UU]\n      \nunused devices: <none>\n",
	    0644);
	run_step(&h, "SCR1,SCR2,STICK1,SCR3", "1,5", d, 5);
	CHECK_INT(h.status, PS_SKIPPED);
	CHECK(strstr(reason(&h), "two or more") != NULL);
	CHECK_STR(decision(&h, "scr1"), "ok");
	CHECK_STR(decision(&h, "scr2"), "mounted");
	CHECK_STR(decision(&h, "stick"), "boot_stick");
	CHECK_STR(decision(&h, "keep"), "not_named");
	CHECK_STR(decision(&h, "scr3"), "in_use");
	CHECK_INT(harness_count(&h, "array.refused", "warn"), 3);
	CHECK_INT(ps_json_len(ps_json_arr(h.data, "md_before")), 1);
	CHECK_INT(ps_json_len(ps_json_arr(h.data, "levels")), 0);
	harness_done(&h);

	/* two drives free, but no mdadm on the system: an error, nothing written */
	{
		char p[4200];

		snprintf(p, sizeof(p), "%s/proc/self/mountinfo", root);
		unlink(p);
	}
	run_step(&h, "SCR1,SCR2", "1,5", d, 5);
	CHECK_INT(h.status, PS_ERROR);
	CHECK(strstr(reason(&h), "mdadm") != NULL);
	harness_done(&h);
	for (size_t i = 0; i < 5; i++)
		CHECK(sum_of(d[i].name) == before[i]);
}

/* A stand-in mdadm: records its arguments; --create fails, --examine finds nothing. */
static void test_cleanup_on_error(void)
{
	struct ps_drive d[] = {drv("scr1", "SCR1", false), drv("scr2", "SCR2", false),
			       drv("scr3", "SCR3", false)};
	char script[4200 * 2], log[4200], *text = NULL;
	size_t len = 0;
	struct harness h;
	json_object *lv, *c;

	for (size_t i = 0; i < 3; i++)
		make_drive(d[i].name);
	snprintf(log, sizeof(log), "%s/mdadm.log", root);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\necho \"$*\" >>'%s'\n"
		 "case \"$1\" in --create) echo 'mdadm: cannot open: Device busy'; exit 1;; "
		 "--examine) exit 1;; esac\nexit 0\n",
		 log);
	put("sbin/mdadm", script, 0755);
	put("proc/mdstat", "Personalities : [raid1] \nunused devices: <none>\n", 0644);
	run_step(&h, "SCR1,SCR2,SCR3", "1,6,0", d, 3);
	/* RAID 6 needs 4: skipped with its reason; RAID 1's and 0's creates failed: errors */
	CHECK_INT(h.status, PS_ERROR);
	lv = ps_json_arr(h.data, "levels");
	CHECK_INT(ps_json_len(lv), 3);
	CHECK_STR(ps_json_str(ps_json_at(lv, 0), "status"), "error");
	CHECK(strstr(ps_json_str_or(ps_json_at(lv, 0), "reason", ""), "Device busy") != NULL);
	CHECK_STR(ps_json_str(ps_json_at(lv, 1), "status"), "skipped");
	CHECK(strstr(ps_json_str_or(ps_json_at(lv, 1), "reason", ""), "needs 4") != NULL);
	CHECK_STR(ps_json_str(ps_json_at(lv, 2), "status"), "error");
	c = ps_json_get(h.data, "cleanup");
	CHECK(ps_json_bool(c, "clean") == 1);
	CHECK_INT(ps_json_len(ps_json_arr(c, "md_left")), 0);
	harness_done(&h);
	/* the failed array was stopped and every member wiped, after the create too */
	CHECK_INT(ps_read_all(log, &text, &len), 0);
	CHECK(strstr(text, "--create") != NULL);
	CHECK(strstr(text, "--level=1") != NULL);
	CHECK(strstr(text, "--bitmap=none") != NULL);
	/* RAID 0 has no bitmap to switch off: mdadm refuses the option for it */
	CHECK(strstr(text, "--level=0") != NULL);
	{
		const char *l0 = strstr(text, "--level=0"), *start = l0, *end = strchr(l0, '\n');
		char line[1024];

		while (start > text && start[-1] != '\n')
			start--;
		snprintf(line, sizeof(line), "%.*s", (int)(end - start), start);
		CHECK(strstr(line, "--create") != NULL);
		CHECK(strstr(line, "--bitmap") == NULL);
	}
	CHECK(strstr(text, "--stop") != NULL && strstr(text, "--stop") > strstr(text, "--create"));
	for (size_t i = 0; i < 3; i++) {
		char want[4300];

		snprintf(want, sizeof(want), "--zero-superblock %s/dev/%s", root, d[i].name);
		CHECK(strstr(strstr(text, "--stop"), want) != NULL);
	}
	free(text);

	/* the abort key pressed as the step starts: no array built, nothing left */
	unlink(log);
	abort_at_start = true;
	run_step(&h, "SCR1,SCR2,SCR3", "5", d, 3);
	abort_at_start = false;
	CHECK_INT(h.status, PS_ABORTED);
	CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(h.data, "levels"), 0), "status"), "aborted");
	CHECK(ps_json_bool(ps_json_get(h.data, "cleanup"), "clean") == 1);
	harness_done(&h);
	text = NULL;
	CHECK_INT(ps_read_all(log, &text, &len), 0);
	CHECK(strstr(text, "--create") == NULL);
	CHECK(strstr(text, "--examine") != NULL);
	free(text);
}

int main(void)
{
	char cmd[4200];

	test_levels();
	test_sizes();
	test_progress_files();
	test_mdstat();
	CHECK(mkdtemp(root) != NULL);
	test_refusals();
	test_cleanup_on_error();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	return check_done("test_array");
}
