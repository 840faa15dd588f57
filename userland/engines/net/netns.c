/* netns.c - create network namespaces, move links between them and configure
 * them through rtnetlink; sockets inside a namespace come from a helper thread. */
#include "engines/net/netns.h"
#include "hw/ethtool.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Big enough for one dump datagram of links with all their attributes. */
#define RTNL_BUF 32768

static int open_thread_ns(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/ns/net", (int)gettid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int ps_netns_open_current(void)
{
	return open_thread_ns();
}

/*
 * Namespace changes are per thread: doing them in a short-lived thread
 * leaves the caller where it was even when something fails half-way.
 */
struct ns_job {
	int ns_fd; /* -1: make a new namespace */
	int domain, type, protocol;
	int ret;
};

static void *ns_job_run(void *arg)
{
	struct ns_job *j = arg;
	int fd;

	if (j->ns_fd < 0) {
		if (unshare(CLONE_NEWNET) < 0) {
			j->ret = -errno;
			return NULL;
		}
		j->ret = open_thread_ns();
		return NULL;
	}
	if (setns(j->ns_fd, CLONE_NEWNET) < 0) {
		j->ret = -errno;
		return NULL;
	}
	fd = socket(j->domain, j->type | SOCK_CLOEXEC, j->protocol);
	j->ret = fd < 0 ? -errno : fd;
	return NULL;
}

static int ns_job(struct ns_job *j)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, ns_job_run, j);

	if (err)
		return -err;
	pthread_join(t, NULL);
	return j->ret;
}

int ps_netns_create(void)
{
	struct ns_job j = {.ns_fd = -1};

	return ns_job(&j);
}

int ps_netns_socket(int ns_fd, int domain, int type, int protocol)
{
	struct ns_job j = {.ns_fd = ns_fd, .domain = domain, .type = type, .protocol = protocol};

	if (ns_fd < 0)
		return -EBADF;
	return ns_job(&j);
}

int ps_netns_ethtool_open(int ns_fd, struct ps_ethtool *et)
{
	int fd = ps_netns_socket(ns_fd, AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);

	return fd < 0 ? fd : ps_ethtool_open_genl_fd(et, fd);
}

int ps_module_load(const char *name, const char *options)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);
	struct kmod_module *mod = NULL;
	int ret;

	if (!ctx)
		return -ENOMEM;
	ret = kmod_module_new_from_name(ctx, name, &mod);
	if (ret == 0)
		ret = kmod_module_probe_insert_module(mod, 0, options, NULL, NULL, NULL);
	if (mod)
		kmod_module_unref(mod);
	kmod_unref(ctx);
	/* built in, or loaded already: there */
	return ret == -EEXIST ? 0 : ret;
}

int ps_netns_link_speed(int ns_fd, const char *ifname)
{
	struct ps_ethtool et;
	int fd = ps_netns_socket(ns_fd, AF_NETLINK, SOCK_RAW, NETLINK_GENERIC), ret;

	if (fd < 0)
		return fd;
	/* the socket answers for the namespace it was made in: ask it there */
	ret = ps_ethtool_open_genl_fd(&et, fd);
	if (ret < 0)
		return ret;
	ret = ps_ethtool_link_speed(&et, ifname);
	ps_ethtool_close(&et);
	return ret;
}

