/*
 * test_drivers.c - devices without a driver: the alias matcher on lines of
 * Linux 6.1's modules.alias, the pci.ids / usb.ids lookups, the probe-failure
 * line of drivers/base/dd.c, and the drivers step on a temp root with a
 * PCI function and a USB device that nothing took (a family left out of
 * .config, a module in no family, firmware that failed to load); the Safe
 * graphics entry on a server: a display nomodeset holds back, the displays.
 */
#include "check.h"
#include "step_harness.h"

#include "../../userland/steps/drivers.c"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char aliases[] = "alias pci:v000010ECd00008139sv*sd*bc*sc*i* 8139too\n"
			      "alias pci:v000010ECd00008139sv*sd*bc*sc*i* 8139cp\n"
			      "alias pci:v000010ECd00008139sv000010ECsd00008139bc*sc*i* 8139cp\n"
			      "alias pci:v00008086d000010D3sv*sd*bc*sc*i* e1000e\n"
			      "alias pci:v*d*sv*sd*bc0Csc03i30* xhci-pci\n"
			      "alias pci:v00008086d*sv*sd*bc01sc01i* ata_generic\n"
			      "alias usb:v0BDAp8153d*dc*dsc*dp*ic*isc*ip*in* r8152\n";

static const char pci_ids[] = "# pci.ids\n"
			      "10ec  Realtek Semiconductor Co., Ltd.\n"
			      "\t8129  RTL-8129\n"
			      "\t8139  RTL-8100/8101L/8139 PCI Fast Ethernet Adapter\n"
			      "\t\t1af4 1100  QEMU Virtual Machine\n"
			      "1274  Ensoniq\n"
			      "\t5000  ES1370 [AudioPCI]\n"
			      "8086  Intel Corporation\n"
			      "\t10d3  82574L Gigabit Network Connection\n"
			      "C 02  Network controller\n"
			      "\t00  Ethernet controller\n"
			      "C 04  Multimedia controller\n"
			      "\t01  Multimedia audio controller\n";

static const char usb_ids[] = "0bda  Realtek Semiconductor Corp.\n"
			      "\t8153  RTL8153 Gigabit Ethernet Adapter\n"
			      "C 02  Communications\n"
			      "C ff  Vendor Specific Class\n";

static void test_alias(void)
{
	char best[32], all[96];

	CHECK_INT(ps_alias_match(aliases, sizeof(aliases) - 1,
				 "pci:v000010ECd00008139sv00001AF4sd00001100bc02sc00i00", best,
				 sizeof(best), all, sizeof(all)),
		  2);
	CHECK_STR(all, "8139too,8139cp");
	CHECK_STR(best, "8139too");
	/* the subsystem-specific alias is the more specific one */
	CHECK_INT(ps_alias_match(aliases, sizeof(aliases) - 1,
				 "pci:v000010ECd00008139sv000010ECsd00008139bc02sc00i00", best,
				 sizeof(best), all, sizeof(all)),
		  3);
	CHECK_STR(best, "8139cp");
	/* '-' in a module name is '_' as modprobe and sysfs write it */
	CHECK_INT(ps_alias_match(aliases, sizeof(aliases) - 1,
				 "pci:v00001B36d0000000Dsv00001AF4sd00001100bc0Csc03i30", best,
				 sizeof(best), all, sizeof(all)),
		  1);
	CHECK_STR(best, "xhci_pci");
	CHECK_INT(ps_alias_match(aliases, sizeof(aliases) - 1,
				 "pci:v00001274d00005000sv*sd*bc04sc01i00", best, sizeof(best), all,
				 sizeof(all)),
		  0);
	CHECK_STR(best, "");
	CHECK_STR(all, "");
	CHECK_INT(ps_alias_match(NULL, 0, "pci:v1", best, sizeof(best), all, sizeof(all)), 0);
}

