// SPDX-License-Identifier: GPL-2.0
/*
 * Capture windows of probestick.ko: finds the probes' tracepoints, attaches
 * and detaches them per window, owns the per-CPU histograms and copies them
 * out merged (PROBESTICK_IOC_KC_* in uapi/probestick.h).
 */
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "kc_window.h"
#include "kcapture.h"

static_assert(PS_HIST_BUCKETS == PROBESTICK_KC_BUCKETS);

/* Histograms a CPU may fill in one window; each costs 2.1 KiB per CPU. */
static unsigned int hists_per_cpu = 128;
module_param(hists_per_cpu, uint, 0444);
MODULE_PARM_DESC(hists_per_cpu, "histograms per CPU and window (16..4096, default 128)");

/* Pool chunks stay far below the per-CPU allocator's 32 KiB limit. */
#define PS_CHUNK_HISTS 8
struct ps_hist_chunk {
	struct ps_khist h[PS_CHUNK_HISTS];
};

struct ps_kc_cpu __percpu *ps_kc_cpu;
u32 ps_kc_recording;
struct ps_key_meta ps_irq_meta[PS_MAX_IRQS];
struct ps_key_meta ps_disk_meta[PS_MAX_DISKS];
struct ps_key_meta ps_nic_meta[PS_MAX_NICS];
static u64 ps_irq_keyv[PS_MAX_IRQS], ps_disk_keyv[PS_MAX_DISKS], ps_nic_keyv[PS_MAX_NICS];
struct ps_keytab ps_irq_keys = { .keys = ps_irq_keyv, .size = PS_MAX_IRQS };
struct ps_keytab ps_disk_keys = { .keys = ps_disk_keyv, .size = PS_MAX_DISKS };
struct ps_keytab ps_nic_keys = { .keys = ps_nic_keyv, .size = PS_MAX_NICS };

static struct ps_hist_chunk __percpu **ps_chunks;
static unsigned int ps_nr_chunks;
static DEFINE_MUTEX(ps_kc_lock);
static struct ps_window ps_win;

/* The probes built in this module (Kbuild gates them on kernel features). */
static struct ps_probe *const ps_probes[PROBESTICK_KC_NR_PROBES] = {
	&ps_probe_hardirq,
	&ps_probe_softirq,
#ifdef PS_HAVE_PROBE_BLOCK
	&ps_probe_block,
#else
	NULL,
#endif
#ifdef PS_HAVE_PROBE_NIC
	&ps_probe_nic,
#else
	NULL,
#endif
};

static const char *const ps_probe_names[PROBESTICK_KC_NR_PROBES] = {
	"hardirq", "softirq", "block", "nic"
};

static struct ps_khist __percpu *ps_pool_hist(unsigned int idx)
{
	return &ps_chunks[idx / PS_CHUNK_HISTS]->h[idx % PS_CHUNK_HISTS];
}

/*
 * Hot path, any context. Every store is a this_cpu op, so a hardirq that
 * interrupts a softirq probe on this CPU cannot tear a counter; the only
 * race (both taking a pool entry for the same slot) wastes one entry.
 */
void ps_kc_record(unsigned int slot, u64 value)
{
	struct ps_khist __percpu *h;
	unsigned int idx, prev;
	u64 old, cur;

	idx = this_cpu_read(ps_kc_cpu->map[slot]);
	if (!idx) {
		if (this_cpu_read(ps_kc_cpu->hists_used) >= hists_per_cpu) {
			this_cpu_inc(ps_kc_cpu->hists_full);
			return;
		}
		idx = this_cpu_inc_return(ps_kc_cpu->hists_used);
		if (idx > hists_per_cpu) {
			this_cpu_inc(ps_kc_cpu->hists_full);
			return;
		}
		prev = this_cpu_cmpxchg(ps_kc_cpu->map[slot], 0, (u16)idx);
		if (prev)
			idx = prev;
	}
	h = ps_pool_hist(idx - 1);
	this_cpu_inc(h->b[ps_hist_index(value)]);
	this_cpu_add(h->sum, value);
	old = this_cpu_read(h->max);
	while (value > old) {
		cur = this_cpu_cmpxchg(h->max, old, value);
		if (cur == old)
			break;
		old = cur;
	}
}

