/*
 * fuzz_tree.h - a small sysfs/proc tree under $TMPDIR written from the
 * input, for the recorders that walk directories and read attributes
 * (EDAC, hwmon sensors): the same readers as on a machine, over files the
 * fuzzer chose.
 * Input: parts separated by FUZZ_SEP, each "PATH\nCONTENT" (PATH below
 * the tree's root, components of [A-Za-z0-9_.:#+-], none "." or "..").
 * A part "@" (alone) is the step's start: what comes before it is the tree
 * the recorder starts on, what comes after is written over it before the
 * recorder stops. Without "@" both read the same tree. The tree is below
 * $TMPDIR, else /dev/shm, else /tmp.
 */
#ifndef PS_FUZZ_TREE_H
#define PS_FUZZ_TREE_H

#include "fuzz.h"

#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

struct fuzz_tree {
	char root[PATH_MAX];
	const uint8_t *data;
	size_t size, pos; /* where the parts after "@" begin, size when none */
};

static int fuzz_tree_rm(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

static void fuzz_tree_clear(struct fuzz_tree *t)
{
	nftw(t->root, fuzz_tree_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static char fuzz_tree_dirname[PATH_MAX];
static void fuzz_tree_atexit(void)
{
	struct fuzz_tree t;

	snprintf(t.root, sizeof(t.root), "%s", fuzz_tree_dirname);
	fuzz_tree_clear(&t);
	rmdir(fuzz_tree_dirname);
}

/* The tree's root, made once per process and emptied for each input. */
static void fuzz_tree_init(struct fuzz_tree *t, const char *name, const uint8_t *data, size_t size)
{
	if (!fuzz_tree_dirname[0]) {
		/* tmpfs when there is one: a tree is written for every input (10x faster than a
		 * disk) */
		const char *tmp = getenv("TMPDIR")		  ? getenv("TMPDIR")
				  : access("/dev/shm", W_OK) == 0 ? "/dev/shm"
								  : "/tmp";

		snprintf(fuzz_tree_dirname, sizeof(fuzz_tree_dirname), "%s/ps-fuzz-%s-XXXXXX", tmp,
			 name);
		FUZZ_CHECK(mkdtemp(fuzz_tree_dirname));
		atexit(fuzz_tree_atexit);
	}
	snprintf(t->root, sizeof(t->root), "%s", fuzz_tree_dirname);
	fuzz_tree_clear(t);
	t->data = data;
	t->size = size;
	t->pos = 0;
}

/* PATH of a part, made safe below the root; false when it names nothing acceptable. */
static bool fuzz_tree_path(const struct fuzz_tree *t, const uint8_t *p, size_t n, char *out,
			   size_t len)
{
	size_t o = (size_t)snprintf(out, len, "%s", t->root), comp = 0, depth = 0;

	if (n == 0 || n > 200)
		return false;
	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? (char)p[i] : '/';

		if (c == '/') {
			if (comp == 0)
				continue;
			if (comp <= 2 && out[o - 1] == '.' && (comp == 1 || out[o - 2] == '.'))
				return false;
			if (++depth > 10)
				return false;
			comp = 0;
			continue;
		}
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') &&
		    !strchr("_.:#+-", c))
			return false;
		if (comp == 0) {
			if (o + 1 >= len)
				return false;
			out[o++] = '/';
		}
		if (o + 1 >= len)
			return false;
		out[o++] = c;
		out[o] = '\0';
		comp++;
	}
	return depth > 0;
}

static void fuzz_tree_put(const char *path, const uint8_t *data, size_t len)
{
	char dir[PATH_MAX];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(dir, 0755); /* may exist, or be a file: then the write below fails */
		*s = '/';
	}
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(data, 1, len, f);
	fclose(f);
}

/*
 * Write the parts from t->pos up to "@" or the end; true when it stopped at
 * "@" (call again for the parts after it).
 */
static bool fuzz_tree_write(struct fuzz_tree *t)
{
	const uint8_t *part;
	size_t len;

	while (fuzz_part(t->data, t->size, &t->pos, &part, &len)) {
		const uint8_t *nl = memchr(part, '\n', len);
		char path[PATH_MAX];

		if (len == 1 && part[0] == '@')
			return true;
		if (!nl || !fuzz_tree_path(t, part, (size_t)(nl - part), path, sizeof(path)))
			continue;
		fuzz_tree_put(path, nl + 1, len - (size_t)(nl + 1 - part));
	}
	return false;
}

#endif
