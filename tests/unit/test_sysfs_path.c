/* test_sysfs_path.c - PCI ancestors and disk transports from real /sys/devices paths. */
#include "check.h"
#include "decode/decode.h"

#include <errno.h>

static void test_pci_address(void)
{
	CHECK(ps_is_pci_address("0000:00:1f.2", 12));
	CHECK(ps_is_pci_address("10000:e1:00.0", 13)); /* VMD domain */
	CHECK(!ps_is_pci_address("0000:00:1f.8", 12));
	CHECK(!ps_is_pci_address("pci0000:00", 10));
	CHECK(!ps_is_pci_address("0000:00:1f", 10));
	CHECK(!ps_is_pci_address("0000:0g:1f.2", 12));
	CHECK(!ps_is_pci_address("0000-00:1f.2", 12));
	CHECK(!ps_is_pci_address("", 0));
}

static void test_ancestor(void)
{
	char buf[32];
	const char *nvme = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0/nvme0n1";
	const char *usb = "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/"
			  "target6:0:0/6:0:0:0/block/sdb";

	CHECK_INT(ps_pci_ancestor(nvme, 0, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "0000:01:00.0");
	CHECK_INT(ps_pci_ancestor(nvme, 1, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "0000:00:01.0");
	CHECK_INT(ps_pci_ancestor(nvme, 2, buf, sizeof(buf)), -ENOENT);
	CHECK_STR(buf, "");
	CHECK_INT(ps_pci_ancestor(usb, 0, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "0000:00:14.0");
	CHECK_INT(ps_pci_ancestor("/sys/devices/0000:00:02.0", 0, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "0000:00:02.0");
	CHECK_INT(ps_pci_ancestor("/sys/devices/virtual/block/loop0", 0, buf, sizeof(buf)),
		  -ENOENT);
	CHECK_INT(ps_pci_ancestor("", 0, buf, sizeof(buf)), -ENOENT);
	CHECK_INT(ps_pci_ancestor("0000:00:02.0", 0, buf, sizeof(buf)), 0);
}

static void test_transport(void)
{
	static const struct {
		const char *path;
		enum ps_transport tr;
		int ata;
	} t[] = {
	    {"/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda",
	     PS_TR_ATA, 1},
	    {"/sys/devices/pci0000:00/0000:00:1f.2/ata12/host11/target11:0:0/11:0:0:0/block/sdl",
	     PS_TR_ATA, 12},
	    {"/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0/nvme0n1", PS_TR_NVME,
	     -1},
	    {"/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1", PS_TR_NVME, -1},
	    {"/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/"
	     "block/sdb",
	     PS_TR_USB, -1},
	    {"/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda", PS_TR_VIRTIO, -1},
	    /* virtio-scsi (recorded in QEMU): a SCSI disk behind a virtio HBA */
	    {"/sys/devices/pci0000:00/0000:00:13.0/0000:04:00.0/virtio1/host6/target6:0:0/"
	     "6:0:0:0/block/sdc",
	     PS_TR_SCSI, -1},
	    {"/sys/devices/pci0000:00/0000:00:1a.0/mmc_host/mmc0/mmc0:0001/block/mmcblk0",
	     PS_TR_MMC, -1},
	    {"/sys/devices/pci0000:00/0000:00:1c.0/0000:02:00.0/host2/port-2:0/end_device-2:0/"
	     "target2:0:0/2:0:0:0/block/sdc",
	     PS_TR_SCSI, -1},
	    {"/sys/devices/virtual/block/loop0", PS_TR_UNKNOWN, -1},
	    {"", PS_TR_UNKNOWN, -1},
	    /* names that only look alike */
	    {"/sys/devices/platform/ata_piix/hostile/block/sdz", PS_TR_UNKNOWN, -1},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ata = -2;

		CHECK_INT(ps_drive_transport(t[i].path, &ata), t[i].tr);
		CHECK_INT(ata, t[i].ata);
	}
	CHECK_INT(ps_drive_transport("/x/ata3/y", NULL), PS_TR_ATA);
	CHECK_STR(ps_transport_name(PS_TR_SATA), "sata");
	CHECK_STR(ps_transport_name(PS_TR_MMC), "mmc");
	CHECK_STR(ps_transport_name((enum ps_transport)99), "unknown");
}

/* The USB device a disk is below (its iSerial lives there), and where a disk sits. */
static void test_usb_and_location(void)
{
	static const char *const usb =
	    "/sys/devices/pci0000:00/0000:00:10.0/0000:01:00.0/usb2/2-1/2-1:1.0/host7/"
	    "target7:0:0/7:0:0:0/block/sdd";
	static const char *const hub =
	    "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-4/1-4.2/1-4.2:1.0/host3/target3:0:0/"
	    "3:0:0:0/block/sdc";
	char out[128];

	CHECK_INT(ps_usb_device(usb, out, sizeof(out)), 0);
	CHECK_STR(out, "2-1");
	CHECK_INT(ps_usb_device(hub, out, sizeof(out)), 0);
	CHECK_STR(out, "1-4.2"); /* behind a hub: the innermost device, not the hub */
	CHECK_INT(
	    ps_usb_device("/sys/devices/pci0000:00/0000:00:17.0/ata1/host0", out, sizeof(out)),
	    -ENOENT);
	CHECK_STR(out, "");
	CHECK_INT(ps_usb_device("/sys/devices/x/2-/3-1./4-1..2/1-4.2:1.0", out, sizeof(out)),
		  -ENOENT);

	ps_drive_location(usb, "sdd", out, sizeof(out));
	CHECK_STR(out, "pci-0000:01:00.0-usb-2-1");
	ps_drive_location("/sys/devices/pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0/"
			  "block/sdb",
			  "sdb", out, sizeof(out));
	CHECK_STR(out, "pci-0000:00:1f.2-ata-2");
	ps_drive_location("/sys/devices/pci0000:00/0000:00:11.0/0000:02:00.0/nvme/nvme0/nvme0n1",
			  "nvme0n1", out, sizeof(out));
	CHECK_STR(out, "pci-0000:02:00.0-nvme-1");
	ps_drive_location("/sys/devices/pci0000:00/0000:00:13.0/0000:04:00.0/virtio1/host6/"
			  "target6:0:0/6:0:0:0/block/sdc",
			  "sdc", out, sizeof(out));
	CHECK_STR(out, "pci-0000:04:00.0-scsi-6:0:0");
	ps_drive_location("/sys/devices/pci0000:00/0000:00:12.0/0000:03:00.0/virtio0/block/vda",
			  "vda", out, sizeof(out));
	CHECK_STR(out, "pci-0000:03:00.0");
	ps_drive_location("/sys/devices/virtual/block/loop0", "loop0", out, sizeof(out));
	CHECK_STR(out, "");
}

int main(void)
{
	test_pci_address();
	test_ancestor();
	test_transport();
	test_usb_and_location();
	return check_done("test_sysfs_path");
}
