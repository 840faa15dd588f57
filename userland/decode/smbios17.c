/*
 * smbios17.c - SMBIOS type 17 (Memory Device) as the inventory keeps it:
 * kmod/smbios17.h (the decoder the module's dmi_walk() table uses too)
 * over a raw structure, and the names of its type and form factor codes.
 */
#include "decode/decode.h"

#include "lib/util.h"

#include "../../kmod/smbios17.h"

#include <errno.h>
#include <string.h>

static const char *const types[] = {
    [0x01] = "Other",	     [0x03] = "DRAM",	[0x04] = "EDRAM",
    [0x05] = "VRAM",	     [0x06] = "SRAM",	[0x07] = "RAM",
    [0x08] = "ROM",	     [0x09] = "Flash",	[0x0a] = "EEPROM",
    [0x0b] = "FEPROM",	     [0x0c] = "EPROM",	[0x0d] = "CDRAM",
    [0x0e] = "3DRAM",	     [0x0f] = "SDRAM",	[0x10] = "SGRAM",
    [0x11] = "RDRAM",	     [0x12] = "DDR",	[0x13] = "DDR2",
    [0x14] = "DDR2 FB-DIMM", [0x18] = "DDR3",	[0x19] = "FBD2",
    [0x1a] = "DDR4",	     [0x1b] = "LPDDR",	[0x1c] = "LPDDR2",
    [0x1d] = "LPDDR3",	     [0x1e] = "LPDDR4", [0x1f] = "Logical non-volatile device",
    [0x20] = "HBM",	     [0x21] = "HBM2",	[0x22] = "DDR5",
    [0x23] = "LPDDR5",	     [0x24] = "HBM3",
};

static const char *const form_factors[] = {
    [0x01] = "Other",
    [0x03] = "SIMM",
    [0x04] = "SIP",
    [0x05] = "Chip",
    [0x06] = "DIP",
    [0x07] = "ZIP",
    [0x08] = "Proprietary Card",
    [0x09] = "DIMM",
    [0x0a] = "TSOP",
    [0x0b] = "Row of chips",
    [0x0c] = "RIMM",
    [0x0d] = "SODIMM",
    [0x0e] = "SRIMM",
    [0x0f] = "FB-DIMM",
    [0x10] = "Die",
};

/* 0x02 "Unknown" stays NULL: unknown is null in the report. */
const char *ps_smbios17_type_name(unsigned int code)
{
	return code < PS_ARRAY_SIZE(types) ? types[code] : NULL;
}

const char *ps_smbios17_form_factor_name(unsigned int code)
{
	return code < PS_ARRAY_SIZE(form_factors) ? form_factors[code] : NULL;
}

/* The shared decoder's entry as the inventory keeps it: unknown numbers -1. */
void ps_dimm_from_smbios(const struct probestick_dimm *m, struct ps_dimm *out)
{
	memset(out, 0, sizeof(*out));
	ps_copy_str(out->locator, sizeof(out->locator), m->locator);
	ps_copy_str(out->bank, sizeof(out->bank), m->bank);
	ps_copy_str(out->manufacturer, sizeof(out->manufacturer), m->manufacturer);
	ps_copy_str(out->part_number, sizeof(out->part_number), m->part_number);
	ps_copy_str(out->serial, sizeof(out->serial), m->serial);
	out->handle = m->handle;
	out->array_handle = m->array_handle;
	out->populated = m->flags & PROBESTICK_DIMM_POPULATED;
	out->size_bytes = (m->flags & PROBESTICK_DIMM_SIZE_KNOWN) ? (int64_t)m->size_bytes : -1;
	out->type = ps_smbios17_type_name(m->type);
	out->type_code = m->type;
	out->form_factor = ps_smbios17_form_factor_name(m->form_factor);
	out->speed_mts = m->speed_mts ? (int)m->speed_mts : -1;
	out->configured_speed_mts = m->configured_speed_mts ? (int)m->configured_speed_mts : -1;
	out->rank = m->rank ? m->rank : -1;
	out->total_width = m->total_width != 0xffff && m->total_width ? m->total_width : -1;
	out->data_width = m->data_width != 0xffff && m->data_width ? m->data_width : -1;
	out->configured_voltage_mv = m->configured_voltage_mv ? m->configured_voltage_mv : -1;
}

int ps_smbios17_decode(const uint8_t *raw, size_t len, struct ps_dimm *out)
{
	struct probestick_dimm m;
	int r = ps_smbios17_parse(raw, len, &m);

	if (r < 0) {
		memset(out, 0, sizeof(*out));
		out->size_bytes = -1;
		out->speed_mts = out->configured_speed_mts = out->rank = -1;
		out->total_width = out->data_width = out->configured_voltage_mv = -1;
		return r;
	}
	ps_dimm_from_smbios(&m, out);
	return 0;
}
