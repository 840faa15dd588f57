/* test_inspector.c - what ironic-inspector's callback is sent (collect/inspector_data.h): the
 * typed inventory of a recorded QEMU machine (tests/fixtures/sysroot-qemu, its README.md) in
 * ironic-python-agent's inventory format, the root disk the agent would pick, unknowns as
 * null, the extra data a rule reads; the inspector's answer; ipa-inspection-callback-url= and
 * ironic_node= on the kernel command line. */
#include "check.h"
#include "collect/inspector.h"
#include "collect/inspector_data.h"
#include "core/config.h"
#include "hw/hw.h"
#include "hw/inventory.h"
#include "json_get.h"
#include "report/doc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT FIXTURES "/sysroot-qemu"

static json_object *find(json_object *arr, const char *key, const char *value)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);

		if (s(o, key) && strcmp(s(o, key), value) == 0)
			return o;
	}
	return NULL;
}

static bool is_null(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) && v == NULL;
}

/* The fixture's machine, its stick sdd left out, booted from eth1 with an address. */
static void test_qemu_inventory(const struct ps_inventory *inv)
{
	struct ps_inspector_port port = {"52:54:00:50:00:01", "eth1", "198.18.0.61"};
	json_object *o = ps_inspector_inventory(inv, &port), *disks, *ifs, *d, *i;

	/* disks: every drive but the stick, the agent's names and sizes (lsblk in the README) */
	disks = get(o, "disks");
	CHECK_INT(json_object_array_length(disks), 5);
	CHECK(!find(disks, "name", "/dev/sdd"));
	d = find(disks, "name", "/dev/sda");
	CHECK_STR(s(d, "model"), "WDC WD20EZRZ-00Z5HB0");
	CHECK_STR(s(d, "serial"), "WD-WCC4M0XXXXXX");
	CHECK_STR(s(d, "wwn"), "0x50014ee2b5d4a3c1");
	CHECK_INT(n(d, "size"), 67108864);
	CHECK_INT(b(d, "rotational"), 1);
	/* QEMU's default ide-hd reports no rotation rate: unknown, not "rotational" */
	d = find(disks, "name", "/dev/sdb");
	CHECK_STR(s(d, "serial"), "PS-SATA-0002");
	CHECK(is_null(d, "rotational") && is_null(d, "wwn") && is_null(d, "hctl"));
	d = find(disks, "name", "/dev/sdc");
	CHECK_STR(s(d, "vendor"), "SEAGATE");
	CHECK(find(disks, "serial", "PSNVME0001") && find(disks, "serial", "PSVIRT0001"));

	/* interfaces: every port with its MAC and PCI ids; an address only where one was given */
	ifs = get(o, "interfaces");
	CHECK_INT(json_object_array_length(ifs), 3);
	i = find(ifs, "name", "eth1");
	CHECK_STR(s(i, "mac_address"), "52:54:00:50:00:01");
	CHECK_STR(s(i, "ipv4_address"), "198.18.0.61");
	CHECK_STR(s(i, "vendor"), "0x8086");
	CHECK_STR(s(i, "product"), "0x10d3");
	CHECK_INT(b(i, "has_carrier"), 1);
	i = find(ifs, "name", "eth0");
	CHECK_STR(s(i, "mac_address"), "52:54:00:50:00:03");
	CHECK_STR(s(i, "vendor"), "0x1af4");
	CHECK(is_null(i, "ipv4_address") && is_null(i, "lldp"));
	CHECK_STR(s(find(ifs, "name", "eth2"), "mac_address"), "52:54:00:50:00:02");

	/* the rest: QEMU's 2 CPUs and its DIMM, DMI, the boot */
	CHECK_INT(n(get(o, "cpu"), "count"), 2);
	CHECK_STR(s(get(o, "cpu"), "architecture"), "x86_64");
	/* /proc/cpuinfo's flags of the recorded guest, as words */
	{
		json_object *flags = get(get(o, "cpu"), "flags");
		bool hv = false, fpu = false;

		for (size_t k = 0; k < json_object_array_length(flags); k++) {
			const char *f = json_object_get_string(json_object_array_get_idx(flags, k));

			hv = hv || strcmp(f, "hypervisor") == 0;
			fpu = fpu || strcmp(f, "fpu") == 0;
			CHECK(f[0] && !strchr(f, ' '));
		}
		CHECK(hv && fpu);
	}
	CHECK_INT(n(get(o, "memory"), "physical_mb"),
		  inv->memory.dimms[0].d.size_bytes / (1024 * 1024));
	CHECK_INT(n(get(o, "memory"), "total"), inv->memory.total_bytes);
	CHECK_STR(s(get(o, "system_vendor"), "manufacturer"), "QEMU");
	CHECK_STR(s(get(o, "system_vendor"), "product_name"), inv->machine.product);
	CHECK_STR(s(get(o, "boot"), "pxe_interface"), "52:54:00:50:00:01");
	/* the recorded tree has no /sys/firmware: the boot mode is not known, so null */
	CHECK_STR(inv->boot.firmware, "");
	CHECK(is_null(get(o, "boot"), "current_boot_mode"));
	CHECK(is_null(o, "bmc_address") && is_null(o, "hostname"));
	json_object_put(o);

	/* the root disk: none of these is 4 GiB (the agent's floor) */
	CHECK(ps_inspector_root_disk(inv) == NULL);
}

