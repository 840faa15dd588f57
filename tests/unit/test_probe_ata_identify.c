/* test_probe_ata_identify.c - drive identity decoders on IDENTIFY blocks and
 * VPD pages: built from datasheet values (tests/fixtures/ata/make-identify.py)
 * and recorded in a QEMU guest (its AHCI and virtio-scsi disks), against
 * what smartctl -i and lsblk said there. */
#include "check.h"
#include "decode/decode.h"
#include "fixture.h"

#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR FIXTURES "/ata/"

static void test_wd20ezrz(void)
{
	struct ps_ata_identify id;
	size_t len;
	uint8_t *b = load_fixture(DIR "wd20ezrz.identify", &len);
	char wwn[32];

	CHECK_INT(len, 512);
	CHECK_INT(ps_ata_identify_decode(b, len, &id), 0);
	/* the SCSI translation in sysfs says "WDC WD20EZRZ-00Z" and "0A80" */
	CHECK_STR(id.model, "WDC WD20EZRZ-00Z5HB0");
	CHECK_STR(id.firmware, "80.00A80");
	CHECK_STR(id.serial, "WD-WCC4M3KF7XYZ"); /* right-justified in its 20 characters */
	CHECK(id.wwn == 0x50014ee2b5d4a3c1ULL);
	ps_wwn_text(id.wwn, wwn, sizeof(wwn));
	CHECK_STR(wwn, "0x50014ee2b5d4a3c1"); /* as lsblk's WWN column */
	CHECK_INT(id.rotation_rpm, 5400);
	CHECK_INT(id.ncq, 1);
	CHECK_INT(id.queue_depth, 32);
	CHECK_INT(id.sata_gens, 0x7);
	CHECK_INT(id.sata_gen, 3);
	CHECK_INT(id.trim, 0);
	CHECK_INT(id.sectors, 3907029168LL);
	CHECK_INT(id.logical_sector, 512);
	CHECK_INT(id.physical_sector, 4096);
	CHECK_STR(id.form_factor, "3.5 inches");
	CHECK_INT(id.checksum_ok, 1);

	/* one flipped bit: the integrity word no longer sums to zero */
	b[100] ^= 0x01;
	CHECK_INT(ps_ata_identify_decode(b, len, &id), -EINVAL);
	b[100] ^= 0x01;
	/* a packet device (word 0 bit 15) is not a disk */
	b[1] |= 0x80;
	CHECK_INT(ps_ata_identify_decode(b, len, &id), -EINVAL);
	b[1] &= 0x7f;
	CHECK_INT(ps_ata_identify_decode(b, 511, &id), -ENODATA);
	CHECK_STR(id.model, "");
	CHECK_INT(id.rotation_rpm, PS_UNKNOWN);
	free(b);
}

static void test_samsung860(void)
{
	struct ps_ata_identify id;
	size_t len;
	uint8_t *b = load_fixture(DIR "samsung860.identify", &len);

	CHECK_INT(ps_ata_identify_decode(b, len, &id), 0);
	CHECK_STR(id.model, "Samsung SSD 860 EVO 500GB");
	CHECK_STR(id.firmware, "RVT04B6Q");
	CHECK_INT(id.rotation_rpm, 1); /* "Rotation Rate: Solid State Device" */
	CHECK_INT(id.trim, 1);
	CHECK_STR(id.form_factor, "2.5 inches");
	CHECK_INT(id.physical_sector, 512);
	CHECK_INT(id.sectors, 976773168LL);

	/* no integrity signature: trusted as read, the check unknown */
	b[510] = 0;
	b[511] = 0;
	CHECK_INT(ps_ata_identify_decode(b, len, &id), 0);
	CHECK_INT(id.checksum_ok, PS_TRI_UNKNOWN);
	/* rotation rate words that say nothing */
	b[434] = 0, b[435] = 0; /* word 217 = 0: not reported */
	CHECK_INT(ps_ata_identify_decode(b, len, &id), 0);
	CHECK_INT(id.rotation_rpm, PS_UNKNOWN);
	b[434] = 0x90, b[435] = 0x01; /* 0x190: reserved */
	CHECK_INT(ps_ata_identify_decode(b, len, &id), 0);
	CHECK_INT(id.rotation_rpm, PS_UNKNOWN);
	/* word 106: 2^3 logical sectors per physical one (a 512e drive) */
	b[212] = 0x03, b[213] = 0x60;
	CHECK_INT(ps_ata_identify_decode(b, len, &id), 0);
	CHECK_INT(id.logical_sector, 512);
	CHECK_INT(id.physical_sector, 4096);
	/* 64 KiB logical sectors (words 117-118: 32768 words), 2^15 per physical
	 * one: 2 GiB, which no drive has (and which overflowed an int: fuzz) */
	b[213] = 0x70, b[212] = 0x0f;
	b[234] = 0x00, b[235] = 0x80, b[236] = 0, b[237] = 0;
	CHECK_INT(ps_ata_identify_decode(b, len, &id), 0);
	CHECK_INT(id.logical_sector, 65536);
	CHECK_INT(id.physical_sector, PS_UNKNOWN);
	b[212] = 0x04; /* 2^4 of them: 1 MiB, the most believed */
	CHECK_INT(ps_ata_identify_decode(b, len, &id), 0);
	CHECK_INT(id.physical_sector, 1 << 20);
	/* a control byte in the model: garbage, not a name */
	b[54] = 0x07;
	CHECK_INT(ps_ata_identify_decode(b, len, &id), -EINVAL);
	free(b);
}

