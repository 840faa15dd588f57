/*
 * test_scratch.c - which drives may be written: the scratch= list, the one
 * decision (boot stick, mounted, swap, active md/LVM member, not named, no
 * serial, unread) and what a drive holds as libblkid and sysfs say, on a
 * disk image with a partition table and a labelled filesystem in a fixture
 * root whose mountinfo, holders and swaps are made up.
 */
/* link: steps */
#include "check.h"
#include "core/scratch.h"
#include "lib/util.h"
#include "hw/drive_use.h"
#include "lib/json.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/var/tmp/test_scratch.XXXXXX";

static void test_parse(void)
{
	struct ps_scratch_list l;
	char why[128];
	struct ps_config cfg;

	CHECK_INT(ps_scratch_parse("", &l, why, sizeof(why)), 0);
	CHECK_INT(l.n, 0);
	CHECK_INT(ps_scratch_parse(" WD-WCC4E1234567 , PS-SATA-0001", &l, why, sizeof(why)), 0);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.serial[0], "WD-WCC4E1234567");
	CHECK_STR(l.serial[1], "PS-SATA-0001");
	CHECK(ps_scratch_listed(&l, "PS-SATA-0001"));
	CHECK(ps_scratch_listed(&l, "  PS-SATA-0001 ")); /* sysfs pads serials */
	CHECK(!ps_scratch_listed(&l, "PS-SATA-000"));
	CHECK(!ps_scratch_listed(&l, "ps-sata-0001"));
	CHECK(!ps_scratch_listed(&l, ""));
	CHECK_INT(ps_scratch_parse("a,,b", &l, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "empty") != NULL);
	CHECK_INT(ps_scratch_parse("a,", &l, why, sizeof(why)), -EINVAL);
	CHECK_INT(ps_scratch_parse("a\tb\x01", &l, why, sizeof(why)), -EINVAL);
	CHECK_INT(
	    ps_scratch_parse("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", &l, why, sizeof(why)),
	    -EINVAL);
	CHECK(strstr(why, "more than 16") != NULL);

	/* probestick.cfg and the kernel command line: one row of the key table */
	ps_config_defaults(&cfg);
	CHECK_STR(ps_config_text(&cfg, "surface"), "sampled");
	CHECK_STR(cfg.scratch, "");
	CHECK(!ps_scratch_named(&cfg));
	CHECK_INT(ps_config_set(&cfg, "scratch", "S1,S2", why, sizeof(why)), 0);
	CHECK(ps_scratch_named(&cfg));
	CHECK_INT(ps_config_set(&cfg, "scratch", "S1,,S2", why, sizeof(why)), -EINVAL);
	CHECK_STR(cfg.scratch, "S1,S2");
	CHECK_INT(ps_config_set(&cfg, "surface", "full", why, sizeof(why)), 0);
	CHECK_INT(ps_config_set(&cfg, "surface", "half", why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "sampled, full") != NULL);
	CHECK_STR(ps_config_text(&cfg, "surface"), "full");
	ps_config_parse_cmdline(&cfg, "quiet probestick.surface=sampled probestick.scratch=X9",
				NULL);
	CHECK_STR(ps_config_text(&cfg, "surface"), "sampled");
	CHECK_STR(cfg.scratch, "X9");
	CHECK(!ps_scratch_named(NULL));
}

static struct ps_drive drive(const char *serial, bool boot)
{
	struct ps_drive d = {.boot_device = boot};

	snprintf(d.name, sizeof(d.name), "sdx");
	snprintf(d.serial, sizeof(d.serial), "%s", serial);
	return d;
}