static struct ps_drive drive(const char *name, int64_t size)
{
	struct ps_drive d;

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.path, sizeof(d.path), "/dev/%s", name);
	d.size_bytes = size;
	d.rotational = PS_TRI_UNKNOWN;
	return d;
}

/* The agent's choice: the smallest disk of 4 GiB or more, by name among equals, never the
 * stick; a drive of unknown size is none. */
static void test_root_disk(void)
{
	struct ps_drive drives[] = {
	    drive("sda", 3LL << 30), drive("sdb", 8LL << 30), drive("sdd", 5LL << 30),
	    drive("sdc", 5LL << 30), drive("sde", 4LL << 30), drive("sdf", -1),
	};
	struct ps_inventory inv;

	memset(&inv, 0, sizeof(inv));
	inv.drives = drives;
	inv.n_drives = 6;
	drives[4].boot_device = true; /* the stick: 4 GiB, the smallest that is large enough */
	CHECK_STR(ps_inspector_root_disk(&inv)->name, "sdc");
	drives[4].boot_device = false;
	CHECK_STR(ps_inspector_root_disk(&inv)->name, "sde");
	snprintf(inv.boot_disk, sizeof(inv.boot_disk), "sde"); /* named as the boot disk */
	CHECK_STR(ps_inspector_root_disk(&inv)->name, "sdc");
	inv.n_drives = 1;
	CHECK(ps_inspector_root_disk(&inv) == NULL);
}

/* A machine that tells nothing: null everywhere, never 0 or "". */
static void test_unknowns(void)
{
	struct ps_dimm_slot slot;
	struct ps_inventory inv;
	json_object *o, *cpu, *mem, *vendor;

	memset(&inv, 0, sizeof(inv));
	inv.machine.cpu_logical = PS_UNKNOWN;
	inv.machine.memory_bytes = PS_UNKNOWN;
	inv.memory.total_bytes = PS_UNKNOWN;
	memset(&slot, 0, sizeof(slot));
	slot.d.populated = true; /* a DIMM of unknown size: the sum is unknown */
	inv.memory.dimms = &slot;
	inv.memory.n_dimms = 1;
	o = ps_inspector_data(&inv, NULL, NULL);
	cpu = get(get(o, "inventory"), "cpu");
	mem = get(get(o, "inventory"), "memory");
	vendor = get(get(o, "inventory"), "system_vendor");
	CHECK(is_null(cpu, "count") && is_null(cpu, "model_name") && is_null(cpu, "frequency"));
	CHECK(is_null(cpu, "flags")); /* no flags line: unknown, not "none" */
	CHECK(is_null(mem, "total") && is_null(mem, "physical_mb"));
	CHECK(is_null(vendor, "manufacturer") && is_null(vendor, "serial_number"));
	CHECK(is_null(get(get(o, "inventory"), "boot"), "current_boot_mode"));
	CHECK(is_null(get(get(o, "inventory"), "boot"), "pxe_interface"));
	CHECK(is_null(o, "root_disk") && is_null(o, "boot_interface") && is_null(o, "error"));
	CHECK_INT(json_object_array_length(get(get(o, "inventory"), "disks")), 0);
	CHECK_STR(s(json_object_array_get_idx(get(get(o, "configuration"), "managers"), 0), "name"),
		  "probestick");
	json_object_put(o);
}

