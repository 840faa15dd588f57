/*
 * fuzz_sysfs_text.c - one sysfs attribute's text, as ps_read_str leaves it,
 * through every decoder of such texts: PCIe link speed and width, libata
 * sata_spd, and the DMI placeholders test.
 */
// fuzz-sources: decode/pcie.c decode/ata_link.c decode/machine_id_rule.c
#include "fuzz.h"

#include "decode/decode.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[256], link[64];
	int speed, width, ret;

	fuzz_attr(data, size, text, sizeof(text));
	speed = ps_pcie_parse_sysfs_speed(text);
	FUZZ_CHECK(speed >= 0 && speed <= PS_PCIE_SPEED_MAX);
	width = ps_pcie_parse_sysfs_width(text);
	FUZZ_CHECK(width >= -1 && width <= 32);
	memset(link, 0, sizeof(link));
	ret = ps_sata_link_text(text, link, sizeof(link));
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	FUZZ_CHECK(ret || strncmp(link, "SATA ", 5) == 0);
	FUZZ_CHECK(strnlen(link, sizeof(link)) < sizeof(link));
	(void)ps_dmi_meaningful(text);
	(void)ps_dmi_uuid_meaningful(text);
	return 0;
}
