/*
 * test_memory_channel.c - which channel an SMBIOS slot is on, from the
 * locator and bank locator texts of real boards (ASUS X58 of seed 000,
 * Intel and AMD desktops, Supermicro and Dell servers), and none where
 * they name no channel.
 */
#include "check.h"
#include "decode/decode.h"

static const char *ch(const char *loc, const char *bank)
{
	static char out[32];

	ps_dimm_channel(loc, bank, out, sizeof(out));
	return out;
}

int main(void)
{
	CHECK_STR(ch("DIMM_A1", "NODE 0"), "NODE0 A");
	CHECK_STR(ch("DIMM_B2", ""), "B");
	CHECK_STR(ch("DIMM A1", "BANK 0"), "A");
	CHECK_STR(ch("ChannelA-DIMM0", "BANK 0"), "A");
	CHECK_STR(ch("ChannelB-DIMM1", "BANK 3"), "B");
	CHECK_STR(ch("DIMM 0", "P0 CHANNEL A"), "P0 A");
	CHECK_STR(ch("DIMM 1", "P0 CHANNEL B"), "P0 B");
	CHECK_STR(ch("CPU1_DIMM_C2", ""), "CPU1 C");
	CHECK_STR(ch("P1-DIMMA1", "P0_Node0_Channel0_Dimm0"), "P0 0");
	CHECK_STR(ch("A1", "Not Specified"), "");
	CHECK_STR(ch("A1_DIMM0", "A1_BANK0"), "A");
	CHECK_STR(ch("Controller0-ChannelA", "BANK 0"), "A");
	CHECK_STR(ch("DIMM0", "CHANNEL 1"), "1");
	CHECK_STR(ch("DIMM 0", "BANK 0"), ""); /* QEMU's, and many laptops': no channel named */
	CHECK_STR(ch("", ""), "");
	CHECK_STR(ch("SODIMM1", "CH A"), "A");
	CHECK_STR(ch("XMM1", "Ch1"), "1");
	return check_done("test_memory_channel");
}
