/*
 * inventory.h - the typed inventory: what the machine holds, read once per
 * plan by the hw/ readers and handed to every step through struct ps_ctx.
 * Steps never read the report to learn about the machine.
 *
 * Unknown is explicit: a string "" (written to the report as null), a
 * number PS_UNKNOWN (-1, for values that cannot be negative), a tri-state
 * PS_TRI_UNKNOWN. Never a default that looks like a fact (0, false, "HDD").
 */
#ifndef PS_HW_INVENTORY_H
#define PS_HW_INVENTORY_H

#include "decode/ata_capacity.h"
#include "decode/decode.h"
#include "hw/edac.h"
#include "hw/ethtool.h"

#include <probestick.h>

#include <json-c/json.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PS_UNKNOWN, ps_tri and PS_TRI_UNKNOWN come from decode/decode.h. */

#define PS_ID_LEN   160 /* a stable identity: "drive:wwn:0x5000c500a1b2c3d4" */
#define PS_STR_LEN  96
#define PS_ADDR_LEN 16 /* "0000:00:1f.2" */

/* What kind of device a finding or a verdict is about. */
/* "drive", "nic", "link", "dimm", "machine", or NULL for PS_DEV_NONE. */
const char *ps_dev_kind_name(enum ps_dev_kind k);

/* A device as findings and verdicts name it: stable id for machines, name for people. */
struct ps_dev_ref {
	enum ps_dev_kind kind;
	const char *id;	  /* stable identity (see the ps_*_identity rules), NULL for none */
	const char *name; /* what a person sees: "sda", "eth0", "0000:01:00.0", "DIMM A1" */
};

struct ps_machine {
	char id[PS_ID_LEN]; /* the machine-id rule (decode/machine_id.h), also the reports folder */
	char vendor[PS_STR_LEN], product[PS_STR_LEN], serial[PS_STR_LEN], uuid[48];
	char bios_vendor[PS_STR_LEN], bios_version[PS_STR_LEN], bios_date[32];
	char board_vendor[PS_STR_LEN], board_product[PS_STR_LEN];
	char cpu_model[128];
	char microcode[32];
	int cpu_logical, cpu_cores, cpu_packages; /* PS_UNKNOWN */
	int64_t memory_bytes;			  /* MemTotal, PS_UNKNOWN */
	char kernel_cmdline[1024];
	bool under_hypervisor; /* the CPU's hypervisor flag: emulated devices, no speed rules */
	bool cpu_flags_known;  /* /proc/cpuinfo had a flags line: under_hypervisor is a fact */
	char cpu_flags[2048];  /* that line's words (the first processor's), "" unknown */
};

/* A PCIe link verdict, computed once (kmod/pcie_verdict.h) wherever the registers come from. */
enum ps_link_verdict {
	PS_LINK_NONE = 0, /* conventional PCI, or no link of its own: no verdict */
	PS_LINK_OK,
	PS_LINK_LIMITED,  /* at the best the weaker end supports: not a fault */
	PS_LINK_DEGRADED, /* below what both ends support */
	PS_LINK_DOWN, /* the link is down with a device at the other end (an empty slot: NONE) */
	PS_LINK_IDLE, /* full width, a lower speed power management explains: not a fault */
};
const char *ps_link_verdict_name(enum ps_link_verdict v);

struct ps_pcie_dev {
	char id[PS_ID_LEN];   /* "pcie:0000:01:00.0:8086:10d3[:dsn]" */
	struct ps_pcie_fn fn; /* address, ids, class, port type, link, upstream, driver */
	int up_index;	      /* index of the upstream function in inv->pcie, -1 */
	enum ps_link_verdict verdict;
	double lost_gbps; /* bandwidth a degraded link loses (GB/s, each way), NAN otherwise */
	int best_speed;	  /* the speed code the link runs at when busy (both ends, target), 0 */
};

