/*
 * netup.h - the boot port's address, before anything goes to the
 * collector: the port BOOTIF= names (else ip='s device, else each port
 * with link in turn), its address by DHCP or as ip= gives it, the DNS
 * server into /etc/resolv.conf. A port that has an address already keeps
 * it. The port stays in the machine's own namespace: the NIC steps leave a
 * port with an address alone.
 */
#ifndef PS_COLLECT_NETUP_H
#define PS_COLLECT_NETUP_H

#include "collect/bootnet.h"

#include <json-c/json.h>
#include <net/if.h>

struct ps_netup {
	bool up;		/* a port has an address */
	char port[IF_NAMESIZE]; /* "" none */
	char mac[18];
	char how[16];	   /* "dhcp", "static", "kept" (it had one) */
	char address[64];  /* "198.18.0.50/24" */
	char gateway[16];  /* "" none */
	char dns[16];	   /* "" none */
	char found_by[40]; /* "BOOTIF", "ip= device", "the first port with link" */
	char why[400];	   /* when no port got an address: why, for people */
	double seconds;	   /* how long it took */
};

/* Give the boot port its address (root: "" live, a fixture tree otherwise). Never fails:
 * out->up says whether it worked, out->why why not. */
void ps_netup(const char *root, const struct ps_bootnet *b, struct ps_netup *out);

/* The record for the report's collect.network. */
json_object *ps_netup_json(const struct ps_netup *n);

#endif
