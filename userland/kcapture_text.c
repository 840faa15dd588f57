/*
 * kcapture_text.c - text view of a step's "probes" object: the busiest IRQ
 * lines, softirq vectors, disks and NICs with latency percentiles, <= 80 columns.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kcapture.h"

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o)
		json_object_object_get_ex(o, key, &v);
	return v;
}

static int64_t get_int(json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

static const char *get_str(json_object *o, const char *key)
{
	const char *s = json_object_get_string(get(o, key));

	return s ? s : "";
}

/* " p50 p99 p99.9 max" of one histogram, 4 x 8 columns. */
static void pcts(FILE *f, json_object *h)
{
	char a[16], b[16], c[16], d[16];

	fprintf(f, " %7s %7s %7s %7s", ps_hist_fmt_ns(a, sizeof(a), (uint64_t)get_int(h, "p50")),
		ps_hist_fmt_ns(b, sizeof(b), (uint64_t)get_int(h, "p99")),
		ps_hist_fmt_ns(c, sizeof(c), (uint64_t)get_int(h, "p99_9")),
		ps_hist_fmt_ns(d, sizeof(d), (uint64_t)get_int(h, "max")));
}

static int by_count_desc(const void *a, const void *b)
{
	int64_t x = get_int(*(json_object *const *)a, "count");
	int64_t y = get_int(*(json_object *const *)b, "count");

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The array's elements sorted by their "count", busiest first (caller frees). */
static json_object **sorted(json_object *arr, size_t *n)
{
	json_object **v;

	*n = json_object_array_length(arr);
	v = calloc(*n ? *n : 1, sizeof(*v));
	if (!v) {
		*n = 0;
		return NULL;
	}
	for (size_t i = 0; i < *n; i++)
		v[i] = json_object_array_get_idx(arr, i);
	qsort(v, *n, sizeof(*v), by_count_desc);
	return v;
}

/* "0:61% 1:39%": the CPUs that took the line, at most 2 (then "+"), in 14 columns. */
static void cpu_split(char *buf, size_t len, json_object *line)
{
	json_object *pc = get(line, "per_cpu");
	int64_t total = get_int(line, "count");
	size_t used = 0, shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(pc) && total > 0; i++) {
		int64_t n = json_object_get_int64(json_object_array_get_idx(pc, i));
		int w;

		if (!n)
			continue;
		if (shown == 2 || used + 8 > len) {
			snprintf(buf + used, len - used, "+");
			break;
		}
		w = snprintf(buf + used, len - used, "%s%zu:%d%%", shown ? " " : "", i,
			     (int)(100 * n / total));
		used += (size_t)w;
		shown++;
	}
}

static int probe_header(FILE *f, json_object *probes, const char *name)
{
	json_object *p = get(probes, name);

	if (!p)
		return 0;
	if (!json_object_get_boolean(get(p, "available"))) {
		fprintf(f, "  %s: unavailable (%.56s)\n", name, get_str(p, "reason"));
		return 0;
	}
	return json_object_get_boolean(get(p, "captured"));
}

static void irq_lines(FILE *f, json_object *probes, int max_lines)
{
	size_t n;
	json_object **v;
	char cpus[20];

	if (!probe_header(f, probes, "hardirq"))
		return;
	v = sorted(get(get(probes, "hardirq"), "lines"), &n);
	fprintf(f, "  %4s %-14s %8s %-14s %7s %7s %7s %7s\n", "IRQ", "handler", "count", "CPUs",
		"p50", "p99", "p99.9", "max");
	for (size_t i = 0; i < n && (int)i < max_lines; i++) {
		cpu_split(cpus, sizeof(cpus), v[i]);
		fprintf(f, "  %4" PRId64 " %-14.14s %8" PRId64 " %-14.14s", get_int(v[i], "irq"),
			get_str(v[i], "name"), get_int(v[i], "count"), cpus);
		pcts(f, v[i]);
		fputc('\n', f);
	}
	if (n > (size_t)max_lines)
		fprintf(f, "  (%zu more lines)\n", n - (size_t)max_lines);
	free(v);
}

