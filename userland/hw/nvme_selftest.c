/*
 * nvme_selftest.c - an NVMe drive's short self-test through the admin command
 * ioctl: smartctl 7.3 (Debian 12) reads NVMe health but starts no NVMe
 * self-test (7.4 does). Identify Controller says whether the drive has one
 * (OACS bit 4); Device Self-test starts or aborts it; log page 6 tells its
 * progress and result. The decoders are pure (unit tests feed them pages).
 */
#include "hw/smartctl.h"

#include <errno.h>
#include <linux/nvme_ioctl.h>
#include <string.h>
#include <sys/ioctl.h>

#define NVME_ADMIN_GET_LOG_PAGE 0x02
#define NVME_ADMIN_IDENTIFY	0x06
#define NVME_ADMIN_DST		0x14
#define NVME_LOG_DST		0x06
#define NVME_NSID_ALL		0xffffffffU
#define DST_ENTRY_LEN		28
#define DST_ENTRIES_AT		4

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

ps_tri ps_nvme_dst_supported(const uint8_t *id, size_t len)
{
	if (len < 258)
		return PS_TRI_UNKNOWN;
	return (ps_tri)((id[256] >> 4) & 1);
}

int ps_nvme_dst_log_decode(const uint8_t *p, size_t len, struct ps_nvme_dst_log *out)
{
	const uint8_t *e = p + DST_ENTRIES_AT;

	memset(out, 0, sizeof(*out));
	out->newest_hours = out->newest_lba = PS_UNKNOWN;
	if (len < DST_ENTRIES_AT + DST_ENTRY_LEN)
		return -ENODATA;
	out->current_op = p[0] & 0xf;
	out->current_pct = p[1] & 0x7f;
	if (out->current_pct > 100)
		out->current_pct = 100;
	/* result 0xF: the entry is not used */
	if ((e[0] & 0xf) == 0xf)
		return 0;
	out->newest_valid = true;
	out->newest_code = e[0] >> 4;
	out->newest_result = e[0] & 0xf;
	out->newest_hours = (int64_t)(le64(e + 4) & 0x7fffffffffffffffULL);
	if (e[2] & 0x2)
		out->newest_lba = (int64_t)(le64(e + 16) & 0x7fffffffffffffffULL);
	return 0;
}

const char *ps_nvme_dst_result_text(int result)
{
	static const char *const text[] = {
	    "completed without error",
	    "aborted by a Device Self-test command",
	    "aborted by a controller reset",
	    "aborted: a namespace was removed",
	    "aborted by a Format NVM command",
	    "failed: a fatal error or an unknown test error",
	    "failed: a segment failed, which one is unknown",
	    "failed: one or more segments failed",
	    "aborted for an unknown reason",
	    "aborted by a sanitize operation",
	};

	return result >= 0 && result < (int)(sizeof(text) / sizeof(text[0])) ? text[result]
									     : "reserved result";
}

static int admin(int fd, struct nvme_admin_cmd *c)
{
	int r = ioctl(fd, NVME_IOCTL_ADMIN_CMD, c);

	if (r < 0)
		return -errno;
	/* a positive return is the NVMe status: the drive refused the command */
	return r > 0 ? -EOPNOTSUPP : 0;
}

int ps_nvme_identify_ctrl(int fd, uint8_t *buf, size_t len)
{
	struct nvme_admin_cmd c = {.opcode = NVME_ADMIN_IDENTIFY,
				   .addr = (uintptr_t)buf,
				   .data_len = (uint32_t)len,
				   .cdw10 = 1,
				   .timeout_ms = 10000};

	if (len < PS_NVME_ID_CTRL_LEN)
		return -EINVAL;
	return admin(fd, &c);
}

int ps_nvme_dst_start(int fd, int code)
{
	struct nvme_admin_cmd c = {.opcode = NVME_ADMIN_DST,
				   .nsid = NVME_NSID_ALL,
				   .cdw10 = (uint32_t)code,
				   .timeout_ms = 10000};

	return admin(fd, &c);
}

int ps_nvme_dst_log(int fd, uint8_t *buf, size_t len)
{
	uint32_t numd = (uint32_t)(len / 4) - 1;
	struct nvme_admin_cmd c = {.opcode = NVME_ADMIN_GET_LOG_PAGE,
				   .nsid = NVME_NSID_ALL,
				   .addr = (uintptr_t)buf,
				   .data_len = (uint32_t)len,
				   .cdw10 = NVME_LOG_DST | (numd & 0xffff) << 16,
				   .cdw11 = numd >> 16,
				   .timeout_ms = 10000};

	if (len < PS_NVME_DST_LOG_LEN)
		return -EINVAL;
	return admin(fd, &c);
}
