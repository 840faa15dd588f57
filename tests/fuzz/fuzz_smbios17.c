/* fuzz_smbios17.c - a raw SMBIOS type 17 structure (/sys/firmware/dmi/entries/17-N/raw):
 * ps_smbios17_decode. */
// fuzz-sources: decode/smbios17.c
// fuzz-sources: hw/hw_util.c lib/util.c lib/store.c lib/json.c
#include "fuzz.h"

#include "decode/decode.h"

#include <errno.h>

static void check_str(const char *s, size_t room)
{
	size_t n = strnlen(s, room);

	FUZZ_CHECK(n < room);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(s[i] >= 0x20 && s[i] < 0x7f);
	/* trimmed: no white space at either end */
	FUZZ_CHECK(!n || (s[0] != ' ' && s[n - 1] != ' '));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_dimm d;
	int ret = ps_smbios17_decode(data, size, &d);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENODATA);
	if (ret)
		return 0;
	check_str(d.locator, sizeof(d.locator));
	check_str(d.bank, sizeof(d.bank));
	check_str(d.manufacturer, sizeof(d.manufacturer));
	check_str(d.part_number, sizeof(d.part_number));
	check_str(d.serial, sizeof(d.serial));
	FUZZ_CHECK(d.size_bytes >= -1);
	FUZZ_CHECK(d.populated || d.size_bytes == 0);
	FUZZ_CHECK(d.speed_mts >= -1 && d.configured_speed_mts >= -1);
	FUZZ_CHECK(d.rank == -1 || (d.rank >= 1 && d.rank <= 15));
	return 0;
}
