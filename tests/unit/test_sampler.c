/*
 * test_sampler.c - the per-step load sampler: exact figures from recorded
 * sample sequences, downsampling, missing files, the thread on live /proc.
 */
#include "check.h"
#include "proc_fixture.h"
#include "record/sampler.h"
#include "report/report.h"
#include "report/view.h"
#include "lib/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Feeds scenario/N/proc/{stat,interrupts} for N = 0..n-1 at t = N * step. */
static json_object *replay(const char *scenario, int n, double step)
{
	struct ps_load_acc *acc = ps_load_acc_new(1000);

	for (int i = 0; i < n; i++) {
		char rel[128];
		size_t sl, il;
		char *st, *in;

		snprintf(rel, sizeof(rel), "%s/%d/proc/stat", scenario, i);
		st = fixture(rel, &sl);
		snprintf(rel, sizeof(rel), "%s/%d/proc/interrupts", scenario, i);
		in = fixture(rel, &il);
		CHECK_INT(ps_load_acc_add(acc, 100.0 + i * step, st, sl, 0, in, il, 0), 0);
		free(st);
		free(in);
	}
	return ps_load_acc_finish(acc);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static json_object *idx(json_object *a, size_t i)
{
	return a && i < json_object_array_length(a) ? json_object_array_get_idx(a, i) : NULL;
}

/* The JSON text of o[key]: "75.0", "null", "\"24\"", "[0,50000]" (spaces removed). */
static const char *js(json_object *o, const char *key)
{
	static char buf[8][512];
	static int next;
	char *b = buf[next++ % 8], *w = b;
	json_object *v = key ? get(o, key) : o;
	const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE);

	if (key && !json_object_object_get_ex(o, key, NULL))
		return "(absent)";
	for (; *s && w < b + sizeof(buf[0]) - 1; s++)
		if (*s != ' ')
			*w++ = *s;
	*w = '\0';
	return b;
}

static void check_cpu(json_object *c, const char *user, const char *nice, const char *sys,
		      const char *irq, const char *soft, const char *iowait, const char *idle,
		      const char *steal, const char *busy)
{
	CHECK_STR(js(c, "user"), user);
	CHECK_STR(js(c, "nice"), nice);
	CHECK_STR(js(c, "system"), sys);
	CHECK_STR(js(c, "irq"), irq);
	CHECK_STR(js(c, "softirq"), soft);
	CHECK_STR(js(c, "iowait"), iowait);
	CHECK_STR(js(c, "idle"), idle);
	CHECK_STR(js(c, "steal"), steal);
	CHECK_STR(js(c, "busy"), busy);
}

static void check_irq(json_object *o, const char *key, const char *name, long long total,
		      const char *per_cpu)
{
	CHECK_STR(js(o, "irq"), key);
	CHECK_STR(js(o, "name"), name);
	CHECK_INT(json_object_get_int64(get(o, "total")), total);
	CHECK_STR(js(o, "per_cpu"), per_cpu);
}

static bool has_note(json_object *load, const char *text)
{
	json_object *notes = get(load, "notes");

	for (size_t i = 0; notes && i < json_object_array_length(notes); i++)
		if (strcmp(json_object_get_string(idx(notes, i)), text) == 0)
			return true;
	fprintf(stderr, "note missing: %s\n", text);
	return false;
}

/* Renders the load through its view, as report.txt shows it, within 80 columns. */
static char *render(json_object *load, int max_irqs)
{
	const struct ps_view *v[] = {&ps_load_view};
	struct ps_view_set set = {v, 1};
	json_object *r = json_object_new_object(), *steps = json_object_new_array(),
		    *s = json_object_new_object();
	char *buf, *line;

	(void)max_irqs;
	json_object_object_add(r, "schema_version", json_object_new_int(2));
	json_object_object_add(s, "name", json_object_new_string("step"));
	json_object_object_add(s, "status", json_object_new_string("pass"));
	json_object_object_add(s, "load", json_object_get(load));
	json_object_array_add(steps, s);
	json_object_object_add(r, "steps", steps);
	buf = ps_report_text(r, &set, 0);
	json_object_put(r);
	for (line = buf; *line;) {
		size_t n = strcspn(line, "\n");

		if (n > 80)
			fprintf(stderr, "line over 80 columns: %.*s\n", (int)n, line);
		CHECK(n <= 80);
		line += n + (line[n] == '\n');
	}
	return buf;
}

