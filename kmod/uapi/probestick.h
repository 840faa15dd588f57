/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * probestick.h - user-space interface of probestick.ko (/dev/probestick).
 * Shared verbatim by the module and the userland; every change that is not
 * a pure addition at the end of a struct bumps PROBESTICK_ABI_VERSION.
 */
#ifndef _UAPI_PROBESTICK_H
#define _UAPI_PROBESTICK_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * 2: capture windows (PROBESTICK_IOC_KC_*); the ABI-1 ioctls are unchanged.
 * 3: probes by name (ids follow the build), KC_ATTACH/KC_DETACH (attach once
 *    per plan), windows owned by their file; records name their probe.
 * 4: struct probestick_pcie_link grows at its end (LnkCtl, LnkCtl2, LnkSta2,
 *    the port above, the link partner below a port, the module's verdict);
 *    the ABI-3 entry size is still accepted and gets the ABI-3 fields.
 *    PROBESTICK_IOC_DMI_MEMORY (SMBIOS type 17) and PROBESTICK_IOC_IMC (the
 *    memory controller's channels); the aer and mce probes and their metrics.
 *    The verdict of each end of a link (kmod/pcie_verdict.h), idle (5) for a
 *    power-managed lower speed, and PROBESTICK_LINK_MANAGED.
 */
#define PROBESTICK_ABI_VERSION 4
#define PROBESTICK_DEVICE "/dev/probestick"

struct probestick_version {
	__u32 abi;		/* PROBESTICK_ABI_VERSION of the module */
	__u32 nr_pci;		/* PCI functions present now */
	char release[64];	/* module version string, NUL-terminated */
};

/* Link speeds as the PCIe spec encodes them (LnkCap/LnkSta field values). */
enum probestick_pcie_speed {
	PROBESTICK_SPEED_UNKNOWN = 0,
	PROBESTICK_SPEED_2_5GT = 1,
	PROBESTICK_SPEED_5GT = 2,
	PROBESTICK_SPEED_8GT = 3,
	PROBESTICK_SPEED_16GT = 4,
	PROBESTICK_SPEED_32GT = 5,
	PROBESTICK_SPEED_64GT = 6,
};

#define PROBESTICK_LINK_IS_PCIE   (1U << 0)	/* has a PCI Express capability */
#define PROBESTICK_LINK_HAS_LINK  (1U << 1)	/* port type has a link (not RCiEP) */
#define PROBESTICK_LINK_HAS_UP    (1U << 2)	/* up_* fields are valid */
#define PROBESTICK_LINK_TRAINING  (1U << 3)	/* LnkSta Link Training set */
#define PROBESTICK_LINK_DOWNGRADED (1U << 4)	/* trained below min(cap, upstream cap) */
#define PROBESTICK_LINK_UP_REGS   (1U << 5)	/* ABI 4: up_lnk* hold the port above's registers */
#define PROBESTICK_LINK_PARTNER   (1U << 6)	/* ABI 4: partner_cap_* hold the other end's LnkCap */
#define PROBESTICK_LINK_PARTNER_BELOW (1U << 7)	/* ABI 4: that end is the function below (a port) */
#define PROBESTICK_LINK_PRESENT_BELOW (1U << 8)	/* ABI 4: a port with a function below it */
#define PROBESTICK_LINK_MANAGED   (1U << 9)	/* ABI 4: a display controller on the link */

struct probestick_pcie_link {
	__u16 domain;
	__u8 bus;
	__u8 devfn;
	__u16 vendor;
	__u16 device;
	__u32 class;		/* 24-bit class code */
	__u32 flags;		/* PROBESTICK_LINK_* */
	__u8 port_type;		/* PCI_EXP_TYPE_* from the PCIe capability */
	__u8 cap_speed;		/* LnkCap max link speed (enum probestick_pcie_speed) */
	__u8 cap_width;		/* LnkCap max link width (lanes) */
	__u8 sta_speed;		/* LnkSta current link speed */
	__u8 sta_width;		/* LnkSta negotiated width */
	__u8 up_cap_speed;	/* upstream port's LnkCap speed */
	__u8 up_cap_width;	/* upstream port's LnkCap width */
	__u8 reserved0;
	__u32 cap2_speeds;	/* LnkCap2 Supported Link Speeds vector, bit 0 = 2.5 GT/s */
	__u32 lnkcap;		/* raw registers, for the report */
	__u16 lnksta;
	__u16 reserved1;
	__u32 lnkcap2;
	/* ABI 4 from here on: the entry of ABI 3 ends above (40 bytes). */
	__u16 lnkctl;		/* raw LnkCtl, LnkCtl2, LnkSta2 (0 when not implemented) */
	__u16 lnkctl2;
	__u16 lnksta2;
	__u8 verdict;		/* enum ps_pcie_verdict of kmod/pcie_verdict.h, computed here */
	__u8 partner_cap_speed;	/* the other end of the link: the port above an upstream- */
	__u8 partner_cap_width;	/* facing function, the function below a port (LnkCap) */
	__u8 reserved2;
	__u16 reserved3;
	__u32 lost_kbps;	/* a degraded link: kB/s lost each way (pcie_verdict.h) */
	__u32 up_lnkcap;	/* the port above (pci_upstream_bridge), raw, with UP_REGS */
	__u32 up_lnkcap2;
	__u16 up_lnkctl;
	__u16 up_lnkctl2;
	__u16 up_lnksta;
	__u16 up_lnksta2;
};

/* The entry size of ABI 3, which PROBESTICK_IOC_PCIE_LINKS still accepts. */
#define PROBESTICK_PCIE_LINK_V3_SIZE 40

/*
 * PROBESTICK_IOC_PCIE_LINKS: the caller sets count to the room in links;
 * the module fills at most that many and sets count to the number of
 * functions present (which may be larger: call again with more room).
 */
struct probestick_pcie_table {
	__u32 count;
	__u32 entry_size;	/* sizeof(struct probestick_pcie_link), checked */
	__u64 links;		/* user pointer to struct probestick_pcie_link[] */
};

/* Largest count the module accepts: far above any machine's function count. */
#define PROBESTICK_PCIE_LINKS_MAX (1U << 20)

/*
 * Capture windows (ABI 2, attach-once since ABI 3). The probes are found by
 * name: KC_PROBES lists them with their ids, and bit n of every mask below
 * is the probe whose id is n. Ids follow the module's build (a kernel
 * without CONFIG_BLOCK has no block probe and the next probe takes its
 * place), so user space never assumes one.
 *
 *   KC_PROBES   which probes this module has, whether this kernel can
 *               attach them, and why not;
 *   KC_ATTACH   patch the chosen probes' tracepoints in, once per plan;
 *   KC_START    a window: zero every histogram and start recording;
 *   KC_STOP     stop recording (the data stays until the next start);
 *   KC_SNAPSHOT copy the records out (also while a window runs);
 *   KC_DETACH   stop any window and patch the tracepoints out again.
 *
 * The attachment and its windows belong to the open file that made them:
 * another file gets EBUSY for ATTACH, START, STOP and DETACH (PROBES and
 * SNAPSHOT work from any file), and when the owning file is released (the
 * program exits or is killed) the window stops and the probes detach. A
 * START on a file without an attachment attaches for that window alone
 * and its STOP detaches again (the ABI-2 behaviour). Errors: EPERM without
 * CAP_SYS_ADMIN; ENOTTY for an unknown command; EFAULT for an unreadable
 * or unwritable argument; EINVAL for a wrong size, version, flag, reserved
 * field, mask or count, and for a call the state does not allow (STOP
 * without a running window, DETACH without an attachment); EBUSY when
 * another file owns the attachment, or ATTACH finds one, or START finds a
 * running window; ENODATA for a SNAPSHOT before any window; ENOMEM.
 * Histogram buckets follow kmod/hist_layout.h (PROBESTICK_KC_BUCKETS of them).
 */
#define PROBESTICK_KC_MAX_PROBES 32		/* masks are __u32 */
#define PROBESTICK_KC_NO_ID	0xffffffffU	/* id of a probe this module was built without */

#define PROBESTICK_KC_PROBE_AVAILABLE (1U << 0)	/* its tracepoints exist in this kernel */
#define PROBESTICK_KC_PROBE_ATTACHED  (1U << 1)	/* its tracepoints are patched in now */

struct probestick_kc_probe {
	__u32 id;		/* bit number in masks, or PROBESTICK_KC_NO_ID */
	__u32 flags;		/* PROBESTICK_KC_PROBE_* */
	__s32 error;		/* negative errno of the last failure, 0 if none */
	__u32 reserved;
	char name[16];		/* "hardirq", "softirq", "block", "nic" */
	char reason[96];	/* why it is unavailable or failed, else "" */
};

/* PROBESTICK_IOC_KC_PROBES: same count protocol as PROBESTICK_IOC_PCIE_LINKS. */
struct probestick_kc_probes {
	__u32 count;		/* in: room in probes; out: number of probes */
	__u32 entry_size;	/* sizeof(struct probestick_kc_probe), checked */
	__u64 probes;		/* user pointer to struct probestick_kc_probe[] */
};

/* PROBESTICK_IOC_KC_ATTACH */
struct probestick_kc_attach {
	__u32 mask;		/* in: probe ids as bits, not 0, only ids KC_PROBES lists */
	__u32 flags;		/* in: must be 0 */
	__u32 attached;		/* out: the probes of mask that attached */
	__u32 reserved;		/* must be 0 */
};

/* PROBESTICK_IOC_KC_START */
struct probestick_kc_start {
	__u32 mask;		/* in: probe ids as bits, not 0, only ids KC_PROBES lists */
	__u32 flags;		/* in: must be 0 */
	__u32 attached;		/* out: the probes of mask this window records */
	__u32 reserved;		/* must be 0 */
};

/* Record metrics: what a record's histogram holds. */
enum probestick_kc_metric {
	/* HARDIRQ: extra[0] = IRQ_NONE invocations on a shared line, not in the buckets */
	PROBESTICK_KC_M_HARDIRQ = 1,	/* key = IRQ line; ns in the handler; per CPU */
	PROBESTICK_KC_M_SOFTIRQ = 2,	/* key = vector (NET_RX = 3 ...); ns; per CPU */
	PROBESTICK_KC_M_BLOCK_LAT = 3,	/* key = dev_t, dir; ns issue -> complete */
	PROBESTICK_KC_M_BLOCK_IRQ = 4,	/* key = dev_t, dir; ns hardirq entry -> complete */
	PROBESTICK_KC_M_NIC_LAT = 5,	/* key = ifindex; ns hardirq entry -> NAPI done */
	PROBESTICK_KC_M_NIC_WORK = 6,	/* key = ifindex; packets per poll, dir = budget */
	PROBESTICK_KC_M_NIC_PKTS = 7,	/* key = ifindex; extra[0] rx, extra[1] tx; no buckets */
	/*
	 * ABI 4, events rather than histograms (no buckets): extra[0] is how
	 * many times the same event was seen in the window.
	 * AER: name = the reporting device ("0000:01:00.0"), dir = severity
	 * (0 uncorrected non-fatal, 1 fatal, 2 corrected, as the kernel's
	 * aer_event), sum = the AER status register, max = 1 when the TLP
	 * header was logged.
	 * MCE: key = bank, dir = the CPU that logged it, sum = MCi_STATUS,
	 * max = MCi_ADDR.
	 */
	PROBESTICK_KC_M_AER = 8,
	PROBESTICK_KC_M_MCE = 9,
};

#define PROBESTICK_KC_DIR_READ	0
#define PROBESTICK_KC_DIR_WRITE	1
#define PROBESTICK_KC_DIR_OTHER	2

#define PROBESTICK_KC_ALL_CPUS	0xffffU		/* cpu of a record merged over CPUs */
#define PROBESTICK_KC_BUCKETS	528		/* PS_HIST_BUCKETS of hist_layout.h */
#define PROBESTICK_KC_RECORD_VERSION 2	/* 2: probe */

struct probestick_kc_record {
	__u16 metric;		/* enum probestick_kc_metric */
	__u16 cpu;		/* CPU, or PROBESTICK_KC_ALL_CPUS */
	__u32 key;		/* IRQ line, vector, dev_t (MKDEV 12:20 bits) or ifindex */
	__u32 dir;		/* block: PROBESTICK_KC_DIR_*; NIC_WORK: budget */
	__u32 probe;		/* id of the probe that recorded it */
	char name[32];		/* IRQ action, disk or netdev name */
	char bus[32];		/* NIC: parent device (PCI address), else "" */
	__u64 count;		/* values recorded (sum of buckets) */
	__u64 sum;		/* sum of the values */
	__u64 max;		/* largest value */
	__u64 extra[2];		/* NIC_PKTS: packets received, sent */
	__u64 buckets[PROBESTICK_KC_BUCKETS];
};

/* Why events were not recorded: nothing overflows silently. */
struct probestick_kc_drops {
	__u64 keys_full;	/* more IRQ lines / disks / NICs than the tables hold */
	__u64 hists_full;	/* a CPU ran out of histograms (module param hists_per_cpu) */
	__u64 rq_table_full;	/* in-flight requests beyond the pairing table */
	__u64 rq_unknown;	/* completions of requests issued before the window */
	__u64 rq_requeued;	/* pending requests dropped by a requeue */
	__u64 reserved[3];
};

#define PROBESTICK_KC_IDLE	0	/* no window since the module loaded */
#define PROBESTICK_KC_RUNNING	1
#define PROBESTICK_KC_STOPPED	2

/*
 * PROBESTICK_IOC_KC_SNAPSHOT: set version and record_size, count = room in
 * records (0 to ask how many there are). The module fills at most count
 * records and sets count to the number it has; call again with more room
 * when that is larger (it can grow while a window runs).
 */
struct probestick_kc_snapshot {
	__u32 version;		/* in: PROBESTICK_KC_RECORD_VERSION */
	__u32 record_size;	/* in: sizeof(struct probestick_kc_record) */
	__u32 count;		/* in: room; out: records present */
	__u32 state;		/* out: PROBESTICK_KC_IDLE/RUNNING/STOPPED */
	__u64 records;		/* in: user pointer to struct probestick_kc_record[] */
	__u64 window_ns;	/* out: length of the window (so far) */
	__u32 mask;		/* out: probes the window asked for */
	__u32 attached;		/* out: probes the window recorded */
	__u32 nr_cpus;		/* out: nr_cpu_ids */
	__u32 patched;		/* out: probes whose tracepoints are patched in now */
	struct probestick_kc_drops drops;	/* out */
};

/* Largest room accepted: far above what the key tables can produce. */
#define PROBESTICK_KC_RECORDS_MAX (1U << 20)

/*
 * PROBESTICK_IOC_DMI_MEMORY (ABI 4): every SMBIOS type 17 (Memory Device)
 * structure, found with dmi_walk() and decoded by kmod/smbios17.h (the
 * decoder the userland's sysfs fallback uses too). Same count protocol as
 * PROBESTICK_IOC_PCIE_LINKS; entry_size is sizeof(struct probestick_dimm).
 * Unknown numbers are 0xffff... of their width, unknown strings "".
 */
#define PROBESTICK_DIMM_POPULATED	(1U << 0)	/* a device is installed */
#define PROBESTICK_DIMM_SIZE_KNOWN	(1U << 1)	/* size_bytes is a fact */
#define PROBESTICK_DIMM_STR		64

struct probestick_dimm {
	__u16 handle;
	__u16 array_handle;
	__u32 flags;		/* PROBESTICK_DIMM_* */
	__u64 size_bytes;	/* 0 for an empty slot */
	__u16 total_width;	/* bits, data + ECC; 0xffff unknown */
	__u16 data_width;	/* bits; 0xffff unknown */
	__u8 form_factor;	/* SMBIOS codes, 0 when the structure has none */
	__u8 type;
	__u8 rank;		/* 0 unknown */
	__u8 length;		/* of the formatted area: which fields the firmware filled */
	__u16 type_detail;
	__u16 configured_voltage_mv;	/* 0 unknown */
	__u32 speed_mts;	/* 0 unknown */
	__u32 configured_speed_mts;	/* 0 unknown */
	char locator[PROBESTICK_DIMM_STR];
	char bank[PROBESTICK_DIMM_STR];
	char manufacturer[PROBESTICK_DIMM_STR];
	char serial[PROBESTICK_DIMM_STR];
	char part_number[PROBESTICK_DIMM_STR];
	char asset_tag[PROBESTICK_DIMM_STR];
	__u32 reserved;
};

struct probestick_dimm_table {
	__u32 count;		/* in: room; out: type 17 structures present */
	__u32 entry_size;	/* sizeof(struct probestick_dimm), checked */
	__u64 dimms;		/* user pointer to struct probestick_dimm[] */
};

#define PROBESTICK_DIMMS_MAX 4096

/*
 * PROBESTICK_IOC_IMC (ABI 4): what the memory controller's own registers
 * say about its channels, read only (kmod/imc.c dispatches to one reader
 * per CPU family). status 0: channels[] holds nr_channels entries; else a
 * negative errno and reason says why nothing was read (no reader for this
 * CPU, a BAR the firmware left disabled, SMN not available).
 */
#define PROBESTICK_IMC_MAX_CHANNELS	24
#define PROBESTICK_IMC_MAX_DIMMS	2
#define PROBESTICK_IMC_DDR_UNKNOWN	0
#define PROBESTICK_IMC_DDR3		3
#define PROBESTICK_IMC_DDR4		4
#define PROBESTICK_IMC_DDR5		5
#define PROBESTICK_IMC_LPDDR3		13
#define PROBESTICK_IMC_LPDDR4		14
#define PROBESTICK_IMC_LPDDR5		15

#define PROBESTICK_IMC_CH_PRESENT	(1U << 0)	/* the controller has this channel */
#define PROBESTICK_IMC_CH_POPULATED	(1U << 1)	/* and memory is installed on it */
#define PROBESTICK_IMC_CH_ECC_KNOWN	(1U << 2)	/* the reader can tell ECC ... */
#define PROBESTICK_IMC_CH_ECC		(1U << 3)	/* ... and ECC is enabled on it */

struct probestick_imc_dimm {
	__u32 size_mib;		/* 0 unknown */
	__u8 present;		/* a DIMM is in this position */
	__u8 ranks;		/* 0 unknown */
	__u8 width;		/* device width x4/x8/x16/x32, 0 unknown */
	__u8 reserved;
};

struct probestick_imc_channel {
	__u8 controller;	/* memory controller (node for AMD, MC for Intel) */
	__u8 channel;		/* within it */
	__u8 ddr;		/* PROBESTICK_IMC_DDR* */
	__u8 flags;		/* PROBESTICK_IMC_CH_* */
	struct probestick_imc_dimm dimms[PROBESTICK_IMC_MAX_DIMMS];
	__u32 regs[4];		/* the raw registers decoded, per family (docs/report.md) */
};

struct probestick_imc {
	__s32 status;		/* out: 0 or a negative errno */
	__u32 nr_channels;	/* out */
	char family[32];	/* out: the reader, "intel-skl", "intel-tgl", "amd-zen" */
	char reason[96];	/* out: why not, when status < 0 */
	__u32 cpu_vendor;	/* out: 1 Intel, 2 AMD (boot_cpu_data), 0 other */
	__u32 cpu_family;	/* out */
	__u32 cpu_model;	/* out */
	__u32 reserved;
	struct probestick_imc_channel channels[PROBESTICK_IMC_MAX_CHANNELS];
};

#define PROBESTICK_IOC_MAGIC 0xB5
#define PROBESTICK_IOC_VERSION _IOR(PROBESTICK_IOC_MAGIC, 0x00, struct probestick_version)
#define PROBESTICK_IOC_PCIE_LINKS _IOWR(PROBESTICK_IOC_MAGIC, 0x01, struct probestick_pcie_table)
#define PROBESTICK_IOC_KC_PROBES _IOWR(PROBESTICK_IOC_MAGIC, 0x10, struct probestick_kc_probes)
#define PROBESTICK_IOC_KC_START _IOWR(PROBESTICK_IOC_MAGIC, 0x11, struct probestick_kc_start)
#define PROBESTICK_IOC_KC_STOP _IO(PROBESTICK_IOC_MAGIC, 0x12)
#define PROBESTICK_IOC_KC_SNAPSHOT _IOWR(PROBESTICK_IOC_MAGIC, 0x13, struct probestick_kc_snapshot)
#define PROBESTICK_IOC_KC_ATTACH _IOWR(PROBESTICK_IOC_MAGIC, 0x14, struct probestick_kc_attach)
#define PROBESTICK_IOC_KC_DETACH _IO(PROBESTICK_IOC_MAGIC, 0x15)
#define PROBESTICK_IOC_DMI_MEMORY _IOWR(PROBESTICK_IOC_MAGIC, 0x02, struct probestick_dimm_table)
#define PROBESTICK_IOC_IMC _IOR(PROBESTICK_IOC_MAGIC, 0x03, struct probestick_imc)

#endif /* _UAPI_PROBESTICK_H */
