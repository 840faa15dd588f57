/*
 * fuzz_ata_identify.c - the drive identity decoders of decode/ata_identify.c:
 * a 512-byte ATA IDENTIFY block, SCSI VPD page 0x89 (the IDENTIFY data
 * libata puts in it, sysfs vpd_pg89), page 0xB1 (rotation rate), page 0x83
 * (WWN) and a sysfs wwid; what IDENTIFY gave, serialized as report.json's
 * drives[].ata.
 * Input: one byte choosing the decoder (its value % 5: identify, pg89,
 * pgb1, pg83, wwid), then the page or text.
 */
// fuzz-sources: decode/ata_identify.c hw/inventory_json.c decode/sysfs_path.c hw/ethtool.c
// fuzz-sources: hw/nics.c hw/edac.c decode/memory_channel.c hw/pci_names.c lib/store.c hw/hw_util.c
// fuzz-sources: decode/pcie.c hw/inventory.c hw/identity.c hw/pcie.c hw/drives.c decode/ata_link.c
// fuzz-sources: hw/machine.c decode/machine_id_rule.c hw/memory.c decode/smbios17.c
// fuzz-sources: hw/environment.c lib/json.c lib/util.c decode/memory_array.c lib/redact.c
// fuzz-sources: decode/ata_capacity.c hw/ata_native.c
#include "fuzz.h"

#include "decode/decode.h"
#include "hw/readers.h"

#include <errno.h>

/* What ata_string promises: printable ASCII, no padding at either end. */
static void check_ata_string(const char *s, size_t room)
{
	size_t n = strnlen(s, room);

	FUZZ_CHECK(n < room);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(s[i] >= 0x20 && s[i] <= 0x7e);
	FUZZ_CHECK(n == 0 || (s[0] != ' ' && s[n - 1] != ' '));
}

/* "0x" (NAA) or "eui." (EUI-64) and lowercase hex digits, as lsblk shows a WWN. */
static void check_wwn(const char *w, size_t room)
{
	size_t n = strnlen(w, room);

	FUZZ_CHECK(n < room);
	if (n == 0)
		return;
	FUZZ_CHECK(!strncmp(w, "0x", 2) || !strncmp(w, "eui.", 4));
	for (size_t i = w[0] == '0' ? 2 : 4; i < n; i++)
		FUZZ_CHECK(strchr("0123456789abcdef", w[i]) != NULL);
}

static void check_identify(const struct ps_ata_identify *a)
{
	static struct ps_drive d;
	struct ps_inventory inv = {.drives = &d, .n_drives = 1};
	char wwn[24];
	json_object *drives;

	check_ata_string(a->model, sizeof(a->model));
	check_ata_string(a->serial, sizeof(a->serial));
	check_ata_string(a->firmware, sizeof(a->firmware));
	FUZZ_CHECK(a->rotation_rpm == PS_UNKNOWN || a->rotation_rpm == 1 ||
		   (a->rotation_rpm >= 0x401 && a->rotation_rpm <= 0xfffe));
	FUZZ_CHECK(a->queue_depth == PS_UNKNOWN || (a->queue_depth >= 1 && a->queue_depth <= 32));
	FUZZ_CHECK(a->sata_gens <= 7 && a->sata_gen >= 0 && a->sata_gen <= 3);
	FUZZ_CHECK(a->sectors >= PS_UNKNOWN);
	FUZZ_CHECK(a->logical_sector == PS_UNKNOWN || a->logical_sector >= 256);
	FUZZ_CHECK(a->physical_sector == PS_UNKNOWN ||
		   (a->physical_sector >= a->logical_sector &&
		    a->physical_sector <= PS_ATA_MAX_PHYSICAL_SECTOR));
	ps_wwn_text(a->wwn, wwn, sizeof(wwn));
	FUZZ_CHECK(a->wwn ? strlen(wwn) == 18 : wwn[0] == '\0');
	check_wwn(wwn, sizeof(wwn));

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "sda");
	d.has_ata = true;
	d.ata = *a;
	drives = json_object_new_array();
	ps_drives_to_json(&inv, drives);
	fuzz_dump(drives);
	fuzz_check_strings(drives);
	json_object_put(drives);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_ata_identify a;
	char out[64], *text;
	int ret, rpm = 12345;

	if (!size)
		return 0;
	switch (data[0] % 5) {
	case 0:
		memset(&a, 0x5a, sizeof(a));
		ret = ps_ata_identify_decode(data + 1, size - 1, &a);
		FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENODATA);
		FUZZ_CHECK(ret || size - 1 >= PS_ATA_IDENTIFY_LEN);
		if (!ret)
			check_identify(&a);
		break;
	case 1:
		memset(&a, 0x5a, sizeof(a));
		ret = ps_vpd_pg89_identify(data + 1, size - 1, &a);
		FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENODATA);
		if (!ret)
			check_identify(&a);
		break;
	case 2:
		ret = ps_vpd_pgb1_rotation(data + 1, size - 1, &rpm);
		FUZZ_CHECK(ret <= 0);
		if (!ret)
			FUZZ_CHECK(rpm == PS_UNKNOWN || rpm == 1 ||
				   (rpm >= 0x401 && rpm <= 0xfffe));
		break;
	case 3:
		memset(out, 'x', sizeof(out));
		/* room as the reader gives it (PS_STR_LEN), and one too small */
		ret = ps_vpd_pg83_wwn(data + 1, size - 1, out, size % 2 ? sizeof(out) : 12);
		FUZZ_CHECK(ret == 0 || ret == -ENODATA || ret == -EINVAL || ret == -ENOSPC);
		if (!ret)
			check_wwn(out, size % 2 ? sizeof(out) : 12);
		break;
	default:
		text = fuzz_cstr(data + 1, size - 1);
		memset(out, 'x', sizeof(out));
		ret = ps_scsi_wwid_wwn(text, out, sizeof(out));
		FUZZ_CHECK(ret == 0 || ret == -ENODATA || ret == -EINVAL);
		/* an eui. id is kept as the file has it (any bytes); a naa. one is checked hex */
		if (!ret && !strncmp(out, "0x", 2))
			check_wwn(out, sizeof(out));
		else if (!ret)
			FUZZ_CHECK(memchr(out, '\0', sizeof(out)) && !strncmp(out, "eui.", 4));
		free(text);
	}
	return 0;
}
