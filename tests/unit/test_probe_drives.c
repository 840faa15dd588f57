/* test_probe_drives.c - ps_probe_drives and ps_boot_disk on recorded sysfs trees. */
#include "check.h"
#include "json_get.h"
#include "probes.h"

#include <errno.h>

static void test_workstation(void)
{
	json_object *drives = json_object_new_array(), *d;

	CHECK_INT(ps_probe_drives(FIXTURES "/sysroot-workstation", "sdb", drives), 0);
	/* partitions, loop0 and zram0 are not drives */
	CHECK_INT(json_object_array_length(drives), 3);

	d = json_object_array_get_idx(drives, 0);
	CHECK_STR(s(d, "name"), "nvme0n1");
	CHECK_STR(s(d, "path"), "/dev/nvme0n1");
	CHECK_STR(s(d, "model"), "Samsung SSD 970 EVO Plus 500GB");
	CHECK_STR(s(d, "serial"), "S4EVNX0N123456A");
	CHECK_STR(s(d, "firmware"), "2B2QEXM7");
	CHECK_INT(n(d, "size_bytes"), 976773168LL * 512);
	CHECK_INT(n(d, "logical_sector"), 512);
	CHECK_INT(b(d, "rotational"), 0);
	CHECK_STR(s(d, "transport"), "nvme");
	CHECK_STR(s(d, "link"), "PCIe 8.0 GT/s x2");
	CHECK(get(d, "queue_depth") == NULL);
	CHECK_STR(s(d, "pci_address"), "0000:01:00.0");
	CHECK_INT(b(d, "boot_device"), 0);

	d = json_object_array_get_idx(drives, 1);
	CHECK_STR(s(d, "name"), "sda");
	CHECK_STR(s(d, "model"), "WDC WD10EZEX-08W");
	CHECK_STR(s(d, "serial"), "WD-WCC6Y0RL4T0K");
	CHECK_STR(s(d, "firmware"), "1A01");
	CHECK_INT(n(d, "size_bytes"), 1000204886016LL);
	CHECK_INT(n(d, "physical_sector"), 4096);
	CHECK_INT(b(d, "rotational"), 1);
	CHECK_INT(b(d, "removable"), 0);
	CHECK_STR(s(d, "transport"), "sata");
	CHECK_STR(s(d, "link"), "SATA 3.0 Gb/s");
	CHECK_INT(n(d, "queue_depth"), 32);
	CHECK_STR(s(d, "pci_address"), "0000:00:17.0");

	d = json_object_array_get_idx(drives, 2);
	CHECK_STR(s(d, "name"), "sdb");
	CHECK_STR(s(d, "model"), "SanDisk Cruzer Blade");
	CHECK(get(d, "serial") == NULL); /* no VPD page 0x80 */
	CHECK_STR(s(d, "firmware"), "1.00");
	CHECK_INT(b(d, "removable"), 1);
	CHECK_STR(s(d, "transport"), "usb");
	CHECK(get(d, "link") == NULL);
	CHECK_INT(n(d, "queue_depth"), 1);
	CHECK_STR(s(d, "pci_address"), "0000:00:14.0");
	CHECK_INT(b(d, "boot_device"), 1);
	json_object_put(drives);

	/* no boot disk known: nothing is marked */
	drives = json_object_new_array();
	CHECK_INT(ps_probe_drives(FIXTURES "/sysroot-workstation", NULL, drives), 0);
	for (size_t i = 0; i < json_object_array_length(drives); i++)
		CHECK_INT(b(json_object_array_get_idx(drives, i), "boot_device"), 0);
	json_object_put(drives);
}

static void test_boot_disk(void)
{
	char disk[32];

	CHECK_INT(ps_boot_disk(FIXTURES "/sysroot-workstation", "/stick", disk, sizeof(disk)), 0);
	CHECK_STR(disk, "sdb");
	/* mount points with escaped spaces */
	CHECK_INT(ps_boot_disk(FIXTURES "/sysroot-workstation", "/mnt/my disk", disk, sizeof(disk)),
		  0);
	CHECK_STR(disk, "sda");
	/* only an exact mount point: "/" must never make the system disk the stick */
	CHECK_INT(
	    ps_boot_disk(FIXTURES "/sysroot-workstation", "/stick/reports", disk, sizeof(disk)),
	    -ENOENT);
	/* a pseudo file system has no block device */
	CHECK(ps_boot_disk(FIXTURES "/sysroot-workstation", "/proc", disk, sizeof(disk)) < 0);
	CHECK_INT(ps_boot_disk(FIXTURES "/sysroot-workstation", "", disk, sizeof(disk)), -EINVAL);
	CHECK_INT(ps_boot_disk(FIXTURES "/sysroot-broken", "/stick", disk, sizeof(disk)), -ENOENT);
}

static void test_broken(void)
{
	json_object *drives = json_object_new_array(), *d;

	CHECK_INT(ps_probe_drives(FIXTURES "/sysroot-broken", NULL, drives), 0);
	CHECK_INT(json_object_array_length(drives), 2);
	d = json_object_array_get_idx(drives, 0);
	CHECK_STR(s(d, "name"), "sda");
	CHECK_STR(s(d, "model"), "QEMU HARDDISK");
	CHECK(get(d, "serial") == NULL);      /* truncated VPD page */
	CHECK(get(d, "size_bytes") == NULL);  /* "abc" */
	CHECK(get(d, "removable") == NULL);   /* "7" */
	CHECK(get(d, "queue_depth") == NULL); /* "lots" */
	CHECK(get(d, "logical_sector") == NULL);
	CHECK_STR(s(d, "transport"), "scsi");
	d = json_object_array_get_idx(drives, 1);
	CHECK_STR(s(d, "name"), "vdz");
	CHECK_STR(s(d, "transport"), "unknown");
	CHECK(get(d, "pci_address") == NULL);
	json_object_put(drives);

	drives = json_object_new_array();
	CHECK(ps_probe_drives(FIXTURES "/no-such-tree", NULL, drives) < 0);
	json_object_put(drives);
}

int main(void)
{
	test_workstation();
	test_boot_disk();
	test_broken();
	return check_done("test_probe_drives");
}
