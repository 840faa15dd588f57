/*
 * memory_array.c - which SMBIOS memory devices are the system's RAM: the
 * type 16 Physical Memory Array a device belongs to says what it holds
 * (system memory, flash, video, cache), and a device of a ROM type the
 * size of a firmware chip is the BIOS flash listed as a memory device
 * (HP's "SYSTEM ROM", Supermicro's "BIOS" / "ROM0"), never a DIMM. Pure.
 */
#include "decode/decode.h"

#include <errno.h>
#include <string.h>

/* DSP0134 7.17: Physical Memory Array, the fields up to its device count (2.1). */
#define PS_T16_LOCATION 0x04
#define PS_T16_USE	0x05
#define PS_T16_ECC	0x06
#define PS_T16_DEVICES	0x0d
#define PS_T16_MIN_LEN	0x0f

int ps_smbios16_decode(const uint8_t *raw, size_t len, struct ps_memory_array *out)
{
	memset(out, 0, sizeof(*out));
	out->use = out->ecc = out->devices = -1;
	if (len < 2 || raw[0] != 16 || raw[1] < PS_T16_MIN_LEN)
		return -EINVAL;
	if (len < raw[1])
		return -ENODATA;
	out->handle = (unsigned int)(raw[2] | raw[3] << 8);
	/* 0x02 is "Unknown" in both: null in the report */
	out->use = raw[PS_T16_USE] && raw[PS_T16_USE] != 0x02 ? raw[PS_T16_USE] : -1;
	out->ecc = raw[PS_T16_ECC] && raw[PS_T16_ECC] != 0x02 ? raw[PS_T16_ECC] : -1;
	out->devices = raw[PS_T16_DEVICES] | raw[PS_T16_DEVICES + 1] << 8;
	return 0;
}

/* The largest firmware flash chips are 64 MiB; no DIMM is that small since the 1990s. */
#define PS_ROM_MAX_BYTES (64LL << 20)

bool ps_dimm_is_ram(const struct ps_dimm *d, int array_use)
{
	/* SMBIOS 7.17.2: 0x01 other, 0x03 system memory; video, flash, NVRAM and cache are not */
	if (array_use > 0 && array_use != 0x01 && array_use != PS_ARRAY_SYSTEM_MEMORY)
		return false;
	/* 7.18.2: ROM, Flash, EEPROM, FEPROM, EPROM; a 4 GB "EPROM" DIMM is a firmware typo */
	if (d->type_code >= 0x08 && d->type_code <= 0x0c)
		return d->size_bytes > PS_ROM_MAX_BYTES;
	return true;
}