static void test_qemu(void)
{
	json_object *load = replay("qemu-q35-2cpu", 2, 10.0);
	json_object *cpus = get(load, "cpus"), *irqs = get(load, "irqs"), *s;
	char *text;

	CHECK_STR(js(load, "interval_ms"), "1000");
	CHECK_STR(js(load, "samples"), "2");
	CHECK_STR(js(load, "duration_s"), "10.0");
	CHECK_STR(js(load, "unavailable"), "(absent)");
	CHECK_STR(js(load, "notes"), "(absent)");
	CHECK_STR(js(load, "cpu_ids"), "[0,1]");
	CHECK_INT(json_object_array_length(cpus), 2);
	check_cpu(idx(cpus, 0), "10.0", "0.0", "60.0", "0.0", "5.0", "10.0", "15.0", "0.0", "75.0");
	check_cpu(idx(cpus, 1), "3.0", "0.5", "2.0", "0.0", "1.0", "0.5", "93.0", "0.0", "6.5");
	CHECK_STR(js(idx(cpus, 1), "cpu"), "1");
	CHECK_STR(js(idx(cpus, 1), "ticks"), "1000");
	/* 2000 ticks: user 130, nice 5, system 620, softirq 60, iowait 105, idle 1080 */
	check_cpu(get(load, "total"), "6.5", "0.3", "31.0", "0.0", "3.0", "5.3", "54.0", "0.0",
		  "40.8");

	CHECK_INT(json_object_array_length(irqs), 9);
	check_irq(idx(irqs, 0), "\"24\"", "\"enp0s2-rx-0\"", 50000, "[0,50000]");
	CHECK_STR(js(idx(irqs, 0), "chip"), "\"PCI-MSIX-0000:00:02.0\"");
	CHECK_STR(js(idx(irqs, 0), "hwirq"), "\"0-edge\"");
	check_irq(idx(irqs, 1), "\"29\"", "\"nvme0q1\"", 40000, "[40000,0]");
	check_irq(idx(irqs, 2), "\"30\"", "\"nvme0q2\"", 35000, "[0,35000]");
	check_irq(idx(irqs, 3), "\"25\"", "\"enp0s2-tx-0\"", 20000, "[20000,0]");
	check_irq(idx(irqs, 4), "\"LOC\"", "\"Localtimerinterrupts\"", 4998, "[2500,2498]");
	CHECK_STR(js(idx(irqs, 4), "chip"), "null");
	check_irq(idx(irqs, 5), "\"RES\"", "\"Reschedulinginterrupts\"", 40, "[30,10]");
	check_irq(idx(irqs, 6), "\"33\"", "\"virtio0-request\"", 7, "[3,4]");
	check_irq(idx(irqs, 7), "\"CAL\"", "\"Functioncallinterrupts\"", 5, "[5,0]");
	check_irq(idx(irqs, 8), "\"28\"", "\"nvme0q0\"", 2, "[2,0]");
	CHECK_STR(js(load, "irqs_other"), "{\"lines\":0,\"total\":0}");
	CHECK_STR(js(load, "irq_total"), "150052");

	CHECK_INT(json_object_array_length(get(load, "series")), 1);
	s = idx(get(load, "series"), 0);
	CHECK_STR(js(s, "t"), "10.0");
	CHECK_STR(js(s, "busy"), "[75.0,6.5]");
	CHECK_STR(js(s, "irq_rate"), "15005");
	CHECK_STR(js(load, "series_step_s"), "1.0");

	text = render(load, 5);
	CHECK(strstr(text, "    sampled         10.0 s\n") != NULL);
	CHECK(strstr(text, "    CPU busy        40.8 %\n") != NULL);
	CHECK(strstr(text, "      0    75.0    10.0   60.0    0.0     5.0      10.0    15.0\n") !=
	      NULL);
	CHECK(strstr(text, "    24   50000  0, 50000    enp0s2-rx-0\n") != NULL);
	CHECK(strstr(text, "    LOC   4998  2500, 2498  Local timer interrupts\n") != NULL);
	if (check_failures)
		fputs(text, stderr);
	free(text);
	json_object_put(load);
}

