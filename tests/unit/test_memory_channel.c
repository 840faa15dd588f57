/*
 * test_memory_channel.c - which channel an SMBIOS slot is on, from locator
 * and bank locator texts of real machines (tests/realworld/dmi/corpus/,
 * hw-probe's linuxhw/DMI; the channel each board maker's naming means is
 * in tests/realworld/dmi/labels.tsv with the reason), one slot at a time
 * and as whole tables where the table decides.
 */
#include "check.h"
#include "decode/decode.h"

static const struct {
	const char *locator, *bank, *channel;
} one[] = {
    /* Intel reference code: the channel in the locator, BANK n a running number */
    {"ChannelA-DIMM0", "BANK 0", "A"},
    {"ChannelB-DIMM1", "BANK 3", "B"},
    {"ChannelA", "BANK 0", "A"},
    {"ChannelD-DIMM0", "BANK 3", "D"},
    {"ChannelA-DIMM0", "Not Specified", "A"},
    /* Intel 11th gen on: Controller0-ChannelA and Controller1-ChannelA are two channels */
    {"Controller0-ChannelA", "BANK 0", "MC0 A"},
    {"Controller1-ChannelA", "BANK 0", "MC1 A"},
    {"Controller0-ChannelB-DIMM1", "BANK 1", "MC0 B"},
    {"Controller1-ChannelA-DIMM0", "BANK 0", "MC1 A"},
    {"Controller0-ChannelA/B-DIMM0", "BANK 0/1", "MC0 A/B"},
    /* 12th gen on, DDR5: the controller is the DIMM channel (MSI adds its letter) */
    {"Controller0-DIMM1", "BANK 0", "MC0"},
    {"Controller1-DIMM0", "BANK 0", "MC1"},
    {"Controller0-DIMMA2", "BANK 0", "MC0 A"},
    {"Controller1-DIMMB2", "BANK 0", "MC1 B"},
    {"Bottom-Slot 2(right)", "Controller1ChannelADimm0", "MC1 A"},
    /* AMD AGESA: socket and channel in the bank, letters past H on EPYC */
    {"DIMM 0", "P0 CHANNEL A", "P0 A"},
    {"DIMM 1", "P0 CHANNEL B", "P0 B"},
    {"DIMM 0", "P0 CHANNEL K", "P0 K"},
    {"DIMM 0", "P1 CHANNEL L", "P1 L"},
    {"DIMMA2", "P0 CHANNEL A", "P0 A"},
    {"Bottom - Slot 1 (left)", "P0 CHANNEL A", "P0 A"},
    /* the bank names the channel: CHANNEL, Channel, CHAN, ChannelA0 */
    {"DIMM1", "ChannelB", "B"},
    {"DIMM 1", "CHANNEL A", "A"},
    {"CHANNEL A", "CHANNEL A-DIMM 0", "A"},
    {"DIMM1", "CHANNEL A DIMM0", "A"},
    {"DIMM 1", "Channel A Slot 1", "A"},
    {"J6H1", "CHAN A DIMM 0", "A"},
    {"J6J1", "CHAN B DIMM 0", "B"},
    {"Bottom-Slot 1(left)", "ChannelA0", "A"},
    {"J501", "Channel B0", "B"},
    {"SODIMM2", "Memory Channel B", "B"},
    {"CanalB-DIMM1", "BANCO 3", "B"},
    /* Supermicro / AMI: P<socket>_Node<controller>_Channel<n>_Dimm<slot> */
    {"P1-DIMMA1", "P0_Node0_Channel0_Dimm0", "P0 NODE0 0"},
    {"P1-DIMMD1", "P0_Node1_Channel0_Dimm0", "P0 NODE1 0"},
    {"P2-DIMMA1", "P1_Node0_Channel0_Dimm0", "P1 NODE0 0"},
    {"DIMME1", "P0_Node0_Channel4_Dimm0", "P0 NODE0 4"},
    /* Huawei: _Node<socket>_Channel<n>_Dimm<slot>, SOCKET n CHANNEL n DIMM n */
    {"DIMM000 J22", "_Node0_Channel0_Dimm0", "NODE0 0"},
    {"DIMM100 J34", "_Node1_Channel0_Dimm0", "NODE1 0"},
    {"DIMM130 J29", "SOCKET 1 CHANNEL 3 DIMM 0", "CPU1 3"},
    /* Intel server boards: NODE n CHANNEL n DIMM n (the letters skip I) */
    {"DIMM_A2", "NODE 0 CHANNEL 0 DIMM 2", "NODE0 0"},
    {"DIMM_J1", "NODE 2 CHANNEL 0 DIMM 0", "NODE2 0"},
    {"DIMM_P1", "NODE 3 CHANNEL 1 DIMM 0", "NODE3 1"}, /* P is a channel, not a socket */
    {"DIMM_T2", "NODE 3 CHANNEL 3 DIMM 1", "NODE3 3"},
    /* DIMM_<channel><slot> labels, and the bank's node or socket kept */
    {"DIMM_A1", "BANK 0", "A"},
    {"DIMM_B2", "BANK 3", "B"},
    {"DIMM A1", "BANK0", "A"},
    {"DIMM_A1", "A1_BANK0", "A"},
    {"DIMM_B1", "BANK_B1", "B"},
    {"DDR4-A1", "BANK 0", "A"},
    {"DDR5-B2", "BANK 0", "B"},
    {"DIMM_A1", "NODE 1", "NODE1 A"},
    {"DIMM_C1", "NODE 2", "NODE2 C"},
    {"CPU1_DIMM_A0", "NODE 1", "CPU1 NODE1 A"},
    {"CPU2_DIMM_A0", "NODE 2", "CPU2 NODE2 A"},
    {"P1_DIMMA1", "NODE 1", "P1 NODE1 A"},
    {"DIMM_P0_A0", "BANK 0", "P0 A"},
    {"ONBOARD DIMM_B3", "Channel B", "B"},
    /* Fujitsu CH<channel><slot>, Inspur C<channel>D<slot>, Chromebooks */
    {"DIMM CHA1", "BANK 1", "A"},
    {"DIMM CHB4", "BANK 2", "B"},
    {"DIMM A3", "CHA 3", "A"},
    {"DIMM-CHB0 CPU0", "BANK-B0", "CPU0 B"},
    {"CPU1_C3D0", "NODE 5", "CPU1 NODE5 3"},
    {"Channel-1-DIMM-0", "BANK 0", "1"},
    {"DDR4_CH1", "Bank B", "1"},
    {"P0_MC0_DIMM_CH_A0", "BANK 0", "P0 MC0 A"},
    /* the names say no channel */
    {"DIMM0", "BANK 0", ""},
    {"DIMM1", "BANK 2", ""},
    {"DIMM 0", "BANK 0", ""},
    {"A1_DIMM0", "A1_BANK0", ""}, /* AMI's template: A1 is no channel */
    {"A1_DIMM3", "A1_BANK3", ""},
    {"C0_DIMM0", "Bank 0", ""}, /* Opteron boards: C0 is CPU 0 */
    {"A0", "Bank0/1", ""},
    {"DIMM 1", "Bank 0/1", ""},
    {"DIMM A", "Not Specified", ""}, /* a slot letter alone */
    {"DIMM_B", "BANK 2", ""},
    {"A1", "Not Specified", ""}, /* Dell PowerEdge: A is CPU 1 */
    {"PROC 1 DIMM 12", "Not Specified", ""},
    {"PROC 1 DIMM 3A", "Not Specified", ""},
    {"DIMM1A", "Bank1", ""},
    {"CPU0-DIMM1", "CPU0", ""},
    {"DIMM1_CPU1", "Not Specified", ""},
    {"Node0_Dimm1", "Node0_Bank0", ""},
    {"XMM1", "Not Specified", ""},
    {"Bottom-Slot 1(left)", "BANK 0", ""},
    {"Motherboard", "BANK 2", ""},
    {"Slot-2", "CHBB", ""},
    {"SYSTEM ROM", "Not Specified", ""},
    {"BIOS", "ROM0", ""},
    {"", "", ""},
};

