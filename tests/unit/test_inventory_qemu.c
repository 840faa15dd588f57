/* test_inventory_qemu.c - the inventory of a tree recorded in a QEMU guest
 * (tests/fixtures/sysroot-qemu) against what smartctl -i, lsblk and the QEMU
 * command line said for the same devices (its README.md). */
#include "check.h"
#include "hw/hw.h"
#include "hw/inventory.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT FIXTURES "/sysroot-qemu"

static const struct ps_drive *drive(const struct ps_inventory *inv, const char *name)
{
	const struct ps_drive *d = ps_inventory_drive(inv, name);

	if (!d) {
		fprintf(stderr, "no drive %s in %s\n", name, ROOT);
		exit(1);
	}
	return d;
}

static void test_drives(const struct ps_inventory *inv)
{
	const struct ps_drive *d;
	char rev[16];

	CHECK_INT(inv->n_drives, 6);
	/* ich9-ahci, model/ver/serial/rotation_rate/wwn set on the command line */
	d = drive(inv, "sda");
	CHECK_STR(d->model, "WDC WD20EZRZ-00Z5HB0"); /* smartctl Device Model, lsblk MODEL */
	CHECK_STR(d->firmware, "80.00A80");	     /* smartctl; lsblk's REV says 0A80 */
	CHECK_STR(d->serial, "WD-WCC4M0XXXXXX");
	CHECK_STR(d->wwn, "0x50014ee2b5d4a3c1"); /* lsblk WWN; smartctl "5 0014ee 2b5d4a3c1" */
	CHECK_INT(d->rotation_rpm, 5400);	 /* smartctl Rotation Rate */
	CHECK_INT(d->rotational, 1);
	CHECK_STR(d->identity_source, "ata");
	CHECK_INT(d->transport, PS_TR_SATA);
	CHECK_STR(d->link, "SATA 1.5 Gb/s");
	CHECK_INT(d->size_bytes, 67108864);
	CHECK_STR(d->id, "drive:wwn:0x50014ee2b5d4a3c1");
	CHECK_INT(d->ata.trim, 1); /* smartctl: TRIM Command: Available */
	/* the SCSI translation beside it really is cut to 16 and 4 characters */
	CHECK(ps_read_str(ROOT "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/"
			       "0:0:0:0/rev",
			  rev, sizeof(rev)) == 4 &&
	      strcmp(rev, "0A80") == 0);

	/* QEMU's default ide-hd reports no rotation rate: lsblk says ROTA 1, we say unknown */
	d = drive(inv, "sdb");
	CHECK_STR(d->model, "QEMU HARDDISK");
	CHECK_STR(d->firmware, "2.5+");
	CHECK_INT(d->rotational, PS_TRI_UNKNOWN);
	CHECK_STR(d->wwn, "");
	CHECK_STR(d->id, "drive:sn:QEMU_HARDDISK:PS-SATA-0002");

	/* virtio-scsi scsi-hd: smartctl Vendor/Product/Revision, Rotation Rate (VPD B1), LU id */
	d = drive(inv, "sdc");
	CHECK_STR(d->vendor, "SEAGATE");
	CHECK_STR(d->model, "ST4000NM0023");
	CHECK_STR(d->firmware, "0004");
	CHECK_STR(d->serial, "PSSCSI0001");
	CHECK_STR(d->serial_source, "vpd80");
	CHECK_STR(d->wwn, "0x5000c500a1b2c3d4");
	CHECK_INT(d->rotation_rpm, 7200);
	CHECK_STR(d->rotation_source, "vpd_b1");
	CHECK_INT(d->transport, PS_TR_SCSI);

	/* usb-storage serial=PSUSB00001: no VPD pages, the iSerial (lsblk SERIAL) */
	d = drive(inv, "sdd");
	CHECK_STR(d->vendor, "QEMU");
	CHECK_STR(d->model, "QEMU HARDDISK");
	CHECK_STR(d->serial, "PSUSB00001");
	CHECK_STR(d->serial_source, "usb");
	CHECK_STR(d->usb_path, "2-1");
	CHECK_INT(d->rotational, PS_TRI_UNKNOWN);
	CHECK_INT(d->transport, PS_TR_USB);
	CHECK(d->boot_device); /* mounted at /stick */

	/* NVMe: smartctl Model Number / Firmware Version; lsblk's WWN is the wwid */
	d = drive(inv, "nvme0n1");
	CHECK_STR(d->model, "QEMU NVMe Ctrl");
	CHECK_STR(d->serial, "PSNVME0001");
	CHECK_STR(d->firmware, "7.2.22");
	CHECK_STR(d->wwn, "nvme.1b36-50534e564d4530303031-51454d55204e564d65204374726c-00000001");
	CHECK_INT(d->rotational, 0);
	CHECK_STR(d->link, "PCIe 2.5 GT/s x1");

	d = drive(inv, "vda");
	CHECK_STR(d->serial, "PSVIRT0001");
	CHECK_STR(d->serial_source, "virtio");
	CHECK_STR(d->model, "");
	CHECK_INT(d->transport, PS_TR_VIRTIO);
}