static void test_box_offline_wrap_reset(void)
{
	json_object *load = replay("box-8cpu", 4, 1.0);
	json_object *cpus = get(load, "cpus"), *irqs = get(load, "irqs"), *series;
	char *text;

	CHECK_STR(js(load, "samples"), "4");
	CHECK_STR(js(load, "duration_s"), "3.0");
	CHECK_STR(js(load, "cpu_ids"), "[0,1,2,3,4,5,6,7]");
	CHECK_INT(json_object_array_length(cpus), 8);
	check_cpu(idx(cpus, 0), "90.0", "0.0", "10.0", "0.0", "0.0", "0.0", "0.0", "0.0", "100.0");
	check_cpu(idx(cpus, 1), "5.0", "0.0", "5.0", "0.0", "0.0", "5.0", "85.0", "0.0", "10.0");
	check_cpu(idx(cpus, 2), "5.0", "0.0", "5.0", "2.0", "8.0", "0.0", "80.0", "0.0", "20.0");
	check_cpu(idx(cpus, 3), "10.0", "0.0", "10.0", "0.0", "0.0", "0.0", "75.0", "5.0", "25.0");
	/* iowait stepped back by 2 in the second interval: 5 + 0 + 3 of 300 ticks */
	check_cpu(idx(cpus, 4), "5.0", "0.0", "5.0", "0.0", "0.0", "2.7", "87.3", "0.0", "10.0");
	CHECK_STR(js(idx(cpus, 4), "ticks"), "300");
	/* offline in sample 1, back in 2: only the last interval counts */
	check_cpu(idx(cpus, 5), "20.0", "0.0", "20.0", "0.0", "0.0", "0.0", "60.0", "0.0", "40.0");
	CHECK_STR(js(idx(cpus, 5), "ticks"), "100");
	check_cpu(idx(cpus, 7), "50.0", "10.0", "0.0", "0.0", "0.0", "0.0", "40.0", "0.0", "60.0");
	CHECK_STR(js(idx(cpus, 7), "guest"), "50.0");
	/* 2200 ticks: user 530 nice 30 system 140 irq 6 softirq 24 iowait 38 idle 1417 steal 15 */
	check_cpu(get(load, "total"), "24.1", "1.4", "6.4", "0.3", "1.1", "1.7", "64.4", "0.7",
		  "33.9");
	CHECK_STR(js(get(load, "total"), "ticks"), "2200");
	CHECK_STR(js(get(load, "total"), "guest"), "6.8");

	CHECK_INT(json_object_array_length(irqs), 23);
	check_irq(idx(irqs, 0), "\"131\"", "\"nvme0q8\"", 24000, "[0,0,0,0,0,0,0,24000]");
	check_irq(idx(irqs, 1), "\"LOC\"", "\"Localtimerinterrupts\"", 21796,
		  "[2796,3000,3000,3000,3000,1000,3000,3000]");
	check_irq(idx(irqs, 2), "\"130\"", "\"nvme0q7\"", 21000, "[0,0,0,0,0,0,21000,0]");
	check_irq(idx(irqs, 6), "\"125\"", "\"nvme0q2\"", 6000, "[0,6000,0,0,0,0,0,0]");
	check_irq(idx(irqs, 7), "\"129\"", "\"nvme0q6\"", 6000, "[0,0,0,0,0,6000,0,0]");
	check_irq(idx(irqs, 9), "\"133\"", "\"eno1-TxRx-0\"", 2100, "[2100,0,0,0,0,0,0,0]");
	CHECK_STR(js(idx(irqs, 9), "chip"), "\"IR-PCI-MSI\"");
	CHECK_STR(js(idx(irqs, 9), "hwirq"), "\"1048577-edge\"");
	check_irq(idx(irqs, 13), "\"122\"", "\"ahci[0000:00:1f.2]\"", 600, "[0,0,600,0,0,0,0,0]");
	check_irq(idx(irqs, 14), "\"138\"", "\"eno2\"", 300, "[0,300,0,0,0,0,0,0]");
	check_irq(idx(irqs, 15), "\"137\"", "\"i915\"", 150, "[0,0,150,0,0,0,0,0]");
	check_irq(idx(irqs, 16), "\"RES\"", "\"Reschedulinginterrupts\"", 30, "[0,0,0,30,0,0,0,0]");
	check_irq(idx(irqs, 17), "\"16\"", "\"i801_smbus,ehci_hcd:usb1\"", 15,
		  "[0,0,0,15,0,0,0,0]");
	CHECK_STR(js(idx(irqs, 19), "irq"), "\"CAL\"");
	CHECK_STR(js(load, "irq_total"), "127315");
	/* 23 lines fired, under the cap of 32; ERR is a global count, no per-CPU columns */
	CHECK_STR(js(load, "irqs_other"), "{\"lines\":0,\"total\":0}");
	CHECK_STR(js(idx(irqs, 22), "irq"), "\"ERR\"");
	CHECK_STR(js(idx(irqs, 22), "global"), "true");
	CHECK_STR(js(idx(irqs, 22), "per_cpu"), "(absent)");
	CHECK_STR(js(idx(irqs, 22), "total"), "1");

	series = get(load, "series");
	CHECK_INT(json_object_array_length(series), 3);
	CHECK_STR(js(idx(series, 0), "busy"), "[100.0,10.0,20.0,25.0,10.0,null,10.0,60.0]");
	CHECK_STR(js(idx(series, 1), "busy"), "[100.0,10.0,20.0,25.0,9.8,null,10.0,60.0]");
	CHECK_STR(js(idx(series, 2), "busy"), "[100.0,10.0,20.0,25.0,10.2,40.0,10.0,60.0]");
	CHECK_STR(js(idx(series, 0), "irq_rate"), "39981");
	CHECK_STR(js(idx(series, 1), "irq_rate"), "40056");
	CHECK_STR(js(idx(series, 2), "irq_rate"), "47278");
	CHECK_STR(js(idx(series, 2), "t"), "3.0");

	CHECK(has_note(load, "cpu5 went offline 1.0 s into the step"));
	CHECK(has_note(load, "cpu5 came online 2.0 s into the step; counted from then"));
	CHECK(has_note(load, "irq 16 changed from i801_smbus to i801_smbus, ehci_hcd:usb1 1.0 s "
			     "into the step"));
	CHECK(has_note(load, "irq 138 (eno2) appeared 2.0 s into the step; counted from then"));
	CHECK(has_note(load, "irq 139 (mei_me) disappeared 2.0 s into the step"));
	CHECK(has_note(load, "cpu4: a counter stepped back in 1 of 3 intervals (not counted)"));
	CHECK(has_note(load, "irq LOC (Local timer interrupts): counter wrapped past 2^32 1 time "
			     "(counted through)"));
	CHECK(has_note(load, "irq 137 (i915): counter restarted 1 time (counted from 0)"));
	CHECK_INT(json_object_array_length(get(load, "notes")), 8);

	text = render(load, 32);
	CHECK(strstr(text, "    131  24000  0, 0, 0, 0, 0, 0, 0, 24000        nvme0q8\n") != NULL);
	CHECK(strstr(text, "    ERR      1  -") != NULL);
	CHECK(strstr(text, "    irq 16 changed from i801_smbus to i801_smbus, ehci_hcd:usb1 1.0 s "
			   "into the\n    step\n") != NULL);
	CHECK(strstr(text, "    cpu5 went offline 1.0 s into the step\n") != NULL);
	if (check_failures)
		fputs(text, stderr);
	free(text);
	json_object_put(load);
}

