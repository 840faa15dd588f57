/*
 * drivers.h - every PCI function and USB device that no driver took, named
 * from pci.ids / usb.ids, with the module that would drive it (the full
 * kernel's modules.alias, shipped in the image as data) and why this image
 * does not: left out by .config, in no driver family, failed to load, its
 * firmware missing or refused, its probe failed (the kernel log says which).
 *
 * The image's data is in /usr/share/probestick/ (initramfs/drivers-data.py):
 * modules.alias.zst, pci.ids.zst, usb.ids.zst, families, firmware.json; on
 * an installed system the running kernel's modules.alias and the system's
 * pci.ids and usb.ids stand in.
 */
#ifndef PS_HW_DRIVERS_H
#define PS_HW_DRIVERS_H

#include "hw/inventory.h"

#include <stdbool.h>
#include <stddef.h>

/* Why a device has no driver, most specific first. */
enum ps_nodrv_why {
	PS_NODRV_NO_MODULE = 0,	  /* no module of the full kernel claims it */
	PS_NODRV_FAMILY_OFF,	  /* its module is in a driver family .config leaves out */
	PS_NODRV_NO_FAMILY,	  /* its module is in no driver family of probestick */
	PS_NODRV_DROPPED,	  /* modules.conf drops it from its family (!name) */
	PS_NODRV_LOAD_FAILED,	  /* in the image, but loading it failed (coldplug) */
	PS_NODRV_FIRMWARE_FAILED, /* loaded; the kernel log says its firmware did not load */
	PS_NODRV_FIRMWARE_OUT,	  /* loaded; firmware it names is not in the image */
	PS_NODRV_PROBE_FAILED,	  /* loaded; the kernel log says its probe failed */
	PS_NODRV_NOT_LOADED,	  /* in the image, never loaded */
	PS_NODRV_NOT_BOUND,	  /* loaded (or built in), did not take the device */
	PS_NODRV_FIRMWARE_MODE,	  /* no module: the firmware set it up in a mode Linux lacks */
	PS_NODRV_NOMODESET,	  /* a display whose driver nomodeset holds back (safe graphics) */
	PS_NODRV_WHYS
};
/* "no_module", "family_off", ...: the report's drivers data. */
const char *ps_nodrv_why_name(enum ps_nodrv_why w);
/* The same names by value, NULL-terminated (a field table's enum). */
extern const char *const ps_nodrv_why_names[PS_NODRV_WHYS + 1];

/*
 * storage_mode.c: storage hidden by a firmware setting (Intel RST RAID
 * mode). A function no module claims: the reason and what to change in the
 * firmware setup (an Intel RAID 0104xx or mass storage 0180xx controller),
 * or what it is (8086:09ab, RST's stand-in for a controller behind VMD);
 * NULL for any other.
 */
const char *ps_storage_firmware_mode(unsigned int vendor, unsigned int device, unsigned int class);
/*
 * "ahci 0000:00:17.0: Found 2 remapped NVMe devices." (drivers/ata/ahci.c):
 * the count, the controller's address into dev; 0 for any other line.
 */
int ps_ahci_remapped_nvme(const char *text, char *dev, size_t dev_len);
/* What hides remapped NVMe drives and the setting that shows them. */
const char *ps_rst_remapped_advice(void);
/*
 * Intel AMT's IDE redirection (IDE-R, an Intel IDE-class 0101xx function of
 * the chipset's management engine): what it is and why it has no driver;
 * NULL for any other function.
 */
const char *ps_storage_amt_ider(unsigned int vendor, unsigned int device, unsigned int class);

struct ps_nodrv_dev {
	char bus[4];	  /* "pci", "usb" */
	char address[32]; /* "0000:03:00.0", "1-2" */
	const char *id;	  /* the inventory's stable id (PCI), NULL */
	unsigned int vendor, device;
	unsigned int class; /* PCI: the 24-bit class; USB: the first unbound interface's class */
	char vendor_name[96], device_name[128], class_name[64];
	char modalias[160];  /* PCI: the function's; USB: the first unbound interface's */
	char module[32];     /* the module that would drive it, "" none */
	char candidates[96]; /* every module that claims it, comma separated */
	enum ps_nodrv_why why;
	char family[32];    /* the driver family of module, "" none */
	char firmware[96];  /* the firmware file concerned, "" */
	char detail[192];   /* the error, or why the firmware was left out */
	bool matters;	    /* storage, network or USB host, or a family covers it: warn */
	char message[1024]; /* the finding's text, read after the subject */
};

/* A firmware file that failed to load for a device that has its driver (the boot log). */
struct ps_fw_failure {
	char device[40]; /* the kernel's name: "0000:02:00.0", "2-1:1.0" */
	char file[96];
	char error[16];	  /* "-2" */
	char detail[192]; /* why the image does not ship it, "" */
};

struct ps_drivers {
	struct ps_nodrv_dev *devs;
	size_t n;
	struct ps_fw_failure *fw;
	size_t n_fw;
	size_t pci_total, pci_bound, usb_total, usb_bound;
	char release[64];	/* the kernel whose aliases were used */
	char alias_source[160]; /* the file the aliases came from, "" none */
	char pci_ids_source[160], usb_ids_source[160];
	bool kmsg_read; /* the boot log could be read */
	bool nomodeset; /* the kernel command line says nomodeset (the safe graphics entry) */
};

/*
 * Read every PCI function (from inv, which may be NULL: then from sysfs
 * alone) and USB device below root, keep those without a driver and explain
 * each. 0, or -ENOMEM; missing data files leave names and modules unknown.
 */
int ps_drivers_read(const char *root, const struct ps_inventory *inv, struct ps_drivers *out);
void ps_drivers_free(struct ps_drivers *d);

/* ---- the pure parts (unit tests feed them recorded data) ---- */

/*
 * The modules whose alias patterns (modules.alias lines without "alias ":
 * "pci:v00008086d000010D3sv*sd*bc*sc*i* e1000e") match modalias: all of
 * them comma separated into all, the most specific (most literal
 * characters in its pattern) into best. The number of matches.
 */
int ps_alias_match(const char *aliases, size_t len, const char *modalias, char *best,
		   size_t best_len, char *all, size_t all_len);

/*
 * Names from a pci.ids or usb.ids text: the vendor, and the device when
 * device >= 0. Each "" when not listed. 0, or -ENOENT when the vendor is not.
 */
int ps_ids_lookup(const char *ids, size_t len, unsigned int vendor, int device, char *vname,
		  size_t vlen, char *dname, size_t dlen);
/* The class name ("C 02 / 00" lines): the subclass's when listed, else the class's. */
int ps_ids_class(const char *ids, size_t len, unsigned int cls, int subclass, char *name,
		 size_t nlen);

/* Whether a kernel command line holds word as a whole word ("nomodeset"). */
bool ps_cmdline_has(const char *cmdline, const char *word);

/* "r8169: probe of 0000:02:00.0 failed with error -5" (drivers/base/dd.c). */
bool ps_probe_failure(const char *text, char *drv, size_t drv_len, char *dev, size_t dev_len,
		      int *err);

#endif
