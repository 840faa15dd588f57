/*
 * decode.h - pure decoders behind the inventory probes (no file access), so
 * unit tests can feed them tables of real register values and raw blobs.
 */
#ifndef PS_PROBES_DECODE_H
#define PS_PROBES_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probestick_pcie_link;

/*
 * Unknown is explicit: a number PS_UNKNOWN (-1, for values that cannot be
 * negative), a tri-state PS_TRI_UNKNOWN; never a default that looks like a
 * fact (0, false).
 */
#define PS_UNKNOWN (-1)
typedef int8_t ps_tri; /* 1 true, 0 false, PS_TRI_UNKNOWN */
#define PS_TRI_UNKNOWN ((ps_tri)-1)

/* What a finding, a verdict or a kernel log line is about (hw/inventory.h names them). */
enum ps_dev_kind {
	PS_DEV_NONE = 0, /* the step or the plan itself */
	PS_DEV_MACHINE,
	PS_DEV_DRIVE,
	PS_DEV_NIC,
	PS_DEV_LINK, /* a PCIe function and the link above it */
	PS_DEV_DIMM,
	PS_DEV_KINDS
};

/* How much a finding weighs (core/step.h's findings; engines state theirs through hooks). */
enum ps_severity { PS_SEV_INFO = 0, PS_SEV_WARN, PS_SEV_FAIL };

/* ---- machine_id_rule.c ---- */

/* False for empty strings and the placeholders cheap BIOSes leave in DMI. */
bool ps_dmi_meaningful(const char *s);
/* False for a missing, all-zero, all-F or well-known placeholder UUID. */
bool ps_dmi_uuid_meaningful(const char *uuid);
/*
 * The machine-id rule: DMI UUID (lowercase) if real, else a meaningful DMI
 * serial, else the MAC without colons; any argument may be NULL. Sanitized
 * to [A-Za-z0-9._-], never starting with '.'. 0, or -ENODATA and "unknown".
 */
int ps_machine_id_rule(const char *uuid, const char *serial, const char *mac, char *out,
		       size_t len);

/* ---- pcie.c ---- */

/* Link speed codes as LnkCap/LnkSta encode them: 1 = 2.5 GT/s ... 6 = 64 GT/s. */
#define PS_PCIE_SPEED_MAX 6
/* GT/s of a speed code, 0.0 for an unknown code. */
double ps_pcie_speed_gts(int speed);
/* sysfs max_link_speed/current_link_speed text -> speed code; 0 = unknown. */
int ps_pcie_parse_sysfs_speed(const char *s);
/* sysfs link width text -> lanes; -1 for 255 (conventional PCI), garbage, 0 = no link. */
int ps_pcie_parse_sysfs_width(const char *s);
/* Report name of a PCIe capability port type, or NULL. */
const char *ps_pcie_port_type_name(int type);
/* Port types that own a link of their own (not RC-integrated devices). */
bool ps_pcie_port_type_has_link(int type);
/* Root and switch downstream ports: their link partner is below them. */
bool ps_pcie_port_faces_down(int type);

struct ps_pcie_link {
	int cap_speed; /* speed code, 0 unknown */
	int cap_width; /* lanes, -1 unknown */
	int sta_speed;
	int sta_width;	 /* 0: link down, -1 unknown */
	uint32_t speeds; /* bit n-1 set: speed code n supported */
	bool training;	 /* LnkSta Link Training: not settled, not judged */
};

/* What the PCI Express capability in config space says about a function. */
struct ps_pcie_config {
	bool is_pcie;
	int port_type; /* PCI_EXP_TYPE_*, -1 when not PCIe */
	int cap_version;
	uint32_t lnkcap;
	uint16_t lnksta;
	uint16_t lnkctl;
	uint32_t lnkcap2; /* 0 when the capability is version 1 */
	uint16_t lnkctl2, lnksta2;
};

/* The raw Link registers of a function (kmod/pcie_fields.h decodes them). */
struct ps_pcie_regs {
	bool known; /* read from config space (module or root's sysfs) */
	uint32_t lnkcap, lnkcap2;
	uint16_t lnkctl, lnkctl2, lnksta, lnksta2;
};

