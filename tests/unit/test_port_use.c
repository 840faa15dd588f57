/*
 * test_port_use.c - whether a --root tree's system uses a port: the default
 * route, a prefix route, a global IPv6 address (not a link-local one), and
 * a tree with none of those files.
 */
#include "check.h"
#include "hw/port_use.h"

#include <string.h>

static const char route[] =
    "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
    "eno1\t00000000\t010012C6\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
    "eno1\t000012C6\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n"
    "eno2\t000112C6\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";
static const char inet6[] = "fe80000000000000505400fffe123456 03 40 20 80     eno3\n"
			    "20010db8000000000000000000000001 04 40 00 80     eno4\n";

int main(void)
{
	char why[200];

	CHECK_STR(ps_port_in_use_text(route, inet6, "eno1", why, sizeof(why)),
		  "in use: carries the default route");
	CHECK_STR(ps_port_in_use_text(route, inet6, "eno2", why, sizeof(why)),
		  "in use: has an IPv4 address (a route of its own prefix)");
	CHECK(ps_port_in_use_text(route, inet6, "eno3", why, sizeof(why)) == NULL);
	CHECK_STR(ps_port_in_use_text(route, inet6, "eno4", why, sizeof(why)),
		  "in use: has address 2001:0db8:0000:0000:0000:0000:0000:0001/64");
	CHECK(ps_port_in_use_text(route, NULL, "eno", why, sizeof(why)) == NULL);
	CHECK(ps_port_in_use_text(NULL, NULL, "eno1", why, sizeof(why)) == NULL);
	CHECK(ps_port_in_use_text("", "x", "eno1", why, sizeof(why)) == NULL);

	/* the fixture trees: the one NIC in use; QEMU's, which has no /proc/net */
	CHECK_STR(ps_port_in_use_root(FIXTURES "/sysroot-one-nic", "enp2s0", why, sizeof(why)),
		  "in use: carries the default route");
	CHECK_STR(ps_port_root_untested(FIXTURES "/sysroot-qemu", "eth0", why, sizeof(why)),
		  "moves real network ports: live system only, not with --root");
	return check_done("test_port_use");
}
