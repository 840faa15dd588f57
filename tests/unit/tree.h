/* tree.h - small sysfs-like trees under a temp root, for recorders that read files. */
#ifndef PS_TEST_TREE_H
#define PS_TEST_TREE_H

#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p the parent of path and write text (len bytes, or strlen when len is 0). */
static inline void tree_write(const char *root, const char *path, const void *text, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, path);
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	if (!f)
		return;
	fwrite(text, 1, len ? len : strlen(text), f);
	fclose(f);
}

/* A file of size bytes under root at path, filled with the pattern i * mul + add: false on
 * a write error. */
static inline bool tree_fill(const char *root, const char *path, size_t size, int mul, int add)
{
	char p[PATH_MAX], buf[65536];
	bool ok = true;
	FILE *f;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)((int)i * mul + add);
	snprintf(p, sizeof(p), "%s%s", root, path);
	f = fopen(p, "w");
	if (!f)
		return false;
	for (size_t left = size; left > 0 && ok;) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		ok = fwrite(buf, 1, n, f) == n;
		left -= n;
	}
	return fclose(f) == 0 && ok;
}

static inline void tree_printf(const char *root, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void tree_printf(const char *root, const char *path, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tree_write(root, path, buf, 0);
}

/* A fresh temp root ("/var/tmp/<name>.XXXXXX"), removed by tree_done(). */
static inline char *tree_new(const char *name)
{
	static char root[PATH_MAX];

	snprintf(root, sizeof(root), "/var/tmp/%s.XXXXXX", name);
	return mkdtemp(root);
}

static inline void tree_done(const char *root)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
}

#endif
