/* test_procinterrupts.c - /proc/interrupts parser against recorded and hand-made texts. */
#include "check.h"
#include "proc_fixture.h"
#include "decode/proc.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>

/* A span as a NUL-terminated string in a rotating static buffer, "(null)" when absent. */
static const char *span(const char *s, unsigned int len)
{
	static char buf[4][256];
	static int next;
	char *b = buf[next++ % 4];

	if (!s)
		return "(null)";
	snprintf(b, sizeof(buf[0]), "%.*s", (int)len, s);
	return b;
}

#define CHIP(l)	 span((l)->chip, (l)->chip_len)
#define HWIRQ(l) span((l)->hwirq, (l)->hwirq_len)
#define NAME(l)	 span((l)->name, (l)->name_len)

static const struct ps_irq_line *line(const struct ps_irq_table *t, const char *key)
{
	static const struct ps_irq_line none;
	long i = ps_irq_find(t, key, 0);

	CHECK(i >= 0);
	if (i < 0)
		fprintf(stderr, "line %s missing\n", key);
	return i >= 0 ? &t->lines[i] : &none;
}

static uint64_t count(const struct ps_irq_table *t, const struct ps_irq_line *l, unsigned int col)
{
	return col < l->ncounts ? t->counts[l->counts + col] : 0xdeadbeef;
}

static void test_host(void)
{
	struct ps_irq_table t = {0};
	const struct ps_irq_line *l;
	size_t len;
	char *text = fixture("host-2cpu/0/proc/interrupts", &len);

	CHECK_INT(ps_irq_parse(text, len, &t), 0);
	CHECK_INT(t.ncols, 2);
	CHECK_INT(t.cpu_ids[0], 0);
	CHECK_INT(t.cpu_ids[1], 1);
	CHECK_INT(t.nlines, 35);
	CHECK_INT(t.bad_lines, 0);
	l = &t.lines[0];
	CHECK_STR(l->key, "24");
	CHECK_STR(CHIP(l), "IO-APIC");
	CHECK_STR(HWIRQ(l), "5-edge");
	CHECK_STR(NAME(l), "ACPI:Ged");
	CHECK_INT(count(&t, l, 0), 1);
	CHECK_INT(count(&t, l, 1), 0);
	l = line(&t, "36");
	CHECK_STR(CHIP(l), "PCI-MSIX-0000:00:02.0");
	CHECK_STR(HWIRQ(l), "1-edge");
	CHECK_STR(NAME(l), "virtio1-req.0");
	CHECK_INT(count(&t, l, 1), 82283);
	l = line(&t, "LOC");
	CHECK(!l->chip && !l->hwirq);
	CHECK_STR(NAME(l), "Local timer interrupts");
	CHECK_INT(count(&t, l, 0), 116326);
	CHECK_INT(count(&t, l, 1), 117999);
	CHECK(!l->global);
	CHECK_INT(l->user, -1);
	l = line(&t, "ERR");
	CHECK(l->global);
	CHECK_INT(l->ncounts, 1);
	CHECK_INT(count(&t, l, 0), 0);
	CHECK(!l->name);
	CHECK_STR(t.lines[34].key, "PIW");
	ps_irq_free(&t);
	free(text);
}

static void test_qemu(void)
{
	struct ps_irq_table t = {0};
	const struct ps_irq_line *l;
	size_t len;
	char *text = fixture("qemu-q35-2cpu/1/proc/interrupts", &len);

	CHECK_INT(ps_irq_parse(text, len, &t), 0);
	CHECK_INT(t.nlines, 35);
	l = line(&t, "24");
	CHECK_STR(CHIP(l), "PCI-MSIX-0000:00:02.0");
	CHECK_STR(HWIRQ(l), "0-edge");
	CHECK_STR(NAME(l), "enp0s2-rx-0");
	CHECK_INT(count(&t, l, 0), 0);
	CHECK_INT(count(&t, l, 1), 51234);
	l = line(&t, "27");
	CHECK_STR(CHIP(l), "PCI-MSI-0000:00:1f.2");
	CHECK_STR(NAME(l), "ahci[0000:00:1f.2]");
	l = line(&t, "9");
	CHECK_STR(CHIP(l), "IO-APIC");
	CHECK_STR(HWIRQ(l), "9-fasteoi");
	CHECK_STR(NAME(l), "acpi");
	l = line(&t, "30");
	CHECK_STR(NAME(l), "nvme0q2");
	CHECK_INT(count(&t, l, 1), 37877);
	l = line(&t, "MCP");
	CHECK_STR(NAME(l), "Machine check polls");
	CHECK_INT(count(&t, l, 1), 2);
	ps_irq_free(&t);
	free(text);
}