static void test_host_recorded(void)
{
	json_object *load = replay("host-2cpu", 3, 1.0);
	json_object *cpus = get(load, "cpus");

	/* Interval 1: cpu0 1+4+95+1 = 101 ticks, cpu1 101+1 (steal) ... from the recorded text. */
	CHECK_INT(json_object_array_length(cpus), 2);
	/* cpu1 over both intervals: user 177, system 23, idle 0, steal 1 of 201 ticks */
	CHECK_STR(js(idx(cpus, 1), "ticks"), "201");
	CHECK_STR(js(idx(cpus, 1), "user"), "88.1");
	CHECK_STR(js(idx(cpus, 1), "idle"), "0.0");
	CHECK_STR(js(idx(cpus, 1), "busy"), "100.0");
	CHECK_STR(js(idx(cpus, 1), "steal"), "0.5");
	/* cpu0: user 58, system 39, idle 99, softirq 0, steal 1 of 197 */
	CHECK_STR(js(idx(cpus, 0), "ticks"), "197");
	CHECK_STR(js(idx(cpus, 0), "busy"), "49.7");
	CHECK_STR(js(load, "notes"), "(absent)");
	CHECK_INT(json_object_array_length(get(load, "series")), 2);
	json_object_put(load);
}

static void stat_text(char *buf, size_t len, unsigned long user, unsigned long idle)
{
	snprintf(buf, len, "cpu  %lu 0 0 %lu 0 0 0 0 0 0\ncpu0 %lu 0 0 %lu 0 0 0 0 0 0\n", user,
		 idle, user, idle);
}

