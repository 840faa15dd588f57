/* pmtu.c - path MTU by DF datagrams and a binary search: probestick's UDP echo
 * service (both directions) and ICMP echo (forward) against any host. */
#include "engines/net/pmtu.h"
#include "lib/util.h"
#include "engines/net/netns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static const uint8_t echo_magic[4] = {'P', 'S', 'E', '1'};

size_t ps_echo_encode(const struct ps_echo_msg *m, uint8_t *buf, size_t len, size_t pad)
{
	size_t n = pad > PS_ECHO_HDR_LEN ? pad : PS_ECHO_HDR_LEN;

	if (n > len)
		return 0;
	memset(buf, 0, n);
	memcpy(buf, echo_magic, 4);
	buf[4] = m->op;
	buf[6] = (uint8_t)(m->seq >> 8);
	buf[7] = (uint8_t)m->seq;
	for (int i = 0; i < 4; i++) {
		buf[8 + i] = (uint8_t)(m->size >> (24 - 8 * i));
		buf[12 + i] = (uint8_t)(m->mtu >> (24 - 8 * i));
	}
	return n;
}

int ps_echo_decode(const uint8_t *buf, size_t len, struct ps_echo_msg *m)
{
	if (len < PS_ECHO_HDR_LEN || memcmp(buf, echo_magic, 4) != 0)
		return -EINVAL;
	m->op = buf[4];
	m->seq = (uint16_t)(buf[6] << 8 | buf[7]);
	m->size =
	    (uint32_t)buf[8] << 24 | (uint32_t)buf[9] << 16 | (uint32_t)buf[10] << 8 | buf[11];
	m->mtu =
	    (uint32_t)buf[12] << 24 | (uint32_t)buf[13] << 16 | (uint32_t)buf[14] << 8 | buf[15];
	return 0;
}

static void probe_mode(int fd)
{
	int v = IP_PMTUDISC_PROBE;

	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v));
}

int ps_echo_socket(int ns_fd, int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons(port ? port : PS_ECHO_PORT)};
	int one = 1;
	int fd = ns_fd >= 0 ? ps_netns_socket(ns_fd, AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0)
			    : socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return ns_fd >= 0 ? fd : -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	probe_mode(fd);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int if_mtu(int fd, int ifindex)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (ifindex <= 0 || !if_indextoname((unsigned int)ifindex, ifr.ifr_name))
		return 0;
	if (ioctl(fd, SIOCGIFMTU, &ifr) < 0)
		return 0;
	return ifr.ifr_mtu;
}

/* Answer from the address the request came to, out of the interface it came in on. */
static void reply(int fd, const struct sockaddr_in *to, const struct in_pktinfo *pi,
		  const uint8_t *buf, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(struct in_pktinfo))];
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr mh = {
	    .msg_name = (void *)to, .msg_namelen = sizeof(*to), .msg_iov = &iov, .msg_iovlen = 1};

	if (pi) {
		struct cmsghdr *c;
		struct in_pktinfo out = {.ipi_spec_dst = pi->ipi_addr};

		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(out));
		memcpy(CMSG_DATA(c), &out, sizeof(out));
	}
	sendmsg(fd, &mh, 0);
}

