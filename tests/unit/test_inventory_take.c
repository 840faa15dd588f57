/* test_inventory_take.c - ps_inventory_take/identify/json/free and the lookups
 * on the recorded fixture trees: one typed inventory, one serializer. */
#include "check.h"
#include "json_get.h"
#include "hw/hw.h"
#include "hw/inventory.h"

#include <errno.h>
#include <string.h>

#define WS     FIXTURES "/sysroot-workstation"
#define BROKEN FIXTURES "/sysroot-broken"

static void test_workstation(void)
{
	struct ps_inventory inv;
	struct ps_inventory_opts o = {.root = WS, .module_fd = -1, .boot_disk = "sdb"};
	const struct ps_drive *d;
	const struct ps_nic *n;
	const struct ps_pcie_dev *p;
	struct ps_dev_ref ref;

	memset(&inv, 0, sizeof(inv));
	CHECK_INT(ps_inventory_take(&inv, &o), 0);
	CHECK(inv.taken);
	for (int s = 0; s < PS_INV_SECTIONS; s++)
		CHECK_INT(inv.err[s], 0);
	CHECK_STR(inv.machine.id, "6805ca123456");
	CHECK(!inv.machine.under_hypervisor && inv.machine.cpu_flags_known);
	CHECK_INT(inv.machine.cpu_cores, 4);
	CHECK_INT(inv.n_pcie, 11);
	CHECK_STR(inv.pcie_source, "sysfs");
	CHECK_INT(inv.n_drives, 3);
	CHECK_INT(inv.n_nics, 2);
	CHECK_INT(inv.memory.n_dimms, 2);
	CHECK_STR(inv.boot_disk, "sdb");

	d = ps_inventory_drive(&inv, "sda");
	CHECK(d && d->transport == PS_TR_SATA && d->ata_port == 1);
	CHECK_STR(d->model, "WDC WD10EZEX-08WN4A0");
	CHECK_INT(d->rotation_rpm, 7200);
	CHECK_INT(d->rotational, 1);
	CHECK(d->has_ata && d->ata.queue_depth == 32);
	ref = ps_drive_ref(d);
	CHECK_INT(ref.kind, PS_DEV_DRIVE);
	CHECK_STR(ref.id, "drive:wwn:0x50014ee20e5f6a7b");
	CHECK_STR(ref.name, "sda");
	d = ps_inventory_drive(&inv, "sdb");
	CHECK(d && d->boot_device && d->rotational == PS_TRI_UNKNOWN);
	CHECK_STR(d->usb_path, "2-1");
	d = ps_inventory_drive(&inv, "nvme0n1");
	CHECK_STR(d->nvme_ctrl, "nvme0");
	CHECK_INT(d->ata_port, PS_UNKNOWN);
	CHECK(ps_inventory_drive(&inv, "sdz") == NULL);
	CHECK(ps_inventory_drive(&inv, NULL) == NULL);

	n = ps_inventory_nic(&inv, "enp4s0");
	CHECK(n && n->speed_mbps == 100 && !n->ethtool);
	CHECK_STR(ps_nic_ref(n).id, "nic:00:e0:4c:81:39:01");
	CHECK(ps_inventory_nic(&inv, "lo") == NULL);

	p = ps_inventory_pcie(&inv, "0000:01:00.0");
	CHECK(p && p->verdict == PS_LINK_DEGRADED);
	CHECK(p->lost_gbps > 1.96 && p->lost_gbps < 1.97);
	CHECK(p->up_index >= 0 && strcmp(inv.pcie[p->up_index].fn.address, "0000:00:01.0") == 0);
	CHECK(p->fn.dsn == 0x0025385b71b4a2f3ULL);
	CHECK_INT(ps_pcie_ref(p).kind, PS_DEV_LINK);
	p = ps_inventory_pcie(&inv, "0000:00:00.0");
	CHECK(p && p->up_index == -1 && p->verdict == PS_LINK_NONE);
	CHECK(ps_inventory_pcie(&inv, "0000:09:00.0") == NULL);

	CHECK_STR(ps_dimm_ref(&inv.memory.dimms[0]).id, "dimm:ChannelA-DIMM0:12345678");
	CHECK_STR(ps_dimm_ref(&inv.memory.dimms[0]).name, "ChannelA-DIMM0");

	/* a second take frees the first (LeakSanitizer watches) */
	o.boot_disk = NULL;
	CHECK_INT(ps_inventory_take(&inv, &o), 0);
	CHECK(inv.boot_disk[0] == '\0' && !ps_inventory_drive(&inv, "sdb")->boot_device);
	ps_inventory_free(&inv);
	CHECK(!inv.taken && inv.pcie == NULL && inv.n_drives == 0);
	ps_inventory_free(&inv); /* twice is harmless */
}

