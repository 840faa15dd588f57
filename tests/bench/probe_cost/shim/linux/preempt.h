/* Host shim of <linux/preempt.h>: see <linux/interrupt.h>. */
#include <linux/interrupt.h>
