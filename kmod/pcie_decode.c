// SPDX-License-Identifier: GPL-2.0
/*
 * Turns raw PCIe link registers into the fields of struct
 * probestick_pcie_link. Pure functions: built into the module and,
 * unchanged, into the KUnit (UML) kernel.
 */
#include <linux/bitfield.h>
#include <linux/minmax.h>

#include "pcie_decode.h"
#include "wrapper/pci_regs.h"

/*
 * Speed codes in LnkCap/LnkSta index the LnkCap2 Supported Link Speeds
 * vector; the vector's bit positions are fixed by the spec, so code n is
 * always the n-th speed. 0 and 7..15 are reserved.
 */
enum probestick_pcie_speed probestick_pcie_speed_decode(u32 code)
{
	switch (code) {
	case PROBESTICK_SPEED_2_5GT:
	case PROBESTICK_SPEED_5GT:
	case PROBESTICK_SPEED_8GT:
	case PROBESTICK_SPEED_16GT:
	case PROBESTICK_SPEED_32GT:
	case PROBESTICK_SPEED_64GT:
		return code;
	default:
		return PROBESTICK_SPEED_UNKNOWN;
	}
}

/*
 * Only these lane counts are defined; anything else (including 0, which a
 * link that is down reports) is returned as 0 so that it can never pass
 * for a real width in a comparison.
 */
u8 probestick_pcie_width_decode(u32 lanes)
{
	switch (lanes) {
	case 1:
	case 2:
	case 4:
	case 8:
	case 12:
	case 16:
	case 32:
		return lanes;
	default:
		return 0;
	}
}

u8 probestick_pcie_lnkcap_speed(u32 lnkcap)
{
	return probestick_pcie_speed_decode(FIELD_GET(PCI_EXP_LNKCAP_SLS, lnkcap));
}

u8 probestick_pcie_lnkcap_width(u32 lnkcap)
{
	return probestick_pcie_width_decode(FIELD_GET(PCI_EXP_LNKCAP_MLW, lnkcap));
}

u8 probestick_pcie_lnksta_speed(u16 lnksta)
{
	return probestick_pcie_speed_decode(FIELD_GET(PCI_EXP_LNKSTA_CLS, lnksta));
}

u8 probestick_pcie_lnksta_width(u16 lnksta)
{
	return probestick_pcie_width_decode(FIELD_GET(PCI_EXP_LNKSTA_NLW, lnksta));
}

/* Bits 7:1 of LnkCap2, shifted so that bit 0 is 2.5 GT/s as the uapi says. */
u32 probestick_pcie_lnkcap2_speeds(u32 lnkcap2)
{
	return (lnkcap2 & PCI_EXP_LNKCAP2_SLS) >> 1;
}

u8 probestick_pcie_port_type(u16 exp_flags)
{
	return FIELD_GET(PCI_EXP_FLAGS_TYPE, exp_flags);
}

/*
 * Root Complex integrated endpoints and event collectors sit inside the
 * root complex: their Link registers are not implemented. Reserved types
 * are treated the same way, since nothing says what their registers mean.
 */
bool probestick_pcie_type_has_link(u8 port_type)
{
	switch (port_type) {
	case PCI_EXP_TYPE_ENDPOINT:
	case PCI_EXP_TYPE_LEG_END:
	case PCI_EXP_TYPE_ROOT_PORT:
	case PCI_EXP_TYPE_UPSTREAM:
	case PCI_EXP_TYPE_DOWNSTREAM:
	case PCI_EXP_TYPE_PCI_BRIDGE:
	case PCI_EXP_TYPE_PCIE_BRIDGE:
		return true;
	default:
		return false;
	}
}

/*
 * Is the upstream bridge's port the other end of this function's link?
 * Only for an upstream-facing function below a downstream-facing port: a
 * switch downstream port's upstream bridge is the switch's own upstream
 * port, whose link is a different one.
 */
