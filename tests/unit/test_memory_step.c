/*
 * test_memory_step.c - the memory step on a temp root (its caches and free
 * memory) with a made-up inventory: the arrays' size from the last-level
 * cache and free memory, the kernels and latency sizes in data, and the
 * effective-channels rule: a mismatch names the populated slots, enough
 * bandwidth is ok, the controller's channels win over the slot names, a
 * channel is as wide as its DIMMs' data (LPDDR's 16 bits), a ROM listed as
 * a memory device is no DIMM, a virtual machine and unknown channels,
 * widths or speeds are not judged, too little memory skips the step.
 */
#include "check.h"
#include "json_get.h"
#include "step_harness.h"
#include "tree.h"

#include "../../userland/steps/memory.c"

static char *root;

static void machine_tree(long long avail_kb)
{
	static const char *const idx[][3] = {
	    {"1", "Data", "32K"}, {"2", "Unified", "256K"}, {"3", "Unified", "1024K"}};

	for (int i = 0; i < 3; i++) {
		char p[128];

		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		tree_printf(root, p, "%s\n", idx[i][0]);
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		tree_printf(root, p, "%s\n", idx[i][1]);
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		tree_printf(root, p, "%s\n", idx[i][2]);
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list",
			 i);
		tree_write(root, p, "0\n", 0);
	}
	tree_printf(root, "/proc/meminfo", "MemTotal: 262144 kB\nMemAvailable: %lld kB\n",
		    avail_kb);
}

static struct ps_dimm_slot slots[4];

/* Four slots: A0 and B0 populated at mts, A1 and B1 empty. */
static void dimms(struct harness *h, int mts)
{
	static const char *const loc[4] = {"ChannelA-DIMM0", "ChannelA-DIMM1", "ChannelB-DIMM0",
					   "ChannelB-DIMM1"};

	memset(slots, 0, sizeof(slots));
	for (int i = 0; i < 4; i++) {
		struct ps_dimm *d = &slots[i].d;

		snprintf(d->locator, sizeof(d->locator), "%s", loc[i]);
		snprintf(slots[i].channel, sizeof(slots[i].channel), "%c", loc[i][7]);
		slots[i].ram = true;
		d->type = "DDR4";
		d->data_width = 64;
		d->populated = i % 2 == 0;
		d->speed_mts = d->populated ? 3200 : -1;
		d->configured_speed_mts = d->populated ? mts : -1;
	}
	h->inv.memory.dimms = slots;
	h->inv.memory.n_dimms = 4;
	h->inv.memory.channels_smbios = 2;
	h->inv.memory.channels_imc = PS_UNKNOWN;
	h->inv.memory.channels_present = PS_UNKNOWN;
	h->inv.taken = true;
}

/* The first finding of a rule (the kernels may add an unstable_bandwidth before it). */
static json_object *finding(struct harness *h, const char *rule)
{
	for (size_t i = 0; i < json_object_array_length(h->run.findings); i++) {
		json_object *f = json_object_array_get_idx(h->run.findings, i);

		if (strcmp(s(f, "rule"), rule) == 0)
			return f;
	}
	return NULL;
}

/* The message of the first finding of a rule, "" without one. */
static const char *message_of(struct harness *h, const char *rule)
{
	const char *m = s(finding(h, rule), "message");

	return m ? m : "";
}

static json_object *run_step(struct harness *h)
{
	harness_run(h);
	return get(h->data, "channels");
}

static void detach(struct harness *h)
{
	h->inv.memory.dimms = NULL; /* static: not the inventory's to free */
	h->inv.memory.n_dimms = 0;
	harness_done(h);
}

