/*
 * ports.h - the machine's free network ports taken into test namespaces, one
 * namespace each so that traffic between two of them crosses the cable;
 * which ports are cabled to each other, found by a probe frame sent out of
 * one and seen on the other; and every port put back as it was, with a
 * record of what was put back. Every NIC step that moves ports uses it.
 */
#ifndef PS_NET_PORTS_H
#define PS_NET_PORTS_H

#include "engines/net/netns.h"
#include "engines/net/pairing.h"
#include "hw/inventory.h"
#include "lib/fields.h"

#include <json-c/json.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_PORTS_MAX 16

/* The probe frame: IEEE 802's local experimental EtherType 1, to the
 * nearest-bridge group address that 802.1D bridges never forward. */
#define PS_PROBE_ETHERTYPE 0x88b5
extern const uint8_t ps_probe_dst[6]; /* 01:80:c2:00:00:0e */
#define PS_PROBE_FRAME_LEN 60

/* A probe frame from port index `from` of the run `nonce`, out of src; its length. */
size_t ps_probe_frame_build(uint8_t *buf, size_t len, const uint8_t src[6], uint64_t nonce,
			    unsigned int from);
/* The sender's index when buf is a probe frame of run nonce, else -1. Pure. */
int ps_probe_frame_parse(const uint8_t *buf, size_t len, uint64_t nonce);

enum ps_port_skip {
	PS_PORT_IN_USE = 1, /* an address, a default route or a master: the machine uses it */
	PS_PORT_NOT_FOUND,  /* gone between the inventory and the step */
	PS_PORT_TOO_MANY,   /* beyond PS_PORTS_MAX */
	PS_PORT_SETUP,	    /* moving it into a namespace or bringing it up failed */
	PS_PORT_NO_LINK,    /* no carrier within the wait */
};

/* One setting put back after a step: the port, the setting, what it was and is now. */
struct ps_put_back {
	char port[40];	  /* a port's name, or another device the step changed (nbd0) */
	char setting[24]; /* "namespace", "mtu", "up", a coalescing knob */
	char was[32];	  /* "" unknown */
	char now[32];	  /* "" when it could not be read back */
	bool restored;	  /* now is was */
};
#define PS_PUT_BACK_MAX (PS_PORTS_MAX * 8)
/* Its field table: the rows of a step's "restored" (engines/net/session.h shows them). */
extern const struct ps_fields ps_put_back_fields;

struct ps_port {
	char name[IF_NAMESIZE];
	const struct ps_nic *nic; /* the inventory's port, NULL for one named by the caller */
	unsigned char mac[6];
	size_t mac_len;
	unsigned int orig_mtu;
	bool orig_up, orig_carrier;
	int carrier_changes_before; /* IFLA_CARRIER_CHANGES when the step took it, -1 */
	int ns;			    /* its namespace, -1 before and after */
	struct ps_rtnl r;	    /* rtnetlink in ns */
	int ifindex;		    /* inside ns */
	bool in_ns;
	bool carrier;
	int speed; /* Mbit/s, -1 unknown */
	unsigned int mtu;
	struct in_addr addr;
	int prefix;
	char addr_txt[INET_ADDRSTRLEN];
	int skip; /* enum ps_port_skip, 0 while it takes part */
	char why[200];
	char restore_error[200]; /* after ps_ports_close: what did not come back, "" */
};

struct ps_ports {
	int home;
	struct ps_rtnl home_r;
	struct ps_port p[PS_PORTS_MAX];
	size_t n;
	/* Ports that could not take part from the start: name, why, the inventory's port. */
	struct {
		char name[IF_NAMESIZE];
		const struct ps_nic *nic;
		int skip;
		char why[200];
	} left[PS_PORTS_MAX];
	size_t n_left;
	json_object *restored; /* a step without a result table: the same rows as JSON, or NULL */
	struct ps_put_back put_back[PS_PUT_BACK_MAX]; /* what ps_ports_close put back */
	size_t n_put_back;
	bool (*should_stop)(void *arg);
	void *stop_arg;
	bool aborted;
};

