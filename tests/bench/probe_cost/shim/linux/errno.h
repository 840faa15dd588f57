/* Host shim of <linux/errno.h>: the UAPI codes, and the kernel-only ones used here. */
#ifndef PS_SHIM_LINUX_ERRNO_H
#define PS_SHIM_LINUX_ERRNO_H
#include_next <linux/errno.h>
#endif