int ps_rtnl_open(struct ps_rtnl *r, int ns_fd)
{
	struct timeval tv = {.tv_sec = 5};
	int fd;

	memset(r, 0, sizeof(*r));
	if (ns_fd >= 0) {
		fd = ps_netns_socket(ns_fd, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
		if (fd < 0)
			return fd;
		r->nl = mnl_socket_fdopen(fd);
		if (!r->nl) {
			int err = -errno;

			close(fd);
			return err ? err : -ENOMEM;
		}
	} else {
		r->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
		if (!r->nl)
			return -errno;
	}
	setsockopt(mnl_socket_get_fd(r->nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		mnl_socket_close(r->nl);
		r->nl = NULL;
		return err;
	}
	r->portid = mnl_socket_get_portid(r->nl);
	r->seq = (unsigned int)time(NULL);
	return 0;
}

void ps_rtnl_close(struct ps_rtnl *r)
{
	if (r->nl)
		mnl_socket_close(r->nl);
	r->nl = NULL;
}

/* Send one request and read replies until the ACK or the end of the dump. */
static int talk(struct ps_rtnl *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char *buf;
	int ret = 0;

	if (!r->nl)
		return -EBADF;
	nlh->nlmsg_seq = ++r->seq;
	/* NLM_F_EXCL shares its bit with NLM_F_MATCH: a dump has both DUMP bits. */
	if ((nlh->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP)
		nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	buf = malloc(RTNL_BUF);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(r->nl, buf, RTNL_BUF);

		if (n < 0) {
			ret = errno == EWOULDBLOCK ? -EAGAIN : -errno;
			break;
		}
		errno = 0;
		n = mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, r->portid, cb, data);
		if (n == MNL_CB_ERROR) {
			ret = errno ? -errno : -EPROTO;
			break;
		}
		if (n == MNL_CB_STOP)
			break;
	}
	free(buf);
	return ret;
}

static struct nlmsghdr *link_msg(char *buf, int type, unsigned int flags, int ifindex)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return nlh;
}

struct link_search {
	const char *name;
	const unsigned char *mac;
	size_t mac_len;
	struct ps_link by_name, by_mac;
	bool name_found, mac_found;
};

static int link_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, IFLA_MAX) > 0)
		tb[type] = a;
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct link_search *s = data;
	const struct nlattr *tb[IFLA_MAX + 1] = {NULL};
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	struct ps_link l;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*ifi), link_attr, tb);
	memset(&l, 0, sizeof(l));
	l.ifindex = ifi->ifi_index;
	l.flags = ifi->ifi_flags;
	l.carrier = -1;
	l.carrier_changes = -1;
	if (tb[IFLA_CARRIER_CHANGES])
		l.carrier_changes = (int)mnl_attr_get_u32(tb[IFLA_CARRIER_CHANGES]);
	if (tb[IFLA_IFNAME])
		snprintf(l.name, sizeof(l.name), "%s", mnl_attr_get_str(tb[IFLA_IFNAME]));
	if (tb[IFLA_MTU])
		l.mtu = mnl_attr_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_CARRIER])
		l.carrier = mnl_attr_get_u8(tb[IFLA_CARRIER]) ? 1 : 0;
	if (tb[IFLA_MASTER])
		l.master = (int)mnl_attr_get_u32(tb[IFLA_MASTER]);
	if (tb[IFLA_ADDRESS] && mnl_attr_get_payload_len(tb[IFLA_ADDRESS]) <= sizeof(l.mac)) {
		l.mac_len = mnl_attr_get_payload_len(tb[IFLA_ADDRESS]);
		memcpy(l.mac, mnl_attr_get_payload(tb[IFLA_ADDRESS]), l.mac_len);
	}
	if (s->name && !s->name_found && strcmp(l.name, s->name) == 0) {
		s->by_name = l;
		s->name_found = true;
	}
	if (s->mac && s->mac_len && !s->mac_found && l.mac_len == s->mac_len &&
	    memcmp(l.mac, s->mac, s->mac_len) == 0) {
		s->by_mac = l;
		s->mac_found = true;
	}
	return MNL_CB_OK;
}

int ps_rtnl_link_find(struct ps_rtnl *r, const char *name, const unsigned char *mac, size_t mac_len,
		      struct ps_link *out)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct link_search s = {.name = name, .mac = mac, .mac_len = mac_len};
	int ret = talk(r, link_msg(buf, RTM_GETLINK, NLM_F_DUMP, 0), link_cb, &s);

	if (ret < 0)
		return ret;
	if (s.name_found)
		*out = s.by_name;
	else if (s.mac_found)
		*out = s.by_mac;
	else
		return -ENODEV;
	return 0;
}

int ps_rtnl_link_set_ns(struct ps_rtnl *r, int ifindex, int target_ns_fd)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, ifindex);

	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)target_ns_fd);
	return talk(r, nlh, NULL, NULL);
}

