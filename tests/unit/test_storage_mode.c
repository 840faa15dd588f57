/*
 * test_storage_mode.c - storage a firmware setting hides (Intel RST RAID
 * mode): which functions get the firmware-mode reason, and the kernel's
 * line for NVMe drives ahci finds remapped behind a RAID-mode controller.
 */
#include "check.h"
#include "hw/drivers.h"

#include <string.h>

static void test_firmware_mode(void)
{
	static const struct {
		unsigned int vendor, device, class;
		const char *has; /* a phrase of the reason, NULL for none */
	} t[] = {
	    /*
	     * Intel RAID and other mass storage no module of 6.1 claims (200 Series
	     * PCH in RAID mode, "Integrated RAID"): set AHCI
	     */
	    {0x8086, 0xa286, 0x010400, "to AHCI"},
	    {0x8086, 0x9621, 0x010400, "Intel RST RAID mode"},
	    {0x8086, 0x0600, 0x018000, "to AHCI"},
	    /* RST's stand-in for a controller behind VMD (Latitude 5420 of the corpus) */
	    {0x8086, 0x09ab, 0x088000, "behind the vmd driver"},
	    /* Intel's AHCI and NVMe classes, and other vendors' RAID: not this */
	    {0x8086, 0xa0d3, 0x010601, NULL},
	    {0x8086, 0xf1a8, 0x010802, NULL},
	    {0x1000, 0x0097, 0x010700, NULL},
	    {0x9005, 0x028b, 0x010400, NULL},
	    {0x1022, 0x43bd, 0x010400, NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *why = ps_storage_firmware_mode(t[i].vendor, t[i].device, t[i].class);

		if (t[i].has)
			CHECK(why && strstr(why, t[i].has));
		else
			CHECK(why == NULL);
	}
}

static void test_remapped(void)
{
	char dev[40];

	CHECK_INT(ps_ahci_remapped_nvme("ahci 0000:00:17.0: Found 1 remapped NVMe devices.", dev,
					sizeof(dev)),
		  1);
	CHECK_STR(dev, "0000:00:17.0");
	CHECK_INT(ps_ahci_remapped_nvme("ahci 0000:00:17.0: Found 2 remapped NVMe devices.", dev,
					sizeof(dev)),
		  2);
	CHECK_INT(ps_ahci_remapped_nvme("ahci 0000:00:17.0: Switch your BIOS from RAID to AHCI "
					"mode to use them.",
					dev, sizeof(dev)),
		  0);
	CHECK_INT(ps_ahci_remapped_nvme("ahci 0000:00:17.0: Found 0 remapped NVMe devices.", dev,
					sizeof(dev)),
		  0);
	CHECK_INT(ps_ahci_remapped_nvme("nvme 0000:00:17.0: Found 1 remapped NVMe devices.", dev,
					sizeof(dev)),
		  0);
	CHECK_INT(ps_ahci_remapped_nvme("ahci 0000:00:17.0: Found x remapped NVMe devices.", dev,
					sizeof(dev)),
		  0);
	CHECK(strstr(ps_rst_remapped_advice(), "to AHCI") != NULL);
}

static void test_amt_ider(void)
{
	/* the EliteBook 2530p's (Mobile 4 Series), the 8 Series' */
	CHECK(ps_storage_amt_ider(0x8086, 0x2a46, 0x010185) != NULL);
	CHECK(strstr(ps_storage_amt_ider(0x8086, 0x8c3c, 0x010185), "IDE redirection") != NULL);
	/* Intel's real IDE controllers (ICH9 in IDE mode, PIIX4) and others' IDE-class ids */
	CHECK(ps_storage_amt_ider(0x8086, 0x2928, 0x01018f) == NULL);
	CHECK(ps_storage_amt_ider(0x8086, 0x7111, 0x01018a) == NULL);
	CHECK(ps_storage_amt_ider(0x1106, 0x2a46, 0x01018a) == NULL);
	/* the id with another class */
	CHECK(ps_storage_amt_ider(0x8086, 0x2a46, 0x070002) == NULL);
}

int main(void)
{
	test_firmware_mode();
	test_amt_ider();
	test_remapped();
	return check_done("test_storage_mode");
}
