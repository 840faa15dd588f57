/* Host shim of <linux/hash.h>: the multiplicative hash of the kernel's
 * hash_64_generic(), golden-ratio constant and top bits. */
#ifndef PS_SHIM_LINUX_HASH_H
#define PS_SHIM_LINUX_HASH_H
#include <linux/types.h>
#define GOLDEN_RATIO_64 0x61C8864680B583EBull
static inline u32 hash_64(u64 val, unsigned int bits)
{
	return (u32)(val * GOLDEN_RATIO_64 >> (64 - bits));
}
#define hash_long(val, bits) hash_64((u64)(val), (bits))
#endif