bool probestick_pcie_is_link_partner(u8 port_type, u8 up_port_type)
{
	bool faces_up, up_faces_down;

	faces_up = port_type == PCI_EXP_TYPE_ENDPOINT ||
		   port_type == PCI_EXP_TYPE_LEG_END ||
		   port_type == PCI_EXP_TYPE_UPSTREAM ||
		   port_type == PCI_EXP_TYPE_PCI_BRIDGE;
	up_faces_down = up_port_type == PCI_EXP_TYPE_ROOT_PORT ||
			up_port_type == PCI_EXP_TYPE_DOWNSTREAM ||
			up_port_type == PCI_EXP_TYPE_PCIE_BRIDGE;
	return faces_up && up_faces_down;
}

/*
 * Fill the PCIe part of @link from its registers. The raw values are kept
 * whatever they hold, so the report can show what the decoder did not
 * understand; decoded fields stay 0 for a function without a link.
 */
void probestick_pcie_link_decode(struct probestick_pcie_link *link,
				 u16 exp_flags, u32 lnkcap, u16 lnksta,
				 u32 lnkcap2)
{
	link->flags &= ~(PROBESTICK_LINK_HAS_LINK | PROBESTICK_LINK_HAS_UP |
			 PROBESTICK_LINK_TRAINING | PROBESTICK_LINK_DOWNGRADED);
	link->flags |= PROBESTICK_LINK_IS_PCIE;
	link->port_type = probestick_pcie_port_type(exp_flags);
	link->lnkcap = lnkcap;
	link->lnksta = lnksta;
	link->lnkcap2 = lnkcap2;
	link->cap_speed = 0;
	link->cap_width = 0;
	link->sta_speed = 0;
	link->sta_width = 0;
	link->up_cap_speed = 0;
	link->up_cap_width = 0;
	link->cap2_speeds = 0;

	if (!probestick_pcie_type_has_link(link->port_type))
		return;

	link->flags |= PROBESTICK_LINK_HAS_LINK;
	link->cap_speed = probestick_pcie_lnkcap_speed(lnkcap);
	link->cap_width = probestick_pcie_lnkcap_width(lnkcap);
	link->sta_speed = probestick_pcie_lnksta_speed(lnksta);
	link->sta_width = probestick_pcie_lnksta_width(lnksta);
	link->cap2_speeds = probestick_pcie_lnkcap2_speeds(lnkcap2);
	if (lnksta & PCI_EXP_LNKSTA_LT)
		link->flags |= PROBESTICK_LINK_TRAINING;
}

/*
 * Record the link partner's capability and judge the trained link against
 * it. Call after probestick_pcie_link_decode(), only when
 * probestick_pcie_is_link_partner() said the upstream port is the partner.
 */
void probestick_pcie_link_set_upstream(struct probestick_pcie_link *link,
				       u32 up_lnkcap)
{
	if (!(link->flags & PROBESTICK_LINK_HAS_LINK))
		return;

	link->up_cap_speed = probestick_pcie_lnkcap_speed(up_lnkcap);
	link->up_cap_width = probestick_pcie_lnkcap_width(up_lnkcap);
	link->flags |= PROBESTICK_LINK_HAS_UP;
	if (probestick_pcie_link_downgraded(link))
		link->flags |= PROBESTICK_LINK_DOWNGRADED;
	else
		link->flags &= ~PROBESTICK_LINK_DOWNGRADED;
}

/*
 * A link trains to the best speed and width both ends support; less than
 * that means a bad slot, riser, cable or contact (or a BIOS limit). Without
 * both capabilities and a settled status there is no honest answer, so the
 * verdict is "not downgraded" and the report shows the unknowns instead.
 */
bool probestick_pcie_link_downgraded(const struct probestick_pcie_link *link)
{
	u8 want_speed, want_width;

	if (!(link->flags & PROBESTICK_LINK_HAS_LINK) ||
	    !(link->flags & PROBESTICK_LINK_HAS_UP) ||
	    (link->flags & PROBESTICK_LINK_TRAINING))
		return false;
	if (!link->cap_speed || !link->cap_width ||
	    !link->up_cap_speed || !link->up_cap_width ||
	    !link->sta_speed || !link->sta_width)
		return false;

	want_speed = min(link->cap_speed, link->up_cap_speed);
	want_width = min(link->cap_width, link->up_cap_width);
	return link->sta_speed < want_speed || link->sta_width < want_width;
}
