/*
 * test_aer.c - AER during a step: the kernel's aer_dev_* counter files
 * parsed, status registers named as the kernel names their bits, start and
 * end counters of a temp sysfs tree turned into per-device deltas and
 * findings (corrected: warn, uncorrected: fail), the aer probe's records
 * beside them, and its records alone when no device has counters.
 */
#include "check.h"
#include "json_get.h"
#include "tree.h"

#include "record/platform.h"
#include "lib/json.h"

#include <errno.h>

static const char cor_zero[] = "RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\n"
			       "NonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 0\n";
static const char unc_zero[] = "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\n"
			       "CmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\n"
			       "ACSViol 0\nUncorrIntErr 0\nBlockedTLP 0\nAtomicOpBlocked 0\n"
			       "TLPBlockedErr 0\nPoisonTLPBlocked 0\nTOTAL_ERR_NONFATAL 0\n";

static void test_parse_and_names(void)
{
	struct ps_aer_counts c;
	char buf[200];

	memset(&c, 0, sizeof(c));
	CHECK_INT(ps_aer_parse("RxErr 3\nBadTLP 2\nBadDLLP 0\nTOTAL_ERR_COR 5\n", 0, &c), 0);
	CHECK_INT(c.n[0], 3);
	CHECK_STR(c.name[0][1], "BadTLP");
	CHECK_INT(c.count[0][1], 2);
	CHECK_INT(c.total[0], 5);
	CHECK_INT(ps_aer_parse("garbage", 0, &c), -EINVAL);
	/* a name of other bytes than the kernel's is no counter (found by fuzz_aer: it became a
	 * JSON member name that was not UTF-8) */
	CHECK_INT(ps_aer_parse("Rx\xf2"
			       "Err 4\nBad\x01TLP 1\nTimeout 2\nTOTAL_\xff 9\n",
			       0, &c),
		  0);
	CHECK_INT(c.n[0], 1);
	CHECK_STR(c.name[0][0], "Timeout");
	CHECK_INT(c.count[0][0], 2);
	CHECK_INT(ps_aer_parse("\xc3\xa9 1\n", 0, &c), -EINVAL);
	/* counters are unsigned: a signed or oversized value is no counter (found by fuzz_aer: a
	 * total of -9 passed for a count) */
	CHECK_INT(ps_aer_parse("TOTAL_ERR_COR -9\nRxErr +2\nBadTLP 18446744073709551615\n"
			       "TOTAL_ERR_COR 9\n",
			       0, &c),
		  0);
	CHECK_INT(c.total[0], 9);
	CHECK_INT(c.n[0], 0);
	CHECK_INT(ps_aer_parse("TOTAL_ERR_COR -9\n", 0, &c), -EINVAL);
	CHECK_INT(c.total[0], -1);
	/* the tracepoint's severity 2 is corrected: the correctable register's names */
	CHECK_STR(ps_aer_status_names(2, 0x00000041, buf, sizeof(buf)), "RxErr, BadTLP");
	CHECK_STR(ps_aer_status_names(0, 0x00100000, buf, sizeof(buf)), "UnsupReq");
	CHECK_STR(ps_aer_status_names(1, 0x00040000, buf, sizeof(buf)), "MalfTLP");
	CHECK_STR(ps_aer_status_names(0, 0x80000000, buf, sizeof(buf)), "bit31");
}

static void write_dev(const char *root, const char *addr, const char *cor, const char *nonfatal,
		      bool rootport, int rp_nonfatal)
{
	char p[160];

	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/aer_dev_correctable", addr);
	tree_write(root, p, cor, 0);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/aer_dev_nonfatal", addr);
	tree_write(root, p, nonfatal, 0);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/aer_dev_fatal", addr);
	tree_write(root, p, "Undefined 0\nMalfTLP 0\nTOTAL_ERR_FATAL 0\n", 0);
	if (rootport) {
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/aer_rootport_total_err_cor", addr);
		tree_write(root, p, "0\n", 0);
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/aer_rootport_total_err_nonfatal",
			 addr);
		tree_printf(root, p, "%d\n", rp_nonfatal);
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/aer_rootport_total_err_fatal",
			 addr);
		tree_write(root, p, "0\n", 0);
	}
}

static json_object *finding(json_object *o, const char *rule)
{
	json_object *f = ps_json_arr(o, "findings");

	for (size_t i = 0; i < ps_json_len(f); i++)
		if (strcmp(ps_json_str_or(ps_json_at(f, i), "rule", ""), rule) == 0)
			return ps_json_at(f, i);
	return NULL;
}

