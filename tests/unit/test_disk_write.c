/*
 * test_disk_write.c - writes only where confirmed: the LBA pattern and what a
 * read-back tells (misdirected, stale, never written, corrupt); the step on
 * file drives: the confirmed one written and verified clean with its sectors
 * stamped, every other drive byte for byte unchanged (not named, the boot
 * stick even when named, a mounted one), a serial matching no drive, write
 * errors with their LBAs.
 */
#include "check.h"
#include "step_harness.h"

#include "../../userland/steps/disk_write.c"

#include <stdlib.h>
#include <sys/stat.h>

#define SCR_SIZE  (24U << 20)
#define KEEP_SIZE (8U << 20)

static char root[] = "/var/tmp/test_disk_write.XXXXXX";

static void test_pattern(void)
{
	struct ps_pattern p = {.lsec = 512, .pass = 77, .tag = ps_pattern_tag("SCR1")};
	struct ps_pattern old = p;
	unsigned char buf[8 * 512], tmp[512];
	struct ps_pattern_check c;

	CHECK(ps_pattern_tag("SCR1") != ps_pattern_tag("SCR2"));
	ps_pattern_fill(&p, buf, 4096, sizeof(buf));
	ps_pattern_check_init(&c);
	ps_pattern_verify(&p, buf, 4096, sizeof(buf), &c);
	CHECK_INT(c.sectors, 8);
	CHECK_INT(c.ok, 8);
	CHECK(c.first_bad_lba == UINT64_MAX);
	/* read at another position: every sector claims another LBA */
	ps_pattern_check_init(&c);
	ps_pattern_verify(&p, buf, 8192, sizeof(buf), &c);
	CHECK_INT(c.misdirected, 8);
	CHECK_INT(c.found_lba, 8);
	CHECK_INT(c.first_bad_lba, 16);
	/* sectors 2 and 5 swapped: two misdirected, the first holds LBA 13 */
	memcpy(tmp, buf + 2 * 512, 512);
	memcpy(buf + 2 * 512, buf + 5 * 512, 512);
	memcpy(buf + 5 * 512, tmp, 512);
	ps_pattern_check_init(&c);
	ps_pattern_verify(&p, buf, 4096, sizeof(buf), &c);
	CHECK_INT(c.ok, 6);
	CHECK_INT(c.misdirected, 2);
	CHECK_INT(c.first_bad_lba, 10);
	CHECK_INT(c.found_lba, 13);
	/* an older pass (a write that did not land), zeros (never written), a flipped byte */
	old.pass = 76;
	ps_pattern_fill(&old, buf, 4096, 512);
	memset(buf + 512, 0, 512);
	ps_pattern_fill(&p, buf + 1024, 4096 + 1024, 512 * 6);
	buf[1024 + 300] ^= 1;
	ps_pattern_check_init(&c);
	ps_pattern_verify(&p, buf, 4096, sizeof(buf), &c);
	CHECK_INT(c.stale, 1);
	CHECK_INT(c.foreign, 1);
	CHECK_INT(c.corrupt, 1);
	CHECK_INT(c.ok, 5);
	CHECK_INT(c.first_bad_lba, 8);
	/* 4Kn sectors */
	{
		static unsigned char big[3 * 4096];
		struct ps_pattern q = {.lsec = 4096, .pass = 1, .tag = 2};

		ps_pattern_fill(&q, big, 1 << 20, sizeof(big));
		ps_pattern_check_init(&c);
		ps_pattern_verify(&q, big, 1 << 20, sizeof(big), &c);
		CHECK_INT(c.ok, 3);
	}
}

static void make_file(const char *name, size_t size, unsigned char seed)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/dev/%s", root, name);
	f = fopen(p, "w");
	CHECK(f != NULL);
	for (size_t i = 0; f && i < size; i++)
		fputc((int)((i * 31 + seed) & 0xff), f);
	if (f)
		fclose(f);
}

