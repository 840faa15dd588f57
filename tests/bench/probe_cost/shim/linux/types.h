/* Host shim of <linux/types.h> for tests/bench/probe_cost: the UAPI types, and
 * the kernel's short ones on top. */
#ifndef PS_SHIM_LINUX_TYPES_H
#define PS_SHIM_LINUX_TYPES_H
#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned int gfp_t;
typedef u32 blk_status_t;
#define BIT(n) (1UL << (n))
#endif
