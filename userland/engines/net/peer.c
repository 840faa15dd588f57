/* peer.c - finding a stick in server mode (discovery broadcast), answering as one,
 * and addressing the port that faces it (static, udhcpc, link-local). */
#include "engines/net/peer.h"
#include "lib/util.h"
#include "lib/json.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char req_magic[8] = {'P', 'S', 'D', 'I', 'S', 'C', '1', '?'};
static const char ans_magic[8] = {'P', 'S', 'D', 'I', 'S', 'C', '1', '!'};

void ps_peer_info_init(struct ps_peer_info *p)
{
	memset(p, 0, sizeof(*p));
	p->iperf_port = PS_IPERF_PORT;
	p->mtu = -1;
	p->export_bytes = -1;
	p->export_local_mbps = -1;
}

static void put_nonce(uint8_t *b, uint64_t nonce)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(nonce >> (56 - 8 * i));
}

static uint64_t get_nonce(const uint8_t *b)
{
	uint64_t n = 0;

	for (int i = 0; i < 8; i++)
		n = n << 8 | b[i];
	return n;
}

size_t ps_disc_request(uint8_t *buf, size_t len, uint64_t nonce)
{
	if (len < 16)
		return 0;
	memcpy(buf, req_magic, 8);
	put_nonce(buf + 8, nonce);
	return 16;
}

int ps_disc_parse_request(const uint8_t *buf, size_t len, uint64_t *nonce)
{
	if (len < 16 || memcmp(buf, req_magic, 8) != 0)
		return -EINVAL;
	*nonce = get_nonce(buf + 8);
	return 0;
}

size_t ps_disc_answer(uint8_t *buf, size_t len, uint64_t nonce, const struct ps_peer_info *p)
{
	char text[1024], a[INET_ADDRSTRLEN];
	size_t o = 0;

	o += (size_t)snprintf(text + o, sizeof(text) - o,
			      "name=%s\nversion=%s\niperf=%d\necho=%d\nnbd=%d\nmtu=%d\n", p->name,
			      p->version, p->iperf_port, p->echo_port, p->nbd_port, p->mtu);
	if (p->export_name[0] && o < sizeof(text))
		o += (size_t)snprintf(
		    text + o, sizeof(text) - o,
		    "export=%s\nexport_bytes=%" PRId64 "\nexport_local_mbps=%.1f\nexport_kind=%s\n",
		    p->export_name, p->export_bytes, p->export_local_mbps, p->export_kind);
	for (int i = 0; i < p->naddrs && o < sizeof(text); i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "addr=%s/%d\n",
				      inet_ntop(AF_INET, &p->addrs[i], a, sizeof(a)), p->prefix[i]);
	if (o >= sizeof(text))
		o = sizeof(text) - 1;
	if (len < 16 + o)
		return 0;
	memcpy(buf, ans_magic, 8);
	put_nonce(buf + 8, nonce);
	memcpy(buf + 16, text, o);
	return 16 + o;
}

/* Copy a value into dst, printable ASCII only (what another machine sent). */
static void take_text(char *dst, size_t dlen, const char *v, size_t vlen)
{
	size_t o = 0;

	for (size_t i = 0; i < vlen && o + 1 < dlen; i++)
		dst[o++] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
	dst[o] = '\0';
}

/* A whole number in [lo, hi] from an answer's value, else dflt: the answer
 * comes from any host on the segment. */
static int answer_int(const char *val, int lo, int hi, int dflt)
{
	int64_t v;

	return ps_parse_s64(val, &v) == 0 && v >= lo && v <= hi ? (int)v : dflt;
}

