/*
 * ethtool.c - the one ethtool helper: ethtool netlink through libmnl, the
 * ETHTOOL_GDRVINFO / GPERMADDR / TEST ioctls for what 6.1's netlink lacks,
 * and RTM_GETLINK; pure parsers of the replies beside the code that asks.
 */
#include "hw/ethtool.h"
#include "hw/hw_util.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* A verbose LINKMODES reply of a NIC with a hundred modes stays far below this. */
#define REPLY_BUF 32768
/* Every ETHTOOL_A_*_HEADER attribute is number 1. */
#define ETHTOOL_A_ANY_HEADER 1

const char *ps_eth_query_name(enum ps_eth_query q)
{
	static const char *const names[PS_ETH_QUERIES] = {
	    [PS_ETH_DRVINFO] = "drvinfo",     [PS_ETH_RTLINK] = "rtlink",
	    [PS_ETH_LINKMODES] = "linkmodes", [PS_ETH_LINKSTATE] = "linkstate",
	    [PS_ETH_RINGS] = "rings",	      [PS_ETH_CHANNELS] = "channels",
	    [PS_ETH_COALESCE] = "coalesce",   [PS_ETH_PAUSE] = "pause",
	    [PS_ETH_FEATURES] = "features",
	};

	return (unsigned int)q < PS_ETH_QUERIES ? names[q] : NULL;
}

/* ---------------------------------------------------------------- tables -- */

#define U32F(a, s, f, k)                                                                           \
	{                                                                                          \
		a, false, offsetof(struct s, f), k                                                 \
	}
#define TRIF(a, s, f, k)                                                                           \
	{                                                                                          \
		a, true, offsetof(struct s, f), k                                                  \
	}

const struct ps_eth_field ps_coalesce_fields[] = {
    U32F(ETHTOOL_A_COALESCE_RX_USECS, ps_coalesce, rx_usecs, "rx_usecs"),
    U32F(ETHTOOL_A_COALESCE_RX_MAX_FRAMES, ps_coalesce, rx_frames, "rx_frames"),
    U32F(ETHTOOL_A_COALESCE_RX_USECS_IRQ, ps_coalesce, rx_usecs_irq, "rx_usecs_irq"),
    U32F(ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, ps_coalesce, rx_frames_irq, "rx_frames_irq"),
    U32F(ETHTOOL_A_COALESCE_TX_USECS, ps_coalesce, tx_usecs, "tx_usecs"),
    U32F(ETHTOOL_A_COALESCE_TX_MAX_FRAMES, ps_coalesce, tx_frames, "tx_frames"),
    U32F(ETHTOOL_A_COALESCE_TX_USECS_IRQ, ps_coalesce, tx_usecs_irq, "tx_usecs_irq"),
    U32F(ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, ps_coalesce, tx_frames_irq, "tx_frames_irq"),
    U32F(ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, ps_coalesce, stats_block_usecs, "stats_block_usecs"),
    TRIF(ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, ps_coalesce, adaptive_rx, "adaptive_rx"),
    TRIF(ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, ps_coalesce, adaptive_tx, "adaptive_tx"),
    U32F(ETHTOOL_A_COALESCE_PKT_RATE_LOW, ps_coalesce, pkt_rate_low, "pkt_rate_low"),
    U32F(ETHTOOL_A_COALESCE_RX_USECS_LOW, ps_coalesce, rx_usecs_low, "rx_usecs_low"),
    U32F(ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, ps_coalesce, rx_frames_low, "rx_frames_low"),
    U32F(ETHTOOL_A_COALESCE_TX_USECS_LOW, ps_coalesce, tx_usecs_low, "tx_usecs_low"),
    U32F(ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, ps_coalesce, tx_frames_low, "tx_frames_low"),
    U32F(ETHTOOL_A_COALESCE_PKT_RATE_HIGH, ps_coalesce, pkt_rate_high, "pkt_rate_high"),
    U32F(ETHTOOL_A_COALESCE_RX_USECS_HIGH, ps_coalesce, rx_usecs_high, "rx_usecs_high"),
    U32F(ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, ps_coalesce, rx_frames_high, "rx_frames_high"),
    U32F(ETHTOOL_A_COALESCE_TX_USECS_HIGH, ps_coalesce, tx_usecs_high, "tx_usecs_high"),
    U32F(ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, ps_coalesce, tx_frames_high, "tx_frames_high"),
    U32F(ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, ps_coalesce, rate_sample_interval,
	 "rate_sample_interval"),
    TRIF(ETHTOOL_A_COALESCE_USE_CQE_MODE_TX, ps_coalesce, cqe_mode_tx, "cqe_mode_tx"),
    TRIF(ETHTOOL_A_COALESCE_USE_CQE_MODE_RX, ps_coalesce, cqe_mode_rx, "cqe_mode_rx"),
};
const size_t ps_coalesce_nfields = sizeof(ps_coalesce_fields) / sizeof(ps_coalesce_fields[0]);

const struct ps_eth_field ps_rings_fields[] = {
    U32F(ETHTOOL_A_RINGS_RX, ps_eth_rings, rx, "rx"),
    U32F(ETHTOOL_A_RINGS_RX_MAX, ps_eth_rings, rx_max, "rx_max"),
    U32F(ETHTOOL_A_RINGS_RX_MINI, ps_eth_rings, rx_mini, "rx_mini"),
    U32F(ETHTOOL_A_RINGS_RX_MINI_MAX, ps_eth_rings, rx_mini_max, "rx_mini_max"),
    U32F(ETHTOOL_A_RINGS_RX_JUMBO, ps_eth_rings, rx_jumbo, "rx_jumbo"),
    U32F(ETHTOOL_A_RINGS_RX_JUMBO_MAX, ps_eth_rings, rx_jumbo_max, "rx_jumbo_max"),
    U32F(ETHTOOL_A_RINGS_TX, ps_eth_rings, tx, "tx"),
    U32F(ETHTOOL_A_RINGS_TX_MAX, ps_eth_rings, tx_max, "tx_max"),
    U32F(ETHTOOL_A_RINGS_RX_BUF_LEN, ps_eth_rings, rx_buf_len, "rx_buf_len"),
};
const size_t ps_rings_nfields = sizeof(ps_rings_fields) / sizeof(ps_rings_fields[0]);

