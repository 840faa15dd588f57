/* pairing.h - decide which NIC ports the nic_tput step measures against each
 * other, from carrier and a reachability experiment; pure, no I/O. */
#ifndef PS_PAIRING_H
#define PS_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

struct ps_pair_port {
	const char *name;
	const char *pci; /* "0000:01:00.0", or NULL when not on PCI */
	bool carrier;
};

struct ps_pair {
	size_t a, b; /* indexes into the ports array, a first in PCI order */
	bool reachable;
};

/* <0, 0, >0 like strcmp: PCI address order (domain, bus, device, function),
 * ports without a parsable address last, ties by name. */
int ps_pair_port_cmp(const struct ps_pair_port *x, const struct ps_pair_port *y);

/*
 * Pair the ports: reach[i * n + j] is true when a connection from port i to
 * port j succeeded (one success proves the way both ways). Ports are taken
 * in PCI order; each port with carrier pairs with the first later port it
 * reaches. Ports with carrier that reach no free port are then paired with
 * each other in PCI order, reachable false, so that the report shows them;
 * an odd one out stays unpaired, as do ports without carrier.
 * Writes at most n / 2 pairs to out; returns how many.
 */
size_t ps_pair_ports(const struct ps_pair_port *ports, size_t n, const bool *reach,
		     struct ps_pair *out);

#endif
