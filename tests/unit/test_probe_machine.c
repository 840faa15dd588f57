/* test_probe_machine.c - ps_probe_machine and ps_probe_memory on recorded trees. */
#include "check.h"
#include "json_get.h"
#include "hw/hw.h"

#include <errno.h>

static void test_machine(void)
{
	json_object *m = json_object_new_object();

	CHECK_INT(ps_probe_machine(FIXTURES "/sysroot-workstation", m), 0);
	/* the AMI placeholder UUID and "Default string" serial: the NIC MAC names it */
	CHECK_STR(s(m, "id"), "6805ca123456");
	CHECK_STR(s(m, "vendor"), "To be filled by O.E.M."); /* kept as read */
	CHECK_STR(s(m, "product"), "Z390 AORUS PRO");
	CHECK_STR(s(m, "serial"), "Default string");
	CHECK_STR(s(m, "uuid"), "03000200-0400-0500-0006-000700080009");
	CHECK_STR(s(m, "bios_vendor"), "American Megatrends Inc.");
	CHECK_STR(s(m, "bios_version"), "F12");
	CHECK_STR(s(m, "bios_date"), "11/05/2021");
	CHECK_STR(s(m, "board_vendor"), "Gigabyte Technology Co., Ltd.");
	CHECK_STR(s(m, "board_product"), "Z390 AORUS PRO-CF");
	CHECK_STR(s(m, "cpu_model"), "Intel(R) Core(TM) i7-7700K CPU @ 4.20GHz");
	CHECK_INT(n(m, "cpu_logical"), 8);
	CHECK_INT(n(m, "cpu_cores"), 4);
	CHECK_INT(n(m, "cpu_packages"), 1);
	CHECK_STR(s(m, "microcode"), "0xf0");
	CHECK_INT(n(m, "memory_bytes"), 8029184LL * 1024);
	CHECK_STR(s(m, "kernel_cmdline"), "BOOT_IMAGE=/vmlinuz initrd=/initrd.img console=tty0 "
					  "console=ttyS0,115200 probestick.partuuid=5e1f0c2a-01");
	CHECK_INT(b(m, "under_hypervisor"), 0); /* flags without "hypervisor" */
	json_object_put(m);

	/* garbage cpuinfo, no meminfo, zero UUID, blank serial, no NIC MAC */
	m = json_object_new_object();
	CHECK(ps_probe_machine(FIXTURES "/sysroot-broken", m) < 0);
	CHECK_STR(s(m, "id"), "unknown");
	CHECK(get(m, "vendor") == NULL);
	CHECK(get(m, "serial") == NULL);
	CHECK_STR(s(m, "uuid"), "00000000-0000-0000-0000-000000000000");
	CHECK(get(m, "cpu_model") == NULL);
	CHECK(get(m, "cpu_logical") == NULL);
	CHECK(get(m, "cpu_cores") == NULL);
	CHECK(get(m, "memory_bytes") == NULL);
	CHECK(get(m, "kernel_cmdline") == NULL);
	CHECK(get(m, "under_hypervisor") == NULL); /* no flags line: unknown, not false */
	json_object_put(m);

	/* nothing at all */
	m = json_object_new_object();
	CHECK(ps_probe_machine(FIXTURES "/no-such-tree", m) < 0);
	CHECK_STR(s(m, "id"), "unknown");
	json_object_put(m);
}

static void test_memory(void)
{
	json_object *mem = json_object_new_object(), *dimms, *x;

	CHECK_INT(ps_probe_memory(FIXTURES "/sysroot-workstation", mem), 0);
	CHECK_INT(n(mem, "total_bytes"), 8029184LL * 1024);
	CHECK_INT(n(mem, "slots_total"), 2);
	CHECK_INT(n(mem, "slots_populated"), 1);
	dimms = get(mem, "dimms");
	CHECK_INT(json_object_array_length(dimms), 2);
	x = json_object_array_get_idx(dimms, 0);
	CHECK_STR(s(x, "locator"), "ChannelA-DIMM0");
	CHECK_STR(s(x, "bank"), "BANK 0");
	CHECK_INT(json_object_get_boolean(get(x, "populated")), 1);
	CHECK_INT(n(x, "size_bytes"), 8LL << 30);
	CHECK_STR(s(x, "type"), "DDR4");
	CHECK_STR(s(x, "form_factor"), "DIMM");
	CHECK_INT(n(x, "speed_mts"), 2666);
	CHECK_INT(n(x, "configured_speed_mts"), 2400);
	CHECK_INT(n(x, "rank"), 1);
	CHECK_STR(s(x, "manufacturer"), "Samsung");
	CHECK_STR(s(x, "part_number"), "M378A1K43CB2-CTD");
	CHECK_STR(s(x, "serial"), "12345678");
	CHECK_STR(s(x, "id"), "dimm:ChannelA-DIMM0:12345678");
	x = json_object_array_get_idx(dimms, 1);
	CHECK_STR(s(x, "id"), "dimm:ChannelB-DIMM0"); /* empty slot, "Not Specified" serial */
	CHECK_STR(s(x, "locator"), "ChannelB-DIMM0");
	CHECK_INT(json_object_get_boolean(get(x, "populated")), 0);
	CHECK_INT(n(x, "size_bytes"), 0);
	CHECK(get(x, "type") == NULL);
	CHECK(get(x, "speed_mts") == NULL);
	CHECK(get(x, "rank") == NULL);
	json_object_put(mem);

	/* truncated blobs: the readable one is kept, the step hears the error */
	mem = json_object_new_object();
	CHECK(ps_probe_memory(FIXTURES "/sysroot-broken", mem) < 0);
	CHECK(get(mem, "total_bytes") == NULL);
	CHECK_INT(n(mem, "slots_total"), 1);
	dimms = get(mem, "dimms");
	CHECK_INT(json_object_array_length(dimms), 1);
	x = json_object_array_get_idx(dimms, 0);
	CHECK_STR(s(x, "locator"), "DIMM A");
	CHECK(get(x, "bank") == NULL); /* cut mid-string */
	CHECK_STR(s(x, "type"), "DDR3");
	CHECK_INT(n(x, "rank"), 2);
	json_object_put(mem);

	mem = json_object_new_object();
	CHECK_INT(ps_probe_memory(FIXTURES "/no-such-tree", mem), -ENOENT);
	CHECK(get(mem, "slots_total") == NULL);
	CHECK_INT(json_object_array_length(get(mem, "dimms")), 0);
	json_object_put(mem);
}

int main(void)
{
	test_machine();
	test_memory();
	return check_done("test_probe_machine");
}
