/*
 * bootnet.h - how the port the machine booted from gets its address, from
 * what the boot loader and the user put on the kernel command line:
 * BOOTIF=01-MAC (pxelinux's IPAPPEND 2, iPXE, GRUB) names the boot port;
 * ip= in the kernel's own syntax (Documentation/admin-guide/nfs/
 * nfsroot.rst, which the kernel itself does not act on here: Debian's has
 * no IP_PNP) says DHCP or a static address; probestick.ip= (or ip= in
 * probestick.cfg) says the same and wins. Pure.
 */
#ifndef PS_COLLECT_BOOTNET_H
#define PS_COLLECT_BOOTNET_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

enum ps_bootnet_how {
	PS_BOOTNET_AUTO = 0, /* nothing said: DHCP on the boot port */
	PS_BOOTNET_DHCP,
	PS_BOOTNET_STATIC,
	PS_BOOTNET_OFF, /* ip=off: leave the network alone */
};

struct ps_bootnet {
	bool has_mac; /* BOOTIF= named the boot port */
	unsigned char mac[6];
	enum ps_bootnet_how how;
	char device[IF_NAMESIZE]; /* ip='s device field, "" any */
	struct in_addr addr, gw, dns[2];
	int prefix; /* static: 1..32 */
	bool has_gw;
	int ndns;
	char ip_from[24]; /* "probestick.ip=", "ip=", "" (nothing said) */
};

/*
 * One ip= value: "dhcp" (also on, any, bootp), "off" (none), or
 * CLIENT[/LEN]:SERVER:GW:NETMASK:HOSTNAME:DEVICE:AUTOCONF:DNS0:DNS1[:NTP]
 * with empty fields allowed (a static address needs a netmask or /LEN).
 * 0, or -EINVAL and why[].
 */
int ps_bootnet_parse_ip(const char *v, struct ps_bootnet *b, char *why, size_t whylen);

/* BOOTIF=: "01-52-54-00-12-34-56" (hardware type 1, Ethernet) or a bare MAC with '-' or ':'. */
int ps_bootnet_parse_bootif(const char *v, unsigned char mac[6]);

/*
 * Everything from a kernel command line and the configured ip= (cfg_ip,
 * "" none, already checked): BOOTIF=, ip=, then cfg_ip over ip=. A bad
 * bare ip= or BOOTIF= (the boot loader's) is ignored with its reason in
 * why[] (else why[] is ""). Never fails.
 */
void ps_bootnet_from_cmdline(const char *cmdline, const char *cfg_ip, struct ps_bootnet *b,
			     char *why, size_t whylen);

#endif
