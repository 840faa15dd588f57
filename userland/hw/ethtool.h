/*
 * ethtool.h - the one ethtool helper of probestick: ethtool netlink (genl
 * family "ethtool", through libmnl) for link modes, link state, rings,
 * channels, coalescing (read and set), pause and offloads; the ioctls for
 * what 6.1's netlink lacks (driver, firmware, bus: ETHTOOL_GDRVINFO; the
 * driver's self-test: ETHTOOL_TEST); rtnetlink for the permanent MAC, the
 * MTU range, carrier changes and the standard counters. The parsers are
 * pure functions over whole reply messages, so recorded replies feed the
 * unit tests and fuzzers.
 *
 * A setting the driver does not support is PS_UNKNOWN / PS_TRI_UNKNOWN: the
 * kernel leaves it out of the reply (never 0 or false).
 */
#ifndef PS_HW_ETHTOOL_H
#define PS_HW_ETHTOOL_H

#include "decode/decode.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_ETH_MODE_BITS  128 /* link mode bits kept (6.1 defines 102) */
#define PS_ETH_MODE_WORDS (PS_ETH_MODE_BITS / 32)
#define PS_ETH_MODE_NAME  32

/* ETHTOOL_MSG_LINKMODES_GET. */
struct ps_eth_modes {
	bool known; /* the driver answered */
	ps_tri autoneg;
	int speed_mbps; /* PS_UNKNOWN when the link is down or the speed unknown */
	char duplex[8]; /* "full", "half", "" */
	int lanes;	/* PS_UNKNOWN */
	uint32_t supported[PS_ETH_MODE_WORDS], advertised[PS_ETH_MODE_WORDS];
	uint32_t partner[PS_ETH_MODE_WORDS];
	bool partner_known;				/* the reply had the link partner's modes */
	char names[PS_ETH_MODE_BITS][PS_ETH_MODE_NAME]; /* "1000baseT/Full", by bit */
};

/* ETHTOOL_MSG_LINKSTATE_GET. */
struct ps_eth_state {
	bool known;
	ps_tri link;
	int sqi, sqi_max; /* signal quality (some PHYs), PS_UNKNOWN */
	int ext_state,
	    ext_substate; /* why the link is down (ETHTOOL_LINK_EXT_STATE_*), PS_UNKNOWN */
};

/* ETHTOOL_MSG_RINGS_GET: PS_UNKNOWN for a ring the driver does not have. */
struct ps_eth_rings {
	bool known;
	int rx, rx_max, rx_mini, rx_mini_max, rx_jumbo, rx_jumbo_max, tx, tx_max;
	int rx_buf_len;
};

/* ETHTOOL_MSG_CHANNELS_GET: queues the driver uses and can use. */
struct ps_eth_channels {
	bool known;
	int rx, rx_max, tx, tx_max, other, other_max, combined, combined_max;
};

/* ETHTOOL_MSG_PAUSE_GET: flow control. */
struct ps_eth_pause {
	bool known;
	ps_tri autoneg, rx, tx;
};

/* ETHTOOL_MSG_COALESCE_GET: each field PS_UNKNOWN when the driver does not support it. */
struct ps_coalesce {
	int rx_usecs, rx_frames, rx_usecs_irq, rx_frames_irq;
	int tx_usecs, tx_frames, tx_usecs_irq, tx_frames_irq;
	int stats_block_usecs;
	ps_tri adaptive_rx, adaptive_tx;
	int pkt_rate_low, rx_usecs_low, rx_frames_low, tx_usecs_low, tx_frames_low;
	int pkt_rate_high, rx_usecs_high, rx_frames_high, tx_usecs_high, tx_frames_high;
	int rate_sample_interval;
	ps_tri cqe_mode_tx, cqe_mode_rx;
};

/* ETHTOOL_GDRVINFO (ioctl). */
struct ps_eth_drvinfo {
	bool known;
	char driver[32], version[32], firmware[32], bus_info[32];
};

/*
 * IFLA_STATS64: the kernel's standard counters of the interface, what
 * `ip -s -s link` shows (rtnl_link_stats64). Every driver fills the struct;
 * a kind of error its hardware does not count stays 0 there, which the
 * kernel cannot tell from none counted.
 */
