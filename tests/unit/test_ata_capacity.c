/*
 * test_ata_capacity.c - what an HPA or a DCO hides (issue 29): the read-only
 * commands' CDBs and the guard that refuses every other one (SET MAX, DCO
 * SET/RESTORE/FREEZE LOCK, SET/FREEZE ACCESSIBLE MAX), the ATA Status Return
 * descriptor, IDENTIFY's feature words, DEVICE CONFIGURATION IDENTIFY, the
 * judgement, and the reader on the answers a fixture tree recorded
 * (tests/fixtures/ata/make-capacity.py says where every byte comes from).
 */
#include "check.h"
#include "fixture.h"
#include "decode/ata_capacity.h"
#include "hw/ata_native.h"

#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OV	      FIXTURES "/ata/hidden-overlay"
#define CAP	      FIXTURES "/ata/capacity/"
#define PG89_IDENTIFY 60

static const char *const ata1 =
    OV "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/vpd_pg89";
static const char *const ata2 =
    OV "/sys/devices/pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0/vpd_pg89";

static void test_cdbs(void)
{
	static const uint8_t want[PS_ATA_RO_CMDS][PS_ATA_CDB_LEN] = {
	    [PS_ATA_READ_NATIVE_MAX] = {0x85, 0x06, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0xf8},
	    [PS_ATA_READ_NATIVE_MAX_EXT] = {0x85, 0x07, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40,
					    0x27},
	    [PS_ATA_GET_NATIVE_MAX_EXT] = {0x85, 0x07, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40,
					   0x78},
	    [PS_ATA_DCO_IDENTIFY] = {0x85, 0x08, 0x0e, 0, 0xc2, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0xb1},
	};
	/* what probestick must never send: each would change the drive */
	static const uint8_t never[][PS_ATA_CDB_LEN] = {
	    {0x85, 0x07, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x37}, /* SET MAX ADDRESS EXT */
	    {0x85, 0x06, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0xf9}, /* SET MAX ADDRESS */
	    {0x85, 0x06, 0x20, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0xb1}, /* DCO RESTORE */
	    {0x85, 0x06, 0x20, 0, 0xc1, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0xb1}, /* DCO FREEZE LOCK */
	    {0x85, 0x0a, 0x06, 0, 0xc3, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0xb1}, /* DCO SET */
	    {0x85, 0x07, 0x20, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0x40,
	     0x78}, /* SET ACCESSIBLE MAX */
	    {0x85, 0x07, 0x20, 0, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x78}, /* FREEZE ACC. MAX */
	    {0x85, 0x0a, 0x06, 0, 0xc2, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0xb1}, /* DCO IDENT., out */
	    {0x85, 0x07, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x27, 1}, /* a changed byte */
	};
	uint8_t cdb[PS_ATA_CDB_LEN];

	for (int c = 0; c < PS_ATA_RO_CMDS; c++) {
		ps_ata_ro_cdb((enum ps_ata_ro_cmd)c, cdb);
		CHECK(memcmp(cdb, want[c], sizeof(cdb)) == 0);
		CHECK(ps_ata_cdb_read_only(cdb, sizeof(cdb)));
		CHECK(!ps_ata_cdb_read_only(cdb, 12));
		CHECK(ps_ata_ro_cmd_name((enum ps_ata_ro_cmd)c) != NULL);
	}
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		CHECK(!ps_ata_cdb_read_only(never[i], sizeof(never[i])));
	CHECK(!ps_ata_cdb_read_only(NULL, 16));
	CHECK_STR(ps_ata_ro_cmd_file(PS_ATA_READ_NATIVE_MAX_EXT), "read_native_max_ext");
	CHECK(ps_ata_ro_cmd_name(PS_ATA_RO_CMDS) == NULL);
}

