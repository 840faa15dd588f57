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

/* ---- pcie_sysfs_decode.c ---- */

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
	int sta_width;	 /* 0: link down */
	uint32_t speeds; /* bit n-1 set: speed code n supported */
};

/* What the PCI Express capability in config space says about a function. */
struct ps_pcie_config {
	bool is_pcie;
	int port_type; /* PCI_EXP_TYPE_*, -1 when not PCIe */
	int cap_version;
	uint32_t lnkcap;
	uint16_t lnksta;
	uint32_t lnkcap2; /* 0 when the capability is version 1 */
};

/*
 * Walk the capability list of a config space dump. 0 when the answer is
 * certain, -ENODATA when the dump ends before the list does (the 64 bytes a
 * non-root reader gets), -EINVAL for a dump that is not a PCI header.
 */
int ps_pcie_decode_config(const uint8_t *cfg, size_t len, struct ps_pcie_config *out);

/* Fill a link from the raw LnkCap, LnkSta and LnkCap2 registers. */
void ps_pcie_link_from_regs(uint32_t lnkcap, uint16_t lnksta, uint32_t lnkcap2,
			    struct ps_pcie_link *out);
/* Every speed up to cap_speed (PCIe requires the lower ones). */
uint32_t ps_pcie_speeds_upto(int cap_speed);
/*
 * True when the link is up and trained below min(own capability, link
 * partner's capability); partner values <= 0 mean unknown (own cap only).
 */
bool ps_pcie_link_downgraded(const struct ps_pcie_link *link, int partner_speed, int partner_width);

/* One PCI function as the probe collects it, whatever the source. */
struct ps_pcie_fn {
	char address[16];
	unsigned int vendor, device, class;
	bool ids_known;
	bool is_pcie;
	int port_type; /* -1 unknown */
	bool has_link;
	struct ps_pcie_link link;
	char upstream[16]; /* "" when the parent is not a PCI function */
	char driver[64];   /* "" when unbound */
	const char *source;
};

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
/* Transport from a resolved block device path; *ata_port gets N of "ataN" or -1. */
enum ps_transport ps_drive_transport(const char *devpath, int *ata_port);
const char *ps_transport_name(enum ps_transport t);

/* ---- ata_link.c ---- */

/* libata sata_spd ("3.0 Gbps") -> "SATA 3.0 Gb/s"; -EINVAL for "<unknown>"/garbage. */
int ps_sata_link_text(const char *sata_spd, char *out, size_t len);
/* SCSI VPD page 0x80 (unit serial number) -> trimmed serial; -EINVAL/-ENODATA. */
int ps_vpd_pg80_serial(const uint8_t *page, size_t len, char *out, size_t outlen);

/* ---- smbios17.c ---- */

#define PS_DMI_STR 64

/* One SMBIOS type 17 Memory Device; strings "" and numbers -1 when unknown. */
struct ps_dimm {
	char locator[PS_DMI_STR];
	char bank[PS_DMI_STR];
	bool populated;
	int64_t size_bytes; /* 0 for an empty slot */
	const char *type;   /* "DDR4", or NULL */
	const char *form_factor;
	int speed_mts;
	int configured_speed_mts;
	int rank;
	char manufacturer[PS_DMI_STR];
	char part_number[PS_DMI_STR];
	char serial[PS_DMI_STR];
};

/* Decode a raw type 17 structure with its string table. 0, -EINVAL or -ENODATA. */
int ps_smbios17_decode(const uint8_t *raw, size_t len, struct ps_dimm *out);
const char *ps_smbios17_type_name(unsigned int code);
const char *ps_smbios17_form_factor_name(unsigned int code);

#endif
