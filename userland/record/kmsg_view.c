/*
 * kmsg_view.c - how steps[].kmsg is shown: the kernel's errors and warnings
 * of the step per device, and how many records the report kept.
 */
#include "record/kmsg.h"

static const struct ps_col event_cols[] = {
    {.path = "/subject", .title = "device", .flags = PS_COL_KEY},
    {.path = "/device", .title = "id", .flags = PS_COL_KEY | PS_COL_DEVICE},
    {.path = "/rule", .title = "rule", .flags = PS_COL_KEY},
    {.path = "/count", .title = "count", .better = PS_BETTER_LOWER},
    {.path = "/lba_first", .title = "first LBA"},
    {.path = "/lba_last", .title = "last LBA"},
    {.path = "/message", .title = "message", .flags = PS_COL_WIDE},
};

static const struct ps_col unread_cols[] = {
    {.path = "/reason", .title = "not read"},
};

static const struct ps_col record_cols[] = {
    {.path = "/total", .title = "records in the step"},
    {.path = "/kept", .title = "records kept"},
    {.path = "/dropped", .title = "dropped (report limit)", .better = PS_BETTER_LOWER},
    {.path = "/lost", .title = "lost (kernel buffer overrun)", .better = PS_BETTER_LOWER},
    {.path = "/ratelimited", .title = "suppressed by the kernel", .better = PS_BETTER_LOWER},
};

static const struct ps_block kmsg_blocks[] = {
    {
	.kind = PS_BLOCK_TABLE,
	.id = "events",
	.title = "Kernel errors and warnings",
	.rows = "/events",
	.cols = PS_COLS(event_cols),
	.note = "from /dev/kmsg during the step, worst first; LBAs in the drive's logical sectors",
    },
    {
	.kind = PS_BLOCK_KV,
	.id = "records",
	.title = NULL,
	.rows = "",
	.when = "/available",
	.cols = PS_COLS(record_cols),
    },
    {
	.kind = PS_BLOCK_KV,
	.id = "unread",
	.title = NULL,
	.rows = "",
	.unless = "/available",
	.cols = PS_COLS(unread_cols),
    },
};

const struct ps_view ps_kmsg_view = {
    .name = "kmsg",
    .version = 1,
    .scope = PS_SCOPE_MEMBER,
    .blocks = PS_BLOCKS(kmsg_blocks),
};