static void ps_tp_match(struct tracepoint *tp, void *priv)
{
	unsigned int p, i;

	for (p = 0; p < PROBESTICK_KC_NR_PROBES; p++) {
		if (!ps_probes[p])
			continue;
		for (i = 0; i < ps_probes[p]->nr_tps; i++)
			if (!strcmp(tp->name, ps_probes[p]->tps[i].name))
				ps_probes[p]->tps[i].tp = tp;
	}
}

static void ps_probes_lookup(void)
{
	struct ps_probe *p;
	unsigned int n, i;

	for_each_kernel_tracepoint(ps_tp_match, NULL);
	for (n = 0; n < PROBESTICK_KC_NR_PROBES; n++) {
		p = ps_probes[n];
		if (!p)
			continue;
		p->available = true;
		for (i = 0; i < p->nr_tps; i++) {
			if (p->tps[i].tp)
				continue;
			p->available = false;
			p->error = -ENOENT;
			snprintf(p->reason, sizeof(p->reason),
				 "tracepoint %s not in this kernel", p->tps[i].name);
			break;
		}
	}
}

static void ps_probe_detach(struct ps_probe *p)
{
	unsigned int i;

	if (!p->attached)
		return;
	for (i = p->nr_tps; i-- > 0;)
		tracepoint_probe_unregister(p->tps[i].tp, p->tps[i].func, NULL);
	p->attached = false;
}

static int ps_probe_attach(struct ps_probe *p)
{
	unsigned int i;
	int ret;

	for (i = 0; i < p->nr_tps; i++) {
		ret = tracepoint_probe_register(p->tps[i].tp, p->tps[i].func, NULL);
		if (ret) {
			p->error = ret;
			snprintf(p->reason, sizeof(p->reason),
				 "cannot attach to tracepoint %s: error %d",
				 p->tps[i].name, ret);
			while (i-- > 0)
				tracepoint_probe_unregister(p->tps[i].tp, p->tps[i].func, NULL);
			return ret;
		}
	}
	p->attached = true;
	return 0;
}

/* Called with every probe detached and synchronized: nothing writes. */
static void ps_kc_reset(void)
{
	unsigned int cpu, c, n;

	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(ps_kc_cpu, cpu), 0, sizeof(struct ps_kc_cpu));
		for (c = 0; c < ps_nr_chunks; c++)
			memset(per_cpu_ptr(ps_chunks[c], cpu), 0, sizeof(struct ps_hist_chunk));
	}
	ps_keytab_reset(&ps_irq_keys);
	ps_keytab_reset(&ps_disk_keys);
	ps_keytab_reset(&ps_nic_keys);
	memset(ps_irq_meta, 0, sizeof(ps_irq_meta));
	memset(ps_disk_meta, 0, sizeof(ps_disk_meta));
	memset(ps_nic_meta, 0, sizeof(ps_nic_meta));
	for (n = 0; n < PROBESTICK_KC_NR_PROBES; n++)
		if (ps_probes[n] && ps_probes[n]->reset)
			ps_probes[n]->reset();
}

static void ps_kc_detach_all(void)
{
	unsigned int n;

	WRITE_ONCE(ps_kc_recording, 0);
	for (n = 0; n < PROBESTICK_KC_NR_PROBES; n++)
		if (ps_probes[n])
			ps_probe_detach(ps_probes[n]);
	/* No probe may still run on another CPU when the data is read or freed. */
	tracepoint_synchronize_unregister();
}