struct ps_drive {
	char id[PS_ID_LEN];	 /* "drive:wwn:...", else "drive:sn:<model>:<serial>", else
				    "drive:path:<by-path>" */
	char name[32];		 /* "sda", "nvme0n1" */
	char path[48];		 /* "/dev/sda" */
	char vendor[PS_STR_LEN]; /* SCSI INQUIRY vendor ("SEAGATE"); "" for ATA, NVMe, virtio */
	char model[PS_STR_LEN], serial[PS_STR_LEN], firmware[48];
	char wwn[PS_STR_LEN]; /* "0x50014ee2b5d4a3c1", NVMe "eui.…"/"nvme.…" as lsblk shows it */
	char identity_source[16]; /* where model and firmware come from: "ata", "scsi", "nvme",
				     "mmc", "" */
	char serial_source[16];	  /* "ata", "vpd80", "nvme", "virtio", "mmc", "usb", "" */
	enum ps_transport transport;
	int64_t size_bytes;
	int logical_sector, physical_sector;
	ps_tri rotational;	  /* from a rotation rate the device reported, else unknown */
	int rotation_rpm;	  /* PS_UNKNOWN; 1 = non-rotating (SSD) as ATA word 217 says */
	char rotation_source[16]; /* "ata" (word 217), "vpd_b1", "nvme", "mmc", "" */
	ps_tri removable;
	bool has_ata; /* ata holds the drive's IDENTIFY data (vpd_pg89) */
	struct ps_ata_identify ata;
	struct ps_ata_capacity capacity; /* what an HPA or a DCO hides (SATA/PATA on libata) */
	char link[48]; /* negotiated link as text: "SATA 6.0 Gb/s", "PCIe 8.0 GT/s x4", "" */
	int queue_depth;
	char pci_address[PS_ADDR_LEN]; /* nearest PCI ancestor (the controller) */
	int ata_port;		       /* N of ataN, PS_UNKNOWN */
	char nvme_ctrl[16];	       /* "nvme0" for an NVMe namespace */
	char usb_path[32];	       /* "2-1" for a USB drive */
	bool boot_device;	       /* the stick probestick booted from: never a test target */
	/* what sysfs said before smartctl's identity replaced it (hw/drive_identity.c); "" none */
	char sysfs_model[PS_STR_LEN], sysfs_serial[PS_STR_LEN], sysfs_firmware[48];
	char sysfs_identity_source[16];
};

/* struct ps_coalesce (every setting PS_UNKNOWN when unsupported) comes from hw/ethtool.h. */

struct ps_nic {
	char id[PS_ID_LEN]; /* "nic:<permanent MAC>", else "nic:<MAC>" */
	char name[IF_NAMESIZE];
	char driver[32], firmware[64], bus_info[32];
	char mac[18], perm_mac[18];
	char operstate[16];
	ps_tri carrier;
	int speed_mbps; /* PS_UNKNOWN */
	char duplex[8]; /* "full", "half", "" */
	ps_tri autoneg;
	int mtu, max_mtu;
	int rx_queues, tx_queues, combined_queues; /* combined_queues = channels.combined */
	int msix_vectors;
	char pci_address[PS_ADDR_LEN];
	bool has_coalesce; /* false: the driver answers no coalescing query at all */
	struct ps_coalesce coalesce;
	int min_mtu;			 /* PS_UNKNOWN */
	int carrier_changes;		 /* since the interface appeared, PS_UNKNOWN */
	int carrier_up, carrier_down;	 /* IFLA_CARRIER_UP/DOWN_COUNT, PS_UNKNOWN */
	struct ps_eth_stats stats;	 /* the standard counters when the inventory was taken */
	struct ps_eth_features features; /* offloads */
	struct ps_eth_modes modes;	 /* link modes: supported, advertised, link partner */
	struct ps_eth_state link_state;	 /* the driver's link state, why it is down */
	struct ps_eth_rings rings;
	struct ps_eth_channels channels; /* queues the driver uses and can use */
	struct ps_eth_pause pause;
	bool ethtool; /* the live ethtool queries ran (not under a fixture root) */
};

struct ps_dimm_slot {
	char id[PS_ID_LEN]; /* "dimm:<locator>[:<serial>]" */
	struct ps_dimm d;   /* SMBIOS type 17 */
	bool ram;	    /* the system's RAM, not a ROM listed as a memory device */
	char
	    channel[PS_CHANNEL_LEN]; /* the channel its names give (ps_dimm_channels), "" unknown */
};

