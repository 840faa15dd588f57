/*
 * sampler_text.c - text view of a step's "load" object for report.txt and
 * the console: CPU busy per core and the busiest interrupt lines, 80 columns.
 */
#include "sampler.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CPU_ROWS 16 /* more CPUs: the busiest 16 and a summary line */
#define WIDTH	     80

static double num(json_object *o, const char *key, double dflt)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return dflt;
	return json_object_get_double(v);
}

static void field(FILE *f, json_object *o, const char *key)
{
	json_object *v;

	if (json_object_object_get_ex(o, key, &v) && v)
		fprintf(f, " %6.1f", json_object_get_double(v));
	else
		fprintf(f, " %6s", "-");
}

static void cpu_row(FILE *f, const char *label, json_object *o)
{
	static const char *const keys[] = {"busy",    "user",	"system", "irq",
					   "softirq", "iowait", "steal"};

	fprintf(f, "  %-5s", label);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		field(f, o, keys[i]);
	fputc('\n', f);
}

static int cmp_busy_desc(const void *x, const void *y)
{
	double a = num(*(json_object *const *)x, "busy", -1);
	double b = num(*(json_object *const *)y, "busy", -1);

	return (a < b) - (a > b);
}

static void cpu_table(FILE *f, json_object *load)
{
	json_object *cpus, *total, *shown[MAX_CPU_ROWS];
	size_t n, nshown;
	char label[16];

	if (!json_object_object_get_ex(load, "cpus", &cpus) || !cpus ||
	    !(n = json_object_array_length(cpus)))
		return;
	fprintf(f, "  %-5s %6s %6s %6s %6s %6s %6s %6s   (%% of time)\n", "cpu", "busy", "user",
		"sys", "irq", "soft", "iowait", "steal");
	nshown = n <= MAX_CPU_ROWS ? n : MAX_CPU_ROWS;
	if (n <= MAX_CPU_ROWS) {
		for (size_t i = 0; i < n; i++)
			shown[i] = json_object_array_get_idx(cpus, i);
	} else {
		/* Keep the busiest: on a big box one hot core is the finding. */
		json_object **all = calloc(n, sizeof(*all));

		if (!all)
			return;
		for (size_t i = 0; i < n; i++)
			all[i] = json_object_array_get_idx(cpus, i);
		qsort(all, n, sizeof(*all), cmp_busy_desc);
		memcpy(shown, all, sizeof(shown));
		free(all);
	}
	for (size_t i = 0; i < nshown; i++) {
		snprintf(label, sizeof(label), "%d", (int)num(shown[i], "cpu", -1));
		cpu_row(f, label, shown[i]);
	}
	if (n > nshown)
		fprintf(f, "  (%zu more CPUs, each at most %.1f%% busy)\n", n - nshown,
			num(shown[nshown - 1], "busy", 0));
	if (json_object_object_get_ex(load, "total", &total) && total)
		cpu_row(f, "all", total);
}

/* "cpu3 1234  cpu0 17" for the CPUs that took this line's interrupts, wrapped at WIDTH. */
static void per_cpu_list(FILE *f, json_object *per_cpu, json_object *ids)
{
	size_t n = json_object_array_length(per_cpu);
	int col = 0;

	for (size_t k = 0; k < n; k++) {
		int64_t c = json_object_get_int64(json_object_array_get_idx(per_cpu, k));
		char item[48];
		int len;

		if (!c)
			continue;
		len =
		    snprintf(item, sizeof(item), "cpu%d:%lld",
			     ids ? json_object_get_int(json_object_array_get_idx(ids, k)) : (int)k,
			     (long long)c);
		if (col && col + 1 + len > WIDTH) {
			fputc('\n', f);
			col = 0;
		}
		if (!col)
			col = fprintf(f, "%8s", "");
		else
			col += fprintf(f, " ");
		col += fprintf(f, "%s", item);
	}
	if (col)
		fputc('\n', f);
}

static void irq_table(FILE *f, json_object *load, int max_irqs)
{
	json_object *irqs, *ids = NULL, *other;
	size_t n;
	double dur = num(load, "duration_s", 0);

	if (!json_object_object_get_ex(load, "irqs", &irqs) || !irqs ||
	    !(n = json_object_array_length(irqs)))
		return;
	json_object_object_get_ex(load, "cpu_ids", &ids);
	fprintf(f, "  %-5s %-44s %12s %10s\n", "irq", "name", "count", "per s");
	for (size_t i = 0; i < n && (max_irqs < 0 || (int)i < max_irqs); i++) {
		json_object *o = json_object_array_get_idx(irqs, i), *v, *pc;
		const char *key = "", *name = "", *chip = NULL;
		char desc[64];
		double total = num(o, "total", 0);

		if (json_object_object_get_ex(o, "irq", &v) && v)
			key = json_object_get_string(v);
		if (json_object_object_get_ex(o, "name", &v) && v)
			name = json_object_get_string(v);
		if (json_object_object_get_ex(o, "chip", &v) && v)
			chip = json_object_get_string(v);
		if (chip && *name)
			snprintf(desc, sizeof(desc), "%s (%s)", name, chip);
		else
			snprintf(desc, sizeof(desc), "%s", *name ? name : chip ? chip : "");
		fprintf(f, "  %-5.5s %-44.44s %12.0f", key, desc, total);
		if (dur > 0)
			fprintf(f, " %10.0f\n", total / dur);
		else
			fprintf(f, " %10s\n", "-");
		if (json_object_object_get_ex(o, "per_cpu", &pc) && pc)
			per_cpu_list(f, pc, ids);
	}
	if (max_irqs >= 0 && (int)n > max_irqs)
		fprintf(f, "  (%zu more lines in the report)\n", n - (size_t)max_irqs);
	if (json_object_object_get_ex(load, "irqs_other", &other) && other &&
	    num(other, "lines", 0) > 0)
		fprintf(f, "  (and %.0f quieter lines: %.0f interrupts)\n", num(other, "lines", 0),
			num(other, "total", 0));
}

/* Word-wraps text after a prefix, continuation lines indented under it. */
static void wrapped(FILE *f, const char *prefix, const char *text)
{
	size_t indent = strlen(prefix), col = indent;

	fputs(prefix, f);
	while (*text) {
		size_t word = strcspn(text, " ");

		if (col > indent && col + 1 + word > WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(text, 1, word, f);
		col += word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

void ps_load_text(FILE *f, json_object *load, int max_irqs)
{
	json_object *v, *notes;

	if (!load) {
		fprintf(f, "load: not sampled\n");
		return;
	}
	fprintf(f, "load: %.1f s, %.0f samples every %.0f ms\n", num(load, "duration_s", 0),
		num(load, "samples", 0), num(load, "interval_ms", 0));
	if (json_object_object_get_ex(load, "unavailable", &v) && v)
		wrapped(f, "  unavailable: ", json_object_get_string(v));
	cpu_table(f, load);
	irq_table(f, load, max_irqs);
	if (json_object_object_get_ex(load, "notes", &notes) && notes)
		for (size_t i = 0; i < json_object_array_length(notes); i++)
			wrapped(f, "  note: ",
				json_object_get_string(json_object_array_get_idx(notes, i)));
}