static void test_ids(void)
{
	char v[96], d[128];

	CHECK_INT(
	    ps_ids_lookup(pci_ids, sizeof(pci_ids) - 1, 0x10ec, 0x8139, v, sizeof(v), d, sizeof(d)),
	    0);
	CHECK_STR(v, "Realtek Semiconductor Co., Ltd.");
	CHECK_STR(d, "RTL-8100/8101L/8139 PCI Fast Ethernet Adapter");
	/* a device id of another vendor's block is not this vendor's */
	CHECK_INT(
	    ps_ids_lookup(pci_ids, sizeof(pci_ids) - 1, 0x10ec, 0x5000, v, sizeof(v), d, sizeof(d)),
	    0);
	CHECK_STR(d, "");
	CHECK_INT(
	    ps_ids_lookup(pci_ids, sizeof(pci_ids) - 1, 0x1234, 0x1111, v, sizeof(v), d, sizeof(d)),
	    -ENOENT);
	CHECK_STR(v, "");
	CHECK_INT(ps_ids_class(pci_ids, sizeof(pci_ids) - 1, 0x04, 0x01, v, sizeof(v)), 0);
	CHECK_STR(v, "Multimedia audio controller");
	CHECK_INT(ps_ids_class(pci_ids, sizeof(pci_ids) - 1, 0x02, 0x80, v, sizeof(v)), 0);
	CHECK_STR(v, "Network controller");
	CHECK_INT(
	    ps_ids_lookup(usb_ids, sizeof(usb_ids) - 1, 0x0bda, 0x8153, v, sizeof(v), d, sizeof(d)),
	    0);
	CHECK_STR(d, "RTL8153 Gigabit Ethernet Adapter");
}

static void test_probe_line(void)
{
	char drv[32], dev[40];
	int err = 0;

	CHECK(ps_probe_failure("r8169: probe of 0000:02:00.0 failed with error -5", drv,
			       sizeof(drv), dev, sizeof(dev), &err));
	CHECK_STR(drv, "r8169");
	CHECK_STR(dev, "0000:02:00.0");
	CHECK_INT(err, -5);
	CHECK(!ps_probe_failure("r8169 0000:02:00.0: probe of x failed with error -5", drv,
				sizeof(drv), dev, sizeof(dev), &err));
	CHECK(!ps_probe_failure("e1000e: Intel(R) PRO/1000 Network Driver", drv, sizeof(drv), dev,
				sizeof(dev), &err));
}

/* ---- the step on a temp root ---- */

static char root[] = "/var/tmp/test_drivers.XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[4200], cmd[4300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	CHECK(system(cmd) == 0);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void pci_fn(const char *addr, const char *ven, const char *dev, const char *cls,
		   const char *modalias, const char *driver)
{
	char rel[256], target[4200], link[4200];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/vendor", addr);
	put(rel, ven);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/device", addr);
	put(rel, dev);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/class", addr);
	put(rel, cls);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/modalias", addr);
	put(rel, modalias);
	if (driver) {
		snprintf(target, sizeof(target), "../../../../bus/pci/drivers/%s", driver);
		snprintf(link, sizeof(link), "%s/sys/bus/pci/devices/%s/driver", root, addr);
		CHECK(symlink(target, link) == 0);
	}
}

static long long num(json_object *o, const char *key, long long dflt)
{
	int64_t v;

	return ps_json_int(o, key, &v) ? (long long)v : dflt;
}

static json_object *device(json_object *data, const char *address)
{
	json_object *devs = ps_json_arr(data, "devices");

	for (size_t i = 0; i < ps_json_len(devs); i++)
		if (strcmp(ps_json_str_or(ps_json_at(devs, i), "address", ""), address) == 0)
			return ps_json_at(devs, i);
	return NULL;
}

