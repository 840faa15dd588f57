/*
 * cost.h - what one measurement cost the machine: CPU per core (busy and
 * softirq, from /proc/stat) and the interrupts of the ports it used (from
 * /proc/interrupts), between a begin and an end; so that a throughput a
 * CPU could not drive is not blamed on the NIC.
 */
#ifndef PS_NET_COST_H
#define PS_NET_COST_H

#include "lib/fields.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_COST_MAX_CPUS 256
#define PS_COST_MAX_IRQS 64

/* The busiest core at or above this is the ceiling of the measurement. */
#define PS_COST_CPU_BOUND_PCT 90.0

struct ps_cost_snap {
	bool ok;
	double t;
	size_t ncpus;
	int cpu_id[PS_COST_MAX_CPUS];
	uint64_t busy[PS_COST_MAX_CPUS], softirq[PS_COST_MAX_CPUS], total[PS_COST_MAX_CPUS];
	uint64_t irq_count[PS_COST_MAX_IRQS];	/* per watched IRQ line, summed over CPUs */
	uint64_t irq_cpu_max[PS_COST_MAX_IRQS]; /* the CPU that took most of it: its count */
	int irq_cpu[PS_COST_MAX_IRQS];		/* ... and its number */
};

struct ps_cost {
	const char *root;	    /* "" live */
	int irqs[PS_COST_MAX_IRQS]; /* the IRQ numbers of the ports measured */
	size_t nirqs;
	struct ps_cost_snap a, b;
};

struct ps_cost_result {
	bool known;
	double seconds;
	double busiest_pct; /* busy share of the busiest core, 0-100 */
	int busiest_cpu;
	double busiest_softirq_pct; /* of that core: time in softirq (the network stack) */
	double total_pct;	    /* all cores together */
	int ncpus;
	double irqs_per_s; /* of the watched lines, NAN when none watched */
	bool irq_one_cpu;  /* every watched line was served by one and the same CPU */
	int irq_cpu;	   /* that CPU, -1 */
	bool cpu_bound;	   /* busiest_pct >= PS_COST_CPU_BOUND_PCT */
};

/* Watch the MSI/MSI-X vectors of a PCI function (its msi_irqs in sysfs); how many were added. */
size_t ps_cost_watch_pci(struct ps_cost *c, const char *pci_address);

/* Pure: the result between two snapshots. */
void ps_cost_compute(const struct ps_cost_snap *a, const struct ps_cost_snap *b, size_t nirqs,
		     struct ps_cost_result *out);

/* Pure: a snapshot from the texts of /proc/stat and /proc/interrupts at time t. */
void ps_cost_parse(const char *stat, size_t stat_len, const char *intr, size_t intr_len,
		   const int *irqs, size_t nirqs, double t, struct ps_cost_snap *out);

void ps_cost_begin(struct ps_cost *c);
void ps_cost_end(struct ps_cost *c, struct ps_cost_result *out);

/* The result as the report holds it ({"busiest_core_pct": .., ...}): its field table. */
extern const struct ps_fields ps_cost_fields;
/* The result as JSON, or NULL when unknown. */
json_object *ps_cost_json(const struct ps_cost_result *r);

#endif
