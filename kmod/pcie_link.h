/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PCIe link probe: one struct probestick_pcie_link per PCI function,
 * read from the live device.
 */
#ifndef PROBESTICK_PCIE_LINK_H
#define PROBESTICK_PCIE_LINK_H

#include <linux/pci.h>

#include "uapi/probestick.h"

u32 probestick_pci_count(void);
void probestick_pcie_link_fill(struct pci_dev *dev,
			       struct probestick_pcie_link *link);
int probestick_pcie_links_copy(void __user *links, u32 entry_size,
			       u32 room, u32 *present);

#endif /* PROBESTICK_PCIE_LINK_H */
