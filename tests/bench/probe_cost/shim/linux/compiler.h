/* Host shim of <linux/compiler.h> for tests/bench/probe_cost. */
#ifndef PS_SHIM_LINUX_COMPILER_H
#define PS_SHIM_LINUX_COMPILER_H
#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define likely(x)	 __builtin_expect(!!(x), 1)
#define unlikely(x)	 __builtin_expect(!!(x), 0)
#define __user
#define __percpu
#define barrier() __asm__ __volatile__("" ::: "memory")
#endif
