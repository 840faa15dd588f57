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

#define PROBESTICK_ABI_VERSION 1
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

#define PROBESTICK_IOC_MAGIC 0xB5
#define PROBESTICK_IOC_VERSION _IOR(PROBESTICK_IOC_MAGIC, 0x00, struct probestick_version)
#define PROBESTICK_IOC_PCIE_LINKS _IOWR(PROBESTICK_IOC_MAGIC, 0x01, struct probestick_pcie_table)

#endif /* _UAPI_PROBESTICK_H */