static unsigned char *slurp(const char *name, size_t *len)
{
	char p[4200], *d = NULL;

	snprintf(p, sizeof(p), "%s/dev/%s", root, name);
	CHECK_INT(ps_read_all(p, &d, len), 0);
	return (unsigned char *)d;
}

static struct ps_drive drv(const char *name, const char *serial, size_t size, bool boot)
{
	struct ps_drive d = {
	    .logical_sector = 512, .boot_device = boot, .size_bytes = (int64_t)size};

	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.serial, sizeof(d.serial), "%s", serial);
	snprintf(d.id, sizeof(d.id), "drive:test:%s", name);
	return d;
}

static void run_step(struct harness *h, const char *scratch, const struct ps_drive *d, size_t n)
{
	static struct ps_config cfg;

	ps_config_defaults(&cfg);
	ps_config_set(&cfg, "scratch", scratch, (char[128]){0}, 128);
	harness_init(h, &disk_write_ops, root, PS_PLAN_QUICK);
	h->ctx.cfg = &cfg;
	h->inv.drives = calloc(n, sizeof(*d));
	memcpy(h->inv.drives, d, n * sizeof(*d));
	h->inv.n_drives = n;
	h->inv.taken = true;
	harness_run(h);
}

static json_object *drive_data(struct harness *h, const char *name)
{
	json_object *ds = ps_json_arr(h->data, "drives");

	for (size_t i = 0; i < ps_json_len(ds); i++)
		if (strcmp(ps_json_str_or(ps_json_at(ds, i), "name", ""), name) == 0)
			return ps_json_at(ds, i);
	return NULL;
}

static int64_t num(json_object *o, const char *ptr)
{
	json_object *v = ps_json_ptr(o, ptr);

	return v ? json_object_get_int64(v) : -999;
}

static const char *verdict_of_first(struct harness *h)
{
	return ps_json_str(ps_json_at(h->verdicts, 0), "status");
}

/* Fault hook: EIO for writes of the pieces starting in [from, to). */
static uint64_t eio_from = UINT64_MAX, eio_to;
static int fail_writes(void *arg, uint64_t off, unsigned int len, int res)
{
	return off >= eio_from && off < eio_to ? -EIO : res;
}