/* What the memory controller's registers say (PROBESTICK_IOC_IMC), when the module answered. */
struct ps_imc {
	bool read;	 /* the module was asked and answered */
	int status;	 /* 0, or the reader's negative errno (reason says why) */
	char family[32]; /* "intel-skl", "amd-zen", "" */
	char reason[96];
	unsigned int cpu_vendor, cpu_family, cpu_model;
	struct probestick_imc_channel ch[PROBESTICK_IMC_MAX_CHANNELS];
	size_t n;
};

struct ps_memory {
	int64_t total_bytes;		  /* PS_UNKNOWN */
	int slots_total, slots_populated; /* RAM devices only (ps_dimm_slot.ram), PS_UNKNOWN */
	struct ps_dimm_slot *dimms;
	size_t n_dimms;
	const char *source;   /* of the DIMM slots: "module" (dmi_walk) or "sysfs"; NULL none */
	int channels_smbios;  /* distinct channels of the populated DIMMs' names, PS_UNKNOWN */
	int channels_imc;     /* populated channels the controller reports, PS_UNKNOWN */
	int channels_present; /* channels the controller has, PS_UNKNOWN */
	struct ps_imc imc;
	struct ps_edac edac; /* EDAC's controllers and DIMMs with their counts at inventory time */
};

/*
 * What can change a figure besides the hardware (hw/environment.c): CPU
 * frequency policy, SMT, mitigations, idle driver, huge pages, temperatures.
 * Written to the report's environment{}; the inventory's view shows it.
 */
#define PS_ENV_ITEMS 40
struct ps_env_item {
	char name[48];
	char value[200];
};
struct ps_env_temp {
	char sensor[48];
	double max_c; /* the hottest input of the sensor chip */
};
struct ps_environment {
	bool read;
	char cpufreq_driver[48];  /* "" when the kernel has no cpufreq for this CPU */
	char governor[96];	  /* "performance", or "performance,powersave" when CPUs differ */
	int64_t min_khz, max_khz; /* the policy's limits (scaling_*), PS_UNKNOWN */
	int64_t hw_min_khz, hw_max_khz; /* the CPU's (cpuinfo_*), PS_UNKNOWN */
	ps_tri boost;			/* turbo / boost allowed */
	char epp[48];			/* energy_performance_preference */
	char cpuidle_driver[48];
	char smt_control[24]; /* on, off, forceoff, notsupported, notimplemented */
	ps_tri smt_active;
	char thp[32]; /* transparent huge pages: the [chosen] mode */
	struct ps_env_item mitigations[PS_ENV_ITEMS];
	size_t n_mitigations;
	struct ps_env_temp temps[16];
	size_t n_temps;
};

/* Read the environment below root; 0 (missing files leave fields unknown) or -errno. */
int ps_environment_read(const char *root, struct ps_environment *env);
/* The report's environment{} (docs/report.md). */
void ps_environment_json(const struct ps_environment *env, json_object *report);

/*
 * How the machine booted and what its kernel lets load (hw/boot.c): the
 * report's boot{}. With Secure Boot on, Debian's kernel locks itself down
 * and loads only modules it can verify: probestick.ko unless it was signed
 * with a key the machine trusts (make mok).
 */
struct ps_boot {
	bool read;
	char firmware[8];	 /* "uefi", "bios" (no /sys/firmware/efi), "" unknown */
	ps_tri secure_boot;	 /* the SecureBoot variable; unknown on BIOS or without efivarfs */
	ps_tri setup_mode;	 /* SetupMode: no platform key, the firmware verifies nothing */
	char lockdown[20];	 /* "none", "integrity", "confidentiality"; "" unknown */
	ps_tri sig_enforce;	 /* module.sig_enforce: modules without a valid signature refused */
	ps_tri module_loaded;	 /* /sys/module/probestick exists */
	ps_tri module_signed;	 /* the installed probestick.ko carries a signature */
	char module_refused[96]; /* the kernel's error when coldplug loaded it, "" none */
};

