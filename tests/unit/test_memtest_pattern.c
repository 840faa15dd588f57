/*
 * test_memtest_pattern.c - the memtest step's checker: every pattern, both
 * passes, finds one bit flipped in its buffer at the right offset with the
 * expected and actual words, and nothing in a clean buffer; the random
 * pattern depends on its seed; pagemap entries to physical addresses; the
 * failing address's DIMM from recorded EDAC counts and SMBIOS slots.
 */
#include "check.h"
#include "tree.h"

#include "engines/mem/pattern.h"
#include "hw/edac.h"
#include "hw/inventory.h"
#include "hw/readers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WORDS 4096

static void flipped_bit_found(void)
{
	uint64_t *buf = aligned_alloc(64, WORDS * sizeof(uint64_t));
	struct ps_mt_fail f[4];

	for (int p = 0; p < PS_MT_PATTERNS; p++) {
		for (unsigned int pass = 0; pass < PS_MT_PASSES; pass++) {
			size_t at = (size_t)(37 * (p + 1) + 1000 * pass) % WORDS;
			unsigned int bit = (unsigned int)(p * 11 + pass * 5) % 64;
			uint64_t want;

			ps_mt_fill(p, buf, WORDS, pass, 42);
			CHECK_INT(ps_mt_check(p, buf, WORDS, pass, 42, f, 4), 0);
			want = buf[at];
			buf[at] ^= 1ULL << bit;
			CHECK_INT(ps_mt_check(p, buf, WORDS, pass, 42, f, 4), 1);
			CHECK_INT(f[0].offset, at * 8);
			CHECK(f[0].expected == want);
			CHECK(f[0].actual == (want ^ (1ULL << bit)));
			/* a second flip, and only the first max are kept */
			buf[at / 2] ^= 1;
			CHECK_INT(ps_mt_check(p, buf, WORDS, pass, 42, f, 1), 2);
			CHECK_INT(f[0].offset, (at / 2) * 8);
		}
	}
	/* the address pattern holds the word's address; its second pass the complement */
	ps_mt_fill(PS_MT_ADDRESS, buf, WORDS, 0, 0);
	CHECK(buf[5] == (uint64_t)(uintptr_t)&buf[5]);
	ps_mt_fill(PS_MT_ADDRESS, buf, WORDS, 1, 0);
	CHECK(buf[5] == ~(uint64_t)(uintptr_t)&buf[5]);
	/* walking ones: one bit set in every word, every bit position used */
	ps_mt_fill(PS_MT_WALK1, buf, WORDS, 0, 0);
	uint64_t all = 0;
	for (size_t i = 0; i < 64; i++) {
		CHECK_INT(__builtin_popcountll(buf[i]), 1);
		all |= buf[i];
	}
	CHECK(all == ~0ULL);
	ps_mt_fill(PS_MT_WALK0, buf, WORDS, 1, 0);
	CHECK_INT(__builtin_popcountll(buf[9]), 63);
	/* a random buffer checked with another seed is all wrong */
	ps_mt_fill(PS_MT_RANDOM, buf, WORDS, 0, 1);
	CHECK_INT(ps_mt_check(PS_MT_RANDOM, buf, WORDS, 0, 2, f, 4), WORDS);
	CHECK(ps_mt_value(PS_MT_RANDOM, 3, 0, 0, 1) != ps_mt_value(PS_MT_RANDOM, 4, 0, 0, 1));
	CHECK_STR(ps_mt_pattern_name(PS_MT_CHECKER), "checkerboard");
	CHECK(ps_mt_pattern_name(PS_MT_PATTERNS) == NULL);
	free(buf);
}

static void pagemap(void)
{
	uint64_t phys = 0;

	/* present, PFN 0x12345: the page's frame plus the offset in it */
	CHECK_INT(ps_pagemap_phys((1ULL << 63) | 0x12345, 0x7f0000001abcULL, 4096, &phys), 0);
	CHECK(phys == 0x12345000ULL + 0xabc);
	CHECK_INT(ps_pagemap_phys(0x12345, 0x1000, 4096, &phys), -ENOENT); /* not present */
	CHECK_INT(ps_pagemap_phys((3ULL << 62) | 0x12345, 0x1000, 4096, &phys),
		  -ENOENT); /* swapped */
	CHECK_INT(ps_pagemap_phys(1ULL << 63, 0x1000, 4096, &phys),
		  -EPERM); /* not root: PFN hidden */
}

static struct ps_edac_dimm edac_dimm(int mc, const char *name, const char *label, int64_t ce,
				     int64_t ue)
{
	struct ps_edac_dimm d = {.mc = mc, .ce = ce, .ue = ue, .size_mb = 16384};

	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.label, sizeof(d.label), "%s", label);
	return d;
}

