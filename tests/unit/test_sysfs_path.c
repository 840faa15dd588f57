/* test_sysfs_path.c - PCI ancestors and disk transports from real /sys/devices paths. */
#include "check.h"
#include "probes/decode.h"

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

int main(void)
{
	test_pci_address();
	test_ancestor();
	test_transport();
	return check_done("test_sysfs_path");
}
