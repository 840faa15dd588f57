/* test_probe_ethtool.c - the ethtool helper's pure parsers on replies recorded
 * from e1000e and virtio-net in a QEMU guest (tests/fixtures/ethtool/, beside
 * what ethtool(8) printed there), damaged replies, and the live helper. */
#include "check.h"
#include "hw/ethtool.h"

#include "lib/util.h"

#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR FIXTURES "/ethtool/"

static char *load(const char *name, size_t *len)
{
	char *data = NULL;

	if (ps_read_all(name, &data, len) < 0) {
		fprintf(stderr, "cannot read fixture %s\n", name);
		exit(1);
	}
	return data;
}

/* Bit numbers of enum ethtool_link_mode_bit_indices. */
enum { M10H = 0, M10F = 1, M100H = 2, M100F = 3, M1000F = 5, M_AUTONEG = 6, M_TP = 7 };

static void test_e1000e(void)
{
	struct ps_eth_modes *m = calloc(1, sizeof(*m));
	struct ps_eth_state st;
	struct ps_eth_rings rg;
	struct ps_eth_channels ch;
	struct ps_coalesce c;
	struct ps_eth_pause pa;
	struct ps_eth_rtlink rt;
	size_t len;
	char *d;

	/* ethtool eth1: 1000Mb/s Full, autoneg on, 10/100 half+full and 1000 full */
	d = load(DIR "e1000e/linkmodes.bin", &len);
	CHECK_INT(ps_ethtool_parse_linkmodes(d, len, m), 0);
	CHECK(m->known);
	CHECK_INT(m->autoneg, 1);
	CHECK_INT(m->speed_mbps, 1000);
	CHECK_STR(m->duplex, "full");
	for (int b = 0; b <= M_TP; b++)
		CHECK_INT(ps_eth_mode_test(m->supported, b), b != 4);
	CHECK(!ps_eth_mode_test(m->supported, 4)); /* 1000baseT/Half: e1000e has none */
	CHECK(memcmp(m->supported, m->advertised, sizeof(m->supported)) == 0);
	CHECK_STR(m->names[M1000F], "1000baseT/Full");
	CHECK_STR(m->names[M10H], "10baseT/Half");
	CHECK_STR(m->names[M_TP], "TP");
	CHECK(!m->partner_known); /* QEMU's PHY reports no link partner: ethtool shows none */
	CHECK_INT(m->lanes, PS_UNKNOWN);
	free(d);

	/* the compact form of the same reply: the same bits, no names */
	d = load(DIR "e1000e/linkmodes-compact.bin", &len);
	CHECK_INT(ps_ethtool_parse_linkmodes(d, len, m), 0);
	CHECK_INT(m->speed_mbps, 1000);
	CHECK(ps_eth_mode_test(m->advertised, M1000F) && ps_eth_mode_test(m->supported, M100H));
	CHECK(!ps_eth_mode_test(m->supported, 4));
	CHECK_STR(m->names[M1000F], "");
	free(d);

	d = load(DIR "e1000e/linkstate.bin", &len);
	CHECK_INT(ps_ethtool_parse_linkstate(d, len, &st), 0);
	CHECK_INT(st.link, 1); /* Link detected: yes */
	CHECK_INT(st.sqi, PS_UNKNOWN);
	CHECK_INT(st.ext_state, PS_UNKNOWN);
	free(d);

	/* ethtool -g: 4096 / 4096 maximums, 256 / 256 set; mini and jumbo n/a */
	d = load(DIR "e1000e/rings.bin", &len);
	CHECK_INT(ps_ethtool_parse_rings(d, len, &rg), 0);
	CHECK(rg.known);
	CHECK_INT(rg.rx, 256);
	CHECK_INT(rg.rx_max, 4096);
	CHECK_INT(rg.tx, 256);
	CHECK_INT(rg.tx_max, 4096);
	CHECK_INT(rg.rx_mini, PS_UNKNOWN);
	CHECK_INT(rg.rx_jumbo_max, PS_UNKNOWN);
	CHECK_INT(rg.rx_buf_len, PS_UNKNOWN);
	free(d);

	/* ethtool -l: "Operation not supported" */
	d = load(DIR "e1000e/channels.bin", &len);
	CHECK_INT(ps_ethtool_parse_channels(d, len, &ch), -EOPNOTSUPP);
	CHECK(!ch.known);
	CHECK_INT(ch.combined, PS_UNKNOWN);
	free(d);

	/* ethtool -c: rx-usecs 3, everything else n/a (the old ioctl said 0 and off) */
	d = load(DIR "e1000e/coalesce.bin", &len);
	CHECK_INT(ps_ethtool_parse_coalesce(d, len, &c), 0);
	CHECK_INT(c.rx_usecs, 3);
	CHECK_INT(c.rx_frames, PS_UNKNOWN);
	CHECK_INT(c.tx_usecs, PS_UNKNOWN);
	CHECK_INT(c.tx_frames, PS_UNKNOWN);
	CHECK_INT(c.adaptive_rx, PS_TRI_UNKNOWN);
	CHECK_INT(c.adaptive_tx, PS_TRI_UNKNOWN);
	CHECK_INT(c.rate_sample_interval, PS_UNKNOWN);
	CHECK_INT(c.cqe_mode_rx, PS_TRI_UNKNOWN);
	free(d);

	/* ethtool -a: autonegotiate on, RX on, TX on */
	d = load(DIR "e1000e/pause.bin", &len);
	CHECK_INT(ps_ethtool_parse_pause(d, len, &pa), 0);
	CHECK(pa.known && pa.autoneg == 1 && pa.rx == 1 && pa.tx == 1);
	free(d);

	/* ethtool -P: 52:54:00:50:00:01; e1000e's jumbo limit */
	d = load(DIR "e1000e/rtlink.bin", &len);
	CHECK_INT(ps_rtnl_parse_link(d, len, &rt), 0);
	CHECK_STR(rt.perm_mac, "52:54:00:50:00:01");
	CHECK_STR(rt.mac, "52:54:00:50:00:01");
	CHECK_INT(rt.mtu, 1500);
	CHECK_INT(rt.min_mtu, 68);
	CHECK_INT(rt.max_mtu, 9212);
	CHECK_INT(rt.carrier, 1);
	CHECK(rt.carrier_changes >= 1);
	free(d);
	free(m);
}

