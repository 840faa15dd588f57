/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the capture probes read from kernel structures whose shape changes
 * between kernel versions, so the probe files stay version-free.
 */
#ifndef PROBESTICK_WRAPPER_KC_TRACE_H
#define PROBESTICK_WRAPPER_KC_TRACE_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/preempt.h>

#include "../uapi/probestick.h"

#ifndef in_hardirq
#define in_hardirq() in_irq()
#endif

/*
 * The whole disk a request is for. Kernels before 5.17 kept it in
 * rq->rq_disk: a port to them changes only this line.
 */
static inline struct gendisk *ps_rq_disk(struct request *rq)
{
	return rq->q->disk;
}

static inline u32 ps_rq_dir(struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return PROBESTICK_KC_DIR_READ;
	case REQ_OP_WRITE:
		return PROBESTICK_KC_DIR_WRITE;
	default:
		return PROBESTICK_KC_DIR_OTHER;
	}
}

#endif /* PROBESTICK_WRAPPER_KC_TRACE_H */
