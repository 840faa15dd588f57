/* Host shim of <linux/tracepoint.h>: tracepoints the bench calls itself
 * (probe_cost.c defines them and these functions). */
#ifndef PS_SHIM_LINUX_TRACEPOINT_H
#define PS_SHIM_LINUX_TRACEPOINT_H
struct tracepoint {
	const char *name;
	void *func; /* the one probe attached */
};
void for_each_kernel_tracepoint(void (*fct)(struct tracepoint *tp, void *priv), void *priv);
int tracepoint_probe_register(struct tracepoint *tp, void *probe, void *data);
int tracepoint_probe_unregister(struct tracepoint *tp, void *probe, void *data);
static inline void tracepoint_synchronize_unregister(void)
{
}
#endif
