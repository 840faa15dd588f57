/* test_probe_pcie.c - the PCIe section (through the hw.h wrapper) on recorded
 * sysfs trees: exact fields per function, the link verdict, identities. */
#include "check.h"
#include "json_get.h"
#include "hw/hw.h"

#include <fcntl.h>
#include <unistd.h>

static json_object *fn(json_object *pcie, const char *address)
{
	for (size_t i = 0; i < json_object_array_length(pcie); i++) {
		json_object *f = json_object_array_get_idx(pcie, i);

		if (s(f, "address") && strcmp(s(f, "address"), address) == 0)
			return f;
	}
	return NULL;
}

static void test_workstation(void)
{
	json_object *pcie = json_object_new_array(), *f, *l, *u;
	const char *prev = "";

	CHECK_INT(ps_probe_pcie(FIXTURES "/sysroot-workstation", -1, pcie), 0);
	CHECK_INT(json_object_array_length(pcie), 11);
	for (size_t i = 0; i < json_object_array_length(pcie); i++) {
		const char *a = s(json_object_array_get_idx(pcie, i), "address");

		CHECK(a && strcmp(prev, a) < 0); /* sorted by address */
		prev = a ? a : prev;
	}

	/* NVMe: Gen3 x4 trained at Gen3 x2 behind a Gen3 x4 root port */
	f = fn(pcie, "0000:01:00.0");
	CHECK(f != NULL);
	CHECK_STR(s(f, "vendor_id"), "144d");
	CHECK_STR(s(f, "device_id"), "a808");
	CHECK_STR(s(f, "class"), "010802");
	CHECK_STR(s(f, "driver"), "nvme");
	CHECK_INT(b(f, "is_pcie"), 1);
	CHECK_STR(s(f, "port_type"), "endpoint");
	l = get(f, "link");
	CHECK(d(l, "cap_speed_gts") == 8.0);
	CHECK_INT(json_object_get_int(get(l, "cap_width")), 4);
	CHECK(d(l, "speed_gts") == 8.0);
	CHECK_INT(json_object_get_int(get(l, "width")), 2);
	CHECK_INT(json_object_array_length(get(l, "supported_speeds_gts")), 3);
	CHECK(json_object_get_double(
		  json_object_array_get_idx(get(l, "supported_speeds_gts"), 0)) == 2.5);
	u = get(f, "upstream");
	CHECK_STR(s(u, "address"), "0000:00:01.0");
	CHECK(d(u, "cap_speed_gts") == 8.0);
	CHECK_INT(json_object_get_int(get(u, "cap_width")), 4);
	CHECK_INT(b(f, "downgraded"), 1);
	CHECK_STR(s(f, "verdict"), "degraded");
	/* two of four Gen3 lanes: 2 x 8 GT/s x 128/130 / 8 bits */
	CHECK(d(f, "lost_gbps") > 1.9689 && d(f, "lost_gbps") < 1.9693);
	CHECK_INT(b(get(f, "link"), "training"), 0);
	/* its config space carries a Device Serial Number capability */
	CHECK_STR(s(f, "dsn"), "0025385b71b4a2f3");
	CHECK_STR(s(f, "id"), "pcie:0000:01:00.0:144d:a808:0025385b71b4a2f3");
	CHECK_STR(s(f, "source"), "sysfs");

	/* its root port sees the same x2 link against the NVMe's x4 */
	f = fn(pcie, "0000:00:01.0");
	CHECK_STR(s(f, "port_type"), "root_port");
	CHECK_INT(b(f, "downgraded"), 1);
	CHECK_STR(s(f, "verdict"), "degraded");
	CHECK(get(f, "upstream") == NULL);
	CHECK(get(f, "dsn") == NULL);
	CHECK_STR(s(f, "id"), "pcie:0000:00:01.0:8086:1901");

	/* Gen3 root port with a Gen1 NIC: Gen1 is all the pair can do */
	f = fn(pcie, "0000:00:1c.0");
	CHECK(d(get(f, "link"), "speed_gts") == 2.5);
	CHECK_INT(b(f, "downgraded"), 0);
	CHECK_STR(s(f, "verdict"), "limited"); /* by the NIC, not a fault */
	CHECK(get(f, "lost_gbps") == NULL);
	/* the NIC as non-root sees it: 64 bytes of config, sysfs link attributes */
	f = fn(pcie, "0000:02:00.0");
	CHECK_INT(b(f, "is_pcie"), 1);
	CHECK(get(f, "port_type") == NULL);
	CHECK(d(get(f, "link"), "cap_speed_gts") == 2.5);
	CHECK_INT(json_object_get_int(get(get(f, "link"), "width")), 1);
	CHECK_INT(json_object_array_length(get(get(f, "link"), "supported_speeds_gts")), 1);
	CHECK_INT(b(f, "downgraded"), 0);
	CHECK_STR(s(f, "verdict"), "ok"); /* at its own best; the port's end is limited */

	/* conventional PCI behind a PCIe-to-PCI bridge: Unknown/255 is no link */
	f = fn(pcie, "0000:04:00.0");
	CHECK_INT(b(f, "is_pcie"), 0);
	CHECK(get(f, "link") == NULL);
	CHECK(get(f, "port_type") == NULL);
	CHECK_INT(b(f, "downgraded"), 0);
	CHECK(get(f, "verdict") == NULL); /* no link, no verdict */
	CHECK_STR(s(get(f, "upstream"), "address"), "0000:03:00.0");
	f = fn(pcie, "0000:03:00.0");
	CHECK_STR(s(f, "port_type"), "pcie_to_pci_bridge");
	CHECK(get(f, "driver") == NULL);

	/* RC integrated endpoint: PCIe, no link */
	f = fn(pcie, "0000:00:02.0");
	CHECK_INT(b(f, "is_pcie"), 1);
	CHECK_STR(s(f, "port_type"), "rc_integrated_endpoint");
	CHECK(get(f, "link") == NULL);
	CHECK(get(f, "verdict") == NULL);
	/* host bridge with a capability list but no PCIe capability */
	f = fn(pcie, "0000:00:00.0");
	CHECK_INT(b(f, "is_pcie"), 0);
	CHECK_STR(s(f, "driver"), "skl_uncore");
	json_object_put(pcie);
}