const struct ps_eth_field ps_channels_fields[] = {
    U32F(ETHTOOL_A_CHANNELS_RX_COUNT, ps_eth_channels, rx, "rx"),
    U32F(ETHTOOL_A_CHANNELS_RX_MAX, ps_eth_channels, rx_max, "rx_max"),
    U32F(ETHTOOL_A_CHANNELS_TX_COUNT, ps_eth_channels, tx, "tx"),
    U32F(ETHTOOL_A_CHANNELS_TX_MAX, ps_eth_channels, tx_max, "tx_max"),
    U32F(ETHTOOL_A_CHANNELS_OTHER_COUNT, ps_eth_channels, other, "other"),
    U32F(ETHTOOL_A_CHANNELS_OTHER_MAX, ps_eth_channels, other_max, "other_max"),
    U32F(ETHTOOL_A_CHANNELS_COMBINED_COUNT, ps_eth_channels, combined, "combined"),
    U32F(ETHTOOL_A_CHANNELS_COMBINED_MAX, ps_eth_channels, combined_max, "combined_max"),
};
const size_t ps_channels_nfields = sizeof(ps_channels_fields) / sizeof(ps_channels_fields[0]);

static const struct ps_eth_field pause_fields[] = {
    TRIF(ETHTOOL_A_PAUSE_AUTONEG, ps_eth_pause, autoneg, "autoneg"),
    TRIF(ETHTOOL_A_PAUSE_RX, ps_eth_pause, rx, "rx"),
    TRIF(ETHTOOL_A_PAUSE_TX, ps_eth_pause, tx, "tx"),
};

const char *const ps_eth_stat_names[PS_ETH_NSTATS] = {
    [PS_ST_RX_PACKETS] = "rx_packets",
    [PS_ST_TX_PACKETS] = "tx_packets",
    [PS_ST_RX_BYTES] = "rx_bytes",
    [PS_ST_TX_BYTES] = "tx_bytes",
    [PS_ST_RX_ERRORS] = "rx_errors",
    [PS_ST_TX_ERRORS] = "tx_errors",
    [PS_ST_RX_DROPPED] = "rx_dropped",
    [PS_ST_TX_DROPPED] = "tx_dropped",
    [PS_ST_MULTICAST] = "multicast",
    [PS_ST_COLLISIONS] = "collisions",
    [PS_ST_RX_LENGTH_ERRORS] = "rx_length_errors",
    [PS_ST_RX_OVER_ERRORS] = "rx_over_errors",
    [PS_ST_RX_CRC_ERRORS] = "rx_crc_errors",
    [PS_ST_RX_FRAME_ERRORS] = "rx_frame_errors",
    [PS_ST_RX_FIFO_ERRORS] = "rx_fifo_errors",
    [PS_ST_RX_MISSED_ERRORS] = "rx_missed_errors",
    [PS_ST_TX_ABORTED_ERRORS] = "tx_aborted_errors",
    [PS_ST_TX_CARRIER_ERRORS] = "tx_carrier_errors",
    [PS_ST_TX_FIFO_ERRORS] = "tx_fifo_errors",
    [PS_ST_TX_HEARTBEAT_ERRORS] = "tx_heartbeat_errors",
    [PS_ST_TX_WINDOW_ERRORS] = "tx_window_errors",
    [PS_ST_RX_NOHANDLER] = "rx_nohandler",
};

/* Where each counter sits in the kernel's struct rtnl_link_stats64. */
static const size_t stat_offsets[PS_ETH_NSTATS] = {
    [PS_ST_RX_PACKETS] = offsetof(struct rtnl_link_stats64, rx_packets),
    [PS_ST_TX_PACKETS] = offsetof(struct rtnl_link_stats64, tx_packets),
    [PS_ST_RX_BYTES] = offsetof(struct rtnl_link_stats64, rx_bytes),
    [PS_ST_TX_BYTES] = offsetof(struct rtnl_link_stats64, tx_bytes),
    [PS_ST_RX_ERRORS] = offsetof(struct rtnl_link_stats64, rx_errors),
    [PS_ST_TX_ERRORS] = offsetof(struct rtnl_link_stats64, tx_errors),
    [PS_ST_RX_DROPPED] = offsetof(struct rtnl_link_stats64, rx_dropped),
    [PS_ST_TX_DROPPED] = offsetof(struct rtnl_link_stats64, tx_dropped),
    [PS_ST_MULTICAST] = offsetof(struct rtnl_link_stats64, multicast),
    [PS_ST_COLLISIONS] = offsetof(struct rtnl_link_stats64, collisions),
    [PS_ST_RX_LENGTH_ERRORS] = offsetof(struct rtnl_link_stats64, rx_length_errors),
    [PS_ST_RX_OVER_ERRORS] = offsetof(struct rtnl_link_stats64, rx_over_errors),
    [PS_ST_RX_CRC_ERRORS] = offsetof(struct rtnl_link_stats64, rx_crc_errors),
    [PS_ST_RX_FRAME_ERRORS] = offsetof(struct rtnl_link_stats64, rx_frame_errors),
    [PS_ST_RX_FIFO_ERRORS] = offsetof(struct rtnl_link_stats64, rx_fifo_errors),
    [PS_ST_RX_MISSED_ERRORS] = offsetof(struct rtnl_link_stats64, rx_missed_errors),
    [PS_ST_TX_ABORTED_ERRORS] = offsetof(struct rtnl_link_stats64, tx_aborted_errors),
    [PS_ST_TX_CARRIER_ERRORS] = offsetof(struct rtnl_link_stats64, tx_carrier_errors),
    [PS_ST_TX_FIFO_ERRORS] = offsetof(struct rtnl_link_stats64, tx_fifo_errors),
    [PS_ST_TX_HEARTBEAT_ERRORS] = offsetof(struct rtnl_link_stats64, tx_heartbeat_errors),
    [PS_ST_TX_WINDOW_ERRORS] = offsetof(struct rtnl_link_stats64, tx_window_errors),
    [PS_ST_RX_NOHANDLER] = offsetof(struct rtnl_link_stats64, rx_nohandler),
};

