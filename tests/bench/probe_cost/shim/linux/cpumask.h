/* Host shim of <linux/cpumask.h>: see <linux/percpu.h>. */
