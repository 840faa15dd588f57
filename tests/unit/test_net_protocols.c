/*
 * test_net_protocols.c - the pure parts of the NIC steps: the probe frame,
 * the echo service's messages and the MTU binary search, the discovery
 * answer, udhcpc's lease line, net=/peer=/mtu= syntax, the CPU/IRQ cost
 * of a measurement from recorded /proc texts, the NBD greeting and the
 * handshake against a server's stream through a socket pair.
 */
#include "check.h"

#include "core/config.h"
#include "lib/util.h"
#include "engines/net/cost.h"
#include "engines/net/nbd.h"
#include "engines/net/peer.h"
#include "engines/net/pmtu.h"
#include "engines/net/ports.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void probe_frame(void)
{
	uint8_t f[PS_PROBE_FRAME_LEN + 4], mac[6] = {0x52, 0x54, 0, 0x50, 0, 1};
	size_t n = ps_probe_frame_build(f, sizeof(f), mac, 0x0102030405060708ULL, 3);

	CHECK_INT((int)n, PS_PROBE_FRAME_LEN);
	CHECK(memcmp(f, ps_probe_dst, 6) == 0);
	CHECK(memcmp(f + 6, mac, 6) == 0);
	CHECK_INT(f[12] << 8 | f[13], 0x88b5);
	CHECK_INT(ps_probe_frame_parse(f, n, 0x0102030405060708ULL), 3);
	/* another run's frame, a short frame, another EtherType: not ours */
	CHECK_INT(ps_probe_frame_parse(f, n, 0x0102030405060709ULL), -1);
	CHECK_INT(ps_probe_frame_parse(f, 20, 0x0102030405060708ULL), -1);
	f[13] = 0x00;
	CHECK_INT(ps_probe_frame_parse(f, n, 0x0102030405060708ULL), -1);
	CHECK_INT((int)ps_probe_frame_build(f, 10, mac, 1, 0), 0);
}

static void echo_msgs(void)
{
	uint8_t b[5000];
	struct ps_echo_msg m = {.op = PS_ECHO_REV, .seq = 0xabcd, .size = 4074, .mtu = 9000}, o;
	size_t n = ps_echo_encode(&m, b, sizeof(b), 0);

	CHECK_INT((int)n, PS_ECHO_HDR_LEN);
	CHECK_INT(ps_echo_decode(b, n, &o), 0);
	CHECK_INT(o.op, PS_ECHO_REV);
	CHECK_INT(o.seq, 0xabcd);
	CHECK_INT((int)o.size, 4074);
	CHECK_INT((int)o.mtu, 9000);
	/* padded to a probe's size: 4046 bytes of UDP payload make a 4074-byte packet */
	CHECK_INT((int)ps_echo_encode(&m, b, sizeof(b), 4046), 4046);
	CHECK_INT((int)ps_echo_encode(&m, b, 100, 4046), 0);
	b[0] = 'X';
	CHECK_INT(ps_echo_decode(b, n, &o), -EINVAL);
	CHECK_INT(ps_echo_decode(b, 3, &o), -EINVAL);
}

struct path {
	int limit;
	int asked[32], n;
};

static int fits_upto(void *arg, int size)
{
	struct path *p = arg;

	if (p->n < 32)
		p->asked[p->n++] = size;
	return size <= p->limit;
}

static int fits_stop(void *arg, int size)
{
	return -ECANCELED;
}

static void bsearch_mtu(void)
{
	struct path p = {.limit = 4074};

	/* seed 003: 4088 configured, 4074 crosses */
	CHECK_INT(ps_pmtu_bsearch(PS_PMTU_MIN, 4088, fits_upto, &p), 4074);
	CHECK_INT(p.asked[0], 4088); /* the top first: the common case costs one probe */
	CHECK(p.n <= 14);
	p = (struct path){.limit = 9000};
	CHECK_INT(ps_pmtu_bsearch(PS_PMTU_MIN, 9000, fits_upto, &p), 9000);
	CHECK_INT(p.n, 1);
	p = (struct path){.limit = 1500};
	CHECK_INT(ps_pmtu_bsearch(PS_PMTU_MIN, 9216, fits_upto, &p), 1500);
	p = (struct path){.limit = 576};
	CHECK_INT(ps_pmtu_bsearch(PS_PMTU_MIN, 1500, fits_upto, &p), 576);
	CHECK_INT(ps_pmtu_bsearch(PS_PMTU_MIN, 1500, fits_stop, NULL), -ECANCELED);
	CHECK_INT(ps_pmtu_bsearch(1500, 1500, fits_upto, &p), 1500);
}