static void test_downsample(void)
{
	struct ps_load_acc *acc = ps_load_acc_new(1000);
	unsigned long user = 1000, idle = 1000, irq = 0;
	json_object *load, *series;
	char st[256], in[256];

	/* 4000 samples: 50% busy for the first 2000 s, 100% after; 10 interrupts a second. */
	for (int i = 0; i < 4000; i++) {
		stat_text(st, sizeof(st), user, idle);
		snprintf(in, sizeof(in), "  CPU0\n 24: %lu  PCI-MSI 0-edge eth0\n", irq);
		CHECK_INT(ps_load_acc_add(acc, i, st, strlen(st), 0, in, strlen(in), 0), 0);
		user += i < 2000 ? 50 : 100;
		idle += i < 2000 ? 50 : 0;
		irq += 10;
	}
	load = ps_load_acc_finish(acc);
	series = get(load, "series");
	CHECK_STR(js(load, "samples"), "4000");
	CHECK_STR(js(load, "duration_s"), "3999.0");
	CHECK_STR(js(load, "series_step_s"), "2.0");
	/* 3600 one-second points halved to 1800, then 199 pairs and one single */
	CHECK_INT(json_object_array_length(series), 2000);
	CHECK_STR(js(idx(series, 0), "t"), "2.0");
	CHECK_STR(js(idx(series, 0), "busy"), "[50.0]");
	CHECK_STR(js(idx(series, 0), "irq_rate"), "10");
	CHECK_STR(js(idx(series, 999), "t"), "2000.0");
	CHECK_STR(js(idx(series, 999), "busy"), "[50.0]");
	CHECK_STR(js(idx(series, 1000), "busy"), "[100.0]");
	CHECK_STR(js(idx(series, 1999), "t"), "3999.0");
	CHECK_STR(js(idx(series, 1999), "irq_rate"), "10");
	/* intervals 1..2000 at 50%, 2001..3999 at 100%: 100000 + 199900 busy of 399900 */
	CHECK_STR(js(get(load, "total"), "busy"), "75.0");
	CHECK_STR(js(idx(get(load, "irqs"), 0), "total"), "39990");
	json_object_put(load);
}

