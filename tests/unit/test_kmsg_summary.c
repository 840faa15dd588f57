/*
 * test_kmsg_summary.c - the kernel log of a step summarised per device:
 * recorded /dev/kmsg streams (QEMU's AHCI with injected read errors, e1000e
 * ports moved by nic_tput, Linux 6.1 formats) through the accumulator, with
 * and without an inventory, and the bounds on what the report keeps.
 */
#include "check.h"
#include "lib/util.h"
#include "record/kmsg.h"
#include "lib/json.h"

#include <stdlib.h>

static json_object *replay(const char *name, const struct ps_inventory *inv, uint64_t end_usec)
{
	char path[512], *data;
	size_t len;
	struct ps_kmsg_acc *acc = ps_kmsg_acc_new();

	snprintf(path, sizeof(path), "%s/kmsg/%s", FIXTURES, name);
	if (ps_read_all(path, &data, &len) < 0) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	/* in two pieces cut mid-record: feed() keeps the tail for the next call */
	ps_kmsg_acc_feed(acc, data, len / 2);
	ps_kmsg_acc_feed(acc, data + len / 2, len - len / 2);
	ps_kmsg_acc_end(acc, end_usec);
	free(data);
	return ps_kmsg_acc_finish(acc, inv);
}

/* The event of rule on subject, or NULL. */
static json_object *event(json_object *k, const char *rule, const char *subject)
{
	json_object *ev = ps_json_arr(k, "events");

	for (size_t i = 0; i < ps_json_len(ev); i++) {
		json_object *e = ps_json_at(ev, i);
		const char *r = ps_json_str(e, "rule"), *s = ps_json_str(e, "subject");

		if (r && strcmp(r, rule) == 0 && s && strcmp(s, subject) == 0)
			return e;
	}
	return NULL;
}

static long long num(json_object *o, const char *key)
{
	int64_t v;

	return ps_json_int(o, key, &v) ? (long long)v : -1;
}

/* lba_ranges as "8192-8447,39936-40191" */
static const char *ranges(json_object *e)
{
	static char buf[256];
	json_object *r = ps_json_arr(e, "lba_ranges");
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ps_json_len(r) && o < sizeof(buf); i++)
		o += (size_t)snprintf(
		    buf + o, sizeof(buf) - o, "%s%lld-%lld", i ? "," : "",
		    (long long)json_object_get_int64(ps_json_at(ps_json_at(r, i), 0)),
		    (long long)json_object_get_int64(ps_json_at(ps_json_at(r, i), 1)));
	return buf;
}

static bool contains(const char *s, const char *part)
{
	bool ok = s && strstr(s, part);

	if (!ok)
		fprintf(stderr, "\"%s\" lacks \"%s\"\n", s ? s : "(null)", part);
	return ok;
}

/* The boot test's QEMU guest as the typed inventory describes it. */
static struct ps_drive qemu_drives[4];
static struct ps_nic qemu_nics[2];
static struct ps_inventory qemu_inv;

static void qemu_inventory(const char *sata_link)
{
	memset(qemu_drives, 0, sizeof(qemu_drives));
	memset(qemu_nics, 0, sizeof(qemu_nics));
	snprintf(qemu_drives[0].id, PS_ID_LEN, "drive:sn:QEMU HARDDISK:PS-SATA-0001");
	snprintf(qemu_drives[0].name, 32, "sda");
	snprintf(qemu_drives[0].link, 48, "%s", sata_link);
	snprintf(qemu_drives[0].pci_address, PS_ADDR_LEN, "0000:00:1f.2");
	qemu_drives[0].ata_port = 1;
	qemu_drives[0].logical_sector = 512;
	snprintf(qemu_drives[1].id, PS_ID_LEN, "drive:sn:QEMU NVMe Ctrl:PSNVME0001");
	snprintf(qemu_drives[1].name, 32, "nvme0n1");
	snprintf(qemu_drives[1].nvme_ctrl, 16, "nvme0");
	qemu_drives[1].ata_port = PS_UNKNOWN;
	qemu_drives[1].logical_sector = 512;
	snprintf(qemu_drives[2].id, PS_ID_LEN, "drive:sn:PSVIRT0001");
	snprintf(qemu_drives[2].name, 32, "vda");
	qemu_drives[2].ata_port = PS_UNKNOWN;
	snprintf(qemu_drives[3].id, PS_ID_LEN, "drive:sn:QEMU QEMU HARDDISK:1-0000:00:10.0-1");
	snprintf(qemu_drives[3].name, 32, "sdb");
	snprintf(qemu_drives[3].usb_path, 32, "1-1");
	qemu_drives[3].ata_port = PS_UNKNOWN;
	for (int i = 0; i < 2; i++) {
		snprintf(qemu_nics[i].id, PS_ID_LEN, "%s",
			 i ? "nic:52:54:00:50:00:02" : "nic:52:54:00:50:00:01");
		snprintf(qemu_nics[i].name, IF_NAMESIZE, "%s", i ? "eth1" : "eth0");
		snprintf(qemu_nics[i].pci_address, PS_ADDR_LEN, "%s",
			 i ? "0000:05:00.0" : "0000:04:00.0");
		qemu_nics[i].speed_mbps = 1000;
	}
	qemu_inv = (struct ps_inventory){
	    .taken = true, .drives = qemu_drives, .n_drives = 4, .nics = qemu_nics, .n_nics = 2};
}