static void discovery(void)
{
	struct ps_peer_info me, got;
	uint8_t b[2048];
	uint64_t nonce = 0x1122334455667788ULL, n2 = 0;
	size_t len;

	CHECK_INT((int)ps_disc_request(b, sizeof(b), nonce), 16);
	CHECK_INT(ps_disc_parse_request(b, 16, &n2), 0);
	CHECK(n2 == nonce);
	CHECK_INT(ps_disc_parse_request(b, 15, &n2), -EINVAL);
	ps_peer_info_init(&me);
	snprintf(me.name, sizeof(me.name), "525400500001");
	snprintf(me.version, sizeof(me.version), "1.0");
	me.echo_port = 5210;
	me.nbd_port = 10809;
	me.mtu = 4074;
	snprintf(me.export_name, sizeof(me.export_name), "probestick-ram");
	snprintf(me.export_kind, sizeof(me.export_kind), "ram disk");
	me.export_bytes = 268435456;
	me.export_local_mbps = 1234.5;
	inet_pton(AF_INET, "198.51.100.1", &me.addrs[0]);
	me.prefix[0] = 24;
	inet_pton(AF_INET, "169.254.230.221", &me.addrs[1]);
	me.prefix[1] = 16;
	me.naddrs = 2;
	len = ps_disc_answer(b, sizeof(b), nonce, &me);
	CHECK(len > 16);
	CHECK_INT(ps_disc_parse_answer(b, len, nonce, &got), 0);
	CHECK(got.probestick);
	CHECK_STR(got.name, "525400500001");
	CHECK_INT(got.iperf_port, 5201);
	CHECK_INT(got.echo_port, 5210);
	CHECK_INT(got.nbd_port, 10809);
	CHECK_INT(got.mtu, 4074);
	CHECK_STR(got.export_name, "probestick-ram");
	CHECK(got.export_bytes == 268435456);
	CHECK(got.export_local_mbps > 1234 && got.export_local_mbps < 1235);
	CHECK_INT(got.naddrs, 2);
	CHECK_INT(got.prefix[1], 16);
	CHECK(got.addrs[0].s_addr == me.addrs[0].s_addr);
	/* an answer to someone else's request, or damaged: not taken */
	CHECK_INT(ps_disc_parse_answer(b, len, nonce + 1, &got), -EINVAL);
	b[3] = 'x';
	CHECK_INT(ps_disc_parse_answer(b, len, nonce, &got), -EINVAL);
	/* what another machine sends is taken as printable text only */
	len = ps_disc_answer(b, sizeof(b), nonce, &me);
	memcpy(b + 16, "name=\x1b[2Jx\n", 11);
	CHECK_INT(ps_disc_parse_answer(b, len, nonce, &got), 0);
	CHECK(strchr(got.name, 0x1b) == NULL);
	/* numbers out of range or not numbers are not taken: the defaults stay */
	{
		static const char odd[] = "iperf=70000\necho=-5\nnbd=10809x\nmtu=12\n"
					  "addr=192.0.2.7/99\n";

		memcpy(b + 16, odd, sizeof(odd) - 1);
		CHECK_INT(ps_disc_parse_answer(b, 16 + sizeof(odd) - 1, nonce, &got), 0);
		CHECK_INT(got.iperf_port, 5201);
		CHECK_INT(got.echo_port, 0);
		CHECK_INT(got.nbd_port, 0);
		CHECK_INT(got.mtu, -1);
		CHECK_INT(got.naddrs, 1);
		CHECK_INT(got.prefix[0], 32);
	}
}