int ps_disc_parse_answer(const uint8_t *buf, size_t len, uint64_t nonce, struct ps_peer_info *p)
{
	const char *t = (const char *)buf + 16, *end = (const char *)buf + len;

	if (len < 16 || memcmp(buf, ans_magic, 8) != 0 || get_nonce(buf + 8) != nonce)
		return -EINVAL;
	ps_peer_info_init(p);
	p->probestick = true;
	while (t < end) {
		const char *nl = memchr(t, '\n', (size_t)(end - t)), *eq;
		size_t n = nl ? (size_t)(nl - t) : (size_t)(end - t);
		char key[24], val[96];
		const char *v;
		size_t vlen;

		eq = memchr(t, '=', n);
		if (eq && (size_t)(eq - t) < sizeof(key)) {
			v = eq + 1;
			vlen = n - (size_t)(eq - t) - 1;
			take_text(key, sizeof(key), t, (size_t)(eq - t));
			take_text(val, sizeof(val), v, vlen);
			if (strcmp(key, "name") == 0)
				take_text(p->name, sizeof(p->name), v, vlen);
			else if (strcmp(key, "version") == 0)
				take_text(p->version, sizeof(p->version), v, vlen);
			else if (strcmp(key, "iperf") == 0)
				p->iperf_port = answer_int(val, 1, 65535, PS_IPERF_PORT);
			else if (strcmp(key, "echo") == 0)
				p->echo_port = answer_int(val, 1, 65535, 0);
			else if (strcmp(key, "nbd") == 0)
				p->nbd_port = answer_int(val, 1, 65535, 0);
			else if (strcmp(key, "mtu") == 0)
				p->mtu = answer_int(val, 68, 65535, -1);
			else if (strcmp(key, "export") == 0)
				take_text(p->export_name, sizeof(p->export_name), v, vlen);
			else if (strcmp(key, "export_bytes") == 0)
				p->export_bytes = strtoll(val, NULL, 10);
			else if (strcmp(key, "export_local_mbps") == 0)
				p->export_local_mbps = strtod(val, NULL);
			else if (strcmp(key, "export_kind") == 0)
				take_text(p->export_kind, sizeof(p->export_kind), v, vlen);
			else if (strcmp(key, "addr") == 0 && p->naddrs < PS_PEER_MAX_ADDRS) {
				char *slash = strchr(val, '/');

				if (slash)
					*slash++ = '\0';
				if (inet_pton(AF_INET, val, &p->addrs[p->naddrs]) == 1) {
					p->prefix[p->naddrs] =
					    slash ? answer_int(slash, 0, 32, 32) : 32;
					p->naddrs++;
				}
			}
		}
		t += n + 1;
	}
	return 0;
}

bool ps_same_subnet(struct in_addr a, struct in_addr b, int prefix)
{
	uint32_t m = prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu : ~(0xffffffffu >> prefix);

	return (ntohl(a.s_addr) & m) == (ntohl(b.s_addr) & m);
}

static int udp_socket(int ns_fd, const char *ifname, int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	int one = 1;
	int fd = ns_fd >= 0 ? ps_netns_socket(ns_fd, AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0)
			    : socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return ns_fd >= 0 ? fd : -errno;
	setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	if (ifname && ifname[0])
		setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t)strlen(ifname));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static uint64_t new_nonce(void)
{
	return ((uint64_t)getpid() << 40) ^ (uint64_t)(ps_mono_now() * 1e9);
}

static int ask(int ns_fd, const char *ifname, struct in_addr dest, double seconds,
	       struct ps_peer_info *out, size_t max)
{
	struct sockaddr_in to = {
	    .sin_family = AF_INET, .sin_port = htons(PS_DISCOVERY_PORT), .sin_addr = dest};
	uint8_t buf[2048];
	uint64_t nonce = new_nonce();
	size_t found = 0, len = ps_disc_request(buf, sizeof(buf), nonce);
	double end = ps_mono_now() + seconds, next = 0;
	int fd = udp_socket(ns_fd, ifname, 0), sends = 0;

	if (fd < 0)
		return fd;
	while (ps_mono_now() < end && found < max) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		ssize_t n;

		/* three requests: one lost datagram does not hide a peer */
		if (sends < 3 && ps_mono_now() >= next) {
			sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to));
			sends++;
			next = ps_mono_now() + seconds / 4;
		}
		if (poll(&pf, 1, 50) <= 0)
			continue;
		while ((n = recv(fd, buf + 64, sizeof(buf) - 64, MSG_DONTWAIT)) > 0) {
			struct ps_peer_info p;
			bool dup = false;

			if (ps_disc_parse_answer(buf + 64, (size_t)n, nonce, &p) < 0 ||
			    p.naddrs == 0)
				continue;
			for (size_t i = 0; i < found; i++)
				dup = dup || (strcmp(out[i].name, p.name) == 0 &&
					      out[i].addrs[0].s_addr == p.addrs[0].s_addr);
			if (!dup && found < max)
				out[found++] = p;
		}
	}
	close(fd);
	return (int)found;
}

int ps_peer_discover(int ns_fd, const char *ifname, double seconds, struct ps_peer_info *out,
		     size_t max)
{
	struct in_addr bcast = {.s_addr = htonl(INADDR_BROADCAST)};

	return ask(ns_fd, ifname, bcast, seconds, out, max);
}