static void test_virtio_net(void)
{
	struct ps_eth_modes *m = calloc(1, sizeof(*m));
	struct ps_eth_channels ch;
	struct ps_eth_rings rg;
	struct ps_coalesce c;
	struct ps_eth_pause pa;
	struct ps_eth_rtlink rt;
	size_t len;
	char *d;

	/* ethtool eth0: no modes, "Speed: Unknown!", "Duplex: Unknown! (255)", autoneg off */
	d = load(DIR "virtio_net/linkmodes.bin", &len);
	CHECK_INT(ps_ethtool_parse_linkmodes(d, len, m), 0);
	CHECK_INT(m->autoneg, 0);
	CHECK_INT(m->speed_mbps, PS_UNKNOWN);
	CHECK_STR(m->duplex, "");
	for (int w = 0; w < PS_ETH_MODE_WORDS; w++)
		CHECK_INT(m->supported[w] | m->advertised[w], 0);
	free(d);

	/* ethtool -l: combined 1 of 1; RX, TX and Other n/a */
	d = load(DIR "virtio_net/channels.bin", &len);
	CHECK_INT(ps_ethtool_parse_channels(d, len, &ch), 0);
	CHECK_INT(ch.combined, 1);
	CHECK_INT(ch.combined_max, 1);
	CHECK_INT(ch.rx, PS_UNKNOWN);
	CHECK_INT(ch.tx_max, PS_UNKNOWN);
	CHECK_INT(ch.other, PS_UNKNOWN);
	free(d);

	d = load(DIR "virtio_net/rings.bin", &len);
	CHECK_INT(ps_ethtool_parse_rings(d, len, &rg), 0);
	CHECK(rg.rx == 256 && rg.rx_max == 256 && rg.tx == 256 && rg.tx_max == 256);
	free(d);

	/* ethtool -c: rx-usecs 0, rx-frames 1, tx-usecs 0, tx-frames 1: real zeros */
	d = load(DIR "virtio_net/coalesce.bin", &len);
	CHECK_INT(ps_ethtool_parse_coalesce(d, len, &c), 0);
	CHECK_INT(c.rx_usecs, 0);
	CHECK_INT(c.rx_frames, 1);
	CHECK_INT(c.tx_usecs, 0);
	CHECK_INT(c.tx_frames, 1);
	CHECK_INT(c.rx_usecs_irq, PS_UNKNOWN);
	CHECK_INT(c.adaptive_rx, PS_TRI_UNKNOWN);
	free(d);

	/* ethtool -a: "netlink error: Operation not supported" */
	d = load(DIR "virtio_net/pause.bin", &len);
	CHECK_INT(ps_ethtool_parse_pause(d, len, &pa), -EOPNOTSUPP);
	CHECK(!pa.known && pa.rx == PS_TRI_UNKNOWN);
	free(d);

	d = load(DIR "virtio_net/rtlink.bin", &len);
	CHECK_INT(ps_rtnl_parse_link(d, len, &rt), 0);
	CHECK_STR(rt.perm_mac, "52:54:00:50:00:03");
	CHECK_INT(rt.max_mtu, 65535);
	free(d);
	free(m);
}

