/*
 * test_edac.c - EDAC during a step: the controllers and DIMMs of a temp
 * sysfs tree as an EDAC driver registers them (dimm* and rank* layouts),
 * their CE/UE counts at the step's start and end as deltas, findings per
 * DIMM (the SMBIOS slot when EDAC's label is its locator) and per
 * controller for errors EDAC could not place; none without a driver.
 */
#include "check.h"
#include "json_get.h"
#include "tree.h"

#include "hw/edac.h"
#include "hw/inventory.h"
#include "record/platform.h"
#include "lib/json.h"

#define MC "/sys/devices/system/edac/mc"

static void write_mc(const char *root, int ce0, int ue0, int ce1, int noinfo)
{
	tree_write(root, MC "/mc0/mc_name", "Skylake Socket#0 IMC#0\n", 0);
	tree_write(root, MC "/mc0/size_mb", "32768\n", 0);
	tree_printf(root, MC "/mc0/ce_count", "%d\n", ce0 + ce1 + noinfo);
	tree_printf(root, MC "/mc0/ue_count", "%d\n", ue0);
	tree_printf(root, MC "/mc0/ce_noinfo_count", "%d\n", noinfo);
	tree_write(root, MC "/mc0/ue_noinfo_count", "0\n", 0);
	tree_write(root, MC "/mc0/dimm0/dimm_label", "DIMM_A1\n", 0);
	tree_write(root, MC "/mc0/dimm0/dimm_location", "channel 0 slot 0\n", 0);
	tree_write(root, MC "/mc0/dimm0/size", "16384\n", 0);
	tree_write(root, MC "/mc0/dimm0/dimm_mem_type", "Registered-DDR4\n", 0);
	tree_write(root, MC "/mc0/dimm0/dimm_edac_mode", "SECDED\n", 0);
	tree_printf(root, MC "/mc0/dimm0/dimm_ce_count", "%d\n", ce0);
	tree_printf(root, MC "/mc0/dimm0/dimm_ue_count", "%d\n", ue0);
	tree_write(root, MC "/mc0/rank1/dimm_label", "CPU_SrcID#0_MC#0_Chan#1_DIMM#0\n", 0);
	tree_write(root, MC "/mc0/rank1/dimm_location", "channel 1 slot 0\n", 0);
	tree_printf(root, MC "/mc0/rank1/dimm_ce_count", "%d\n", ce1);
	tree_write(root, MC "/mc0/rank1/dimm_ue_count", "0\n", 0);
}

static json_object *finding(json_object *o, const char *rule, const char *subject)
{
	json_object *f = ps_json_arr(o, "findings");

	for (size_t i = 0; i < ps_json_len(f); i++) {
		json_object *x = ps_json_at(f, i);

		if (strcmp(ps_json_str_or(x, "rule", ""), rule) == 0 &&
		    (!subject || strcmp(ps_json_str_or(x, "subject", ""), subject) == 0))
			return x;
	}
	return NULL;
}

int main(void)
{
	char *root = tree_new("test_edac");
	struct ps_inventory inv = {0};
	struct ps_dimm_slot slot = {.id = "dimm:DIMM_A1:1A2B"};
	struct ps_edac e;
	struct ps_edac_rec *rec;
	json_object *o, *x;

	/* no driver: nothing to count, and why */
	CHECK_INT(ps_edac_read(root, &e), 0);
	CHECK(!e.present);
	o = ps_edac_compare(&e, &e, NULL);
	CHECK(b(o, "available") == 0);
	CHECK(s(o, "reason") != NULL);
	json_object_put(o);

	write_mc(root, 10, 0, 5, 1);
	CHECK_INT(ps_edac_read(root, &e), 0);
	CHECK(e.present);
	CHECK_INT(e.n_mcs, 1);
	CHECK_INT(e.n_dimms, 2);
	CHECK_STR(e.mcs[0].name, "Skylake Socket#0 IMC#0");
	CHECK_INT(e.mcs[0].ce, 16);
	CHECK_STR(e.dimms[0].label, "DIMM_A1");
	CHECK_INT(e.dimms[0].size_mb, 16384);
	CHECK_STR(e.dimms[1].name, "rank1");
	CHECK_INT(e.dimms[1].size_mb, -1); /* the file is not there: unknown */
	ps_edac_free(&e);

	/* during a step: DIMM_A1 gets 3 CE and 1 UE, rank1 nothing, 2 CE nowhere */
	snprintf(slot.d.locator, sizeof(slot.d.locator), "DIMM_A1");
	inv.memory.dimms = &slot;
	inv.memory.n_dimms = 1;
	rec = ps_edac_start(root);
	write_mc(root, 13, 1, 5, 3);
	o = ps_edac_stop(rec, &inv);
	CHECK(b(o, "available") == 1);
	CHECK_INT(json_object_array_length(get(o, "dimms")), 1);
	x = json_object_array_get_idx(get(o, "dimms"), 0);
	CHECK_INT(n(x, "ce"), 3);
	CHECK_INT(n(x, "ue"), 1);
	CHECK_STR(s(x, "device"), "dimm:DIMM_A1:1A2B");
	x = finding(o, "ue", "DIMM_A1");
	CHECK(x != NULL);
	CHECK_STR(s(x, "severity"), "fail");
	CHECK_STR(s(x, "kind"), "dimm");
	CHECK_STR(s(finding(o, "ce", "DIMM_A1"), "severity"), "warn");
	x = finding(o, "ce", "MC0");
	CHECK(x != NULL);
	CHECK(d(x, "value") == 2);
	x = json_object_array_get_idx(get(o, "controllers"), 0);
	CHECK_INT(n(x, "ce"), 5);
	CHECK_INT(n(x, "ce_noinfo"), 2);
	json_object_put(o);
	tree_done(root);
	return check_done("test_edac");
}