static void test_decide(void)
{
	struct ps_scratch_list named;
	struct ps_drive_use use = {.probed = true};
	struct ps_drive d = drive("S1", false), stick = drive("S1", true), none = drive("", false);
	char why[512];

	CHECK_INT(ps_scratch_parse("S1", &named, why, sizeof(why)), 0);
	CHECK_INT(ps_scratch_decide(&d, &use, &named, why, sizeof(why)), PS_SCRATCH_OK);
	CHECK(strstr(why, "confirmed by serial S1") != NULL);
	/* the boot stick, even when its serial is named */
	CHECK_INT(ps_scratch_decide(&stick, &use, &named, why, sizeof(why)), PS_SCRATCH_BOOT);
	CHECK_STR(ps_scratch_verdict_name(PS_SCRATCH_BOOT), "boot_stick");
	/* in use: refused whatever was named */
	use.mounted = true;
	snprintf(use.mount_point, sizeof(use.mount_point), "/mnt/data (sdx1)");
	CHECK_INT(ps_scratch_decide(&d, &use, &named, why, sizeof(why)), PS_SCRATCH_MOUNTED);
	CHECK(strstr(why, "/mnt/data (sdx1)") != NULL);
	use.mounted = false;
	use.swap = true;
	CHECK_INT(ps_scratch_decide(&d, &use, &named, why, sizeof(why)), PS_SCRATCH_SWAP);
	use.swap = false;
	use.held = true;
	snprintf(use.holder, sizeof(use.holder), "md0 on sdx1");
	CHECK_INT(ps_scratch_decide(&d, &use, &named, why, sizeof(why)), PS_SCRATCH_HELD);
	CHECK(strstr(why, "md0 on sdx1") != NULL);
	use.held = false;
	/* not named; no serial at all; contents unread */
	CHECK_INT(ps_scratch_parse("S2", &named, why, sizeof(why)), 0);
	CHECK_INT(ps_scratch_decide(&d, &use, &named, why, sizeof(why)), PS_SCRATCH_NOT_NAMED);
	CHECK_INT(ps_scratch_decide(&d, &use, NULL, why, sizeof(why)), PS_SCRATCH_NOT_NAMED);
	CHECK_INT(ps_scratch_decide(&none, &use, &named, why, sizeof(why)), PS_SCRATCH_NO_SERIAL);
	CHECK_INT(ps_scratch_parse("S1", &named, why, sizeof(why)), 0);
	use.probed = false;
	use.probe_error = -EACCES;
	CHECK_INT(ps_scratch_decide(&d, &use, &named, why, sizeof(why)), PS_SCRATCH_UNREAD);
	CHECK(strstr(why, "Permission denied") != NULL);
}