static void test_mismatch(void)
{
	struct harness h;
	json_object *ch, *k, *f;

	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 100000); /* 800 GB/s a channel: no machine's triad reaches two of them */
	ch = run_step(&h);
	CHECK_INT(h.status, PS_PASS);
	CHECK_STR(s(h.data, "plan"), "quick");
	CHECK_INT(n(h.data, "llc_bytes"), 1 << 20);
	CHECK_INT(n(h.data, "array_bytes"), 4 << 20); /* 4 x LLC, within half the free memory */
	CHECK(b(h.data, "size_limited") == 0);
	CHECK(b(h.data, "verified") == 1);
	k = get(h.data, "kernels");
	CHECK_INT(json_object_array_length(k), 4);
	CHECK_STR(s(json_object_array_get_idx(k, 3), "kernel"), "triad");
	CHECK(d(h.data, "triad_gbps") > 0);
	CHECK(d(h.data, "triad_gbps") == d(json_object_array_get_idx(k, 3), "max_gbps"));
	/* every kernel a figure: at least the plan's passes or two within the budget */
	CHECK(json_object_array_length(get(json_object_array_get_idx(k, 0), "runs_gbps")) >= 2);
	CHECK(get(json_object_array_get_idx(k, 0), "noisy") != NULL);
	CHECK_INT(json_object_array_length(get(h.data, "latency")), 11); /* 4 KiB .. 4 MiB */
	CHECK_STR(s(json_object_array_get_idx(get(h.data, "latency"), 0), "level"), "L1");
	CHECK_STR(s(json_object_array_get_idx(get(h.data, "latency"), 10), "level"), "memory");
	CHECK_INT(n(ch, "configured_mts"), 100000);
	CHECK_INT(n(ch, "channel_width_bits"), 64);
	CHECK(d(ch, "channel_peak_gbps") == 800);
	CHECK_INT(n(ch, "populated"), 2);
	CHECK_STR(s(ch, "populated_source"), "smbios");
	CHECK_STR(s(ch, "slots"), "ChannelA-DIMM0, ChannelB-DIMM0");
	CHECK(b(ch, "judged") == 1);
	CHECK_STR(s(ch, "verdict"), "mismatch");
	CHECK_INT(harness_count(&h, "memory.channels_mismatch", "warn"), 1);
	f = finding(&h, "memory.channels_mismatch");
	CHECK(f && strstr(s(f, "message"), "ChannelA-DIMM0, ChannelB-DIMM0") != NULL);
	CHECK(d(f, "limit") == 1.0);
	CHECK_STR(s(f, "unit"), "channels");
	detach(&h);
}

static void test_ok_and_imc(void)
{
	struct harness h;
	json_object *ch;

	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 1); /* 8 MB/s a channel: any triad is thousands of channels' worth */
	h.inv.memory.channels_imc = 2;
	ch = run_step(&h);
	CHECK_STR(s(ch, "verdict"), "ok");
	CHECK_STR(s(ch, "populated_source"), "imc");
	CHECK_INT(harness_count(&h, NULL, "warn"), 0);
	CHECK_INT(harness_count(&h, "memory.channels_names_differ", NULL), 0); /* both say 2 */
	detach(&h);

	/* one populated channel: nothing to fall back to, never a mismatch */
	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 100000);
	h.inv.memory.channels_imc = 1;
	ch = run_step(&h);
	CHECK_STR(s(ch, "verdict"), "ok");
	CHECK_INT(harness_count(&h, NULL, "warn"), 0);
	detach(&h);

	/* the controller counts four channels where the slot names say two: it decides */
	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 100000);
	h.inv.memory.channels_imc = 4;
	ch = run_step(&h);
	CHECK_INT(n(ch, "populated"), 4);
	CHECK_INT(harness_count(&h, "memory.channels_names_differ", "info"), 1);
	CHECK(strstr(message_of(&h, "memory.channels_mismatch"), "with 4 channels populated") !=
	      NULL);
	detach(&h);
}