int ps_peer_hello(int ns_fd, const char *ifname, struct in_addr dest, double seconds,
		  struct ps_peer_info *out)
{
	int n = ask(ns_fd, ifname, dest, seconds, out, 1);

	if (n > 0)
		out->addr = dest;
	return n;
}

int ps_peer_tcp_open(int ns_fd, struct in_addr dest, int port, double seconds)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = dest};
	struct pollfd pf;
	int fd = ns_fd >= 0 ? ps_netns_socket(ns_fd, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)
			    : socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int err = 0, ok = 0;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return ns_fd >= 0 ? fd : -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		return 1;
	}
	if (errno == EINPROGRESS) {
		pf = (struct pollfd){.fd = fd, .events = POLLOUT};
		if (poll(&pf, 1, (int)(seconds * 1000)) > 0 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
			ok = 1;
	}
	close(fd);
	return ok;
}

int ps_disc_socket(int ns_fd)
{
	return udp_socket(ns_fd, NULL, PS_DISCOVERY_PORT);
}

int ps_disc_serve_one(int fd, const struct ps_peer_info *self,
		      int (*addrs)(void *arg, int ifindex, struct ps_peer_info *p), void *arg)
{
	uint8_t buf[2048];
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
	struct ps_peer_info me = *self;
	uint64_t nonce;
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
	size_t len;

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO)
			pi = (struct in_pktinfo *)CMSG_DATA(c);
	if (ps_disc_parse_request(buf, (size_t)n, &nonce) < 0 || !pi)
		return 1;
	if (addrs && addrs(arg, pi->ipi_ifindex, &me) < 0)
		return 1;
	len = ps_disc_answer(buf, sizeof(buf), nonce, &me);
	if (!len)
		return 1;
	{
		/* By broadcast out of the interface it came in on: the asker may sit
		 * on another subnet (a lease against our link-local address). */
		struct sockaddr_in to = {.sin_family = AF_INET,
					 .sin_port = from.sin_port,
					 .sin_addr = {.s_addr = htonl(INADDR_BROADCAST)}};
		struct in_pktinfo out = {.ipi_ifindex = pi->ipi_ifindex};
		struct iovec oiov = {.iov_base = buf, .iov_len = len};
		char ocbuf[CMSG_SPACE(sizeof(out))];
		struct msghdr om = {.msg_name = &to,
				    .msg_namelen = sizeof(to),
				    .msg_iov = &oiov,
				    .msg_iovlen = 1,
				    .msg_control = ocbuf,
				    .msg_controllen = sizeof(ocbuf)};
		struct cmsghdr *c;

		memset(ocbuf, 0, sizeof(ocbuf));
		c = CMSG_FIRSTHDR(&om);
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(out));
		memcpy(CMSG_DATA(c), &out, sizeof(out));
		sendmsg(fd, &om, 0);
	}
	return 1;
}

struct in_addr ps_link_local_for(const unsigned char *mac)
{
	struct in_addr a;

	a.s_addr = htonl(0xa9fe0000u | (uint32_t)(1 + mac[4] % 254) << 8 | mac[5]);
	return a;
}

int ps_dhcp_parse_lease(const char *line, struct ps_net_addr *out)
{
	char ip[64] = "", subnet[64] = "", mask[64] = "", router[64] = "", dns[64] = "";
	const char *p = strstr(line, "lease ");

	memset(out, 0, sizeof(*out));
	if (!p)
		return -EINVAL;
	/* words of key=value (a value may be empty); a word without '=' belongs to the one
	 * before it (a second router) and is left out */
	for (p += 6; *p;) {
		size_t n = strcspn(p, " \n"), klen;
		const char *eq = memchr(p, '=', n);
		char *dst = NULL;

		if (eq) {
			klen = (size_t)(eq - p);
			if (klen == 2 && !strncmp(p, "ip", 2))
				dst = ip;
			else if (klen == 6 && !strncmp(p, "subnet", 6))
				dst = subnet;
			else if (klen == 4 && !strncmp(p, "mask", 4))
				dst = mask;
			else if (klen == 6 && !strncmp(p, "router", 6))
				dst = router;
			else if (klen == 3 && !strncmp(p, "dns", 3))
				dst = dns;
			if (dst)
				snprintf(dst, 64, "%.*s",
					 (int)(n - klen - 1 < 63 ? n - klen - 1 : 63), eq + 1);
		}
		p += n;
		while (*p == ' ' || *p == '\n')
			p++;
	}
	if (inet_pton(AF_INET, ip, &out->addr) != 1)
		return -EINVAL;
	out->prefix = -1;
	if (mask[0])
		out->prefix = atoi(mask);
	if (out->prefix < 1 || out->prefix > 32) {
		struct in_addr m;

		out->prefix =
		    inet_pton(AF_INET, subnet, &m) == 1 ? ps_netmask_len(ntohl(m.s_addr)) : -1;
	}
	if (out->prefix < 1)
		return -EINVAL;
	out->has_gw = router[0] && inet_pton(AF_INET, router, &out->gw) == 1;
	out->has_dns = dns[0] && inet_pton(AF_INET, dns, &out->dns) == 1;
	snprintf(out->how, sizeof(out->how), "dhcp");
	return 0;
}

