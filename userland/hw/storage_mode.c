/*
 * storage_mode.c - storage a firmware setting hides from Linux: Intel Rapid
 * Storage Technology's RAID mode. Three forms:
 *  - a RAID (0104) or other mass storage (0180) controller of Intel's that
 *    no module of the kernel claims;
 *  - ahci taking the SATA controller in RAID mode and finding NVMe drives
 *    remapped behind it ("ahci 0000:00:17.0: Found 1 remapped NVMe
 *    devices.", drivers/ata/ahci.c), which it cannot drive;
 *  - "RST VMD Managed Controller" (8086:09ab), the stand-in Intel's chipset
 *    shows where a controller moved behind VMD (the vmd driver finds it).
 * And one that is no storage at all: Intel AMT's IDE redirection (IDE-R).
 * Pure: ids and log lines in, the reason and the setting to change out.
 */
#include "hw/drivers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RST_SETTING                                                                                \
	"in the firmware setup set the SATA or storage controller mode from RAID (or "             \
	"\"Intel RST\", \"RST Premium with Optane\") to AHCI; where the setup has a \"VMD "        \
	"controller\" option, turn it off. Windows installed in RAID mode must be switched to "    \
	"its AHCI driver before it boots again"

const char *ps_storage_firmware_mode(unsigned int vendor, unsigned int device, unsigned int class)
{
	unsigned int sub = class >> 8; /* base class and subclass of the 24-bit class */

	if (vendor != 0x8086)
		return NULL;
	if (device == 0x09ab)
		return "Intel RST's stand-in for a controller the firmware moved behind VMD "
		       "(Volume "
		       "Management Device): it needs no driver; the controller itself appears "
		       "behind the vmd driver, in PCI domain 10000";
	if (sub != 0x0104 && sub != 0x0180)
		return NULL;
	return "the firmware runs it in Intel RST RAID mode (Rapid Storage Technology with RAID "
	       "or Optane), for which Linux has no driver, and the drives behind it stay "
	       "hidden: " RST_SETTING;
}

int ps_ahci_remapped_nvme(const char *text, char *dev, size_t dev_len)
{
	static const char tail[] = " remapped NVMe device";
	const char *p = strstr(text, ": Found "), *t;
	char *end;
	long n;

	if (strncmp(text, "ahci ", 5) != 0 || !p || !(t = strstr(p, tail)))
		return 0;
	n = strtol(p + 8, &end, 10);
	if (end == p + 8 || end != t || n <= 0 || n > 64)
		return 0;
	snprintf(dev, dev_len, "%.*s", (int)(p - (text + 5)), text + 5);
	return (int)n;
}

const char *ps_rst_remapped_advice(void)
{
	return "the firmware runs the SATA controller in Intel RST RAID mode and remaps NVMe "
	       "drives behind it, where Linux cannot reach them (ahci, kernel log): " RST_SETTING;
}

/* Intel's IDE-R functions (pci.ids: "PT IDER Controller", "IDE-r Controller"). */
static const unsigned short amt_ider[] = {
    0x1c3c, 0x1d3c, 0x1e3c, 0x2976, 0x2996, 0x29a6, 0x29b6, 0x29c6, 0x29d6, 0x29e6,
    0x29f6, 0x2a06, 0x2a16, 0x2a46, 0x2a52, 0x2e06, 0x2e16, 0x2e26, 0x2e36, 0x2e46,
    0x2e96, 0x3b66, 0x8c3c, 0x8cbc, 0x8d3c, 0x9c3c, 0x9cbc, 0xa1fa,
};

const char *ps_storage_amt_ider(unsigned int vendor, unsigned int device, unsigned int class)
{
	if (vendor != 0x8086 || class >> 8 != 0x0101)
		return NULL;
	for (size_t i = 0; i < sizeof(amt_ider) / sizeof(amt_ider[0]); i++)
		if (amt_ider[i] == device)
			return "Intel AMT's IDE redirection (IDE-R), a virtual drive "
			       "the management engine offers for booting from a "
			       "remote image; it has no disks of its own, and "
			       "ata_generic takes it only when the firmware has "
			       "switched its I/O ports on: nothing to do";
	return NULL;
}