/* Recorded: vpd_pg89 of QEMU 7.2 ide-hd model="WDC WD20EZRZ-00Z5HB0",ver="80.00A80",
 * rotation_rate=5400,wwn=0x50014ee2b5d4a3c1 on ich9-ahci, Debian's 6.1 libata. */
static void test_recorded_pg89(void)
{
	struct ps_ata_identify id;
	size_t len;
	uint8_t *p = load_fixture(DIR "qemu-wd20ezrz.vpd_pg89", &len);

	CHECK_INT(len, 572);
	CHECK_INT(ps_vpd_pg89_identify(p, len, &id), 0);
	/* smartctl -i: Device Model, Serial Number, LU WWN Device Id, Firmware, Rotation Rate */
	CHECK_STR(id.model, "WDC WD20EZRZ-00Z5HB0");
	CHECK_STR(id.serial, "WD-WCC4M0XXXXXX");
	CHECK_STR(id.firmware, "80.00A80");
	CHECK(id.wwn == 0x50014ee2b5d4a3c1ULL);
	CHECK_INT(id.rotation_rpm, 5400);
	CHECK_INT(id.sectors, 64 << 11);
	CHECK_INT(id.sata_gens, 0); /* QEMU fills no SATA words: smartctl shows no SATA Version */
	CHECK_INT(id.checksum_ok, PS_TRI_UNKNOWN);
	CHECK_INT(ps_vpd_pg89_identify(p, 571, &id), -ENODATA);
	p[56] = 0xa1; /* IDENTIFY PACKET DEVICE: an optical drive */
	CHECK_INT(ps_vpd_pg89_identify(p, len, &id), -EINVAL);
	p[56] = 0xec;
	p[1] = 0x80;
	CHECK_INT(ps_vpd_pg89_identify(p, len, &id), -EINVAL);
	free(p);

	/* QEMU's default ide-hd: no rotation rate (lsblk still says ROTA 1), no WWN */
	p = load_fixture(DIR "qemu-harddisk.vpd_pg89", &len);
	CHECK_INT(ps_vpd_pg89_identify(p, len, &id), 0);
	CHECK_STR(id.model, "QEMU HARDDISK");
	CHECK_STR(id.serial, "PS-SATA-0002");
	CHECK_STR(id.firmware, "2.5+");
	CHECK_INT(id.rotation_rpm, PS_UNKNOWN);
	CHECK(id.wwn == 0);
	free(p);
}