int ps_rtnl_link_set_up(struct ps_rtnl *r, int ifindex, bool up)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, ifindex);
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	ifi->ifi_change = IFF_UP;
	ifi->ifi_flags = up ? IFF_UP : 0;
	return talk(r, nlh, NULL, NULL);
}

int ps_rtnl_link_set_mtu(struct ps_rtnl *r, int ifindex, unsigned int mtu)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, ifindex);

	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	return talk(r, nlh, NULL, NULL);
}

int ps_rtnl_link_no_ipv6_ll(struct ps_rtnl *r, int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, ifindex);
	struct nlattr *spec = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
	struct nlattr *inet6 = mnl_attr_nest_start(nlh, AF_INET6);

	mnl_attr_put_u8(nlh, IFLA_INET6_ADDR_GEN_MODE, IN6_ADDR_GEN_MODE_NONE);
	mnl_attr_nest_end(nlh, inet6);
	mnl_attr_nest_end(nlh, spec);
	return talk(r, nlh, NULL, NULL);
}

int ps_rtnl_link_del(struct ps_rtnl *r, int ifindex)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	return talk(r, link_msg(buf, RTM_DELLINK, 0, ifindex), NULL, NULL);
}

int ps_rtnl_veth_add(struct ps_rtnl *r, const char *name, const char *peer)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	struct nlattr *info, *data, *peer_nest;
	struct ifinfomsg *pifi;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer_nest = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	/* The peer is described by its own ifinfomsg, then its attributes. */
	pifi = mnl_nlmsg_get_payload_tail(nlh);
	memset(pifi, 0, sizeof(*pifi));
	pifi->ifi_family = AF_UNSPEC;
	nlh->nlmsg_len += MNL_ALIGN(sizeof(*pifi));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
	mnl_attr_nest_end(nlh, peer_nest);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return talk(r, nlh, NULL, NULL);
}

int ps_rtnl_addr_add4(struct ps_rtnl *r, int ifindex, struct in_addr addr, int prefix_len)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;

	if (prefix_len < 0 || prefix_len > 32)
		return -EINVAL;
	nlh->nlmsg_type = RTM_NEWADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (unsigned char)prefix_len;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (unsigned int)ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, sizeof(addr), &addr);
	mnl_attr_put(nlh, IFA_ADDRESS, sizeof(addr), &addr);
	return talk(r, nlh, NULL, NULL);
}

int ps_rtnl_addr_del4(struct ps_rtnl *r, int ifindex, struct in_addr addr, int prefix_len)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;

	if (prefix_len < 0 || prefix_len > 32)
		return -EINVAL;
	nlh->nlmsg_type = RTM_DELADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (unsigned char)prefix_len;
	ifa->ifa_index = (unsigned int)ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, sizeof(addr), &addr);
	return talk(r, nlh, NULL, NULL);
}

int ps_rtnl_route_add4_default(struct ps_rtnl *r, int ifindex, struct in_addr gw)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put(nlh, RTA_GATEWAY, sizeof(gw), &gw);
	mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)ifindex);
	return talk(r, nlh, NULL, NULL);
}

int ps_rtnl_bond_add(struct ps_rtnl *r, const char *name, const char *mode)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	struct nlattr *info, *data;
	uint8_t m;

	if (strcmp(mode, "balance-rr") == 0)
		m = 0; /* BOND_MODE_ROUNDROBIN */
	else if (strcmp(mode, "802.3ad") == 0)
		m = 4; /* BOND_MODE_8023AD */
	else
		return -EINVAL;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bond");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	mnl_attr_put_u8(nlh, IFLA_BOND_MODE, m);
	mnl_attr_put_u32(nlh, IFLA_BOND_MIIMON, 100);
	if (m == 4) {
		mnl_attr_put_u8(nlh, IFLA_BOND_AD_LACP_RATE, 1); /* fast: a second, not 30 */
		/* by flow (addresses and ports): N streams spread over the ports */
		mnl_attr_put_u8(nlh, IFLA_BOND_XMIT_HASH_POLICY, 1);
	}
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return talk(r, nlh, NULL, NULL);
}

int ps_rtnl_link_set_master(struct ps_rtnl *r, int ifindex, int master)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, ifindex);

	mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)master);
	return talk(r, nlh, NULL, NULL);
}

