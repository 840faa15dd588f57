// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe link probe: reads each PCI function's link registers and its
 * link partner's capability, decoded by pcie_decode.c.
 */
#include <linux/pci.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "pcie_decode.h"
#include "pcie_link.h"

u32 probestick_pci_count(void)
{
	struct pci_dev *dev = NULL;
	u32 n = 0;

	for_each_pci_dev(dev)
		n++;
	return n;
}

/*
 * A failed config read leaves the register 0 (pcie_capability_read_*()
 * does that), which decodes as "unknown": the entry stays useful and the
 * log says which function could not be read.
 */
static void probestick_pcie_read_own(struct pci_dev *dev,
				     struct probestick_pcie_link *link)
{
	u16 lnksta, lnkctl, lnkctl2, lnksta2;
	u32 lnkcap, lnkcap2;
	int err = 0;

	err |= pcie_capability_read_dword(dev, PCI_EXP_LNKCAP, &lnkcap);
	err |= pcie_capability_read_word(dev, PCI_EXP_LNKSTA, &lnksta);
	err |= pcie_capability_read_dword(dev, PCI_EXP_LNKCAP2, &lnkcap2);
	err |= pcie_capability_read_word(dev, PCI_EXP_LNKCTL, &lnkctl);
	err |= pcie_capability_read_word(dev, PCI_EXP_LNKCTL2, &lnkctl2);
	err |= pcie_capability_read_word(dev, PCI_EXP_LNKSTA2, &lnksta2);
	if (err)
		pci_info_ratelimited(dev, "probestick: PCIe link registers unreadable, link reported as unknown\n");
	/* The cached PCIe Capabilities register: what the PCI core itself trusts. */
	probestick_pcie_link_decode(link, pcie_caps_reg(dev), lnkcap, lnksta,
				    lnkcap2);
	link->lnkctl = lnkctl;
	link->lnkctl2 = lnkctl2;
	link->lnksta2 = lnksta2;
	probestick_pcie_link_judge(link);
}

/*
 * A graphics card scales its link speed with its load (2.5 or 5 GT/s at
 * idle): a display controller, or function 0 of the same device is one
 * (the card's audio function shares its link).
 */
static bool probestick_pcie_display(struct pci_dev *dev)
{
	struct pci_dev *fn0;
	bool display;

	if ((dev->class >> 16) == PCI_BASE_CLASS_DISPLAY)
		return true;
	if (PCI_FUNC(dev->devfn) == 0)
		return false;
	fn0 = pci_get_slot(dev->bus, PCI_DEVFN(PCI_SLOT(dev->devfn), 0));
	display = fn0 && (fn0->class >> 16) == PCI_BASE_CLASS_DISPLAY;
	pci_dev_put(fn0);
	return display;
}

/* The raw link registers of the port above, whatever its type. */
static void probestick_pcie_read_above(struct pci_dev *dev,
				       struct probestick_pcie_link *link)
{
	struct pci_dev *up = pci_upstream_bridge(dev);
	int err = 0;

	if (!up || !pci_is_pcie(up))
		return;
	err |= pcie_capability_read_dword(up, PCI_EXP_LNKCAP, &link->up_lnkcap);
	err |= pcie_capability_read_dword(up, PCI_EXP_LNKCAP2, &link->up_lnkcap2);
	err |= pcie_capability_read_word(up, PCI_EXP_LNKCTL, &link->up_lnkctl);
	err |= pcie_capability_read_word(up, PCI_EXP_LNKCTL2, &link->up_lnkctl2);
	err |= pcie_capability_read_word(up, PCI_EXP_LNKSTA, &link->up_lnksta);
	err |= pcie_capability_read_word(up, PCI_EXP_LNKSTA2, &link->up_lnksta2);
	if (!err)
		link->flags |= PROBESTICK_LINK_UP_REGS;
}

/*
 * A port facing down: its link partner is device 0 of its secondary bus
 * (the component at the other end of a link is always device 0).
 */
