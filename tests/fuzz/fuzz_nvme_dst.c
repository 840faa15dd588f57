/*
 * fuzz_nvme_dst.c - what an NVMe drive answers the smart step's self-test
 * (full plan): Identify Controller's OACS through ps_nvme_dst_supported and
 * the Device Self-test log page (0x06) through ps_nvme_dst_log_decode, with
 * the text of its result code. The input is the page; the same bytes serve
 * as the Identify data.
 */
// fuzz-sources: hw/nvme_selftest.c
#include "fuzz.h"

#include "hw/smartctl.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_nvme_dst_log log;
	ps_tri dst = ps_nvme_dst_supported(data, size);
	int r = ps_nvme_dst_log_decode(data, size, &log);
	const char *text;

	FUZZ_CHECK(dst == PS_TRI_UNKNOWN || dst == 0 || dst == 1);
	FUZZ_CHECK(r == 0 || r == -ENODATA);
	if (r)
		return 0;
	FUZZ_CHECK(log.current_op >= 0 && log.current_op <= 0xf);
	FUZZ_CHECK(log.current_pct >= 0 && log.current_pct <= 100);
	FUZZ_CHECK(log.newest_hours == PS_UNKNOWN || log.newest_hours >= 0);
	FUZZ_CHECK(log.newest_lba == PS_UNKNOWN || log.newest_lba >= 0);
	if (!log.newest_valid) {
		FUZZ_CHECK(log.newest_hours == PS_UNKNOWN && log.newest_lba == PS_UNKNOWN);
		return 0;
	}
	FUZZ_CHECK(log.newest_result >= 0 && log.newest_result < 0xf);
	text = ps_nvme_dst_result_text(log.newest_result);
	FUZZ_CHECK(text && text[0]);
	return 0;
}
