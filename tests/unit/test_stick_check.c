/* test_stick_check.c - fsck.fat's output read back (recorded from fsck.fat 4.2 on
 * images damaged as a cut write leaves them: tests/fixtures/fsck/make-fixtures.sh),
 * and the check-repair-check sequence on a fake fsck.fat. */
#include "check.h"
#include "boot/stick_check.h"
#include "lib/json.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static json_object *decode_fixture(const char *name)
{
	char path[256], *data = NULL;
	size_t len;
	json_object *d;

	snprintf(path, sizeof(path), FIXTURES "/fsck/%s.txt", name);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	d = ps_fsck_decode(data);
	free(data);
	return d;
}

/* kinds of the problems, comma separated */
static const char *kinds(json_object *d, char *buf, size_t len)
{
	json_object *p = ps_json_arr(d, "problems");
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ps_json_len(p); i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? "," : "",
			      ps_json_str_or(ps_json_at(p, i), "kind", "?"));
	return buf;
}

static void test_decode(void)
{
	char k[256];
	json_object *d;

	d = decode_fixture("clean");
	CHECK_STR(ps_json_str(d, "tool"), "fsck.fat 4.2");
	CHECK_STR(kinds(d, k, sizeof(k)), "");
	CHECK_INT(ps_json_len(ps_json_arr(d, "files")), 9);
	CHECK_STR(json_object_get_string(ps_json_at(ps_json_arr(d, "files"), 7)),
		  "/REPORTS/M1/20261201T085237Z-quick/report.json");
	{
		int64_t v = 0;

		CHECK(ps_json_int(ps_json_get(d, "summary"), "clusters", &v));
		CHECK_INT(v, 129022);
	}
	json_object_put(d);

	/* the backup differs only in the dirty flag's byte: that is the dirty flag */
	d = decode_fixture("dirty");
	CHECK_STR(kinds(d, k, sizeof(k)), "dirty");
	json_object_put(d);

	d = decode_fixture("lost");
	CHECK_STR(kinds(d, k, sizeof(k)), "lost_clusters,dirty");
	{
		int64_t v = 0;

		ps_json_int(ps_json_at(ps_json_arr(d, "problems"), 0), "bytes", &v);
		CHECK_INT(v, 1024);
	}
	json_object_put(d);

	d = decode_fixture("lost-repair");
	CHECK_STR(kinds(d, k, sizeof(k)), "lost_clusters,dirty,free_count");
	json_object_put(d);

	d = decode_fixture("tmpfile");
	CHECK_STR(kinds(d, k, sizeof(k)), "free_cluster,file_size,lost_clusters,dirty,free_count");
	CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(d, "problems"), 0), "path"),
		  "/REPORTS/M1/20261201T085237Z-quick/.report.json.tmp");
	json_object_put(d);

	d = decode_fixture("cross");
	CHECK_STR(kinds(d, k, sizeof(k)), "cross_link,file_size,lost_clusters,free_count");
	CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(d, "problems"), 0), "message"),
		  "/A.BIN and /B.BIN share clusters");
	json_object_put(d);

	d = decode_fixture("size");
	CHECK_STR(kinds(d, k, sizeof(k)), "file_size");
	CHECK(strstr(ps_json_str(ps_json_at(ps_json_arr(d, "problems"), 0), "message"),
		     "9000 bytes") != NULL);
	json_object_put(d);

	/* a boot loader that wrote the primary boot sector only */
	d = ps_fsck_decode("fsck.fat 4.2 (2021-01-31)\n"
			   "There are differences between boot sector and its backup.\n"
			   "This is mostly harmless. Differences: (offset:original/backup)\n"
			   "  3:53/6d, 4:59/6b, 5:53/66\n"
			   "  , 90:fa/0e, 91:fc/1f\n"
			   "  Not automatically fixing this.\n"
			   "part.img: 16 files, 42943/514174 clusters\n");
	CHECK_STR(kinds(d, k, sizeof(k)), "boot_backup");
	CHECK(strstr(ps_json_str(ps_json_at(ps_json_arr(d, "problems"), 0), "message"),
		     "differ in 5 bytes (3, 4, 5, 90, 91)") != NULL);
	json_object_put(d);

	/* the initramfs has no codepage modules: fsck.fat says so, which is not a problem */
	d = ps_fsck_decode("Cannot initialize conversion from codepage 850 to ANSI_X3.4-1968: "
			   "Invalid argument\n"
			   "Cannot initialize conversion from ANSI_X3.4-1968 to codepage 850: "
			   "Invalid argument\n"
			   "Using internal CP850 conversion table\n"
			   "fsck.fat 4.2 (2021-01-31)\n"
			   "/dev/sdb1: 23 files, 43217/514174 clusters\n");
	CHECK_STR(kinds(d, k, sizeof(k)), "");
	CHECK_STR(ps_json_str(d, "tool"), "fsck.fat 4.2");
	json_object_put(d);

	/* something this decoder does not know is kept, in fsck.fat's words */
	d = ps_fsck_decode("fsck.fat 4.2 (2021-01-31)\nSomething new happened.\n");
	CHECK_STR(kinds(d, k, sizeof(k)), "other");
	json_object_put(d);

	/* a damaged FAT's names are any bytes: the report keeps them as valid UTF-8 */
	d = ps_fsck_decode("fsck.fat 4.2 (2021-01-31)\nChecking file /REPORTS/\xff\x1b[2J (X)\n");
	CHECK(ps_json_len(ps_json_arr(d, "files")) == 1);
	CHECK_STR(json_object_get_string(json_object_array_get_idx(ps_json_arr(d, "files"), 0)),
		  "/REPORTS/\xef\xbf\xbd\\x1b[2J");
	json_object_put(d);
}

