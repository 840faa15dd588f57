/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCIe register names that older kernels' pci_regs.h lacks, so the
 * decoders read the same on every supported kernel.
 */
#ifndef PROBESTICK_WRAPPER_PCI_REGS_H
#define PROBESTICK_WRAPPER_PCI_REGS_H

#include <linux/pci_regs.h>

/* Supported Link Speeds Vector: not named in 6.1, named in later kernels. */
#ifndef PCI_EXP_LNKCAP2_SLS
#define PCI_EXP_LNKCAP2_SLS	0x000000fe
#endif

#endif /* PROBESTICK_WRAPPER_PCI_REGS_H */