static const char report_text[] =
    "{\"schema_version\": 2, \"plan\": \"quick\", \"complete\": true, \"machine_id\": \"m1\","
    " \"steps\": ["
    "  {\"name\": \"smart\", \"status\": \"pass\", \"findings\": [], \"verdicts\": ["
    "    {\"kind\": \"drive\", \"device\": \"drive:sn:QEMU_HARDDISK:PS-SATA-0002\","
    "     \"subject\": \"sdb\", \"status\": \"pass\", \"rule\": \"smart.healthy\","
    "     \"message\": \"healthy\"}]},"
    "  {\"name\": \"disk_read\", \"status\": \"fail\", \"findings\": ["
    "    {\"severity\": \"fail\", \"rule\": \"disk_read.read_error\", \"kind\": \"drive\","
    "     \"device\": \"drive:sn:QEMU_HARDDISK:PS-SATA-0002\", \"subject\": \"sdb\","
    "     \"message\": \"read error at LBA 8192-10239\", \"value\": 2048, \"limit\": 0,"
    "     \"unit\": \"sectors\"},"
    "    {\"severity\": \"info\", \"rule\": \"disk_read.note\", \"message\": \"info\"}],"
    "   \"verdicts\": ["
    "    {\"kind\": \"drive\", \"device\": \"drive:sn:QEMU_HARDDISK:PS-SATA-0002\","
    "     \"subject\": \"sdb\", \"status\": \"fail\", \"rule\": \"disk_read.read_error\","
    "     \"message\": \"read error at LBA 8192-10239\", \"value\": 2048, \"limit\": 0,"
    "     \"unit\": \"sectors\"},"
    "    {\"kind\": \"drive\", \"device\": \"drive:wwn:0x50014ee2b5d4a3c1\","
    "     \"subject\": \"sda\", \"status\": \"pass\", \"rule\": \"disk_read.measured\","
    "     \"message\": \"read 200 MB/s\"}]},"
    "  {\"name\": \"nic_link\", \"status\": \"warn\", \"findings\": [], \"verdicts\": ["
    "    {\"kind\": \"nic\", \"device\": \"nic:52:54:00:50:00:01\", \"subject\": \"eth1\","
    "     \"status\": \"warn\", \"rule\": \"nic_link.below_partner\", \"message\": \"slow\"}]}"
    "]}";

/* The extra data: the worst drive with the device as a person finds it, the rule, value and
 * limit; every verdict; warn and fail findings only; each step. */