/* The script udhcpc runs: it only prints the lease; probestick sets it itself. */
static const char dhcp_script[] =
    "#!/bin/sh\n"
    "# written by probestick: print the lease, change nothing\n"
    "case $1 in bound|renew) echo \"lease ip=$ip subnet=$subnet mask=$mask router=$router "
    "dns=$dns\" "
    ";; esac\n"
    "exit 0\n";

static int write_script(char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/probestick-udhcpc-%d.sh", dir && dir[0] ? dir : "/tmp",
		 (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (fd < 0)
		return -errno;
	if (write(fd, dhcp_script, sizeof(dhcp_script) - 1) != (ssize_t)sizeof(dhcp_script) - 1) {
		int err = -errno;

		close(fd);
		return err ? err : -EIO;
	}
	close(fd);
	return 0;
}

static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[512];

	for (const char *p = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name);
		if (access(buf, X_OK) == 0)
			return true;
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

/* udhcpc in the namespace, for at most seconds: 0 and the lease, or -errno. */
static int dhcp(int ns_fd, const char *ifname, double seconds, struct ps_net_addr *out, char *why,
		size_t whylen)
{
	char script[256], tries[8], out_text[2048];
	size_t o = 0;
	int fd, ret, status = 0;
	pid_t pid;
	double end;

	ret = write_script(script, sizeof(script));
	if (ret < 0) {
		snprintf(why, whylen, "cannot write udhcpc's script %s: %s", script,
			 strerror(-ret));
		return ret;
	}
	snprintf(tries, sizeof(tries), "%d", seconds >= 2 ? (int)seconds : 2);
	{
		/* -q: quit with the lease; -n: fail without one; -t N -T 1: N tries 1 s apart */
		char *const direct[] = {"udhcpc",	"-f", "-q",  "-n",   "-i",
					(char *)ifname, "-t", tries, "-T",   "1",
					"-A",		"1",  "-s",  script, NULL};
		char *const bb[] = {"busybox", "udhcpc", "-f", "-q", "-n", "-i", (char *)ifname,
				    "-t",      tries,	 "-T", "1",  "-A", "1",	 "-s",
				    script,    NULL};

		pid = ps_netns_spawn(ns_fd, on_path("udhcpc") ? direct : bb, &fd);
	}
	if (pid < 0) {
		unlink(script);
		snprintf(why, whylen, "cannot start udhcpc: %s", strerror(-pid));
		return pid;
	}
	end = ps_mono_now() + seconds + 3;
	out_text[0] = '\0';
	for (;;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (ps_mono_now() > end) {
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&pf, 1, 100) <= 0)
			continue;
		n = read(fd, out_text + o, sizeof(out_text) - o - 1);
		if (n <= 0)
			break;
		o += (size_t)n;
		out_text[o] = '\0';
		if (o + 1 >= sizeof(out_text))
			break;
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	unlink(script);
	for (char *line = out_text; line && *line;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (ps_dhcp_parse_lease(line, out) == 0)
			return 0;
		line = nl ? nl + 1 : NULL;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(why, whylen, "udhcpc is not installed (busybox udhcpc)");
	else
		snprintf(why, whylen, "no DHCP server answered on %s within %.0f s", ifname,
			 seconds);
	return -ENOENT;
}

int ps_net_configure(int ns_fd, struct ps_rtnl *r, const char *ifname, int ifindex,
		     const unsigned char *mac, const struct ps_net_spec *spec, double dhcp_s,
		     struct ps_net_addr *out, char *why, size_t whylen)
{
	char a[INET_ADDRSTRLEN];
	int ret = 0;

	memset(out, 0, sizeof(*out));
	why[0] = '\0';
	if (spec->how == PS_NET_STATIC) {
		out->addr = spec->addr;
		out->prefix = spec->prefix;
		out->gw = spec->gw;
		out->has_gw = spec->has_gw;
		snprintf(out->how, sizeof(out->how), "static");
	} else {
		ret = dhcp(ns_fd, ifname, dhcp_s, out, why, whylen);
		if (ret < 0 && spec->how == PS_NET_DHCP)
			return ret;
		if (ret < 0) {
			/* Nobody hands out addresses: two sticks back to back, say. */
			out->addr = ps_link_local_for(mac);
			out->prefix = 16;
			snprintf(out->how, sizeof(out->how), "link-local");
		}
	}
	snprintf(out->txt, sizeof(out->txt), "%s/%d", inet_ntop(AF_INET, &out->addr, a, sizeof(a)),
		 out->prefix);
	ret = ps_rtnl_addr_add4(r, ifindex, out->addr, out->prefix);
	if (ret < 0 && ret != -EEXIST) {
		snprintf(why, whylen, "adding %s to %s: %s", out->txt, ifname, strerror(-ret));
		return ret;
	}
	if (out->has_gw) {
		ret = ps_rtnl_route_add4_default(r, ifindex, out->gw);
		if (ret < 0 && ret != -EEXIST) {
			snprintf(why, whylen, "a default route via %s: %s",
				 inet_ntop(AF_INET, &out->gw, a, sizeof(a)), strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* ---------------------------------------------------------- the peer link -- */

#define CARRIER_S 5.0
#define DHCP_S	  4.0
#define ASK_S	  2.0

static void tried(struct ps_peer_link *pl, const char *port, const char *addr, const char *how,
		  const char *result)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "port", json_object_new_string(port));
	json_object_object_add(o, "address", addr && addr[0] ? json_object_new_string(addr) : NULL);
	json_object_object_add(o, "how", how && how[0] ? json_object_new_string(how) : NULL);
	json_object_object_add(o, "result", json_object_new_string(result));
	json_object_array_add(pl->tried, o);
}

/* The peer's address to use from ours: one in our subnet, else its link-local one
 * with a link-local address of ours beside the lease. */
static bool pick_address(struct ps_peer_link *pl, struct ps_port *p, struct ps_peer_info *info)
{
	int ret;

	for (int i = 0; i < info->naddrs; i++)
		if (ps_same_subnet(info->addrs[i], pl->addr.addr, pl->addr.prefix)) {
			pl->peer_addr = info->addrs[i];
			return true;
		}
	for (int i = 0; i < info->naddrs; i++) {
		struct in_addr ll;

		if ((ntohl(info->addrs[i].s_addr) >> 16) != 0xa9fe)
			continue;
		ll = ps_link_local_for(p->mac);
		ret = ps_rtnl_addr_add4(&p->r, p->ifindex, ll, 16);
		if (ret < 0 && ret != -EEXIST)
			continue;
		pl->peer_addr = info->addrs[i];
		return true;
	}
	return false;
}

int ps_peer_link_open(struct ps_peer_link *pl, const struct ps_inventory *inv,
		      const struct ps_net_want *want, const char *only, json_object *restored,
		      bool (*should_stop)(void *arg), void *stop_arg)
{
	struct ps_net_spec net = {0};
	struct in_addr named = {0};
	int named_port = 0, ret;
	bool reach[PS_PORTS_MAX * PS_PORTS_MAX] = {false}, local[PS_PORTS_MAX] = {false};
	struct ps_pair pairs[PS_PORTS_MAX / 2];
	size_t npairs = 0, candidates = 0;
	char why[200];

	memset(pl, 0, sizeof(*pl));
	pl->port = -1;
	pl->tried = json_object_new_array();
	ps_peer_info_init(&pl->peer);
	if (want) {
		net = want->net;
		named = want->peer;
		named_port = want->peer_port;
	}
	if (!only && inv) {
		/* What an earlier step of this plan learned: ports cabled to each other face
		 * no peer, and ports without link at the start have no cable. */
		size_t o = 0, known = 0, take = 0;

		for (size_t i = 0; i < inv->n_nics; i++) {
			const struct ps_nic *n = &inv->nics[i];
			int c = ps_ports_cabled(n->mac, NULL, 0);

			known += c >= 0 || n->carrier == 0;
			if (c == 1 || n->carrier == 0 || !n->name[0])
				continue;
			take++;
			o += (size_t)snprintf(pl->only + o,
					      o < sizeof(pl->only) ? sizeof(pl->only) - o : 0,
					      "%s%s", o ? "," : "", n->name);
		}
		if (known == inv->n_nics && inv->n_nics) {
			if (take == 0) {
				snprintf(pl->why, sizeof(pl->why), "%s",
					 "every port with link is cabled to another port of this "
					 "machine");
				pl->ps.home = -1;
				return 0;
			}
			only = pl->only;
		}
	}
	ret = ps_ports_open(&pl->ps, inv, only, restored);
	if (ret < 0)
		return ret;
	pl->ps.should_stop = should_stop;
	pl->ps.stop_arg = stop_arg;
	if (!ps_ports_setup(&pl->ps, CARRIER_S))
		return 0;
	/* Ports cabled to each other are the port-to-port steps' business. */
	if (ps_ports_with_link(&pl->ps) >= 2 && ps_ports_probe(&pl->ps, 1.0, reach))
		npairs = ps_ports_pairs(&pl->ps, reach, pairs);
	for (size_t k = 0; k < npairs; k++)
		local[pairs[k].a] = local[pairs[k].b] = true;
	for (size_t i = 0; i < pl->ps.n && pl->port < 0; i++) {
		struct ps_port *p = &pl->ps.p[i];
		struct ps_peer_info info;

		if (p->skip || !p->carrier)
			continue;
		candidates++;
		if (local[i]) {
			candidates--;
			tried(pl, p->name, NULL, NULL, "cabled to another port of this machine");
			continue;
		}
		if (should_stop && should_stop(stop_arg))
			break;
		ret = ps_net_configure(p->ns, &p->r, p->name, p->ifindex, p->mac, &net, DHCP_S,
				       &pl->addr, why, sizeof(why));
		if (ret < 0) {
			tried(pl, p->name, NULL, NULL, why);
			continue;
		}
		p->addr = pl->addr.addr;
		p->prefix = pl->addr.prefix;
		snprintf(p->addr_txt, sizeof(p->addr_txt), "%s", inet_ntoa(pl->addr.addr));
		if (named.s_addr) {
			if (ps_peer_hello(p->ns, p->name, named, ASK_S, &info) > 0) {
				pl->peer = info;
			} else if (ps_peer_tcp_open(p->ns, named, named_port, ASK_S) <= 0) {
				tried(pl, p->name, pl->addr.txt, pl->addr.how,
				      "the named peer did not answer (no stick in server mode, no "
				      "iperf3 server)");
				continue;
			}
			pl->peer_addr = named;
			pl->peer_port = named_port;
			pl->found_by = "probestick.cfg";
		} else {
			if (ps_peer_discover(p->ns, p->name, ASK_S, &info, 1) <= 0) {
				tried(pl, p->name, pl->addr.txt, pl->addr.how,
				      "no stick in server mode answered the discovery broadcast");
				continue;
			}
			if (!pick_address(pl, p, &info)) {
				tried(
				    pl, p->name, pl->addr.txt, pl->addr.how,
				    "a stick answered but none of its addresses is reachable from "
				    "here");
				continue;
			}
			pl->peer = info;
			pl->peer_port = info.iperf_port;
			pl->found_by = "discovery";
		}
		tried(pl, p->name, pl->addr.txt, pl->addr.how, "reaches the peer");
		pl->port = (int)i;
	}
	if (pl->port < 0)
		snprintf(pl->why, sizeof(pl->why), "%s",
			 ps_ports_with_link(&pl->ps) == 0 ? "no free port has link"
			 : candidates == 0
			     ? "every port with link is cabled to another port of this machine"
			 : named.s_addr ? "no port reaches the peer named in probestick.cfg"
					: "no stick in server mode answered on any port with link, "
					  "and probestick.cfg names no peer");
	return 0;
}

void ps_peer_link_close(struct ps_peer_link *pl)
{
	if (pl->ps.home >= 0)
		ps_ports_close(&pl->ps);
}

json_object *ps_peer_link_json(const struct ps_peer_link *pl)
{
	json_object *o = json_object_new_object();
	char a[INET_ADDRSTRLEN];

	ps_json_set_str(o, "address", inet_ntop(AF_INET, &pl->peer_addr, a, sizeof(a)));
	ps_json_set(o, "iperf_port", json_object_new_int(pl->peer_port));
	ps_json_set_str(o, "found_by", pl->found_by);
	ps_json_set(o, "probestick", json_object_new_boolean(pl->peer.probestick));
	ps_json_set_str(o, "name", pl->peer.name);
	ps_json_set_str(o, "version", pl->peer.version);
	ps_json_set_count(o, "mtu", pl->peer.mtu);
	return o;
}
