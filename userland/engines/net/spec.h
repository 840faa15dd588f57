/*
 * spec.h - what probestick.cfg asks of the network steps, parsed once: the
 * address of the port facing a peer (net=), the peer (peer=) and the MTU of
 * the jumbo-frame tests (mtu=). Pure parsers (spec.c).
 */
#ifndef PS_NET_SPEC_H
#define PS_NET_SPEC_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

/* net=: how the port facing a peer gets its address. */
struct ps_net_spec {
	enum { PS_NET_AUTO = 0, PS_NET_DHCP, PS_NET_STATIC } how;
	struct in_addr addr, gw;
	int prefix;
	bool has_gw;
};
/* "auto" (or ""), "dhcp", "ADDR/LEN[,GW]": 0, or -EINVAL and why[]. Pure. */
int ps_net_spec_parse(const char *s, struct ps_net_spec *out, char *why, size_t whylen);

/* peer=: an IPv4 address and a port (5201 when not given). Pure; "" gives port 0. */
int ps_peer_spec_parse(const char *s, struct in_addr *addr, int *port, char *why, size_t whylen);

/* mtu=: 0 for keep, -1 for max (the driver's largest), else the MTU. Pure; -EINVAL. */
int ps_mtu_spec_parse(const char *s, int *mtu);

struct ps_net_want {
	struct ps_net_spec net; /* net= */
	struct in_addr peer;	/* peer=: 0.0.0.0 when none is named (discover one) */
	int peer_port;		/* 0 when none is named */
	int mtu;		/* mtu=: 0 keep, -1 max, else the MTU */
};

#endif
