/* test_smart_json.c - the smartctl JSON parser (decode/smart_json.c) on recorded
 * output of real drives and of QEMU's, and on damaged text; the NVMe
 * self-test log and Identify decoders (hw/nvme_selftest.c). */
#include "check.h"
#include "lib/util.h"
#include "hw/smartctl.h"

#include <errno.h>
#include <stdlib.h>

#define DIR FIXTURES "/smartctl/"

static int parse(const char *name, struct ps_smart *s, char *why, size_t whylen)
{
	char *text;
	size_t len;
	int ret;

	if (ps_read_all(name, &text, &len) < 0) {
		fprintf(stderr, "cannot read %s\n", name);
		CHECK(0);
		return -ENOENT;
	}
	ret = ps_smart_parse(text, len, s, NULL, why, whylen);
	free(text);
	return ret;
}

static void test_ata(void)
{
	struct ps_smart s;
	char why[256];
	const struct ps_smart_attr *a;

	CHECK_INT(parse(DIR "smart-ata.json", &s, why, sizeof(why)), 0);
	CHECK_INT(s.proto, PS_SMART_PROTO_ATA);
	/* 21 characters: the SCSI translation in sysfs would keep 16 */
	CHECK_STR(s.model, "WDC WD140EDFZ-11A0VA0");
	CHECK_STR(s.firmware, "81.00A81");
	CHECK_STR(s.serial, "9RK1XXXX");
	CHECK_STR(s.device_type, "sat");
	CHECK_STR(s.wwn, "0x5000cca264eb01d7");
	CHECK_INT(s.exit_status, 0);
	CHECK_INT(s.version_major, 7);
	CHECK_INT(s.passed, 1);
	CHECK_INT(s.power_on_hours, 1730);
	CHECK_INT(s.power_cycles, 9);
	CHECK_INT(s.temp_c, 32);
	CHECK_INT(s.temp_max_c, PS_SMART_NO_TEMP);
	CHECK_INT(s.rotation_rpm, 5400);
	CHECK(s.has_attrs);
	CHECK_INT(s.n_attrs, 18);
	a = ps_smart_attr(&s, 194);
	CHECK(a != NULL);
	/* the raw value packs min and max; the drive database's reading is 32 */
	CHECK(a && a->raw == 163210330144LL);
	CHECK(a && a->count == 32);
	CHECK(a && strcmp(a->raw_text, "32 (Min/Max 24/38)") == 0);
	a = ps_smart_attr(&s, 5);
	CHECK(a && a->count == 0 && a->value == 100 && a->thresh == 1 && a->prefailure);
	CHECK(ps_smart_attr(&s, 187) == NULL);
	CHECK_INT(s.self_test_supported, 1);
	CHECK_INT(s.self_test_short_min, 2);
	CHECK_INT(s.self_test_status, 241);
	CHECK_INT(s.self_test_remaining, 10);
	CHECK(s.n_tests >= 5);
	CHECK_STR(s.tests[0].type, "Short offline");
	CHECK_INT(s.tests[0].passed, 1);
	CHECK_INT(s.tests[0].hours, 1708);
	CHECK_INT(s.tests[0].lba_first_error, PS_UNKNOWN);
	CHECK_INT(s.ata_error_count, 0);
	CHECK(!s.has_nvme_log);
	CHECK_INT(s.scsi_grown_defects, PS_UNKNOWN);

	/* QEMU's AHCI disk, recorded in the boot test's guest (smartctl 7.3 -x) */
	CHECK_INT(parse(DIR "qemu-ahci.json", &s, why, sizeof(why)), 0);
	CHECK_STR(s.model, "QEMU HARDDISK");
	CHECK_STR(s.serial, "PS-SATA-0001");
	CHECK_STR(s.firmware, "2.5+");
	CHECK_INT(s.exit_status, 4);
	CHECK_INT(s.version_minor, 3);
	CHECK_INT(s.smart_available, 1);
	CHECK_INT(s.power_on_hours, 1);
	CHECK_INT(s.temp_c, 31);
	/* QEMU reports no rotation rate: unknown, not a disk */
	CHECK_INT(s.rotation_rpm, PS_UNKNOWN);
	CHECK_INT(s.n_tests, 0);

	/* behind a MegaRAID controller: smartctl's warning message is kept */
	CHECK_INT(parse(DIR "smart-megaraid0.json", &s, why, sizeof(why)), 0);
	CHECK_STR(s.device_type, "sat+megaraid,0");
	CHECK_INT(s.exit_status, 4);
	CHECK_INT(s.n_messages, 1);
	CHECK_STR(s.messages[0].severity, "warning");
	CHECK(strstr(ps_smart_message(&s), "Attribute check") != NULL);
}