static int ps_kc_start(struct probestick_kc_start __user *uarg)
{
	struct probestick_kc_start arg;
	u32 need, attached = 0;
	struct ps_probe *p;
	unsigned int n;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	ret = ps_window_check_start(&ps_win, arg.mask, arg.flags, arg.reserved);
	if (ret)
		return ret;

	ps_kc_reset();
	need = arg.mask;
	for (n = 0; n < PROBESTICK_KC_NR_PROBES; n++)
		if (ps_probes[n] && (arg.mask & BIT(n)))
			need |= ps_probes[n]->needs;
	WRITE_ONCE(ps_kc_recording, arg.mask);
	for (n = 0; n < PROBESTICK_KC_NR_PROBES; n++) {
		p = ps_probes[n];
		if (!p || !(need & BIT(n)))
			continue;
		p->last_attached = false;
		if (!p->available)
			continue;
		p->error = 0;
		p->reason[0] = '\0';
		if (!ps_probe_attach(p)) {
			p->last_attached = true;
			attached |= BIT(n);
		}
	}
	attached &= arg.mask;
	WRITE_ONCE(ps_kc_recording, attached);
	ps_window_started(&ps_win, arg.mask, attached, ktime_get_ns());

	arg.attached = attached;
	if (copy_to_user(uarg, &arg, sizeof(arg)))
		return -EFAULT;
	return 0;
}

static int ps_kc_stop(void)
{
	int ret = ps_window_stop(&ps_win, ktime_get_ns());

	if (ret)
		return ret;
	ps_kc_detach_all();
	return 0;
}

/* Adds one CPU's histogram of a slot into rec. */
static void ps_rec_add(struct probestick_kc_record *rec, unsigned int slot, unsigned int cpu)
{
	unsigned int idx = READ_ONCE(per_cpu_ptr(ps_kc_cpu, cpu)->map[slot]);
	const struct ps_khist *h;
	u64 v;

	if (!idx || idx > hists_per_cpu)
		return;
	h = per_cpu_ptr(ps_pool_hist(idx - 1), cpu);
	/* The owning CPU may be adding: each bucket is read once, torn never. */
	rec->count += ps_hist_merge(rec->buckets, h->b, PS_HIST_BUCKETS);
	rec->sum += READ_ONCE(h->sum);
	v = READ_ONCE(h->max);
	if (v > rec->max)
		rec->max = v;
}

struct ps_snap {
	struct probestick_kc_record *rec;	/* scratch, one record */
	struct probestick_kc_record __user *urecs;
	u32 room;
	u32 present;
	int error;
};

static void ps_rec_begin(struct ps_snap *s, u16 metric, u16 cpu, u32 key, u32 dir,
			 const struct ps_key_meta *meta)
{
	memset(s->rec, 0, sizeof(*s->rec));
	s->rec->metric = metric;
	s->rec->cpu = cpu;
	s->rec->key = key;
	s->rec->dir = dir;
	if (meta) {
		memcpy(s->rec->name, meta->name, sizeof(s->rec->name));
		s->rec->name[sizeof(s->rec->name) - 1] = '\0';
		memcpy(s->rec->bus, meta->bus, sizeof(s->rec->bus));
		s->rec->bus[sizeof(s->rec->bus) - 1] = '\0';
	}
}

static void ps_rec_end(struct ps_snap *s)
{
	if (!s->rec->count && !s->rec->extra[0] && !s->rec->extra[1])
		return;
	if (s->present < s->room && !s->error &&
	    copy_to_user(&s->urecs[s->present], s->rec, sizeof(*s->rec)))
		s->error = -EFAULT;
	s->present++;
}

static void ps_snap_per_cpu(struct ps_snap *s, u16 metric, unsigned int slot, u32 key,
			    const struct ps_key_meta *meta)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		ps_rec_begin(s, metric, cpu, key, 0, meta);
		ps_rec_add(s->rec, slot, cpu);
		if (metric == PROBESTICK_KC_M_HARDIRQ)
			s->rec->extra[0] = READ_ONCE(per_cpu_ptr(ps_kc_cpu, cpu)
						     ->irq_unhandled[slot - PS_SLOT_HARDIRQ]);
		ps_rec_end(s);
	}
}

static void ps_snap_merged(struct ps_snap *s, u16 metric, unsigned int slot, u32 key,
			   u32 dir, const struct ps_key_meta *meta)
{
	unsigned int cpu;

	ps_rec_begin(s, metric, PROBESTICK_KC_ALL_CPUS, key, dir, meta);
	for_each_possible_cpu(cpu)
		ps_rec_add(s->rec, slot, cpu);
	ps_rec_end(s);
}

