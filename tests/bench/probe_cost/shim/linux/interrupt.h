/* Host shim of <linux/interrupt.h>: the bench completes its requests as
 * null_blk does with irqmode=1, from a softirq. */
#ifndef PS_SHIM_LINUX_INTERRUPT_H
#define PS_SHIM_LINUX_INTERRUPT_H
#include <linux/types.h>
#define NR_SOFTIRQS 10
#define IRQF_SHARED 0x00000080
enum irqreturn { IRQ_NONE = 0, IRQ_HANDLED = 1 };
struct irqaction {
	const char *name;
	unsigned int flags;
};
#define in_hardirq()	     0
#define in_serving_softirq() 1
#endif
