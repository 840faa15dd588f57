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

/* 2: capture windows (PROBESTICK_IOC_KC_*); the ABI-1 ioctls are unchanged. */
#define PROBESTICK_ABI_VERSION 2
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
};

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
 * Capture windows (ABI 2). User space starts a window for a set of probes,
 * stops it, and copies out the histograms the probes filled in it:
 *   KC_PROBES   which probes this kernel can attach, and why not;
 *   KC_START    attach the chosen probes, zero every histogram;
 *   KC_STOP     detach them (the data stays until the next start);
 *   KC_SNAPSHOT copy the records out (also while a window runs).
 * Histogram buckets follow kmod/hist_layout.h (PROBESTICK_KC_BUCKETS of them).
 */
#define PROBESTICK_KC_HARDIRQ	(1U << 0)	/* handler time and count per IRQ line, per CPU */
#define PROBESTICK_KC_SOFTIRQ	(1U << 1)	/* softirq time per vector, per CPU */
#define PROBESTICK_KC_BLOCK	(1U << 2)	/* request latency per disk and direction */
#define PROBESTICK_KC_NIC	(1U << 3)	/* IRQ to NAPI completion, poll work, packets */
#define PROBESTICK_KC_ALL	0x0fU
#define PROBESTICK_KC_NR_PROBES	4		/* bit n of a mask is probe id n */

#define PROBESTICK_KC_PROBE_AVAILABLE (1U << 0)	/* its tracepoints exist in this kernel */
#define PROBESTICK_KC_PROBE_ATTACHED  (1U << 1)	/* attached in the current/last window */

struct probestick_kc_probe {
	__u32 id;		/* bit number in PROBESTICK_KC_* masks */
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

struct probestick_kc_start {
	__u32 mask;		/* in: PROBESTICK_KC_* bits, not 0, no unknown bit */
	__u32 flags;		/* in: must be 0 */
	__u32 attached;		/* out: the probes that attached */
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
};

#define PROBESTICK_KC_DIR_READ	0
#define PROBESTICK_KC_DIR_WRITE	1
#define PROBESTICK_KC_DIR_OTHER	2

#define PROBESTICK_KC_ALL_CPUS	0xffffU		/* cpu of a record merged over CPUs */
#define PROBESTICK_KC_BUCKETS	528		/* PS_HIST_BUCKETS of hist_layout.h */
#define PROBESTICK_KC_RECORD_VERSION 1

struct probestick_kc_record {
	__u16 metric;		/* enum probestick_kc_metric */
	__u16 cpu;		/* CPU, or PROBESTICK_KC_ALL_CPUS */
	__u32 key;		/* IRQ line, vector, dev_t (MKDEV 12:20 bits) or ifindex */
	__u32 dir;		/* block: PROBESTICK_KC_DIR_*; NIC_WORK: budget */
	__u32 reserved;
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
	__u32 mask;		/* out: probes asked for */
	__u32 attached;		/* out: probes attached */
	__u32 nr_cpus;		/* out: nr_cpu_ids */
	__u32 reserved;
	struct probestick_kc_drops drops;	/* out */
};

/* Largest room accepted: far above what the key tables can produce. */
#define PROBESTICK_KC_RECORDS_MAX (1U << 20)

#define PROBESTICK_IOC_MAGIC 0xB5
#define PROBESTICK_IOC_VERSION _IOR(PROBESTICK_IOC_MAGIC, 0x00, struct probestick_version)
#define PROBESTICK_IOC_PCIE_LINKS _IOWR(PROBESTICK_IOC_MAGIC, 0x01, struct probestick_pcie_table)
#define PROBESTICK_IOC_KC_PROBES _IOWR(PROBESTICK_IOC_MAGIC, 0x10, struct probestick_kc_probes)
#define PROBESTICK_IOC_KC_START _IOWR(PROBESTICK_IOC_MAGIC, 0x11, struct probestick_kc_start)
#define PROBESTICK_IOC_KC_STOP _IO(PROBESTICK_IOC_MAGIC, 0x12)
#define PROBESTICK_IOC_KC_SNAPSHOT _IOWR(PROBESTICK_IOC_MAGIC, 0x13, struct probestick_kc_snapshot)

#endif /* _UAPI_PROBESTICK_H */
