/*
 * test_kmsg_recorder.c - the recorder around a step: only what the log
 * gained after start (a fixture root's kmsg file, and the host's own
 * /dev/kmsg when run as root), names resolved through a fixture /sys when
 * there is no inventory, a missing log, and the view's paths against what
 * the recorder writes.
 */
#include "check.h"
#include "lib/util.h"
#include "record/kmsg.h"
#include "lib/json.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[PATH_MAX];

static void append(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

static long long num(json_object *o, const char *key)
{
	int64_t v;

	return ps_json_int(o, key, &v) ? (long long)v : -1;
}

static json_object *event(json_object *k, const char *rule, const char *subject)
{
	json_object *ev = ps_json_arr(k, "events");

	for (size_t i = 0; i < ps_json_len(ev); i++) {
		json_object *e = ps_json_at(ev, i);
		const char *r = ps_json_str(e, "rule"), *s = ps_json_str(e, "subject");

		if (r && strcmp(r, rule) == 0 && s && strcmp(s, subject) == 0)
			return e;
	}
	return NULL;
}

/* A fixture root whose /sys is the workstation's and whose dev/kmsg is a file. */
static void make_root(void)
{
	char path[PATH_MAX + 64], sys[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "/tmp/ps-kmsg-XXXXXX");
	CHECK(mkdtemp(tmp) != NULL);
	snprintf(path, sizeof(path), "%s/dev", tmp);
	CHECK(mkdir(path, 0755) == 0);
	CHECK(realpath(FIXTURES "/sysroot-workstation/sys", sys) != NULL);
	snprintf(path, sizeof(path), "%s/sys", tmp);
	CHECK(symlink(sys, path) == 0);
}

static void test_file_root(void)
{
	char kmsg[PATH_MAX + 16];
	struct ps_kmsg *k;
	json_object *o, *e;

	snprintf(kmsg, sizeof(kmsg), "%s/dev/kmsg", tmp);
	append(kmsg, "3,10,1000000,-;I/O error, dev sda, sector 64 op 0x0:(READ) flags 0x0\n"
		     "6,11,1000100,-;before the step\n");
	k = ps_kmsg_start(tmp);
	CHECK(k != NULL);
	append(kmsg,
	       "3,12,2000000,-;ata1.00: failed command: READ DMA EXT\n"
	       "3,13,2000100,-;ata1.00: cmd 25/00:08:00:10:00/00:00:00:00:00/e0 tag 0 dma "
	       "4096 in\\x0a         res 51/40:00:00:10:00/00:00:00:00:00/e0 Emask 0x9 "
	       "(media error)\n"
	       "3,14,2000200,-;ata1.00: error: { UNC }\n"
	       "3,15,2000300,-;I/O error, dev sda, sector 4096 op 0x0:(READ) flags 0x0 "
	       "phys_seg 1 prio class 2\n"
	       "3,16,2000400,-;Buffer I/O error on dev sda1, logical block 0, async page read\n"
	       "6,17,2000500,-;e1000e 0000:02:00.0 enp2s0: NIC Link is Down\n"
	       "3,18,2000600,-;nvme nvme0: I/O 7 QID 1 timeout, reset controller\n"
	       " SUBSYSTEM=nvme\n"
	       " DEVICE=c242:0");
	/* no inventory: ata1, nvme0 and the PCI address resolved through the fixture's /sys */
	o = ps_kmsg_stop(k, NULL);
	CHECK_INT(ps_json_bool(o, "available"), 1);
	CHECK_INT(num(o, "total"), 7);
	CHECK_INT(num(ps_json_at(ps_json_arr(o, "records"), 0), "seq"), 12);
	e = event(o, "ata_error", "sda");
	CHECK(e != NULL);
	CHECK_STR(ps_json_str(e, "kernel_name"), "ata1.00");
	CHECK(ps_json_str(e, "device") == NULL); /* no inventory, no stable id */
	CHECK_INT(num(e, "lba_first"), 4096);
	CHECK_INT(num(e, "lba_last"), 4103);
	e = event(o, "io_error", "sda");
	CHECK(e != NULL);
	CHECK_INT(num(e, "count"), 1);
	CHECK_INT(num(e, "lba_first"), 4096);
	CHECK_INT(num(e, "lba_last"), 4103); /* the length of the failed ATA command */
	CHECK(event(o, "nic_link_down", "enp2s0") != NULL);
	e = event(o, "nvme_timeout", "nvme0n1");
	CHECK(e != NULL);
	CHECK_STR(ps_json_str(e, "kernel_name"), "nvme0");
	json_object_put(o);

	/* an inventory that does not carry the ATA port or the NVMe controller (the compat
	 * reader): /sys names them, the inventory's ids are kept */
	{
		struct ps_drive d[2] = {0};
		struct ps_inventory inv = {.taken = true, .drives = d, .n_drives = 2};

		snprintf(d[0].id, PS_ID_LEN, "drive:sn:WDC WD20EZRZ:WD-WCC4M1234567");
		snprintf(d[0].name, 32, "sda");
		d[0].ata_port = PS_UNKNOWN;
		snprintf(d[1].id, PS_ID_LEN, "drive:wwn:eui.0025388b71b2c3d4");
		snprintf(d[1].name, 32, "nvme0n1");
		d[1].ata_port = PS_UNKNOWN;
		k = ps_kmsg_start(tmp);
		append(kmsg, "3,20,3000000,-;ata1.00: failed command: READ DMA EXT\n"
			     "4,21,3000100,-;nvme nvme0: I/O 9 QID 2 timeout, aborting\n");
		o = ps_kmsg_stop(k, &inv);
		e = event(o, "ata_error", "sda");
		CHECK_STR(ps_json_str(e, "device"), "drive:sn:WDC WD20EZRZ:WD-WCC4M1234567");
		CHECK_STR(ps_json_str(e, "kernel_name"), "ata1.00");
		e = event(o, "nvme_timeout", "nvme0n1");
		CHECK_STR(ps_json_str(e, "device"), "drive:wwn:eui.0025388b71b2c3d4");
		json_object_put(o);
	}

	/* a second step sees only its own records */
	k = ps_kmsg_start(tmp);
	o = ps_kmsg_stop(k, NULL);
	CHECK_INT(num(o, "total"), 0);
	CHECK_INT(ps_json_len(ps_json_arr(o, "events")), 0);
	json_object_put(o);
}

static void test_missing(void)
{
	json_object *o;
	struct ps_kmsg *k = ps_kmsg_start(FIXTURES "/sysroot-workstation");
	const char *why;

	CHECK(k != NULL);
	o = ps_kmsg_stop(k, NULL);
	CHECK_INT(ps_json_bool(o, "available"), 0);
	why = ps_json_str(o, "reason");
	CHECK(why && strstr(why, "sysroot-workstation/dev/kmsg") &&
	      strstr(why, "No such file or directory"));
	json_object_put(o);
	o = ps_kmsg_stop(NULL, NULL);
	CHECK_INT(ps_json_bool(o, "available"), 0);
	CHECK(ps_json_str(o, "reason") != NULL);
	json_object_put(o);
}

/* Writers to /dev/kmsg are rate-limited per open file (10 lines in 5 s): one open each. */
static bool kmsg_write(const char *line)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, line, strlen(line)) == (ssize_t)strlen(line);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* The host's own kernel log, when this runs as root: records written after start only. */
static void test_live(void)
{
	struct ps_inventory none = {0};
	char line[128], mark[64];
	struct ps_kmsg *k;
	json_object *o, *recs;
	int found = 0, before = 0;

	if (geteuid() != 0 || access("/dev/kmsg", R_OK | W_OK) != 0) {
		printf("live /dev/kmsg: skipped (needs root)\n");
		return;
	}
	snprintf(mark, sizeof(mark), "probestick-unit-%d", (int)getpid());
	snprintf(line, sizeof(line), "<3>%s: before\n", mark);
	CHECK(kmsg_write(line));
	k = ps_kmsg_start("");
	for (int i = 0; i < 40; i++) {
		snprintf(line, sizeof(line), "<3>%s: line %d\n", mark, i);
		CHECK(kmsg_write(line));
		if (i == 20)
			usleep(50 * 1000); /* the thread drains some while the step runs */
	}
	o = ps_kmsg_stop(k, &none);
	CHECK_INT(ps_json_bool(o, "available"), 1);
	recs = ps_json_arr(o, "records");
	for (size_t i = 0; i < ps_json_len(recs); i++) {
		const char *t = ps_json_str(ps_json_at(recs, i), "text");

		if (t && strncmp(t, mark, strlen(mark)) == 0) {
			if (strstr(t, "before"))
				before++;
			else
				found++;
			CHECK_STR(ps_json_str(ps_json_at(recs, i), "facility"), "user");
			CHECK_STR(ps_json_str(ps_json_at(recs, i), "priority"), "err");
		}
	}
	CHECK_INT(found, 40);
	CHECK_INT(before, 0);
	CHECK_INT(num(o, "lost"), 0);
	json_object_put(o);
}

