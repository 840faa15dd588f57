/* hw_util.c - what the inventory readers share beyond lib/util.c: MemTotal. */
#include "hw/hw_util.h"

#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

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