static void test_errors(void)
{
	struct ps_eth_modes *m = calloc(1, sizeof(*m));
	struct ps_eth_rtlink rt;
	struct ps_coalesce c;
	size_t len;
	char *d;

	d = load(DIR "errors/enodev-linkmodes.bin", &len);
	CHECK_INT(ps_ethtool_parse_linkmodes(d, len, m), -ENODEV);
	CHECK(!m->known);
	free(d);
	d = load(DIR "errors/enodev-rtlink.bin", &len);
	CHECK_INT(ps_rtnl_parse_link(d, len, &rt), -ENODEV);
	free(d);

	/* a reply of another command is not taken for this one */
	d = load(DIR "e1000e/rings.bin", &len);
	CHECK_INT(ps_ethtool_parse_coalesce(d, len, &c), -EPROTO);
	CHECK_INT(c.rx_usecs, PS_UNKNOWN);
	CHECK_INT(ps_ethtool_parse_linkmodes(d, len, m), -EPROTO);
	CHECK_INT(ps_rtnl_parse_link(d, len, &rt), -EPROTO);
	/* a length field beyond the buffer */
	CHECK_INT(ps_ethtool_parse_coalesce(d, len - 1, &c), -EINVAL);
	CHECK_INT(ps_ethtool_parse_coalesce(d, 3, &c), -EINVAL);
	CHECK_INT(ps_ethtool_parse_coalesce(NULL, 0, &c), -EINVAL);
	free(d);
	free(m);
}

/*
 * Damaged replies: every truncation (with the length field left as it was,
 * and shortened to match) and pseudo-random byte changes of every fixture.
 * The parsers must give an answer or an error, never read outside the
 * buffer (the unit tests run under AddressSanitizer).
 */