static void probestick_pcie_read_below(struct pci_dev *dev,
				       struct probestick_pcie_link *link)
{
	struct pci_dev *below;
	bool has_link = false;
	u32 lnkcap = 0;

	if (!(link->flags & PROBESTICK_LINK_HAS_LINK) || !dev->subordinate)
		return;
	switch (link->port_type) {
	case PCI_EXP_TYPE_ROOT_PORT:
	case PCI_EXP_TYPE_DOWNSTREAM:
	case PCI_EXP_TYPE_PCIE_BRIDGE:
		break;
	default:
		return;
	}
	below = pci_get_slot(dev->subordinate, PCI_DEVFN(0, 0));
	if (!below)
		return;
	if (probestick_pcie_display(below))
		link->flags |= PROBESTICK_LINK_MANAGED;
	if (pci_is_pcie(below) &&
	    probestick_pcie_is_link_partner(pci_pcie_type(below), link->port_type) &&
	    !pcie_capability_read_dword(below, PCI_EXP_LNKCAP, &lnkcap))
		has_link = true;
	probestick_pcie_link_set_below(link, has_link, lnkcap);
	pci_dev_put(below);
}

static void probestick_pcie_read_upstream(struct pci_dev *dev,
					  struct probestick_pcie_link *link)
{
	struct pci_dev *up = pci_upstream_bridge(dev);
	u32 up_lnkcap;

	if (!(link->flags & PROBESTICK_LINK_HAS_LINK) || !up ||
	    !pci_is_pcie(up))
		return;
	if (!probestick_pcie_is_link_partner(link->port_type,
					     pci_pcie_type(up)))
		return;
	if (probestick_pcie_display(dev))
		link->flags |= PROBESTICK_LINK_MANAGED;
	if (pcie_capability_read_dword(up, PCI_EXP_LNKCAP, &up_lnkcap)) {
		pci_info_ratelimited(up, "probestick: LnkCap unreadable, link of %s not judged\n",
				     pci_name(dev));
		return;
	}
	probestick_pcie_link_set_upstream(link, up_lnkcap);
}

/*
 * A conventional PCI function keeps flags without PROBESTICK_LINK_IS_PCIE
 * and all link fields 0.
 */
void probestick_pcie_link_fill(struct pci_dev *dev,
			       struct probestick_pcie_link *link)
{
	memset(link, 0, sizeof(*link));
	/*
	 * The uapi field is 16 bits: VMD domains (0x10000 and up) lose their
	 * high bits. bus and devfn still name the function within the domain.
	 */
	link->domain = pci_domain_nr(dev->bus);
	link->bus = dev->bus->number;
	link->devfn = dev->devfn;
	link->vendor = dev->vendor;
	link->device = dev->device;
	link->class = dev->class;

	if (!pci_is_pcie(dev))
		return;
	probestick_pcie_read_own(dev, link);
	probestick_pcie_read_above(dev, link);
	probestick_pcie_read_upstream(dev, link);
	probestick_pcie_read_below(dev, link);
}

/*
 * Copy one entry per present function into @links, at most @room of them,
 * each @entry_size bytes (the ABI-3 size gets the ABI-3 fields), and count
 * them all in @present so the caller can retry with more room.
 */
int probestick_pcie_links_copy(void __user *links, u32 entry_size,
			       u32 room, u32 *present)
{
	struct probestick_pcie_link link;
	struct pci_dev *dev = NULL;
	u32 n = 0;
	int ret;

	for_each_pci_dev(dev) {
		if (n < room) {
			probestick_pcie_link_fill(dev, &link);
			if (copy_to_user((u8 __user *)links + (size_t)n * entry_size,
					 &link, min_t(size_t, entry_size, sizeof(link)))) {
				ret = -EFAULT;
				goto err_put_dev;
			}
		}
		n++;
	}
	*present = n;
	return 0;

err_put_dev:
	pci_dev_put(dev);
	return ret;
}