/*
 * Walk the capability list of a config space dump. 0 when the answer is
 * certain, -ENODATA when the dump ends before the list does (the 64 bytes a
 * non-root reader gets), -EINVAL for a dump that is not a PCI header.
 * The extended list (the 4096 bytes root reads through ECAM) gives dsn.
 */
int ps_pcie_decode_config(const uint8_t *cfg, size_t len, struct ps_pcie_config *out);
/*
 * The Device Serial Number extended capability (ID 3) of a 4 KiB config
 * dump: 0 and *dsn, -ENOENT when the list has none, -ENODATA when the dump
 * has no extended space (256 bytes or less), -EINVAL for a looping list.
 */
int ps_pcie_decode_dsn(const uint8_t *cfg, size_t len, uint64_t *dsn);

/* Fill a link from the raw LnkCap, LnkSta and LnkCap2 registers. */
void ps_pcie_link_from_regs(uint32_t lnkcap, uint16_t lnksta, uint32_t lnkcap2,
			    struct ps_pcie_link *out);
/* Every speed up to cap_speed (PCIe requires the lower ones). */
uint32_t ps_pcie_speeds_upto(int cap_speed);

/* One PCI function as the probe collects it, whatever the source. */
struct ps_pcie_fn {
	char address[16];
	unsigned int vendor, device, class;
	bool ids_known;
	bool is_pcie;
	int port_type; /* -1 unknown */
	bool has_link;
	struct ps_pcie_link link;
	struct ps_pcie_regs regs;    /* its own Link registers */
	struct ps_pcie_regs up_regs; /* the port above, as the module read it with them */
	char upstream[16];	     /* "" when the parent is not a PCI function */
	char driver[64];	     /* "" when unbound */
	uint64_t dsn;		     /* Device Serial Number capability, 0 when absent or unread */
	bool judged;		     /* the module judged the link (sysfs: the userland does) */
	int verdict;		     /* then: its enum ps_pcie_verdict (kmod/pcie_verdict.h) */
	uint32_t lost_kbps;	     /* and the bandwidth a degraded link loses, kB/s */
	char vendor_name[96], device_name[128], class_name[64]; /* pci.ids, "" unknown */
	const char *source;
};

/* ---- pci_names.c (libpci's pci.ids) ---- */

/*
 * Names of vendor, device and class from root's /usr/share/misc/pci.ids(.gz)
 * through libpci; "" where pci.ids has none. ps_pci_names_close() frees the
 * loaded list. Not thread-safe: the inventory calls it from one thread.
 */
struct ps_pci_names;
struct ps_pci_names *ps_pci_names_open(const char *root);
void ps_pci_names_lookup(struct ps_pci_names *n, struct ps_pcie_fn *fn);
void ps_pci_names_close(struct ps_pci_names *n);

/* Convert one PROBESTICK_IOC_PCIE_LINKS entry (driver and upstream stay empty). */
void ps_pcie_from_module(const struct probestick_pcie_link *m, struct ps_pcie_fn *fn);

/* ---- sysfs_path.c ---- */

/* "0000:00:1f.2": n characters at s form a PCI function address. */
bool ps_is_pci_address(const char *s, size_t n);
/*
 * The PCI function components of a resolved /sys/devices path, innermost
 * first: skip = 0 gives the nearest one, 1 its parent. 0 or -ENOENT.
 */
int ps_pci_ancestor(const char *devpath, int skip, char *out, size_t len);

enum ps_transport {
	PS_TR_UNKNOWN,
	PS_TR_SATA,
	PS_TR_ATA,
	PS_TR_NVME,
	PS_TR_VIRTIO,
	PS_TR_USB,
	PS_TR_SCSI,
	PS_TR_MMC,
};
/* The USB device ("2-1", "1-1.4") a resolved sysfs path is below. 0 or -ENOENT. */
int ps_usb_device(const char *devpath, char *out, size_t len);
/*
 * Where a disk sits, for an identity of last resort: "pci-0000:00:17.0-ata-1",
 * "pci-0000:00:14.0-usb-2-1", "pci-0000:01:00.0-nvme-1"; "" when unknown.
 */