static void test_step(void)
{
	struct harness h;
	json_object *d;

	CHECK(mkdtemp(root) != NULL);
	put("usr/share/probestick/modules.alias", aliases);
	put("usr/share/probestick/pci.ids", pci_ids);
	put("usr/share/probestick/usb.ids", usb_ids);
	put("usr/share/probestick/families", "8139too DRV_NIC_REALTEK n\n8139cp DRV_NIC_REALTEK n\n"
					     "e1000e DRV_NIC_INTEL y\nr8152 DRV_USB_NIC y\n");
	put("usr/share/probestick/firmware.json",
	    "{\"left_out\": [{\"file\": \"rtl_nic/rtl8153a-4.fw\", \"modules\": [\"r8152\"], "
	    "\"reason\": \"CONFIG_FIRMWARE_USB_NIC is off\"}]}");
	put("lib/modules/6.1.0-test/modules.dep",
	    "kernel/drivers/net/ethernet/intel/e1000e/e1000e.ko:\n"
	    "kernel/drivers/net/usb/r8152.ko: kernel/drivers/net/mii.ko\n");
	put("lib/modules/6.1.0-test/modules.builtin", "kernel/drivers/usb/host/xhci-pci.ko\n");
	/* the kernel log: r8152's firmware failed for the USB NIC at 2-1 */
	put("dev/kmsg", "3,500,2000000,-;r8152 2-1:1.0: Direct firmware load for "
			"rtl_nic/rtl8153a-4.fw failed with error -2\n"
			" SUBSYSTEM=usb\n"
			" DEVICE=c189:1\n"
			"4,300,1500000,-;ahci 0000:00:17.0: Found 1 remapped NVMe devices.\n"
			"4,301,1500001,-;ahci 0000:00:17.0: Switch your BIOS from RAID to AHCI "
			"mode to use them.\n");
	put("sys/module/e1000e/refcnt", "0\n");
	put("sys/module/r8152/refcnt", "0\n");
	pci_fn("0000:00:02.0", "0x8086", "0x10d3", "0x020000",
	       "pci:v00008086d000010D3sv00008086sd00000000bc02sc00i00", "e1000e");
	pci_fn("0000:00:03.0", "0x10ec", "0x8139", "0x020000",
	       "pci:v000010ECd00008139sv00001AF4sd00001100bc02sc00i00", NULL);
	pci_fn("0000:00:04.0", "0x1274", "0x5000", "0x040100",
	       "pci:v00001274d00005000sv00004942sd00004C4Cbc04sc01i00", NULL);
	/*
	 * Intel RST RAID mode on a notebook: ahci takes the controller (8086:282a)
	 * and finds an NVMe drive remapped behind it; and a RAID-mode controller
	 * of Intel's no module of 6.1 claims (8086:a286, 200 Series PCH)
	 */
	pci_fn("0000:00:17.0", "0x8086", "0x282a", "0x010400",
	       "pci:v00008086d0000282Asv000017AAsd0000380Abc01sc04i00", "ahci");
	pci_fn("0000:00:0e.0", "0x8086", "0xa286", "0x010400",
	       "pci:v00008086d0000A286sv000017AAsd0000380Abc01sc04i00", NULL);
	/* Intel AMT's IDE redirection, switched off (EliteBook 2530p of the corpus) */
	pci_fn("0000:00:03.2", "0x8086", "0x2a46", "0x010185",
	       "pci:v00008086d00002A46sv0000103Csd000030E1bc01sc01i85", NULL);
	/* a USB NIC: the device with one interface no driver took (USB ids carry no 0x) */
	put("sys/bus/usb/devices/2-1/idVendor", "0bda\n");
	put("sys/bus/usb/devices/2-1/idProduct", "8153\n");
	put("sys/bus/usb/devices/2-1/product", "USB 10/100/1000 LAN\n");
	put("sys/bus/usb/devices/2-1:1.0/bInterfaceClass", "ff\n");
	put("sys/bus/usb/devices/2-1:1.0/modalias",
	    "usb:v0BDAp8153d3000dc00dsc00dp00icFFiscFFip00in00\n");
	put("sys/bus/usb/devices/usb2/idVendor", "1d6b\n");

	harness_init(&h, &drivers_ops, root, PS_PLAN_QUICK);
	CHECK_INT(harness_run(&h), PS_PASS);
	CHECK_INT(num(h.data, "pci_functions", -1), 6);
	CHECK_INT(num(h.data, "pci_bound", -1), 2);
	CHECK_INT(num(h.data, "usb_devices", -1), 1);
	CHECK_INT(num(h.data, "unbound", -1), 6);
	CHECK_STR(ps_json_str(h.data, "kernel"), "6.1.0-test");

	d = device(h.data, "0000:00:03.0");
	CHECK(d != NULL);
	CHECK_STR(ps_json_str(d, "module"), "8139too");
	CHECK_STR(ps_json_str(d, "why"), "family_off");
	CHECK_STR(ps_json_str(d, "family"), "DRV_NIC_REALTEK");
	CHECK_STR(ps_json_str(d, "vendor_id"), "10ec");
	CHECK_STR(ps_json_str(d, "class"), "020000");
	CHECK_INT(ps_json_len(ps_json_arr(d, "candidates")), 2);
	CHECK(strstr(ps_json_str_or(d, "message", ""),
		     "RTL-8100/8101L/8139 PCI Fast Ethernet Adapter (Realtek Semiconductor Co., "
		     "Ltd., 10ec:8139, Ethernet controller) has no driver: 8139too") != NULL);

	d = device(h.data, "0000:00:04.0");
	CHECK(d != NULL);
	CHECK_STR(ps_json_str(d, "why"), "no_module");
	CHECK(ps_json_str(d, "module") == NULL);
	CHECK_STR(ps_json_str(d, "name"), "ES1370 [AudioPCI]");

	/* the remapped NVMe drive: under its controller, the firmware setting to change */
	d = device(h.data, "0000:00:17.0");
	CHECK(d != NULL);
	CHECK_STR(ps_json_str(d, "why"), "firmware_mode");
	CHECK_STR(ps_json_str(d, "module"), "ahci");
	CHECK_STR(ps_json_str(d, "detail"), "1 remapped NVMe drive");
	CHECK(strstr(ps_json_str_or(d, "message", ""), "1 NVMe drive behind") != NULL);
	CHECK(strstr(ps_json_str_or(d, "message", ""), "Intel RST RAID mode") != NULL);
	CHECK(strstr(ps_json_str_or(d, "message", ""), "to AHCI") != NULL);
	/* no module claims it, and the reason is the firmware's RAID mode: set AHCI */
	d = device(h.data, "0000:00:0e.0");
	CHECK(d != NULL);
	CHECK_STR(ps_json_str(d, "why"), "firmware_mode");
	CHECK(ps_json_str(d, "module") == NULL);
	CHECK(strstr(ps_json_str_or(d, "message", ""), "Intel RST RAID mode") != NULL);

	/* AMT's IDE-R: what it is, a note and no warning */
	d = device(h.data, "0000:00:03.2");
	CHECK(d != NULL);
	CHECK_STR(ps_json_str(d, "module"), "ata_generic");
	CHECK_STR(ps_json_str(d, "why"), "no_family");
	CHECK(strstr(ps_json_str_or(d, "message", ""), "IDE redirection") != NULL);

	d = device(h.data, "2-1");
	CHECK(d != NULL);
	CHECK_STR(ps_json_str(d, "bus"), "usb");
	CHECK_STR(ps_json_str(d, "vendor_id"), "0bda");
	CHECK_STR(ps_json_str(d, "device_id"), "8153");
	CHECK_STR(ps_json_str(d, "module"), "r8152");
	CHECK_STR(ps_json_str(d, "why"), "firmware_failed");
	CHECK_STR(ps_json_str(d, "firmware"), "rtl_nic/rtl8153a-4.fw");
	CHECK_STR(ps_json_str(d, "detail"), "CONFIG_FIRMWARE_USB_NIC is off");

	/* a NIC or a storage controller without its driver warns; a sound card's is info */
	CHECK_INT(harness_count(&h, "drivers.no_driver", "warn"), 4);
	CHECK_INT(harness_count(&h, "drivers.no_driver", "info"), 2);
	CHECK_INT(harness_count(&h, "drivers.firmware_failed", NULL), 0);
	harness_done(&h);

	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CHECK(system(cmd) == 0);
	}
}