/* Read the boot facts below root; 0 (missing files leave fields unknown) or -errno. */
int ps_boot_read(const char *root, struct ps_boot *boot);
/* The report's boot{} (docs/report.md). */
void ps_boot_json(const struct ps_boot *boot, json_object *report);

/* The sections of the inventory, in the order they are read. */
enum ps_inv_section {
	PS_INV_MACHINE,
	PS_INV_PCIE,
	PS_INV_DRIVES,
	PS_INV_NICS,
	PS_INV_MEMORY,
	PS_INV_SECTIONS
};
const char *ps_inv_section_name(enum ps_inv_section s); /* "machine", "pcie", ... */

struct ps_inventory {
	bool taken;
	struct ps_machine machine;
	struct ps_pcie_dev *pcie;
	size_t n_pcie;
	struct ps_drive *drives;
	size_t n_drives;
	struct ps_nic *nics;
	size_t n_nics;
	struct ps_memory memory;
	char boot_disk[32];		   /* the whole disk holding the stick, "" unknown */
	int err[PS_INV_SECTIONS];	   /* 0, or the negative errno that section's reader hit */
	const char *pcie_source;	   /* "module" or "sysfs" */
	struct ps_environment environment; /* read with the other sections */
	struct ps_boot boot;		   /* read with the other sections */
};

struct ps_inventory_opts {
	const char *root;      /* "" live; a fixture tree in tests */
	int module_fd;	       /* /dev/probestick, or -1: sysfs only */
	const char *boot_disk; /* whole disk of the stick ("sdb"), NULL or "" unknown */
};

/*
 * Read every section. A section that cannot be read keeps what it has and
 * records its error in inv->err[]; the others are still complete. Returns 0
 * (even with section errors) or -ENOMEM. Frees what inv held before.
 */
int ps_inventory_take(struct ps_inventory *inv, const struct ps_inventory_opts *o);
void ps_inventory_free(struct ps_inventory *inv);

/* Only the machine and the NICs: what the machine-id needs when a plan has no inventory step. */
int ps_inventory_identify(struct ps_inventory *inv, const char *root);

/* The report's machine{}, pcie[], drives[], nics[] and memory{} from inv (docs/report.md). */
void ps_inventory_json(const struct ps_inventory *inv, json_object *report);

/* A NIC's offloads that are on (an array of names) and its counters (an object), as the
 * report's nics[] holds them; NULL when the driver gave none. nic_link reads them again. */
json_object *ps_nic_offloads_json(const struct ps_eth_features *f);
json_object *ps_nic_stats_json(const struct ps_eth_stats *st);

/* Lookups by name (sda, eth0, 0000:01:00.0), NULL when absent. */
const struct ps_drive *ps_inventory_drive(const struct ps_inventory *inv, const char *name);
const struct ps_nic *ps_inventory_nic(const struct ps_inventory *inv, const char *name);
const struct ps_pcie_dev *ps_inventory_pcie(const struct ps_inventory *inv, const char *address);

/* References for findings and verdicts. */
struct ps_dev_ref ps_drive_ref(const struct ps_drive *d);
struct ps_dev_ref ps_nic_ref(const struct ps_nic *n);
struct ps_dev_ref ps_pcie_ref(const struct ps_pcie_dev *p);
struct ps_dev_ref ps_dimm_ref(const struct ps_dimm_slot *s);

/* ---- identity rules (hw/identity.c), pure: the same device gives the same id after a reboot ----
 */

/* WWN, else model + serial, else the by-path fallback (not stable across moves). */
void ps_drive_identity(const char *wwn, const char *model, const char *serial,
		       const char *fallback_path, char *out, size_t len);
/* The permanent MAC, else the current one. */
void ps_nic_identity(const char *perm_mac, const char *mac, char *out, size_t len);
/* Address plus vendor:device, plus the Device Serial Number capability when present (0: none). */
void ps_pcie_identity(const char *address, unsigned int vendor, unsigned int device, uint64_t dsn,
		      char *out, size_t len);
/* Locator plus serial when the DIMM has a meaningful one. */
void ps_dimm_identity(const char *locator, const char *serial, char *out, size_t len);

#endif