int ps_echo_serve_one(int fd)
{
	static _Thread_local uint8_t buf[PS_ECHO_MAX_PACKET];
	char cbuf[CMSG_SPACE(sizeof(struct in_pktinfo)) + 64];
	struct sockaddr_in from;
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr mh = {.msg_name = &from,
			    .msg_namelen = sizeof(from),
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	struct in_pktinfo *pi = NULL;
	struct ps_echo_msg m;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
	int mtu;

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO)
			pi = (struct in_pktinfo *)CMSG_DATA(c);
	if (ps_echo_decode(buf, (size_t)n, &m) < 0 || (m.op & PS_ECHO_REPLY))
		return 1;
	mtu = pi ? if_mtu(fd, pi->ipi_ifindex) : 0;
	switch (m.op) {
	case PS_ECHO_FWD:
		m.op = PS_ECHO_FWD | PS_ECHO_REPLY;
		m.size = (uint32_t)n + PS_PMTU_HEADERS;
		m.mtu = (uint32_t)mtu;
		reply(fd, &from, pi, buf, ps_echo_encode(&m, buf, sizeof(buf), 0));
		break;
	case PS_ECHO_REV: {
		size_t want = m.size > PS_PMTU_HEADERS ? m.size - PS_PMTU_HEADERS : 0;

		if (want > sizeof(buf) || (mtu > 0 && m.size > (uint32_t)mtu)) {
			m.op = PS_ECHO_TOO_BIG;
			m.mtu = (uint32_t)mtu;
			reply(fd, &from, pi, buf, ps_echo_encode(&m, buf, sizeof(buf), 0));
			break;
		}
		m.op = PS_ECHO_REV | PS_ECHO_REPLY;
		m.mtu = (uint32_t)mtu;
		reply(fd, &from, pi, buf, ps_echo_encode(&m, buf, sizeof(buf), want));
		break;
	}
	case PS_ECHO_INFO:
		m.op = PS_ECHO_INFO | PS_ECHO_REPLY;
		m.mtu = (uint32_t)mtu;
		reply(fd, &from, pi, buf, ps_echo_encode(&m, buf, sizeof(buf), 0));
		break;
	default:
		break;
	}
	return 1;
}

struct ps_echo_thread {
	pthread_t th;
	int fd;
	atomic_bool stop;
};

static void *echo_loop(void *arg)
{
	struct ps_echo_thread *t = arg;

	while (!atomic_load(&t->stop)) {
		struct pollfd p = {.fd = t->fd, .events = POLLIN};

		if (poll(&p, 1, 50) > 0)
			while (ps_echo_serve_one(t->fd) > 0)
				;
	}
	return NULL;
}

