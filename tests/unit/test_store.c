/* test_store.c - the stick store: a write replaces a file whole and leaves no
 * temporary file, one read-write window per begin/end (nested), nothing
 * written when the stick cannot be made writable, and paths off the stick
 * never remounted. Remounts go to a fake here; the real ones run in the boot
 * test (tests/boot/test_powercut). */
#include "check.h"
#include "lib/store.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[PATH_MAX];
static int rw_calls, ro_calls, fail_rw;
static bool writable; /* what the fake mount is now */

static int fake_remount(const char *stick, bool rw)
{
	if (rw && fail_rw)
		return -EACCES;
	if (rw)
		rw_calls++;
	else
		ro_calls++;
	writable = rw;
	return 0;
}

static char *slurp(const char *dir, const char *name)
{
	char path[PATH_MAX + 64], *data = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return ps_read_all(path, &data, &len) == 0 ? data : NULL;
}

static int count_tmp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".tmp") != NULL;
	closedir(d);
	return n;
}

static void test_write_replace(void)
{
	char dir[PATH_MAX + 16], *s;

	ps_store_init(NULL);
	snprintf(dir, sizeof(dir), "%s/plain", tmp);
	CHECK_INT(ps_store_mkdirs(dir, 0755), 0);
	CHECK_INT(ps_store_mkdirs(dir, 0755), 0); /* already there: fine */
	CHECK_INT(ps_store_write(dir, "report.json", "{\"a\":1}\n", 8), 0);
	s = slurp(dir, "report.json");
	CHECK_STR(s, "{\"a\":1}\n");
	free(s);
	CHECK_INT(ps_store_write(dir, "report.json", "{\"a\":2,\"b\":3}\n", 14), 0);
	s = slurp(dir, "report.json");
	CHECK_STR(s, "{\"a\":2,\"b\":3}\n");
	free(s);
	CHECK_INT(count_tmp(dir), 0);
	CHECK_INT(ps_store_mkdir(dir, 0755), -EEXIST);
	/* a folder that is not there: an error, and nothing left behind */
	CHECK_INT(ps_store_write("/proc/no-such-dir", "x", "y", 1), -ENOENT);
	{
		char p[PATH_MAX + 32];

		snprintf(p, sizeof(p), "%s/report.json", dir);
		CHECK_INT(ps_store_unlink(p), 0);
		CHECK_INT(ps_store_unlink(p), -ENOENT);
	}
	CHECK(!ps_store_managed());
}

static void test_windows(void)
{
	char stick[PATH_MAX + 16], dir[PATH_MAX + 64], other[PATH_MAX + 64], *s;

	snprintf(stick, sizeof(stick), "%s/stick", tmp);
	snprintf(dir, sizeof(dir), "%s/reports/m/run", stick);
	snprintf(other, sizeof(other), "%s/stick2/reports", tmp);
	CHECK_INT(ps_mkdirs(other, 0755), 0);
	ps_store_init_with(stick, fake_remount);
	CHECK(ps_store_managed());
	rw_calls = ro_calls = fail_rw = 0;
	writable = false;

	/* mkdir -p and a write: each its own window, read-only again after */
	CHECK_INT(ps_store_mkdirs(dir, 0755), 0);
	CHECK_INT(rw_calls, 1);
	CHECK_INT(ro_calls, 1);
	CHECK_INT(ps_store_write(dir, "a.txt", "one", 3), 0);
	CHECK_INT(rw_calls, 2);
	CHECK(!writable);

	/* nested: one window for everything between the outer begin and end */
	CHECK_INT(ps_store_begin(dir), 0);
	CHECK_INT(ps_store_begin(dir), 0);
	CHECK_INT(ps_store_write(dir, "a.txt", "two", 3), 0);
	CHECK_INT(ps_store_write(dir, "b.txt", "three", 5), 0);
	CHECK(writable);
	CHECK_INT(ps_store_end(dir), 0);
	CHECK(writable);
	CHECK_INT(ps_store_end(dir), 0);
	CHECK(!writable);
	CHECK_INT(rw_calls, 3);
	CHECK_INT(ro_calls, 3);
	CHECK_INT(ps_store_end(dir), 0); /* an end too many changes nothing */
	CHECK_INT(ro_calls, 3);

	/* a sibling whose name starts like the stick's is not on the stick */
	CHECK_INT(ps_store_write(other, "c.txt", "x", 1), 0);
	CHECK_INT(rw_calls, 3);

	/* write-protected: the write fails with the remount's error, the file is as it was */
	fail_rw = 1;
	CHECK_INT(ps_store_write(dir, "a.txt", "four", 4), -EACCES);
	s = slurp(dir, "a.txt");
	CHECK_STR(s, "two");
	free(s);
	CHECK(strstr(ps_store_error(), "write-protected") != NULL);
	CHECK_INT(ps_store_begin(dir), -EACCES);
	CHECK_INT(ps_store_end(dir), 0); /* no window was opened */
	CHECK_INT(ro_calls, 3);
	CHECK_INT(count_tmp(dir), 0);
	fail_rw = 0;
	ps_store_init(NULL);
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/ps-test-store-%d", (int)getpid());
	CHECK_INT(ps_mkdirs(tmp, 0755), 0);
	test_write_replace();
	test_windows();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
		CHECK_INT(system(cmd), 0);
	}
	return check_done("test_store");
}