static void test_extra(const struct ps_inventory *inv)
{
	json_object *rep = json_tokener_parse(report_text), *o, *w;
	struct ps_doc *doc = ps_doc_build(rep, NULL);
	struct ps_inspector_run run = {"m1/20261206T000000Z-quick",
				       "https://c/fleet/m1/20261206T000000Z-quick/"};
	const char *reason;

	CHECK(doc != NULL);
	o = ps_inspector_extra(doc, inv, &run);
	CHECK_STR(s(o, "verdict"), "fail");
	CHECK_STR(s(o, "plan"), "quick");
	CHECK_STR(s(o, "run"), run.path);
	CHECK_STR(s(o, "report_url"), run.report_url);
	CHECK_INT(n(get(o, "counts"), "fail"), 1);
	CHECK_INT(n(get(o, "counts"), "warn"), 1);
	CHECK_INT(n(get(o, "counts"), "pass"), 1);
	w = get(get(o, "worst"), "drive");
	CHECK_STR(s(w, "status"), "fail");
	CHECK_STR(s(w, "rule"), "disk_read.read_error");
	CHECK_STR(s(w, "step"), "disk_read");
	CHECK_STR(s(w, "described"), "QEMU HARDDISK, serial PS-SATA-0002");
	reason = s(w, "reason");
	CHECK_STR(reason,
		  "probestick: drive sdb (QEMU HARDDISK, serial PS-SATA-0002) FAIL: "
		  "disk_read.read_error = 2048 sectors (limit 0): read error at LBA 8192-10239");
	w = get(get(o, "worst"), "nic");
	CHECK_STR(s(w, "status"), "warn");
	CHECK_STR(s(w, "described"), "MAC 52:54:00:50:00:01, slot 0000:05:00.0");
	CHECK(is_null(get(o, "worst"), "dimm"));
	CHECK_INT(json_object_array_length(get(o, "verdicts")), 3);
	CHECK_INT(json_object_array_length(get(o, "findings")), 1);
	CHECK_INT(json_object_array_length(get(o, "steps")), 3);
	json_object_put(o);
	ps_doc_free(doc);
	json_object_put(rep);
}

/* Only passes: the verdict is pass; only untested: untested, never pass. */
static void test_extra_verdicts(const struct ps_inventory *inv)
{
	static const char pass_only[] =
	    "{\"schema_version\": 2, \"plan\": \"quick\", \"complete\": true, \"steps\": ["
	    "{\"name\": \"smart\", \"status\": \"pass\", \"verdicts\": [{\"kind\": \"drive\","
	    " \"device\": \"d1\", \"subject\": \"sda\", \"status\": \"pass\", \"rule\": \"r\"}]}]}";
	static const char untested_only[] =
	    "{\"schema_version\": 2, \"plan\": \"quick\", \"complete\": true, \"steps\": ["
	    "{\"name\": \"smart\", \"status\": \"pass\", \"verdicts\": [{\"kind\": \"drive\","
	    " \"device\": \"d1\", \"subject\": \"sda\", \"status\": \"untested\","
	    " \"rule\": \"smart.not_tested\", \"message\": \"no SMART\"}]}]}";
	const char *texts[] = {pass_only, untested_only}, *want[] = {"pass", "untested"};

	for (int i = 0; i < 2; i++) {
		json_object *rep = json_tokener_parse(texts[i]), *o;
		struct ps_doc *doc = ps_doc_build(rep, NULL);

		o = ps_inspector_extra(doc, inv, NULL);
		CHECK_STR(s(o, "verdict"), want[i]);
		CHECK_STR(s(get(get(o, "worst"), "drive"), "status"), want[i]);
		CHECK(is_null(o, "run"));
		json_object_put(o);
		ps_doc_free(doc);
		json_object_put(rep);
	}
}

