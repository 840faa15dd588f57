// SPDX-License-Identifier: GPL-2.0
/*
 * block probe: request latency issue -> final completion per disk and
 * direction, and the completion path from the completing CPU's latest
 * hardirq entry to the completion.
 */
#include <linux/blkdev.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <trace/events/block.h>

#include "kc_core.h"
#include "wrapper/kc_trace.h"

#define PS_MAX_DISKS	64
#define PS_NR_DIRS	3
/* In-flight requests of the window: 4096 pending at once is ~32 per disk queue x 128. */
#define PS_RQ_TABLE	4096
#define PS_RQ_PROBE	64

static struct ps_keys ps_disks = PS_KEYS(PS_MAX_DISKS);

static struct ps_metric ps_block_lat = {
	.metric = PROBESTICK_KC_M_BLOCK_LAT,
	.keys = &ps_disks,
	.nr_dirs = PS_NR_DIRS,
};

static struct ps_metric ps_block_irq = {
	.metric = PROBESTICK_KC_M_BLOCK_IRQ,
	.keys = &ps_disks,
	.nr_dirs = PS_NR_DIRS,
};

static struct ps_rq_entry ps_rq_entries[PS_RQ_TABLE];
static struct ps_rqpair ps_rq_table = {
	.e = ps_rq_entries,
	.size = PS_RQ_TABLE,
	.probe_len = PS_RQ_PROBE,
};

/* Issue and completion may run on different CPUs: a global clock. */
static u64 ps_block_now(void)
{
	return ktime_get_mono_fast_ns();
}

static void ps_block_issue(void *data, struct request *rq)
{
	struct gendisk *disk;

	if (!ps_on(&ps_block_lat))
		return;
	disk = ps_rq_disk(rq);
	if (!disk)
		return;
	ps_rqpair_issue(&ps_rq_table, (unsigned long)rq, ps_block_now(), disk_devt(disk),
			ps_rq_dir(rq));
}

static void ps_block_complete(void *data, struct request *rq, blk_status_t error,
			      unsigned int nr_bytes)
{
	struct ps_key_meta *fresh;
	struct ps_rq_entry e;
	struct gendisk *disk;
	u64 now, irq_ts;
	int k;

	if (!ps_on(&ps_block_lat))
		return;
	if (ps_rqpair_complete(&ps_rq_table, (unsigned long)rq, nr_bytes, blk_rq_bytes(rq),
			       &e) != PS_RQ_DONE)
		return;
	now = ps_block_now();
	k = ps_key(&ps_disks, e.devt, &fresh);
	if (k < 0)
		return;
	if (fresh) {
		fresh->id = e.devt;
		disk = ps_rq_disk(rq);
		if (disk)
			strscpy(fresh->name, disk->disk_name, sizeof(fresh->name));
	}
	ps_record(&ps_block_lat, k, e.dir, now > e.issue_ns ? now - e.issue_ns : 0);

	/* Polled completions (process context) have no interrupt path. */
	if (!in_hardirq() && !in_serving_softirq())
		return;
	irq_ts = ps_hardirq_last_entry();
	now = local_clock();
	if (irq_ts && now >= irq_ts)
		ps_record(&ps_block_irq, k, e.dir, now - irq_ts);
}

static void ps_block_requeue(void *data, struct request *rq)
{
	ps_rqpair_requeue(&ps_rq_table, (unsigned long)rq);
}

static void ps_block_reset(void)
{
	ps_rqpair_reset(&ps_rq_table);
}

static void ps_block_drops(struct probestick_kc_drops *d)
{
	d->rq_table_full += atomic64_read(&ps_rq_table.full);
	d->rq_unknown += atomic64_read(&ps_rq_table.unknown);
	d->rq_requeued += atomic64_read(&ps_rq_table.requeued);
}

PS_PROBE(block,
	 .needs = "hardirq",
	 .reset = ps_block_reset,
	 .drops = ps_block_drops,
	 PS_METRICS(&ps_block_lat, &ps_block_irq),
	 PS_TRACEPOINTS(PS_TP(block_rq_issue, ps_block_issue),
			PS_TP(block_rq_complete, ps_block_complete),
			PS_TP(block_rq_requeue, ps_block_requeue)));