static void fields_unknown(void *base, const struct ps_eth_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (f[i].tri)
			*(ps_tri *)((char *)base + f[i].offset) = PS_TRI_UNKNOWN;
		else
			*(int *)((char *)base + f[i].offset) = PS_UNKNOWN;
	}
}

void ps_coalesce_unknown(struct ps_coalesce *c)
{
	fields_unknown(c, ps_coalesce_fields, ps_coalesce_nfields);
}

/* --------------------------------------------------------------- parsing -- */

/*
 * The attributes of a genl message that must be reply cmd: 0 and the
 * attribute area, the kernel's error of an NLMSG_ERROR, or -EINVAL/-EPROTO.
 */
static int genl_attrs(const void *msg, size_t len, uint8_t cmd, const struct nlattr **attrs,
		      size_t *alen)
{
	const struct nlmsghdr *nlh = msg;
	const struct genlmsghdr *g;

	if (!msg || len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
		return -EINVAL;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
			return -EPROTO;
		/* 0 is an acknowledgement, not a reply; errors are negative */
		return e->error < 0 && e->error > -4096 ? e->error : -EPROTO;
	}
	if (nlh->nlmsg_type < NLMSG_MIN_TYPE || nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -EPROTO;
	g = mnl_nlmsg_get_payload(nlh);
	if (g->cmd != cmd)
		return -EPROTO;
	*attrs = (const struct nlattr *)((const char *)g + GENL_HDRLEN);
	*alen = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return 0;
}

/* The attributes of a payload of exactly alen bytes (nests use mnl_attr_for_each_nested). */
#define for_each_attr(a, attrs, alen)                                                              \
	for ((a) = (struct nlattr *)(attrs);                                                       \
	     mnl_attr_ok((a), (int)((const char *)(attrs) + (alen) - (const char *)(a)));          \
	     (a) = mnl_attr_next(a))

static int get_u32(const struct nlattr *a, int *out)
{
	uint32_t v;

	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return -EPROTO;
	v = mnl_attr_get_u32(a);
	*out = v > INT_MAX ? PS_UNKNOWN : (int)v;
	return 0;
}

static int get_u8(const struct nlattr *a, unsigned int *out)
{
	if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
		return -EPROTO;
	*out = mnl_attr_get_u8(a);
	return 0;
}

static int get_tri(const struct nlattr *a, ps_tri *out)
{
	unsigned int v;
	int r = get_u8(a, &v);

	if (r == 0)
		*out = v != 0;
	return r;
}

/* Attributes found in a field table fill their field; the others are left alone. */
static int parse_fields(const struct nlattr *attrs, size_t alen, void *base,
			const struct ps_eth_field *f, size_t n)
{
	struct nlattr *a;

	for_each_attr(a, attrs, alen)
	{
		uint16_t type = mnl_attr_get_type(a);

		for (size_t i = 0; i < n; i++) {
			int r;

			if (f[i].attr != type)
				continue;
			r = f[i].tri ? get_tri(a, (ps_tri *)((char *)base + f[i].offset))
				     : get_u32(a, (int *)((char *)base + f[i].offset));
			if (r < 0)
				return r;
			break;
		}
	}
	return 0;
}

/*
 * A reply that is a flat table of fields (rings, channels, coalescing): every
 * field unknown unless the reply, of command cmd, carries it; all unknown on an error.
 */
static int parse_reply_fields(const void *msg, size_t len, uint8_t cmd, void *base,
			      const struct ps_eth_field *f, size_t n)
{
	const struct nlattr *attrs;
	size_t alen;
	int r;

	fields_unknown(base, f, n);
	r = genl_attrs(msg, len, cmd, &attrs, &alen);
	if (r == 0)
		r = parse_fields(attrs, alen, base, f, n);
	if (r < 0)
		fields_unknown(base, f, n);
	return r;
}

static void set_bit(uint32_t *set, unsigned int b)
{
	set[b / 32] |= 1U << (b % 32);
}

/*
 * An ETHTOOL_A_BITSET nest, compact (VALUE/MASK words) or verbose (a BITS
 * list with names). value gets the set bits, mask (may be NULL) the bits
 * that exist; a list without a mask (NOMASK) names the set bits only.
 */
static int parse_bitset(const struct nlattr *nest, uint32_t *value, uint32_t *mask,
			char (*names)[PS_ETH_MODE_NAME])
{
	const struct nlattr *bits = NULL, *val = NULL, *msk = NULL;
	struct nlattr *a;
	bool nomask = false;

	memset(value, 0, PS_ETH_MODE_WORDS * sizeof(uint32_t));
	if (mask)
		memset(mask, 0, PS_ETH_MODE_WORDS * sizeof(uint32_t));
	mnl_attr_for_each_nested(a, nest)
	{
		switch (mnl_attr_get_type(a)) {
		case ETHTOOL_A_BITSET_NOMASK:
			nomask = true;
			break;
		case ETHTOOL_A_BITSET_BITS:
			bits = a;
			break;
		case ETHTOOL_A_BITSET_VALUE:
			val = a;
			break;
		case ETHTOOL_A_BITSET_MASK:
			msk = a;
			break;
		default:
			break;
		}
	}
	if (val) {
		size_t n = mnl_attr_get_payload_len(val);

		if (n > PS_ETH_MODE_WORDS * sizeof(uint32_t))
			n = PS_ETH_MODE_WORDS * sizeof(uint32_t);
		memcpy(value, mnl_attr_get_payload(val), n);
		if (mask && msk) {
			n = mnl_attr_get_payload_len(msk);
			if (n > PS_ETH_MODE_WORDS * sizeof(uint32_t))
				n = PS_ETH_MODE_WORDS * sizeof(uint32_t);
			memcpy(mask, mnl_attr_get_payload(msk), n);
		}
		return 0;
	}
	if (!bits)
		return 0; /* an empty set */
	mnl_attr_for_each_nested(a, bits)
	{
		const char *name = NULL;
		bool have_index = false, set = false;
		unsigned int index = 0;
		struct nlattr *b;

		if (mnl_attr_get_type(a) != ETHTOOL_A_BITSET_BITS_BIT)
			continue;
		mnl_attr_for_each_nested(b, a)
		{
			switch (mnl_attr_get_type(b)) {
			case ETHTOOL_A_BITSET_BIT_INDEX:
				if (mnl_attr_validate(b, MNL_TYPE_U32) < 0)
					return -EPROTO;
				index = mnl_attr_get_u32(b);
				have_index = true;
				break;
			case ETHTOOL_A_BITSET_BIT_NAME:
				if (mnl_attr_validate(b, MNL_TYPE_NUL_STRING) < 0)
					return -EPROTO;
				name = mnl_attr_get_str(b);
				break;
			case ETHTOOL_A_BITSET_BIT_VALUE:
				set = true;
				break;
			default:
				break;
			}
		}
		if (!have_index)
			return -EPROTO;
		if (index >= PS_ETH_MODE_BITS)
			continue; /* a mode newer than this program: not kept */
		if (nomask || !mask) {
			if (nomask || set)
				set_bit(value, index);
		} else {
			set_bit(mask, index);
			if (set)
				set_bit(value, index);
		}
		if (names && name && !names[index][0])
			ps_copy_str(names[index], PS_ETH_MODE_NAME, name);
	}
	return 0;
}

static void modes_reset(struct ps_eth_modes *m)
{
	memset(m, 0, sizeof(*m));
	m->autoneg = PS_TRI_UNKNOWN;
	m->speed_mbps = PS_UNKNOWN;
	m->lanes = PS_UNKNOWN;
}

int ps_ethtool_parse_linkmodes(const void *msg, size_t len, struct ps_eth_modes *out)
{
	const struct nlattr *attrs;
	struct nlattr *a;
	size_t alen;
	int r;

	modes_reset(out);
	r = genl_attrs(msg, len, ETHTOOL_MSG_LINKMODES_GET_REPLY, &attrs, &alen);
	if (r < 0)
		return r;
	for_each_attr(a, attrs, alen)
	{
		unsigned int v;

		switch (mnl_attr_get_type(a)) {
		case ETHTOOL_A_LINKMODES_AUTONEG:
			r = get_u8(a, &v);
			if (r == 0)
				out->autoneg = v == AUTONEG_ENABLE;
			break;
		case ETHTOOL_A_LINKMODES_OURS:
			r = parse_bitset(a, out->advertised, out->supported, out->names);
			break;
		case ETHTOOL_A_LINKMODES_PEER:
			r = parse_bitset(a, out->partner, NULL, out->names);
			out->partner_known = r == 0;
			break;
		case ETHTOOL_A_LINKMODES_SPEED:
			if (mnl_attr_validate(a, MNL_TYPE_U32) < 0) {
				r = -EPROTO;
			} else {
				uint32_t s = mnl_attr_get_u32(a);

				/* SPEED_UNKNOWN (-1) while the link is down */
				out->speed_mbps = s == 0 || s > INT_MAX ? PS_UNKNOWN : (int)s;
			}
			break;
		case ETHTOOL_A_LINKMODES_DUPLEX:
			r = get_u8(a, &v);
			if (r == 0 && (v == DUPLEX_FULL || v == DUPLEX_HALF))
				snprintf(out->duplex, sizeof(out->duplex), "%s",
					 v == DUPLEX_FULL ? "full" : "half");
			break;
		case ETHTOOL_A_LINKMODES_LANES:
			r = get_u32(a, &out->lanes);
			break;
		default:
			break;
		}
		if (r < 0) {
			modes_reset(out);
			return r;
		}
	}
	out->known = true;
	return 0;
}

int ps_ethtool_parse_linkstate(const void *msg, size_t len, struct ps_eth_state *out)
{
	const struct nlattr *attrs;
	struct nlattr *a;
	size_t alen;
	int r;

	memset(out, 0, sizeof(*out));
	out->link = PS_TRI_UNKNOWN;
	out->sqi = out->sqi_max = out->ext_state = out->ext_substate = PS_UNKNOWN;
	r = genl_attrs(msg, len, ETHTOOL_MSG_LINKSTATE_GET_REPLY, &attrs, &alen);
	if (r < 0)
		return r;
	for_each_attr(a, attrs, alen)
	{
		unsigned int v = 0;

		switch (mnl_attr_get_type(a)) {
		case ETHTOOL_A_LINKSTATE_LINK:
			r = get_tri(a, &out->link);
			break;
		case ETHTOOL_A_LINKSTATE_SQI:
			r = get_u32(a, &out->sqi);
			break;
		case ETHTOOL_A_LINKSTATE_SQI_MAX:
			r = get_u32(a, &out->sqi_max);
			break;
		case ETHTOOL_A_LINKSTATE_EXT_STATE:
			r = get_u8(a, &v);
			out->ext_state = (int)v;
			break;
		case ETHTOOL_A_LINKSTATE_EXT_SUBSTATE:
			r = get_u8(a, &v);
			out->ext_substate = (int)v;
			break;
		default:
			break;
		}
		if (r < 0)
			return r;
	}
	out->known = true;
	return 0;
}

int ps_ethtool_parse_rings(const void *msg, size_t len, struct ps_eth_rings *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = parse_reply_fields(msg, len, ETHTOOL_MSG_RINGS_GET_REPLY, out, ps_rings_fields,
			       ps_rings_nfields);
	if (r < 0)
		return r;
	/* a ring the driver lacks has max 0: it does not exist, it is not empty */
	if (out->rx_mini_max == 0)
		out->rx_mini = out->rx_mini_max = PS_UNKNOWN;
	if (out->rx_jumbo_max == 0)
		out->rx_jumbo = out->rx_jumbo_max = PS_UNKNOWN;
	if (out->rx_buf_len == 0)
		out->rx_buf_len = PS_UNKNOWN;
	out->known = true;
	return 0;
}

int ps_ethtool_parse_channels(const void *msg, size_t len, struct ps_eth_channels *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = parse_reply_fields(msg, len, ETHTOOL_MSG_CHANNELS_GET_REPLY, out, ps_channels_fields,
			       ps_channels_nfields);
	if (r < 0)
		return r;
	out->known = true;
	return 0;
}

int ps_ethtool_parse_coalesce(const void *msg, size_t len, struct ps_coalesce *out)
{
	return parse_reply_fields(msg, len, ETHTOOL_MSG_COALESCE_GET_REPLY, out, ps_coalesce_fields,
				  ps_coalesce_nfields);
}

int ps_ethtool_parse_pause(const void *msg, size_t len, struct ps_eth_pause *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = parse_reply_fields(msg, len, ETHTOOL_MSG_PAUSE_GET_REPLY, out, pause_fields,
			       sizeof(pause_fields) / sizeof(pause_fields[0]));
	if (r < 0)
		return r;
	out->known = true;
	return 0;
}

int ps_ethtool_parse_features(const void *msg, size_t len, struct ps_eth_features *out)
{
	const struct nlattr *attrs;
	struct nlattr *a;
	size_t alen;
	int r;

	memset(out, 0, sizeof(*out));
	r = genl_attrs(msg, len, ETHTOOL_MSG_FEATURES_GET_REPLY, &attrs, &alen);
	if (r < 0)
		return r;
	for_each_attr(a, attrs, alen)
	{
		switch (mnl_attr_get_type(a)) {
		case ETHTOOL_A_FEATURES_HW:
			r = parse_bitset(a, out->hw, NULL, out->names);
			break;
		case ETHTOOL_A_FEATURES_ACTIVE:
			r = parse_bitset(a, out->active, NULL, out->names);
			break;
		case ETHTOOL_A_FEATURES_NOCHANGE:
			r = parse_bitset(a, out->nochange, NULL, out->names);
			break;
		default:
			break;
		}
		if (r < 0) {
			memset(out, 0, sizeof(*out));
			return r;
		}
	}
	out->known = true;
	return 0;
}

int ps_netlink_parse_ack(const void *msg, size_t len)
{
	const struct nlmsghdr *nlh = msg;
	const struct nlmsgerr *e;

	if (!msg || len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
		return -EINVAL;
	if (nlh->nlmsg_type != NLMSG_ERROR || nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return -EPROTO;
	e = mnl_nlmsg_get_payload(nlh);
	if (e->error == 0)
		return 0;
	return e->error < 0 && e->error > -4096 ? e->error : -EPROTO;
}

/* An Ethernet address as "52:54:00:12:34:56"; "" for another length or all zero. */
static void mac_text(const struct nlattr *a, char *out, size_t len)
{
	const uint8_t *p = mnl_attr_get_payload(a);
	bool zero = true;

	out[0] = '\0';
	if (mnl_attr_get_payload_len(a) != 6 || len < 18)
		return;
	for (int i = 0; i < 6; i++)
		zero &= p[i] == 0;
	if (!zero)
		snprintf(out, len, "%02x:%02x:%02x:%02x:%02x:%02x", p[0], p[1], p[2], p[3], p[4],
			 p[5]);
}

int ps_rtnl_parse_link(const void *msg, size_t len, struct ps_eth_rtlink *out)
{
	const struct nlmsghdr *nlh = msg;
	const void *attrs;
	struct nlattr *a;
	size_t alen;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->mtu = out->min_mtu = out->max_mtu = out->carrier_changes = PS_UNKNOWN;
	out->carrier_up = out->carrier_down = PS_UNKNOWN;
	out->carrier = PS_TRI_UNKNOWN;
	if (!msg || len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
		return -EINVAL;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
			return -EPROTO;
		return e->error < 0 && e->error > -4096 ? e->error : -EPROTO;
	}
	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlh->nlmsg_len < NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg)))
		return -EPROTO;
	attrs = (const char *)nlh + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg));
	alen = nlh->nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(sizeof(struct ifinfomsg));
	for_each_attr(a, attrs, alen)
	{
		switch (mnl_attr_get_type(a)) {
		case IFLA_ADDRESS:
			mac_text(a, out->mac, sizeof(out->mac));
			break;
		case IFLA_PERM_ADDRESS:
			mac_text(a, out->perm_mac, sizeof(out->perm_mac));
			break;
		case IFLA_MTU:
			r = get_u32(a, &out->mtu);
			break;
		case IFLA_MIN_MTU:
			r = get_u32(a, &out->min_mtu);
			break;
		case IFLA_MAX_MTU:
			r = get_u32(a, &out->max_mtu);
			break;
		case IFLA_CARRIER:
			r = get_tri(a, &out->carrier);
			break;
		case IFLA_CARRIER_CHANGES:
			r = get_u32(a, &out->carrier_changes);
			break;
		case IFLA_CARRIER_UP_COUNT:
			r = get_u32(a, &out->carrier_up);
			break;
		case IFLA_CARRIER_DOWN_COUNT:
			r = get_u32(a, &out->carrier_down);
			break;
		case IFLA_STATS64: {
			/* An older kernel's struct is shorter: take the counters it has. */
			size_t plen = mnl_attr_get_payload_len(a);
			const char *p = mnl_attr_get_payload(a);

			for (int i = 0; i < PS_ETH_NSTATS; i++)
				if (stat_offsets[i] + sizeof(uint64_t) <= plen)
					memcpy(&out->stats.v[i], p + stat_offsets[i],
					       sizeof(uint64_t));
			out->stats.known =
			    plen >= offsetof(struct rtnl_link_stats64, rx_compressed);
			break;
		}
		default:
			break;
		}
		if (r < 0)
			return r;
	}
	out->known = true;
	return 0;
}

