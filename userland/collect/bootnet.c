/* bootnet.c - BOOTIF= and ip= from the kernel command line: the boot port and its address. */
#include "collect/bootnet.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Field i (0-based) of a ':'-separated value into buf; "" when absent. */
static void field(const char *v, int i, char *buf, size_t len)
{
	const char *p = v;

	buf[0] = '\0';
	for (int k = 0; k < i; k++) {
		p = strchr(p, ':');
		if (!p)
			return;
		p++;
	}
	snprintf(buf, len, "%.*s", (int)strcspn(p, ":"), p);
}

static bool is_word(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(v, *words) == 0)
			return true;
	return false;
}

static const char *const dhcp_words[] = {"dhcp", "on", "any", "bootp", "both", NULL};
static const char *const off_words[] = {"off", "none", NULL};

/* The static address CLIENT[/LEN] with NETMASK (either gives the prefix): 0 or -EINVAL. */
static int parse_static(char *client, const char *mask, struct ps_bootnet *b, char *why,
			size_t whylen)
{
	char *slash = strchr(client, '/');

	if (slash) {
		char *end;
		long n;

		*slash++ = '\0';
		n = strtol(slash, &end, 10);
		if (!*slash || *end || n < 1 || n > 32) {
			snprintf(why, whylen, "the prefix length after '/' is not 1 to 32");
			return -EINVAL;
		}
		b->prefix = (int)n;
	}
	if (inet_pton(AF_INET, client, &b->addr) != 1) {
		snprintf(why, whylen, "the address '%.40s' is not IPv4", client);
		return -EINVAL;
	}
	if (mask[0]) {
		struct in_addr m;
		int n;

		if (inet_pton(AF_INET, mask, &m) != 1 ||
		    (n = ps_netmask_len(ntohl(m.s_addr))) < 1) {
			snprintf(why, whylen, "the netmask '%.40s' is not one like 255.255.255.0",
				 mask);
			return -EINVAL;
		}
		if (b->prefix && b->prefix != n) {
			snprintf(why, whylen, "the netmask and the /LEN after the address differ");
			return -EINVAL;
		}
		b->prefix = n;
	}
	if (!b->prefix) {
		snprintf(why, whylen, "a static address needs its netmask (or ADDR/LEN)");
		return -EINVAL;
	}
	return 0;
}

/* The DNS0 and DNS1 fields: 0 or -EINVAL. */
static int parse_dns(const char *v, struct ps_bootnet *b, char *why, size_t whylen)
{
	char dns[64];

	for (int i = 0; i < 2; i++) {
		field(v, 7 + i, dns, sizeof(dns));
		if (!dns[0])
			continue;
		if (inet_pton(AF_INET, dns, &b->dns[b->ndns]) != 1) {
			snprintf(why, whylen, "DNS server '%.40s' is not an IPv4 address", dns);
			return -EINVAL;
		}
		b->ndns++;
	}
	return 0;
}

/* The value's bytes and shape: 0, 1 for a lone word (dhcp, off: b->how set), or -EINVAL. */
static int parse_word(const char *v, struct ps_bootnet *b, char *why, size_t whylen)
{
	int colons = 0;

	if (strlen(v) > 300) {
		snprintf(why, whylen, "longer than 300 bytes");
		return -EINVAL;
	}
	for (const char *p = v; *p; p++) {
		colons += *p == ':';
		if (!isprint((unsigned char)*p) || *p == ' ') {
			snprintf(why, whylen, "holds a space or a control byte");
			return -EINVAL;
		}
	}
	if (is_word(v, dhcp_words) || is_word(v, off_words)) {
		b->how = is_word(v, dhcp_words) ? PS_BOOTNET_DHCP : PS_BOOTNET_OFF;
		return 1;
	}
	if (!colons || colons > 9) {
		snprintf(why, whylen,
			 "is not dhcp, off or CLIENT:SERVER:GW:NETMASK:HOST:DEVICE:AUTOCONF:DNS0 "
			 "(like 10.0.0.5::10.0.0.1:255.255.255.0::eth0:none:10.0.0.1)");
		return -EINVAL;
	}
	return 0;
}

