/*
 * fuzz_machine_id.c - DMI product_uuid, product_serial and a MAC address, as
 * sysfs gives them: the machine-id rule that names every report folder.
 * Input: uuid, serial, mac separated by FUZZ_SEP; a missing part is NULL.
 */
// fuzz-sources: decode/machine_id_rule.c
#include "fuzz.h"

#include "decode/decode.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[3][256], id[64];
	const char *arg[3] = {NULL, NULL, NULL};
	const uint8_t *part;
	size_t pos = 0, len;
	int ret;

	for (int i = 0; i < 3 && fuzz_part(data, size, &pos, &part, &len); i++) {
		fuzz_attr(part, len, s[i], sizeof(s[i]));
		arg[i] = s[i];
	}
	ret = ps_machine_id_rule(arg[0], arg[1], arg[2], id, sizeof(id));
	FUZZ_CHECK(ret == 0 || ret == -ENODATA);
	/* The id is a folder name on a FAT stick. */
	FUZZ_CHECK(id[0] && id[0] != '.' && strnlen(id, sizeof(id)) < sizeof(id));
	for (const char *p = id; *p; p++)
		FUZZ_CHECK(strchr(
		    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p));
	FUZZ_CHECK(ret == 0 || strcmp(id, "unknown") == 0);
	return 0;
}
