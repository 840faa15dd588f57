/*
 * pattern.h - the memtest step's pattern checker (memtester's tests, in
 * user space): each pattern is a pure function of the word's index, its
 * address, the pass and a seed, so a check recomputes what should be there
 * instead of keeping a second copy. Pure: no I/O, no allocation.
 */
#ifndef PS_ENGINES_MEM_PATTERN_H
#define PS_ENGINES_MEM_PATTERN_H

#include <stddef.h>
#include <stdint.h>

enum ps_mt_pattern {
	PS_MT_ADDRESS = 0, /* stuck address: every word holds its own address */
	PS_MT_SOLID,	   /* all zeros, then all ones */
	PS_MT_CHECKER,	   /* 0x5555..., then 0xaaaa... */
	PS_MT_WALK1,	   /* one bit set, walking with the index and the pass */
	PS_MT_WALK0,	   /* one bit clear, walking */
	PS_MT_RANDOM,	   /* a seeded pseudo-random value per word (splitmix64) */
	PS_MT_PATTERNS
};

/* Every pattern runs in two passes: the value, then its complement. */
#define PS_MT_PASSES 2

const char *ps_mt_pattern_name(enum ps_mt_pattern p); /* "address", "solid", ... */

/* The value word i (at address addr) holds in pass pass of pattern p. */
uint64_t ps_mt_value(enum ps_mt_pattern p, size_t i, uintptr_t addr, unsigned int pass,
		     uint64_t seed);

/* Write pattern p, pass pass, into buf[0..words). */
void ps_mt_fill(enum ps_mt_pattern p, uint64_t *buf, size_t words, unsigned int pass,
		uint64_t seed);

struct ps_mt_fail {
	size_t offset; /* bytes from the start of the buffer */
	uint64_t expected, actual;
};

/*
 * Compare buf[0..words) with pattern p, pass pass. The first max failing
 * words go into fails (in address order); returns how many words differed
 * in all.
 */
size_t ps_mt_check(enum ps_mt_pattern p, const uint64_t *buf, size_t words, unsigned int pass,
		   uint64_t seed, struct ps_mt_fail *fails, size_t max);

/*
 * One entry of /proc/PID/pagemap to the physical address of vaddr: 0, or
 * -ENOENT (page not present or swapped), -EPERM (the PFN reads 0: not root).
 */
int ps_pagemap_phys(uint64_t entry, uint64_t vaddr, uint64_t page_size, uint64_t *phys);

struct ps_memory;
struct ps_edac;

/*
 * Which DIMM a failing address sits on, where EDAC or SMBIOS can say: the
 * one DIMM whose EDAC corrected or uncorrected count grew between before and
 * after (the controller placed the error itself), else the only DIMM EDAC
 * lists, else the only populated SMBIOS type 17 slot. Writes its name into
 * label and returns the source ("edac_counts", "edac_only_dimm",
 * "smbios_only_dimm"); NULL with why filled in when none can tell (several
 * DIMMs, and no reader maps physical addresses to slots: the controller
 * interleaves channels and ranks). before/after may be NULL. Pure.
 */
const char *ps_mt_dimm_of(const struct ps_memory *m, const struct ps_edac *before,
			  const struct ps_edac *after, char *label, size_t len, char *why,
			  size_t wlen);

#endif
