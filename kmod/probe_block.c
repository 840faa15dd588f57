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

#include "kcapture.h"
#include "wrapper/kc_trace.h"

/* In-flight requests of the window: 4096 pending at once is ~32 per disk queue x 128. */
#define PS_RQ_TABLE	4096
#define PS_RQ_PROBE	64

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

	if (!ps_kc_on(PROBESTICK_KC_BLOCK))
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
	struct ps_rq_entry e;
	struct gendisk *disk;
	u64 now, irq_ts;
	unsigned int slot;
	int k;

	if (!ps_kc_on(PROBESTICK_KC_BLOCK))
		return;
	if (ps_rqpair_complete(&ps_rq_table, (unsigned long)rq, nr_bytes, blk_rq_bytes(rq),
			       &e) != PS_RQ_DONE)
		return;
	now = ps_block_now();
	k = ps_keytab_get(&ps_disk_keys, e.devt);
	if (k < 0)
		return;
	if (k & PS_KEY_NEW) {
		k &= ~PS_KEY_NEW;
		ps_disk_meta[k].id = e.devt;
		disk = ps_rq_disk(rq);
		if (disk)
			strscpy(ps_disk_meta[k].name, disk->disk_name,
				sizeof(ps_disk_meta[k].name));
	}
	slot = k * PS_NR_DIRS + e.dir;
	ps_kc_record(PS_SLOT_BLOCK_LAT + slot, now > e.issue_ns ? now - e.issue_ns : 0);

	/* Polled completions (process context) have no interrupt path. */
	if (!in_hardirq() && !in_serving_softirq())
		return;
	irq_ts = this_cpu_read(ps_kc_cpu->irq_ts);
	now = local_clock();
	if (irq_ts && now >= irq_ts)
		ps_kc_record(PS_SLOT_BLOCK_IRQ + slot, now - irq_ts);
}

static void ps_block_requeue(void *data, struct request *rq)
{
	ps_rqpair_requeue(&ps_rq_table, (unsigned long)rq);
}

static void ps_block_reset(void)
{
	ps_rqpair_reset(&ps_rq_table);
}

void ps_block_drops(struct probestick_kc_drops *d)
{
	d->rq_table_full = atomic64_read(&ps_rq_table.full);
	d->rq_unknown = atomic64_read(&ps_rq_table.unknown);
	d->rq_requeued = atomic64_read(&ps_rq_table.requeued);
}

static void __maybe_unused ps_block_check_types(void)
{
	PS_TP_CHECK(block_rq_issue, ps_block_issue);
	PS_TP_CHECK(block_rq_complete, ps_block_complete);
	PS_TP_CHECK(block_rq_requeue, ps_block_requeue);
}

static struct ps_tp ps_block_tps[] = {
	PS_TP(block_rq_issue, ps_block_issue),
	PS_TP(block_rq_complete, ps_block_complete),
	PS_TP(block_rq_requeue, ps_block_requeue),
};

struct ps_probe ps_probe_block = {
	.name = "block",
	.bit = PROBESTICK_KC_BLOCK,
	.needs = PROBESTICK_KC_HARDIRQ,
	.tps = ps_block_tps,
	.nr_tps = ARRAY_SIZE(ps_block_tps),
	.reset = ps_block_reset,
};