static void test_cmdline(void)
{
	CHECK(ps_cmdline_has("BOOT_IMAGE=/vmlinuz nomodeset console=tty0", "nomodeset"));
	CHECK(ps_cmdline_has("nomodeset", "nomodeset"));
	CHECK(ps_cmdline_has("quiet nomodeset\n", "nomodeset"));
	CHECK(!ps_cmdline_has("i915.nomodeset=1 quiet", "nomodeset"));
	CHECK(!ps_cmdline_has("xnomodeset nomodesetx", "nomodeset"));
	CHECK(!ps_cmdline_has("", "nomodeset"));
}

/* A display in the inventory, as the step's display table reads it. */
static void display_fn(struct ps_pcie_dev *p, const char *addr, unsigned int ven, unsigned int dev,
		       const char *driver, const char *vname, const char *dname)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->id, sizeof(p->id), "pcie:%s:%04x:%04x", addr, ven, dev);
	snprintf(p->fn.address, sizeof(p->fn.address), "%s", addr);
	p->fn.vendor = ven;
	p->fn.device = dev;
	p->fn.class = 0x030000;
	p->fn.ids_known = true;
	snprintf(p->fn.driver, sizeof(p->fn.driver), "%s", driver);
	snprintf(p->fn.vendor_name, sizeof(p->fn.vendor_name), "%s", vname);
	snprintf(p->fn.device_name, sizeof(p->fn.device_name), "%s", dname);
	p->up_index = -1;
}

