/* hw_util.c - helpers the inventory readers share: sorted directory listings
 * and MemTotal. */
#include "hw/hw_util.h"

#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

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

int64_t ps_meminfo_total(const char *root)
{
	char path[PATH_MAX], *data;
	const char *p;
	int64_t ret = -EINVAL;
	size_t len;
	int r = ps_read_all(ps_path(path, sizeof(path), root, "/proc/meminfo"), &data, &len);

	if (r < 0)
		return r;
	p = strstr(data, "MemTotal:");
	if (p) {
		char *end;
		long long kb = strtoll(p + 9, &end, 10);

		if (end != p + 9 && kb > 0 && kb < INT64_MAX / 1024 && strncmp(end, " kB", 3) == 0)
			ret = (int64_t)kb * 1024;
	}
	free(data);
	return ret;
}
