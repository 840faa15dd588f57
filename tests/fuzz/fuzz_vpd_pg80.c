/* fuzz_vpd_pg80.c - a SCSI VPD page 0x80 (sd's vpd_pg80 attribute): ps_vpd_pg80_serial. */
// fuzz-sources: decode/ata_link.c
#include "fuzz.h"

#include "decode/decode.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char serial[128], tiny[4];
	int ret = ps_vpd_pg80_serial(data, size, serial, sizeof(serial));
	size_t n;

	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENODATA);
	if (ret == 0) {
		n = strnlen(serial, sizeof(serial));
		FUZZ_CHECK(n > 0 && n < sizeof(serial));
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(serial[i] >= 0x20 && serial[i] <= 0x7e);
		FUZZ_CHECK(serial[0] != ' ' && serial[n - 1] != ' ');
	}
	/* a small room cuts the serial, never the bounds */
	ret = ps_vpd_pg80_serial(data, size, tiny, sizeof(tiny));
	FUZZ_CHECK(strnlen(tiny, sizeof(tiny)) < sizeof(tiny));
	return 0;
}