/*
 * The Safe graphics entry (issue 29) on a server: nomodeset on the command
 * line, the BMC's ASPEED VGA without a driver because ast refused to load
 * (its init returns -EINVAL under nomodeset), a Matrox G200eW that mgag200
 * took; both listed as displays, no framebuffer (the VGA text console).
 */
static void test_nomodeset(void)
{
	struct harness h;
	json_object *d, *shown;

	snprintf(root, sizeof(root), "%s", "/var/tmp/test_drivers.XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	put("usr/share/probestick/modules.alias",
	    "alias pci:v00001A03d00002000sv*sd*bc03sc*i* ast\n"
	    "alias pci:v0000102Bd00000532sv*sd*bc*sc*i* mgag200\n");
	put("usr/share/probestick/pci.ids", "1a03  ASPEED Technology, Inc.\n"
					    "\t2000  ASPEED Graphics Family\n"
					    "102b  Matrox Electronics Systems Ltd.\n"
					    "\t0532  MGA G200eW WPCM450\n"
					    "C 03  Display controller\n"
					    "\t00  VGA compatible controller\n");
	put("usr/share/probestick/families",
	    "ast DRV_DISPLAY_SERVER y\nmgag200 DRV_DISPLAY_SERVER y\n");
	put("lib/modules/6.1.0-test/modules.dep",
	    "kernel/drivers/gpu/drm/ast/ast.ko.xz: kernel/drivers/gpu/drm/drm.ko.xz\n"
	    "kernel/drivers/gpu/drm/mgag200/mgag200.ko.xz: kernel/drivers/gpu/drm/drm.ko.xz\n");
	put("run/probestick/coldplug.json",
	    "{\"failed\": [{\"module\": \"ast\", \"error\": \"Invalid argument\"}]}");
	put("proc/cmdline",
	    "probestick.partuuid=9d5e92f7-01 nomodeset console=tty0 console=ttyS0\n");
	put("sys/module/mgag200/refcnt", "1\n");
	pci_fn("0000:03:00.0", "0x1a03", "0x2000", "0x030000",
	       "pci:v00001A03d00002000sv000015D9sd00001B95bc03sc00i00", NULL);
	pci_fn("0000:04:00.0", "0x102b", "0x0532", "0x030000",
	       "pci:v0000102Bd00000532sv00001028sd00000235bc03sc00i00", "mgag200");

	harness_init(&h, &drivers_ops, root, PS_PLAN_QUICK);
	h.inv.pcie = calloc(2, sizeof(*h.inv.pcie));
	CHECK(h.inv.pcie != NULL);
	h.inv.n_pcie = 2;
	display_fn(&h.inv.pcie[0], "0000:03:00.0", 0x1a03, 0x2000, "", "ASPEED Technology, Inc.",
		   "ASPEED Graphics Family");
	display_fn(&h.inv.pcie[1], "0000:04:00.0", 0x102b, 0x0532, "mgag200",
		   "Matrox Electronics Systems Ltd.", "MGA G200eW WPCM450");
	CHECK_INT(harness_run(&h), PS_PASS);
	CHECK_INT(num(h.data, "unbound", -1), 1);
	d = device(h.data, "0000:03:00.0");
	CHECK(d != NULL);
	CHECK_STR(ps_json_str(d, "module"), "ast");
	CHECK_STR(ps_json_str(d, "why"), "nomodeset");
	CHECK(strstr(ps_json_str_or(d, "message", ""),
		     "ASPEED Graphics Family (ASPEED Technology, Inc., 1a03:2000, VGA compatible "
		     "controller) has no driver: ast would drive it, but nomodeset (the Safe "
		     "graphics boot entry) holds display drivers back") != NULL);
	/* a display is not storage or network: said, not warned */
	CHECK_INT(harness_count(&h, "drivers.no_driver", "info"), 1);
	CHECK_INT(harness_count(&h, "drivers.no_driver", "warn"), 0);
	CHECK_INT(ps_json_bool(h.data, "nomodeset"), 1);
	CHECK(ps_json_str(h.data, "framebuffer") == NULL);
	shown = ps_json_arr(h.data, "displays");
	CHECK_INT(ps_json_len(shown), 2);
	CHECK_STR(ps_json_str(ps_json_at(shown, 0), "address"), "0000:03:00.0");
	CHECK(ps_json_str(ps_json_at(shown, 0), "driver") == NULL);
	CHECK_STR(ps_json_str(ps_json_at(shown, 0), "vendor_id"), "1a03");
	CHECK_STR(ps_json_str(ps_json_at(shown, 1), "driver"), "mgag200");
	CHECK_STR(ps_json_str(ps_json_at(shown, 1), "name"), "MGA G200eW WPCM450");
	harness_done(&h);

	/* the same machine booted normally: ast's failure is a load failure again */
	put("proc/cmdline", "probestick.partuuid=9d5e92f7-01 console=tty0\n");
	put("sys/class/graphics/fb0/name", "mgag200drmfb\n");
	harness_init(&h, &drivers_ops, root, PS_PLAN_QUICK);
	CHECK_INT(harness_run(&h), PS_PASS);
	d = device(h.data, "0000:03:00.0");
	CHECK(d != NULL);
	CHECK_STR(ps_json_str(d, "why"), "load_failed");
	CHECK_INT(ps_json_bool(h.data, "nomodeset"), 0);
	CHECK_STR(ps_json_str(h.data, "framebuffer"), "mgag200drmfb");
	harness_done(&h);
	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CHECK(system(cmd) == 0);
	}
}

int main(void)
{
	test_alias();
	test_ids();
	test_probe_line();
	test_cmdline();
	test_step();
	test_nomodeset();
	return check_done("test_drivers");
}
