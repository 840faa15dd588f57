/*
 * peer.h - another machine to measure against: a stick in server mode found
 * by a small discovery broadcast it answers (or named in probestick.cfg),
 * or any iperf3 server. And the address of the port that faces it: static
 * (net=ADDR/LEN[,GW]), DHCP (busybox udhcpc), or, when no DHCP server
 * answers, a link-local 169.254/16 address made from the port's MAC, which
 * is what two sticks cabled back to back end up with.
 */
#ifndef PS_NET_PEER_H
#define PS_NET_PEER_H

#include "engines/net/netns.h"
#include "engines/net/spec.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_DISCOVERY_PORT 5209 /* UDP */
#define PS_IPERF_PORT	  5201
#define PS_NBD_PORT	  10809
#define PS_PEER_MAX_ADDRS 4

/* What a serving stick says about itself. */
struct ps_peer_info {
	bool probestick;     /* it answered the discovery: echo service, NBD export */
	struct in_addr addr; /* where it answered from (the one to use) */
	struct in_addr addrs[PS_PEER_MAX_ADDRS];
	int prefix[PS_PEER_MAX_ADDRS];
	int naddrs;
	char name[64], version[40];
	int iperf_port, echo_port, nbd_port;
	int mtu;		  /* of its serving port, -1 */
	char export_name[64];	  /* NBD export, "" none */
	int64_t export_bytes;	  /* -1 */
	double export_local_mbps; /* its own sequential read of the export, -1 */
	char export_kind[32];	  /* "ram disk" */
};

void ps_peer_info_init(struct ps_peer_info *p);

/* ---- the discovery protocol (pure) ---- */

/* "PSDISC1?" and a nonce; its length. */
size_t ps_disc_request(uint8_t *buf, size_t len, uint64_t nonce);
/* The nonce of a request, or -EINVAL. */
int ps_disc_parse_request(const uint8_t *buf, size_t len, uint64_t *nonce);
/* "PSDISC1!", the nonce and key=value lines; its length (0: too small). */
size_t ps_disc_answer(uint8_t *buf, size_t len, uint64_t nonce, const struct ps_peer_info *p);
/* 0 and p filled when buf answers nonce, else -EINVAL. */
int ps_disc_parse_answer(const uint8_t *buf, size_t len, uint64_t nonce, struct ps_peer_info *p);

/* ---- asking ---- */

/*
 * Broadcast a discovery request out of ifname (in ns_fd, where it has an
 * address) and collect the sticks that answer within seconds (at most max).
 * Their count, or -errno.
 */
int ps_peer_discover(int ns_fd, const char *ifname, double seconds, struct ps_peer_info *out,
		     size_t max);
/* The same to one address: 1 when it is a serving stick (out filled), 0 when silent. */
int ps_peer_hello(int ns_fd, const char *ifname, struct in_addr dest, double seconds,
		  struct ps_peer_info *out);
/* A TCP connection to dest:port within seconds: 1 yes, 0 no. */
int ps_peer_tcp_open(int ns_fd, struct in_addr dest, int port, double seconds);

/* ---- answering (server mode) ---- */

/* A UDP socket on PS_DISCOVERY_PORT, any address, broadcasts allowed. */
int ps_disc_socket(int ns_fd);
/* Answer what waits on fd with self (addr and addrs filled per interface by the caller's
 * addrs callback: the addresses of the interface the request came in on). */
int ps_disc_serve_one(int fd, const struct ps_peer_info *self,
		      int (*addrs)(void *arg, int ifindex, struct ps_peer_info *p), void *arg);

/* ---- the port's address ---- */

struct ps_net_addr {
	struct in_addr addr, gw, dns;
	int prefix;
	bool has_gw, has_dns; /* dns: the lease's first DNS server */
	char how[16];	      /* "static", "dhcp", "link-local" */
	char txt[24];	      /* "192.168.1.50/24" */
};

/* The link-local address of a MAC: 169.254.(1 + mac[4] % 254).mac[5]. Pure. */
struct in_addr ps_link_local_for(const unsigned char *mac);

/*
 * Give ifname (ifindex in r's namespace ns_fd) its address as spec says:
 * static; DHCP for up to dhcp_s (udhcpc in the namespace); auto = DHCP,
 * then link-local. The address is added, and a default route for a DHCP
 * router or a static GW. 0, or -errno with why.
 */
int ps_net_configure(int ns_fd, struct ps_rtnl *r, const char *ifname, int ifindex,
		     const unsigned char *mac, const struct ps_net_spec *spec, double dhcp_s,
		     struct ps_net_addr *out, char *why, size_t whylen);

/* A lease line udhcpc's script printed ("lease ip=A subnet=M router=R dns=D"): 0, or -EINVAL.
 * Pure. */
int ps_dhcp_parse_lease(const char *line, struct ps_net_addr *out);

/* Same subnet? Pure. */
bool ps_same_subnet(struct in_addr a, struct in_addr b, int prefix);

/* ---- the port that faces the peer ---- */

#include "engines/net/ports.h"
#include "hw/inventory.h"

struct ps_peer_link {
	struct ps_ports ps;	  /* every free port, in its namespace */
	int port;		  /* index of the port facing the peer, -1 none */
	struct ps_net_addr addr;  /* its address */
	struct ps_peer_info peer; /* what the peer is (probestick or not) */
	struct in_addr peer_addr; /* the address to talk to */
	int peer_port;		  /* iperf3's port there */
	const char *found_by;	  /* "probestick.cfg" or "discovery" */
	json_object *tried;	  /* rows {port, address, how, result} */
	char why[256];		  /* when none: why */
	char only[PS_PORTS_MAX * (IF_NAMESIZE + 1)]; /* the candidate ports */
};

/*
 * Find the peer: every free port into its namespace, ports cabled to each
 * other left out (probe frame), then each port with link in turn gets its
 * address (want->net) and asks for want->peer (a hello, then iperf3's TCP
 * port) or, without one, sends the discovery broadcast; want NULL: auto, discover. The first port
 * that reaches it is pl->port. 0 (pl->port -1 when none, with why) or
 * -errno. ps_peer_link_close puts every port back.
 */
int ps_peer_link_open(struct ps_peer_link *pl, const struct ps_inventory *inv,
		      const struct ps_net_want *want, const char *only, json_object *restored,
		      bool (*should_stop)(void *arg), void *stop_arg);
void ps_peer_link_close(struct ps_peer_link *pl);
/* The peer as the report holds it: address, iperf_port, found_by, probestick, name, ... */
json_object *ps_peer_link_json(const struct ps_peer_link *pl);

#endif
