/*
 * smartctl.h - running smartctl with a deadline (smartctl.c), and NVMe
 * self-tests through the admin command ioctl, which smartctl 7.3 does not
 * start (nvme_selftest.c). What smartctl prints is decoded by decode/smart.h.
 */
#ifndef PS_HW_SMARTCTL_H
#define PS_HW_SMARTCTL_H

#include "decode/smart.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- running smartctl (smartctl.c) ---- */

struct ps_smartctl_out {
	char *text; /* what smartctl printed, NUL-terminated (malloc'd; the caller frees) */
	size_t len;
	int exit_status; /* the process's exit code, or -1 */
	bool timed_out;	 /* killed at the deadline */
	bool truncated;	 /* the output went past the cap and was cut */
};

/*
 * Run "smartctl ARGS..." (argv[0] is ignored: the program is found in PATH as
 * "smartctl"), stdin from /dev/null, stderr dropped, stdout captured up to
 * 16 MiB, killed after timeout_s. 0 with *out (exit status and output even
 * when smartctl reports a problem), -ENOENT when smartctl is not installed,
 * another -errno when it could not be started.
 */
int ps_smartctl_run(const char *const *argv, double timeout_s, struct ps_smartctl_out *out);
void ps_smartctl_out_free(struct ps_smartctl_out *o);

/* How smartctl is run: ps_smartctl_run, or a test's recorded answers. */
typedef int ps_smartctl_fn(void *arg, const char *const *argv, double timeout_s,
			   struct ps_smartctl_out *out);

/* smartctl's -d types behind a USB bridge, tried in turn (NULL: its own choice); n = 5. */
#define PS_SMARTCTL_USB_TYPES 5
extern const char *const ps_smartctl_usb_types[PS_SMARTCTL_USB_TYPES];

/* ---- NVMe self-test through the admin command ioctl (nvme_selftest.c) ---- */

#define PS_NVME_ID_CTRL_LEN 4096
#define PS_NVME_DST_LOG_LEN 564

/* Identify Controller: OACS bit 4 (Device Self-test); ps_tri. */
ps_tri ps_nvme_dst_supported(const uint8_t *id_ctrl, size_t len);

struct ps_nvme_dst_log {
	int current_op;	      /* 0 none, 1 short, 2 extended, 0xE vendor */
	int current_pct;      /* completion of the running test, 0..100 */
	bool newest_valid;    /* the newest result entry is in use */
	int newest_code;      /* 1 short, 2 extended */
	int newest_result;    /* 0 no error, 1..9 (aborted, fatal, segment failed...) */
	int64_t newest_hours; /* power-on hours when it ended, PS_UNKNOWN */
	int64_t newest_lba;   /* failing LBA when valid, PS_UNKNOWN */
};

/* Device Self-test log page (0x06). 0, or -ENODATA for a short page. Pure. */
int ps_nvme_dst_log_decode(const uint8_t *page, size_t len, struct ps_nvme_dst_log *out);
/* Text of a result code: "completed without error", "failed: a segment failed"... */
const char *ps_nvme_dst_result_text(int result);

/* The admin commands, on the controller or namespace node fd. 0 or -errno. */
int ps_nvme_identify_ctrl(int fd, uint8_t *buf, size_t len);
int ps_nvme_dst_start(int fd, int code); /* 1 short, 0xF abort */
int ps_nvme_dst_log(int fd, uint8_t *buf, size_t len);

#endif
