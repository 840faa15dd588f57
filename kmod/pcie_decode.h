/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure decoders for PCIe link registers (LnkCap, LnkSta, LnkCap2, PCIe
 * Capabilities): no device access, so KUnit can feed them tables.
 */
#ifndef PROBESTICK_PCIE_DECODE_H
#define PROBESTICK_PCIE_DECODE_H

#include <linux/types.h>

#include "pcie_verdict.h"
#include "uapi/probestick.h"

enum probestick_pcie_speed probestick_pcie_speed_decode(u32 code);
u8 probestick_pcie_width_decode(u32 lanes);

u8 probestick_pcie_lnkcap_speed(u32 lnkcap);
u8 probestick_pcie_lnkcap_width(u32 lnkcap);
u8 probestick_pcie_lnksta_speed(u16 lnksta);
u8 probestick_pcie_lnksta_width(u16 lnksta);
u32 probestick_pcie_lnkcap2_speeds(u32 lnkcap2);

u8 probestick_pcie_port_type(u16 exp_flags);
bool probestick_pcie_type_has_link(u8 port_type);
bool probestick_pcie_is_link_partner(u8 port_type, u8 up_port_type);

void probestick_pcie_link_decode(struct probestick_pcie_link *link,
				 u16 exp_flags, u32 lnkcap, u16 lnksta,
				 u32 lnkcap2);
void probestick_pcie_link_set_upstream(struct probestick_pcie_link *link,
				       u32 up_lnkcap);
void probestick_pcie_link_set_below(struct probestick_pcie_link *link,
				    bool has_link, u32 below_lnkcap);
void probestick_pcie_link_judge(struct probestick_pcie_link *link);
void probestick_pcie_link_ends(const struct probestick_pcie_link *link,
			       struct ps_pcie_link_ends *e);
enum ps_pcie_verdict
probestick_pcie_link_verdict(const struct probestick_pcie_link *link);
bool probestick_pcie_link_downgraded(const struct probestick_pcie_link *link);

#endif /* PROBESTICK_PCIE_DECODE_H */