int ps_genl_parse_family(const void *msg, size_t len)
{
	const struct nlattr *attrs;
	struct nlattr *a;
	size_t alen;
	int r = genl_attrs(msg, len, CTRL_CMD_NEWFAMILY, &attrs, &alen);

	if (r < 0)
		return r;
	for_each_attr(a, attrs, alen)
	{
		if (mnl_attr_get_type(a) != CTRL_ATTR_FAMILY_ID)
			continue;
		if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
			return -EPROTO;
		return mnl_attr_get_u16(a) ? mnl_attr_get_u16(a) : -EPROTO;
	}
	return -EPROTO;
}

/* --------------------------------------------------------------- sockets -- */

static struct mnl_socket *nl_setup(struct mnl_socket *nl)
{
	struct timeval tv = {.tv_sec = 5};

	if (!nl)
		return NULL;
	/* the kernel answers a GET at once; this only bounds a lost reply */
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(nl);
		return NULL;
	}
	return nl;
}

/* Send req and copy the reply with its sequence number into buf: its length or -errno. */
static int transact(struct mnl_socket *nl, struct nlmsghdr *req, void *buf, size_t len)
{
	uint32_t seq = req->nlmsg_seq;

	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl, buf, len);
		const struct nlmsghdr *nlh = buf;

		if (n < 0)
			return errno == ENOSPC ? -EMSGSIZE : -errno;
		if (!mnl_nlmsg_ok(nlh, (int)n))
			return -EPROTO;
		if (nlh->nlmsg_seq == seq)
			return (int)nlh->nlmsg_len;
		/* a late answer to an earlier request that timed out: skip it */
	}
}

