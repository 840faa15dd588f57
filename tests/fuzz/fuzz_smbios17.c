/* fuzz_smbios17.c - a raw SMBIOS type 17 structure (/sys/firmware/dmi/entries/17-N/raw):
 * ps_smbios17_decode, the channel its names give, and the same bytes as a type 16 array. */
// fuzz-sources: decode/smbios17.c hw/hw_util.c lib/util.c lib/store.c lib/json.c
// fuzz-sources: decode/memory_channel.c decode/memory_array.c
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
	struct ps_memory_array a;
	struct ps_dimm d;
	char channel[PS_CHANNEL_LEN];
	int ret = ps_smbios16_decode(data, size, &a);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENODATA);
	FUZZ_CHECK(a.use == -1 || (a.use >= 1 && a.use <= 255));
	ret = ps_smbios17_decode(data, size, &d);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENODATA);
	if (ret)
		return 0;
	ps_dimm_channel(d.locator, d.bank, channel, sizeof(channel));
	check_str(channel, sizeof(channel));
	(void)ps_dimm_is_ram(&d, a.use);
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
