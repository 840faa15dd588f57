/* test_inventory_identity.c - the stable identity rules of hw/identity.c: one
 * device gives one id, whatever was renamed between two boots. */
#include "check.h"
#include "hw/inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_drive(void)
{
	char id[PS_ID_LEN];

	/* WWN first: it is unique by construction */
	ps_drive_identity("0x50014EE2B5D4A3C1", "WDC WD20EZRZ-00Z5HB0", "WD-WCC4M3KF7XYZ",
			  "pci-0000:00:17.0-ata-1", id, sizeof(id));
	CHECK_STR(id, "drive:wwn:0x50014ee2b5d4a3c1");
	ps_drive_identity("nvme.1b36-50534e564d4530303031-51454d55204e564d65204374726c-00000001",
			  "QEMU NVMe Ctrl", "PSNVME0001", NULL, id, sizeof(id));
	CHECK_STR(id, "drive:wwn:nvme.1b36-50534e564d4530303031-51454d55204e564d65204374726c-"
		      "00000001");
	/* no WWN: model and serial, white space as udev writes it in ID_SERIAL */
	ps_drive_identity("", "WDC WD20EZRZ-00Z5HB0", "  WD-WCC4M3KF7XYZ ", "pci-x", id,
			  sizeof(id));
	CHECK_STR(id, "drive:sn:WDC_WD20EZRZ-00Z5HB0:WD-WCC4M3KF7XYZ");
	ps_drive_identity(NULL, "QEMU HARDDISK", "PS-SATA-0002", NULL, id, sizeof(id));
	CHECK_STR(id, "drive:sn:QEMU_HARDDISK:PS-SATA-0002");
	/* the separator cannot be forged by a model or serial */
	ps_drive_identity(NULL, "A:B", "C: D", NULL, id, sizeof(id));
	CHECK_STR(id, "drive:sn:A_B:C_D");
	/* a serial without a model (virtio-blk) */
	ps_drive_identity(NULL, "", "PSVIRT0001", NULL, id, sizeof(id));
	CHECK_STR(id, "drive:sn:unknown:PSVIRT0001");
	/* neither: where it sits, which changes when it is moved */
	ps_drive_identity("  ", "Cruzer Blade", "", "pci-0000:00:14.0-usb-2-1", id, sizeof(id));
	CHECK_STR(id, "drive:path:pci-0000:00:14.0-usb-2-1");
	ps_drive_identity(NULL, "Cruzer Blade", NULL, "", id, sizeof(id));
	CHECK_STR(id, "");
	/* a small buffer is cut, never overrun */
	ps_drive_identity("0x50014ee2b5d4a3c1", NULL, NULL, NULL, id, 12);
	CHECK_STR(id, "drive:wwn:0");
}

static void test_nic(void)
{
	char id[PS_ID_LEN];

	/* the permanent MAC survives a bond or a MAC change, the current one does not */
	ps_nic_identity("68:05:CA:12:34:56", "02:11:22:33:44:55", id, sizeof(id));
	CHECK_STR(id, "nic:68:05:ca:12:34:56");
	ps_nic_identity("", "52:54:00:50:00:01", id, sizeof(id));
	CHECK_STR(id, "nic:52:54:00:50:00:01");
	ps_nic_identity("00:00:00:00:00:00", "52:54:00:50:00:01", id, sizeof(id));
	CHECK_STR(id, "nic:52:54:00:50:00:01");
	ps_nic_identity(NULL, "ff:ff:ff:ff:ff:ff", id, sizeof(id));
	CHECK_STR(id, "");
	ps_nic_identity("garbage", NULL, id, sizeof(id));
	CHECK_STR(id, "");
	ps_nic_identity("52:54:00:50:00:01:02", NULL, id, sizeof(id)); /* not six octets */
	CHECK_STR(id, "");
}