static int resolve_family(struct ps_ethtool *et)
{
	char req[256], *buf = malloc(REPLY_BUF);
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct genlmsghdr *g;
	int r;

	if (!buf)
		return -ENOMEM;
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++et->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	r = transact(et->genl, nlh, buf, REPLY_BUF);
	if (r >= 0)
		r = ps_genl_parse_family(buf, (size_t)r);
	free(buf);
	/* a kernel without ethtool netlink (before 5.6) says ENOENT */
	if (r > 0)
		et->family = r;
	return r < 0 ? r : 0;
}

static void et_reset(struct ps_ethtool *et)
{
	memset(et, 0, sizeof(*et));
	et->ioctl_fd = -1;
}

int ps_ethtool_open(struct ps_ethtool *et)
{
	int err = 0;

	et_reset(et);
	et->genl = nl_setup(mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC));
	if (!et->genl || resolve_family(et) < 0)
		err = et->genl ? -ENOENT : -errno;
	et->rtnl = nl_setup(mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC));
	et->ioctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!et->genl && !et->rtnl && et->ioctl_fd < 0) {
		err = -errno;
		ps_ethtool_close(et);
		return err ? err : -EIO;
	}
	return 0;
}

int ps_ethtool_open_genl_fd(struct ps_ethtool *et, int fd)
{
	int r;

	et_reset(et);
	et->genl = nl_setup(mnl_socket_fdopen(fd));
	if (!et->genl) {
		r = -errno;
		close(fd);
		return r ? r : -EIO;
	}
	r = resolve_family(et);
	if (r < 0) {
		ps_ethtool_close(et);
		return r;
	}
	return 0;
}