static void ps_snap_nic(struct ps_snap *s, unsigned int k)
{
	const struct ps_key_meta *m = &ps_nic_meta[k];
	struct ps_kc_cpu *c;
	unsigned int cpu;

	ps_snap_merged(s, PROBESTICK_KC_M_NIC_LAT, PS_SLOT_NIC_LAT + k, m->id, 0, m);
	ps_snap_merged(s, PROBESTICK_KC_M_NIC_WORK, PS_SLOT_NIC_WORK + k, m->id,
		       READ_ONCE(m->aux), m);
	ps_rec_begin(s, PROBESTICK_KC_M_NIC_PKTS, PROBESTICK_KC_ALL_CPUS, m->id, 0, m);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(ps_kc_cpu, cpu);
		s->rec->extra[0] += READ_ONCE(c->nic_rx[k]);
		s->rec->extra[1] += READ_ONCE(c->nic_tx[k]);
	}
	ps_rec_end(s);
}

static void ps_snap_all(struct ps_snap *s, u32 attached)
{
	unsigned int k, d;

	if (attached & PROBESTICK_KC_HARDIRQ)
		for (k = 0; k < PS_MAX_IRQS; k++)
			if (READ_ONCE(ps_irq_keyv[k]))
				ps_snap_per_cpu(s, PROBESTICK_KC_M_HARDIRQ, PS_SLOT_HARDIRQ + k,
						READ_ONCE(ps_irq_keyv[k]) - 1, &ps_irq_meta[k]);
	if (attached & PROBESTICK_KC_SOFTIRQ)
		for (k = 0; k < PS_NR_VECS; k++)
			ps_snap_per_cpu(s, PROBESTICK_KC_M_SOFTIRQ, PS_SLOT_SOFTIRQ + k, k, NULL);
	if (attached & PROBESTICK_KC_BLOCK)
		for (k = 0; k < PS_MAX_DISKS; k++) {
			if (!READ_ONCE(ps_disk_keyv[k]))
				continue;
			for (d = 0; d < PS_NR_DIRS; d++) {
				ps_snap_merged(s, PROBESTICK_KC_M_BLOCK_LAT,
					       PS_SLOT_BLOCK_LAT + k * PS_NR_DIRS + d,
					       ps_disk_meta[k].id, d, &ps_disk_meta[k]);
				ps_snap_merged(s, PROBESTICK_KC_M_BLOCK_IRQ,
					       PS_SLOT_BLOCK_IRQ + k * PS_NR_DIRS + d,
					       ps_disk_meta[k].id, d, &ps_disk_meta[k]);
			}
		}
	if (attached & PROBESTICK_KC_NIC)
		for (k = 0; k < PS_MAX_NICS; k++)
			if (READ_ONCE(ps_nic_keyv[k]))
				ps_snap_nic(s, k);
}

static void ps_kc_drops(struct probestick_kc_drops *d)
{
	unsigned int cpu;

	memset(d, 0, sizeof(*d));
	d->keys_full = atomic64_read(&ps_irq_keys.full) + atomic64_read(&ps_disk_keys.full) +
		       atomic64_read(&ps_nic_keys.full);
	for_each_possible_cpu(cpu)
		d->hists_full += READ_ONCE(per_cpu_ptr(ps_kc_cpu, cpu)->hists_full);
#ifdef PS_HAVE_PROBE_BLOCK
	ps_block_drops(d);
#endif
}

static int ps_kc_snapshot(struct probestick_kc_snapshot __user *uarg)
{
	struct probestick_kc_snapshot arg;
	struct ps_snap s = { 0 };
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.version != PROBESTICK_KC_RECORD_VERSION ||
	    arg.record_size != sizeof(struct probestick_kc_record) ||
	    arg.count > PROBESTICK_KC_RECORDS_MAX)
		return -EINVAL;
	if (arg.count && !arg.records)
		return -EFAULT;
	ret = ps_window_check_snapshot(&ps_win);
	if (ret)
		return ret;

	s.rec = kmalloc(sizeof(*s.rec), GFP_KERNEL);
	if (!s.rec)
		return -ENOMEM;
	s.urecs = u64_to_user_ptr(arg.records);
	s.room = arg.count;
	ps_snap_all(&s, ps_win.attached);
	kfree(s.rec);
	if (s.error)
		return s.error;

	arg.count = s.present;
	arg.state = ps_win.state;
	arg.window_ns = ps_window_elapsed(&ps_win, ktime_get_ns());
	arg.mask = ps_win.mask;
	arg.attached = ps_win.attached;
	arg.nr_cpus = nr_cpu_ids;
	ps_kc_drops(&arg.drops);
	if (copy_to_user(uarg, &arg, sizeof(arg)))
		return -EFAULT;
	return 0;
}

