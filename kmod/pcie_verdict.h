/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The PCIe link verdict, plain C shared by probestick.ko (its link table)
 * and the userland (the sysfs fallback): one rule, wherever the registers
 * come from.
 */
#ifndef PROBESTICK_PCIE_VERDICT_H
#define PROBESTICK_PCIE_VERDICT_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif

/* Speed codes as LnkCap/LnkSta encode them: 1 = 2.5 GT/s ... 6 = 64 GT/s. */
#define PS_PCIE_GEN_MAX 6

enum ps_pcie_verdict {
	PS_PCIE_VERDICT_NONE = 0,	/* no link, or nothing honest to say */
	PS_PCIE_VERDICT_OK,		/* trained at what it can do itself */
	PS_PCIE_VERDICT_LIMITED,	/* at the best of the weaker end: no fault */
	PS_PCIE_VERDICT_DEGRADED,	/* below what both ends support: a fault */
	PS_PCIE_VERDICT_DOWN,		/* a link that should be up is down */
	PS_PCIE_VERDICT_IDLE,		/* full width, a power-managed lower speed */
};

/*
 * One end of a link as its registers describe it, and what it knows of the
 * other end. Speeds are codes (0 unknown), widths lanes (0 unknown, except
 * sta_width where 0 is a link that is down; < 0 unknown).
 */
struct ps_pcie_link_ends {
	bool has_link;		/* PCIe, of a port type that owns a link */
	bool training;		/* LnkSta Link Training: not settled yet */
	/*
	 * The port reports Data Link Layer Link Active (LnkCap bit 20) and it
	 * is clear: with nothing found below, no data link, whatever LnkSta's
	 * speed and width say (an empty slot's registers may still show its
	 * capability there). With a function answering below, the speeds
	 * decide: some ports do not keep the bit (QEMU's, for devices present
	 * at power-on).
	 */
	bool link_inactive;
	/* The port reports Data Link Layer Link Active and it is set: a link is up. */
	bool link_active;
	/*
	 * A downstream-facing port (root, switch downstream, PCI-to-PCIe
	 * bridge): its other end is the function below. With none there and
	 * no Data Link Layer Link Active to say a link is up, it faces an
	 * empty slot, whatever its LnkSta shows (a Thunderbolt bridge's port
	 * shows its capability with nothing behind it).
	 */
	bool faces_down;
	bool partner_present;	/* a function at the other end is known */
	int cap_speed, cap_width;	/* own LnkCap */
	int partner_speed, partner_width; /* the other end's LnkCap, 0 unknown */
	int sta_speed, sta_width;	/* LnkSta: what the link trained to */
	/*
	 * The downstream port's Target Link Speed (LnkCtl2 3:0), the upper
	 * limit firmware or the OS set for the link; 0 unknown.
	 */
	int target_speed;
	/*
	 * The downstream port's Link Autonomous Bandwidth Status (LnkSta 15):
	 * the hardware changed the link's speed or width on its own, for a
	 * reason other than unreliable operation (PCIe r6.0 7.5.3.8).
	 */
	bool labs;
	/*
	 * The device at the upstream end of the link scales its link speed
	 * with its load: a display controller (graphics cards drop to 2.5 or
	 * 5 GT/s when idle and train up under load).
	 */
	bool managed;
};

/*
 * Usable bandwidth of one lane in one direction, kB/s (10^3 bytes): the
 * transfer rate less the line encoding (8b/10b at 2.5 and 5 GT/s, 128b/130b
 * at 8 to 32 GT/s, 242 payload bytes of each 256-byte FLIT at 64 GT/s).
 * 0 for an unknown code. rate MT/s * 1000 / 8 bits = rate * 125 kB/s.
 */
static inline uint32_t ps_pcie_lane_kbps(int speed)
{
	static const uint32_t mts[PS_PCIE_GEN_MAX + 1] = {
		0, 2500, 5000, 8000, 16000, 32000, 64000
	};
	uint32_t raw;

	if (speed < 1 || speed > PS_PCIE_GEN_MAX)
		return 0;
	raw = mts[speed] * 125;
	if (speed <= 2)
		return raw / 10 * 8;
	if (speed <= 5)
		return raw / 130 * 128 + raw % 130 * 128 / 130;
	return raw / 256 * 242 + raw % 256 * 242 / 256;
}

/* Bandwidth of a link of width lanes at speed, kB/s each way; 0 unknown. */
static inline uint32_t ps_pcie_link_kbps(int speed, int width)
{
	if (width < 1 || width > 32)
		return 0;
	return ps_pcie_lane_kbps(speed) * (uint32_t)width;
}