static void test_vpd_pages(void)
{
	char wwn[64];
	size_t len;
	uint8_t *p;
	int rpm;

	/* libata's page 0x83 of the AHCI disk: T10 vendor id, then the NAA from IDENTIFY */
	p = load_fixture(DIR "qemu-wd20ezrz.vpd_pg83", &len);
	CHECK_INT(ps_vpd_pg83_wwn(p, len, wwn, sizeof(wwn)), 0);
	CHECK_STR(wwn, "0x50014ee2b5d4a3c1");
	free(p);
	/* QEMU scsi-hd wwn=0x5000c500a1b2c3d4: smartctl "Logical Unit id: 0x5000c500a1b2c3d4" */
	p = load_fixture(DIR "qemu-scsi-seagate.vpd_pg83", &len);
	CHECK_INT(ps_vpd_pg83_wwn(p, len, wwn, sizeof(wwn)), 0);
	CHECK_STR(wwn, "0x5000c500a1b2c3d4");
	CHECK_INT(ps_vpd_pg83_wwn(p, len - 1, wwn, sizeof(wwn)), -ENODATA);
	p[0x15] = 0x50; /* the designator's length now runs past the page */
	CHECK_INT(ps_vpd_pg83_wwn(p, len, wwn, sizeof(wwn)), -EINVAL);
	free(p);
	/* only a T10 vendor id (a model name, not a unit): no WWN */
	{
		static const uint8_t t10[] = {0x00, 0x83, 0x00, 0x0c, 0x02, 0x01, 0x00, 0x08,
					      'A',  'T',  'A',	' ',  'Q',  'E',  'M',	'U'};
		static const uint8_t eui[] = {0x00, 0x83, 0x00, 0x0c, 0x01, 0x02, 0x00, 0x08,
					      0x00, 0x25, 0x38, 0x5b, 0x71, 0xb4, 0xa2, 0xf3};

		CHECK_INT(ps_vpd_pg83_wwn(t10, sizeof(t10), wwn, sizeof(wwn)), -ENODATA);
		CHECK_STR(wwn, "");
		CHECK_INT(ps_vpd_pg83_wwn(eui, sizeof(eui), wwn, sizeof(wwn)), 0);
		CHECK_STR(wwn, "eui.0025385b71b4a2f3");
	}

	/* page B1: the rotation rate smartctl shows ("7200 rpm"), libata's copy of word 217 */
	p = load_fixture(DIR "qemu-scsi-seagate.vpd_pgb1", &len);
	CHECK_INT(ps_vpd_pgb1_rotation(p, len, &rpm), 0);
	CHECK_INT(rpm, 7200);
	CHECK_INT(ps_vpd_pgb1_rotation(p, 5, &rpm), -ENODATA);
	p[4] = 0, p[5] = 0;
	CHECK_INT(ps_vpd_pgb1_rotation(p, len, &rpm), -ENODATA);
	CHECK_INT(rpm, PS_UNKNOWN);
	p[5] = 1;
	CHECK_INT(ps_vpd_pgb1_rotation(p, len, &rpm), 0);
	CHECK_INT(rpm, 1);
	p[1] = 0xb0;
	CHECK_INT(ps_vpd_pgb1_rotation(p, len, &rpm), -EINVAL);
	free(p);
	p = load_fixture(DIR "qemu-wd20ezrz.vpd_pgb1", &len);
	CHECK_INT(ps_vpd_pgb1_rotation(p, len, &rpm), 0);
	CHECK_INT(rpm, 5400);
	free(p);

	CHECK_INT(ps_rotation_rate(0), PS_UNKNOWN);
	CHECK_INT(ps_rotation_rate(1), 1);
	CHECK_INT(ps_rotation_rate(0x400), PS_UNKNOWN);
	CHECK_INT(ps_rotation_rate(0x401), 0x401);
	CHECK_INT(ps_rotation_rate(15000), 15000);
	CHECK_INT(ps_rotation_rate(0xffff), PS_UNKNOWN);

	/* sysfs wwid: lsblk's form of a NAA, t10 ids are not WWNs */
	CHECK_INT(ps_scsi_wwid_wwn("naa.5000C500A1B2C3D4", wwn, sizeof(wwn)), 0);
	CHECK_STR(wwn, "0x5000c500a1b2c3d4");
	CHECK_INT(ps_scsi_wwid_wwn("naa.600508b1001c4d5e6f708192a3b4c5d6\n", wwn, sizeof(wwn)), 0);
	CHECK_STR(wwn, "0x600508b1001c4d5e6f708192a3b4c5d6");
	CHECK_INT(ps_scsi_wwid_wwn("eui.0025385b71b4a2f3", wwn, sizeof(wwn)), 0);
	CHECK_STR(wwn, "eui.0025385b71b4a2f3");
	CHECK_INT(ps_scsi_wwid_wwn("t10.ATA     QEMU HARDDISK  PS-SATA-0002", wwn, sizeof(wwn)),
		  -ENODATA);
	CHECK_INT(ps_scsi_wwid_wwn("naa.50014eXX", wwn, sizeof(wwn)), -EINVAL);
	ps_wwn_text(0, wwn, sizeof(wwn));
	CHECK_STR(wwn, "");
}

/* Every truncation and many random changes: an answer or an error, never a read overrun. */
static void test_damaged(void)
{
	static const char *const files[] = {"qemu-wd20ezrz.vpd_pg89", "qemu-wd20ezrz.vpd_pg83",
					    "qemu-scsi-seagate.vpd_pg83", "qemu-wd20ezrz.vpd_pgb1"};
	uint32_t seed = 99;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[256];
		size_t len;
		uint8_t *orig;

		snprintf(path, sizeof(path), DIR "%s", files[f]);
		orig = load_fixture(path, &len);
		for (size_t cut = 0; cut <= len; cut++) {
			uint8_t *b = malloc(cut ? cut : 1);
			struct ps_ata_identify id;
			char wwn[64];
			int rpm;

			memcpy(b, orig, cut);
			ps_vpd_pg89_identify(b, cut, &id);
			ps_vpd_pg83_wwn(b, cut, wwn, sizeof(wwn));
			ps_vpd_pgb1_rotation(b, cut, &rpm);
			ps_ata_identify_decode(b, cut, &id);
			free(b);
		}
		for (int k = 0; k < 2000; k++) {
			uint8_t *b = malloc(len);
			struct ps_ata_identify id;
			char wwn[64];

			memcpy(b, orig, len);
			seed = seed * 1103515245 + 12345;
			b[(seed >> 8) % len] = (uint8_t)(seed >> 24);
			if (ps_vpd_pg89_identify(b, len, &id) == 0)
				CHECK(strlen(id.model) <= 40 && strlen(id.serial) <= 20);
			ps_vpd_pg83_wwn(b, len, wwn, sizeof(wwn));
			free(b);
		}
		free(orig);
	}
}

int main(void)
{
	test_wd20ezrz();
	test_samsung860();
	test_recorded_pg89();
	test_vpd_pages();
	test_damaged();
	return check_done("test_probe_ata_identify");
}
