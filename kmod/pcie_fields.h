/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The fields of the PCIe Link registers (PCIe r6.0 7.5.3.6-7.5.3.20), plain
 * C shared by probestick.ko and the userland: LnkCap, LnkCtl, LnkSta,
 * LnkCap2, LnkCtl2, LnkSta2 decoded in one place, whoever read them.
 */
#ifndef PROBESTICK_PCIE_FIELDS_H
#define PROBESTICK_PCIE_FIELDS_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif

/* LnkCap */
#define PS_LNKCAP_SPEED(v)	((v) & 0xfU)		/* Max Link Speed, a speed code */
#define PS_LNKCAP_WIDTH(v)	(((v) >> 4) & 0x3fU)	/* Maximum Link Width */
#define PS_LNKCAP_ASPM(v)	(((v) >> 10) & 0x3U)	/* ASPM Support: bit 0 L0s, bit 1 L1 */
#define PS_LNKCAP_CLOCK_PM	(1U << 18)
#define PS_LNKCAP_SURPRISE_DOWN	(1U << 19)		/* Surprise Down Error Reporting */
#define PS_LNKCAP_DLLLA_REPORT	(1U << 20)		/* Data Link Layer Link Active Reporting */
#define PS_LNKCAP_BW_NOTIFY	(1U << 21)		/* Link Bandwidth Notification */
#define PS_LNKCAP_PORT(v)	(((v) >> 24) & 0xffU)

/* LnkCtl */
#define PS_LNKCTL_ASPM(v)	((v) & 0x3U)		/* ASPM Control: bit 0 L0s, bit 1 L1 */
#define PS_LNKCTL_DISABLE	(1U << 4)		/* Link Disable */
#define PS_LNKCTL_CCC		(1U << 6)		/* Common Clock Configuration */
#define PS_LNKCTL_CLKREQ	(1U << 8)		/* Enable Clock Power Management */
#define PS_LNKCTL_HAWD		(1U << 9)		/* Hardware Autonomous Width Disable */
#define PS_LNKCTL_LBMIE		(1U << 10)		/* Bandwidth Management Interrupt Enable */
#define PS_LNKCTL_LABIE		(1U << 11)		/* Autonomous Bandwidth Interrupt Enable */

/* LnkSta */
#define PS_LNKSTA_SPEED(v)	((v) & 0xfU)		/* Current Link Speed */
#define PS_LNKSTA_WIDTH(v)	(((v) >> 4) & 0x3fU)	/* Negotiated Link Width */
#define PS_LNKSTA_TRAINING	(1U << 11)		/* Link Training */
#define PS_LNKSTA_SLOT_CLOCK	(1U << 12)
#define PS_LNKSTA_DLLLA		(1U << 13)		/* Data Link Layer Link Active */
#define PS_LNKSTA_LBMS		(1U << 14)		/* Link Bandwidth Management Status */
#define PS_LNKSTA_LABS		(1U << 15)		/* Link Autonomous Bandwidth Status */

/* LnkCap2, LnkCtl2, LnkSta2 */
#define PS_LNKCAP2_SPEEDS(v)	(((v) >> 1) & 0x7fU)	/* bit 0 = 2.5 GT/s */
#define PS_LNKCAP2_CROSSLINK	(1U << 8)
#define PS_LNKCTL2_TARGET(v)	((v) & 0xfU)		/* Target Link Speed, a speed code */
#define PS_LNKCTL2_HASD		(1U << 5)		/* Hardware Autonomous Speed Disable */
#define PS_LNKSTA2_DEEMPH_3_5DB	(1U << 0)		/* Current De-emphasis: -3.5 dB (else -6) */
#define PS_LNKSTA2_EQ_COMPLETE	(1U << 1)		/* Equalization 8.0 GT/s Complete */
#define PS_LNKSTA2_EQ_PHASES(v)	(((v) >> 2) & 0x7U)	/* phases 1, 2, 3 successful */
#define PS_LNKSTA2_EQ_REQUEST	(1U << 5)		/* Link Equalization Request 8.0 GT/s */

/* A register read from a function that did not answer (gone, D3cold). */
static inline bool ps_pcie_reg16_absent(uint16_t v)
{
	return v == 0xffff;
}

/* "L0s L1", "L1", "L0s" or "" (none) for an ASPM field (LnkCap or LnkCtl). */
static inline const char *ps_pcie_aspm_name(unsigned int field)
{
	static const char *const names[4] = { "", "L0s", "L1", "L0s L1" };

	return names[field & 3U];
}

#endif /* PROBESTICK_PCIE_FIELDS_H */