static void test_qemu_read_errors(void)
{
	json_object *k, *e, *rec;

	qemu_inventory("SATA 1.5 Gb/s");
	k = replay("qemu-ahci-read-errors.kmsg", &qemu_inv, 0);
	CHECK_INT(ps_json_bool(k, "available"), 1);
	CHECK_INT(num(k, "total"), 477);
	/* the last 256 records are kept, within 64 KiB */
	CHECK_INT(num(k, "kept"), PS_KMSG_KEEP_RECORDS);
	CHECK_INT(num(k, "dropped"), 477 - PS_KMSG_KEEP_RECORDS);
	CHECK_INT(ps_json_len(ps_json_arr(k, "records")), PS_KMSG_KEEP_RECORDS);
	rec = ps_json_at(ps_json_arr(k, "records"), PS_KMSG_KEEP_RECORDS - 1);
	CHECK_INT(num(rec, "seq"), 1038);
	CHECK_STR(ps_json_str(rec, "priority"), "info");
	CHECK_STR(ps_json_str(rec, "facility"), "kern");
	CHECK_STR(ps_json_str(rec, "text"), "ata1: EH complete");
	rec = ps_json_at(ps_json_arr(k, "records"), 0);
	CHECK_INT(num(rec, "seq"), 1038 - PS_KMSG_KEEP_RECORDS + 1);
	CHECK_INT(num(k, "lost"), 0);

	/* the block layer's failed requests, their length from the failed commands */
	e = event(k, "io_error", "sda");
	CHECK(e != NULL);
	CHECK_STR(ps_json_str(e, "severity"), "fail");
	CHECK_STR(ps_json_str(e, "kind"), "drive");
	CHECK_STR(ps_json_str(e, "device"), "drive:sn:QEMU HARDDISK:PS-SATA-0001");
	CHECK(ps_json_str(e, "kernel_name") == NULL);
	CHECK_INT(num(e, "count"), 6);
	CHECK_INT(num(e, "lba_first"), 8192);
	CHECK_INT(num(e, "lba_last"), 40191);
	CHECK_STR(ranges(e), "8192-8447,39936-40191");
	CHECK(
	    contains(ps_json_str(e, "message"),
		     "I/O error on READ, 6 times, at LBA 8192-8447, 39936-40191: Aborted Command"));
	/* libata's failed commands: the queue-mates of an NCQ error carry no LBA */
	e = event(k, "ata_error", "sda");
	CHECK(e != NULL);
	CHECK_STR(ps_json_str(e, "kernel_name"), "ata1.00");
	CHECK_STR(ps_json_str(e, "device"), "drive:sn:QEMU HARDDISK:PS-SATA-0001");
	CHECK_INT(num(e, "count"), 75);
	CHECK_STR(ranges(e), "8192-8447,39936-40191");
	CHECK(contains(ps_json_str(e, "message"), "ata1.00: failed command READ FPDMA QUEUED, "
						  "75 times (last: failed command READ DMA)"));
	CHECK(contains(ps_json_str(e, "message"), "device error, ABRT"));
	e = event(k, "ata_link_reset", "sda");
	CHECK_STR(ps_json_str(e, "severity"), "warn");
	CHECK_INT(num(e, "count"), 2);
	CHECK_STR(ps_json_str(e, "kernel_name"), "ata1");
	CHECK(json_object_object_get_ex(e, "lba_first", NULL) && !ps_json_get(e, "lba_first"));
	e = event(k, "ata_speed_down", "sda");
	CHECK_STR(ps_json_str(e, "severity"), "warn");
	CHECK(contains(ps_json_str(e, "message"), "last: transfer mode limited to UDMA/33:PIO4"));
	e = event(k, "ata_link_speed", "sda");
	CHECK_STR(ps_json_str(e, "severity"), "info"); /* 1.5 Gb/s is what the link always had */
	e = event(k, "ata_configured", "sda");
	CHECK_STR(ps_json_str(e, "severity"), "info");
	CHECK(contains(ps_json_str(e, "message"), "last: configured for UDMA/33"));
	CHECK_INT(ps_json_len(ps_json_arr(k, "events")), 6);
	/* worst first */
	CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(k, "events"), 0), "severity"), "fail");
	CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(k, "events"), 5), "severity"), "info");
	json_object_put(k);

	/* a link the inventory saw at 6.0 Gb/s and the kernel brought up at 1.5 */
	qemu_inventory("SATA 6.0 Gb/s");
	k = replay("qemu-ahci-read-errors.kmsg", &qemu_inv, 0);
	e = event(k, "ata_link_speed", "sda");
	CHECK_STR(ps_json_str(e, "severity"), "warn");
	CHECK(
	    contains(ps_json_str(e, "message"), "slower than the SATA 6.0 Gb/s of the inventory"));
	json_object_put(k);
}