static void test_sense(void)
{
	struct ps_ata_regs r;
	uint64_t lba;
	size_t n;
	uint8_t *s = load_fixture(OV "/dev/sda.ata/read_native_max_ext.sense", &n), bad[22];

	CHECK_INT(ps_ata_sense_regs(s, n, &r), 0);
	CHECK(r.extend);
	CHECK_INT(r.status, 0x50);
	CHECK_INT(r.lba, 78165359);
	CHECK_INT(ps_sense_key(s, n), 0x1); /* RECOVERED ERROR: the answer is in the registers */
	CHECK_INT(ps_ata_native_max(PS_ATA_READ_NATIVE_MAX_EXT, &r, &lba), 0);
	CHECK_INT(lba, 78165359);
	CHECK_INT(ps_ata_native_max(PS_ATA_DCO_IDENTIFY, &r, &lba), -EINVAL);
	/* an EXT command answered without the upper half of its address */
	r.extend = false;
	CHECK_INT(ps_ata_native_max(PS_ATA_READ_NATIVE_MAX_EXT, &r, &lba), -EPROTO);
	/* the drive aborted it: status ERR */
	r.extend = true;
	r.status = 0x51;
	CHECK_INT(ps_ata_native_max(PS_ATA_GET_NATIVE_MAX_EXT, &r, &lba), -EIO);
	/* cut inside the descriptor; no descriptor 09h; a length that runs past the end */
	CHECK_INT(ps_ata_sense_regs(s, 20, &r), -EINVAL);
	memcpy(bad, s, sizeof(bad));
	bad[8] = 0x0a;
	CHECK_INT(ps_ata_sense_regs(bad, sizeof(bad), &r), -ENODATA);
	bad[8] = 0x09;
	bad[9] = 0xff;
	CHECK_INT(ps_ata_sense_regs(bad, sizeof(bad), &r), -EINVAL);
	CHECK_INT(ps_ata_sense_regs(s, 4, &r), -ENODATA);
	free(s);

	/* 28-bit: LBA 27:24 in the device register */
	s = load_fixture(CAP "st340823a.read_native_max.sense", &n);
	CHECK_INT(ps_ata_sense_regs(s, n, &r), 0);
	CHECK(!r.extend);
	CHECK_INT(ps_ata_native_max(PS_ATA_READ_NATIVE_MAX, &r, &lba), 0);
	CHECK_INT(lba, 78165360);
	free(s);

	/* an abort in fixed format (libata without D_SENSE): no registers, key ABORTED COMMAND */
	s = load_fixture(CAP "wd20ezrz-amac.dco_identify.sense", &n);
	CHECK_INT(ps_ata_sense_regs(s, n, &r), -EPROTO);
	CHECK_INT(ps_sense_key(s, n), 0xb);
	free(s);
	CHECK_INT(ps_sense_key(NULL, 0), -1);
}

static void test_identify_words(void)
{
	struct ps_ata_cap_id id;
	size_t n;
	uint8_t *p = load_fixture(ata1, &n), *b;

	CHECK_INT(ps_ata_cap_id_decode(p + PG89_IDENTIFY, n - PG89_IDENTIFY, &id), 0);
	CHECK_INT(id.sectors, 78125000);
	CHECK(id.lba48 && id.hpa && id.dco && !id.amac);
	CHECK_INT(ps_ata_native_max_cmd(&id), PS_ATA_READ_NATIVE_MAX_EXT);
	CHECK_INT(id.logical_sector, 512);
	free(p);

	b = load_fixture(CAP "wd20ezrz-amac.identify", &n);
	CHECK_INT(ps_ata_cap_id_decode(b, n, &id), 0);
	CHECK(id.amac && id.dco);
	CHECK_INT(ps_ata_native_max_cmd(&id), PS_ATA_GET_NATIVE_MAX_EXT);
	CHECK_INT(id.sectors, 3907029168LL);
	free(b);

	b = load_fixture(CAP "st340823a.identify", &n);
	CHECK_INT(ps_ata_cap_id_decode(b, n, &id), 0);
	CHECK(!id.lba48 && id.hpa && !id.dco);
	CHECK_INT(ps_ata_native_max_cmd(&id), PS_ATA_READ_NATIVE_MAX);
	/* word 83 without its signature: nothing it covers is believed */
	b[2 * 83 + 1] = 0;
	b[510] = 0; /* and no integrity word, so the edit is not a checksum failure */
	CHECK_INT(ps_ata_cap_id_decode(b, n, &id), 0);
	CHECK(!id.hpa);
	CHECK_INT(ps_ata_native_max_cmd(&id), PS_ATA_RO_CMDS);
	CHECK_INT(ps_ata_cap_id_decode(b, 100, &id), -ENODATA);
	free(b);
}