/* The report sections: ps_inventory_json() and the hw.h wrappers give the same bytes. */
static void test_one_serializer(void)
{
	struct ps_inventory inv;
	struct ps_inventory_opts o = {.root = WS, .module_fd = -1, .boot_disk = "sdb"};
	json_object *report = json_object_new_object(), *parts = json_object_new_object();
	static const char *const keys[] = {"machine", "pcie", "drives", "nics", "memory"};

	memset(&inv, 0, sizeof(inv));
	json_object_object_add(report, "pcie",
			       json_object_new_array()); /* replaced, not appended */
	CHECK_INT(ps_inventory_take(&inv, &o), 0);
	ps_inventory_json(&inv, report);
	ps_inventory_json(&inv, report);
	CHECK_INT(json_object_array_length(get(report, "pcie")), 11);

	json_object_object_add(parts, "machine", json_object_new_object());
	json_object_object_add(parts, "pcie", json_object_new_array());
	json_object_object_add(parts, "drives", json_object_new_array());
	json_object_object_add(parts, "nics", json_object_new_array());
	json_object_object_add(parts, "memory", json_object_new_object());
	CHECK_INT(ps_probe_machine(WS, get(parts, "machine")), 0);
	CHECK_INT(ps_probe_pcie(WS, -1, get(parts, "pcie")), 0);
	CHECK_INT(ps_probe_drives(WS, "sdb", get(parts, "drives")), 0);
	CHECK_INT(ps_probe_nics(WS, get(parts, "nics")), 0);
	CHECK_INT(ps_probe_memory(WS, get(parts, "memory")), 0);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *a = json_object_to_json_string(get(report, keys[i]));
		const char *b = json_object_to_json_string(get(parts, keys[i]));

		if (strcmp(a, b) != 0)
			printf("%s differs:\n  %s\n  %s\n", keys[i], a, b);
		CHECK(strcmp(a, b) == 0);
	}
	/* every device carries its identity in the report */
	CHECK_STR(s(json_object_array_get_idx(get(report, "drives"), 1), "id"),
		  "drive:wwn:0x50014ee20e5f6a7b");
	CHECK_STR(s(json_object_array_get_idx(get(report, "nics"), 0), "id"),
		  "nic:68:05:ca:12:34:56");
	CHECK(s(json_object_array_get_idx(get(report, "pcie"), 0), "id") != NULL);
	ps_inventory_free(&inv);
	json_object_put(report);
	json_object_put(parts);
}

static void test_broken_and_missing(void)
{
	struct ps_inventory inv;
	struct ps_inventory_opts o = {.root = BROKEN, .module_fd = -1};
	json_object *report = json_object_new_object();

	memset(&inv, 0, sizeof(inv));
	/* sections fail on their own; the others are complete */
	CHECK_INT(ps_inventory_take(&inv, &o), 0);
	CHECK(inv.err[PS_INV_MACHINE] < 0);
	CHECK_INT(inv.err[PS_INV_PCIE], 0);
	CHECK_INT(inv.err[PS_INV_DRIVES], 0);
	CHECK(inv.err[PS_INV_MEMORY] < 0);
	CHECK_INT(inv.n_drives, 2);
	CHECK_INT(inv.machine.cpu_logical, PS_UNKNOWN);
	CHECK(!inv.machine.cpu_flags_known);
	ps_inventory_json(&inv, report);
	CHECK(get(get(report, "machine"), "under_hypervisor") == NULL);
	CHECK(get(get(report, "machine"), "memory_bytes") == NULL);

	o.root = FIXTURES "/no-such-tree";
	CHECK_INT(ps_inventory_take(&inv, &o), 0);
	CHECK(inv.err[PS_INV_PCIE] < 0 && inv.err[PS_INV_DRIVES] < 0 && inv.err[PS_INV_NICS] < 0);
	CHECK_INT(inv.n_pcie + inv.n_drives + inv.n_nics + inv.memory.n_dimms, 0);
	CHECK_STR(inv.machine.id, "unknown");
	ps_inventory_json(&inv, report);
	CHECK_INT(json_object_array_length(get(report, "drives")), 0);
	CHECK(get(get(report, "memory"), "slots_total") == NULL);
	ps_inventory_free(&inv);
	json_object_put(report);
}

/* What a plan without the inventory step takes for the machine-id: machine and NICs. */
static void test_identify(void)
{
	struct ps_inventory inv;

	memset(&inv, 0, sizeof(inv));
	CHECK_INT(ps_inventory_identify(&inv, WS), 0);
	CHECK(!inv.taken);
	CHECK_STR(inv.machine.id, "6805ca123456");
	CHECK_INT(inv.n_nics, 2);
	CHECK_INT(inv.n_drives + inv.n_pcie, 0);
	ps_inventory_free(&inv);
}

int main(void)
{
	test_workstation();
	test_one_serializer();
	test_broken_and_missing();
	test_identify();
	return check_done("test_inventory_take");
}