enum ps_eth_stat {
	PS_ST_RX_PACKETS,
	PS_ST_TX_PACKETS,
	PS_ST_RX_BYTES,
	PS_ST_TX_BYTES,
	PS_ST_RX_ERRORS,
	PS_ST_TX_ERRORS,
	PS_ST_RX_DROPPED,
	PS_ST_TX_DROPPED,
	PS_ST_MULTICAST,
	PS_ST_COLLISIONS,
	PS_ST_RX_LENGTH_ERRORS,
	PS_ST_RX_OVER_ERRORS,
	PS_ST_RX_CRC_ERRORS,
	PS_ST_RX_FRAME_ERRORS,
	PS_ST_RX_FIFO_ERRORS,
	PS_ST_RX_MISSED_ERRORS,
	PS_ST_TX_ABORTED_ERRORS,
	PS_ST_TX_CARRIER_ERRORS,
	PS_ST_TX_FIFO_ERRORS,
	PS_ST_TX_HEARTBEAT_ERRORS,
	PS_ST_TX_WINDOW_ERRORS,
	PS_ST_RX_NOHANDLER,
	PS_ETH_NSTATS
};
struct ps_eth_stats {
	bool known; /* the reply carried IFLA_STATS64 */
	uint64_t v[PS_ETH_NSTATS];
};
/* "rx_packets", "rx_crc_errors", ...: the kernel's field names, also the report's. */
extern const char *const ps_eth_stat_names[PS_ETH_NSTATS];

/* RTM_GETLINK: what rtnetlink knows of the interface. */
struct ps_eth_rtlink {
	bool known;
	char mac[18], perm_mac[18];   /* "" when absent or all zero */
	int mtu, min_mtu, max_mtu;    /* PS_UNKNOWN */
	int carrier_changes;	      /* PS_UNKNOWN */
	int carrier_up, carrier_down; /* IFLA_CARRIER_UP/DOWN_COUNT, PS_UNKNOWN */
	ps_tri carrier;
	struct ps_eth_stats stats;
};

/*
 * ETHTOOL_MSG_FEATURES_GET: the offloads (netdev features by their ethtool
 * names, "rx-checksum", "tx-tcp-segmentation", "rx-gro"). hw: the ones the
 * driver lets be changed; active: the ones on; nochange: fixed by the driver.
 */
struct ps_eth_features {
	bool known;
	uint32_t hw[PS_ETH_MODE_WORDS], active[PS_ETH_MODE_WORDS], nochange[PS_ETH_MODE_WORDS];
	char names[PS_ETH_MODE_BITS][PS_ETH_MODE_NAME];
};

enum ps_eth_query {
	PS_ETH_DRVINFO,
	PS_ETH_RTLINK,
	PS_ETH_LINKMODES,
	PS_ETH_LINKSTATE,
	PS_ETH_RINGS,
	PS_ETH_CHANNELS,
	PS_ETH_COALESCE,
	PS_ETH_PAUSE,
	PS_ETH_FEATURES,
	PS_ETH_QUERIES
};

/* Everything one interface answered; err[q] is 0 or the query's negative errno. */
struct ps_eth_info {
	struct ps_eth_drvinfo drv;
	struct ps_eth_rtlink rtlink;
	struct ps_eth_modes modes;
	struct ps_eth_state state;
	struct ps_eth_rings rings;
	struct ps_eth_channels channels;
	bool has_coalesce; /* false: no coalescing query answered (EOPNOTSUPP) */
	struct ps_coalesce coalesce;
	struct ps_eth_pause pause;
	struct ps_eth_features features;
	int err[PS_ETH_QUERIES];
};

/* "drvinfo", "rtlink", "linkmodes", ... */
const char *ps_eth_query_name(enum ps_eth_query q);

/* ---- the helper: sockets in one network namespace ---- */

struct mnl_socket;
struct ps_ethtool {
	struct mnl_socket *genl; /* NULL: no ethtool netlink (a kernel before 5.6) */
	int family;		 /* genl id of "ethtool", 0 unknown */
	struct mnl_socket *rtnl; /* NULL when opened on a foreign genl socket */
	int ioctl_fd;		 /* -1 likewise */
	uint32_t seq;
};

/* Open the sockets in the caller's namespace. 0 or -errno (-ENOENT: no "ethtool" family). */
int ps_ethtool_open(struct ps_ethtool *et);
/*
 * Use a NETLINK_GENERIC socket the caller opened (in another namespace,
 * ps_netns_socket()); only the netlink queries work then. Takes the fd.
 */
int ps_ethtool_open_genl_fd(struct ps_ethtool *et, int fd);
void ps_ethtool_close(struct ps_ethtool *et);

/* Every query for ifname; what one query lacks does not stop the others. */
void ps_ethtool_query(struct ps_ethtool *et, const char *ifname, struct ps_eth_info *out);
/* Link speed in Mbit/s from LINKMODES_GET; -ENODATA when unknown, -ENODEV without ifname. */
int ps_ethtool_link_speed(struct ps_ethtool *et, const char *ifname);

