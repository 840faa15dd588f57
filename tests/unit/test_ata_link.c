/* test_ata_link.c - libata sata_spd texts and SCSI VPD page 0x80 serials. */
#include "check.h"
#include "decode/decode.h"

#include <errno.h>
#include <stdint.h>

static void test_sata_text(void)
{
	static const struct {
		const char *spd, *text;
	} t[] = {
	    {"1.5 Gbps", "SATA 1.5 Gb/s"},
	    {"3.0 Gbps", "SATA 3.0 Gb/s"},
	    {"6.0 Gbps", "SATA 6.0 Gb/s"},
	    {"<unknown>", NULL},
	    {"", NULL},
	    {"6 Gbps", NULL},
	    {"6.0 GT/s", NULL},
	    {"6.0 Gbps extra", NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char out[32] = "untouched";
		int r = ps_sata_link_text(t[i].spd, out, sizeof(out));

		if (t[i].text) {
			CHECK_INT(r, 0);
			CHECK_STR(out, t[i].text);
		} else {
			CHECK_INT(r, -EINVAL);
		}
	}
	CHECK_INT(ps_sata_link_text(NULL, (char[8]){0}, 8), -EINVAL);
}

static void test_vpd80(void)
{
	/* libata SAT: the 20-byte ATA serial, right-aligned with spaces */
	static const uint8_t sat[] = {0x00, 0x80, 0x00, 0x14, ' ', ' ', ' ', ' ',
				      ' ',  'W',  'D',	'-',  'W', 'C', 'C', '6',
				      'Y',  '0',  'R',	'L',  '4', 'T', '0', 'K'};
	/* USB bridge: NUL padded */
	static const uint8_t usb[] = {0x00, 0x80, 0x00, 0x08, '4',  'C',
				      '5',  '3',  '0',	'0',  0x00, 0x00};
	static const uint8_t wrong_page[] = {0x00, 0x83, 0x00, 0x04, 'A', 'B', 'C', 'D'};
	static const uint8_t truncated[] = {0x00, 0x80, 0x00, 0x14, 'W', 'D'};
	static const uint8_t blank[] = {0x00, 0x80, 0x00, 0x04, ' ', ' ', ' ', ' '};
	static const uint8_t binary[] = {0x00, 0x80, 0x00, 0x03, 'A', 0x01, 'B'};
	static const uint8_t spaced[] = {0x00, 0x80, 0x00, 0x05, 'A', 'B', ' ', 'C', 'D'};
	char out[64];

	CHECK_INT(ps_vpd_pg80_serial(sat, sizeof(sat), out, sizeof(out)), 0);
	CHECK_STR(out, "WD-WCC6Y0RL4T0K");
	CHECK_INT(ps_vpd_pg80_serial(usb, sizeof(usb), out, sizeof(out)), 0);
	CHECK_STR(out, "4C5300");
	CHECK_INT(ps_vpd_pg80_serial(wrong_page, sizeof(wrong_page), out, sizeof(out)), -EINVAL);
	CHECK_INT(ps_vpd_pg80_serial(truncated, sizeof(truncated), out, sizeof(out)), -ENODATA);
	CHECK_STR(out, "");
	CHECK_INT(ps_vpd_pg80_serial(blank, sizeof(blank), out, sizeof(out)), -ENODATA);
	CHECK_INT(ps_vpd_pg80_serial(binary, sizeof(binary), out, sizeof(out)), -EINVAL);
	CHECK_INT(ps_vpd_pg80_serial(sat, 3, out, sizeof(out)), -EINVAL);
	/* a small buffer truncates, never overflows */
	CHECK_INT(ps_vpd_pg80_serial(sat, sizeof(sat), out, 4), 0);
	CHECK_STR(out, "WD-");
	/* a cut on an inner space leaves the serial trimmed */
	CHECK_INT(ps_vpd_pg80_serial(spaced, sizeof(spaced), out, 4), 0);
	CHECK_STR(out, "AB");
}

int main(void)
{
	test_sata_text();
	test_vpd80();
	return check_done("test_ata_link");
}
