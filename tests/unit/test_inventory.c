/* test_inventory.c - the inventory step on the workstation tree: the typed
 * inventory and its report sections, findings, verdicts and status. */
#include "check.h"
#include "step_harness.h"

#include "../../userland/steps/inventory.c"

static json_object *finding(struct harness *h, const char *rule, const char *subject)
{
	for (size_t i = 0; i < ps_json_len(h->run.findings); i++) {
		json_object *f = ps_json_at(h->run.findings, i);

		if (strcmp(ps_json_str_or(f, "rule", ""), rule) == 0 && ps_json_str(f, "subject") &&
		    strcmp(ps_json_str(f, "subject"), subject) == 0)
			return f;
	}
	return NULL;
}

static void test_workstation(void)
{
	struct ps_config cfg;
	struct harness h;
	json_object *report = json_object_new_object(), *f, *v;

	memset(&cfg, 0, sizeof(cfg));
	snprintf(cfg.stick, sizeof(cfg.stick), "/stick");
	harness_init(&h, &inventory_ops, FIXTURES "/sysroot-workstation", PS_PLAN_QUICK);
	h.ctx.cfg = &cfg;
	CHECK_INT(harness_run(&h), PS_PASS);
	CHECK(h.inv.taken);
	CHECK_INT(h.inv.n_pcie, 11);
	CHECK_INT(h.inv.n_drives, 3);
	CHECK_INT(h.inv.n_nics, 2);
	CHECK_STR(h.inv.machine.id, "6805ca123456");
	CHECK(ps_inventory_drive(&h.inv, "sdb") && ps_inventory_drive(&h.inv, "sdb")->boot_device);
	CHECK(ps_inventory_nic(&h.inv, "enp4s0") != NULL);
	/* the report's sections come from the typed inventory */
	ps_inventory_json(&h.inv, report);
	CHECK_INT(ps_json_len(ps_json_arr(report, "pcie")), 11);
	CHECK_INT(ps_json_len(ps_json_arr(report, "drives")), 3);
	CHECK_STR(ps_json_str(ps_json_get(report, "machine"), "id"), "6805ca123456");
	CHECK(ps_json_get(ps_json_get(report, "memory"), "dimms") != NULL);

	/* one finding for the NVMe link, not a second one for its root port */
	CHECK_INT(harness_count(&h, "inventory.pcie_degraded", NULL), 1);
	f = finding(&h, "inventory.pcie_degraded", "0000:01:00.0");
	CHECK(f != NULL);
	CHECK_STR(ps_json_str(f, "severity"), "warn");
	CHECK_STR(ps_json_str(f, "kind"), "link");
	f = finding(&h, "inventory.nic_no_carrier", "enp2s0");
	CHECK(f && strcmp(ps_json_str(f, "severity"), "info") == 0);
	CHECK(finding(&h, "inventory.nic_no_carrier", "enp4s0") == NULL);
	/* the stick found through /stick's mount: boot device, and no serial */
	f = finding(&h, "inventory.drive_no_serial", "sdb");
	CHECK(f && strcmp(ps_json_str(f, "severity"), "info") == 0);
	CHECK_INT(harness_count(&h, "inventory.drive_no_serial", NULL), 1);
	CHECK_INT(harness_count(&h, "inventory.section_failed", NULL), 0);
	/* the degraded link's verdict is warn; the healthy links pass */
	v = NULL;
	for (size_t i = 0; i < ps_json_len(h.verdicts); i++)
		if (strcmp(ps_json_str_or(ps_json_at(h.verdicts, i), "subject", ""),
			   "0000:01:00.0") == 0)
			v = ps_json_at(h.verdicts, i);
	CHECK(v && strcmp(ps_json_str(v, "status"), "warn") == 0);
	CHECK_INT(json_object_get_int(ps_json_get(h.data, "pcie_functions")), 11);
	CHECK_INT(json_object_get_int(ps_json_get(h.data, "dimms")), 2);
	CHECK_STR(ps_json_str(h.data, "boot_disk"), "sdb");
	harness_done(&h);

	/* boot_disk from the configuration wins over the mount table */
	snprintf(cfg.boot_disk, sizeof(cfg.boot_disk), "sda");
	harness_init(&h, &inventory_ops, FIXTURES "/sysroot-workstation", PS_PLAN_QUICK);
	h.ctx.cfg = &cfg;
	harness_run(&h);
	CHECK(ps_inventory_drive(&h.inv, "sda") && ps_inventory_drive(&h.inv, "sda")->boot_device);
	CHECK(!ps_inventory_drive(&h.inv, "sdb")->boot_device);
	harness_done(&h);
	json_object_put(report);
}

static void test_broken(void)
{
	struct harness h;

	/* nothing readable: every section is a finding, the step still ends */
	harness_init(&h, &inventory_ops, FIXTURES "/no-such-tree", PS_PLAN_QUICK);
	CHECK_INT(harness_run(&h), PS_PASS);
	CHECK_INT(harness_count(&h, "inventory.section_failed", NULL), 5);
	CHECK_INT(harness_count(&h, "inventory.section_failed", "warn"), 3);
	harness_done(&h);
}

int main(void)
{
	CHECK_STR(inventory_ops.name, "inventory");
	CHECK_INT(inventory_ops.abi, PS_STEP_ABI);
	CHECK_INT(inventory_ops.order, 0);
	CHECK_INT(inventory_ops.plans, PS_PLAN_QUICK | PS_PLAN_FULL);
	test_workstation();
	test_broken();
	return check_done("test_inventory");
}
