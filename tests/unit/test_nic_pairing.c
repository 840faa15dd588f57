/* test_nic_pairing.c - which ports nic_tput pairs: PCI order, carrier, and the
 * reachability the experiment found. */
#include "check.h"
#include "engines/net/pairing.h"

#define N 6

static bool reach[N * N];

static void link_ports(size_t n, size_t i, size_t j)
{
	reach[i * n + j] = true;
}

static void clear(void)
{
	memset(reach, 0, sizeof(reach));
}

static void order(void)
{
	struct ps_pair_port a = {"eth0", "0000:02:00.0", true}, b = {"eth1", "0000:01:00.1", true},
			    c = {"eth2", "0000:0a:00.0", true}, d = {"usb0", NULL, true},
			    e = {"eth3", "0001:00:00.0", true}, f = {"eth4", "0000:01:00.1", true};

	CHECK(ps_pair_port_cmp(&b, &a) < 0);
	/* Hex, not text: bus 0x0a comes after bus 0x02. */
	CHECK(ps_pair_port_cmp(&a, &c) < 0);
	CHECK(ps_pair_port_cmp(&c, &e) < 0);
	CHECK(ps_pair_port_cmp(&e, &d) < 0);
	CHECK(ps_pair_port_cmp(&b, &f) < 0);
	CHECK_INT(ps_pair_port_cmp(&a, &a), 0);
}

static void two_ports_cabled(void)
{
	struct ps_pair_port p[] = {{"enp2s0", "0000:02:00.0", true},
				   {"enp1s0", "0000:01:00.0", true}};
	struct ps_pair out[1];

	clear();
	link_ports(2, 0, 1);
	CHECK_INT(ps_pair_ports(p, 2, reach, out), 1);
	/* a is the first in PCI order, whichever reached the other. */
	CHECK_INT(out[0].a, 1);
	CHECK_INT(out[0].b, 0);
	CHECK(out[0].reachable);
}

static void crossed_cables(void)
{
	/* 01:00.0 cabled to 03:00.0, 02:00.0 to 04:00.0: PCI order alone would be wrong. */
	struct ps_pair_port p[] = {{"a", "0000:01:00.0", true},
				   {"b", "0000:02:00.0", true},
				   {"c", "0000:03:00.0", true},
				   {"d", "0000:04:00.0", true}};
	struct ps_pair out[2];

	clear();
	link_ports(4, 2, 0);
	link_ports(4, 1, 3);
	CHECK_INT(ps_pair_ports(p, 4, reach, out), 2);
	CHECK_INT(out[0].a, 0);
	CHECK_INT(out[0].b, 2);
	CHECK_INT(out[1].a, 1);
	CHECK_INT(out[1].b, 3);
	CHECK(out[0].reachable && out[1].reachable);
}

static void one_switch_three_ports(void)
{
	struct ps_pair_port p[] = {
	    {"a", "0000:01:00.0", true}, {"b", "0000:01:00.1", true}, {"c", "0000:01:00.2", true}};
	struct ps_pair out[1];

	clear();
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 3; j++)
			if (i != j)
				link_ports(3, i, j);
	/* The first two in order; the third has nobody left. */
	CHECK_INT(ps_pair_ports(p, 3, reach, out), 1);
	CHECK_INT(out[0].a, 0);
	CHECK_INT(out[0].b, 1);
}

static void no_carrier_and_unreachable(void)
{
	struct ps_pair_port p[] = {{"a", "0000:01:00.0", true},
				   {"b", "0000:02:00.0", false},
				   {"c", "0000:03:00.0", true},
				   {"d", "0000:04:00.0", true}};
	struct ps_pair out[2];

	clear();
	/* b "reaches" a but has no carrier: a stale result never pairs it. */
	link_ports(4, 1, 0);
	CHECK_INT(ps_pair_ports(p, 4, reach, out), 1);
	/* a and c have link but reach nobody: paired to show it, unreachable; d is left. */
	CHECK_INT(out[0].a, 0);
	CHECK_INT(out[0].b, 2);
	CHECK(!out[0].reachable);

	clear();
	link_ports(4, 3, 2);
	CHECK_INT(ps_pair_ports(p, 4, reach, out), 1);
	CHECK_INT(out[0].a, 2);
	CHECK_INT(out[0].b, 3);
	CHECK(out[0].reachable);
}

static void too_few(void)
{
	struct ps_pair_port p[] = {{"a", "0000:01:00.0", true}, {"b", "0000:02:00.0", false}};
	struct ps_pair out[1];

	clear();
	CHECK_INT(ps_pair_ports(p, 1, reach, out), 0);
	CHECK_INT(ps_pair_ports(p, 2, reach, out), 0);
	CHECK_INT(ps_pair_ports(p, 0, NULL, out), 0);
	/* Without an experiment every pair is unconfirmed. */
	p[1].carrier = true;
	CHECK_INT(ps_pair_ports(p, 2, NULL, out), 1);
	CHECK(!out[0].reachable);
}

int main(void)
{
	order();
	two_ports_cabled();
	crossed_cables();
	one_switch_three_ports();
	no_carrier_and_unreachable();
	too_few();
	return check_done("test_nic_pairing");
}
