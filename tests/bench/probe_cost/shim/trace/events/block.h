/* Host shim of <trace/events/block.h>: the prototypes PS_TP checks callbacks against. */
#include <linux/blkdev.h>
static inline void check_trace_callback_type_block_rq_issue(void (*cb)(void *, struct request *))
{
}
static inline void check_trace_callback_type_block_rq_complete(void (*cb)(void *, struct request *,
									   blk_status_t, unsigned int))
{
}
static inline void check_trace_callback_type_block_rq_requeue(void (*cb)(void *, struct request *))
{
}
