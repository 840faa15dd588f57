/* spec.c - net=, peer= and mtu= values into what the network steps use (spec.h). Pure. */
#include "engines/net/spec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ps_net_spec_parse(const char *s, struct ps_net_spec *out, char *why, size_t whylen)
{
	char addr[64], *slash, *comma, *end;
	long len;

	memset(out, 0, sizeof(*out));
	if (!s[0] || strcmp(s, "auto") == 0)
		return 0;
	if (strcmp(s, "dhcp") == 0) {
		out->how = PS_NET_DHCP;
		return 0;
	}
	if (strlen(s) >= sizeof(addr)) {
		snprintf(why, whylen, "too long");
		return -EINVAL;
	}
	snprintf(addr, sizeof(addr), "%s", s);
	comma = strchr(addr, ',');
	if (comma) {
		*comma++ = '\0';
		if (inet_pton(AF_INET, comma, &out->gw) != 1) {
			snprintf(why, whylen, "the gateway is not an IPv4 address");
			return -EINVAL;
		}
		out->has_gw = true;
	}
	slash = strchr(addr, '/');
	if (!slash) {
		snprintf(why, whylen, "is not auto, dhcp or ADDR/LEN[,GW] (like 192.168.1.50/24)");
		return -EINVAL;
	}
	*slash++ = '\0';
	len = strtol(slash, &end, 10);
	if (!*slash || *end || len < 1 || len > 32) {
		snprintf(why, whylen, "the prefix length is not 1 to 32");
		return -EINVAL;
	}
	if (inet_pton(AF_INET, addr, &out->addr) != 1) {
		snprintf(why, whylen, "is not auto, dhcp or ADDR/LEN[,GW] (like 192.168.1.50/24)");
		return -EINVAL;
	}
	out->prefix = (int)len;
	out->how = PS_NET_STATIC;
	return 0;
}

int ps_peer_spec_parse(const char *s, struct in_addr *addr, int *port, char *why, size_t whylen)
{
	char host[64], *colon, *end;

	*port = 0;
	memset(addr, 0, sizeof(*addr));
	if (!s[0])
		return 0;
	if (strlen(s) >= sizeof(host)) {
		snprintf(why, whylen, "too long");
		return -EINVAL;
	}
	snprintf(host, sizeof(host), "%s", s);
	*port = 5201;
	colon = strchr(host, ':');
	if (colon) {
		long p;

		*colon++ = '\0';
		p = strtol(colon, &end, 10);
		if (!*colon || *end || p < 1 || p > 65535) {
			snprintf(why, whylen, "the port is not 1 to 65535");
			return -EINVAL;
		}
		*port = (int)p;
	}
	if (inet_pton(AF_INET, host, addr) != 1) {
		snprintf(why, whylen,
			 "is not an IPv4 address with an optional :PORT (names "
			 "need DNS, which the stick has not)");
		return -EINVAL;
	}
	return 0;
}

int ps_mtu_spec_parse(const char *s, int *mtu)
{
	char *end;
	long v;

	if (!s[0] || strcmp(s, "max") == 0) {
		*mtu = -1;
		return 0;
	}
	if (strcmp(s, "keep") == 0) {
		*mtu = 0;
		return 0;
	}
	v = strtol(s, &end, 10);
	if (*end || v < 576 || v > 65535)
		return -EINVAL;
	*mtu = (int)v;
	return 0;
}
