/* Host shim of <linux/atomic.h>: lock-prefixed like the kernel's x86 atomics. */
#ifndef PS_SHIM_LINUX_ATOMIC_H
#define PS_SHIM_LINUX_ATOMIC_H
#include <asm/barrier.h>
#include <linux/types.h>
typedef struct {
	s64 counter;
} atomic64_t;
#define atomic64_inc(a)	   __atomic_fetch_add(&(a)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic64_read(a)   __atomic_load_n(&(a)->counter, __ATOMIC_RELAXED)
#define atomic64_set(a, v) __atomic_store_n(&(a)->counter, (v), __ATOMIC_RELAXED)
/* lock cmpxchg, as the kernel's cmpxchg() on x86 */
#define cmpxchg(p, o, n)   __sync_val_compare_and_swap((p), (o), (n))
#endif