void ps_drive_location(const char *devpath, const char *name, char *out, size_t len);

/* Transport from a resolved block device path; *ata_port gets N of "ataN" or -1. */
enum ps_transport ps_drive_transport(const char *devpath, int *ata_port);
const char *ps_transport_name(enum ps_transport t);

/* ---- ata_link.c ---- */

/* libata sata_spd ("3.0 Gbps") -> "SATA 3.0 Gb/s"; -EINVAL for "<unknown>"/garbage. */
int ps_sata_link_text(const char *sata_spd, char *out, size_t len);
/* SCSI VPD page 0x80 (unit serial number) -> trimmed serial; -EINVAL/-ENODATA. */
int ps_vpd_pg80_serial(const uint8_t *page, size_t len, char *out, size_t outlen);

/* ---- ata_identify.c ---- */

#define PS_ATA_IDENTIFY_LEN 512

#define PS_ATA_MAX_PHYSICAL_SECTOR (1 << 20) /* bytes: larger is no drive's */

/* What ATA IDENTIFY DEVICE says, as smartctl -i reads it. */
struct ps_ata_identify {
	char model[41];	   /* words 27-46 */
	char serial[21];   /* words 10-19 */
	char firmware[9];  /* words 23-26 */
	uint64_t wwn;	   /* words 108-111 when word 87/84 say valid, else 0 */
	int rotation_rpm;  /* word 217: PS_UNKNOWN not reported, 1 non-rotating, else rpm */
	ps_tri ncq;	   /* word 76 bit 8 */
	int queue_depth;   /* word 75 + 1 with NCQ, else PS_UNKNOWN */
	uint8_t sata_gens; /* word 76 bits 3:1: bit 0 1.5, bit 1 3.0, bit 2 6.0 Gb/s */
	int sata_gen;	   /* word 77 bits 3:1: negotiated 1..3, 0 unknown */
	ps_tri trim;	   /* word 169 bit 0 */
	int64_t sectors;   /* LBA48 (100-103) or LBA28 (60-61) user sectors, PS_UNKNOWN */
	/* bytes, from word 106 and 117-118; physical PS_UNKNOWN past the maximum */
	int logical_sector, physical_sector;
	const char *form_factor; /* word 168: "2.5 inches", "M.2", or NULL */
	ps_tri checksum_ok;	 /* word 255; unknown when it carries no signature */
};

/*
 * Decode a 512-byte IDENTIFY DEVICE block as libata exposes it (little-endian
 * words, strings with the two bytes of each word swapped). 0, -EINVAL for a
 * packet device or garbage, -ENODATA for a short block.
 */
int ps_ata_identify_decode(const uint8_t *id, size_t len, struct ps_ata_identify *out);
/*
 * SCSI VPD page 0x89 (ATA Information, SAT), sysfs vpd_pg89 of an ATA disk:
 * the IDENTIFY data it carries at byte 60. 0, -EINVAL, -ENODATA.
 */
int ps_vpd_pg89_identify(const uint8_t *page, size_t len, struct ps_ata_identify *out);
/* ATA word 217 / VPD B1 rotation rate: PS_UNKNOWN (0, reserved), 1 non-rotating, or rpm. */
int ps_rotation_rate(unsigned int v);
/* SCSI VPD page 0xB1 (Block Device Characteristics): rotation rate (ps_rotation_rate). */
int ps_vpd_pgb1_rotation(const uint8_t *page, size_t len, int *rpm);
/*
 * SCSI VPD page 0x83 (Device Identification): the logical unit's NAA
 * designator as "0x5000c500a1b2c3d4" (as lsblk shows a WWN), else its
 * EUI-64 as "eui.0025388b71b4a2f3". 0, -ENODATA (only T10/vendor ids), -EINVAL.
 */