/* An IRQ action named with control bytes and invalid UTF-8 (a netdev can be named so). */
static void test_odd_names(void)
{
	struct ps_load_acc *acc = ps_load_acc_new(1000);
	json_object *load, *irq;
	char st[256];
	const char *in[2] = {"  CPU0\n 24: 5  PCI-MSI 0-\x01"
			     "edge eth\xff\x1b[2J\n",
			     "  CPU0\n 24: 9  PCI-MSI 0-\x01"
			     "edge eth\xff\x1b[2J\n"};

	for (int i = 0; i < 2; i++) {
		stat_text(st, sizeof(st), 100 + i * 50, 100 + i * 50);
		CHECK_INT(ps_load_acc_add(acc, i, st, strlen(st), 0, in[i], strlen(in[i]), 0), 0);
	}
	load = ps_load_acc_finish(acc);
	irq = idx(get(load, "irqs"), 0);
	CHECK_STR(json_object_get_string(get(irq, "name")), "eth\xef\xbf\xbd\\x1b[2J");
	CHECK_STR(json_object_get_string(get(irq, "hwirq")), "0-\\x01edge");
	CHECK_STR(js(irq, "total"), "4");
	json_object_put(load);
}

/* A counter that leaps by nearly 2^64 wraps the tick sums: no share is made up from them. */
static void test_counter_leap(void)
{
	struct ps_load_acc *acc = ps_load_acc_new(1000);
	const char *st[2] = {"cpu0 4 0 8 3\n", "cpu0 0 5 5 18446744073709551615\n"};
	json_object *load, *cpu;

	for (int i = 0; i < 2; i++)
		CHECK_INT(ps_load_acc_add(acc, i, st[i], strlen(st[i]), 0, NULL, 0, -ENOENT), 0);
	load = ps_load_acc_finish(acc);
	cpu = idx(get(load, "cpus"), 0);
	CHECK_STR(js(cpu, "busy"), "null");
	CHECK_STR(js(cpu, "idle"), "null");
	json_object_put(load);
}

static void test_irq_cap_and_failed_reads(void)
{
	struct ps_load_acc *acc = ps_load_acc_new(500);
	json_object *load, *irqs;
	char st[256], in[8192];

	for (int s = 0; s < 3; s++) {
		int n = snprintf(in, sizeof(in), "   CPU0   CPU1\n");

		/* 40 lines; line i fires i + 1 times per interval on CPU1 */
		for (int i = 0; i < 40; i++)
			n += snprintf(in + n, sizeof(in) - n, "%3d: 5 %d  PCI-MSI %d-edge q%d\n",
				      100 + i, s * (i + 1), i, i);
		stat_text(st, sizeof(st), 100 + s * 30, 100 + s * 70);
		if (s == 1) /* /proc/stat unreadable once: the next interval spans two */
			CHECK_INT(ps_load_acc_add(acc, s * 0.5, NULL, 0, -EIO, in, n, 0), 0);
		else
			CHECK_INT(ps_load_acc_add(acc, s * 0.5, st, strlen(st), 0, in, n, 0), 0);
	}
	load = ps_load_acc_finish(acc);
	irqs = get(load, "irqs");
	CHECK_INT(json_object_array_length(irqs), 32);
	check_irq(idx(irqs, 0), "\"139\"", "\"q39\"", 80, "[0,80]");
	check_irq(idx(irqs, 31), "\"108\"", "\"q8\"", 18, "[0,18]");
	/* lines 100..107 fired 2 * (1 + ... + 8) */
	CHECK_STR(js(load, "irqs_other"), "{\"lines\":8,\"total\":72}");
	CHECK_STR(js(load, "irq_total"), "1640");
	CHECK_STR(js(get(load, "total"), "busy"), "30.0");
	CHECK_STR(js(load, "interval_ms"), "500");
	CHECK_INT(json_object_array_length(get(load, "series")), 2);
	CHECK(has_note(load, "/proc/stat could not be read in 1 of 3 samples"));
	json_object_put(load);
}

