/*
 * Host shim of <linux/sched/clock.h>: local_clock() as x86 computes it with
 * a stable TSC (native_sched_clock: rdtsc, then cycles_2_ns under a
 * per-CPU sequence count: multiply, shift, add the offsets).
 */
#ifndef PS_SHIM_LINUX_SCHED_CLOCK_H
#define PS_SHIM_LINUX_SCHED_CLOCK_H
#include <x86intrin.h>
#include <linux/compiler.h>
#include <linux/types.h>

struct ps_shim_cyc2ns {
	unsigned int seq;
	u32 mul, shift;
	u64 offset;
};
extern struct ps_shim_cyc2ns ps_shim_cyc2ns;
extern u64 ps_shim_sched_clock_offset;

static inline u64 local_clock(void)
{
	unsigned int seq;
	u64 ns;

	do {
		seq = READ_ONCE(ps_shim_cyc2ns.seq);
		ns = (u64)(((unsigned __int128)__rdtsc() * ps_shim_cyc2ns.mul) >>
			   ps_shim_cyc2ns.shift) +
		     ps_shim_cyc2ns.offset;
	} while (READ_ONCE(ps_shim_cyc2ns.seq) != seq);
	return ns + ps_shim_sched_clock_offset;
}
#endif
