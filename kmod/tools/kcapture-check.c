/*
 * kcapture-check - drives capture windows of probestick.ko in a test guest
 * through userland/kcapture.c, and checks the histograms against
 * /proc/interrupts and the disks and NICs the workload used.
 *   kcapture-check start                  leave a window running (unload tests)
 *   kcapture-check run [--disk N]... [--nic N]... -- CMD ARGS...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kcapture.h"

#define MAX_IRQS 1024
#define MAX_CPUS 64

struct irq_counts {
	unsigned long long n[MAX_IRQS][MAX_CPUS];
	int ncpu;
};

static int read_interrupts(struct irq_counts *c)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096], *p, *end;

	if (!f)
		return -errno;
	memset(c, 0, sizeof(*c));
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	for (p = line; (p = strstr(p, "CPU")); p += 3)
		c->ncpu++;
	while (fgets(line, sizeof(line), f)) {
		long irq = strtol(line, &end, 10);

		if (end == line || *end != ':' || irq < 0 || irq >= MAX_IRQS)
			continue;
		p = end + 1;
		for (int cpu = 0; cpu < c->ncpu && cpu < MAX_CPUS; cpu++)
			c->n[irq][cpu] = strtoull(p, &p, 10);
	}
	fclose(f);
	return 0;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static long long get_int(json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

/* Each line that moved >= 50 times: probe count within 5% of /proc/interrupts. */
static int check_irqs(json_object *probes, const struct irq_counts *a, const struct irq_counts *b)
{
	json_object *lines = get(get(probes, "hardirq"), "lines");
	int bad = 0;

	for (int irq = 0; irq < MAX_IRQS; irq++) {
		unsigned long long delta = 0, seen = 0;
		const char *name = "";

		for (int cpu = 0; cpu < a->ncpu; cpu++)
			delta += b->n[irq][cpu] - a->n[irq][cpu];
		for (size_t i = 0; i < json_object_array_length(lines); i++) {
			json_object *l = json_object_array_get_idx(lines, i);

			if (get_int(l, "irq") == irq) {
				seen = (unsigned long long)get_int(l, "count");
				name = json_object_get_string(get(l, "name"));
			}
		}
		if (delta < 50 && seen < 50)
			continue;
		double diff =
		    delta ? 100.0 * ((double)seen - (double)delta) / (double)delta : 100.0;
		int ok = diff <= 5.0 && diff >= -5.0;

		printf("PS_IRQ %d %s proc_interrupts=%llu probe=%llu diff=%+.2f%% %s\n", irq, name,
		       delta, seen, diff, ok ? "ok" : "MISMATCH");
		bad += !ok;
	}
	return bad;
}

static int check_disk(json_object *probes, const char *disk)
{
	json_object *disks = get(get(probes, "block"), "disks");

	for (size_t i = 0; i < json_object_array_length(disks); i++) {
		json_object *d = json_object_array_get_idx(disks, i);

		if (strcmp(json_object_get_string(get(d, "disk")), disk) ||
		    strcmp(json_object_get_string(get(d, "dir")), "read"))
			continue;
		long long n = get_int(get(d, "latency"), "count");
		long long m = get_int(get(d, "irq_to_complete"), "count");

		printf("PS_DISK %s reads=%lld p50=%lld p99=%lld irq_to_complete=%lld p50=%lld\n",
		       disk, n, get_int(get(d, "latency"), "p50"),
		       get_int(get(d, "latency"), "p99"), m,
		       get_int(get(d, "irq_to_complete"), "p50"));
		return n > 0 && m > 0 ? 0 : 1;
	}
	printf("PS_DISK %s MISSING\n", disk);
	return 1;
}

static int check_nic(json_object *probes, const char *nic)
{
	json_object *devs = get(get(probes, "nic"), "devices");
	int found = 0, bad = 0;

	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		json_object *d = json_object_array_get_idx(devs, i);

		if (strcmp(json_object_get_string(get(d, "name")), nic))
			continue;
		found = 1;
		long long lat = get_int(get(d, "irq_to_poll"), "count");
		long long work = get_int(get(d, "poll_work"), "count");

		printf("PS_NIC %s bus=%s rx=%lld tx=%lld irq_to_poll=%lld p50=%lld p99=%lld polls=%lld work_p50=%lld budget=%lld\n",
		       nic, json_object_get_string(get(d, "bus")), get_int(d, "rx_packets"),
		       get_int(d, "tx_packets"), lat, get_int(get(d, "irq_to_poll"), "p50"),
		       get_int(get(d, "irq_to_poll"), "p99"), work,
		       get_int(get(d, "poll_work"), "p50"), get_int(get(d, "poll_work"), "budget"));
		bad += !(lat > 0 && work > 0 && get_int(d, "rx_packets") > 0 &&
			 get_int(d, "tx_packets") > 0);
	}
	if (!found)
		printf("PS_NIC %s MISSING\n", nic);
	return found ? bad : 1;
}

int main(int argc, char **argv)
{
	static struct irq_counts before, after;
	const char *disks[8], *nics[8];
	int ndisks = 0, nnics = 0, fd, bad = 0, i, status;
	struct ps_kcapture *c;
	json_object *probes;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr,
			"usage: kcapture-check start | run [--disk N]... [--nic N]... -- CMD\n");
		return 2;
	}
	fd = open(PROBESTICK_DEVICE, O_RDWR);
	if (!strcmp(argv[1], "start")) {
		struct probestick_kc_start st = {.mask = PROBESTICK_KC_ALL};

		if (fd < 0 || ioctl(fd, PROBESTICK_IOC_KC_START, &st) < 0) {
			perror("kcapture-check: start");
			return 1;
		}
		printf("PS_STARTED attached=0x%x\n", st.attached);
		return 0;
	}
	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--disk") && i + 1 < argc && ndisks < 8)
			disks[ndisks++] = argv[++i];
		else if (!strcmp(argv[i], "--nic") && i + 1 < argc && nnics < 8)
			nics[nnics++] = argv[++i];
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "kcapture-check: no command after --\n");
		return 2;
	}
	c = ps_kcapture_start(fd, PROBESTICK_KC_ALL);
	read_interrupts(&before);
	pid = fork();
	if (pid == 0) {
		execvp(argv[i + 1], &argv[i + 1]);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	read_interrupts(&after);
	probes = ps_kcapture_stop(c);
	printf("PS_JSON %s\n", json_object_to_json_string_ext(probes, JSON_C_TO_STRING_PLAIN));
	ps_kcapture_text(stdout, probes, 12);
	if (!json_object_get_boolean(get(probes, "available"))) {
		printf("PS_UNAVAILABLE %s\n", json_object_get_string(get(probes, "reason")));
		return 1;
	}
	bad += check_irqs(probes, &before, &after);
	for (i = 0; i < ndisks; i++)
		bad += check_disk(probes, disks[i]);
	for (i = 0; i < nnics; i++)
		bad += check_nic(probes, nics[i]);
	json_object_put(probes);
	printf("PS_CHECK %s (%d problems)\n", bad ? "FAILED" : "OK", bad);
	return bad ? 1 : 0;
}
