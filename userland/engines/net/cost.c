/* cost.c - CPU per core and the ports' interrupts over one measurement, through
 * the load sampler's own /proc parsers (decode/proc.h). */
#include "engines/net/cost.h"
#include "lib/util.h"
#include "decode/proc.h"
#include "lib/json.h"

#include <dirent.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ps_cost_watch_pci(struct ps_cost *c, const char *pci_address)
{
	char path[PATH_MAX];
	struct dirent *e;
	size_t added = 0;
	DIR *d;

	if (!pci_address || !pci_address[0])
		return 0;
	ps_path(path, sizeof(path), c->root ? c->root : "", "/sys/bus/pci/devices/%s/msi_irqs",
		pci_address);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) && c->nirqs < PS_COST_MAX_IRQS) {
		char *end;
		long irq = strtol(e->d_name, &end, 10);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end || irq < 0 || irq > INT_MAX)
			continue;
		c->irqs[c->nirqs++] = (int)irq;
		added++;
	}
	closedir(d);
	return added;
}

void ps_cost_parse(const char *stat, size_t stat_len, const char *intr, size_t intr_len,
		   const int *irqs, size_t nirqs, double t, struct ps_cost_snap *out)
{
	struct ps_stat st = {0};
	struct ps_irq_table it = {0};

	memset(out, 0, sizeof(*out));
	out->t = t;
	if (stat && ps_stat_parse(stat, stat_len, &st) == 0) {
		for (size_t i = 0; i < st.ncpus && out->ncpus < PS_COST_MAX_CPUS; i++) {
			const struct ps_stat_cpu *c = &st.cpus[i];
			uint64_t total = ps_stat_cpu_total(c);
			size_t k = out->ncpus++;

			out->cpu_id[k] = c->cpu;
			out->total[k] = total;
			/* busy as the load view counts it: neither idle nor waiting for I/O */
			out->busy[k] = total - c->v[PS_ST_IDLE] - c->v[PS_ST_IOWAIT];
			out->softirq[k] = c->v[PS_ST_SOFTIRQ];
		}
		out->ok = out->ncpus > 0;
	}
	ps_stat_free(&st);
	if (intr && nirqs && ps_irq_parse(intr, intr_len, &it) == 0) {
		for (size_t k = 0; k < nirqs && k < PS_COST_MAX_IRQS; k++) {
			char key[16];
			long li;

			out->irq_cpu[k] = -1;
			snprintf(key, sizeof(key), "%d", irqs[k]);
			li = ps_irq_find(&it, key, 0);
			if (li < 0)
				continue;
			for (unsigned int c = 0; c < it.lines[li].ncounts; c++) {
				uint64_t v = it.counts[it.lines[li].counts + c];

				out->irq_count[k] += v;
				if (v > out->irq_cpu_max[k] || out->irq_cpu[k] < 0) {
					out->irq_cpu_max[k] = v;
					out->irq_cpu[k] = it.lines[li].global ? -1 : it.cpu_ids[c];
				}
			}
		}
	}
	ps_irq_free(&it);
}

void ps_cost_compute(const struct ps_cost_snap *a, const struct ps_cost_snap *b, size_t nirqs,
		     struct ps_cost_result *out)
{
	uint64_t busy_all = 0, total_all = 0, irqs = 0;
	double best = -1;

	memset(out, 0, sizeof(*out));
	out->busiest_cpu = out->irq_cpu = -1;
	out->irqs_per_s = NAN;
	if (!a->ok || !b->ok || b->t <= a->t)
		return;
	out->seconds = b->t - a->t;
	for (size_t i = 0; i < b->ncpus; i++) {
		size_t j;

		for (j = 0; j < a->ncpus && a->cpu_id[j] != b->cpu_id[i]; j++)
			;
		if (j == a->ncpus || b->total[i] <= a->total[j])
			continue;
		{
			double total = (double)(b->total[i] - a->total[j]);
			double busy = (double)(b->busy[i] - a->busy[j]) * 100 / total;
			double soft = (double)(b->softirq[i] - a->softirq[j]) * 100 / total;

			busy_all += b->busy[i] - a->busy[j];
			total_all += b->total[i] - a->total[j];
			out->ncpus++;
			if (busy > best) {
				best = busy;
				out->busiest_cpu = b->cpu_id[i];
				out->busiest_pct = busy;
				out->busiest_softirq_pct = soft;
			}
		}
	}
	if (!out->ncpus)
		return;
	out->known = true;
	out->total_pct = total_all ? (double)busy_all * 100 / (double)total_all : 0;
	out->cpu_bound = out->busiest_pct >= PS_COST_CPU_BOUND_PCT;
	if (nirqs) {
		int cpu = -2;
		bool one = true;

		for (size_t k = 0; k < nirqs && k < PS_COST_MAX_IRQS; k++) {
			uint64_t d = b->irq_count[k] - a->irq_count[k];

			if (b->irq_count[k] < a->irq_count[k])
				continue;
			irqs += d;
			if (d == 0)
				continue;
			/* who took this line's interrupts during the measurement */
			if (b->irq_cpu[k] < 0 || (cpu != -2 && b->irq_cpu[k] != cpu))
				one = false;
			cpu = b->irq_cpu[k];
		}
		out->irqs_per_s = (double)irqs / out->seconds;
		out->irq_one_cpu = one && cpu >= 0 && irqs > 0;
		out->irq_cpu = out->irq_one_cpu ? cpu : -1;
	}
}

static void snap(struct ps_cost *c, struct ps_cost_snap *s)
{
	char path[PATH_MAX], *stat = NULL, *intr = NULL;
	size_t slen = 0, ilen = 0;
	const char *root = c->root ? c->root : "";

	if (ps_read_all(ps_path(path, sizeof(path), root, "/proc/stat"), &stat, &slen) < 0)
		stat = NULL;
	if (c->nirqs &&
	    ps_read_all(ps_path(path, sizeof(path), root, "/proc/interrupts"), &intr, &ilen) < 0)
		intr = NULL;
	ps_cost_parse(stat, slen, intr, ilen, c->irqs, c->nirqs, ps_mono_now(), s);
	free(stat);
	free(intr);
}

void ps_cost_begin(struct ps_cost *c)
{
	snap(c, &c->a);
}

void ps_cost_end(struct ps_cost *c, struct ps_cost_result *out)
{
	snap(c, &c->b);
	ps_cost_compute(&c->a, &c->b, c->nirqs, out);
}

static const struct ps_field cost_f[] = {
    PS_FIELD(struct ps_cost_result, busiest_pct, "busiest_core_pct", .unit = "%", .decimals = 1),
    PS_FIELD(struct ps_cost_result, busiest_cpu, "busiest_core"),
    PS_FIELD(struct ps_cost_result, busiest_softirq_pct, "busiest_core_softirq_pct", .unit = "%",
	     .decimals = 1),
    PS_FIELD(struct ps_cost_result, total_pct, "all_cores_pct", .unit = "%", .decimals = 1),
    PS_FIELD(struct ps_cost_result, ncpus, "cores"),
    PS_FIELD(struct ps_cost_result, irqs_per_s, "port_irqs_per_s", .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_cost_result, irq_cpu, "irq_core", .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_cost_result, cpu_bound, "cpu_bound"),
};
const struct ps_fields ps_cost_fields = PS_FIELDS(struct ps_cost_result, cost_f);

json_object *ps_cost_json(const struct ps_cost_result *r)
{
	return r->known ? ps_fields_json(&ps_cost_fields, r) : NULL;
}
