/*
 * test_mce.c - the machine checks of a step from the mce probe's records:
 * each decoded (kmod/mce_decode.h), corrected ones a warn finding,
 * uncorrected ones a fail; without the probe, why not.
 */
#include "check.h"
#include "json_get.h"

#include "record/platform.h"
#include "lib/json.h"

#include "../../kmod/mce_decode.h"

static void test_events(void)
{
	struct probestick_kc_record ev[2];
	json_object *o, *e, *f;

	memset(ev, 0, sizeof(ev));
	/* what QEMU's `mce 0 1 0x9400000000000090 0 0x1234000 0` leaves in bank 1 */
	ev[0].key = 1;
	ev[0].dir = 0;
	ev[0].sum = 0x9400000000000090ULL;
	ev[0].max = 0x1234000;
	ev[0].extra[0] = 1;
	/* the kernel's "CPU 0: Machine Check: 0 Bank 5: be00000000800400" */
	ev[1].key = 5;
	ev[1].dir = 3;
	ev[1].sum = 0xbe00000000800400ULL;
	ev[1].max = 0xdeadbeef;
	ev[1].extra[0] = 2;
	o = ps_mce_json(ev, 2, true, "");
	CHECK(b(o, "available") == 1);
	e = json_object_array_get_idx(get(o, "events"), 0);
	CHECK_INT(n(e, "bank"), 1);
	CHECK_INT(n(e, "cpu"), 0);
	CHECK_STR(s(e, "status"), "9400000000000090");
	CHECK_STR(s(e, "address"), "0000000001234000");
	CHECK(b(e, "uncorrected") == 0);
	CHECK_STR(s(e, "class"), "memory controller");
	CHECK_STR(s(e, "error"), "memory controller read, channel 0");
	CHECK_INT(n(e, "channel"), 0);
	e = json_object_array_get_idx(get(o, "events"), 1);
	CHECK(b(e, "uncorrected") == 1);
	CHECK(b(e, "pcc") == 1);
	CHECK_STR(s(e, "error"), "internal timer");
	CHECK_INT(n(e, "count"), 2);
	f = json_object_array_get_idx(get(o, "findings"), 0);
	CHECK_STR(s(f, "rule"), "corrected");
	CHECK_STR(s(f, "severity"), "warn");
	CHECK_STR(s(f, "kind"), "machine");
	CHECK(strstr(s(f, "message"), "CPU 0 bank 1: memory controller read, channel 0") != NULL);
	f = json_object_array_get_idx(get(o, "findings"), 1);
	CHECK_STR(s(f, "rule"), "uncorrected");
	CHECK_STR(s(f, "severity"), "fail");
	CHECK(d(f, "value") == 2);
	json_object_put(o);

	o = ps_mce_json(NULL, 0, false, "tracepoint mce_record not in this kernel");
	CHECK(b(o, "available") == 0);
	CHECK_STR(s(o, "reason"), "tracepoint mce_record not in this kernel");
	CHECK_INT(json_object_array_length(get(o, "events")), 0);
	json_object_put(o);
	o = ps_mce_from_records(NULL);
	CHECK(b(o, "available") == 0);
	CHECK_STR(s(o, "reason"), "probestick.ko not loaded");
	json_object_put(o);
}

/* The shared decoder on the userland side (its KUnit suite has the full table). */
static void test_decode(void)
{
	struct ps_mce_status st;

	ps_mce_decode(0x8c000040000010c2ULL, &st);
	CHECK(st.valid && !st.uncorrected && st.addr_valid);
	CHECK_INT(st.class, PS_MCE_MEMORY);
	CHECK_INT(st.channel, 2);
	CHECK_STR(st.what, "memory controller scrubbing, channel 2");
	CHECK_INT(st.model_code, 0);
	ps_mce_decode(0x9c00000000100090ULL, &st); /* MSCOD in bits 31:16 */
	CHECK_INT(st.model_code, 0x0010);
	CHECK_INT(st.code, 0x0090);
	ps_mce_decode(0xb200000000000911ULL, &st);
	CHECK_STR(st.what, "bus source, memory read, timeout");
}

int main(void)
{
	test_events();
	test_decode();
	return check_done("test_mce");
}