/* Every path of the view is a member the recorder writes. */
static void test_view_paths(void)
{
	struct ps_kmsg_acc *acc = ps_kmsg_acc_new();
	struct ps_inventory none = {0};
	static const char rec[] = "3,1,5,-;I/O error, dev sdq, sector 7 op 0x0:(READ) flags 0x0\n";
	json_object *o, *ev;

	ps_kmsg_acc_feed(acc, rec, sizeof(rec) - 1);
	o = ps_kmsg_acc_finish(acc, &none);
	ev = ps_json_at(ps_json_arr(o, "events"), 0);
	CHECK(ev != NULL);
	CHECK_STR(ps_kmsg_view.name, "kmsg");
	{
		char why[256] = "";

		CHECK(ps_view_valid(&ps_kmsg_view, why, sizeof(why)));
		if (why[0])
			fprintf(stderr, "view: %s\n", why);
	}
	CHECK_INT(ps_kmsg_view.scope, PS_SCOPE_MEMBER);
	CHECK(ps_kmsg_view.nblocks >= 2);
	for (size_t b = 0; b < ps_kmsg_view.nblocks; b++) {
		const struct ps_block *blk = &ps_kmsg_view.blocks[b];
		json_object *rows = ps_json_ptr(o, blk->rows);
		json_object *row = blk->kind == PS_BLOCK_TABLE ? ps_json_at(rows, 0) : rows;

		CHECK(blk->id && blk->ncols > 0 && rows != NULL);
		for (size_t c = 0; c < blk->ncols; c++) {
			const char *p = blk->cols[c].path;
			bool present =
			    row && p[0] == '/' && json_object_object_get_ex(row, p + 1, NULL);

			/* "reason" exists only when the log could not be read */
			if (!present && strcmp(p, "/reason") != 0) {
				fprintf(stderr, "view path %s of block %s is not in the object\n",
					p, blk->id);
				CHECK(present);
			}
		}
	}
	json_object_put(o);
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	make_root();
	test_file_root();
	test_missing();
	test_live();
	test_view_paths();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
	return check_done("test_kmsg_recorder");
}