static void test_not_a_module_fd(void)
{
	/* a descriptor that is not /dev/probestick: ENOTTY, then sysfs */
	json_object *pcie = json_object_new_array();
	int fd = open("/dev/null", O_RDONLY);

	CHECK_INT(ps_probe_pcie(FIXTURES "/sysroot-workstation", fd, pcie), 0);
	CHECK_INT(json_object_array_length(pcie), 11);
	CHECK_STR(s(json_object_array_get_idx(pcie, 0), "source"), "sysfs");
	close(fd);
	json_object_put(pcie);
}

static void test_broken(void)
{
	json_object *pcie = json_object_new_array(), *f;

	CHECK_INT(ps_probe_pcie(FIXTURES "/sysroot-broken", -1, pcie), 0);
	CHECK_INT(json_object_array_length(pcie), 4); /* not-a-function is skipped */
	f = fn(pcie, "0000:00:00.0");
	CHECK(get(f, "vendor_id") == NULL && get(f, "class") == NULL);
	CHECK_STR(s(f, "id"), "pcie:0000:00:00.0"); /* ids unreadable: the address alone */
	CHECK_INT(b(f, "is_pcie"), 0);
	/* truncated config, 255 width, garbage current link */
	f = fn(pcie, "0000:00:01.0");
	CHECK_STR(s(f, "vendor_id"), "8086");
	CHECK_INT(b(f, "is_pcie"), 0);
	CHECK(get(f, "link") == NULL);
	/* capability list loop */
	f = fn(pcie, "0000:00:02.0");
	CHECK_INT(b(f, "is_pcie"), 0);
	/* empty directory */
	f = fn(pcie, "0000:00:03.0");
	CHECK(f != NULL && get(f, "device_id") == NULL);
	json_object_put(pcie);

	pcie = json_object_new_array();
	CHECK(ps_probe_pcie(FIXTURES "/no-such-tree", -1, pcie) < 0);
	CHECK_INT(json_object_array_length(pcie), 0);
	json_object_put(pcie);
}

int main(void)
{
	test_workstation();
	test_not_a_module_fd();
	test_broken();
	return check_done("test_probe_pcie");
}
