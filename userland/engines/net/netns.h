/* netns.h - network namespaces and the links in them, through rtnetlink (libmnl):
 * what the nic_tput step needs without an `ip` binary in the initramfs. */
#ifndef PS_NETNS_H
#define PS_NETNS_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

/* All functions return 0 (or a descriptor) on success, a negative errno on failure. */

/* The calling thread's network namespace, as an O_CLOEXEC descriptor. */
int ps_netns_open_current(void);

/*
 * A new, empty network namespace (only a down loopback in it). The returned
 * descriptor is its only reference: closing it, once no socket or process
 * lives in it, destroys it and the kernel returns physical devices to the
 * initial namespace (asynchronously: poll for them).
 */
int ps_netns_create(void);

/* socket(2) created inside the namespace ns_fd; the caller's namespace is untouched. */
int ps_netns_socket(int ns_fd, int domain, int type, int protocol);

struct ps_ethtool;
/* The ethtool helper's netlink queries for links inside ns_fd (hw/ethtool.h); 0 or -errno. */
int ps_netns_ethtool_open(int ns_fd, struct ps_ethtool *et);

/* Link speed in Mbit/s from ethtool, read inside ns_fd; -ENODATA when unknown. */
int ps_netns_link_speed(int ns_fd, const char *ifname);

struct mnl_socket;

/* One rtnetlink socket bound in one namespace. */
struct ps_rtnl {
	struct mnl_socket *nl;
	unsigned int seq;
	unsigned int portid;
};

struct ps_link {
	int ifindex;
	char name[IF_NAMESIZE];
	unsigned int mtu;
	unsigned int flags;  /* IFF_UP, IFF_LOWER_UP, ... */
	int carrier;	     /* 1, 0, or -1 when the kernel did not say */
	int master;	     /* ifindex of the bond or bridge it belongs to, 0 */
	int carrier_changes; /* IFLA_CARRIER_CHANGES, -1 when the kernel did not say */
	unsigned char mac[6];
	size_t mac_len;
};

/* ns_fd < 0: the caller's namespace. Replies time out after 5 s (-EAGAIN). */
int ps_rtnl_open(struct ps_rtnl *r, int ns_fd);
void ps_rtnl_close(struct ps_rtnl *r);

/* Find a link by name, or else by MAC (mac may be NULL); -ENODEV when neither is there. */
int ps_rtnl_link_find(struct ps_rtnl *r, const char *name, const unsigned char *mac, size_t mac_len,
		      struct ps_link *out);
/* Move a link into the namespace target_ns_fd (its addresses are dropped, it arrives down). */
int ps_rtnl_link_set_ns(struct ps_rtnl *r, int ifindex, int target_ns_fd);
int ps_rtnl_link_set_up(struct ps_rtnl *r, int ifindex, bool up);
int ps_rtnl_link_set_mtu(struct ps_rtnl *r, int ifindex, unsigned int mtu);
/* No IPv6 link-local address on this link: keeps the wire to the test traffic. */
int ps_rtnl_link_no_ipv6_ll(struct ps_rtnl *r, int ifindex);
int ps_rtnl_link_del(struct ps_rtnl *r, int ifindex);
/* A veth pair, both ends in r's namespace (tests: a cable without hardware). */
int ps_rtnl_veth_add(struct ps_rtnl *r, const char *name, const char *peer);

int ps_rtnl_addr_add4(struct ps_rtnl *r, int ifindex, struct in_addr addr, int prefix_len);
int ps_rtnl_addr_del4(struct ps_rtnl *r, int ifindex, struct in_addr addr, int prefix_len);
/* A default route through gw on ifindex (main table). */
int ps_rtnl_route_add4_default(struct ps_rtnl *r, int ifindex, struct in_addr gw);
/* A bond (mode "balance-rr" or "802.3ad", link monitoring every 100 ms), created down. */
int ps_rtnl_bond_add(struct ps_rtnl *r, const char *name, const char *mode);
/* Enslave ifindex to master (0 releases it); a port must be down to be enslaved. */
int ps_rtnl_link_set_master(struct ps_rtnl *r, int ifindex, int master);

/*
 * Run argv[0] (found on PATH) in the namespace ns_fd (-1: the caller's) as
 * a child process with stdin /dev/null and stdout into *out_fd (a pipe the
 * caller reads and closes; stderr goes there too). The child dies with us.
 * Returns its pid or -errno.
 */
int ps_netns_spawn(int ns_fd, char *const argv[], int *out_fd);

/* Load a kernel module (libkmod, as modprobe does) with its options; 0, or -errno. */
int ps_module_load(const char *name, const char *options);

/* The first global (scope universe) IPv4 or IPv6 address of the link as text:
 * 1 found, 0 none. */
int ps_rtnl_global_addr(struct ps_rtnl *r, int ifindex, char *buf, size_t len);
/* 1 when a default route (IPv4 or IPv6, main table) leaves through ifindex, 0 if not. */
int ps_rtnl_default_route_via(struct ps_rtnl *r, int ifindex);

#endif