int ps_vpd_pg83_wwn(const uint8_t *page, size_t len, char *out, size_t outlen);
/*
 * sysfs wwid of a SCSI disk ("naa.5000c500a1b2c3d4") as a WWN ("0x5000c500a1b2c3d4");
 * "eui." ids as they are; -ENODATA for "t10." ids, which name the model, not the unit.
 */
int ps_scsi_wwid_wwn(const char *wwid, char *out, size_t outlen);
/* ATA WWN words as "0x5000c500a1b2c3d4"; 0 gives "". */
void ps_wwn_text(uint64_t wwn, char *out, size_t outlen);

/* ---- smbios17.c ---- */

#define PS_DMI_STR 64

/* One SMBIOS type 17 Memory Device; strings "" and numbers -1 when unknown. */
struct ps_dimm {
	char locator[PS_DMI_STR];
	char bank[PS_DMI_STR];
	unsigned int handle;
	unsigned int array_handle; /* its type 16 Physical Memory Array */
	bool populated;
	int64_t size_bytes; /* 0 for an empty slot */
	const char *type;   /* "DDR4", or NULL */
	int type_code;	    /* the SMBIOS code of type, 0 none */
	const char *form_factor;
	int speed_mts;
	int configured_speed_mts;
	int rank;
	int total_width, data_width; /* bits; total > data: ECC */
	int configured_voltage_mv;
	char manufacturer[PS_DMI_STR];
	char part_number[PS_DMI_STR];
	char serial[PS_DMI_STR];
};

/* Decode a raw type 17 structure with its string table (kmod/smbios17.h). 0, -EINVAL or -ENODATA.
 */
int ps_smbios17_decode(const uint8_t *raw, size_t len, struct ps_dimm *out);
/* A PROBESTICK_IOC_DMI_MEMORY entry (the same decoder, run in the module). */
struct probestick_dimm;
void ps_dimm_from_smbios(const struct probestick_dimm *m, struct ps_dimm *out);
const char *ps_smbios17_type_name(unsigned int code);
const char *ps_smbios17_form_factor_name(unsigned int code);

/* ---- memory_channel.c ---- */

/*
 * The memory channel of each SMBIOS memory device of one table, from its
 * locator and bank locator (memory_channel.c, docs/rules.md): socket,
 * controller or node, and channel as the names give them ("P0 A" for
 * DIMM 0 / P0 CHANNEL A, "MC1 A" for Controller1-ChannelA, "P0 NODE1 0"
 * for P0_Node1_Channel0_Dimm0, "CPU1 NODE1 C" for CPU1_DIMM_C1 / NODE 1),
 * "" where they name none ("DIMM 0" / "BANK 0", "A1_DIMM0" / "A1_BANK0").
 * The whole table is read: DIMM_A1..DIMM_A12 name processors, not
 * channels, and names that put two slots at one place of one channel
 * lack a level and say nothing. Pure.
 */
#define PS_CHANNEL_LEN 24
struct ps_slot_names {
	const char *locator, *bank;   /* in */
	char channel[PS_CHANNEL_LEN]; /* out, "" unknown */
};
void ps_dimm_channels(struct ps_slot_names *slots, size_t n);
/* The same for a table of one slot. */
void ps_dimm_channel(const char *locator, const char *bank, char *out, size_t len);

/* ---- memory_array.c ---- */

/* One SMBIOS type 16 Physical Memory Array: what its devices hold. */
#define PS_ARRAY_SYSTEM_MEMORY 0x03
struct ps_memory_array {
	unsigned int handle;
	int use;     /* 0x03 system memory, 0x05 flash, ... (DSP0134 7.17.2); -1 unknown */
	int ecc;     /* 7.17.3 code, -1 unknown */
	int devices; /* memory devices it has room for */
};
/* Decode a raw type 16 structure: 0, -EINVAL or -ENODATA. */
int ps_smbios16_decode(const uint8_t *raw, size_t len, struct ps_memory_array *out);
/*
 * Whether a memory device is the system's RAM (a DIMM slot, soldered RAM),
 * not a ROM listed as a memory device: its array's use (-1 when unknown)
 * and its own type.
 */
bool ps_dimm_is_ram(const struct ps_dimm *d, int array_use);

#endif