/*
 * The free physical ports of inv (only, a comma-separated list of names,
 * or NULL for all; a name need not be in inv: tests use veth), remembered
 * as they are. What ps_ports_close puts back goes into ps->put_back, and
 * also into restored when it is not NULL (an array the step owns: its
 * data's "restored"). 0 or -errno (no rtnetlink in this namespace).
 */
int ps_ports_open(struct ps_ports *ps, const struct ps_inventory *inv, const char *only,
		  json_object *restored);

/* Every port into its own namespace, up, no IPv6 link-local; then wait up
 * to carrier_s for carrier. False when aborted. Failures mark the port. */
bool ps_ports_setup(struct ps_ports *ps, double carrier_s);

/* Ports i with carrier: their count. */
size_t ps_ports_with_link(const struct ps_ports *ps);

/*
 * Which ports are cabled to each other: each port with carrier sends a
 * probe frame, every other listens, three rounds within seconds. reach is
 * n*n (reach[i*n+j]: j saw i's frame). False when aborted.
 */
bool ps_ports_probe(struct ps_ports *ps, double seconds, bool *reach);

/*
 * What this plan learned of the cabling (ps_ports_pairs keeps it, by MAC):
 * 1 and the partner's MAC when mac is cabled to another port, 0 when it was
 * probed with link and no partner, -1 when unknown. ps_ports_probe answers
 * from it when it knows every port with link.
 */
int ps_ports_cabled(const char *mac, char *partner, size_t len);
void ps_ports_cabling_reset(void);

/* Pairs from reach (engines/net/pairing.h), only reachable ones; at most n/2. */
size_t ps_ports_pairs(const struct ps_ports *ps, const bool *reach, struct ps_pair *out);

/* Test address 198.18.<net>.<host>/24 on port i (RFC 2544's range, never routed). */
int ps_ports_address(struct ps_ports *ps, size_t i, unsigned int net, unsigned int host);

/* Set port i's MTU (in its namespace), recording it; 0 or -errno. */
int ps_ports_set_mtu(struct ps_ports *ps, size_t i, unsigned int mtu);

/*
 * Every port back to the namespace it came from, MTU and up/down as they
 * were; waits for carrier where it had carrier; the carrier changes this
 * caused go into the plan's ledger. Rows in restored; a port that did not
 * come back as it was gets restore_error. Always safe to call.
 */
void ps_ports_close(struct ps_ports *ps);

/* A row of restored: the setting, what it was and is now, and whether it matches. */
void ps_restored_row(json_object *restored, const char *port, const char *setting, const char *was,
		     const char *now);
/* The same as a typed row at the end of rows[*n] (room for max); was, now NULL: unknown. */
void ps_put_back_add(struct ps_put_back *rows, size_t *n, size_t max, const char *port,
		     const char *setting, const char *was, const char *now);

/* ---- the plan's ledger of carrier changes its own steps caused ---- */

/* Add n carrier changes of the port with this MAC (or name) caused on purpose. */
void ps_port_ledger_add(const char *mac, const char *name, int n);
/* The changes recorded for the port, 0 when none. */
int ps_port_ledger_get(const char *mac, const char *name);
void ps_port_ledger_reset(void);

/*
 * Hold a port in its own namespace for a step that does not move ports
 * (self-test, coalescing at home): the carrier changes between begin and
 * end (end waits up to wait_s for the carrier to return) go into the
 * ledger. ns -1: the caller's namespace.
 */
struct ps_port_hold {
	char name[IF_NAMESIZE], mac[18];
	int changes_before;
	bool carrier_before;
};
void ps_port_hold_begin(struct ps_port_hold *h, struct ps_rtnl *r, const char *name,
			const char *mac);
void ps_port_hold_end(struct ps_port_hold *h, struct ps_rtnl *r, double wait_s);

/* IFLA_CARRIER_CHANGES of a link by name through r, -1 when unknown. */
int ps_link_carrier_changes(struct ps_rtnl *r, const char *name);

/* The device a port's finding names: its inventory NIC, else the port by name. */
static inline struct ps_dev_ref ps_port_ref(const struct ps_port *p)
{
	return p->nic ? ps_nic_ref(p->nic) : (struct ps_dev_ref){PS_DEV_NIC, NULL, p->name};
}

#endif