static inline int ps_pcie_min_known(int a, int b)
{
	if (a <= 0)
		return b;
	if (b <= 0)
		return a;
	return a < b ? a : b;
}

/*
 * The speed and width the link should run at when busy: the lower of the
 * two ends' capabilities, and no faster than the downstream port's Target
 * Link Speed (a firmware or OS setting, not a fault of the hardware).
 */
static inline int ps_pcie_best_speed(const struct ps_pcie_link_ends *e)
{
	int best = ps_pcie_min_known(e->cap_speed, e->partner_speed);

	if (e->target_speed > 0 && e->target_speed < best)
		best = e->target_speed;
	return best;
}

static inline int ps_pcie_best_width(const struct ps_pcie_link_ends *e)
{
	return ps_pcie_min_known(e->cap_width, e->partner_width);
}

/*
 * A speed below the best at full width that power management explains:
 * the device scales its link with load (a graphics card), or the port says
 * the hardware changed the bandwidth on its own (LABS). Such a link is
 * idle, not degraded; under load it trains up again (the links recorder
 * reads it during every step).
 */
static inline bool ps_pcie_speed_managed(const struct ps_pcie_link_ends *e)
{
	return e->managed || e->labs;
}

/* Fewer lanes than both ends support: a bad slot, riser, contact or BIOS lane split. */
static inline bool ps_pcie_width_fault(const struct ps_pcie_link_ends *e)
{
	return e->sta_width < ps_pcie_best_width(e);
}

/* Slower than both ends and the port's target allow, and nothing explains it. */
static inline bool ps_pcie_speed_fault(const struct ps_pcie_link_ends *e)
{
	return e->sta_speed < ps_pcie_best_speed(e) && !ps_pcie_speed_managed(e);
}

/*
 * The verdict of one end of a link. A link trains to the best speed and
 * width both ends support; fewer lanes than that, or a lower speed that
 * nothing explains, is degraded: a bad slot, riser, contact or a BIOS
 * limit. A lower speed at full width that the device or the port says is
 * power management is idle. At the weaker end's best but below its own
 * capability (a Gen3 x4 port with a Gen1 x1 device below; a port whose
 * Target Link Speed is set below its capability) is limited, not a fault;
 * the Gen1 x1 device itself, at its own best, is ok. Without a settled
 * status, both capabilities and a known partner there is no honest
 * verdict, except that a link at its own full capability is ok whatever
 * the partner is. A port facing an empty slot (nothing below) has none.
 */
static inline enum ps_pcie_verdict
ps_pcie_verdict(const struct ps_pcie_link_ends *e)
{
	if (!e->has_link || e->training)
		return PS_PCIE_VERDICT_NONE;
	if ((e->link_inactive || (e->faces_down && !e->link_active)) && !e->partner_present)
		return PS_PCIE_VERDICT_NONE;
	if (e->sta_width == 0)
		return e->partner_present ? PS_PCIE_VERDICT_DOWN :
					    PS_PCIE_VERDICT_NONE;
	if (e->sta_width < 0 || e->sta_speed <= 0 || e->cap_speed <= 0 ||
	    e->cap_width <= 0)
		return PS_PCIE_VERDICT_NONE;
	if (e->sta_speed >= e->cap_speed && e->sta_width >= e->cap_width)
		return PS_PCIE_VERDICT_OK;
	if (e->partner_speed <= 0 || e->partner_width <= 0)
		return PS_PCIE_VERDICT_NONE;
	if (ps_pcie_width_fault(e) || ps_pcie_speed_fault(e))
		return PS_PCIE_VERDICT_DEGRADED;
	if (e->sta_speed < ps_pcie_best_speed(e))
		return PS_PCIE_VERDICT_IDLE;
	return PS_PCIE_VERDICT_LIMITED;
}

/*
 * What a degraded link loses against the best both ends support, kB/s each
 * way; 0 for any other verdict. Only the fault counts: a link with too few
 * lanes whose lower speed is power management loses the missing lanes at
 * the speed it trains to under load, not the idle speed as well.
 */
static inline uint32_t ps_pcie_lost_kbps(const struct ps_pcie_link_ends *e)
{
	int best = ps_pcie_best_speed(e);
	uint32_t want, got;

	if (ps_pcie_verdict(e) != PS_PCIE_VERDICT_DEGRADED)
		return 0;
	want = ps_pcie_link_kbps(best, ps_pcie_best_width(e));
	got = ps_pcie_link_kbps(ps_pcie_speed_fault(e) ? e->sta_speed : best,
				e->sta_width);
	return want > got ? want - got : 0;
}

#endif /* PROBESTICK_PCIE_VERDICT_H */