static void test_missing_files(void)
{
	char dir[] = "/tmp/ps-sampler-XXXXXX", path[256];
	json_object *load;
	char *text;
	size_t len;

	load = ps_sampler_stop(ps_sampler_start("/nonexistent-root", 1000));
	CHECK_STR(js(load, "unavailable"), "\"/proc/stat:Nosuchfileordirectory;/proc/"
					   "interrupts:Nosuchfileordirectory\"");
	CHECK_STR(js(load, "samples"), "0");
	CHECK_STR(js(load, "cpus"), "[]");
	CHECK_STR(js(load, "irqs"), "[]");
	CHECK_STR(js(load, "total"), "null");
	text = render(load, 8);
	CHECK(strstr(text,
		     "    not sampled /proc/stat: No such file or directory; /proc/interrupts: "
		     "No such\n                file or directory\n") != NULL);
	free(text);
	json_object_put(load);

	load = ps_sampler_stop(NULL);
	CHECK_STR(js(load, "unavailable"), "\"samplercouldnotstart\"");
	json_object_put(load);

	/* Only /proc/stat: CPU figures go on, interrupts say why they are missing. */
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/proc", dir);
	CHECK_INT(ps_mkdirs(path, 0755), 0);
	text = fixture("host-2cpu/0/proc/stat", &len);
	CHECK_INT(ps_write_atomic(path, "stat", text, len), 0);
	free(text);
	load = ps_sampler_stop(ps_sampler_start(dir, 1000));
	CHECK_STR(js(load, "unavailable"), "\"/proc/interrupts:Nosuchfileordirectory\"");
	CHECK_STR(js(load, "samples"), "2");
	CHECK_STR(js(load, "cpu_ids"), "[0,1]");
	CHECK_STR(js(idx(get(load, "cpus"), 0), "busy"), "null"); /* no tick passed in a file */
	json_object_put(load);
	snprintf(path, sizeof(path), "%s/proc/stat", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void test_thread_live(void)
{
	struct ps_sampler *s;
	json_object *load;
	double t0, stop_ms;
	long samples;
	volatile unsigned long spin = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	/* Grid of 50 ms over 275 ms: the first, 5 on the grid, the final one. */
	s = ps_sampler_start(FIXTURES "/proc/host-2cpu/0", 50);
	usleep(275000);
	load = ps_sampler_stop(s);
	samples = json_object_get_int64(get(load, "samples"));
	CHECK(samples >= 3 && samples <= 7);
	CHECK_STR(js(load, "irqs"), "[]"); /* the file never changes */
	json_object_put(load);

	/* Stop must not wait for the 1 s tick. */
	s = ps_sampler_start("", 1000);
	usleep(100000);
	t0 = now();
	load = ps_sampler_stop(s);
	stop_ms = (now() - t0) * 1000;
	printf("stop took %.2f ms\n", stop_ms);
	CHECK(stop_ms < 100);
	CHECK_STR(js(load, "samples"), "2");
	json_object_put(load);

	/* 2.3 s on live /proc with this thread spinning: at least one CPU is busy. */
	s = ps_sampler_start("", 1000);
	t0 = now();
	while (now() - t0 < 2.3)
		spin++;
	load = ps_sampler_stop(s);
	CHECK_STR(js(load, "samples"), "4");
	CHECK_STR(js(load, "unavailable"), "(absent)");
	CHECK_INT(json_object_array_length(get(load, "cpus")), ncpu);
	CHECK(json_object_get_double(get(get(load, "total"), "busy")) >= 100.0 / ncpu - 10);
	CHECK(json_object_get_int64(get(load, "irq_total")) > 0);
	CHECK_INT(json_object_array_length(get(load, "series")), 3);
	printf("live: %s\n", json_object_to_json_string_ext(get(load, "total"), 0));
	json_object_put(load);
}

int main(void)
{
	test_qemu();
	test_box_offline_wrap_reset();
	test_host_recorded();
	test_downsample();
	test_odd_names();
	test_counter_leap();
	test_irq_cap_and_failed_reads();
	test_missing_files();
	test_thread_live();
	return check_done("test_sampler");
}