static void test_qemu_read_errors_no_inventory(void)
{
	struct ps_inventory none = {0};
	json_object *k = replay("qemu-ahci-read-errors.kmsg", &none, 0), *e;

	/* the kernel's names, no ids; the CDBs still give the failed requests' lengths */
	e = event(k, "io_error", "sda");
	CHECK(e != NULL);
	CHECK(ps_json_str(e, "device") == NULL);
	CHECK_STR(ranges(e), "8192-8447,39936-40191");
	e = event(k, "ata_error", "ata1.00");
	CHECK(e != NULL);
	CHECK(ps_json_str(e, "device") == NULL);
	CHECK(ps_json_str(e, "kernel_name") == NULL);
	CHECK_STR(ps_json_str(e, "kind"), "drive");
	CHECK(event(k, "ata_link_reset", "ata1.00") || event(k, "ata_link_reset", "ata1"));
	json_object_put(k);
}

static void test_qemu_nic_tput(void)
{
	json_object *k, *e;
	/* the last record of the step is at 39.860113 s */
	const uint64_t last = 39860113;

	qemu_inventory("SATA 1.5 Gb/s");
	/* the ports went down as nic_tput moved them back, just before the step ended */
	k = replay("qemu-e1000e-nic-tput.kmsg", &qemu_inv, last + 200000);
	e = event(k, "nic_link_down", "eth0");
	CHECK_STR(ps_json_str(e, "severity"), "info");
	CHECK_STR(ps_json_str(e, "kind"), "nic");
	CHECK_STR(ps_json_str(e, "device"), "nic:52:54:00:50:00:01");
	CHECK_INT(num(e, "count"), 2);
	CHECK(contains(ps_json_str(e, "message"), "not judged"));
	e = event(k, "nic_link_up", "eth1");
	CHECK_STR(ps_json_str(e, "severity"), "info");
	CHECK(contains(ps_json_str(e, "message"), "link up at 1000 Mbps Full Duplex"));
	json_object_put(k);
	/* a link still down 20 s after it went: a warning */
	k = replay("qemu-e1000e-nic-tput.kmsg", &qemu_inv, last + 20000000);
	e = event(k, "nic_link_down", "eth1");
	CHECK_STR(ps_json_str(e, "severity"), "warn");
	CHECK(contains(ps_json_str(e, "message"), "still down 20 s later"));
	json_object_put(k);
	/* a port the inventory knows at 10 Gb/s came up at 1000 Mb/s */
	qemu_nics[0].speed_mbps = 10000;
	k = replay("qemu-e1000e-nic-tput.kmsg", &qemu_inv, last + 200000);
	e = event(k, "nic_link_up", "eth0");
	CHECK_STR(ps_json_str(e, "severity"), "warn");
	CHECK(contains(ps_json_str(e, "message"), "slower than the 10000 Mb/s"));
	json_object_put(k);
}