static void single_slots(void)
{
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		char out[PS_CHANNEL_LEN];

		ps_dimm_channel(one[i].locator, one[i].bank, out, sizeof(out));
		if (strcmp(out, one[i].channel) != 0)
			fprintf(stderr, "  %s / %s\n", one[i].locator, one[i].bank);
		CHECK_STR(out, one[i].channel);
	}
}

#define TABLE(names) table(names, sizeof(names) / sizeof(names[0]))

static void table(struct ps_slot_names *s, size_t n)
{
	ps_dimm_channels(s, n);
}

static void whole_tables(void)
{
	/* Dell PowerEdge R720: DIMM_A1..A12 are CPU 1's slots, B1..B12 CPU 2's */
	struct ps_slot_names dell[] = {
	    {"DIMM_A1", "Not Specified", ""}, {"DIMM_A2", "Not Specified", ""},
	    {"DIMM_A5", "Not Specified", ""}, {"DIMM_A12", "Not Specified", ""},
	    {"DIMM_B1", "Not Specified", ""},
	};
	/* Dell PowerEdge R510: A1..A4 per processor, past three slots per channel too */
	struct ps_slot_names r510[] = {
	    {"DIMM_A1", "Not Specified", ""},
	    {"DIMM_A2", "Not Specified", ""},
	    {"DIMM_A3", "Not Specified", ""},
	    {"DIMM_A4", "Not Specified", ""},
	};
	/* an X58 board: A1, A2, B1, B2, C1, C2 are three channels */
	struct ps_slot_names x58[] = {
	    {"DIMM_A1", "BANK0", ""}, {"DIMM_A2", "BANK1", ""}, {"DIMM_B1", "BANK2", ""},
	    {"DIMM_B2", "BANK3", ""}, {"DIMM_C1", "BANK4", ""}, {"DIMM_C2", "BANK5", ""},
	};
	/* two sockets named alike: two slots at one place, the names lack the socket */
	struct ps_slot_names twins[] = {
	    {"DIMM 0", "CHANNEL A", ""},
	    {"DIMM 1", "CHANNEL A", ""},
	    {"DIMM 0", "CHANNEL A", ""},
	    {"DIMM 0", "CHANNEL B", ""},
	};
	/* HP's single-channel Stoney Ridge: both slots on channel A, at two places */
	struct ps_slot_names stoney[] = {
	    {"Bottom-slot 1(left)", "CHANNEL A", ""},
	    {"Bottom-slot 2(right)", "CHANNEL A", ""},
	};
	/* Intel LPDDR4x: eight channels of two controllers */
	struct ps_slot_names lpddr[] = {
	    {"Controller0-ChannelA", "BANK 0", ""},
	    {"Controller0-ChannelB", "BANK 1", ""},
	    {"Controller1-ChannelA", "BANK 0", ""},
	    {"Controller1-ChannelB", "BANK 1", ""},
	};

	TABLE(dell);
	for (size_t i = 0; i < sizeof(dell) / sizeof(dell[0]); i++)
		CHECK_STR(dell[i].channel, "");
	TABLE(r510);
	CHECK_STR(r510[0].channel, "");
	TABLE(x58);
	CHECK_STR(x58[1].channel, "A");
	CHECK_STR(x58[4].channel, "C");
	TABLE(twins);
	for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); i++)
		CHECK_STR(twins[i].channel, "");
	TABLE(stoney);
	CHECK_STR(stoney[0].channel, "A");
	CHECK_STR(stoney[1].channel, "A");
	TABLE(lpddr);
	CHECK_STR(lpddr[0].channel, "MC0 A");
	CHECK_STR(lpddr[2].channel, "MC1 A");
	CHECK_STR(lpddr[3].channel, "MC1 B");
	table(NULL, 0);
}

int main(void)
{
	single_slots();
	whole_tables();
	return check_done("test_memory_channel");
}
