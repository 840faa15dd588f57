/*
 * fuzz_ata_capacity.c - what a drive (or a bridge pretending to be one)
 * answers when probestick asks what it hides (issue 29): the sense data of
 * ATA PASS-THROUGH with CK_COND, DEVICE CONFIGURATION IDENTIFY's 512 bytes
 * and IDENTIFY DEVICE, judged together into drives[].capacity.
 * Input: one byte choosing the part (its value % 3: sense, DCO page,
 * IDENTIFY + native max + DCO page), then the bytes.
 */
// fuzz-sources: decode/ata_capacity.c decode/ata_identify.c lib/json.c lib/util.c
// fuzz-sources: hw/ata_native.c lib/store.c
#include "fuzz.h"

#include "decode/ata_capacity.h"
#include "hw/ata_native.h"

#include <errno.h>

static void check_str(const char *s, size_t room)
{
	size_t n = strnlen(s, room);

	FUZZ_CHECK(n < room);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x7e);
}

/* What the judgement promises: counts that add up, states that match them. */
static void check_capacity(const struct ps_ata_capacity *c)
{
	json_object *o;

	check_str(c->dco_features, sizeof(c->dco_features));
	check_str(c->reason, sizeof(c->reason));
	if (!c->examined)
		return;
	FUZZ_CHECK(c->current_sectors > 0);
	FUZZ_CHECK(c->hidden_sectors == PS_UNKNOWN || c->hidden_sectors >= 0);
	FUZZ_CHECK((c->hpa == PS_HPA_SET) == (c->hpa_hidden > 0));
	if (c->native_sectors >= 0) {
		FUZZ_CHECK(c->native_sectors >= c->current_sectors);
		FUZZ_CHECK(c->hpa_hidden == c->native_sectors - c->current_sectors);
		FUZZ_CHECK(c->native_command != NULL);
	}
	if (c->dco == PS_DCO_NONE || c->dco == PS_DCO_RESTRICTS)
		FUZZ_CHECK(c->dco_sectors >= c->current_sectors);
	if (c->dco == PS_DCO_NONE)
		FUZZ_CHECK(c->dco_features[0] == '\0' &&
			   c->hidden_sectors <= (c->hpa_hidden > 0 ? c->hpa_hidden : 0));
	if (c->hidden_sectors > 0)
		FUZZ_CHECK(c->hpa == PS_HPA_SET || c->dco == PS_DCO_RESTRICTS);
	o = ps_ata_capacity_json(c);
	FUZZ_CHECK(o != NULL);
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_ata_regs r;
	struct ps_ata_dco dco;
	struct ps_ata_capacity c;
	uint64_t lba;
	char names[64];
	int ret;

	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		ret = ps_ata_sense_regs(data + 1, size - 1, &r);
		FUZZ_CHECK(ret == 0 || ret == -EPROTO || ret == -ENODATA || ret == -EINVAL);
		if (ret == 0) {
			FUZZ_CHECK(r.lba < 1ULL << 48);
			FUZZ_CHECK(r.extend || (r.lba < 1ULL << 24 && r.count < 256));
			for (int k = 0; k < PS_ATA_RO_CMDS; k++) {
				ret = ps_ata_native_max((enum ps_ata_ro_cmd)k, &r, &lba);
				FUZZ_CHECK(ret == 0 || ret == -EIO || ret == -EINVAL ||
					   ret == -EPROTO);
				FUZZ_CHECK(ret != 0 || lba < 1ULL << 48);
			}
		}
		ret = ps_sense_key(data + 1, size - 1);
		FUZZ_CHECK(ret >= -1 && ret <= 15);
		break;
	case 1:
		ret = ps_ata_dco_decode(data + 1, size - 1, &dco);
		FUZZ_CHECK(ret == 0 || ret == -ENODATA || ret == -EINVAL);
		if (ret == 0) {
			FUZZ_CHECK(dco.max_lba > 0 && dco.max_lba < 1ULL << 48);
			FUZZ_CHECK(dco.checksum_ok != 0);
			/* the page against itself as IDENTIFY: any bytes, bounded names */
			ret = ps_ata_dco_hidden_features(&dco, data + 1, size - 1, names,
							 sizeof(names));
			FUZZ_CHECK(ret >= 0 && ret <= 32);
			check_str(names, sizeof(names));
		}
		break;
	default: {
		/* IDENTIFY (512), then a native max answer (8 bytes, a command, a result),
		 * then a DCO page (512) when present */
		struct ps_ata_answers a = {.identify = data + 1, .identify_len = size - 1};
		uint64_t v = 0;

		if (size >= 1 + 512 + 10) {
			const uint8_t *p = data + 1 + 512;

			a.identify_len = 512;
			for (int i = 0; i < 8; i++)
				v = v << 8 | p[i];
			a.native_lba = v;
			a.native_cmd = (enum ps_ata_ro_cmd)(p[8] % (PS_ATA_RO_CMDS + 1));
			a.native_ret = p[9] & 1 ? 0 : -(int)(p[9] >> 1) - 1;
			a.dco_ret = size >= 1 + 512 + 10 + 512 ? 0 : -EIO;
			a.dco_page = a.dco_ret == 0 ? p + 10 : NULL;
			a.model = p[9] & 2 ? "ST340823A" : NULL;
		}
		ps_ata_capacity_judge(&a, &c);
		check_capacity(&c);
		break;
	}
	}
	return 0;
}
