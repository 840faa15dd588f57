/*
 * probes_view.c - how a step's "probes" object (record/kcapture.c) is shown:
 * the capture window, its IRQ lines, softirq vectors, disks and NICs with
 * their percentiles, and the raw histograms as charts for the HTML report.
 */
#include "record/kcapture.h"
#include "report/view.h"

#define NS(p, t)                                                                                   \
	{                                                                                          \
		.path = (p), .title = (t), .unit = "ns", .fmt = PS_FMT_NS,                         \
		.better = PS_BETTER_LOWER                                                          \
	}
#define COUNT(p, t)                                                                                \
	{                                                                                          \
		.path = (p), .title = (t), .fmt = PS_FMT_AUTO                                      \
	}

static const struct ps_col window_cols[] = {
    {.path = "/available", .title = "captured", .fmt = PS_FMT_BOOL},
    {.path = "/reason", .title = "why not", .flags = PS_COL_WIDE},
    {.path = "/window_ns", .title = "window", .fmt = PS_FMT_NS},
    COUNT("/nr_cpus", "CPUs"),
    {.path = "/hardirq/reason", .title = "hardirq", .flags = PS_COL_WIDE | PS_COL_OPTIONAL},
    {.path = "/softirq/reason", .title = "softirq", .flags = PS_COL_WIDE | PS_COL_OPTIONAL},
    {.path = "/block/reason", .title = "block", .flags = PS_COL_WIDE | PS_COL_OPTIONAL},
    {.path = "/nic/reason", .title = "nic", .flags = PS_COL_WIDE | PS_COL_OPTIONAL},
};

/* Events a full table could not record: non-zero means the figures undercount. */
static const struct ps_col drop_cols[] = {
    {.path = "/keys_full", .title = "keys full", .better = PS_BETTER_LOWER},
    {.path = "/hists_full", .title = "histograms full", .better = PS_BETTER_LOWER},
    {.path = "/rq_table_full", .title = "requests lost", .better = PS_BETTER_LOWER},
    {.path = "/rq_unknown", .title = "issued before", .flags = PS_COL_OPTIONAL},
    {.path = "/rq_requeued", .title = "requeued", .flags = PS_COL_OPTIONAL},
};

static const struct ps_col irq_cols[] = {
    {.path = "/irq", .title = "IRQ", .flags = PS_COL_KEY},
    {.path = "/name", .title = "handler", .flags = PS_COL_KEY},
    COUNT("/count", "count"),
    {.path = "/cpu_share", .title = "CPUs"},
    {.path = "/unhandled", .title = "unhandled", .flags = PS_COL_OPTIONAL},
    NS("/p50", "p50"),
    NS("/p99", "p99"),
    NS("/max", "max"),
};

static const struct ps_col softirq_cols[] = {
    {.path = "/name", .title = "softirq", .flags = PS_COL_KEY},
    COUNT("/count", "count"),
    {.path = "/cpu_share", .title = "CPUs"},
    NS("/p50", "p50"),
    NS("/p99", "p99"),
    NS("/max", "max"),
};

static const struct ps_col disk_cols[] = {
    {.path = "/disk", .title = "disk", .flags = PS_COL_KEY},
    {.path = "/dir", .title = "dir", .flags = PS_COL_KEY},
    COUNT("/latency/count", "requests"),
    NS("/latency/p50", "p50"),
    NS("/latency/p99", "p99"),
    {.path = "/latency/p99_9",
     .title = "p99.9",
     .fmt = PS_FMT_NS,
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_OPTIONAL},
    NS("/latency/max", "max"),
    NS("/irq_to_complete/p50", "irq>done"),
    NS("/irq_to_complete/p99", "p99"),
};