static void addresses(void)
{
	struct ps_net_addr a;
	struct ps_net_spec n;
	struct in_addr x, y;
	unsigned char mac[6] = {0x52, 0x54, 0, 0x50, 0xe5, 0xdd};
	char why[160], txt[32];
	int port, mtu;

	CHECK_INT(
	    ps_dhcp_parse_lease(
		"lease ip=192.168.1.57 subnet=255.255.255.0 mask= router=192.168.1.1 192.168.1.2",
		&a),
	    0);
	CHECK_STR(inet_ntop(AF_INET, &a.addr, txt, sizeof(txt)), "192.168.1.57");
	CHECK_INT(a.prefix, 24);
	CHECK(a.has_gw);
	CHECK_STR(inet_ntop(AF_INET, &a.gw, txt, sizeof(txt)), "192.168.1.1");
	CHECK_INT(ps_dhcp_parse_lease("lease ip=10.0.0.9 subnet= mask=8 router=", &a), 0);
	CHECK_INT(a.prefix, 8);
	CHECK(!a.has_gw);
	CHECK_INT(ps_dhcp_parse_lease("udhcpc: no lease, failing", &a), -EINVAL);
	CHECK_INT(ps_dhcp_parse_lease("lease ip= subnet=255.255.255.0", &a), -EINVAL);

	x = ps_link_local_for(mac);
	CHECK_STR(inet_ntop(AF_INET, &x, txt, sizeof(txt)), "169.254.230.221");
	inet_pton(AF_INET, "169.254.1.1", &y);
	CHECK(ps_same_subnet(x, y, 16));
	CHECK(!ps_same_subnet(x, y, 24));

	CHECK_INT(ps_net_spec_parse("auto", &n, why, sizeof(why)), 0);
	CHECK_INT(n.how, PS_NET_AUTO);
	CHECK_INT(ps_net_spec_parse("dhcp", &n, why, sizeof(why)), 0);
	CHECK_INT(n.how, PS_NET_DHCP);
	CHECK_INT(ps_net_spec_parse("192.168.10.5/24,192.168.10.1", &n, why, sizeof(why)), 0);
	CHECK_INT(n.how, PS_NET_STATIC);
	CHECK_INT(n.prefix, 24);
	CHECK(n.has_gw);
	CHECK_INT(ps_net_spec_parse("192.168.10.5", &n, why, sizeof(why)), -EINVAL);
	CHECK_INT(ps_net_spec_parse("192.168.10.5/33", &n, why, sizeof(why)), -EINVAL);
	CHECK_INT(ps_net_spec_parse("10.0.0.1/8,gw", &n, why, sizeof(why)), -EINVAL);
	CHECK_INT(ps_peer_spec_parse("198.51.100.1", &x, &port, why, sizeof(why)), 0);
	CHECK_INT(port, 5201);
	CHECK_INT(ps_peer_spec_parse("198.51.100.1:5301", &x, &port, why, sizeof(why)), 0);
	CHECK_INT(port, 5301);
	CHECK_INT(ps_peer_spec_parse("server.lan", &x, &port, why, sizeof(why)), -EINVAL);
	CHECK_INT(ps_peer_spec_parse("198.51.100.1:0", &x, &port, why, sizeof(why)), -EINVAL);
	CHECK_INT(ps_mtu_spec_parse("max", &mtu), 0);
	CHECK_INT(mtu, -1);
	CHECK_INT(ps_mtu_spec_parse("keep", &mtu), 0);
	CHECK_INT(mtu, 0);
	CHECK_INT(ps_mtu_spec_parse("4088", &mtu), 0);
	CHECK_INT(mtu, 4088);
	CHECK_INT(ps_mtu_spec_parse("100", &mtu), -EINVAL);
}

/* Two recorded /proc snapshots of a 2-CPU guest during nic_tput (tests/fixtures/proc). */
static void cost(void)
{
	static const char *const d = FIXTURES "/proc/qemu-q35-2cpu";
	char path[256], *s0, *s1, *i0, *i1;
	size_t ls0, ls1, li0, li1;
	int irqs[] = {0, 1, 24, 25};
	struct ps_cost_snap a, b;
	struct ps_cost_result r;

	snprintf(path, sizeof(path), "%s/0/proc/stat", d);
	CHECK_INT(ps_read_all(path, &s0, &ls0), 0);
	snprintf(path, sizeof(path), "%s/1/proc/stat", d);
	CHECK_INT(ps_read_all(path, &s1, &ls1), 0);
	snprintf(path, sizeof(path), "%s/0/proc/interrupts", d);
	CHECK_INT(ps_read_all(path, &i0, &li0), 0);
	snprintf(path, sizeof(path), "%s/1/proc/interrupts", d);
	CHECK_INT(ps_read_all(path, &i1, &li1), 0);
	ps_cost_parse(s0, ls0, i0, li0, irqs, 4, 10.0, &a);
	ps_cost_parse(s1, ls1, i1, li1, irqs, 4, 11.0, &b);
	CHECK(a.ok && b.ok);
	CHECK_INT((int)b.ncpus, 2);
	ps_cost_compute(&a, &b, 4, &r);
	CHECK(r.known);
	CHECK_INT(r.ncpus, 2);
	CHECK(r.busiest_pct >= 0 && r.busiest_pct <= 100);
	CHECK(r.total_pct <= r.busiest_pct + 0.01);
	CHECK(r.busiest_cpu == 0 || r.busiest_cpu == 1);
	CHECK(r.irqs_per_s >= 0);
	CHECK(r.cpu_bound == (r.busiest_pct >= PS_COST_CPU_BOUND_PCT));
	printf("cost between the two snapshots: busiest CPU %d at %.1f%% (softirq %.1f%%), all "
	       "%.1f%%, "
	       "%.0f port IRQs/s%s\n",
	       r.busiest_cpu, r.busiest_pct, r.busiest_softirq_pct, r.total_pct, r.irqs_per_s,
	       r.irq_one_cpu ? ", all on one CPU" : "");
	/* the same snapshot twice, or a later one first: nothing known */
	ps_cost_compute(&b, &a, 4, &r);
	CHECK(!r.known);
	free(s0);
	free(s1);
	free(i0);
	free(i1);
}

