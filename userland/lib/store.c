/*
 * store.c - the stick store: every file probestick writes on the stick goes
 * through here, in a read-write window of an otherwise read-only mount and
 * in a write order that vfat keeps (docs/design.md, "Writing on the stick").
 */
#include "lib/store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static struct {
	char stick[PATH_MAX];
	size_t len;
	bool managed;
	int depth;
	char error[PATH_MAX + 128];
	int (*remount)(const char *stick, bool rw);
} st;

/* The per-mount flags a remount must repeat, or it would drop them. */
static unsigned long kept_flags(const struct statvfs *sv)
{
	static const struct {
		unsigned long st, ms;
	} map[] = {
	    {ST_NOSUID, MS_NOSUID},	      {ST_NODEV, MS_NODEV},
	    {ST_NOEXEC, MS_NOEXEC},	      {ST_NOATIME, MS_NOATIME},
	    {ST_NODIRATIME, MS_NODIRATIME},   {ST_RELATIME, MS_RELATIME},
	    {ST_SYNCHRONOUS, MS_SYNCHRONOUS},
	};
	unsigned long f = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (sv->f_flag & map[i].st)
			f |= map[i].ms;
	return f;
}

/* Remounting read-only syncs the file system and clears FAT's dirty flag
 * (fs/fat/inode.c, fat_remount: sync_filesystem, then fat_set_state). */
static int remount_mount(const char *stick, bool rw)
{
	struct statvfs sv;
	unsigned long flags;

	if (statvfs(stick, &sv) < 0)
		return -errno;
	flags = MS_REMOUNT | kept_flags(&sv) | (rw ? 0 : MS_RDONLY);
	for (int tries = 0;; tries++) {
		if (mount(NULL, stick, NULL, flags, NULL) == 0)
			return 0;
		/* A file still open for writing (a child that has not closed yet) makes a
		 * read-only remount EBUSY for a moment. */
		if (errno != EBUSY || rw || tries == 20)
			return -errno;
		nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL);
	}
}

static bool is_mount_point(const char *path)
{
	char parent[PATH_MAX];
	struct stat a, b;

	if (snprintf(parent, sizeof(parent), "%s/..", path) >= (int)sizeof(parent))
		return false;
	if (stat(path, &a) < 0 || stat(parent, &b) < 0)
		return false;
	return a.st_dev != b.st_dev || a.st_ino == b.st_ino;
}

static void set_stick(const char *stick)
{
	memset(&st, 0, sizeof(st));
	st.remount = remount_mount;
	if (!stick || !*stick)
		return;
	snprintf(st.stick, sizeof(st.stick), "%s", stick);
	st.len = strlen(st.stick);
	while (st.len > 1 && st.stick[st.len - 1] == '/')
		st.stick[--st.len] = '\0';
}

void ps_store_init(const char *stick)
{
	struct statvfs sv;

	set_stick(stick);
	if (st.len && statvfs(st.stick, &sv) == 0 && (sv.f_flag & ST_RDONLY) &&
	    is_mount_point(st.stick))
		st.managed = true;
}

void ps_store_init_with(const char *stick, int (*remount)(const char *stick, bool rw))
{
	set_stick(stick);
	st.managed = st.len > 0;
	st.remount = remount;
}

bool ps_store_managed(void)
{
	return st.managed;
}

const char *ps_store_error(void)
{
	return st.error;
}

static bool on_stick(const char *path)
{
	return st.managed && path && strncmp(path, st.stick, st.len) == 0 &&
	       (path[st.len] == '/' || path[st.len] == '\0');
}

int ps_store_begin(const char *path)
{
	int ret;

	if (!on_stick(path) || st.depth++ > 0)
		return 0;
	ret = st.remount(st.stick, true);
	if (ret < 0) {
		st.depth--;
		snprintf(st.error, sizeof(st.error), "cannot remount %s read-write: %s%s", st.stick,
			 strerror(-ret),
			 ret == -EACCES || ret == -EROFS ? " (is the stick write-protected?)" : "");
	}
	return ret;
}

int ps_store_end(const char *path)
{
	int ret;

	if (!on_stick(path) || st.depth == 0 || --st.depth > 0)
		return 0;
	ret = st.remount(st.stick, false);
	if (ret < 0)
		snprintf(st.error, sizeof(st.error),
			 "cannot remount %s read-only again: %s; it stays mounted read-write "
			 "(marked dirty) until probestick ends",
			 st.stick, strerror(-ret));
	return ret;
}