/* A fake fsck.fat: each call answers with the next fixture and exit status. */
struct fake {
	const char *const *answers; /* fixture name, or "!" for "could not run" */
	const int *rcs;
	int calls;
	char argv[4][64];
};

static int fake_run(const char *const argv[], char **out, int *status, void *arg)
{
	struct fake *f = arg;
	const char *name = f->answers[f->calls];
	char path[256];
	size_t len;

	snprintf(f->argv[f->calls], sizeof(f->argv[0]), "%s %s %s", argv[1], argv[2], argv[3]);
	*status = f->rcs[f->calls] << 8; /* as waitpid gives it */
	f->calls++;
	if (strcmp(name, "!") == 0)
		return -ENOENT;
	snprintf(path, sizeof(path), FIXTURES "/fsck/%s.txt", name);
	return ps_read_all(path, out, &len);
}

static void test_sequence(void)
{
	json_object *c;

	{
		static const char *const a[] = {"clean"};
		static const int rc[] = {0};
		struct fake f = {a, rc, 0, {{0}}};

		c = ps_stick_check("/dev/sdb1", NULL, fake_run, &f);
		CHECK_INT(f.calls, 1);
		CHECK_STR(f.argv[0], "-n -l /dev/sdb1");
		CHECK_INT(ps_json_bool(c, "clean"), 1);
		CHECK(ps_json_get(c, "repaired") == NULL); /* nothing to repair: null */
		json_object_put(c);
	}
	{
		static const char *const a[] = {"lost", "lost-repair", "lost-after"};
		static const int rc[] = {1, 1, 0};
		struct fake f = {a, rc, 0, {{0}}};

		c = ps_stick_check("/dev/sdb1", NULL, fake_run, &f);
		CHECK_INT(f.calls, 3);
		CHECK_STR(f.argv[1], "-a -w /dev/sdb1");
		CHECK_INT(ps_json_bool(c, "clean"), 0);
		CHECK_INT(ps_json_bool(c, "repaired"), 1);
		CHECK_INT(ps_json_bool(c, "clean_after"), 1);
		CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(c, "problems"), 1), "kind"), "dirty");
		/* the lost chains became files in the root: the ones not there before */
		CHECK_INT(ps_json_len(ps_json_arr(c, "salvaged")), 2);
		CHECK_STR(json_object_get_string(ps_json_at(ps_json_arr(c, "salvaged"), 1)),
			  "/FSCK0001.REC");
		CHECK(ps_json_len(ps_json_arr(c, "log")) > 10);
		json_object_put(c);
	}
	{
		/* repaired, but the check after still finds something */
		static const char *const a[] = {"dirty", "dirty-repair", "size"};
		static const int rc[] = {1, 1, 1};
		struct fake f = {a, rc, 0, {{0}}};

		c = ps_stick_check("/dev/sdb1", NULL, fake_run, &f);
		CHECK_INT(ps_json_bool(c, "repaired"), 1);
		CHECK_INT(ps_json_bool(c, "clean_after"), 0);
		CHECK_INT(ps_json_len(ps_json_arr(c, "salvaged")), 0);
		json_object_put(c);
	}
	{
		static const char *const a[] = {"!"};
		static const int rc[] = {0};
		struct fake f = {a, rc, 0, {{0}}};

		c = ps_stick_check("/dev/sdb1", NULL, fake_run, &f);
		CHECK(ps_json_str(c, "error") && strstr(ps_json_str(c, "error"), "unchecked"));
		CHECK(ps_json_get(c, "clean") == NULL);
		json_object_put(c);
	}
	{
		/* fsck.fat refused (usage error, exit 2): no repair is tried */
		static const char *const a[] = {"dirty"};
		static const int rc[] = {2};
		struct fake f = {a, rc, 0, {{0}}};

		c = ps_stick_check("/dev/sdb1", NULL, fake_run, &f);
		CHECK_INT(f.calls, 1);
		CHECK(ps_json_str(c, "error") && strstr(ps_json_str(c, "error"), "exit status 2"));
		json_object_put(c);
	}
}

int main(void)
{
	test_decode();
	test_sequence();
	return check_done("test_stick_check");
}