/* Intel LPDDR4x (Controller0-ChannelA..D): 16-bit channels, and a ROM among the devices. */
static void test_widths_and_rom(void)
{
	struct harness h;
	json_object *ch;

	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 100000);
	for (int i = 0; i < 4; i++) {
		slots[i].d.type = "LPDDR4";
		slots[i].d.data_width = 16;
	}
	ch = run_step(&h);
	CHECK_INT(n(ch, "channel_width_bits"), 16);
	CHECK(d(ch, "channel_peak_gbps") == 200); /* 100000 MT/s x 2 bytes */
	CHECK(strstr(message_of(&h, "memory.channels_mismatch"), "16 bits wide") != NULL);
	detach(&h);

	/* LPDDR without a data width: a channel's bandwidth is not known, nothing judged */
	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 3200);
	for (int i = 0; i < 4; i++) {
		slots[i].d.type = "LPDDR5";
		slots[i].d.data_width = -1;
	}
	ch = run_step(&h);
	CHECK(get(ch, "channel_width_bits") == NULL);
	CHECK(get(ch, "effective_channels") == NULL);
	CHECK(b(ch, "judged") == 0);
	CHECK(strstr(s(ch, "why"), "width") != NULL);
	detach(&h);

	/* HP's SYSTEM ROM (populated, 33 MT/s) is neither a slot of the message nor the speed */
	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 3200);
	snprintf(slots[1].d.locator, sizeof(slots[1].d.locator), "SYSTEM ROM");
	slots[1].ram = false;
	slots[1].d.populated = true;
	slots[1].d.configured_speed_mts = 33;
	ch = run_step(&h);
	CHECK_INT(n(ch, "configured_mts"), 3200);
	CHECK_STR(s(ch, "slots"), "ChannelA-DIMM0, ChannelB-DIMM0");
	detach(&h);
}

static void test_not_judged(void)
{
	struct harness h;
	json_object *ch;

	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 100000);
	h.inv.machine.cpu_flags_known = true;
	h.inv.machine.under_hypervisor = true;
	ch = run_step(&h);
	CHECK(b(ch, "judged") == 0);
	CHECK(get(ch, "verdict") == NULL);
	CHECK(strstr(s(ch, "why"), "virtual machine") != NULL);
	CHECK_INT(harness_count(&h, "memory.channels_not_judged", "info"), 1);
	CHECK_INT(harness_count(&h, NULL, "warn"), 0);
	detach(&h);

	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 3200);
	h.inv.memory.channels_smbios = PS_UNKNOWN;
	ch = run_step(&h);
	CHECK(get(ch, "populated") == NULL);
	CHECK_INT(harness_count(&h, "memory.channels_unknown", "info"), 1);
	detach(&h);

	/* no speed anywhere: nothing to compare with */
	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, -1);
	slots[0].d.speed_mts = slots[2].d.speed_mts = -1;
	ch = run_step(&h);
	CHECK(get(ch, "configured_mts") == NULL);
	CHECK(get(ch, "effective_channels") == NULL);
	CHECK(strstr(s(ch, "why"), "speed") != NULL);
	detach(&h);

	/* no DIMM at all (a virtual machine's empty table): no width either */
	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 3200);
	h.inv.memory.n_dimms = 0;
	ch = run_step(&h);
	CHECK(get(ch, "channel_width_bits") == NULL);
	CHECK(get(ch, "configured_mts") == NULL);
	detach(&h);

	/* only the rated speed known: used, and said so */
	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, -1);
	ch = run_step(&h);
	CHECK_INT(n(ch, "configured_mts"), 3200);
	CHECK_STR(s(ch, "speed_source"), "rated");
	detach(&h);
}

static void test_small(void)
{
	struct harness h;

	machine_tree(20 * 1024); /* 20 MiB free: 10 MiB for three arrays is under 3 x 4 MiB */
	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 3200);
	harness_run(&h);
	CHECK_INT(h.status, PS_SKIPPED);
	CHECK(strstr(h.run.reason, "MiB of memory are free") != NULL);
	detach(&h);

	machine_tree(30 * 1024); /* 15 MiB for three arrays: the 4 MiB that 4 x LLC asks fit */
	harness_init(&h, &memory_ops, root, PS_PLAN_QUICK);
	dimms(&h, 3200);
	harness_run(&h);
	CHECK_INT(h.status, PS_PASS);
	CHECK_INT(n(h.data, "array_bytes"), 4 << 20);
	CHECK(b(h.data, "size_limited") == 0);
	detach(&h);
}

int main(void)
{
	root = tree_new("test_memory_step");
	machine_tree(48 * 1024);
	test_mismatch();
	test_ok_and_imc();
	test_widths_and_rom();
	test_not_judged();
	test_small();
	tree_done(root);
	return check_done("test_memory_step");
}
