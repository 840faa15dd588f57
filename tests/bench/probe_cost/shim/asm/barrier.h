/* Host shim of <asm/barrier.h>: on x86 acquire and release are plain moves
 * with a compiler barrier, as the kernel's are. */
#ifndef PS_SHIM_ASM_BARRIER_H
#define PS_SHIM_ASM_BARRIER_H
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#endif
