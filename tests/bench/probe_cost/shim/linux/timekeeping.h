/*
 * Host shim of <linux/timekeeping.h>: ktime_get_mono_fast_ns() as the
 * kernel computes it (a latched sequence count, the clocksource's read()
 * called through its pointer: rdtsc after lfence for the TSC, then
 * (delta * mult) >> shift on the base).
 */
#ifndef PS_SHIM_LINUX_TIMEKEEPING_H
#define PS_SHIM_LINUX_TIMEKEEPING_H
#include <linux/compiler.h>
#include <linux/types.h>

struct ps_shim_tkr {
	u64 (*read)(void);
	u64 cycle_last, mask, base_ns;
	u32 mult, shift;
};
struct ps_shim_tk_fast {
	unsigned int seq;
	struct ps_shim_tkr base[2];
};
extern struct ps_shim_tk_fast ps_shim_tk_fast_mono;

static inline u64 ktime_get_mono_fast_ns(void)
{
	struct ps_shim_tkr *tkr;
	unsigned int seq;
	u64 now;

	do {
		seq = READ_ONCE(ps_shim_tk_fast_mono.seq);
		tkr = &ps_shim_tk_fast_mono.base[seq & 1];
		now = tkr->base_ns +
		      ((((tkr->read() - tkr->cycle_last) & tkr->mask) * tkr->mult) >> tkr->shift);
	} while (READ_ONCE(ps_shim_tk_fast_mono.seq) != seq);
	return now;
}
#endif