static void nbd_greeting(void)
{
	uint8_t g[18] = {'N', 'B', 'D', 'M', 'A', 'G', 'I', 'C', 'I',
			 'H', 'A', 'V', 'E', 'O', 'P', 'T', 0,	 3};
	uint8_t rep[20] = {0, 0x03, 0xe8, 0x89, 0x04, 0x55, 0x65, 0xa9, 0, 0,
			   0, 7,    0,	  0,	0,    1,    0,	  0,	0, 0};
	uint16_t flags;
	uint32_t opt, type, len;

	CHECK_INT(ps_nbd_parse_greeting(g, sizeof(g), &flags), 0);
	CHECK_INT(flags, 3);
	g[0] = 'X';
	CHECK_INT(ps_nbd_parse_greeting(g, sizeof(g), &flags), -EPROTO);
	CHECK_INT(ps_nbd_parse_reply(rep, sizeof(rep), &opt, &type, &len), 0);
	CHECK_INT((int)opt, 7);
	CHECK_INT((int)type, 1);
	CHECK_INT((int)len, 0);
	CHECK_INT(ps_nbd_parse_reply(rep, 10, &opt, &type, &len), -EPROTO);
}

/* A server's stream: the greeting, then replies to NBD_OPT_GO. */
static size_t nbd_stream(uint8_t *buf, unsigned int infos, uint32_t last)
{
	static const uint8_t g[18] = {'N', 'B', 'D', 'M', 'A', 'G', 'I', 'C', 'I',
				      'H', 'A', 'V', 'E', 'O', 'P', 'T', 0,   3};
	static const uint8_t magic[8] = {0, 0x03, 0xe8, 0x89, 0x04, 0x55, 0x65, 0xa9};
	size_t n = sizeof(g);

	memcpy(buf, g, n);
	for (unsigned int i = 0; i <= infos; i++) {
		uint32_t type = i < infos ? 3 : last, dlen = i < infos ? 12 : 0;

		memcpy(buf + n, magic, 8);
		memcpy(buf + n + 8, (const uint8_t[]){0, 0, 0, 7}, 4);
		for (int b = 0; b < 4; b++) {
			buf[n + 12 + b] = (uint8_t)(type >> (24 - 8 * b));
			buf[n + 16 + b] = (uint8_t)(dlen >> (24 - 8 * b));
		}
		n += 20;
		if (dlen) { /* NBD_INFO_EXPORT: 64 MiB, flags 0x000b */
			memcpy(buf + n, (const uint8_t[]){0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0x0b},
			       12);
			n += 12;
		}
	}
	return n;
}

static int nbd_talk(const uint8_t *buf, size_t len, struct ps_nbd_export *ex, char *why)
{
	int sv[2], r;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -errno;
	CHECK(write(sv[1], buf, len) == (ssize_t)len);
	shutdown(sv[1], SHUT_WR);
	r = ps_nbd_handshake(sv[0], "probestick", ex, why, 160);
	close(sv[0]);
	close(sv[1]);
	return r;
}

static void nbd_handshake(void)
{
	static uint8_t buf[18 + 70 * 32];
	struct ps_nbd_export ex;
	char why[160] = "";

	CHECK_INT(nbd_talk(buf, nbd_stream(buf, 1, 1), &ex, why), 0);
	CHECK_INT((int)(ex.size >> 20), 64);
	CHECK_INT(ex.flags, 0x0b);
	CHECK_INT(nbd_talk(buf, nbd_stream(buf, 0, 6U | 1U << 31), &ex, why), -ENOENT);
	CHECK(strstr(why, "refused export probestick") != NULL);
	/* a server that never answers but keeps sending replies is cut off */
	CHECK_INT(nbd_talk(buf, nbd_stream(buf, 66, 1), &ex, why), -EPROTO);
	CHECK_STR(why, "the server sent 64 option replies without an answer");
	/* it hangs up in the middle */
	CHECK_INT(nbd_talk(buf, nbd_stream(buf, 1, 1) - 25, &ex, why), -ECONNRESET);
}

int main(void)
{
	probe_frame();
	echo_msgs();
	bsearch_mtu();
	discovery();
	addresses();
	cost();
	nbd_greeting();
	nbd_handshake();
	return check_done("test_net_protocols");
}