static int ps_kc_probes(struct probestick_kc_probes __user *uarg)
{
	struct probestick_kc_probes arg;
	struct probestick_kc_probe out;
	struct probestick_kc_probe __user *uprobes;
	struct ps_probe *p;
	unsigned int n;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.entry_size != sizeof(out) || arg.count > PROBESTICK_KC_RECORDS_MAX)
		return -EINVAL;
	if (arg.count && !arg.probes)
		return -EFAULT;
	uprobes = u64_to_user_ptr(arg.probes);
	for (n = 0; n < PROBESTICK_KC_NR_PROBES && n < arg.count; n++) {
		p = ps_probes[n];
		memset(&out, 0, sizeof(out));
		out.id = n;
		strscpy(out.name, ps_probe_names[n], sizeof(out.name));
		if (!p) {
			out.error = -EOPNOTSUPP;
			strscpy(out.reason, "not built: the kernel lacks what it needs",
				sizeof(out.reason));
		} else {
			out.flags = (p->available ? PROBESTICK_KC_PROBE_AVAILABLE : 0) |
				    (p->last_attached ? PROBESTICK_KC_PROBE_ATTACHED : 0);
			out.error = p->error;
			strscpy(out.reason, p->reason, sizeof(out.reason));
		}
		if (copy_to_user(&uprobes[n], &out, sizeof(out)))
			return -EFAULT;
	}
	if (put_user((u32)PROBESTICK_KC_NR_PROBES, &uarg->count))
		return -EFAULT;
	return 0;
}

long ps_kc_ioctl(unsigned int cmd, void __user *argp)
{
	long ret;

	mutex_lock(&ps_kc_lock);
	switch (cmd) {
	case PROBESTICK_IOC_KC_PROBES:
		ret = ps_kc_probes(argp);
		break;
	case PROBESTICK_IOC_KC_START:
		ret = ps_kc_start(argp);
		break;
	case PROBESTICK_IOC_KC_STOP:
		ret = ps_kc_stop();
		break;
	case PROBESTICK_IOC_KC_SNAPSHOT:
		ret = ps_kc_snapshot(argp);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&ps_kc_lock);
	return ret;
}

static void ps_kc_free(void)
{
	unsigned int c;

	if (ps_chunks)
		for (c = 0; c < ps_nr_chunks; c++)
			free_percpu(ps_chunks[c]);
	kfree(ps_chunks);
	ps_chunks = NULL;
	free_percpu(ps_kc_cpu);
	ps_kc_cpu = NULL;
}

int ps_kc_init(void)
{
	unsigned int c;

	hists_per_cpu = clamp(hists_per_cpu, 16U, 4096U);
	ps_nr_chunks = DIV_ROUND_UP(hists_per_cpu, PS_CHUNK_HISTS);
	hists_per_cpu = ps_nr_chunks * PS_CHUNK_HISTS;
	ps_kc_cpu = alloc_percpu(struct ps_kc_cpu);
	ps_chunks = kcalloc(ps_nr_chunks, sizeof(*ps_chunks), GFP_KERNEL);
	if (!ps_kc_cpu || !ps_chunks)
		goto nomem;
	for (c = 0; c < ps_nr_chunks; c++) {
		ps_chunks[c] = alloc_percpu(struct ps_hist_chunk);
		if (!ps_chunks[c])
			goto nomem;
	}
	ps_probes_lookup();
	return 0;
nomem:
	ps_kc_free();
	return -ENOMEM;
}

void ps_kc_exit(void)
{
	mutex_lock(&ps_kc_lock);
	if (ps_win.state == PROBESTICK_KC_RUNNING) {
		ps_window_stop(&ps_win, ktime_get_ns());
		ps_kc_detach_all();
	}
	mutex_unlock(&ps_kc_lock);
	ps_kc_free();
}