static void test_reply(void)
{
	char node[64], msg[64];
	static const char ok[] = "{\"uuid\": \"8878212a-94fd-4e0d-8344-d87e7a718209\"}";
	static const char bad_uuid[] = "{\"uuid\": \"8878212a-94fd-4e0d-8344-d87e7a71820\"}";
	static const char err[] =
	    "{\"error\": {\"message\": \"Could not find a node\\u0001 for attributes\"}}";
	static const char old[] = "{\"error\": \"plain\"}";

	CHECK_INT(ps_inspector_reply(ok, strlen(ok), node, sizeof(node), msg, sizeof(msg)), 0);
	CHECK_STR(node, "8878212a-94fd-4e0d-8344-d87e7a718209");
	CHECK_STR(msg, "");
	CHECK_INT(
	    ps_inspector_reply(bad_uuid, strlen(bad_uuid), node, sizeof(node), msg, sizeof(msg)),
	    0);
	CHECK_STR(node, "");
	CHECK_INT(ps_inspector_reply(err, strlen(err), node, sizeof(node), msg, sizeof(msg)), 0);
	CHECK_STR(msg, "Could not find a node\\x01 for attributes");
	CHECK_INT(ps_inspector_reply(old, strlen(old), node, sizeof(node), msg, sizeof(msg)), 0);
	CHECK_STR(msg, "plain");
	CHECK_INT(ps_inspector_reply("[1]", 3, node, sizeof(node), msg, sizeof(msg)), -EINVAL);
	CHECK_INT(ps_inspector_reply("<html>", 6, node, sizeof(node), msg, sizeof(msg)), -EINVAL);
	CHECK_INT(ps_inspector_reply(ok, 10, node, sizeof(node), msg, sizeof(msg)), -EINVAL);
	CHECK_STR(node, "");
	/* the node's UUID does not fit: none rather than a cut one */
	CHECK_INT(ps_inspector_reply(ok, strlen(ok), node, 20, msg, sizeof(msg)), 0);
	CHECK_STR(node, "");
}

/* Ironic's kernel command lines: an inspection runs unattended unless told otherwise. */
static void test_cmdline(void)
{
	struct ps_config cfg;
	json_object *w = json_object_new_array();

	ps_config_defaults(&cfg);
	snprintf(cfg.plan, sizeof(cfg.plan), "menu");
	ps_config_parse_cmdline(&cfg,
				"text console=ttyS0,115200 "
				"ipa-inspection-callback-url=http://198.18.0.1:5050/v1/continue "
				"BOOTIF=52:54:00:1c:00:01 initrd=deploy_ramdisk",
				w);
	CHECK_STR(cfg.inspect, "http://198.18.0.1:5050/v1/continue");
	CHECK_STR(cfg.plan, "quick");
	CHECK_STR(cfg.then, "poweroff");
	CHECK_INT(json_object_array_length(w), 0);

	ps_config_defaults(&cfg);
	ps_config_parse_cmdline(
	    &cfg,
	    "probestick.plan=full probestick.then=reboot "
	    "ipa-inspection-callback-url=https://inspector.lab:5050/v1/continue",
	    w);
	CHECK_STR(cfg.plan, "full");
	CHECK_STR(cfg.then, "reboot");

	ps_config_defaults(&cfg);
	snprintf(cfg.plan, sizeof(cfg.plan), "menu");
	ps_config_parse_cmdline(&cfg, "probestick.inspect=http://198.18.0.1:5050/v1/continue", w);
	CHECK_STR(cfg.plan, "quick");
	CHECK_STR(cfg.then, "poweroff");

	ps_config_defaults(&cfg);
	ps_config_parse_cmdline(
	    &cfg,
	    "ipa-inspection-callback-url=ftp://x/ probestick.ironic_node="
	    "8878212a-94fd-4e0d-8344-d87e7a718209 probestick.ironic_node=node-1",
	    w);
	CHECK_STR(cfg.inspect, "");
	CHECK_STR(cfg.ironic_node, "8878212a-94fd-4e0d-8344-d87e7a718209");
	CHECK_INT(json_object_array_length(w), 2); /* ftp://, and a name that is no UUID */
	json_object_put(w);
}

int main(void)
{
	struct ps_inventory inv;
	struct ps_inventory_opts o = {.root = ROOT, .module_fd = -1};
	char stick[32];

	CHECK_INT(ps_boot_disk(ROOT, "/stick", stick, sizeof(stick)), 0);
	o.boot_disk = stick;
	CHECK_INT(ps_inventory_take(&inv, &o), 0);
	test_qemu_inventory(&inv);
	test_root_disk();
	test_unknowns();
	test_extra(&inv);
	test_extra_verdicts(&inv);
	test_reply();
	test_cmdline();
	ps_inventory_free(&inv);
	return check_done("test_inspector");
}