static void test_nvme_scsi(void)
{
	struct ps_smart s;
	char why[256], bits[256];

	CHECK_INT(parse(DIR "smart-nvme.json", &s, why, sizeof(why)), 0);
	CHECK_INT(s.proto, PS_SMART_PROTO_NVME);
	CHECK_STR(s.model, "INTEL SSDPEKNW010T8");
	CHECK(s.has_nvme_log);
	CHECK_INT(s.nvme_critical_warning, 0);
	CHECK_INT(s.nvme_spare, 100);
	CHECK_INT(s.nvme_spare_threshold, 10);
	CHECK_INT(s.nvme_percentage_used, 0);
	CHECK_INT(s.nvme_unsafe_shutdowns, 43);
	CHECK_INT(s.nvme_media_errors, 0);
	CHECK_INT(s.power_on_hours, 2401);
	CHECK_INT(s.temp_c, 36);
	CHECK_INT(s.capacity_bytes, 1024209543168LL);

	CHECK_INT(parse(DIR "qemu-nvme-critical.json", &s, why, sizeof(why)), 0);
	CHECK_INT(s.nvme_critical_warning, 4);
	CHECK_INT(s.passed, 0);
	CHECK_INT(s.exit_status, 8);
	ps_nvme_critical_text(s.nvme_critical_warning, bits, sizeof(bits));
	CHECK_STR(bits, "reliability degraded by media or internal errors");
	ps_nvme_critical_text(0x21, bits, sizeof(bits));
	CHECK_STR(bits, "available spare below threshold, persistent memory region unreliable");
	ps_nvme_critical_text(0, bits, sizeof(bits));
	CHECK_STR(bits, "");

	CHECK_INT(parse(DIR "smart-scsi.json", &s, why, sizeof(why)), 0);
	CHECK_INT(s.proto, PS_SMART_PROTO_SCSI);
	/* smartctl 7.1 names: vendor, product, revision */
	CHECK_STR(s.vendor, "SEAGATE");
	CHECK_STR(s.product, "ST4000NM0043");
	CHECK_STR(s.firmware, "MS03");
	CHECK_INT(s.scsi_grown_defects, 56);
	CHECK_INT(s.scsi_uncorrected_read, 0);
	CHECK_INT(s.scsi_uncorrected_write, 0);
	CHECK_INT(s.scsi_uncorrected_verify, PS_UNKNOWN);
	CHECK_INT(s.power_on_hours, 43549);
	CHECK_INT(s.temp_c, 34);
	CHECK_INT(s.rotation_rpm, 7200);

	/* QEMU's usb-storage through -d scsi is not recorded; its auto attempt says why */
	CHECK_INT(parse(DIR "qemu-usb-auto.json", &s, why, sizeof(why)), 0);
	CHECK_INT(s.proto, PS_SMART_PROTO_NONE);
	CHECK_INT(s.exit_status, 1);
	CHECK(strstr(ps_smart_message(&s), "Unknown USB bridge") != NULL);
	CHECK_INT(parse(DIR "qemu-usb-sat.json", &s, why, sizeof(why)), 0);
	CHECK_INT(s.proto, PS_SMART_PROTO_ATA);
	CHECK_INT(s.exit_status, 2);
	CHECK(!s.has_attrs);
	CHECK_STR(ps_smart_message(&s), "");
}

