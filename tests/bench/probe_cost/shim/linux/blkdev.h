/* Host shim of <linux/blkdev.h>: what the block probe reads of a request. */
#ifndef PS_SHIM_LINUX_BLKDEV_H
#define PS_SHIM_LINUX_BLKDEV_H
#include <linux/types.h>
struct gendisk {
	char disk_name[32];
	u32 devt;
};
struct request_queue {
	struct gendisk *disk;
};
struct request {
	struct request_queue *q;
	unsigned int cmd_flags;
	unsigned int __data_len;
	char pdu[360]; /* a blk-mq request with its driver data: requests lie ~384 bytes apart */
};
#define REQ_OP_MASK  0xff
#define REQ_OP_READ  0
#define REQ_OP_WRITE 1
#define req_op(rq)   ((rq)->cmd_flags & REQ_OP_MASK)
#define disk_devt(d) ((d)->devt)
#define blk_rq_bytes(rq) ((rq)->__data_len)
#endif