static void test_dco(void)
{
	struct ps_ata_dco dco;
	char names[160];
	size_t n, pn;
	uint8_t *d = load_fixture(OV "/dev/sdb.ata/dco_identify.data", &n),
		*p = load_fixture(ata2, &pn);

	CHECK_INT(ps_ata_dco_decode(d, n, &dco), 0);
	CHECK_INT(dco.revision, 2);
	CHECK_INT(dco.max_lba, 976773167);
	CHECK_INT(dco.checksum_ok, 1);
	CHECK_INT(dco.features1, 0x098f);
	CHECK_INT(ps_ata_dco_hidden_features(&dco, p + PG89_IDENTIFY, PS_ATA_IDENTIFY_LEN, names,
					     sizeof(names)),
		  2);
	CHECK_STR(names, "SMART self-test, Security");
	/* a small buffer is cut, never overrun */
	CHECK_INT(
	    ps_ata_dco_hidden_features(&dco, p + PG89_IDENTIFY, PS_ATA_IDENTIFY_LEN, names, 6), 2);
	CHECK_STR(names, "SMART");
	d[20] ^= 1; /* a changed byte: the checksum fails */
	CHECK_INT(ps_ata_dco_decode(d, n, &dco), -EINVAL);
	CHECK_INT(ps_ata_dco_decode(d, 511, &dco), -ENODATA);
	memset(d, 0, n); /* no revision, no signature */
	CHECK_INT(ps_ata_dco_decode(d, n, &dco), -EINVAL);
	free(d);
	free(p);
}

static void judge(const uint8_t *identify, const char *model, int nret, enum ps_ata_ro_cmd cmd,
		  uint64_t lba, int dret, const uint8_t *dpage, struct ps_ata_capacity *c)
{
	struct ps_ata_answers a = {.identify = identify,
				   .identify_len = PS_ATA_IDENTIFY_LEN,
				   .model = model,
				   .native_ret = nret,
				   .native_cmd = cmd,
				   .native_lba = lba,
				   .dco_ret = dret,
				   .dco_page = dpage};

	ps_ata_capacity_judge(&a, c);
}

static void test_judge(void)
{
	struct ps_ata_capacity c;
	size_t n;
	uint8_t *p = load_fixture(ata1, &n), *q = load_fixture(ata2, &n),
		*amac = load_fixture(CAP "wd20ezrz-amac.identify", &n);
	uint8_t *old = load_fixture(CAP "st340823a.identify", &n);
	uint8_t *d1 = load_fixture(OV "/dev/sda.ata/dco_identify.data", &n);
	uint8_t *d2 = load_fixture(OV "/dev/sdb.ata/dco_identify.data", &n);

	/* sda: an HPA of 40,360 sectors, a DCO that hides nothing */
	judge(p + PG89_IDENTIFY, "ST340014AS", 0, PS_ATA_READ_NATIVE_MAX_EXT, 78165359, 0, d1, &c);
	CHECK(c.examined);
	CHECK_INT(c.current_sectors, 78125000);
	CHECK_INT(c.native_sectors, 78165360);
	CHECK_STR(c.native_command, "READ NATIVE MAX ADDRESS EXT");
	CHECK_STR(ps_hpa_state_name(c.hpa), "set");
	CHECK_INT(c.hpa_hidden, 40360);
	CHECK_STR(ps_dco_state_name(c.dco), "none");
	CHECK_INT(c.dco_hidden, 0);
	CHECK_INT(c.hidden_sectors, 40360);
	CHECK_STR(c.reason, "");

	/* sdb: a DCO from 500 to 320 GB that also hides two features; no HPA on top */
	judge(q + PG89_IDENTIFY, "WDC WD5000AAKX-001CA0", 0, PS_ATA_READ_NATIVE_MAX_EXT, 625142447,
	      0, d2, &c);
	CHECK_STR(ps_hpa_state_name(c.hpa), "none");
	CHECK_INT(c.hpa_hidden, 0);
	CHECK_STR(ps_dco_state_name(c.dco), "restricts");
	CHECK_INT(c.dco_sectors, 976773168);
	CHECK_INT(c.dco_hidden, 976773168 - 625142448);
	CHECK_INT(c.hidden_sectors, 976773168 - 625142448);
	CHECK_STR(c.dco_features, "SMART self-test, Security");

	/* the same drive, its native max unreadable: the DCO still tells what is hidden */
	judge(q + PG89_IDENTIFY, NULL, -EIO, PS_ATA_READ_NATIVE_MAX_EXT, 0, 0, d2, &c);
	CHECK(c.hpa == PS_HPA_UNKNOWN);
	CHECK(strstr(c.reason, "aborted READ NATIVE MAX ADDRESS EXT") != NULL);
	CHECK_INT(c.native_sectors, PS_UNKNOWN);
	CHECK_INT(c.dco_hidden, PS_UNKNOWN);
	CHECK_INT(c.hidden_sectors, 976773168 - 625142448);

	/* ACS-3's Accessible Max Address, and a DCO a BIOS froze: what it hides is unknown */
	judge(amac, NULL, 0, PS_ATA_GET_NATIVE_MAX_EXT, 3907029167ULL, -EIO, NULL, &c);
	CHECK_STR(c.native_command, "GET NATIVE MAX ADDRESS EXT");
	CHECK_STR(ps_hpa_state_name(c.hpa), "none");
	CHECK_STR(ps_dco_state_name(c.dco), "frozen");
	CHECK_INT(c.hidden_sectors, PS_UNKNOWN);

	/* ST340823A answers with its count: one above its last address, not an HPA */
	judge(old, "ST340823A", 0, PS_ATA_READ_NATIVE_MAX, 78165360, -ENOTSUP, NULL, &c);
	CHECK_STR(ps_hpa_state_name(c.hpa), "none");
	CHECK_STR(ps_dco_state_name(c.dco), "unsupported");
	CHECK_INT(c.hidden_sectors, 0);
	judge(old, "ST380011A", 0, PS_ATA_READ_NATIVE_MAX, 78165360, -ENOTSUP, NULL, &c);
	CHECK_INT(c.hpa_hidden, 1); /* any other drive that says so has one sector more */

	/* a native max below the accessible size says nothing believable */
	judge(p + PG89_IDENTIFY, NULL, 0, PS_ATA_READ_NATIVE_MAX_EXT, 1000, -ENOTSUP, NULL, &c);
	CHECK(c.hpa == PS_HPA_UNKNOWN);
	CHECK_INT(c.native_sectors, PS_UNKNOWN);
	CHECK(c.reason[0] != '\0');

	/* no usable IDENTIFY: not examined, nothing claimed */
	judge(NULL, NULL, 0, PS_ATA_READ_NATIVE_MAX_EXT, 0, 0, NULL, &c);
	CHECK(!c.examined);
	CHECK(ps_ata_capacity_json(&c) == NULL);
	free(p);
	free(q);
	free(amac);
	free(old);
	free(d1);
	free(d2);
}

