/*
 * Host shim of <linux/percpu.h> for tests/bench/probe_cost: one CPU, so a
 * per-CPU variable is a plain one. The operations cost what they cost on
 * x86: this_cpu_inc/add are one read-modify-write instruction, and
 * this_cpu_cmpxchg/xchg a cmpxchg without the lock prefix, as the kernel's
 * percpu ops emit them (no lock: only this CPU writes the variable).
 */
#ifndef PS_SHIM_LINUX_PERCPU_H
#define PS_SHIM_LINUX_PERCPU_H
#include <stdlib.h>
#include <linux/types.h>

#define DEFINE_PER_CPU(type, name) __typeof__(type) name
#define per_cpu_ptr(ptr, cpu)	   (ptr)
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < 1; (cpu)++)
#define alloc_percpu(type)	   ((type *)calloc(1, sizeof(type)))
#define __alloc_percpu(size, align) calloc(1, (size))
#define free_percpu(p)		   free((void *)(p))

#define this_cpu_read(x)	((x))
#define this_cpu_write(x, v)	((x) = (v))
#define this_cpu_inc(x)		((x)++)
#define this_cpu_add(x, v)	((x) += (v))
#define this_cpu_inc_return(x)	(++(x))
#define this_cpu_cmpxchg(x, o, n)                                                                  \
	({                                                                                         \
		__typeof__(x) ps_ret_;                                                             \
		__asm__ __volatile__("cmpxchg %2, %1"                                              \
				     : "=a"(ps_ret_), "+m"(x)                                      \
				     : "r"((__typeof__(x))(n)), "0"((__typeof__(x))(o))            \
				     : "memory");                                                  \
		ps_ret_;                                                                           \
	})
#define this_cpu_xchg(x, n)                                                                        \
	({                                                                                         \
		__typeof__(x) ps_old_ = (x), ps_cur_;                                              \
		while ((ps_cur_ = this_cpu_cmpxchg(x, ps_old_, n)) != ps_old_)                     \
			ps_old_ = ps_cur_;                                                         \
		ps_old_;                                                                           \
	})
#endif