static void test_box_offline_column(void)
{
	struct ps_irq_table t = {0};
	const struct ps_irq_line *l;
	size_t len;
	char *text = fixture("box-8cpu/1/proc/interrupts", &len);
	static const int ids[] = {0, 1, 2, 3, 4, 6, 7};

	CHECK_INT(ps_irq_parse(text, len, &t), 0);
	CHECK_INT(t.ncols, 7);
	for (unsigned int k = 0; k < 7; k++)
		CHECK_INT(t.cpu_ids[k], ids[k]);
	CHECK_INT(t.bad_lines, 0);
	l = line(&t, "16");
	CHECK_STR(CHIP(l), "IR-IO-APIC");
	CHECK_STR(HWIRQ(l), "16-fasteoi");
	CHECK_STR(NAME(l), "i801_smbus, ehci_hcd:usb1");
	CHECK_INT(count(&t, l, 3), 5);
	l = line(&t, "130"); /* nvme0q7 on CPU6: column 5 now that CPU5 is gone */
	CHECK_STR(CHIP(l), "IR-PCI-MSI");
	CHECK_STR(HWIRQ(l), "524295-edge");
	CHECK_STR(NAME(l), "nvme0q7");
	CHECK_INT(count(&t, l, 5), 77000);
	CHECK_INT(count(&t, l, 6), 0);
	l = line(&t, "LOC");
	CHECK_INT(count(&t, l, 0), 4294966000ULL);
	CHECK_INT(ps_irq_find(&t, "138", 0), -1);
	CHECK(ps_irq_find(&t, "139", 0) >= 0);
	ps_irq_free(&t);
	free(text);
}

static void test_malformed(void)
{
	struct ps_irq_table t = {0};
	const struct ps_irq_line *l;
	size_t len;
	char *text = fixture("malformed/proc/interrupts", &len);

	CHECK_INT(ps_irq_parse(text, len, &t), 0);
	CHECK_INT(t.ncols, 3);
	/* "1:" with 2 of 3 counts, no colon, empty key, "1x", a 19-character key */
	CHECK_INT(t.bad_lines, 5);
	CHECK_INT(t.first_bad_line, 3);
	CHECK_INT(t.nlines, 8);
	CHECK_STR(t.lines[0].key, "0");
	CHECK_INT(count(&t, &t.lines[0], 2), 30);
	CHECK_INT(ps_irq_find(&t, "1", 0), -1);
	CHECK_INT(ps_irq_find(&t, "5", 0), -1);
	l = line(&t, "ERR");
	CHECK(l->global);
	CHECK_INT(count(&t, l, 0), 7);
	l = line(&t, "IPI0");
	CHECK_STR(NAME(l), "Rescheduling interrupts");
	CHECK_INT(count(&t, l, 2), 3);
	l = line(&t, "7");
	CHECK_STR(CHIP(l), "GICv3");
	CHECK_STR(HWIRQ(l), "27 Level");
	CHECK_STR(NAME(l), "arch_timer");
	l = line(&t, "8");
	CHECK_STR(CHIP(l), "IO-APIC");
	CHECK(!l->hwirq && !l->name);
	l = line(&t, "11");
	CHECK_STR(CHIP(l), "None");
	CHECK_STR(HWIRQ(l), "-edge");
	CHECK(!l->name);
	ps_irq_free(&t);
	free(text);
}

static void test_truncated_and_empty(void)
{
	struct ps_irq_table t = {0};
	size_t len;
	char *text = fixture("truncated/proc/interrupts", &len);
	const char *two = "      CPU0 CPU1\n  3:  1  2  XT-PIC  3  eth0\n";

	CHECK_INT(ps_irq_parse(text, len, &t), 0);
	CHECK(t.truncated);
	CHECK_INT(t.nlines, 2); /* "RES:      12   1" was cut mid-count */
	CHECK_INT(t.bad_lines, 0);
	CHECK_INT(ps_irq_find(&t, "RES", 0), -1);
	CHECK_INT(ps_irq_parse("", 0, &t), -ENODATA);
	CHECK_INT(ps_irq_parse("           CPU0", 15, &t), -ENODATA);
	CHECK_INT(ps_irq_parse("  0:  1  2  IO-APIC timer\n", 26, &t), -ENODATA);
	CHECK_INT(ps_irq_parse("  CPU0 CPUx\n", 12, &t), -ENODATA);
	CHECK_INT(ps_irq_parse("  CPU0 CPU8192\n", 15, &t), -ENODATA); /* beyond NR_CPUS */
	CHECK_INT(ps_irq_parse("  CPU0 CPU8191\n", 15, &t), 0);
	CHECK_INT(t.cpu_ids[1], PS_PROC_CPU_MAX);
	CHECK_INT(ps_irq_parse(two, strlen(two), &t), 0);
	CHECK_INT(t.nlines, 1);
	CHECK_STR(CHIP(&t.lines[0]), "XT-PIC");
	CHECK_STR(HWIRQ(&t.lines[0]), "3");
	CHECK_STR(NAME(&t.lines[0]), "eth0");
	CHECK_INT(ps_irq_find(&t, "3", 7), 0);
	/* a NUL in a key would make it "" or "2": the line is malformed */
	CHECK_INT(ps_irq_parse("CPU0\n2\0:1\n\0:2\n 4: 3\n", 20, &t), 0);
	CHECK_INT(t.bad_lines, 2);
	CHECK_INT(t.nlines, 1);
	CHECK_STR(t.lines[0].key, "4");
	ps_irq_free(&t);
	free(text);
}

int main(void)
{
	test_host();
	test_qemu();
	test_box_offline_column();
	test_malformed();
	test_truncated_and_empty();
	return check_done("test_procinterrupts");
}
