/*
 * fuzz_net.c - what other hosts send the NIC steps, through their pure
 * parsers: a discovery request and answer (engines/net/peer.c; any host on
 * the segment may answer), the lease line of udhcpc's script, an echo
 * datagram (engines/net/pmtu.c), a probe frame (engines/net/ports.c) and
 * iperf3's JSON (engines/net/iperf_pair.c). The first byte picks the
 * parser; the rest is the message. The answer's nonce is its own bytes 8-15,
 * so that every input reaches the key=value lines.
 */
// fuzz-sources: all
#include "fuzz.h"

#include "engines/net/iperf_pair.h"
#include "engines/net/peer.h"
#include "engines/net/pmtu.h"
#include "engines/net/ports.h"

#include <errno.h>

#define TERMINATED(field) FUZZ_CHECK(memchr(field, '\0', sizeof(field)) != NULL)

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void answer(const uint8_t *msg, size_t len)
{
	struct ps_peer_info p;
	int ret = ps_disc_parse_answer(msg, len, len >= 16 ? be64(msg + 8) : 0, &p);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	if (ret < 0)
		return;
	TERMINATED(p.name);
	TERMINATED(p.version);
	TERMINATED(p.export_name);
	TERMINATED(p.export_kind);
	/* what the pairing code dials or compares: in range, or the defaults */
	FUZZ_CHECK(p.iperf_port >= 1 && p.iperf_port <= 65535);
	FUZZ_CHECK(p.echo_port >= 0 && p.echo_port <= 65535);
	FUZZ_CHECK(p.nbd_port >= 0 && p.nbd_port <= 65535);
	FUZZ_CHECK(p.mtu == -1 || (p.mtu >= 68 && p.mtu <= 65535));
	FUZZ_CHECK(p.naddrs >= 0 && p.naddrs <= PS_PEER_MAX_ADDRS);
	for (int i = 0; i < p.naddrs; i++)
		FUZZ_CHECK(p.prefix[i] >= 0 && p.prefix[i] <= 32);
	/* names are printable text: they reach the console and the report */
	for (const char *c = p.name; *c; c++)
		FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f);
}

static void lease(const uint8_t *msg, size_t len)
{
	struct ps_net_addr a;
	char *line = fuzz_cstr(msg, len);
	int ret;

	memset(&a, 0x5a, sizeof(a));
	ret = ps_dhcp_parse_lease(line, &a);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	if (ret == 0) {
		FUZZ_CHECK(a.prefix >= 0 && a.prefix <= 32);
		TERMINATED(a.how);
		TERMINATED(a.txt);
	}
	free(line);
}

static void iperf(const uint8_t *msg, size_t len)
{
	struct ps_iperf_result r;
	char *text = fuzz_cstr(msg, len);
	int ret;

	memset(&r, 0, sizeof(r));
	ret = ps_iperf_parse_client(text, &r);
	FUZZ_CHECK(ret == 0 || ret == -EIO);
	TERMINATED(r.error);
	FUZZ_CHECK(ret != 0 || r.error[0] == '\0');
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *msg;
	size_t len;

	if (size < 1)
		return 0;
	/* in a buffer of its own, as recv() leaves it: ASan sees a read past the end */
	len = size - 1;
	msg = malloc(len ? len : 1);
	FUZZ_CHECK(msg);
	memcpy(msg, data + 1, len);
	switch (data[0] % 5) {
	case 0: {
		uint64_t nonce = 0;
		int ret = ps_disc_parse_request(msg, len, &nonce);

		FUZZ_CHECK(ret == 0 || ret == -EINVAL);
		break;
	}
	case 1:
		answer(msg, len);
		break;
	case 2:
		lease(msg, len);
		break;
	case 3: {
		struct ps_echo_msg m;
		int ret = ps_echo_decode(msg, len, &m);

		FUZZ_CHECK(ret == 0 || ret == -EINVAL);
		/* a probe frame of the run whose nonce the frame carries */
		ret = ps_probe_frame_parse(msg, len, len >= 30 ? be64(msg + 22) : 0);
		FUZZ_CHECK(ret >= -1 && ret <= 0xffff);
		break;
	}
	case 4:
		iperf(msg, len);
		break;
	}
	free(msg);
	return 0;
}