static void test_formats_mapped(void)
{
	struct ps_drive d[3] = {0};
	struct ps_nic nic[2] = {0};
	struct ps_pcie_dev pcie[2] = {0};
	struct ps_inventory inv = {
	    .drives = d, .n_drives = 3, .nics = nic, .n_nics = 2, .pcie = pcie, .n_pcie = 2};
	json_object *k, *e;

	snprintf(d[0].id, PS_ID_LEN, "drive:wwn:eui.0001");
	snprintf(d[0].name, 32, "nvme0n1");
	snprintf(d[0].nvme_ctrl, 16, "nvme0");
	snprintf(d[0].pci_address, PS_ADDR_LEN, "0000:03:00.0");
	d[0].logical_sector = 4096;
	snprintf(d[1].id, PS_ID_LEN, "drive:wwn:eui.0002");
	snprintf(d[1].name, 32, "nvme0n2");
	snprintf(d[1].nvme_ctrl, 16, "nvme0");
	snprintf(d[1].pci_address, PS_ADDR_LEN, "0000:03:00.0");
	d[1].logical_sector = 4096;
	snprintf(d[2].id, PS_ID_LEN, "drive:wwn:0x5000c500a1b2c3d4");
	snprintf(d[2].name, 32, "sdb");
	d[2].ata_port = 3;
	d[2].logical_sector = 512;
	snprintf(nic[0].id, PS_ID_LEN, "nic:00:1b:21:aa:bb:01");
	snprintf(nic[0].name, IF_NAMESIZE, "eth0");
	snprintf(nic[0].pci_address, PS_ADDR_LEN, "0000:01:00.0");
	nic[0].speed_mbps = 1000;
	snprintf(nic[1].id, PS_ID_LEN, "nic:00:1b:21:aa:bb:02");
	snprintf(nic[1].name, IF_NAMESIZE, "eth1");
	snprintf(pcie[0].id, PS_ID_LEN, "pcie:0000:00:1c.0:8086:a33c");
	snprintf(pcie[0].fn.address, sizeof(pcie[0].fn.address), "0000:00:1c.0");
	snprintf(pcie[1].id, PS_ID_LEN, "pcie:0000:02:00.0:8086:2723");
	snprintf(pcie[1].fn.address, sizeof(pcie[1].fn.address), "0000:02:00.0");

	k = replay("linux-6.1-formats.kmsg", &inv, 230000000);
	CHECK_INT(num(k, "total"), 37);
	CHECK_INT(num(k, "ratelimited"), 12);
	/* an NVMe controller's timeouts are each namespace's */
	e = event(k, "nvme_timeout", "nvme0n1");
	CHECK_STR(ps_json_str(e, "device"), "drive:wwn:eui.0001");
	CHECK_STR(ps_json_str(e, "kernel_name"), "nvme0");
	CHECK_INT(num(e, "count"), 2);
	CHECK(event(k, "nvme_timeout", "nvme0n2") != NULL);
	CHECK(event(k, "nvme_failed", "nvme0n2") != NULL); /* by the controller's PCI address */
	/* NVMe LBAs are the namespace's; the block layer's 512-byte sectors are converted */
	e = event(k, "nvme_error", "nvme0n1");
	CHECK_STR(ranges(e), "1234-1241");
	CHECK(contains(ps_json_str(e, "message"), "Unrecovered Read Error"));
	e = event(k, "io_error", "nvme0n1");
	CHECK_STR(ranges(e), "1234-1241"); /* sector 9872 of 512 bytes, 8 blocks from nvme_error */
	/* SCSI sense, CDB and the block layer on one disk; the partition's buffer error too */
	e = event(k, "io_error", "sdb");
	CHECK_STR(ps_json_str(e, "device"), "drive:wwn:0x5000c500a1b2c3d4");
	CHECK_INT(num(e, "count"), 1);
	CHECK_STR(ranges(e), "1953525008-1953525015");
	CHECK(contains(ps_json_str(e, "message"),
		       "Medium Error, Unrecovered read error - auto reallocate failed"));
	/* an sd line without its disk's name: the address learnt from the others */
	e = event(k, "drive_offline", "sdb");
	CHECK(e != NULL);
	CHECK_STR(ps_json_str(e, "kernel_name"), "2:0:0:0");
	/* NICs: a link back at 100 Mb/s on a gigabit port, the watchdog, a reset */
	e = event(k, "nic_link_up", "eth0");
	CHECK_STR(ps_json_str(e, "severity"), "warn");
	CHECK_STR(ps_json_str(event(k, "nic_link_down", "eth0"), "severity"), "info");
	CHECK_STR(ps_json_str(event(k, "nic_tx_timeout", "eth0"), "severity"), "warn");
	CHECK_STR(ps_json_str(event(k, "nic_reset", "eth0"), "device"), "nic:00:1b:21:aa:bb:01");
	/* a port not in the inventory keeps its kernel name, and no id; down 55 s: warn */
	e = event(k, "nic_link_down", "enp6s0");
	CHECK(e && ps_json_str(e, "device") == NULL);
	CHECK_STR(ps_json_str(e, "severity"), "warn");
	/* eth1's link went down as the step ended */
	CHECK_STR(ps_json_str(event(k, "nic_link_down", "eth1"), "severity"), "info");
	/* AER: on the NIC by its address, on the root port as a link */
	e = event(k, "aer", "eth0");
	CHECK_STR(ps_json_str(e, "kind"), "nic");
	CHECK_STR(ps_json_str(e, "severity"), "warn");
	CHECK_INT(num(e, "count"), 1);
	CHECK(contains(ps_json_str(e, "message"), "corrected PCIe error (Physical Layer)"));
	CHECK(contains(ps_json_str(e, "message"), "RxErr"));
	e = event(k, "aer", "0000:00:1c.0");
	CHECK_STR(ps_json_str(e, "kind"), "link");
	CHECK_STR(ps_json_str(e, "device"), "pcie:0000:00:1c.0:8086:a33c");
	CHECK_STR(ps_json_str(e, "severity"), "fail");
	CHECK(contains(ps_json_str(e, "message"), "CmpltTO"));
	e = event(k, "firmware_missing", "0000:02:00.0");
	CHECK_STR(ps_json_str(e, "kind"), "link");
	CHECK_STR(ps_json_str(e, "device"), "pcie:0000:02:00.0:8086:2723");
	/* the machine: a corrected MCE, EDAC counts summed, a kernel warning */
	e = event(k, "mce", "machine");
	CHECK(e == NULL); /* the machine has no subject */
	{
		json_object *ev = ps_json_arr(k, "events");
		int mce = 0, edac = 0, warn = 0;

		for (size_t i = 0; i < ps_json_len(ev); i++) {
			json_object *x = ps_json_at(ev, i);
			const char *r = ps_json_str(x, "rule");

			if (strcmp(r, "mce") == 0) {
				mce++;
				CHECK_STR(ps_json_str(x, "severity"), "warn");
				CHECK_STR(ps_json_str(x, "kind"), "machine");
				CHECK(ps_json_str(x, "subject") == NULL);
				CHECK(contains(ps_json_str(x, "message"),
					       "corrected machine check on CPU 2 bank 7"));
			}
			if (strcmp(r, "edac_ce") == 0) {
				edac++;
				CHECK_INT(num(x, "count"), 3);
				CHECK_STR(ps_json_str(x, "subject"), "MC0");
				CHECK(contains(ps_json_str(x, "message"),
					       "CPU_SrcID#0_Ha#0_Chan#1_DIMM#0"));
			}
			if (strcmp(r, "kernel_warning") == 0)
				warn++;
			/* the user's line that looks like an I/O error is not the kernel's */
			CHECK(strcmp(r, "io_error") != 0 ||
			      strcmp(ps_json_str(x, "subject"), "sda") != 0);
		}
		CHECK_INT(mce, 1);
		CHECK_INT(edac, 1);
		CHECK_INT(warn, 1);
	}
	json_object_put(k);
}