static char root[] = "/var/tmp/test_ata_capacity.XXXXXX";

static void copy(const char *from, const char *rel)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s')\" && cp '%s' '%s/%s'", root, rel,
		 from, root, rel);
	CHECK(system(cmd) == 0);
}

/* The reader on the answers a fixture tree recorded, and without them. */
static void test_reader(void)
{
	struct ps_ata_capacity c;
	json_object *o;

	CHECK(mkdtemp(root) != NULL);
	copy(ata1, "sys/class/block/sda/device/vpd_pg89");
	copy(OV "/dev/sda.ata/read_native_max_ext.sense", "dev/sda.ata/read_native_max_ext.sense");
	copy(OV "/dev/sda.ata/dco_identify.data", "dev/sda.ata/dco_identify.data");
	copy(ata2, "sys/class/block/sdb/device/vpd_pg89");

	ps_ata_capacity_read(root, "sda", &c);
	CHECK(c.examined);
	CHECK_INT(c.hidden_sectors, 40360);
	o = ps_ata_capacity_json(&c);
	CHECK(o != NULL);
	CHECK_STR(json_object_get_string(json_object_object_get(o, "hpa")), "set");
	CHECK_INT(json_object_get_int64(json_object_object_get(o, "hidden_bytes")), 40360LL * 512);
	CHECK(json_object_object_get(o, "dco_hidden_features") == NULL);
	json_object_put(o);

	/* sdb recorded nothing: not examined, so not claimed */
	ps_ata_capacity_read(root, "sdb", &c);
	CHECK(!c.examined);
	/* no IDENTIFY at all */
	ps_ata_capacity_read(root, "sdz", &c);
	CHECK(!c.examined);
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CHECK(system(cmd) == 0);
	}
}

int main(void)
{
	test_cdbs();
	test_sense();
	test_identify_words();
	test_dco();
	test_judge();
	test_reader();
	return check_done("test_ata_capacity");
}
