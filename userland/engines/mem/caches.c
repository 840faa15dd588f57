/*
 * caches.c - the cache sizes the memory step sizes its arrays by, from
 * sysfs's cacheinfo (what CPUID leaf 4 or 0x8000001D told the kernel).
 */
#include "engines/mem/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t ps_mem_parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return 0;
	v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K':
		return (uint64_t)v << 10;
	case 'M':
		return (uint64_t)v << 20;
	case 'G':
		return (uint64_t)v << 30;
	case '\0':
		return v;
	default:
		return 0;
	}
}

static bool read_index(const char *root, int cpu, int idx, int *level, char *type, size_t tlen,
		       uint64_t *size, char *shared, size_t slen)
{
	char path[PATH_MAX], buf[64];
	int64_t lv;

	ps_path(path, sizeof(path), root, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu,
		idx);
	if (ps_read_s64(path, &lv) < 0)
		return false;
	*level = (int)lv;
	ps_path(path, sizeof(path), root, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu,
		idx);
	if (ps_read_str(path, type, tlen) < 0)
		type[0] = '\0';
	ps_path(path, sizeof(path), root, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu,
		idx);
	*size = ps_read_str(path, buf, sizeof(buf)) < 0 ? 0 : ps_mem_parse_size(buf);
	ps_path(path, sizeof(path), root,
		"/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
	if (ps_read_str(path, shared, slen) < 0)
		shared[0] = '\0';
	return true;
}

int ps_mem_caches(const char *root, struct ps_mem_caches *c)
{
	char type[32], shared[256], seen[64][256];
	size_t nseen = 0;
	char path[PATH_MAX];

	memset(c, 0, sizeof(*c));
	/* cpu0's own caches */
	for (int idx = 0; idx < 16; idx++) {
		uint64_t size;
		int level;

		if (!read_index(root, 0, idx, &level, type, sizeof(type), &size, shared,
				sizeof(shared)))
			break;
		if (level == 1 && strcmp(type, "Instruction") != 0)
			c->l1d = size;
		else if (level == 2)
			c->l2 = size;
		if (level >= c->llc_level && strcmp(type, "Instruction") != 0) {
			c->llc_level = level;
			c->llc = size;
		}
	}
	if (!c->llc)
		return -ENOENT;
	/* every distinct last-level cache: one per socket, or per CCX on AMD */
	for (int cpu = 0; cpu < 4096; cpu++) {
		ps_path(path, sizeof(path), root, "/sys/devices/system/cpu/cpu%d", cpu);
		if (access(path, F_OK) != 0)
			break;
		for (int idx = 0; idx < 16; idx++) {
			uint64_t size;
			int level;
			bool dup = false;

			if (!read_index(root, cpu, idx, &level, type, sizeof(type), &size, shared,
					sizeof(shared)))
				break;
			if (level != c->llc_level || strcmp(type, "Instruction") == 0)
				continue;
			for (size_t k = 0; k < nseen && !dup; k++)
				dup = strcmp(seen[k], shared) == 0;
			if (dup)
				continue;
			if (nseen < 64)
				snprintf(seen[nseen++], sizeof(seen[0]), "%s", shared);
			c->llc_total += size;
		}
	}
	if (!c->llc_total)
		c->llc_total = c->llc;
	return 0;
}

int64_t ps_mem_available(const char *root)
{
	char path[PATH_MAX], *text, *p;
	size_t len;
	long long kb = -1, free_kb = -1;

	if (ps_read_all(ps_path(path, sizeof(path), root, "/proc/meminfo"), &text, &len) < 0)
		return -ENOENT;
	p = realloc(text, len + 1);
	if (!p) {
		free(text);
		return -ENOMEM;
	}
	text = p;
	text[len] = '\0';
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "MemAvailable:", 13) == 0)
			kb = atoll(p + 13);
		else if (strncmp(p, "MemFree:", 8) == 0)
			free_kb = atoll(p + 8);
	}
	free(text);
	if (kb < 0)
		kb = free_kb;
	return kb < 0 ? -ENODATA : (int64_t)kb * 1024;
}