static void test_bounds(void)
{
	struct ps_kmsg_acc *acc = ps_kmsg_acc_new();
	struct ps_kmsg_record r;
	struct ps_inventory none = {0};
	json_object *k;
	size_t bytes = 0;

	/* 1000 records of 400 bytes: the byte limit keeps fewer than 256 */
	for (int i = 0; i < 1000; i++) {
		memset(&r, 0, sizeof(r));
		r.seq = (uint64_t)i + 1;
		r.usec = (uint64_t)i * 1000;
		r.level = 6;
		memset(r.text, 'x', 400);
		r.len = 400;
		ps_kmsg_acc_add(acc, &r);
	}
	ps_kmsg_acc_lost(acc, 7);
	k = ps_kmsg_acc_finish(acc, &none);
	CHECK_INT(num(k, "total"), 1000);
	CHECK_INT(num(k, "kept"), PS_KMSG_KEEP_BYTES / 400);
	CHECK_INT(num(k, "kept") + num(k, "dropped"), 1000);
	CHECK_INT(num(k, "lost"), 7);
	for (size_t i = 0; i < ps_json_len(ps_json_arr(k, "records")); i++)
		bytes += strlen(ps_json_str(ps_json_at(ps_json_arr(k, "records"), i), "text"));
	CHECK(bytes <= PS_KMSG_KEEP_BYTES);
	CHECK_INT(num(ps_json_at(ps_json_arr(k, "records"), 0), "seq"),
		  1000 - PS_KMSG_KEEP_BYTES / 400 + 1);
	json_object_put(k);

	/* 100 failing disks: 64 events, the rest counted */
	acc = ps_kmsg_acc_new();
	for (int i = 0; i < 100; i++) {
		memset(&r, 0, sizeof(r));
		r.seq = (uint64_t)i;
		r.level = 3;
		r.len = (size_t)snprintf(r.text, sizeof(r.text),
					 "I/O error, dev sd%c%c, sector %d op 0x0:(READ) flags 0x0",
					 'a' + i / 26, 'a' + i % 26, i);
		ps_kmsg_acc_add(acc, &r);
	}
	k = ps_kmsg_acc_finish(acc, &none);
	CHECK_INT(ps_json_len(ps_json_arr(k, "events")), PS_KMSG_EVENTS_MAX);
	CHECK_INT(num(k, "events_dropped"), 100 - PS_KMSG_EVENTS_MAX);
	json_object_put(k);

	/* invalid UTF-8 and control bytes in a record reach the report cleaned */
	acc = ps_kmsg_acc_new();
	memset(&r, 0, sizeof(r));
	r.len = (size_t)snprintf(r.text, sizeof(r.text), "bad \xff\xfe bytes \x1b[31m");
	ps_kmsg_acc_add(acc, &r);
	k = ps_kmsg_acc_finish(acc, &none);
	CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(k, "records"), 0), "text"),
		  "bad \xef\xbf\xbd\xef\xbf\xbd bytes \\x1b[31m");
	json_object_put(k);
	/* finish(NULL) does not crash */
	k = ps_kmsg_acc_finish(NULL, NULL);
	CHECK_INT(ps_json_bool(k, "available"), 0);
	json_object_put(k);
}