/*
 * One raw ethtool netlink GET (cmd ETHTOOL_MSG_*_GET) for ifname, flags
 * ETHTOOL_FLAG_*: the reply message copied into buf. Its length, or
 * -errno (the kernel's error for this device, -EMSGSIZE when buf is short).
 * What tests/fixtures/ethtool/ recordings are made of.
 */
int ps_ethtool_get_raw(struct ps_ethtool *et, uint8_t cmd, const char *ifname, uint32_t flags,
		       void *buf, size_t len);
/* The RTM_GETLINK reply for ifname, likewise. */
int ps_ethtool_rtlink_raw(struct ps_ethtool *et, const char *ifname, void *buf, size_t len);

/*
 * Change coalescing settings (ETHTOOL_MSG_COALESCE_SET): every field of c
 * that is not PS_UNKNOWN is sent, the others are left as they are. 0, or
 * the kernel's -errno (-EOPNOTSUPP: a field the driver does not support,
 * -EINVAL: a value it refuses).
 */
int ps_ethtool_set_coalesce(struct ps_ethtool *et, const char *ifname, const struct ps_coalesce *c);
/* Read the coalescing settings only: 0 or -errno. */
int ps_ethtool_get_coalesce(struct ps_ethtool *et, const char *ifname, struct ps_coalesce *c);

/* The driver's own self-test (ETHTOOL_TEST ioctl, which netlink lacks in 6.1). */
#define PS_ETH_TESTS_MAX 32
struct ps_eth_selftest {
	int n;				  /* tests the driver ran */
	char names[PS_ETH_TESTS_MAX][32]; /* "Register test  (offline)", as the driver names them */
	uint64_t result[PS_ETH_TESTS_MAX]; /* 0 passed; the driver's non-zero code failed */
	bool failed;			   /* ETH_TEST_FL_FAILED: the driver's overall verdict */
	bool offline; /* the offline tests ran (the link went down meanwhile) */
};
/* How many tests the driver has (testinfo_len): > 0, 0 none (no self-test), or -errno. */
int ps_ethtool_selftest_count(struct ps_ethtool *et, const char *ifname);
/* Run it, offline when asked (the driver may take the link down); blocks until it ends. */
int ps_ethtool_selftest(struct ps_ethtool *et, const char *ifname, bool offline,
			struct ps_eth_selftest *out);

/* ---- pure parsers of reply messages (nlmsghdr onwards) ---- */

/*
 * Each returns 0, the kernel's negative errno when msg is an NLMSG_ERROR
 * (-EOPNOTSUPP: the driver has no such settings), or -EINVAL/-EPROTO for a
 * message that is not the expected reply. out is reset first.
 */
int ps_ethtool_parse_linkmodes(const void *msg, size_t len, struct ps_eth_modes *out);
int ps_ethtool_parse_linkstate(const void *msg, size_t len, struct ps_eth_state *out);
int ps_ethtool_parse_rings(const void *msg, size_t len, struct ps_eth_rings *out);
int ps_ethtool_parse_channels(const void *msg, size_t len, struct ps_eth_channels *out);
int ps_ethtool_parse_coalesce(const void *msg, size_t len, struct ps_coalesce *out);
int ps_ethtool_parse_pause(const void *msg, size_t len, struct ps_eth_pause *out);
int ps_ethtool_parse_features(const void *msg, size_t len, struct ps_eth_features *out);
int ps_rtnl_parse_link(const void *msg, size_t len, struct ps_eth_rtlink *out);
/* An NLMSG_ERROR acknowledgement: 0 for success, the kernel's -errno, -EPROTO otherwise. */
int ps_netlink_parse_ack(const void *msg, size_t len);
/* CTRL_CMD_GETFAMILY reply: the family id, or -errno. */
int ps_genl_parse_family(const void *msg, size_t len);

/* Bit b of a link mode set. */
static inline bool ps_eth_mode_test(const uint32_t *set, unsigned int b)
{
	return b < PS_ETH_MODE_BITS && (set[b / 32] >> (b % 32) & 1);
}

/* The JSON names and places of a struct's fields, one description for parser and report. */
struct ps_eth_field {
	uint16_t attr;	 /* ETHTOOL_A_* */
	bool tri;	 /* u8 flag kept as ps_tri, else u32 kept as int */
	size_t offset;	 /* in the struct */
	const char *key; /* report name */
};
extern const struct ps_eth_field ps_coalesce_fields[];
extern const size_t ps_coalesce_nfields;
extern const struct ps_eth_field ps_rings_fields[];
extern const size_t ps_rings_nfields;
extern const struct ps_eth_field ps_channels_fields[];
extern const size_t ps_channels_nfields;

/* A struct whose every field is unknown. */
void ps_coalesce_unknown(struct ps_coalesce *c);

#endif