static void put(const char *rel, const char *text)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	{
		char d[4200], *slash;

		snprintf(d, sizeof(d), "%s", p);
		slash = strrchr(d, '/');
		*slash = '\0';
		CHECK_INT(ps_mkdirs(d, 0755), 0);
	}
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_use(void)
{
	struct ps_drive_use u;
	char cmd[16000], dev[600], text[4096];
	json_object *j;

	/* a 64 MiB disk: a DOS table, sdx1 vfat 'PSDATA', sdx2 without a filesystem */
	snprintf(dev, sizeof(dev), "%s/dev/sdx", root);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/dev && truncate -s 64M %s && printf 'start=2048,size=65536,type=c\\n"
		 "start=67584,type=83\\n' | sfdisk -q %s >/dev/null 2>&1 && "
		 "mkfs.vfat -n PSDATA --offset 2048 %s 32768 >/dev/null 2>&1",
		 root, dev, dev, dev);
	CHECK_INT(system(cmd), 0);
	put("sys/class/block/sdx/dev", "8:16\n");
	put("sys/class/block/sdx/sdx1/partition", "1\n");
	put("sys/class/block/sdx/sdx1/dev", "8:17\n");
	put("sys/class/block/sdx/sdx2/partition", "2\n");
	put("sys/class/block/sdx/sdx2/dev", "8:18\n");
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/sys/class/block/sdx/holders "
		 "%s/sys/class/block/sdx/sdx1/holders "
		 "%s/sys/class/block/sdx/sdx2/holders",
		 root, root, root);
	CHECK_INT(system(cmd), 0);
	put("proc/self/mountinfo", "22 1 0:21 / /proc rw - proc proc rw\n");
	put("proc/swaps", "Filename Type Size Used Priority\n");

	CHECK_INT(ps_drive_use_read(root, "sdx", dev, &u), 0);
	CHECK(u.probed);
	CHECK(!u.mounted && !u.held && !u.swap);
	CHECK_STR(u.ptable, "dos");
	CHECK_INT(u.n_partitions, 2);
	CHECK_INT(u.n_parts, 2);
	CHECK_STR(u.parts[0].where, "sdx1");
	CHECK_STR(u.parts[0].type, "vfat");
	CHECK_STR(u.parts[0].label, "PSDATA");
	CHECK_INT(u.parts[0].bytes, 65536LL * 512);
	CHECK_STR(u.parts[0].part_type, "0xc");
	CHECK_STR(u.parts[1].where, "sdx2");
	CHECK_STR(u.parts[1].type, "");
	ps_drive_use_text(&u, text, sizeof(text));
	CHECK(strstr(text, "partition table: dos, 2 partitions") != NULL);
	CHECK(strstr(text, "sdx1") && strstr(text, "vfat") && strstr(text, "'PSDATA'") &&
	      strstr(text, "33.6 MB"));
	j = ps_drive_use_json(&u);
	CHECK_STR(ps_json_str(j, "partition_table"), "dos");
	CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(j, "contents"), 0), "label"), "PSDATA");
	CHECK(ps_json_get(j, "mounted_at") == NULL);
	json_object_put(j);

	/* mounted, held by md0, swap on sdx2 */
	put("proc/self/mountinfo", "22 1 0:21 / /proc rw - proc proc rw\n"
				   "40 1 8:17 / /mnt/my\\040data rw - vfat /dev/sdx1 rw\n");
	put("sys/class/block/sdx/sdx2/holders/md0", "");
	put("proc/swaps", "Filename Type Size Used Priority\n/dev/sdx2 partition 1 0 -2\n");
	CHECK_INT(ps_drive_use_read(root, "sdx", dev, &u), 0);
	CHECK(u.mounted);
	CHECK(strstr(u.mount_point, "sdx1") != NULL);
	CHECK(u.held);
	CHECK(strstr(u.holder, "md0") && strstr(u.holder, "sdx2"));
	CHECK(u.swap);
	CHECK_STR(u.swap_dev, "sdx2");
	ps_drive_use_text(&u, text, sizeof(text));
	CHECK(strstr(text, "MOUNTED") && strstr(text, "IN USE by md0") && strstr(text, "SWAP"));

	/* no partition table: a filesystem on the whole disk is what it holds */
	snprintf(cmd, sizeof(cmd),
		 "truncate -s 0 %s && truncate -s 16M %s && mkfs.ext4 -q -F -L WHOLE %s "
		 ">/dev/null 2>&1",
		 dev, dev, dev);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(ps_drive_use_read(root, "sdx", dev, &u), 0);
	CHECK_STR(u.ptable, "");
	CHECK_INT(u.n_parts, 1);
	CHECK_STR(u.parts[0].where, "sdx");
	CHECK_STR(u.parts[0].type, "ext4");
	CHECK_STR(u.parts[0].label, "WHOLE");
	CHECK_INT(u.parts[0].bytes, 16LL << 20);
	CHECK_INT(ps_drive_use_read(root, "nosuch", "/nonexistent/dev", &u), 0);
	CHECK(!u.probed);
	CHECK_INT(u.probe_error, -ENOENT);
}

/* scratch= checked against the drives at boot: NOPE names none, a padded sysfs serial counts. */
static void test_split(void)
{
	struct ps_drive d[2] = {0};
	struct ps_scratch_list named, found, missing;
	char why[128];

	snprintf(d[0].serial, sizeof(d[0].serial), "WD-WCC4E1234567");
	snprintf(d[1].serial, sizeof(d[1].serial), "S3Z9NB0K123456");
	snprintf(d[1].sysfs_serial, sizeof(d[1].sysfs_serial), "  PS-SATA-0001  ");
	CHECK_INT(ps_scratch_parse("NOPE", &named, why, sizeof(why)), 0);
	CHECK_INT(ps_scratch_split(&named, d, 2, &found, &missing), 1);
	CHECK_INT(found.n, 0);
	CHECK_STR(missing.serial[0], "NOPE");
	CHECK_INT(ps_scratch_parse("PS-SATA-0001,NOPE,WD-WCC4E1234567", &named, why, sizeof(why)),
		  0);
	CHECK_INT(ps_scratch_split(&named, d, 2, &found, &missing), 1);
	CHECK_INT(found.n, 2);
	CHECK_STR(found.serial[0], "PS-SATA-0001");
	CHECK_STR(found.serial[1], "WD-WCC4E1234567");
	CHECK_STR(missing.serial[0], "NOPE");
	CHECK_INT(ps_scratch_split(&named, d, 0, &found, &missing), 3); /* no drives at all */
}

int main(void)
{
	char cmd[4200];

	CHECK(mkdtemp(root) != NULL);
	test_parse();
	test_split();
	test_decide();
	test_use();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	return check_done("test_scratch");
}