/* Fed a line at a time (as from a pipe), the stream gives the same records. */
static void test_feed_lines(void)
{
	char path[512], *data;
	size_t len;
	struct ps_kmsg_acc *acc = ps_kmsg_acc_new();
	struct ps_inventory none = {0};
	json_object *k;

	snprintf(path, sizeof(path), "%s/kmsg/linux-6.1-formats.kmsg", FIXTURES);
	if (ps_read_all(path, &data, &len) < 0)
		exit(2);
	for (size_t i = 0; i < len;) {
		size_t n = strcspn(data + i, "\n") + 1;

		if (i + n > len)
			n = len - i;
		ps_kmsg_acc_feed(acc, data + i, n);
		i += n;
	}
	free(data);
	k = ps_kmsg_acc_finish(acc, &none);
	CHECK_INT(num(k, "total"), 37);
	CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(k, "records"), 36), "text"),
		  "e1000e 0000:05:00.0 eth1: NIC Link is Down");
	CHECK_STR(ps_json_str(ps_json_at(ps_json_arr(k, "records"), 35), "facility"), "user");
	json_object_put(k);
}

int main(void)
{
	test_feed_lines();
	test_qemu_read_errors();
	test_qemu_read_errors_no_inventory();
	test_qemu_nic_tput();
	test_formats_mapped();
	test_bounds();
	return check_done("test_kmsg_summary");
}