int ps_bootnet_parse_ip(const char *v, struct ps_bootnet *b, char *why, size_t whylen)
{
	char client[64], gw[64], mask[64], dev[64], autoconf[32];
	int ret;

	why[0] = '\0';
	b->how = PS_BOOTNET_AUTO;
	b->has_gw = false;
	b->ndns = 0;
	b->prefix = 0;
	b->device[0] = '\0';
	ret = parse_word(v, b, why, whylen);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	field(v, 0, client, sizeof(client));
	field(v, 2, gw, sizeof(gw));
	field(v, 3, mask, sizeof(mask));
	field(v, 5, dev, sizeof(dev));
	field(v, 6, autoconf, sizeof(autoconf));
	if (strlen(dev) >= sizeof(b->device)) {
		snprintf(why, whylen, "the device name '%.20s' is too long", dev);
		return -EINVAL;
	}
	snprintf(b->device, sizeof(b->device), "%s", dev);
	if (parse_dns(v, b, why, whylen) < 0)
		return -EINVAL;
	if (!client[0]) {
		if (autoconf[0] && !is_word(autoconf, dhcp_words) &&
		    !is_word(autoconf, off_words)) {
			snprintf(why, whylen, "autoconf '%.20s' is not dhcp or none", autoconf);
			return -EINVAL;
		}
		b->how = is_word(autoconf, off_words) ? PS_BOOTNET_OFF : PS_BOOTNET_DHCP;
		return 0;
	}
	if (parse_static(client, mask, b, why, whylen) < 0)
		return -EINVAL;
	if (gw[0]) {
		if (inet_pton(AF_INET, gw, &b->gw) != 1) {
			snprintf(why, whylen, "the gateway '%.40s' is not IPv4", gw);
			return -EINVAL;
		}
		b->has_gw = true;
	}
	b->how = PS_BOOTNET_STATIC;
	return 0;
}

int ps_bootnet_parse_bootif(const char *v, unsigned char mac[6])
{
	const char *p = v;
	size_t n = strlen(v);

	/* "01-" + 17: the hardware type (1: Ethernet) before the address */
	if (n == 20 && p[0] == '0' && p[1] == '1' && p[2] == '-')
		p += 3;
	else if (n != 17)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		int hi, lo;

		if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]))
			return -EINVAL;
		if (i < 5 && p[2] != '-' && p[2] != ':')
			return -EINVAL;
		hi = isdigit((unsigned char)p[0]) ? p[0] - '0'
						  : tolower((unsigned char)p[0]) - 'a' + 10;
		lo = isdigit((unsigned char)p[1]) ? p[1] - '0'
						  : tolower((unsigned char)p[1]) - 'a' + 10;
		mac[i] = (unsigned char)(hi * 16 + lo);
		p += 3;
	}
	return 0;
}

void ps_bootnet_from_cmdline(const char *cmdline, const char *cfg_ip, struct ps_bootnet *b,
			     char *why, size_t whylen)
{
	const char *p = cmdline;
	char word[400], reason[200];

	memset(b, 0, sizeof(*b));
	why[0] = '\0';
	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		n = strcspn(p, " \t\n");
		if (!n)
			break;
		snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) ? n : sizeof(word) - 1),
			 p);
		p += n;
		if (strncmp(word, "BOOTIF=", 7) == 0) {
			b->has_mac = ps_bootnet_parse_bootif(word + 7, b->mac) == 0;
			if (!b->has_mac)
				snprintf(why, whylen, "BOOTIF=%.40s is not 01-MAC: ignored",
					 word + 7);
		} else if (strncmp(word, "ip=", 3) == 0) {
			struct ps_bootnet t = *b;

			if (ps_bootnet_parse_ip(word + 3, &t, reason, sizeof(reason)) == 0) {
				*b = t;
				snprintf(b->ip_from, sizeof(b->ip_from), "ip=");
			} else {
				snprintf(why, whylen, "ip=%.40s: %s: ignored", word + 3, reason);
			}
		}
	}
	if (cfg_ip && cfg_ip[0]) {
		struct ps_bootnet t = *b;

		if (ps_bootnet_parse_ip(cfg_ip, &t, reason, sizeof(reason)) == 0) {
			*b = t;
			snprintf(b->ip_from, sizeof(b->ip_from), "probestick.ip=");
		}
	}
}