static void test_damaged(void)
{
	static const char *const files[] = {
	    "e1000e/linkmodes.bin", "e1000e/linkmodes-compact.bin", "e1000e/linkstate.bin",
	    "e1000e/rings.bin",	    "e1000e/coalesce.bin",	    "e1000e/pause.bin",
	    "e1000e/rtlink.bin",    "virtio_net/channels.bin",	    "errors/enodev-linkmodes.bin",
	};
	struct ps_eth_modes *m = calloc(1, sizeof(*m));
	uint32_t seed = 12345;
	size_t runs = 0;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[256], *orig;
		size_t len;

		snprintf(path, sizeof(path), DIR "%s", files[f]);
		orig = load(path, &len);
		for (size_t cut = 0; cut <= len; cut++) {
			for (int fix = 0; fix < 2; fix++) {
				char *b = malloc(cut ? cut : 1);
				struct ps_eth_state st;
				struct ps_eth_rings rg;
				struct ps_eth_channels ch;
				struct ps_coalesce c;
				struct ps_eth_pause pa;
				struct ps_eth_rtlink rt;

				memcpy(b, orig, cut);
				if (fix && cut >= 4) {
					uint32_t l = (uint32_t)cut;

					memcpy(b, &l, 4);
				}
				ps_ethtool_parse_linkmodes(b, cut, m);
				ps_ethtool_parse_linkstate(b, cut, &st);
				ps_ethtool_parse_rings(b, cut, &rg);
				ps_ethtool_parse_channels(b, cut, &ch);
				ps_ethtool_parse_coalesce(b, cut, &c);
				ps_ethtool_parse_pause(b, cut, &pa);
				ps_rtnl_parse_link(b, cut, &rt);
				ps_genl_parse_family(b, cut);
				free(b);
				runs++;
			}
		}
		for (int k = 0; k < 3000; k++) {
			char *b = malloc(len);
			struct ps_eth_rtlink rt;
			struct ps_coalesce c;

			memcpy(b, orig, len);
			for (int j = 0; j < 1 + k % 4; j++) {
				seed = seed * 1103515245 + 12345;
				/* keep the total length most of the time: damage the inside */
				size_t at = 4 + (seed >> 8) % (len > 4 ? len - 4 : 1);

				if (at < len)
					b[at] = (char)(seed >> 24);
			}
			ps_ethtool_parse_linkmodes(b, len, m);
			ps_ethtool_parse_coalesce(b, len, &c);
			ps_rtnl_parse_link(b, len, &rt);
			free(b);
			runs++;
		}
		free(orig);
	}
	CHECK(runs > 20000);
	free(m);
}

/* The helper on this machine: whatever the NICs, the calls answer and clean up. */
static void test_live(void)
{
	struct ps_ethtool et;
	struct ps_eth_info *info = calloc(1, sizeof(*info));
	int r = ps_ethtool_open(&et);

	CHECK_INT(r, 0);
	if (r == 0) {
		ps_ethtool_query(&et, "nonexistent0", info);
		CHECK_INT(info->err[PS_ETH_LINKMODES], -ENODEV);
		CHECK_INT(info->err[PS_ETH_RTLINK], -ENODEV);
		CHECK(!info->has_coalesce && info->coalesce.rx_usecs == PS_UNKNOWN);
		CHECK_INT(ps_ethtool_link_speed(&et, "nonexistent0"), -ENODEV);
		CHECK_INT(ps_ethtool_link_speed(&et, ""), -ENODEV);
		/* lo has no link settings at all */
		CHECK_INT(ps_ethtool_link_speed(&et, "lo"), -EOPNOTSUPP);
		ps_ethtool_query(&et, "lo", info);
		CHECK_INT(info->err[PS_ETH_RTLINK], 0);
		CHECK_INT(info->rtlink.mtu, 65536);
		ps_ethtool_close(&et);
		CHECK(et.genl == NULL && et.ioctl_fd == -1);
	}
	CHECK_STR(ps_eth_query_name(PS_ETH_COALESCE), "coalesce");
	CHECK(ps_eth_query_name(PS_ETH_QUERIES) == NULL);
	free(info);
}

int main(void)
{
	test_e1000e();
	test_virtio_net();
	test_errors();
	test_damaged();
	test_live();
	return check_done("test_probe_ethtool");
}