static void test_pcie_and_rest(const struct ps_inventory *inv)
{
	const struct ps_pcie_dev *p;
	const struct ps_nic *n;
	size_t ports = 0;

	/*
	 * every device behind its own pcie-root-port (16 GT/s x32), trained 2.5
	 * GT/s x1: the link is at the best its weaker end (the device) supports:
	 * the port's end is limited, the device's (at its own best) ok
	 */
	for (size_t i = 0; i < inv->n_pcie; i++) {
		p = &inv->pcie[i];
		if (p->fn.port_type == 4) {
			ports++;
			CHECK_INT(p->verdict, PS_LINK_LIMITED);
		} else if (p->fn.port_type == 0) {
			CHECK_INT(p->verdict, PS_LINK_OK);
		} else {
			CHECK_INT(p->verdict, PS_LINK_NONE); /* q35's integrated functions */
		}
	}
	CHECK_INT(ports, 7);
	CHECK_INT(inv->n_pcie, 18);
	/* QEMU's e1000e carries a Device Serial Number: its MAC as an EUI-64 */
	p = ps_inventory_pcie(inv, "0000:05:00.0");
	CHECK(p && p->fn.dsn == 0x525400ffff500001ULL);
	CHECK_STR(p->id, "pcie:0000:05:00.0:8086:10d3:525400ffff500001");
	CHECK_STR(p->fn.driver, "e1000e");

	CHECK_INT(inv->n_nics, 3);
	n = ps_inventory_nic(inv, "eth0");
	CHECK_STR(n->driver, "virtio_net");
	CHECK_STR(n->id, "nic:52:54:00:50:00:03");
	CHECK_INT(n->msix_vectors, 3);
	n = ps_inventory_nic(inv, "eth1");
	CHECK_STR(n->driver, "e1000e");
	CHECK_INT(n->speed_mbps, 1000);
	CHECK_INT(n->carrier, 1);

	CHECK_STR(inv->machine.vendor, "QEMU");
	CHECK(inv->machine.under_hypervisor && inv->machine.cpu_flags_known);
	CHECK_STR(inv->machine.id, "525400500003"); /* no DMI UUID or serial: eth0's MAC */
	CHECK_INT(inv->memory.n_dimms, 1);
	CHECK_STR(inv->memory.dimms[0].id, "dimm:DIMM_0:PSDIMM0001");
	CHECK_INT(inv->memory.dimms[0].d.speed_mts, 3200);
}

int main(void)
{
	struct ps_inventory inv;
	struct ps_inventory_opts o = {.root = ROOT, .module_fd = -1};
	char stick[32];

	memset(&inv, 0, sizeof(inv));
	CHECK_INT(ps_boot_disk(ROOT, "/stick", stick, sizeof(stick)), 0);
	CHECK_STR(stick, "sdd");
	o.boot_disk = stick;
	CHECK_INT(ps_inventory_take(&inv, &o), 0);
	for (int s = 0; s < PS_INV_SECTIONS; s++)
		CHECK_INT(inv.err[s], 0);
	test_drives(&inv);
	test_pcie_and_rest(&inv);
	ps_inventory_free(&inv);
	return check_done("test_inventory_qemu");
}
