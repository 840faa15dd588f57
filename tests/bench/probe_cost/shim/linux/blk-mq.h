/* Host shim of <linux/blk-mq.h>: see <linux/blkdev.h>. */
#include <linux/blkdev.h>
