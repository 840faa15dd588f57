// SPDX-License-Identifier: GPL-2.0
/*
 * Turns raw PCIe link registers into the fields of struct
 * probestick_pcie_link. Pure functions: built into the module and,
 * unchanged, into the KUnit (UML) kernel.
 */
#include <linux/bitfield.h>

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
			 PROBESTICK_LINK_TRAINING | PROBESTICK_LINK_DOWNGRADED |
			 PROBESTICK_LINK_PARTNER | PROBESTICK_LINK_PARTNER_BELOW |
			 PROBESTICK_LINK_PRESENT_BELOW | PROBESTICK_LINK_MANAGED);
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
	link->partner_cap_speed = 0;
	link->partner_cap_width = 0;
	link->verdict = PS_PCIE_VERDICT_NONE;
	link->lost_kbps = 0;

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
 * Judge the link from what @link holds: its own registers and, with
 * PROBESTICK_LINK_PARTNER, the other end's capability. The verdict and the
 * bandwidth lost are the module's, for the same rule the userland applies
 * to sysfs (pcie_verdict.h).
 */
void probestick_pcie_link_judge(struct probestick_pcie_link *link)
{
	struct ps_pcie_link_ends e;

	probestick_pcie_link_ends(link, &e);
	link->verdict = ps_pcie_verdict(&e);
	link->lost_kbps = link->verdict == PS_PCIE_VERDICT_DEGRADED ?
				  ps_pcie_lost_kbps(&e) : 0;
	if (link->verdict == PS_PCIE_VERDICT_DEGRADED)
		link->flags |= PROBESTICK_LINK_DOWNGRADED;
	else
		link->flags &= ~PROBESTICK_LINK_DOWNGRADED;
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
	link->flags |= PROBESTICK_LINK_HAS_UP | PROBESTICK_LINK_PARTNER;
	link->flags &= ~PROBESTICK_LINK_PARTNER_BELOW;
	link->partner_cap_speed = link->up_cap_speed;
	link->partner_cap_width = link->up_cap_width;
	probestick_pcie_link_judge(link);
}

/*
 * A port facing down (root, switch downstream, PCI-to-PCIe bridge): the
 * other end of its link is the function below it. @has_link false: a
 * function is there but has no link registers of its own (conventional
 * PCI below a bridge), so the port's link cannot be judged against it.
 */
void probestick_pcie_link_set_below(struct probestick_pcie_link *link,
				    bool has_link, u32 below_lnkcap)
{
	if (!(link->flags & PROBESTICK_LINK_HAS_LINK))
		return;

	link->flags |= PROBESTICK_LINK_PRESENT_BELOW;
	link->flags &= ~(PROBESTICK_LINK_PARTNER | PROBESTICK_LINK_PARTNER_BELOW);
	link->partner_cap_speed = 0;
	link->partner_cap_width = 0;
	if (has_link) {
		link->flags |= PROBESTICK_LINK_PARTNER | PROBESTICK_LINK_PARTNER_BELOW;
		link->partner_cap_speed = probestick_pcie_lnkcap_speed(below_lnkcap);
		link->partner_cap_width = probestick_pcie_lnkcap_width(below_lnkcap);
	}
	probestick_pcie_link_judge(link);
}

/*
 * The other end of the link: the upstream port (HAS_UP) of an upstream-
 * facing function, or the function below a port (PRESENT_BELOW, PARTNER
 * when it has a link). A port with nothing below faces an empty slot. The
 * downstream port's Target Link Speed and Autonomous Bandwidth Status are
 * its own registers for a port, the port above's (UP_REGS) for a function.
 */
void probestick_pcie_link_ends(const struct probestick_pcie_link *link,
			       struct ps_pcie_link_ends *e)
{
	bool up = link->flags & PROBESTICK_LINK_HAS_UP;
	bool partner = up || (link->flags & PROBESTICK_LINK_PARTNER);

	e->has_link = link->flags & PROBESTICK_LINK_HAS_LINK;
	e->training = link->flags & PROBESTICK_LINK_TRAINING;
	e->link_inactive = (link->lnkcap & PCI_EXP_LNKCAP_DLLLARC) &&
			   !(link->lnksta & PCI_EXP_LNKSTA_DLLLA);
	e->link_active = (link->lnkcap & PCI_EXP_LNKCAP_DLLLARC) &&
			 (link->lnksta & PCI_EXP_LNKSTA_DLLLA);
	e->faces_down = link->port_type == PCI_EXP_TYPE_ROOT_PORT ||
			link->port_type == PCI_EXP_TYPE_DOWNSTREAM ||
			link->port_type == PCI_EXP_TYPE_PCIE_BRIDGE;
	e->partner_present = link->flags & (PROBESTICK_LINK_HAS_UP |
					    PROBESTICK_LINK_PRESENT_BELOW);
	e->cap_speed = link->cap_speed;
	e->cap_width = link->cap_width;
	e->partner_speed = !partner ? 0 : up ? link->up_cap_speed : link->partner_cap_speed;
	e->partner_width = !partner ? 0 : up ? link->up_cap_width : link->partner_cap_width;
	e->sta_speed = link->sta_speed;
	e->sta_width = link->sta_width;
	e->target_speed = 0;
	e->labs = false;
	if (!up) {
		e->target_speed = probestick_pcie_speed_decode(FIELD_GET(PCI_EXP_LNKCTL2_TLS,
									 link->lnkctl2));
		e->labs = link->lnksta & PCI_EXP_LNKSTA_LABS;
	} else if (link->flags & PROBESTICK_LINK_UP_REGS) {
		e->target_speed = probestick_pcie_speed_decode(FIELD_GET(PCI_EXP_LNKCTL2_TLS,
									 link->up_lnkctl2));
		e->labs = link->up_lnksta & PCI_EXP_LNKSTA_LABS;
	}
	e->managed = link->flags & PROBESTICK_LINK_MANAGED;
}

/* The verdict of this end of the link (pcie_verdict.h), from its entry. */
enum ps_pcie_verdict
probestick_pcie_link_verdict(const struct probestick_pcie_link *link)
{
	struct ps_pcie_link_ends e;

	probestick_pcie_link_ends(link, &e);
	return ps_pcie_verdict(&e);
}

/* Degraded in the sense of pcie_verdict.h: below what both ends support. */
bool probestick_pcie_link_downgraded(const struct probestick_pcie_link *link)
{
	return probestick_pcie_link_verdict(link) == PS_PCIE_VERDICT_DEGRADED;
}