static void test_damaged(void)
{
	struct ps_smart s;
	char why[256];
	json_object *root = (json_object *)1;

	CHECK_INT(parse(DIR "truncated.json", &s, why, sizeof(why)), -EBADMSG);
	CHECK(strstr(why, "truncated") != NULL);
	CHECK_INT(s.exit_status, PS_UNKNOWN);
	CHECK_INT(parse(DIR "malformed.json", &s, why, sizeof(why)), -EBADMSG);
	CHECK(strstr(why, "not JSON at byte") != NULL);
	CHECK_INT(ps_smart_parse("", 0, &s, &root, why, sizeof(why)), -EBADMSG);
	CHECK(root == NULL);
	CHECK(strstr(why, "printed nothing") != NULL);
	CHECK_INT(ps_smart_parse("  \n", 3, &s, NULL, why, sizeof(why)), -EBADMSG);
	CHECK_INT(ps_smart_parse("{\"a\":1}", 7, &s, NULL, why, sizeof(why)), -ENODATA);
	CHECK_INT(ps_smart_parse("[1,2]", 5, &s, NULL, why, sizeof(why)), -EBADMSG);
	CHECK_INT(ps_smart_parse("{\"smartctl\":{}} x", 17, &s, NULL, why, sizeof(why)), -EBADMSG);
	CHECK(strstr(why, "after its JSON") != NULL);
	/* wrong types everywhere: unknown, never a crash or a made-up value */
	{
		const char *t =
		    "{\"smartctl\":{\"exit_status\":\"x\",\"messages\":[1,{}]},"
		    "\"device\":{\"protocol\":\"ATA\"},\"model_name\":7,"
		    "\"power_on_time\":{\"hours\":-5},\"temperature\":{\"current\":\"hot\"},"
		    "\"ata_smart_attributes\":{\"table\":[{\"id\":5,\"raw\":{\"string\":"
		    "\"x\",\"value\":3}},{\"id\":999},7]},"
		    "\"nvme_smart_health_information_log\":[]}";

		CHECK_INT(ps_smart_parse(t, strlen(t), &s, &root, why, sizeof(why)), 0);
		CHECK(root != NULL);
		json_object_put(root);
		CHECK_INT(s.exit_status, PS_UNKNOWN);
		CHECK_INT(s.n_messages, 0);
		CHECK_STR(s.model, "");
		CHECK_INT(s.power_on_hours, PS_UNKNOWN);
		CHECK_INT(s.temp_c, PS_SMART_NO_TEMP);
		CHECK_INT(s.n_attrs, 1);
		CHECK_INT(s.attrs[0].count, PS_UNKNOWN);
		CHECK_INT(s.attrs[0].raw, 3);
		CHECK(!s.has_nvme_log);
	}
}

static void test_nvme_dst(void)
{
	uint8_t id[PS_NVME_ID_CTRL_LEN] = {0}, page[PS_NVME_DST_LOG_LEN];
	struct ps_nvme_dst_log log;

	CHECK_INT(ps_nvme_dst_supported(id, sizeof(id)), 0);
	id[256] = 0x17; /* security, format, firmware, namespace mgmt: and bit 4, self-test */
	CHECK_INT(ps_nvme_dst_supported(id, sizeof(id)), 1);
	CHECK_INT(ps_nvme_dst_supported(id, 100), PS_TRI_UNKNOWN);

	memset(page, 0, sizeof(page));
	for (int i = 0; i < 20; i++)
		page[4 + 28 * i] = 0xff; /* unused entries */
	page[0] = 1;
	page[1] = 40;
	CHECK_INT(ps_nvme_dst_log_decode(page, sizeof(page), &log), 0);
	CHECK_INT(log.current_op, 1);
	CHECK_INT(log.current_pct, 40);
	CHECK(!log.newest_valid);
	/* done: newest entry short (1), one or more segments failed (7), LBA valid */
	page[0] = 0;
	page[1] = 0;
	page[4] = 0x17;
	page[6] = 0x2;
	page[8] = 0x34;
	page[9] = 0x12; /* 0x1234 hours */
	page[20] = 0x00;
	page[21] = 0x20; /* LBA 8192 */
	CHECK_INT(ps_nvme_dst_log_decode(page, sizeof(page), &log), 0);
	CHECK(log.newest_valid);
	CHECK_INT(log.newest_code, 1);
	CHECK_INT(log.newest_result, 7);
	CHECK_INT(log.newest_hours, 0x1234);
	CHECK_INT(log.newest_lba, 8192);
	CHECK_STR(ps_nvme_dst_result_text(7), "failed: one or more segments failed");
	CHECK_STR(ps_nvme_dst_result_text(0), "completed without error");
	CHECK_STR(ps_nvme_dst_result_text(14), "reserved result");
	page[6] = 0;
	CHECK_INT(ps_nvme_dst_log_decode(page, sizeof(page), &log), 0);
	CHECK_INT(log.newest_lba, PS_UNKNOWN);
	CHECK_INT(ps_nvme_dst_log_decode(page, 20, &log), -ENODATA);
}

