/* test_probe_nics.c - ps_probe_nics on recorded sysfs trees and on this host. */
#include "check.h"
#include "json_get.h"
#include "hw/hw.h"

static void test_workstation(void)
{
	json_object *nics = json_object_new_array(), *x;

	CHECK_INT(ps_probe_nics(FIXTURES "/sysroot-workstation", nics), 0);
	CHECK_INT(json_object_array_length(nics), 2); /* lo, br0, veth skipped */

	x = json_object_array_get_idx(nics, 0);
	CHECK_STR(s(x, "name"), "enp2s0");
	CHECK_STR(s(x, "driver"), "e1000e");
	CHECK(get(x, "firmware") == NULL); /* fixture: no ethtool */
	CHECK_STR(s(x, "mac"), "68:05:ca:12:34:56");
	CHECK_STR(s(x, "operstate"), "down");
	CHECK_INT(b(x, "carrier"), 0);
	CHECK(get(x, "speed_mbps") == NULL); /* -1 */
	CHECK(get(x, "duplex") == NULL);     /* unknown */
	CHECK(get(x, "autoneg") == NULL);
	CHECK_INT(n(x, "mtu"), 1500);
	CHECK_INT(n(x, "rx_queues"), 1);
	CHECK_INT(n(x, "tx_queues"), 1);
	CHECK_INT(n(x, "msix_vectors"), 3);
	CHECK_STR(s(x, "pci_address"), "0000:02:00.0");
	/* a fixture tree has no kernel to ask: every ethtool field unknown */
	CHECK(get(x, "coalesce") == NULL);
	CHECK(get(x, "link_modes") == NULL && get(x, "rings") == NULL && get(x, "pause") == NULL);
	CHECK(get(x, "perm_mac") == NULL && get(x, "max_mtu") == NULL);
	CHECK_STR(s(x, "id"), "nic:68:05:ca:12:34:56"); /* no permanent MAC known: the MAC */

	x = json_object_array_get_idx(nics, 1);
	CHECK_STR(s(x, "name"), "enp4s0");
	CHECK_STR(s(x, "driver"), "8139too");
	CHECK_INT(b(x, "carrier"), 1);
	CHECK_INT(n(x, "speed_mbps"), 100);
	CHECK_STR(s(x, "duplex"), "full");
	CHECK(get(x, "msix_vectors") == NULL); /* conventional PCI: no MSI */
	CHECK_STR(s(x, "pci_address"), "0000:04:00.0");
	json_object_put(nics);
}

static void test_broken(void)
{
	json_object *nics = json_object_new_array(), *x;

	CHECK_INT(ps_probe_nics(FIXTURES "/sysroot-broken", nics), 0);
	CHECK_INT(json_object_array_length(nics), 1);
	x = json_object_array_get_idx(nics, 0);
	CHECK_STR(s(x, "name"), "eth9");
	CHECK(get(x, "driver") == NULL && get(x, "mac") == NULL);
	CHECK(get(x, "id") == NULL);
	CHECK(get(x, "carrier") == NULL);
	CHECK(get(x, "speed_mbps") == NULL);
	CHECK(get(x, "duplex") == NULL); /* "sideways" */
	CHECK(get(x, "mtu") == NULL);	 /* "garbage" */
	CHECK(get(x, "rx_queues") == NULL);
	CHECK(get(x, "msix_vectors") == NULL);
	CHECK_STR(s(x, "pci_address"), "0000:00:02.0");
	json_object_put(nics);

	nics = json_object_new_array();
	CHECK(ps_probe_nics(FIXTURES "/no-such-tree", nics) < 0);
	json_object_put(nics);
}

/*
 * The live system: whatever NICs there are, every field has its type or null,
 * and the ethtool helper answered for each (a driver it reads is named).
 */
static void test_live(void)
{
	json_object *nics = json_object_new_array();

	CHECK_INT(ps_probe_nics("", nics), 0);
	for (size_t i = 0; i < json_object_array_length(nics); i++) {
		json_object *x = json_object_array_get_idx(nics, i), *c = get(x, "coalesce");

		CHECK(s(x, "name") != NULL);
		CHECK(s(x, "driver") != NULL);
		CHECK(get(x, "mtu") == NULL || n(x, "mtu") > 0);
		CHECK(get(x, "max_mtu") == NULL || n(x, "max_mtu") >= n(x, "mtu"));
		CHECK(get(x, "autoneg") == NULL || b(x, "autoneg") >= 0);
		/* a coalescing object has the report's keys, null where unsupported */
		CHECK(c == NULL || (json_object_object_get_ex(c, "rx_usecs", NULL) &&
				    json_object_object_get_ex(c, "adaptive_tx", NULL)));
		CHECK(s(x, "id") != NULL && strncmp(s(x, "id"), "nic:", 4) == 0);
		printf("live: %s\n", json_object_to_json_string(x));
	}
	json_object_put(nics);
}

int main(void)
{
	test_workstation();
	test_broken();
	test_live();
	return check_done("test_probe_nics");
}