void ps_ethtool_close(struct ps_ethtool *et)
{
	if (et->genl)
		mnl_socket_close(et->genl);
	if (et->rtnl)
		mnl_socket_close(et->rtnl);
	if (et->ioctl_fd >= 0)
		close(et->ioctl_fd);
	et_reset(et);
}

int ps_ethtool_get_raw(struct ps_ethtool *et, uint8_t cmd, const char *ifname, uint32_t flags,
		       void *buf, size_t len)
{
	char req[512];
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	struct nlattr *hdr;

	if (!et->genl || !et->family)
		return -EPROTONOSUPPORT;
	if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
		return -ENODEV;
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = (uint16_t)et->family;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++et->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = ETHTOOL_GENL_VERSION;
	hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_ANY_HEADER);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	if (flags)
		mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
	mnl_attr_nest_end(nlh, hdr);
	return transact(et->genl, nlh, buf, len);
}

int ps_ethtool_rtlink_raw(struct ps_ethtool *et, const char *ifname, void *buf, size_t len)
{
	char req[256];
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;

	if (!et->rtnl)
		return -EPROTONOSUPPORT;
	if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
		return -ENODEV;
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++et->seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	/* With the counters (IFLA_STATS64): nic_link's before and after. */
	return transact(et->rtnl, nlh, buf, len);
}