struct ps_echo_thread *ps_echo_thread_start(int fd)
{
	struct ps_echo_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fd = fd;
	if (pthread_create(&t->th, NULL, echo_loop, t) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

void ps_echo_thread_stop(struct ps_echo_thread *t)
{
	if (!t)
		return;
	atomic_store(&t->stop, true);
	pthread_join(t->th, NULL);
	free(t);
}

int ps_pmtu_bsearch(int lo, int hi, int (*fits)(void *arg, int size), void *arg)
{
	int r;

	if (hi <= lo)
		return lo;
	r = fits(arg, hi);
	if (r < 0)
		return r;
	if (r)
		return hi;
	/* invariant: lo fits, hi does not */
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;

		r = fits(arg, mid);
		if (r < 0)
			return r;
		if (r)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ----------------------------------------------------------------- prober -- */

struct prober {
	const struct ps_pmtu_opts *o;
	struct ps_pmtu_result *r;
	int fd;
	uint16_t seq, echo_id;
	double timeout;
	enum ps_pmtu_dir dir;
	int peer_limit; /* a TOO_BIG answer: the far end cannot send more */
};

static uint16_t icmp_sum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static int send_probe(struct prober *p, int size, uint16_t seq)
{
	static _Thread_local uint8_t buf[PS_ECHO_MAX_PACKET];
	size_t len;

	if (size < PS_PMTU_HEADERS + PS_ECHO_HDR_LEN)
		size = PS_PMTU_HEADERS + PS_ECHO_HDR_LEN;
	if (p->o->icmp) {
		len = (size_t)size - 20; /* ICMP header and data */
		memset(buf, 0, len);
		buf[0] = ICMP_ECHO;
		buf[4] = (uint8_t)(p->echo_id >> 8);
		buf[5] = (uint8_t)p->echo_id;
		buf[6] = (uint8_t)(seq >> 8);
		buf[7] = (uint8_t)seq;
		{
			uint16_t c = icmp_sum(buf, len);

			buf[2] = (uint8_t)(c >> 8);
			buf[3] = (uint8_t)c;
		}
	} else {
		struct ps_echo_msg m = {.seq = seq, .size = (uint32_t)size};

		if (p->dir == PS_PMTU_FORWARD) {
			m.op = PS_ECHO_FWD;
			len = ps_echo_encode(&m, buf, sizeof(buf), (size_t)size - PS_PMTU_HEADERS);
		} else {
			m.op = size ? PS_ECHO_REV : PS_ECHO_INFO;
			len = ps_echo_encode(&m, buf, sizeof(buf), 0);
		}
	}
	p->r->probes++;
	if (send(p->fd, buf, len, 0) < 0)
		return errno == EMSGSIZE ? 0 : -errno; /* EMSGSIZE: over our own MTU */
	return 1;
}

/* Wait for the answer to seq: 1 it came, 0 timed out, -ECANCELED. */
static int wait_answer(struct prober *p, uint16_t seq, int size, double timeout,
		       struct ps_echo_msg *ans)
{
	static _Thread_local uint8_t buf[PS_ECHO_MAX_PACKET];
	double end = ps_mono_now() + timeout;

	for (;;) {
		double left = end - ps_mono_now();
		struct pollfd pf = {.fd = p->fd, .events = POLLIN};
		ssize_t n;

		if (p->o->should_stop && p->o->should_stop(p->o->stop_arg))
			return -ECANCELED;
		if (left <= 0)
			return 0;
		if (poll(&pf, 1, left > 0.05 ? 50 : (int)(left * 1000) + 1) <= 0)
			continue;
		while ((n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
			if (p->o->icmp) {
				/* a raw socket gets the IP header too */
				size_t ihl = (size_t)(buf[0] & 0xf) * 4;

				if ((size_t)n < ihl + 8 || buf[ihl] != ICMP_ECHOREPLY ||
				    (buf[ihl + 4] << 8 | buf[ihl + 5]) != p->echo_id ||
				    (buf[ihl + 6] << 8 | buf[ihl + 7]) != seq)
					continue;
				memset(ans, 0, sizeof(*ans));
				ans->size = (uint32_t)n;
				return 1;
			}
			if (ps_echo_decode(buf, (size_t)n, ans) < 0 || ans->seq != seq)
				continue;
			if (ans->op == PS_ECHO_TOO_BIG)
				return 2;
			if (p->dir == PS_PMTU_REVERSE && ans->op == (PS_ECHO_REV | PS_ECHO_REPLY) &&
			    (size_t)n + PS_PMTU_HEADERS < (size_t)size)
				continue; /* not the size asked for */
			return 1;
		}
	}
}

static int try_size(struct prober *p, int size, double timeout, struct ps_echo_msg *ans)
{
	int tries = p->o->tries > 0 ? p->o->tries : 3;

	for (int t = 0; t < tries; t++) {
		uint16_t seq = ++p->seq;
		int r = send_probe(p, size, seq);

		if (r <= 0)
			return r;
		r = wait_answer(p, seq, size, timeout, ans);
		if (r == 2) {
			p->peer_limit = (int)ans->mtu;
			return 0;
		}
		if (r != 0)
			return r;
	}
	return 0;
}

static int fits(void *arg, int size)
{
	struct prober *p = arg;
	struct ps_echo_msg ans;

	if (p->dir == PS_PMTU_REVERSE && p->peer_limit > 0 && size > p->peer_limit)
		return 0;
	return try_size(p, size, p->timeout, &ans);
}

static int open_prober(const struct ps_pmtu_opts *o)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_addr = o->dest,
				 .sin_port =
				     htons(o->icmp ? 0 : (o->port ? o->port : PS_ECHO_PORT))};
	int type = o->icmp ? SOCK_RAW : SOCK_DGRAM, proto = o->icmp ? IPPROTO_ICMP : 0;
	int fd = o->ns_fd >= 0 ? ps_netns_socket(o->ns_fd, AF_INET, type, proto)
			       : socket(AF_INET, type | SOCK_CLOEXEC, proto);

	if (fd < 0)
		return o->ns_fd >= 0 ? fd : -errno;
	probe_mode(fd);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int ps_pmtu_run(const struct ps_pmtu_opts *o, struct ps_pmtu_result *r)
{
	struct prober p = {.o = o, .r = r};
	struct ps_echo_msg ans;
	double t0, rtt = -1;
	int ret;

	memset(r, 0, sizeof(*r));
	r->peer_mtu = r->forward_mtu = r->reverse_mtu = -1;
	r->rtt_ms = -1;
	if (o->local_mtu < PS_PMTU_MIN) {
		snprintf(r->error, sizeof(r->error), "the local MTU (%d) is below %d", o->local_mtu,
			 PS_PMTU_MIN);
		return -EINVAL;
	}
	p.fd = open_prober(o);
	if (p.fd < 0) {
		snprintf(r->error, sizeof(r->error), "socket for the probes: %s", strerror(-p.fd));
		return p.fd;
	}
	p.echo_id = (uint16_t)(getpid() ^ (int)(ps_mono_now() * 1000));
	/* A small round trip first: does the far end answer, and how fast? */
	p.dir = o->icmp ? PS_PMTU_FORWARD : PS_PMTU_REVERSE;
	for (int t = 0; t < 5 && rtt < 0; t++) {
		uint16_t seq = ++p.seq;

		t0 = ps_mono_now();
		ret = send_probe(&p, o->icmp ? PS_PMTU_MIN : 0, seq);
		if (ret < 0)
			break;
		ret = wait_answer(&p, seq, 0, 1.0, &ans);
		if (ret < 0) {
			r->aborted = true;
			close(p.fd);
			return -ECANCELED;
		}
		if (ret == 1) {
			rtt = ps_mono_now() - t0;
			if (!o->icmp)
				r->peer_mtu = ans.mtu ? (int)ans.mtu : -1;
		}
	}
	if (rtt < 0) {
		snprintf(r->error, sizeof(r->error), "no answer from %s (%s) within 5 s",
			 inet_ntoa(o->dest),
			 o->icmp ? "ICMP echo" : "probestick's echo service, UDP 5210");
		close(p.fd);
		return -EHOSTUNREACH;
	}
	r->rtt_ms = rtt * 1000;
	p.timeout = o->timeout_s > 0 ? o->timeout_s : rtt * 4;
	if (p.timeout < 0.1)
		p.timeout = 0.1;
	if (p.timeout > 1.0)
		p.timeout = 1.0;
	r->timeout_s = p.timeout;

	for (int d = 0; d < (o->icmp ? 1 : 2); d++) {
		int best;

		p.dir = d == 0 ? PS_PMTU_FORWARD : PS_PMTU_REVERSE;
		ret = fits(&p, PS_PMTU_MIN);
		if (ret < 0)
			break;
		if (ret == 0)
			continue; /* not even the minimum: unknown that way */
		r->reached = true;
		/* Back, the far end's own MTU is the top: it cannot send more. */
		best = ps_pmtu_bsearch(PS_PMTU_MIN,
				       p.dir == PS_PMTU_REVERSE && r->peer_mtu > 0 ? r->peer_mtu
										   : o->local_mtu,
				       fits, &p);
		if (best < 0) {
			ret = best;
			break;
		}
		if (p.dir == PS_PMTU_FORWARD)
			r->forward_mtu = best;
		else
			r->reverse_mtu = best;
		ret = 0;
	}
	close(p.fd);
	if (ret == -ECANCELED) {
		r->aborted = true;
		return ret;
	}
	if (ret < 0) {
		snprintf(r->error, sizeof(r->error), "sending the probes: %s", strerror(-ret));
		return ret;
	}
	return 0;
}
