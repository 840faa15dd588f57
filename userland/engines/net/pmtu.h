/*
 * pmtu.h - the largest IPv4 packet that crosses a path unfragmented, found
 * the way seed 003 did it by hand with `ping -f -l SIZE`, but unattended:
 * datagrams with DF set (IP_PMTUDISC_PROBE: the local MTU is the only
 * limit, the kernel's path-MTU cache is ignored), a binary search over the
 * size, a timeout for a datagram that is silently dropped. Against a
 * probestick (a pair's other port, a stick in server mode) both directions
 * through its echo service; against any other host forward only, by ICMP
 * echo. The path MTU is the largest packet; its payload is 28 bytes less
 * (IPv4 and UDP or ICMP headers), what `ping -l` calls SIZE.
 */
#ifndef PS_NET_PMTU_H
#define PS_NET_PMTU_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_ECHO_PORT	   5210 /* UDP: probestick's echo service */
#define PS_PMTU_MIN	   576	/* every IPv4 host takes this much (RFC 791) */
#define PS_PMTU_HEADERS	   28	/* IPv4 (20) + UDP or ICMP (8) */
#define PS_ECHO_HDR_LEN	   16
#define PS_ECHO_MAX_PACKET 65535

enum ps_echo_op {
	PS_ECHO_FWD = 1,	/* this datagram is the probe; answer small */
	PS_ECHO_REV = 2,	/* answer with a datagram of `size` bytes (IP), DF set */
	PS_ECHO_INFO = 3,	/* answer with the MTU of the interface it arrived on */
	PS_ECHO_REPLY = 0x80,	/* | op in answers */
	PS_ECHO_TOO_BIG = 0x84, /* REV asked for more than the responder's MTU */
};

struct ps_echo_msg {
	uint8_t op;
	uint16_t seq;
	uint32_t size; /* IPv4 packet size the probe had or the answer must have */
	uint32_t mtu;  /* the responder's interface MTU, 0 unknown */
};

/* Pure: encode into buf (len >= PS_ECHO_HDR_LEN), padded with zeros to pad bytes; length. */
size_t ps_echo_encode(const struct ps_echo_msg *m, uint8_t *buf, size_t len, size_t pad);
/* Pure: 0, or -EINVAL when buf is not an echo message. */
int ps_echo_decode(const uint8_t *buf, size_t len, struct ps_echo_msg *m);

/*
 * The responder: a UDP socket bound to PS_ECHO_PORT (any address) with
 * IP_PKTINFO and IP_PMTUDISC_PROBE; ps_echo_serve_one answers what is
 * waiting on it (non-blocking). In server mode and for a pair's far port.
 */
int ps_echo_socket(int ns_fd, int port);
int ps_echo_serve_one(int fd);

/* A responder in a thread of its own until ps_echo_thread_stop. */
struct ps_echo_thread;
struct ps_echo_thread *ps_echo_thread_start(int fd);
void ps_echo_thread_stop(struct ps_echo_thread *t);

/* Pure: binary search for the largest size in [lo, hi] for which fits() is
 * true, knowing fits(lo); fits(hi) is asked first. Returns it, or the
 * negative value fits() returned to stop. */
int ps_pmtu_bsearch(int lo, int hi, int (*fits)(void *arg, int size), void *arg);

enum ps_pmtu_dir { PS_PMTU_FORWARD, PS_PMTU_REVERSE };

struct ps_pmtu_opts {
	int ns_fd;	     /* where the prober's socket lives, -1: ours */
	struct in_addr dest; /* the far end */
	int port;	     /* its echo port (PS_ECHO_PORT when 0); 0 with icmp */
	bool icmp;	     /* not a probestick: ICMP echo, forward only */
	int local_mtu;	     /* the sending interface's MTU: the search's top */
	double timeout_s;    /* for one probe; 0: from the round trip (4x, 0.1 to 1 s) */
	int tries;	     /* before a size counts as not crossing (3 when 0) */
	bool (*should_stop)(void *arg);
	void *stop_arg;
};

struct ps_pmtu_result {
	bool reached;	  /* the far end answered at all (PS_PMTU_MIN) */
	int peer_mtu;	  /* the far end's interface MTU (echo service), -1 */
	int forward_mtu;  /* largest packet that crossed out, -1 */
	int reverse_mtu;  /* largest that crossed back (echo service only), -1 */
	int probes;	  /* datagrams sent */
	double rtt_ms;	  /* of a small echo, -1 */
	double timeout_s; /* the one used */
	bool aborted;
	char error[160];
};

/* Both directions (forward only with icmp). 0, -ECANCELED, or -errno with error set. */
int ps_pmtu_run(const struct ps_pmtu_opts *o, struct ps_pmtu_result *r);

#endif