static int ethtool_ioctl(struct ps_ethtool *et, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	if (et->ioctl_fd < 0)
		return -EPROTONOSUPPORT;
	if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
		return -ENODEV;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = cmd;
	return ioctl(et->ioctl_fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static void copy_field(char *dst, size_t dlen, const char *src, size_t slen)
{
	size_t n = strnlen(src, slen);

	if (n >= dlen)
		n = dlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int query_drvinfo(struct ps_ethtool *et, const char *ifname, struct ps_eth_drvinfo *out)
{
	struct ethtool_drvinfo info;
	int r;

	memset(out, 0, sizeof(*out));
	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	r = ethtool_ioctl(et, ifname, &info);
	if (r < 0)
		return r;
	copy_field(out->driver, sizeof(out->driver), info.driver, sizeof(info.driver));
	copy_field(out->version, sizeof(out->version), info.version, sizeof(info.version));
	copy_field(out->firmware, sizeof(out->firmware), info.fw_version, sizeof(info.fw_version));
	copy_field(out->bus_info, sizeof(out->bus_info), info.bus_info, sizeof(info.bus_info));
	/* drivers without firmware say "N/A" or nothing: unknown, not a version */
	if (strcmp(out->firmware, "N/A") == 0)
		out->firmware[0] = '\0';
	if (strcmp(out->bus_info, "N/A") == 0)
		out->bus_info[0] = '\0';
	out->known = true;
	return 0;
}

/* The permanent MAC through the ioctl, for kernels whose rtnetlink lacks it. */
static void query_permaddr(struct ps_ethtool *et, const char *ifname, struct ps_eth_rtlink *out)
{
	struct {
		struct ethtool_perm_addr req;
		uint8_t data[32];
	} pa;
	bool zero = true;

	memset(&pa, 0, sizeof(pa));
	pa.req.cmd = ETHTOOL_GPERMADDR;
	pa.req.size = sizeof(pa.data);
	if (ethtool_ioctl(et, ifname, &pa) < 0 || pa.req.size != 6)
		return;
	for (int i = 0; i < 6; i++)
		zero &= pa.data[i] == 0;
	if (!zero)
		snprintf(out->perm_mac, sizeof(out->perm_mac), "%02x:%02x:%02x:%02x:%02x:%02x",
			 pa.data[0], pa.data[1], pa.data[2], pa.data[3], pa.data[4], pa.data[5]);
}

static void info_reset(struct ps_eth_info *out)
{
	memset(out, 0, sizeof(*out));
	out->rtlink.mtu = out->rtlink.min_mtu = out->rtlink.max_mtu = PS_UNKNOWN;
	out->rtlink.carrier_changes = PS_UNKNOWN;
	out->rtlink.carrier = PS_TRI_UNKNOWN;
	modes_reset(&out->modes);
	out->state.link = PS_TRI_UNKNOWN;
	out->state.sqi = out->state.sqi_max = PS_UNKNOWN;
	out->state.ext_state = out->state.ext_substate = PS_UNKNOWN;
	fields_unknown(&out->rings, ps_rings_fields, ps_rings_nfields);
	fields_unknown(&out->channels, ps_channels_fields, ps_channels_nfields);
	ps_coalesce_unknown(&out->coalesce);
	out->pause.autoneg = out->pause.rx = out->pause.tx = PS_TRI_UNKNOWN;
	out->rtlink.carrier_up = out->rtlink.carrier_down = PS_UNKNOWN;
}

void ps_ethtool_query(struct ps_ethtool *et, const char *ifname, struct ps_eth_info *out)
{
	void *buf = malloc(REPLY_BUF);
	int r;

	info_reset(out);
	if (!buf) {
		for (int q = 0; q < PS_ETH_QUERIES; q++)
			out->err[q] = -ENOMEM;
		return;
	}
	out->err[PS_ETH_DRVINFO] = query_drvinfo(et, ifname, &out->drv);
	r = ps_ethtool_rtlink_raw(et, ifname, buf, REPLY_BUF);
	out->err[PS_ETH_RTLINK] = r < 0 ? r : ps_rtnl_parse_link(buf, (size_t)r, &out->rtlink);
	if (!out->rtlink.perm_mac[0])
		query_permaddr(et, ifname, &out->rtlink);

#define GET(q, cmd, parse, dst)                                                                    \
	do {                                                                                       \
		r = ps_ethtool_get_raw(et, cmd, ifname, 0, buf, REPLY_BUF);                        \
		out->err[q] = r < 0 ? r : parse(buf, (size_t)r, dst);                              \
	} while (0)
	GET(PS_ETH_LINKMODES, ETHTOOL_MSG_LINKMODES_GET, ps_ethtool_parse_linkmodes, &out->modes);
	GET(PS_ETH_LINKSTATE, ETHTOOL_MSG_LINKSTATE_GET, ps_ethtool_parse_linkstate, &out->state);
	GET(PS_ETH_RINGS, ETHTOOL_MSG_RINGS_GET, ps_ethtool_parse_rings, &out->rings);
	GET(PS_ETH_CHANNELS, ETHTOOL_MSG_CHANNELS_GET, ps_ethtool_parse_channels, &out->channels);
	GET(PS_ETH_COALESCE, ETHTOOL_MSG_COALESCE_GET, ps_ethtool_parse_coalesce, &out->coalesce);
	GET(PS_ETH_PAUSE, ETHTOOL_MSG_PAUSE_GET, ps_ethtool_parse_pause, &out->pause);
	GET(PS_ETH_FEATURES, ETHTOOL_MSG_FEATURES_GET, ps_ethtool_parse_features, &out->features);
#undef GET
	out->has_coalesce = out->err[PS_ETH_COALESCE] == 0;
	free(buf);
}

int ps_ethtool_link_speed(struct ps_ethtool *et, const char *ifname)
{
	struct ps_eth_modes *m = malloc(sizeof(*m));
	void *buf = malloc(REPLY_BUF);
	int r;

	if (!m || !buf) {
		free(m);
		free(buf);
		return -ENOMEM;
	}
	r = ps_ethtool_get_raw(et, ETHTOOL_MSG_LINKMODES_GET, ifname, ETHTOOL_FLAG_COMPACT_BITSETS,
			       buf, REPLY_BUF);
	if (r >= 0)
		r = ps_ethtool_parse_linkmodes(buf, (size_t)r, m);
	if (r == 0)
		r = m->speed_mbps > 0 && m->speed_mbps <= 10000000 ? m->speed_mbps : -ENODATA;
	free(m);
	free(buf);
	return r;
}

/* ------------------------------------------------------------- changing -- */

int ps_ethtool_get_coalesce(struct ps_ethtool *et, const char *ifname, struct ps_coalesce *c)
{
	void *buf = malloc(REPLY_BUF);
	int r;

	ps_coalesce_unknown(c);
	if (!buf)
		return -ENOMEM;
	r = ps_ethtool_get_raw(et, ETHTOOL_MSG_COALESCE_GET, ifname, 0, buf, REPLY_BUF);
	if (r >= 0)
		r = ps_ethtool_parse_coalesce(buf, (size_t)r, c);
	free(buf);
	return r;
}

int ps_ethtool_set_coalesce(struct ps_ethtool *et, const char *ifname, const struct ps_coalesce *c)
{
	char req[1024], reply[1024];
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	struct nlattr *hdr;
	int r, sent = 0;

	if (!et->genl || !et->family)
		return -EPROTONOSUPPORT;
	if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
		return -ENODEV;
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = (uint16_t)et->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++et->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = ETHTOOL_MSG_COALESCE_SET;
	g->version = ETHTOOL_GENL_VERSION;
	hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_ANY_HEADER);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	mnl_attr_nest_end(nlh, hdr);
	for (size_t i = 0; i < ps_coalesce_nfields; i++) {
		const struct ps_eth_field *f = &ps_coalesce_fields[i];
		const char *p = (const char *)c + f->offset;

		if (f->tri) {
			ps_tri v = *(const ps_tri *)p;

			if (v == PS_TRI_UNKNOWN)
				continue;
			mnl_attr_put_u8(nlh, f->attr, v ? 1 : 0);
		} else {
			int v = *(const int *)p;

			if (v == PS_UNKNOWN)
				continue;
			mnl_attr_put_u32(nlh, f->attr, (uint32_t)v);
		}
		sent++;
	}
	if (!sent)
		return 0;
	r = transact(et->genl, nlh, reply, sizeof(reply));
	return r < 0 ? r : ps_netlink_parse_ack(reply, (size_t)r);
}

int ps_ethtool_selftest_count(struct ps_ethtool *et, const char *ifname)
{
	struct ethtool_drvinfo info;
	int r;

	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	r = ethtool_ioctl(et, ifname, &info);
	if (r < 0)
		return r;
	return info.testinfo_len > INT_MAX / ETH_GSTRING_LEN ? -EOVERFLOW : (int)info.testinfo_len;
}

int ps_ethtool_selftest(struct ps_ethtool *et, const char *ifname, bool offline,
			struct ps_eth_selftest *out)
{
	int n = ps_ethtool_selftest_count(et, ifname), r;
	struct ethtool_gstrings *gs;
	struct ethtool_test *t;

	memset(out, 0, sizeof(*out));
	if (n < 0)
		return n;
	if (n == 0)
		return -EOPNOTSUPP;
	gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	t = calloc(1, sizeof(*t) + (size_t)n * sizeof(uint64_t));
	if (!gs || !t) {
		free(gs);
		free(t);
		return -ENOMEM;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_TEST;
	gs->len = (uint32_t)n;
	r = ethtool_ioctl(et, ifname, gs);
	if (r == 0) {
		t->cmd = ETHTOOL_TEST;
		t->flags = offline ? ETH_TEST_FL_OFFLINE : 0;
		t->len = (uint32_t)n;
		r = ethtool_ioctl(et, ifname, t);
	}
	if (r == 0) {
		/* the kernel writes every test the driver has, whatever len said: the
		 * buffers hold n; the report keeps the first PS_ETH_TESTS_MAX */
		out->n = n < (int)t->len ? n : (int)t->len;
		if (out->n > PS_ETH_TESTS_MAX)
			out->n = PS_ETH_TESTS_MAX;
		for (int i = 0; i < out->n; i++) {
			copy_field(out->names[i], sizeof(out->names[i]),
				   (const char *)gs->data + (size_t)i * ETH_GSTRING_LEN,
				   ETH_GSTRING_LEN);
			out->result[i] = t->data[i];
		}
		out->failed = t->flags & ETH_TEST_FL_FAILED;
		out->offline = offline;
	}
	free(gs);
	free(t);
	return r;
}