static void test_step(void)
{
	char *root = tree_new("test_aer");
	struct ps_aer *a;
	json_object *o, *devs, *dev;

	write_dev(root, "0000:00:1c.0", cor_zero, unc_zero, true, 0);
	write_dev(root, "0000:01:00.0", cor_zero, unc_zero, false, 0);
	a = ps_aer_start(root);
	/* during the step: the NIC logs 2 BadTLP and a replay timeout, the port a UnsupReq */
	write_dev(root, "0000:01:00.0",
		  "RxErr 0\nBadTLP 2\nBadDLLP 0\nRollover 0\nTimeout 1\nNonFatalErr 0\n"
		  "CorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 3\n",
		  unc_zero, false, 0);
	write_dev(root, "0000:00:1c.0", cor_zero,
		  "Undefined 0\nDLP 0\nUnsupReq 1\nTOTAL_ERR_NONFATAL 1\n", true, 1);
	o = ps_aer_stop(a, NULL, NULL);
	CHECK(b(o, "available") == 1);
	CHECK(b(o, "probe") == 0);
	CHECK_STR(s(o, "probe_reason"), "probestick.ko not loaded");
	CHECK_INT(n(o, "watched"), 2);
	devs = get(o, "devices");
	CHECK_INT(json_object_array_length(devs), 2);
	dev = json_object_array_get_idx(devs, 0);
	CHECK_STR(s(dev, "address"), "0000:00:1c.0");
	CHECK_INT(n(dev, "nonfatal"), 1);
	CHECK_INT(n(get(get(dev, "counters"), "nonfatal"), "UnsupReq"), 1);
	CHECK_INT(n(dev, "rootport_total_err_nonfatal"), 1);
	dev = json_object_array_get_idx(devs, 1);
	CHECK_INT(n(dev, "correctable"), 3);
	CHECK_INT(n(get(get(dev, "counters"), "correctable"), "BadTLP"), 2);
	CHECK(get(dev, "nonfatal") == NULL);
	CHECK_STR(s(finding(o, "correctable"), "severity"), "warn");
	CHECK(strstr(s(finding(o, "correctable"), "message"), "BadTLP 2, Timeout 1") != NULL);
	CHECK(d(finding(o, "correctable"), "value") == 3);
	CHECK_STR(s(finding(o, "nonfatal"), "severity"), "fail");
	CHECK_STR(s(finding(o, "nonfatal"), "subject"), "0000:00:1c.0");
	json_object_put(o);
	tree_done(root);
}

static void test_probe_only(void)
{
	struct probestick_kc_record ev[2];
	json_object *o, *e;

	memset(ev, 0, sizeof(ev));
	snprintf(ev[0].name, sizeof(ev[0].name), "0000:02:00.0");
	ev[0].dir = 2; /* corrected */
	ev[0].sum = 0x00000001;
	ev[0].extra[0] = 4;
	snprintf(ev[1].name, sizeof(ev[1].name), "0000:00:1c.0");
	ev[1].dir = 1; /* fatal */
	ev[1].sum = 0x00000020;
	ev[1].max = 1;
	ev[1].extra[0] = 1;
	o = ps_aer_compare(NULL, 0, NULL, 0, ev, 2, true, "", NULL);
	CHECK(b(o, "available") == 1);
	e = json_object_array_get_idx(get(o, "events"), 0);
	CHECK_STR(s(e, "severity"), "correctable");
	CHECK_STR(s(e, "errors"), "RxErr");
	CHECK_STR(s(e, "status"), "00000001");
	CHECK_INT(n(e, "count"), 4);
	e = json_object_array_get_idx(get(o, "events"), 1);
	CHECK_STR(s(e, "severity"), "fatal");
	CHECK_STR(s(e, "errors"), "SDES");
	CHECK(b(e, "tlp_header") == 1);
	/* without counters in sysfs the events are the findings */
	CHECK_STR(s(finding(o, "correctable"), "severity"), "warn");
	CHECK_STR(s(finding(o, "fatal"), "severity"), "fail");
	json_object_put(o);

	/* nothing at all: not available, and why */
	o = ps_aer_compare(NULL, 0, NULL, 0, NULL, 0, false, "", NULL);
	CHECK(b(o, "available") == 0);
	CHECK(s(o, "reason") != NULL);
	json_object_put(o);
}

int main(void)
{
	test_parse_and_names();
	test_step();
	test_probe_only();
	return check_done("test_aer");
}
