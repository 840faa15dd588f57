/* test_procstat.c - /proc/stat parser against recorded and hand-made texts. */
#include "check.h"
#include "proc_fixture.h"
#include "decode/proc.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>

static void check_cpu(const struct ps_stat_cpu *c, int cpu, unsigned int nfields,
		      const uint64_t *want)
{
	CHECK_INT(c->cpu, cpu);
	CHECK_INT(c->nfields, nfields);
	for (int f = 0; f < PS_ST_NFIELDS; f++)
		CHECK_INT(c->v[f], want[f]);
}

static void test_host(void)
{
	struct ps_stat st = {0};
	size_t len;
	char *text = fixture("host-2cpu/0/proc/stat", &len);
	static const uint64_t all[] = {53233, 0, 17909, 74533, 1649, 0, 274, 851, 0, 0};
	static const uint64_t cpu0[] = {26147, 0, 7832, 39629, 177, 0, 20, 392, 0, 0};
	static const uint64_t cpu1[] = {27085, 0, 10077, 34904, 1472, 0, 254, 458, 0, 0};

	CHECK_INT(ps_stat_parse(text, len, &st), 0);
	CHECK(st.has_all);
	check_cpu(&st.all, -1, 10, all);
	CHECK_INT(st.ncpus, 2);
	check_cpu(&st.cpus[0], 0, 10, cpu0);
	check_cpu(&st.cpus[1], 1, 10, cpu1);
	CHECK(st.has_intr);
	CHECK_INT(st.intr_total, 573864);
	CHECK_INT(st.bad_lines, 0);
	CHECK(!st.truncated);
	/* user..steal, without guest: 53233 + 17909 + 74533 + 1649 + 274 + 851 */
	CHECK_INT(ps_stat_cpu_total(&st.all), 148449);
	ps_stat_free(&st);
	free(text);
}

static void test_box_offline_cpu(void)
{
	struct ps_stat st = {0};
	size_t len;
	char *text = fixture("box-8cpu/1/proc/stat", &len);

	CHECK_INT(ps_stat_parse(text, len, &st), 0);
	CHECK_INT(st.ncpus, 7);
	CHECK_INT(st.cpus[4].cpu, 4);
	CHECK_INT(st.cpus[5].cpu, 6);
	CHECK_INT(st.cpus[6].cpu, 7);
	/* cpu7 = 80000 + 7 * field, plus one interval of user 50 nice 10 idle 40 guest 40 gn 10 */
	CHECK_INT(st.cpus[6].v[PS_ST_USER], 80050);
	CHECK_INT(st.cpus[6].v[PS_ST_GUEST], 80096);
	CHECK_INT(st.cpus[6].v[PS_ST_GUEST_NICE], 80073);
	CHECK_INT(st.intr_total, 5100000);
	ps_stat_free(&st);
	free(text);
}

static void test_malformed(void)
{
	struct ps_stat st = {0};
	size_t len;
	char *text = fixture("malformed/proc/stat", &len);
	static const uint64_t cpu3[] = {1, 2, 3, 4, 0, 0, 0, 0, 0, 0};

	CHECK_INT(ps_stat_parse(text, len, &st), 0);
	CHECK(st.has_all);
	CHECK_INT(st.ncpus, 2);
	CHECK_INT(st.cpus[0].cpu, 0);
	CHECK_INT(st.cpus[0].v[PS_ST_IDLE], 500);
	check_cpu(&st.cpus[1], 3, 4, cpu3);
	/* cpu1 (x), cpu2 (3 fields), cpu4 (overflow), cpuX, cpu5 (11 fields), intr abc */
	CHECK_INT(st.bad_lines, 6);
	CHECK_INT(st.first_bad_line, 3);
	CHECK(!st.has_intr);
	CHECK(!st.truncated);
	ps_stat_free(&st);
	free(text);
}

static void test_truncated(void)
{
	struct ps_stat st = {0};
	size_t len;
	char *text = fixture("truncated/proc/stat", &len);

	CHECK_INT(ps_stat_parse(text, len, &st), 0);
	CHECK(st.truncated);
	CHECK_INT(st.ncpus, 1); /* "cpu1 50 0 2" was cut: not taken as 3 fields */
	CHECK_INT(st.bad_lines, 0);
	CHECK(st.has_intr);
	CHECK_INT(st.intr_total, 777);
	ps_stat_free(&st);
	free(text);
}

static void test_edges(void)
{
	struct ps_stat st = {0};
	const char *two = "cpu0 1 2 3 4\ncpu1 5 6 7 8\n";
	const char *t4 = "cpu0 10 20 30 40 50 60 70 80 90 100\n";

	CHECK_INT(ps_stat_parse("", 0, &st), -ENODATA);
	CHECK_INT(ps_stat_parse("ctxt 5\nbtime 7\n", 14, &st), -ENODATA);
	/* A buffer that is not NUL-terminated and ends inside cpu1's line. */
	CHECK_INT(ps_stat_parse(two, 20, &st), 0);
	CHECK_INT(st.ncpus, 1);
	CHECK(st.truncated);
	CHECK(!st.has_all);
	CHECK_INT(ps_stat_parse(two, strlen(two), &st), 0);
	CHECK_INT(st.ncpus, 2);
	CHECK_INT(st.cpus[1].v[PS_ST_IDLE], 8);
	CHECK_INT(ps_stat_parse(t4, strlen(t4), &st), 0);
	CHECK_INT(st.ncpus, 1); /* reused struct: the old count is gone */
	CHECK_INT(ps_stat_cpu_total(&st.cpus[0]), 360);
	CHECK_INT(ps_stat_parse("cpu0 1 2 3 4 \r\n", 15, &st), 0);
	CHECK_INT(st.bad_lines, 0);
	CHECK_INT(ps_stat_parse("cpu0 18446744073709551615 0 0 0\n", 32, &st), 0);
	CHECK(st.cpus[0].v[0] == UINT64_MAX);
	CHECK_INT(ps_stat_parse("cpu0 18446744073709551616 0 0 0\n", 32, &st), -ENODATA);
	CHECK_INT(st.bad_lines, 1);
	CHECK_INT(ps_stat_parse("cpu0 1 2 3 4\ncpu1 1 2 3 4x\n", 27, &st), 0);
	CHECK_INT(st.ncpus, 1);
	CHECK_INT(st.first_bad_line, 2);
	/* CPU numbers end at NR_CPUS' limit: a larger one is malformed */
	CHECK_INT(ps_stat_parse("cpu8191 1 2 3 4\ncpu8192 1 2 3 4\n", 32, &st), 0);
	CHECK_INT(st.ncpus, 1);
	CHECK_INT(st.cpus[0].cpu, PS_PROC_CPU_MAX);
	CHECK_INT(st.bad_lines, 1);
	ps_stat_free(&st);
}

int main(void)
{
	test_host();
	test_box_offline_cpu();
	test_malformed();
	test_truncated();
	test_edges();
	return check_done("test_procstat");
}