/*
 * The document the step keeps in report.json follows the report's rule for
 * strings (found by tests/fuzz/fuzz_smart): control bytes, invalid UTF-8
 * and NULs in values and member names are cleaned, in the typed model too.
 */
static void test_clean_strings(void)
{
	static const char text[] =
	    "{\"smartctl\":{\"exit_status\":0,\"messages\":[{\"string\":\"bad\\u0007bell\","
	    "\"severity\":\"error\"}]},\"device\":{\"protocol\":\"ATA\"},"
	    "\"model_name\":\"WDC\\u0001 \\udc00X\\u0000tail\",\"serial_number\":\"\xff\xfe"
	    "1\","
	    "\"ke\\u001by\":{\"in\\tner\":[\"\\u007f\"]}}";
	struct ps_smart s;
	json_object *doc = NULL, *v;
	char why[256];

	CHECK_INT(ps_smart_parse(text, sizeof(text) - 1, &s, &doc, why, sizeof(why)), 0);
	CHECK(doc != NULL);
	CHECK_STR(s.messages[0].text, "bad\\x07bell");
	CHECK_STR(json_object_get_string(json_object_object_get(doc, "model_name")),
		  "WDC\\x01 \xef\xbf\xbdX");
	CHECK_STR(s.model, "WDC\\x01 \xef\xbf\xbdX");
	CHECK_STR(s.serial, "\xef\xbf\xbd\xef\xbf\xbd"
			    "1");
	CHECK(json_object_object_get(doc, "ke\x1by") == NULL);
	v = json_object_object_get(doc, "ke\\x1by");
	CHECK(v != NULL);
	v = json_object_object_get(v, "in\tner"); /* a tab is kept */
	CHECK(v != NULL && json_object_array_length(v) == 1);
	CHECK_STR(json_object_get_string(json_object_array_get_idx(v, 0)), "\\x7f");
	json_object_put(doc);
}

/* The short self-test's polling time is one byte in ATA: more is unknown (found by fuzz_smart). */
static void test_polling_minutes(void)
{
	static const char fmt[] =
	    "{\"smartctl\":{\"exit_status\":0},\"device\":{\"protocol\":\"ATA\"},"
	    "\"ata_smart_data\":{\"self_test\":{\"polling_minutes\":{\"short\":%s}}}}";
	static const struct {
		const char *v;
		int want;
	} cases[] = {{"2", 2},
		     {"255", 255},
		     {"256", PS_UNKNOWN},
		     {"2147483647", PS_UNKNOWN},
		     {"-1", PS_UNKNOWN},
		     {"\"2\"", PS_UNKNOWN}};
	char text[512], why[256];
	struct ps_smart s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), fmt, cases[i].v);
		CHECK_INT(ps_smart_parse(text, strlen(text), &s, NULL, why, sizeof(why)), 0);
		CHECK_INT(s.self_test_short_min, cases[i].want);
	}
}

int main(void)
{
	test_clean_strings();
	test_polling_minutes();
	test_ata();
	test_nvme_scsi();
	test_damaged();
	test_nvme_dst();
	return check_done("test_smart_json");
}
