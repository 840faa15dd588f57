/* Host shim of <trace/events/irq.h>: the prototypes PS_TP checks callbacks against. */
#include <linux/interrupt.h>
static inline void check_trace_callback_type_irq_handler_entry(void (*cb)(void *, int,
									  struct irqaction *))
{
}
static inline void check_trace_callback_type_irq_handler_exit(void (*cb)(void *, int,
									 struct irqaction *, int))
{
}
static inline void check_trace_callback_type_softirq_entry(void (*cb)(void *, unsigned int))
{
}
static inline void check_trace_callback_type_softirq_exit(void (*cb)(void *, unsigned int))
{
}