static void test_pcie(void)
{
	char id[PS_ID_LEN];

	ps_pcie_identity("0000:05:00.0", 0x8086, 0x10d3, 0, id, sizeof(id));
	CHECK_STR(id, "pcie:0000:05:00.0:8086:10d3");
	/* QEMU's e1000e has a Device Serial Number capability (its MAC as EUI-64) */
	ps_pcie_identity("0000:05:00.0", 0x8086, 0x10d3, 0x525400ffff500001ULL, id, sizeof(id));
	CHECK_STR(id, "pcie:0000:05:00.0:8086:10d3:525400ffff500001");
	/* ids unknown (a non-root sysfs read failed): the address alone */
	ps_pcie_identity("0000:00:1f.3", 0xffff, 0xffff, 0, id, sizeof(id));
	CHECK_STR(id, "pcie:0000:00:1f.3");
	ps_pcie_identity("", 0x8086, 0x10d3, 0, id, sizeof(id));
	CHECK_STR(id, "");
	ps_pcie_identity("10000:00:02.0", 0x8086, 0x09ab, 0, id, sizeof(id)); /* VMD domain */
	CHECK_STR(id, "pcie:10000:00:02.0:8086:09ab");
}

static void test_dimm(void)
{
	char id[PS_ID_LEN];

	ps_dimm_identity("DIMM_A1", "1A2B3C4D", id, sizeof(id));
	CHECK_STR(id, "dimm:DIMM_A1:1A2B3C4D");
	ps_dimm_identity("ChannelA-DIMM0", "Not Specified", id, sizeof(id));
	CHECK_STR(id, "dimm:ChannelA-DIMM0");
	ps_dimm_identity("DIMM 0", "00000000", id, sizeof(id));
	CHECK_STR(id, "dimm:DIMM_0");
	ps_dimm_identity("DIMM 0", "SerialNumber", id, sizeof(id));
	CHECK_STR(id, "dimm:DIMM_0");
	ps_dimm_identity("DIMM 0", NULL, id, sizeof(id));
	CHECK_STR(id, "dimm:DIMM_0");
	ps_dimm_identity("", "1A2B3C4D", id, sizeof(id));
	CHECK_STR(id, "");
}

static void test_refs(void)
{
	struct ps_drive d;
	struct ps_nic *n = calloc(1, sizeof(*n));
	struct ps_dimm_slot s;
	struct ps_pcie_dev p;
	struct ps_dev_ref r;

	memset(&d, 0, sizeof(d));
	memset(&s, 0, sizeof(s));
	memset(&p, 0, sizeof(p));
	snprintf(d.name, sizeof(d.name), "sda");
	r = ps_drive_ref(&d);
	CHECK_INT(r.kind, PS_DEV_DRIVE);
	CHECK(r.id == NULL); /* no identity: no id, never "" */
	CHECK_STR(r.name, "sda");
	snprintf(d.id, sizeof(d.id), "drive:wwn:0x1");
	CHECK_STR(ps_drive_ref(&d).id, "drive:wwn:0x1");
	snprintf(n->name, sizeof(n->name), "eth0");
	snprintf(n->id, sizeof(n->id), "nic:52:54:00:50:00:01");
	r = ps_nic_ref(n);
	CHECK_INT(r.kind, PS_DEV_NIC);
	CHECK_STR(r.id, "nic:52:54:00:50:00:01");
	snprintf(p.fn.address, sizeof(p.fn.address), "0000:01:00.0");
	CHECK_STR(ps_pcie_ref(&p).name, "0000:01:00.0");
	CHECK_INT(ps_pcie_ref(&p).kind, PS_DEV_LINK);
	snprintf(s.d.bank, sizeof(s.d.bank), "BANK 0");
	CHECK_STR(ps_dimm_ref(&s).name, "BANK 0"); /* no locator: the bank names it */
	CHECK_STR(ps_dev_kind_name(PS_DEV_LINK), "link");
	CHECK(ps_dev_kind_name(PS_DEV_NONE) == NULL);
	CHECK_STR(ps_inv_section_name(PS_INV_NICS), "nics");
	CHECK(ps_inv_section_name(PS_INV_SECTIONS) == NULL);
	free(n);
}

int main(void)
{
	test_drive();
	test_nic();
	test_pcie();
	test_dimm();
	test_refs();
	return check_done("test_inventory_identity");
}