static const struct ps_col nic_cols[] = {
    {.path = "/name", .title = "NIC", .flags = PS_COL_KEY},
    {.path = "/bus", .title = "bus", .flags = PS_COL_OPTIONAL},
    COUNT("/rx_packets", "rx pkts"),
    COUNT("/tx_packets", "tx pkts"),
    NS("/irq_to_poll/p50", "irq>poll"),
    NS("/irq_to_poll/p99", "p99"),
    {.path = "/poll_work/p50", .title = "work p50", .unit = "pkts"},
    {.path = "/poll_work/budget", .title = "budget", .flags = PS_COL_OPTIONAL},
};

/* Series: a line per row, its points the [lower bound, count] pairs of "buckets". */
#define HIST_COLS(label_path, label)                                                               \
	{                                                                                          \
		{.path = (label_path), .title = (label)},                                          \
		    {.path = "/0", .title = "ns", .unit = "ns", .fmt = PS_FMT_NS},                 \
		{                                                                                  \
			.path = "/1", .title = "count"                                             \
		}                                                                                  \
	}

static const struct ps_col irq_hist_cols[] = HIST_COLS("/name", "handler");
static const struct ps_col softirq_hist_cols[] = HIST_COLS("/name", "softirq");
static const struct ps_col disk_hist_cols[] = HIST_COLS("/disk", "disk");
static const struct ps_col nic_hist_cols[] = HIST_COLS("/name", "NIC");

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV,
     .id = "window",
     .title = "Interrupt-path probes",
     .rows = "",
     .cols = PS_COLS(window_cols),
     .note = "probestick.ko's histograms of this step's capture window"},
    {.kind = PS_BLOCK_KV,
     .id = "drops",
     .title = "Events not recorded",
     .rows = "/drops",
     .cols = PS_COLS(drop_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "irq",
     .title = "IRQ lines",
     .rows = "/hardirq/lines",
     .cols = PS_COLS(irq_cols),
     .note = "handler time of the calls that handled an interrupt; CPUs: their share per "
	     "CPU; unhandled: IRQ_NONE calls on a shared line, apart"},
    {.kind = PS_BLOCK_TABLE,
     .id = "softirq",
     .title = "Softirq vectors",
     .rows = "/softirq/vectors",
     .cols = PS_COLS(softirq_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "disks",
     .title = "Disk requests",
     .rows = "/block/disks",
     .when = "/latency",
     .cols = PS_COLS(disk_cols),
     .note = "issue to completion; irq>done: from the hardirq entry to the completion"},
    {.kind = PS_BLOCK_TABLE,
     .id = "nics",
     .title = "NICs",
     .rows = "/nic/devices",
     .cols = PS_COLS(nic_cols),
     .note = "irq>poll: from the hardirq that raised NET_RX to the NAPI poll that completed"},
    {.kind = PS_BLOCK_SERIES,
     .id = "irq_hist",
     .title = "IRQ handler time",
     .rows = "/hardirq/lines",
     .nested = "/buckets",
     .cols = PS_COLS(irq_hist_cols),
     .series = PS_SERIES_LOGHIST,
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_SERIES,
     .id = "softirq_hist",
     .title = "Softirq time",
     .rows = "/softirq/vectors",
     .nested = "/buckets",
     .cols = PS_COLS(softirq_hist_cols),
     .series = PS_SERIES_LOGHIST,
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_SERIES,
     .id = "disk_hist",
     .title = "Disk request latency (a line per disk and direction)",
     .rows = "/block/disks",
     .nested = "/latency/buckets",
     .cols = PS_COLS(disk_hist_cols),
     .series = PS_SERIES_LOGHIST,
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_SERIES,
     .id = "nic_hist",
     .title = "NIC interrupt to NAPI poll",
     .rows = "/nic/devices",
     .nested = "/irq_to_poll/buckets",
     .when = "/irq_to_poll",
     .cols = PS_COLS(nic_hist_cols),
     .series = PS_SERIES_LOGHIST,
     .flags = PS_BLOCK_NO_TEXT},
};

const struct ps_view ps_probes_view = {
    .name = "probes",
    .version = 1,
    .scope = PS_SCOPE_MEMBER,
    .blocks = PS_BLOCKS(blocks),
};