static void dimm_of(void)
{
	struct ps_dimm_slot slots[3] = {0};
	struct ps_memory m = {.dimms = slots, .n_dimms = 3};
	struct ps_edac_dimm b[2] = {edac_dimm(0, "dimm0", "CPU_SrcID#0_MC#0_Chan#0_DIMM#0", 3, 0),
				    edac_dimm(0, "dimm1", "CPU_SrcID#0_MC#0_Chan#1_DIMM#0", 0, 0)};
	struct ps_edac_dimm a[2] = {edac_dimm(0, "dimm0", "CPU_SrcID#0_MC#0_Chan#0_DIMM#0", 3, 0),
				    edac_dimm(0, "dimm1", "CPU_SrcID#0_MC#0_Chan#1_DIMM#0", 2, 0)};
	struct ps_edac before = {.present = true, .dimms = b, .n_dimms = 2};
	struct ps_edac after = {.present = true, .dimms = a, .n_dimms = 2};
	struct ps_edac none = {0};
	char label[64], why[256];

	snprintf(slots[0].d.locator, sizeof(slots[0].d.locator), "DIMM_A1");
	snprintf(slots[1].d.locator, sizeof(slots[1].d.locator), "DIMM_B1");
	snprintf(slots[2].d.locator, sizeof(slots[2].d.locator), "DIMM_C1");
	slots[0].d.populated = slots[1].d.populated = true;
	slots[0].ram = slots[1].ram = slots[2].ram = true;
	/* EDAC counted two corrected errors on dimm1 during the test: that DIMM */
	CHECK_STR(ps_mt_dimm_of(&m, &before, &after, label, sizeof(label), why, sizeof(why)),
		  "edac_counts");
	CHECK_STR(label, "CPU_SrcID#0_MC#0_Chan#1_DIMM#0");
	/* errors on both: not known */
	a[0].ue = 1;
	CHECK(ps_mt_dimm_of(&m, &before, &after, label, sizeof(label), why, sizeof(why)) == NULL);
	CHECK(strstr(why, "2 DIMMs") != NULL);
	/* no count grew, two DIMMs populated, no EDAC: null, with the reason */
	CHECK(ps_mt_dimm_of(&m, &none, &none, label, sizeof(label), why, sizeof(why)) == NULL);
	CHECK(strstr(why, "2 DIMMs are populated") != NULL);
	CHECK(strstr(why, "no EDAC driver") != NULL);
	CHECK_STR(label, "");
	/* one DIMM in EDAC's list */
	after.n_dimms = 1;
	CHECK_STR(ps_mt_dimm_of(&m, NULL, &after, label, sizeof(label), why, sizeof(why)),
		  "edac_only_dimm");
	CHECK_STR(label, "CPU_SrcID#0_MC#0_Chan#0_DIMM#0");
	/* one populated SMBIOS slot (QEMU's one type 17 device) */
	slots[0].d.populated = false;
	CHECK_STR(ps_mt_dimm_of(&m, NULL, NULL, label, sizeof(label), why, sizeof(why)),
		  "smbios_only_dimm");
	CHECK_STR(label, "DIMM_B1");
	/* HP's SYSTEM ROM beside it is a populated memory device, not a DIMM */
	snprintf(slots[2].d.locator, sizeof(slots[2].d.locator), "SYSTEM ROM");
	slots[2].d.populated = true;
	slots[2].ram = false;
	CHECK_STR(ps_mt_dimm_of(&m, NULL, NULL, label, sizeof(label), why, sizeof(why)),
		  "smbios_only_dimm");
	CHECK_STR(label, "DIMM_B1");
	slots[2].d.populated = false;
	/* nothing at all */
	slots[1].d.populated = false;
	CHECK(ps_mt_dimm_of(&m, NULL, NULL, label, sizeof(label), why, sizeof(why)) == NULL);
	CHECK(strstr(why, "no DIMM is known") != NULL);
}

#define MC "/sys/devices/system/edac/mc"

static void edac_tree(const char *root, int ce0, int ce1)
{
	tree_write(root, MC "/mc0/mc_name", "Skylake Socket#0 IMC#0\n", 0);
	tree_printf(root, MC "/mc0/ce_count", "%d\n", ce0 + ce1);
	tree_write(root, MC "/mc0/ue_count", "0\n", 0);
	tree_write(root, MC "/mc0/dimm0/dimm_label", "DIMM_A1\n", 0);
	tree_write(root, MC "/mc0/dimm0/size", "16384\n", 0);
	tree_printf(root, MC "/mc0/dimm0/dimm_ce_count", "%d\n", ce0);
	tree_write(root, MC "/mc0/dimm0/dimm_ue_count", "0\n", 0);
	tree_write(root, MC "/mc0/dimm1/dimm_label", "DIMM_B1\n", 0);
	tree_write(root, MC "/mc0/dimm1/size", "16384\n", 0);
	tree_printf(root, MC "/mc0/dimm1/dimm_ce_count", "%d\n", ce1);
	tree_write(root, MC "/mc0/dimm1/dimm_ue_count", "0\n", 0);
}

/* The same rules over what the readers make of recorded trees: the
 * workstation's SMBIOS tables (one of two slots populated) and EDAC's sysfs
 * before and after a test in which DIMM_B1 counted a corrected error. */
static void dimm_of_recorded(void)
{
	struct ps_memory m = {0};
	struct ps_edac before = {0}, after = {0};
	char label[64], why[256], *root = tree_new("test_memtest_edac");

	CHECK_INT(ps_read_memory(FIXTURES "/sysroot-workstation", -1, &m), 0);
	CHECK_INT(m.n_dimms, 2);
	CHECK_STR(ps_mt_dimm_of(&m, NULL, NULL, label, sizeof(label), why, sizeof(why)),
		  "smbios_only_dimm");
	CHECK_STR(label, m.dimms[0].d.populated ? m.dimms[0].d.locator : m.dimms[1].d.locator);
	edac_tree(root, 4, 0);
	CHECK_INT(ps_edac_read(root, &before), 0);
	edac_tree(root, 4, 1);
	CHECK_INT(ps_edac_read(root, &after), 0);
	CHECK(after.present && after.n_dimms == 2);
	CHECK_STR(ps_mt_dimm_of(&m, &before, &after, label, sizeof(label), why, sizeof(why)),
		  "edac_counts");
	CHECK_STR(label, "DIMM_B1");
	ps_edac_free(&before);
	ps_edac_free(&after);
	ps_edac_free(&m.edac);
	free(m.dimms);
	tree_done(root);
}

int main(void)
{
	dimm_of_recorded();
	flipped_bit_found();
	pagemap();
	dimm_of();
	return check_done("test_memtest_pattern");
}