int ps_netns_spawn(int ns_fd, char *const argv[], int *out_fd)
{
	int p[2], err;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		sigset_t none;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) < 0) {
			dprintf(STDERR_FILENO, "setns: %s\n", strerror(errno));
			_exit(126);
		}
		execvp(argv[0], argv);
		dprintf(STDERR_FILENO, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	*out_fd = p[0];
	return pid;
}

struct addr_search {
	int ifindex;
	char *buf;
	size_t len;
	bool found;
};

static int addr_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(a, IFA_MAX) > 0)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct addr_search *s = data;
	const struct nlattr *tb[IFA_MAX + 1] = {NULL};
	struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWADDR || s->found || (int)ifa->ifa_index != s->ifindex ||
	    ifa->ifa_scope != RT_SCOPE_UNIVERSE)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*ifa), addr_attr, tb);
	a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (!a)
		return MNL_CB_OK;
	if ((ifa->ifa_family == AF_INET && mnl_attr_get_payload_len(a) == 4) ||
	    (ifa->ifa_family == AF_INET6 && mnl_attr_get_payload_len(a) == 16)) {
		char txt[INET6_ADDRSTRLEN];

		if (inet_ntop(ifa->ifa_family, mnl_attr_get_payload(a), txt, sizeof(txt))) {
			snprintf(s->buf, s->len, "%s/%u", txt, ifa->ifa_prefixlen);
			s->found = true;
		}
	}
	return MNL_CB_OK;
}

int ps_rtnl_global_addr(struct ps_rtnl *r, int ifindex, char *buf, size_t len)
{
	char req[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct ifaddrmsg *ifa;
	struct addr_search s = {.ifindex = ifindex, .buf = buf, .len = len};
	int ret;

	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_UNSPEC;
	ret = talk(r, nlh, addr_cb, &s);
	if (ret < 0)
		return ret;
	return s.found ? 1 : 0;
}

struct route_search {
	int ifindex;
	bool found;
};

static int route_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(a, RTA_MAX) > 0)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	struct route_search *s = data;
	const struct nlattr *tb[RTA_MAX + 1] = {NULL};
	struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	unsigned int table;

	if (nlh->nlmsg_type != RTM_NEWROUTE || rtm->rtm_dst_len != 0 ||
	    rtm->rtm_type != RTN_UNICAST)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*rtm), route_attr, tb);
	table = tb[RTA_TABLE] ? mnl_attr_get_u32(tb[RTA_TABLE]) : rtm->rtm_table;
	if (table != RT_TABLE_MAIN)
		return MNL_CB_OK;
	if (tb[RTA_OIF] && (int)mnl_attr_get_u32(tb[RTA_OIF]) == s->ifindex)
		s->found = true;
	if (tb[RTA_MULTIPATH]) {
		const struct rtnexthop *nh = mnl_attr_get_payload(tb[RTA_MULTIPATH]);
		int left = (int)mnl_attr_get_payload_len(tb[RTA_MULTIPATH]);

		while (left >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) &&
		       nh->rtnh_len <= left) {
			if (nh->rtnh_ifindex == s->ifindex)
				s->found = true;
			left -= RTNH_ALIGN(nh->rtnh_len);
			nh = RTNH_NEXT(nh);
		}
	}
	return MNL_CB_OK;
}

int ps_rtnl_default_route_via(struct ps_rtnl *r, int ifindex)
{
	static const unsigned char families[] = {AF_INET, AF_INET6};
	struct route_search s = {.ifindex = ifindex};

	for (size_t i = 0; i < sizeof(families); i++) {
		char req[MNL_SOCKET_BUFFER_SIZE];
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
		struct rtmsg *rtm;
		int ret;

		nlh->nlmsg_type = RTM_GETROUTE;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
		rtm->rtm_family = families[i];
		ret = talk(r, nlh, route_cb, &s);
		/* A kernel without IPv6 has no such routes to dump. */
		if (ret < 0 && !(ret == -EAFNOSUPPORT && families[i] == AF_INET6))
			return ret;
	}
	return s.found ? 1 : 0;
}