static void test_step(void)
{
	struct ps_drive d[] = {drv("scr", "SCR1", SCR_SIZE, false),
			       drv("keep", "KEEP1", KEEP_SIZE, false),
			       drv("stick", "STICK1", KEEP_SIZE, true)};
	unsigned char *keep0, *stick0, *after, *scr;
	size_t klen, slen, alen, len;
	struct harness h;
	json_object *x, *v;

	make_file("scr", SCR_SIZE, 1);
	make_file("keep", KEEP_SIZE, 2);
	make_file("stick", KEEP_SIZE, 3);
	keep0 = slurp("keep", &klen);
	stick0 = slurp("stick", &slen);

	run_step(&h, "SCR1,STICK1,NOPE", d, 3);
	CHECK_INT(h.status, PS_PASS);
	x = drive_data(&h, "scr");
	CHECK_STR(ps_json_str(x, "decision"), "ok");
	CHECK(ps_json_get(x, "held_before") != NULL);
	CHECK_INT(ps_json_len(ps_json_arr(x, "results")), 2);
	CHECK(num(x, "/seq_mbps") > 0);
	CHECK(num(x, "/rand_iops") > 0);
	v = ps_json_get(x, "verify");
	CHECK(ps_json_bool(v, "clean") == 1);
	CHECK_INT(num(v, "/written_bytes"), num(v, "/checked_bytes"));
	/* the quick plan verifies 256 MiB, or the drive when smaller: 4 regions of 6 MiB */
	CHECK_INT(num(v, "/written_bytes"), SCR_SIZE);
	CHECK_INT(num(v, "/sectors"), SCR_SIZE / 512);
	CHECK_INT(
	    num(v, "/misdirected") + num(v, "/stale") + num(v, "/foreign") + num(v, "/corrupt"), 0);
	CHECK_INT(ps_json_len(ps_json_arr(v, "regions")), 4);
	CHECK_STR(verdict_of_first(&h), "pass");
	/* what is on the drive now: every sector of the regions carries its own LBA */
	scr = slurp("scr", &len);
	{
		struct ps_pattern p = {.lsec = 512,
				       .pass = (uint64_t)num(v, "/pass_id"),
				       .tag = ps_pattern_tag("SCR1")};
		struct ps_pattern_check c;

		ps_pattern_check_init(&c);
		ps_pattern_verify(&p, scr, 0, len, &c);
		CHECK_INT(c.ok, SCR_SIZE / 512);
	}
	free(scr);
	/* nobody else was touched */
	after = slurp("keep", &alen);
	CHECK(alen == klen && memcmp(after, keep0, klen) == 0);
	free(after);
	after = slurp("stick", &alen);
	CHECK(alen == slen && memcmp(after, stick0, slen) == 0);
	free(after);
	CHECK_STR(ps_json_str(drive_data(&h, "keep"), "decision"), "not_named");
	CHECK_STR(ps_json_str(drive_data(&h, "stick"), "decision"), "boot_stick");
	CHECK(ps_json_get(drive_data(&h, "stick"), "results") == NULL);
	CHECK_INT(harness_count(&h, "disk_write.refused", "warn"), 1);
	CHECK_INT(harness_count(&h, "disk_write.not_found", "warn"), 1);
	harness_done(&h);

	/* mounted: refused even when named, and unchanged */
	make_file("scr", SCR_SIZE, 1);
	keep0 = (free(keep0), slurp("scr", &klen));
	{
		char p[4200];
		FILE *f;

		snprintf(p, sizeof(p), "%s/sys/class/block/scr", root);
		CHECK_INT(ps_mkdirs(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/sys/class/block/scr/dev", root);
		f = fopen(p, "w");
		fputs("8:32\n", f);
		fclose(f);
		snprintf(p, sizeof(p), "%s/proc/self", root);
		CHECK_INT(ps_mkdirs(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/proc/self/mountinfo", root);
		f = fopen(p, "w");
		fputs("40 1 8:32 / /mnt/scr rw - ext4 /dev/scr rw\n", f);
		fclose(f);
	}
	run_step(&h, "SCR1", d, 1);
	CHECK_INT(h.status, PS_SKIPPED);
	CHECK_STR(ps_json_str(drive_data(&h, "scr"), "decision"), "mounted");
	CHECK_INT(harness_count(&h, "disk_write.refused", "warn"), 1);
	after = slurp("scr", &alen);
	CHECK(alen == klen && memcmp(after, keep0, klen) == 0);
	free(after);
	harness_done(&h);
	{
		char p[4200];

		snprintf(p, sizeof(p), "%s/proc/self/mountinfo", root);
		unlink(p);
	}

	/* write errors: findings with their LBAs, the step fails */
	{
		struct ps_uio_faults hooks = {.complete = fail_writes};

		eio_from = 2U << 20;
		eio_to = (2U << 20) + 1;
		disk_write_faults = &hooks;
		run_step(&h, "SCR1", d, 1);
		disk_write_faults = NULL;
		eio_from = UINT64_MAX;
		CHECK_INT(h.status, PS_FAIL);
		CHECK(harness_count(&h, "disk_write.write_error", "fail") >= 1);
		CHECK(
		    strstr(ps_json_str(ps_json_at(ps_json_arr(drive_data(&h, "scr"), "errors"), 0),
				       "error"),
			   "Input/output") != NULL);
		harness_done(&h);
	}
	free(keep0);
	free(stick0);
}

int main(void)
{
	char p[4200];

	alarm(300);
	test_pattern();
	CHECK(mkdtemp(root) != NULL);
	snprintf(p, sizeof(p), "%s/dev", root);
	CHECK(mkdir(p, 0755) == 0);
	test_step();
	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	CHECK(system(p) == 0);
	return check_done("test_disk_write");
}
