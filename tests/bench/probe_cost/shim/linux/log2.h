/* Host shim of <linux/log2.h>. */
#ifndef PS_SHIM_LINUX_LOG2_H
#define PS_SHIM_LINUX_LOG2_H
#define ilog2(n)	  (63 - __builtin_clzll((unsigned long long)(n)))
#define is_power_of_2(n) ((n) != 0 && (((n) & ((n) - 1)) == 0))
#endif
