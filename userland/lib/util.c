/* util.c - small file and sysfs helpers shared by the core and the probes. */
#include "lib/util.h"
#include "lib/store.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <time.h>
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

/* One attribute's text as a number: signed (base 10, sysfs's -1 for "unknown") or unsigned (base
 * 0). */
static int parse_num(const char *text, bool is_signed, long long *s, unsigned long long *u)
{
	char buf[64], *end;
	size_t n = strnlen(text, sizeof(buf) - 1);

	memcpy(buf, text, n);
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
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

int ps_parse_u64(const char *text, uint64_t *val)
{
	unsigned long long v;
	int ret = parse_num(text, false, NULL, &v);

	if (ret == 0)
		*val = v;
	return ret;
}

int ps_parse_s64(const char *text, int64_t *val)
{
	long long v;
	int ret = parse_num(text, true, &v, NULL);

	if (ret == 0)
		*val = v;
	return ret;
}

void ps_copy_str(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!len)
		return;
	n = src ? strnlen(src, len - 1) : 0;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

int ps_read_u64(const char *path, uint64_t *val)
{
	char buf[64];
	int n = ps_read_str(path, buf, sizeof(buf));

	return n < 0 ? n : ps_parse_u64(buf, val);
}

int ps_read_s64(const char *path, int64_t *val)
{
	char buf[64];
	int n = ps_read_str(path, buf, sizeof(buf));

	return n < 0 ? n : ps_parse_s64(buf, val);
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

int ps_write_atomic(const char *dir, const char *name, const void *data, size_t len)
{
	return ps_store_write(dir, name, data, len);
}

int ps_mkdirs(const char *path, unsigned int mode)
{
	return ps_store_mkdirs(path, mode);
}

double ps_round(double v, int decimals)
{
	double f = 1;

	for (int i = 0; i < decimals; i++)
		f *= 10;
	/* beyond 2^53 a double has no fraction left to round */
	if (v * f > 9e15 || v * f < -9e15)
		return v;
	return (double)(long long)(v * f + (v < 0 ? -0.5 : 0.5)) / f;
}

double ps_mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ps_memtest_spec_parse(const char *s, uint64_t *bytes, unsigned int *pct)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	*bytes = 0;
	*pct = 0;
	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v == 0)
		return -EINVAL;
	if (strcmp(end, "%") == 0) {
		if (v > 90)
			return -EINVAL;
		*pct = (unsigned int)v;
		return 0;
	}
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	end++;
	if (toupper((unsigned char)*end) == 'I')
		end++;
	if (toupper((unsigned char)*end) == 'B')
		end++;
	if (*end || v > (UINT64_MAX >> shift) || (v << shift) < (1ULL << 20))
		return -EINVAL; /* at least 1 MiB */
	*bytes = (uint64_t)v << shift;
	return 0;
}

int ps_duration_parse(const char *s, unsigned int *seconds)
{
	unsigned long long total = 0;
	const char *p = s;
	int units = 0;

	*seconds = 0;
	while (*p) {
		char *end;
		unsigned long long v;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		v = strtoull(p, &end, 10);
		if (v > 7ULL * 86400)
			return -EINVAL;
		switch (*end) {
		case 'h':
			v *= 3600;
			break;
		case 'm':
			v *= 60;
			break;
		case 's':
			break;
		case '\0':
			if (units)
				return -EINVAL; /* "1h30": say the unit */
			end--;
			break;
		default:
			return -EINVAL;
		}
		total += v;
		units++;
		p = end + 1;
	}
	if (!units || total < 10 || total > 7ULL * 86400)
		return -EINVAL;
	*seconds = (unsigned int)total;
	return 0;
}

int ps_parse_choice(const char *text, const char *const *names, void *out, char *why, size_t whylen)
{
	size_t o = 0;

	for (int i = 0; names[i]; i++)
		if (strcmp(text, names[i]) == 0) {
			*(int *)out = i;
			return 0;
		}
	o = (size_t)snprintf(why, whylen, "not one of ");
	for (int i = 0; names[i] && o < whylen; i++)
		o += (size_t)snprintf(why + o, whylen - o, "%s%s", i ? ", " : "", names[i]);
	return -EINVAL;
}

int ps_netmask_len(uint32_t v)
{
	int n = 0;

	while (v & 0x80000000u) {
		n++;
		v <<= 1;
	}
	return v ? -1 : n;
}

static int natural_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);

	/* shorter first keeps sdz before sdaa, as the kernel numbers them */
	if (lx != ly && strncmp(x, y, 2) == 0 && strspn(x, "abcdefghijklmnopqrstuvwxyz") == lx &&
	    strspn(y, "abcdefghijklmnopqrstuvwxyz") == ly)
		return lx < ly ? -1 : 1;
	return strverscmp(x, y);
}

int ps_dir_list(const char *dir, struct ps_dirlist *list)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;

	list->names = NULL;
	list->n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (list->n == cap) {
			char **bigger = realloc(list->names, (cap ? cap * 2 : 16) * sizeof(char *));

			if (!bigger)
				goto nomem;
			list->names = bigger;
			cap = cap ? cap * 2 : 16;
		}
		list->names[list->n] = strdup(e->d_name);
		if (!list->names[list->n])
			goto nomem;
		list->n++;
	}
	closedir(d);
	if (list->n)
		qsort(list->names, list->n, sizeof(char *), natural_cmp);
	return 0;
nomem:
	closedir(d);
	ps_dir_free(list);
	return -ENOMEM;
}

void ps_dir_free(struct ps_dirlist *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->names[i]);
	free(list->names);
	list->names = NULL;
	list->n = 0;
}

int ps_dir_count(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t plen = strlen(prefix);
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strncmp(e->d_name, prefix, plen) == 0)
			n++;
	closedir(d);
	return n;
}
