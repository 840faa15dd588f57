/* util.c - small file and sysfs helpers shared by the core and the probes. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *ps_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(buf, len, "%s", root ? root : "");

	if (n < 0 || (size_t)n >= len) {
		buf[0] = '\0';
		return buf;
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return buf;
}

int ps_read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (len == 0)
		return -EINVAL;
	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return (int)n;
}

/* One attribute as a number: signed (base 10, sysfs's -1 for "unknown") or unsigned (base 0). */
static int read_num(const char *path, bool is_signed, long long *s, unsigned long long *u)
{
	char buf[64], *end;
	int n = ps_read_str(path, buf, sizeof(buf));

	if (n < 0)
		return n;
	if (n == 0)
		return -ENODATA;
	errno = 0;
	if (is_signed)
		*s = strtoll(buf, &end, 10);
	else
		*u = strtoull(buf, &end, 0);
	if (errno || *end != '\0')
		return -EINVAL;
	return 0;
}

int ps_read_u64(const char *path, uint64_t *val)
{
	unsigned long long v;
	int ret = read_num(path, false, NULL, &v);

	if (ret == 0)
		*val = v;
	return ret;
}

int ps_read_s64(const char *path, int64_t *val)
{
	long long v;
	int ret = read_num(path, true, &v, NULL);

	if (ret == 0)
		*val = v;
	return ret;
}

int ps_read_all(const char *path, char **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, used = 0;
	char *buf;

	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (used == cap) {
			char *bigger = realloc(buf, cap * 2 + 1);

			if (!bigger) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = bigger;
			cap *= 2;
		}
		n = read(fd, buf + used, cap - used);
		if (n < 0) {
			int err = -errno;

			if (errno == EINTR)
				continue;
			free(buf);
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		used += n;
	}
	close(fd);
	buf[used] = '\0';
	*data = buf;
	*len = used;
	return 0;
}

int ps_link_name(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *slash;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(buf, len, "%s", slash ? slash + 1 : target);
	return 0;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		ret = -errno;
	close(fd);
	return ret;
}

int ps_write_atomic(const char *dir, const char *name, const void *data, size_t len)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	const char *p = data;
	int fd, ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= (int)sizeof(tmp) ||
	    snprintf(dst, sizeof(dst), "%s/%s", dir, name) >= (int)sizeof(dst))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
		len -= n;
	}
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, dst) < 0)
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	return fsync_dir(dir);
}

int ps_mkdirs(const char *path, unsigned int mode)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}
