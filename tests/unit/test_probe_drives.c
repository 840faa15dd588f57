/* test_probe_drives.c - the drives of the inventory (through the hw.h wrapper,
 * serialized as the report has them) and ps_boot_disk on recorded sysfs trees;
 * identities as smartctl and lsblk give them. */
#include "check.h"
#include "json_get.h"
#include "hw/hw.h"

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
	CHECK_INT(b(d, "rotational"), 0); /* NVMe: flash by definition */
	CHECK_STR(s(d, "rotation_source"), "nvme");
	CHECK_STR(s(d, "wwn"), "eui.0025385b71b4a2f3"); /* the namespace's wwid, as lsblk */
	CHECK_STR(s(d, "id"), "drive:wwn:eui.0025385b71b4a2f3");
	CHECK_STR(s(d, "serial_source"), "nvme");
	CHECK(get(d, "ata") == NULL);
	CHECK_STR(s(d, "transport"), "nvme");
	CHECK_STR(s(d, "link"), "PCIe 8.0 GT/s x2");
	CHECK(get(d, "queue_depth") == NULL);
	CHECK_STR(s(d, "pci_address"), "0000:01:00.0");
	CHECK_INT(b(d, "boot_device"), 0);

	d = json_object_array_get_idx(drives, 1);
	CHECK_STR(s(d, "name"), "sda");
	/* from IDENTIFY (vpd_pg89): sysfs's SCSI translation says "WDC WD10EZEX-08W", "1A01" */
	CHECK_STR(s(d, "model"), "WDC WD10EZEX-08WN4A0");
	CHECK_STR(s(d, "firmware"), "01.01A01");
	CHECK_STR(s(d, "identity_source"), "ata");
	CHECK(get(d, "vendor") == NULL); /* libata's "ATA" is not a vendor */
	CHECK_STR(s(d, "serial"), "WD-WCC6Y0RL4T0K");
	CHECK_STR(s(d, "serial_source"), "ata");
	CHECK_STR(s(d, "wwn"), "0x50014ee20e5f6a7b");
	CHECK_STR(s(d, "id"), "drive:wwn:0x50014ee20e5f6a7b");
	CHECK_INT(n(d, "size_bytes"), 1000204886016LL);
	CHECK_INT(n(d, "physical_sector"), 4096);
	CHECK_INT(b(d, "rotational"), 1);
	CHECK_INT(n(d, "rotation_rpm"), 7200);
	CHECK_STR(s(d, "rotation_source"), "ata");
	CHECK_INT(b(d, "removable"), 0);
	CHECK_INT(n(get(d, "ata"), "queue_depth"), 32);
	CHECK_INT(b(get(d, "ata"), "ncq"), 1);
	CHECK_INT(n(get(d, "ata"), "sectors"), 1953525168LL);
	CHECK_STR(s(get(d, "ata"), "form_factor"), "3.5 inches");
	CHECK_INT(json_object_array_length(get(get(d, "ata"), "sata_speeds_gbps")), 3);
	CHECK_STR(s(d, "transport"), "sata");
	CHECK_STR(s(d, "link"), "SATA 3.0 Gb/s");
	CHECK_INT(n(d, "queue_depth"), 32);
	CHECK_STR(s(d, "pci_address"), "0000:00:17.0");

	d = json_object_array_get_idx(drives, 2);
	CHECK_STR(s(d, "name"), "sdb");
	CHECK_STR(s(d, "vendor"), "SanDisk");
	CHECK_STR(s(d, "model"), "Cruzer Blade"); /* lsblk: VENDOR and MODEL apart */
	/* no VPD page 0x80 (usb-storage skips VPD) and a USB device without an
	 * iSerial: no serial (sysroot-qemu has a stick with one) */
	CHECK(get(d, "serial") == NULL && get(d, "serial_source") == NULL);
	CHECK_STR(s(d, "usb_path"), "2-1");
	CHECK_STR(s(d, "id"), "drive:path:pci-0000:00:14.0-usb-2-1");
	/* the kernel's default rotational=1 is not a rotation rate: unknown */
	CHECK(get(d, "rotational") == NULL);
	CHECK(get(d, "rotation_rpm") == NULL);
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
	/* its IDENTIFY fails the integrity checksum: the SCSI model, not a guess */
	CHECK_STR(s(d, "model"), "QEMU HARDDISK");
	CHECK_STR(s(d, "identity_source"), "scsi");
	CHECK(get(d, "ata") == NULL);
	CHECK(get(d, "serial") == NULL);     /* truncated VPD page */
	CHECK(get(d, "wwn") == NULL);	     /* page 0x83 cut short */
	CHECK(get(d, "rotational") == NULL); /* B1 with a reserved rate */
	CHECK_STR(s(d, "id"), "drive:path:pci-0000:00:02.0-scsi-0:0:0");
	CHECK(get(d, "size_bytes") == NULL);  /* "abc" */
	CHECK(get(d, "removable") == NULL);   /* "7" */
	CHECK(get(d, "queue_depth") == NULL); /* "lots" */
	CHECK(get(d, "logical_sector") == NULL);
	CHECK_STR(s(d, "transport"), "scsi");
	d = json_object_array_get_idx(drives, 1);
	CHECK_STR(s(d, "name"), "vdz");
	CHECK_STR(s(d, "transport"), "unknown");
	CHECK(get(d, "id") == NULL); /* nothing to know it by */
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
