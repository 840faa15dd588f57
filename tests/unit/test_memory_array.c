/*
 * test_memory_array.c - which SMBIOS memory devices are RAM: type 16 arrays
 * as firmware writes them and the memory devices of real machines
 * (tests/realworld/dmi/corpus/): HP's "SYSTEM ROM" in a Flash Memory array,
 * a Supermicro "BIOS" / "ROM0", a flash chip in a System Memory array, and
 * a 4 GB DIMM a firmware typed EPROM.
 */
#include "check.h"
#include "decode/decode.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* HP Compaq dc7800 (corpus desktop-hewlett-packard-6951e18673da): handle 0x0037,
 * Use: Flash Memory, no ECC, 4 MB, one device; 15 bytes and the empty string table. */
static const uint8_t flash_array[] = {0x10, 0x0f, 0x37, 0x00, 0x03, 0x05, 0x03, 0x00, 0x10,
				      0x00, 0x00, 0xfe, 0xff, 0x01, 0x00, 0x00, 0x00};
/* the same machine's System Memory array: 4 GB, four devices */
static const uint8_t ram_array[] = {0x10, 0x0f, 0x36, 0x00, 0x03, 0x03, 0x03, 0x00, 0x00,
				    0x40, 0x00, 0xfe, 0xff, 0x04, 0x00, 0x00, 0x00};

static void arrays(void)
{
	struct ps_memory_array a;
	uint8_t b[sizeof(ram_array)];

	CHECK_INT(ps_smbios16_decode(flash_array, sizeof(flash_array), &a), 0);
	CHECK_INT(a.handle, 0x37);
	CHECK_INT(a.use, 0x05);
	CHECK_INT(a.ecc, 0x03);
	CHECK_INT(a.devices, 1);
	CHECK_INT(ps_smbios16_decode(ram_array, sizeof(ram_array), &a), 0);
	CHECK_INT(a.use, PS_ARRAY_SYSTEM_MEMORY);
	CHECK_INT(a.devices, 4);
	memcpy(b, ram_array, sizeof(b));
	b[5] = 0x02; /* Use: Unknown */
	CHECK_INT(ps_smbios16_decode(b, sizeof(b), &a), 0);
	CHECK_INT(a.use, -1);
	CHECK_INT(ps_smbios16_decode(ram_array, 10, &a), -ENODATA);
	CHECK_INT(a.use, -1);
	b[0] = 17;
	CHECK_INT(ps_smbios16_decode(b, sizeof(b), &a), -EINVAL);
	b[0] = 16;
	b[1] = 0x0e; /* shorter than SMBIOS 2.1's array */
	CHECK_INT(ps_smbios16_decode(b, sizeof(b), &a), -EINVAL);
}

static struct ps_dimm device(int type_code, int64_t size)
{
	struct ps_dimm d = {.populated = size != 0, .size_bytes = size, .type_code = type_code};

	return d;
}

#define MIB (1LL << 20)

static void ram_or_rom(void)
{
	struct ps_dimm rom = device(0x09, 4 * MIB), dimm = device(0x1a, 16384 * MIB);

	/* HP "SYSTEM ROM": Flash, Chip, 4 MB, in a Flash Memory array */
	CHECK(!ps_dimm_is_ram(&rom, 0x05));
	/* Supermicro X8 "BIOS" / "ROM0": Flash, Other, 4 MB, its array unread (no sysfs) */
	CHECK(!ps_dimm_is_ram(&rom, -1));
	/* STSS Flagman: an 8 MB Flash device in the System Memory array */
	rom.size_bytes = 8 * MIB;
	CHECK(!ps_dimm_is_ram(&rom, PS_ARRAY_SYSTEM_MEMORY));
	/* HP t510 "Null" / "Null": EEPROM, 1 MB */
	rom = device(0x0a, 1 * MIB);
	CHECK(!ps_dimm_is_ram(&rom, 0x05));
	/* a ROM of unknown size is no DIMM either */
	rom = device(0x08, -1);
	CHECK(!ps_dimm_is_ram(&rom, -1));
	/* newplatforms NP-1004i: Channel-0-DIMM-0, 4 GB typed EPROM, System Memory array */
	rom = device(0x0c, 4096 * MIB);
	CHECK(ps_dimm_is_ram(&rom, PS_ARRAY_SYSTEM_MEMORY));
	/* a DDR4 DIMM, its array known or not; an empty slot is still a DIMM slot */
	CHECK(ps_dimm_is_ram(&dimm, PS_ARRAY_SYSTEM_MEMORY));
	CHECK(ps_dimm_is_ram(&dimm, -1));
	CHECK(ps_dimm_is_ram(&dimm, 0x01));
	dimm.size_bytes = 0;
	CHECK(ps_dimm_is_ram(&dimm, PS_ARRAY_SYSTEM_MEMORY));
	/* a device of a video or cache array is not the system's RAM */
	CHECK(!ps_dimm_is_ram(&dimm, 0x04));
	CHECK(!ps_dimm_is_ram(&dimm, 0x07));
	/* "Unknown" type, "Chip", 1 GB (a board's soldered memory): RAM */
	dimm = device(0x02, 1024 * MIB);
	CHECK(ps_dimm_is_ram(&dimm, PS_ARRAY_SYSTEM_MEMORY));
}

int main(void)
{
	arrays();
	ram_or_rom();
	return check_done("test_memory_array");
}