/* fsync of a file or a folder opened read-only: on vfat, of a file it writes the
 * file's own directory entry (start cluster, size), then the FAT; of a folder,
 * the entries its operations changed, then the FAT (fs/fat/file.c, fat_file_fsync). */
static int sync_path(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		ret = -errno;
	close(fd);
	return ret;
}

static int first_err(int a, int b)
{
	return a ? a : b;
}

static int write_synced(const char *path, const void *data, size_t len)
{
	const char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret = 0;

	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

/*
 * rename(tmp, dst) and its entries on disk in an order that leaves dst, at
 * every instant, naming either its old clusters or the new ones, both
 * allocated. vfat's rename only marks the moved inode dirty: dst's entry
 * gets its start cluster and size when that inode is written back (30 s
 * later), while fsync of the folder writes at once the entries rename
 * changed (a new dst entry with size 0, or the old one, and tmp's deleted
 * entry) and the FAT, where the old file's clusters are already free.
 */
static int replace(const char *dir, const char *tmp, const char *dst)
{
	/* Holding the old file keeps its clusters allocated until dst names the new ones. */
	int old = open(dst, O_RDONLY | O_CLOEXEC);
	int ret;

	if (rename(tmp, dst) < 0) {
		ret = -errno;
		if (old >= 0)
			close(old);
		return ret;
	}
	if (old >= 0) {
		/* tmp's entry deleted; dst's entry still names the old clusters */
		ret = sync_path(dir, O_DIRECTORY);
		/* dst's entry: the new start cluster and size */
		ret = first_err(ret, sync_path(dst, 0));
		/* the old clusters freed, then the FAT on disk */
		close(old);
		ret = first_err(ret, sync_path(dir, O_DIRECTORY));
	} else {
		/* a new entry: written with its start and size at once (in a run's folder
		 * it shares its sector with tmp's deleted entry), then the rest */
		ret = sync_path(dst, 0);
		ret = first_err(ret, sync_path(dir, O_DIRECTORY));
	}
	return ret;
}

int ps_store_write(const char *dir, const char *name, const void *data, size_t len)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	int ret;

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= (int)sizeof(tmp) ||
	    snprintf(dst, sizeof(dst), "%s/%s", dir, name) >= (int)sizeof(dst))
		return -ENAMETOOLONG;
	ret = ps_store_begin(dir);
	if (ret < 0)
		return ret;
	ret = write_synced(tmp, data, len);
	if (!ret)
		ret = replace(dir, tmp, dst);
	if (ret && unlink(tmp) == 0)
		sync_path(dir, O_DIRECTORY);
	return first_err(ret, ps_store_end(dir));
}

static int parent_of(const char *path, char *buf, size_t len)
{
	char *slash;

	if (snprintf(buf, len, "%s", path) >= (int)len)
		return -ENAMETOOLONG;
	slash = strrchr(buf, '/');
	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == buf)
		buf[1] = '\0';
	else
		*slash = '\0';
	return 0;
}

/* A new folder and its entry in the parent, on disk. */
static int mkdir_synced(const char *path, unsigned int mode)
{
	char parent[PATH_MAX];
	int ret;

	if (mkdir(path, mode) < 0)
		return -errno;
	ret = parent_of(path, parent, sizeof(parent));
	if (ret < 0)
		return ret;
	return first_err(sync_path(path, O_DIRECTORY), sync_path(parent, O_DIRECTORY));
}

int ps_store_mkdir(const char *path, unsigned int mode)
{
	int ret = ps_store_begin(path);

	if (ret < 0)
		return ret;
	ret = mkdir_synced(path, mode);
	return first_err(ret, ps_store_end(path));
}

int ps_store_mkdirs(const char *path, unsigned int mode)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);
	struct stat sb;
	int ret;

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	if (stat(path, &sb) == 0)
		return S_ISDIR(sb.st_mode) ? 0 : -ENOTDIR;
	ret = ps_store_begin(path);
	if (ret < 0)
		return ret;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		ret = mkdir_synced(buf, mode);
		if (ret == -EEXIST)
			ret = 0;
		*p = c;
		if (ret < 0 || c == '\0')
			break;
	}
	return first_err(ret, ps_store_end(path));
}

int ps_store_unlink(const char *path)
{
	char parent[PATH_MAX];
	int ret = parent_of(path, parent, sizeof(parent));

	if (ret < 0)
		return ret;
	ret = ps_store_begin(path);
	if (ret < 0)
		return ret;
	if (unlink(path) < 0)
		ret = -errno;
	else
		ret = sync_path(parent, O_DIRECTORY);
	return first_err(ret, ps_store_end(path));
}
