/*
 * pattern.c - the memtest step's patterns and their checker (pattern.h).
 */
#include "engines/mem/pattern.h"

#include "hw/edac.h"
#include "hw/inventory.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const names[PS_MT_PATTERNS] = {
    [PS_MT_ADDRESS] = "address",      [PS_MT_SOLID] = "solid",
    [PS_MT_CHECKER] = "checkerboard", [PS_MT_WALK1] = "walking_ones",
    [PS_MT_WALK0] = "walking_zeros",  [PS_MT_RANDOM] = "random",
};

const char *ps_mt_pattern_name(enum ps_mt_pattern p)
{
	return (unsigned int)p < PS_MT_PATTERNS ? names[p] : NULL;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t ps_mt_value(enum ps_mt_pattern p, size_t i, uintptr_t addr, unsigned int pass,
		     uint64_t seed)
{
	uint64_t v;

	switch (p) {
	case PS_MT_ADDRESS:
		v = (uint64_t)addr;
		break;
	case PS_MT_SOLID:
		v = 0;
		break;
	case PS_MT_CHECKER:
		v = 0x5555555555555555ULL;
		break;
	case PS_MT_WALK1:
		v = 1ULL << ((i + pass) & 63);
		return v; /* its second pass walks on, it is not the complement */
	case PS_MT_WALK0:
		v = ~(1ULL << ((i + pass) & 63));
		return v;
	case PS_MT_RANDOM:
		v = splitmix64(seed ^ splitmix64((uint64_t)i));
		break;
	default:
		v = 0;
	}
	return pass & 1 ? ~v : v;
}

void ps_mt_fill(enum ps_mt_pattern p, uint64_t *buf, size_t words, unsigned int pass, uint64_t seed)
{
	for (size_t i = 0; i < words; i++)
		buf[i] = ps_mt_value(p, i, (uintptr_t)&buf[i], pass, seed);
}

size_t ps_mt_check(enum ps_mt_pattern p, const uint64_t *buf, size_t words, unsigned int pass,
		   uint64_t seed, struct ps_mt_fail *fails, size_t max)
{
	size_t bad = 0;

	for (size_t i = 0; i < words; i++) {
		uint64_t want = ps_mt_value(p, i, (uintptr_t)&buf[i], pass, seed);
		/* volatile: the read must reach memory, not a value the compiler kept */
		uint64_t got = ((const volatile uint64_t *)buf)[i];

		if (got == want)
			continue;
		if (bad < max)
			fails[bad] = (struct ps_mt_fail){i * sizeof(uint64_t), want, got};
		bad++;
	}
	return bad;
}

int ps_pagemap_phys(uint64_t entry, uint64_t vaddr, uint64_t page_size, uint64_t *phys)
{
	uint64_t pfn = entry & ((1ULL << 55) - 1);

	if (!(entry >> 63 & 1) || entry >> 62 & 1)
		return -ENOENT; /* not present, or swapped */
	if (!pfn)
		return -EPERM; /* the kernel hides PFNs from processes without CAP_SYS_ADMIN */
	*phys = pfn * page_size + vaddr % page_size;
	return 0;
}

static void edac_name(const struct ps_edac_dimm *d, char *out, size_t len)
{
	snprintf(out, len, "%s", d->label[0] ? d->label : d->location[0] ? d->location : d->name);
}

const char *ps_mt_dimm_of(const struct ps_memory *m, const struct ps_edac *before,
			  const struct ps_edac *after, char *label, size_t len, char *why,
			  size_t wlen)
{
	size_t grew = 0, populated = 0, hit = 0;
	const struct ps_dimm_slot *slot = NULL;

	label[0] = why[0] = '\0';
	if (before && after && before->present && after->present) {
		for (size_t i = 0; i < after->n_dimms; i++) {
			const struct ps_edac_dimm *a = &after->dimms[i];

			for (size_t j = 0; j < before->n_dimms; j++) {
				const struct ps_edac_dimm *b = &before->dimms[j];

				if (b->mc != a->mc || strcmp(b->name, a->name) != 0)
					continue;
				if ((a->ce > b->ce && b->ce >= 0) ||
				    (a->ue > b->ue && b->ue >= 0)) {
					grew++;
					hit = i;
				}
			}
		}
		if (grew == 1) {
			edac_name(&after->dimms[hit], label, len);
			return "edac_counts";
		}
	}
	if (after && after->present && after->n_dimms == 1) {
		edac_name(&after->dimms[0], label, len);
		return "edac_only_dimm";
	}
	for (size_t i = 0; m && i < m->n_dimms; i++) {
		if (m->dimms[i].d.populated && m->dimms[i].ram) {
			populated++;
			slot = &m->dimms[i];
		}
	}
	if (populated == 1) {
		snprintf(label, len, "%s", slot->d.locator[0] ? slot->d.locator : slot->d.bank);
		return "smbios_only_dimm";
	}
	if (grew > 1)
		snprintf(why, wlen,
			 "EDAC counted errors on %zu DIMMs during the test: which one holds this "
			 "address is not known",
			 grew);
	else if (populated > 1)
		snprintf(why, wlen,
			 "%zu DIMMs are populated and no reader maps physical addresses to slots "
			 "(the memory controller interleaves channels and ranks)%s",
			 populated,
			 after && after->present
			     ? ""
			     : "; no EDAC driver, which could name the DIMM of an "
			       "ECC-corrected error");
	else
		snprintf(why, wlen, "no DIMM is known (SMBIOS type 17 lists none%s)",
			 after && after->present ? "" : ", and no EDAC driver registered");
	return NULL;
}