static void softirqs(FILE *f, json_object *probes, int max_lines)
{
	size_t n;
	json_object **v;
	char cpus[20];

	if (!probe_header(f, probes, "softirq"))
		return;
	v = sorted(get(get(probes, "softirq"), "vectors"), &n);
	fprintf(f, "  %-12s %8s %-14s %7s %7s %7s %7s\n", "softirq", "count", "CPUs", "p50", "p99",
		"p99.9", "max");
	for (size_t i = 0; i < n && (int)i < max_lines; i++) {
		cpu_split(cpus, sizeof(cpus), v[i]);
		fprintf(f, "  %-12.12s %8" PRId64 " %-14.14s", get_str(v[i], "name"),
			get_int(v[i], "count"), cpus);
		pcts(f, v[i]);
		fputc('\n', f);
	}
	free(v);
}

static void disks(FILE *f, json_object *probes, int max_lines)
{
	json_object *arr = get(get(probes, "block"), "disks");
	int shown = 0;
	char a[16], b[16];

	if (!probe_header(f, probes, "block"))
		return;
	fprintf(f, "  %-10s %-5s %8s %7s %7s %7s %7s %8s %8s\n", "disk", "dir", "requests", "p50",
		"p99", "p99.9", "max", "irq>done", "p99");
	for (size_t i = 0; i < json_object_array_length(arr) && shown < max_lines; i++) {
		json_object *d = json_object_array_get_idx(arr, i), *lat = get(d, "latency"),
			    *irq = get(d, "irq_to_complete");

		if (!lat)
			continue;
		fprintf(f, "  %-10.10s %-5.5s %8" PRId64, get_str(d, "disk"), get_str(d, "dir"),
			get_int(lat, "count"));
		pcts(f, lat);
		if (irq)
			fprintf(f, " %8s %8s",
				ps_hist_fmt_ns(a, sizeof(a), (uint64_t)get_int(irq, "p50")),
				ps_hist_fmt_ns(b, sizeof(b), (uint64_t)get_int(irq, "p99")));
		fputc('\n', f);
		shown++;
	}
}

static void nics(FILE *f, json_object *probes, int max_lines)
{
	json_object *arr = get(get(probes, "nic"), "devices");
	char a[16], b[16];

	if (!probe_header(f, probes, "nic"))
		return;
	fprintf(f, "  %-10s %9s %9s %8s %8s %8s %6s %6s\n", "NIC", "rx pkts", "tx pkts", "irq>poll",
		"p99", "max", "work50", "budget");
	for (size_t i = 0; i < json_object_array_length(arr) && (int)i < max_lines; i++) {
		json_object *d = json_object_array_get_idx(arr, i), *lat = get(d, "irq_to_poll"),
			    *work = get(d, "poll_work");
		char c[16];

		fprintf(f, "  %-10.10s %9" PRId64 " %9" PRId64, get_str(d, "name"),
			get_int(d, "rx_packets"), get_int(d, "tx_packets"));
		if (lat)
			fprintf(f, " %8s %8s %8s",
				ps_hist_fmt_ns(a, sizeof(a), (uint64_t)get_int(lat, "p50")),
				ps_hist_fmt_ns(b, sizeof(b), (uint64_t)get_int(lat, "p99")),
				ps_hist_fmt_ns(c, sizeof(c), (uint64_t)get_int(lat, "max")));
		else
			fprintf(f, " %8s %8s %8s", "-", "-", "-");
		if (work)
			fprintf(f, " %6" PRId64 " %6" PRId64, get_int(work, "p50"),
				get_int(work, "budget"));
		fputc('\n', f);
	}
}

void ps_kcapture_text(FILE *f, json_object *probes, int max_lines)
{
	char w[16];

	if (!json_object_get_boolean(get(probes, "available"))) {
		fprintf(f, "Interrupt-path probes: unavailable (%.40s)\n",
			get_str(probes, "reason"));
		return;
	}
	fprintf(f, "Interrupt-path probes, window %s:\n",
		ps_hist_fmt_ns(w, sizeof(w), (uint64_t)get_int(probes, "window_ns")));
	irq_lines(f, probes, max_lines);
	softirqs(f, probes, max_lines);
	disks(f, probes, max_lines);
	nics(f, probes, max_lines);
}
