/*
 * proc_decode.h - pure parsers of /proc/stat and /proc/interrupts text, for
 * the per-step load sampler. No I/O here: tests feed recorded texts.
 */
#ifndef PS_PROC_DECODE_H
#define PS_PROC_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Highest CPU number a line may name: Linux's NR_CPUS is at most 8192. A
 * larger one makes the line malformed, rather than sizing the sampler's
 * per-CPU tables by it.
 */
#define PS_PROC_CPU_MAX 8191

/* Fields of a "cpu" line, in the kernel's order (USER_HZ ticks). */
enum ps_stat_field {
	PS_ST_USER, /* includes guest */
	PS_ST_NICE, /* includes guest_nice */
	PS_ST_SYSTEM,
	PS_ST_IDLE,
	PS_ST_IOWAIT,
	PS_ST_IRQ,
	PS_ST_SOFTIRQ,
	PS_ST_STEAL,
	PS_ST_GUEST,
	PS_ST_GUEST_NICE,
	PS_ST_NFIELDS
};

struct ps_stat_cpu {
	int cpu;	      /* -1 for the aggregate "cpu" line */
	unsigned int nfields; /* fields the text had (4..10); the rest are 0 */
	uint64_t v[PS_ST_NFIELDS];
};

/*
 * One parsed /proc/stat. The arrays are reused from one parse to the next
 * (the sampler parses into the same struct every second); zero-initialise
 * before the first parse and release with ps_stat_free().
 */
struct ps_stat {
	bool has_all;
	struct ps_stat_cpu all;
	struct ps_stat_cpu *cpus; /* per-CPU lines in text order (online CPUs only) */
	size_t ncpus, cpus_cap;
	bool has_intr;
	uint64_t intr_total;	     /* first number of "intr": every interrupt since boot */
	unsigned int bad_lines;	     /* cpu/intr lines that did not parse */
	unsigned int first_bad_line; /* 1-based line number of the first, or 0 */
	bool truncated;		     /* the text did not end in a newline: last line ignored */
};

/*
 * Parse /proc/stat text (len bytes, need not be NUL-terminated). Returns 0,
 * -ENODATA when no cpu line at all parsed, -ENOMEM.
 */
int ps_stat_parse(const char *text, size_t len, struct ps_stat *st);
void ps_stat_free(struct ps_stat *st);

/* Time a CPU line accounts for: every field but guest/guest_nice, which user/nice already hold. */
uint64_t ps_stat_cpu_total(const struct ps_stat_cpu *c);

/*
 * One /proc/interrupts line. Strings point into the parsed text, which must
 * outlive the table's use. chip/hwirq are only set for numbered lines
 * ("24: ... PCI-MSIX-0000:00:02.0 0-edge enp0s2-rx-0"); name is the action
 * list there and the description on named lines ("LOC: ... Local timer
 * interrupts").
 */
struct ps_irq_line {
	char key[16]; /* "24", "LOC", "ERR" */
	const char *chip, *hwirq, *name;
	unsigned int chip_len, hwirq_len, name_len;
	size_t counts;	      /* index of the first count in ps_irq_table.counts */
	unsigned int ncounts; /* = ncols, or 1 for a global counter */
	bool global;	      /* ERR:, MIS:: one system-wide count, no per-CPU columns */
	int user;	      /* free for the caller; the parser sets -1 */
};

struct ps_irq_table {
	int *cpu_ids; /* column -> CPU number, from the "CPU0 CPU1 CPU3" header */
	unsigned int ncols, cols_cap;
	struct ps_irq_line *lines;
	size_t nlines, lines_cap;
	uint64_t *counts;
	size_t ncounts, counts_cap;
	unsigned int bad_lines, first_bad_line;
	bool truncated;
};

/*
 * Parse /proc/interrupts text. Returns 0, -ENODATA when the CPU header is
 * missing or unreadable, -ENOMEM. Malformed lines are skipped and counted.
 */
int ps_irq_parse(const char *text, size_t len, struct ps_irq_table *t);
void ps_irq_free(struct ps_irq_table *t);

/* Index of the line with this key, trying hint first; -1 when absent. */
long ps_irq_find(const struct ps_irq_table *t, const char *key, size_t hint);

#endif
