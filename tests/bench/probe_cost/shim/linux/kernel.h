/* Host shim of <linux/kernel.h>: the helpers kc_core.c and kc_registry.c use. */
#ifndef PS_SHIM_LINUX_KERNEL_H
#define PS_SHIM_LINUX_KERNEL_H
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <linux/types.h>
#define ARRAY_SIZE(a)	    (sizeof(a) / sizeof((a)[0]))
#define sizeof_field(t, m)  sizeof(((t *)0)->m)
#define DIV_ROUND_UP(n, d)  (((n) + (d) - 1) / (d))
#define max(a, b)	    ((a) > (b) ? (a) : (b))
#define min(a, b)	    ((a) < (b) ? (a) : (b))
#define clamp(v, lo, hi)    min(max((v), (lo)), (hi))
#define pr_err(...)	    fprintf(stderr, __VA_ARGS__)
#define pr_warn(...)	    fprintf(stderr, __VA_ARGS__)
#define pr_info(...)	    fprintf(stderr, __VA_ARGS__)
#endif
