/*
 * test_mem_engine.c - the memory engine on this host: the four STREAM
 * kernels over small arrays (every pass counted, the arrays verified, the
 * best the highest pass, a stop honoured), the latency ring (one value per
 * size, higher past the caches than inside L1), the cache sizes and free
 * memory as sysfs and /proc give them (a temp tree).
 */
#include "check.h"
#include "tree.h"

#include "engines/mem/mem.h"

#include <errno.h>
#include <math.h>

static int stops;

static bool stop_after(void *arg)
{
	return ++stops > *(int *)arg;
}

static void test_stream(void)
{
	struct ps_mem_opts o = {.array_bytes = 4 << 20, .reps = 4, .time_budget_s = 10};
	struct ps_mem_result r;
	int limit = 2;

	CHECK_INT(ps_mem_stream(&o, &r), 0);
	CHECK(r.threads >= 1 && r.threads == ps_mem_cpus());
	CHECK_INT(r.array_bytes, 4 << 20);
	CHECK(r.verified);
	CHECK(!r.aborted);
	for (int k = 0; k < PS_MEM_KERNELS; k++) {
		double best = 0;

		CHECK_INT(r.k[k].n, 4);
		for (unsigned int i = 0; i < r.k[k].n; i++) {
			CHECK(r.k[k].runs_gbps[i] > 0 && isfinite(r.k[k].runs_gbps[i]));
			best = fmax(best, r.k[k].runs_gbps[i]);
		}
		CHECK(r.k[k].best_gbps == best);
	}
	CHECK_INT(ps_mem_kernel_bytes(PS_MEM_COPY), 16);
	CHECK_INT(ps_mem_kernel_bytes(PS_MEM_TRIAD), 24);
	CHECK_STR(ps_mem_kernel_name(PS_MEM_TRIAD), "triad");

	/* more threads than CPUs, and a stop after two passes */
	o.threads = ps_mem_cpus() + 1;
	o.should_stop = stop_after;
	o.stop_arg = &limit;
	stops = 0;
	CHECK_INT(ps_mem_stream(&o, &r), 0);
	CHECK(r.aborted);
	CHECK(!r.verified);
	CHECK_INT(r.threads, ps_mem_cpus() + 1);
	CHECK_INT(r.k[PS_MEM_COPY].n, 2);
	CHECK_INT(r.k[PS_MEM_TRIAD].n, 0);

	o = (struct ps_mem_opts){.array_bytes = 100, .reps = 1};
	CHECK_INT(ps_mem_stream(&o, &r), -EINVAL);
}

static void test_latency(void)
{
	size_t sizes[] = {4096, 16384, 64 << 20};
	struct ps_mem_lat_opts o = {.target_s = 0.02};
	double ns[3];

	CHECK_INT(ps_mem_latency(sizes, 3, &o, ns), 0);
	for (int i = 0; i < 3; i++)
		CHECK(ns[i] > 0 && isfinite(ns[i]));
	/* 64 MiB of random lines is far out of any cache of a 4 KiB ring */
	CHECK(ns[2] > 2 * ns[0]);
}

static void test_caches(void)
{
	char *root = tree_new("test_mem_engine");
	struct ps_mem_caches c;
	static const char *const idx[][4] = {
	    {"1", "Data", "48K", "0-1"},
	    {"1", "Instruction", "32K", "0-1"},
	    {"2", "Unified", "1280K", "0-1"},
	    {"3", "Unified", "30M", "0-3"},
	};

	CHECK_INT(ps_mem_caches(root, &c), -ENOENT);
	for (int cpu = 0; cpu < 4; cpu++)
		for (int i = 0; i < 4; i++) {
			char p[128];

			snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cache/index%d/level",
				 cpu, i);
			tree_printf(root, p, "%s\n", idx[i][0]);
			snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cache/index%d/type",
				 cpu, i);
			tree_printf(root, p, "%s\n", idx[i][1]);
			snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cache/index%d/size",
				 cpu, i);
			tree_printf(root, p, "%s\n", idx[i][2]);
			snprintf(p, sizeof(p),
				 "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu,
				 i);
			/* two sockets of two CPUs each: two L3s */
			tree_printf(root, p, "%s\n",
				    i == 3 ? (cpu < 2 ? "0-1" : "2-3") : idx[i][3]);
		}
	CHECK_INT(ps_mem_caches(root, &c), 0);
	CHECK_INT(c.l1d, 48 << 10);
	CHECK_INT(c.l2, 1280 << 10);
	CHECK_INT(c.llc, 30 << 20);
	CHECK_INT(c.llc_level, 3);
	CHECK_INT(c.llc_total, 60 << 20);
	CHECK_INT(ps_mem_parse_size("64K"), 65536);
	CHECK_INT(ps_mem_parse_size("2M"), 2 << 20);
	CHECK_INT(ps_mem_parse_size("fast"), 0);

	CHECK(ps_mem_available(root) < 0);
	tree_write(root, "/proc/meminfo",
		   "MemTotal:         262144 kB\nMemFree:           90000 kB\n"
		   "MemAvailable:     120000 kB\n",
		   0);
	CHECK_INT(ps_mem_available(root), 120000LL * 1024);
	tree_write(root, "/proc/meminfo", "MemTotal: 262144 kB\nMemFree: 90000 kB\n", 0);
	CHECK_INT(ps_mem_available(root), 90000LL * 1024);
	tree_done(root);
}

int main(void)
{
	test_stream();
	test_latency();
	test_caches();
	return check_done("test_mem_engine");
}
