/*
 * port_use.c - whether a --root tree's system uses a network port: its
 * master, /proc/net/if_inet6 and /proc/net/route (port_use.h).
 */
#include "hw/port_use.h"
#include "lib/util.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One whitespace-separated field of line (0-based) into buf; false when absent. */
static bool field(const char *line, int n, char *buf, size_t len)
{
	const char *p = line;

	for (int i = 0;; i++) {
		size_t w;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			return false;
		w = strcspn(p, " \t\n");
		if (i == n) {
			snprintf(buf, len, "%.*s", (int)w, p);
			return true;
		}
		p += w;
	}
}

static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/* "20010db8000000000000000000000001" as 2001:0db8:...: the text's own digits, grouped. */
static void inet6_text(const char *hex, char *buf, size_t len)
{
	size_t o = 0;

	for (int i = 0; i < 8 && strlen(hex) >= 32 && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%.4s", i ? ":" : "", hex + 4 * i);
}

const char *ps_port_in_use_text(const char *route, const char *if_inet6, const char *name,
				char *why, size_t len)
{
	char f[64], g[64];
	bool dflt = false, prefix = false;

	for (const char *l = if_inet6; l && *l; l = next_line(l)) {
		char scope[8], plen[8];

		/* address, ifindex, prefix length, scope, flags, name */
		if (field(l, 5, f, sizeof(f)) && strcmp(f, name) == 0 &&
		    field(l, 3, scope, sizeof(scope)) && strcmp(scope, "00") == 0 &&
		    field(l, 0, g, sizeof(g)) && field(l, 2, plen, sizeof(plen))) {
			char addr[48] = "";

			inet6_text(g, addr, sizeof(addr));
			snprintf(why, len, "in use: has address %s/%ld", addr,
				 strtol(plen, NULL, 16));
			return why;
		}
	}
	for (const char *l = route ? next_line(route) : NULL; l && *l; l = next_line(l)) {
		char dst[16], mask[16];

		/* Iface Destination Gateway Flags RefCnt Use Metric Mask ... */
		if (!field(l, 0, f, sizeof(f)) || strcmp(f, name) ||
		    !field(l, 1, dst, sizeof(dst)) || !field(l, 7, mask, sizeof(mask)))
			continue;
		if (strcmp(dst, "00000000") == 0 && strcmp(mask, "00000000") == 0)
			dflt = true;
		else
			prefix = true;
	}
	if (dflt)
		snprintf(why, len, "in use: carries the default route");
	else if (prefix)
		snprintf(why, len, "in use: has an IPv4 address (a route of its own prefix)");
	return dflt || prefix ? why : NULL;
}

const char *ps_port_in_use_root(const char *root, const char *name, char *why, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX], *route = NULL, *inet6 = NULL;
	const char *ret;
	ssize_t n;
	size_t l;

	n = readlink(ps_path(path, sizeof(path), root, "/sys/class/net/%s/master", name), target,
		     sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		snprintf(why, len, "in use: part of %s (bond or bridge)",
			 strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
		return why;
	}
	if (ps_read_all(ps_path(path, sizeof(path), root, "/proc/net/route"), &route, &l) < 0)
		route = NULL;
	if (ps_read_all(ps_path(path, sizeof(path), root, "/proc/net/if_inet6"), &inet6, &l) < 0)
		inet6 = NULL;
	ret = ps_port_in_use_text(route, inet6, name, why, len);
	free(route);
	free(inet6);
	return ret;
}

const char *ps_port_root_untested(const char *root, const char *name, char *why, size_t len)
{
	if (!ps_port_in_use_root(root, name, why, len))
		snprintf(why, len, "moves real network ports: live system only, not with --root");
	return why;
}
