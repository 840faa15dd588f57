/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What an MCi_STATUS register says, plain C shared by the KUnit suite and
 * the userland (the mce probe hands over the raw register): its flags and
 * the architectural error code (Intel SDM vol. 3B 16.9, which AMD's
 * MCA_STATUS[15:0] follows), so a report names "memory controller read,
 * channel 1" rather than a number. Bank numbers mean different units on
 * different CPUs; the code says which kind of unit logged the error.
 */
#ifndef PROBESTICK_MCE_DECODE_H
#define PROBESTICK_MCE_DECODE_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#endif

#define PS_MCI_VAL	(1ULL << 63)	/* the register holds an error */
#define PS_MCI_OVER	(1ULL << 62)	/* another error was lost */
#define PS_MCI_UC	(1ULL << 61)	/* not corrected */
#define PS_MCI_EN	(1ULL << 60)	/* reporting was enabled */
#define PS_MCI_MISCV	(1ULL << 59)
#define PS_MCI_ADDRV	(1ULL << 58)	/* MCi_ADDR holds the address */
#define PS_MCI_PCC	(1ULL << 57)	/* processor context corrupt */

enum ps_mce_class {
	PS_MCE_NONE = 0,	/* no error */
	PS_MCE_SIMPLE,		/* unclassified, microcode ROM parity, external, ... */
	PS_MCE_MEMORY,		/* memory controller */
	PS_MCE_CACHE,		/* cache hierarchy */
	PS_MCE_TLB,
	PS_MCE_BUS,		/* bus and interconnect */
	PS_MCE_OTHER,		/* internal unclassified or an unknown code */
};

struct ps_mce_status {
	bool valid, overflow, uncorrected, enabled, addr_valid, misc_valid, pcc;
	uint16_t code;		/* MCACOD, bits 15:0 */
	uint16_t model_code;	/* MSCOD, bits 31:16 */
	enum ps_mce_class class;
	int channel;		/* memory controller: the channel, -1 not given */
	char what[64];		/* "memory controller read, channel 1" */
};

static inline const char *ps_mce_class_name(enum ps_mce_class c)
{
	static const char *const names[] = {
		"none", "simple", "memory controller", "cache", "TLB",
		"bus or interconnect", "internal",
	};

	return c >= PS_MCE_NONE && c <= PS_MCE_OTHER ? names[c] : "internal";
}

static inline const char *ps_mce_level(unsigned int ll)
{
	static const char *const levels[4] = { "L0", "L1", "L2", "generic level" };

	return levels[ll & 3];
}

static inline const char *ps_mce_tt(unsigned int tt)
{
	static const char *const types[4] = { "instruction", "data", "generic", "?" };

	return types[tt & 3];
}

static inline const char *ps_mce_request(unsigned int rrrr)
{
	static const char *const req[16] = {
		"error", "read", "write", "data read", "data write", "instruction fetch",
		"prefetch", "eviction", "snoop", "?", "?", "?", "?", "?", "?", "?",
	};

	return req[rrrr & 15];
}

static inline void ps_mce_decode(uint64_t status, struct ps_mce_status *out)
{
	static const char *const mem_tx[8] = {
		"generic", "read", "write", "address/command", "scrubbing", "?", "?", "?",
	};
	uint16_t c = (uint16_t)(status & 0xffff);
	uint16_t f = c & 0xefff;	/* bit 12 is the correction report filter */

	out->valid = status & PS_MCI_VAL;
	out->overflow = status & PS_MCI_OVER;
	out->uncorrected = status & PS_MCI_UC;
	out->enabled = status & PS_MCI_EN;
	out->misc_valid = status & PS_MCI_MISCV;
	out->addr_valid = status & PS_MCI_ADDRV;
	out->pcc = status & PS_MCI_PCC;
	out->code = c;
	out->model_code = (uint16_t)((status >> 16) & 0xffff);
	out->channel = -1;
	out->class = PS_MCE_SIMPLE;
	switch (c) {
	case 0x0000:
		out->class = PS_MCE_NONE;
		snprintf(out->what, sizeof(out->what), "no error");
		return;
	case 0x0001:
		snprintf(out->what, sizeof(out->what), "unclassified");
		return;
	case 0x0002:
		snprintf(out->what, sizeof(out->what), "microcode ROM parity");
		return;
	case 0x0003:
		snprintf(out->what, sizeof(out->what), "external error");
		return;
	case 0x0004:
		snprintf(out->what, sizeof(out->what), "FRC error");
		return;
	case 0x0005:
		snprintf(out->what, sizeof(out->what), "internal parity");
		return;
	case 0x0006:
		snprintf(out->what, sizeof(out->what), "SMM handler code access violation");
		return;
	case 0x0400:
		snprintf(out->what, sizeof(out->what), "internal timer");
		return;
	case 0x0e0b:
		snprintf(out->what, sizeof(out->what), "I/O error");
		return;
	}
	if ((f & 0xff80) == 0x0080) {		/* 000F 0000 1MMM CCCC */
		out->class = PS_MCE_MEMORY;
		if ((c & 0xf) != 0xf)
			out->channel = c & 0xf;
		if (out->channel >= 0)
			snprintf(out->what, sizeof(out->what), "memory controller %s, channel %d",
				 mem_tx[(c >> 4) & 7], out->channel);
		else
			snprintf(out->what, sizeof(out->what), "memory controller %s",
				 mem_tx[(c >> 4) & 7]);
	} else if ((f & 0xfff0) == 0x0010) {	/* 000F 0000 0001 TTLL */
		out->class = PS_MCE_TLB;
		snprintf(out->what, sizeof(out->what), "%s TLB, %s", ps_mce_tt(c >> 2),
			 ps_mce_level(c));
	} else if ((f & 0xff00) == 0x0100) {	/* 000F 0001 RRRR TTLL */
		out->class = PS_MCE_CACHE;
		snprintf(out->what, sizeof(out->what), "%s %s cache, %s", ps_mce_level(c),
			 ps_mce_tt(c >> 2), ps_mce_request(c >> 4));
	} else if ((f & 0xfffc) == 0x000c) {	/* 000F 0000 0000 11LL */
		out->class = PS_MCE_CACHE;
		snprintf(out->what, sizeof(out->what), "%s cache, generic", ps_mce_level(c));
	} else if ((f & 0xf800) == 0x0800) {	/* 000F 1PPT RRRR IILL */
		static const char *const pp[4] = {
			"source", "responder", "observer", "generic",
		};
		static const char *const ii[4] = { "memory", "?", "I/O", "other" };

		out->class = PS_MCE_BUS;
		snprintf(out->what, sizeof(out->what), "bus %s, %s %s%s", pp[(c >> 9) & 3],
			 ii[(c >> 2) & 3], ps_mce_request(c >> 4),
			 (c & 0x100) ? ", timeout" : "");
	} else {
		out->class = PS_MCE_OTHER;
		snprintf(out->what, sizeof(out->what), "internal error 0x%04x", c);
	}
}

#endif /* PROBESTICK_MCE_DECODE_H */
