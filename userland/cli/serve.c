/*
 * serve.c - `probestick serve`: this machine becomes the peer of another
 * stick (or of any iperf3 client). Its ports get an address (net=, DHCP,
 * and always a link-local one), their MTU raised as mtu= says; then it
 * answers discovery broadcasts, runs an iperf3 server (libiperf), the echo
 * service the mtu step probes, and Debian's nbd-server exporting a RAM
 * disk, until a key is pressed or --seconds run out. The only listening
 * sockets probestick ever opens are these, here. Everything is put back.
 */
#include "version.h"
#include "cli/serve.h"
#include "cli/console.h"
#include "core/config.h"
#include "lib/util.h"
#include "engines/io/uring_io.h"
#include "engines/net/iperf_pair.h"
#include "engines/net/nbd.h"
#include "engines/net/netns.h"
#include "engines/net/peer.h"
#include "engines/net/pmtu.h"
#include "hw/inventory.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PORTS   8
#define CARRIER_S   6.0
#define RAMDISK_MIB 256
#define EXPORT	    "probestick-ram"

struct sport {
	char name[IF_NAMESIZE];
	int ifindex;
	unsigned char mac[6];
	unsigned int orig_mtu;
	bool orig_up;
	struct ps_net_addr addr;
	struct in_addr ll;
	bool has_ll, has_addr;
};

struct server {
	struct ps_console *con;
	struct ps_rtnl r;
	struct sport p[MAX_PORTS];
	size_t n;
	struct ps_peer_info self;
	pid_t iperf, nbd;
	int echo_fd, disc_fd;
	unsigned long answered, echoes;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	stop_flag = 1;
}

static void say(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct server *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ps_console_printf(s->con, "serve: %s\n", buf);
}

/* The addresses of the interface a discovery request came in on. */
static int addrs_of(void *arg, int ifindex, struct ps_peer_info *p)
{
	struct server *s = arg;

	p->naddrs = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->p[i].ifindex != ifindex)
			continue;
		if (s->p[i].has_addr && p->naddrs < PS_PEER_MAX_ADDRS) {
			p->addrs[p->naddrs] = s->p[i].addr.addr;
			p->prefix[p->naddrs++] = s->p[i].addr.prefix;
		}
		if (s->p[i].has_ll && p->naddrs < PS_PEER_MAX_ADDRS) {
			p->addrs[p->naddrs] = s->p[i].ll;
			p->prefix[p->naddrs++] = 16;
		}
		{
			struct ps_link l;

			if (ps_rtnl_link_find(&s->r, s->p[i].name, NULL, 0, &l) == 0)
				p->mtu = (int)l.mtu;
		}
	}
	s->answered++;
	return p->naddrs ? 0 : -ENOENT;
}

/* Which ports serve: those named, else every physical port that is free. */
static void choose_ports(struct server *s, const char *only, const struct ps_inventory *inv)
{
	char names[MAX_PORTS][IF_NAMESIZE];
	size_t n = 0;

	if (only && only[0]) {
		for (const char *q = only; *q && n < MAX_PORTS;) {
			size_t len = strcspn(q, ",");

			snprintf(names[n++], IF_NAMESIZE, "%.*s", (int)len, q);
			q += len;
			if (*q == ',')
				q++;
		}
	} else {
		for (size_t i = 0; i < inv->n_nics && n < MAX_PORTS; i++)
			snprintf(names[n++], IF_NAMESIZE, "%s", inv->nics[i].name);
	}
	for (size_t i = 0; i < n; i++) {
		struct ps_link l;
		char addr[64];
		struct sport *p;

		if (ps_rtnl_link_find(&s->r, names[i], NULL, 0, &l) < 0) {
			say(s, "%s: not found", names[i]);
			continue;
		}
		/* A port the machine is managed through stays as it is (an installed system). */
		if (!only && (ps_rtnl_global_addr(&s->r, l.ifindex, addr, sizeof(addr)) != 0 ||
			      ps_rtnl_default_route_via(&s->r, l.ifindex) != 0 || l.master)) {
			say(s, "%s: in use (an address, the default route or a bond): left alone",
			    names[i]);
			continue;
		}
		p = &s->p[s->n++];
		memset(p, 0, sizeof(*p));
		memcpy(p->name, names[i], sizeof(p->name));
		p->name[sizeof(p->name) - 1] = '\0';
		p->ifindex = l.ifindex;
		memcpy(p->mac, l.mac, l.mac_len < 6 ? l.mac_len : 6);
		p->orig_mtu = l.mtu;
		p->orig_up = l.flags & IFF_UP;
	}
}

static int max_mtu(const struct ps_inventory *inv, const char *name)
{
	const struct ps_nic *n = ps_inventory_nic(inv, name);

	return n && n->max_mtu > 0 ? n->max_mtu : -1;
}

static void setup_ports(struct server *s, const struct ps_config *cfg,
			const struct ps_inventory *inv)
{
	struct ps_net_spec net = cfg->net_want.net;
	char why[256];
	int mtu_mode = cfg->net_want.mtu;
	double end;

	for (size_t i = 0; i < s->n; i++) {
		struct sport *p = &s->p[i];
		int want = mtu_mode > 0 ? mtu_mode : mtu_mode < 0 ? max_mtu(inv, p->name) : 0;

		/* no IPv6 link-local chatter; the MTU before up (some drivers reset on it) */
		ps_rtnl_link_no_ipv6_ll(&s->r, p->ifindex);
		if (want > 0 && (unsigned int)want != p->orig_mtu &&
		    ps_rtnl_link_set_mtu(&s->r, p->ifindex, (unsigned int)want) < 0)
			say(s, "%s: cannot set MTU %d: keeping %u", p->name, want, p->orig_mtu);
		ps_rtnl_link_set_up(&s->r, p->ifindex, true);
	}
	end = ps_mono_now() + CARRIER_S;
	for (size_t i = 0; i < s->n; i++) {
		struct sport *p = &s->p[i];
		struct ps_link l;

		while (ps_rtnl_link_find(&s->r, p->name, NULL, 0, &l) == 0 && l.carrier != 1 &&
		       ps_mono_now() < end && !stop_flag)
			usleep(100000);
		if (l.carrier != 1) {
			say(s, "%s: no link: not serving on it", p->name);
			continue;
		}
		/* Only one port takes a static address; every port gets a link-local one. */
		if (net.how != PS_NET_STATIC || !s->p[0].has_addr) {
			struct ps_net_spec one = net;
			int ret;

			if (net.how == PS_NET_STATIC && i > 0 && s->p[0].has_addr)
				one.how = PS_NET_AUTO;
			ret = ps_net_configure(-1, &s->r, p->name, p->ifindex, p->mac, &one, 4,
					       &p->addr, why, sizeof(why));
			if (ret == 0 && strcmp(p->addr.how, "link-local") != 0)
				p->has_addr = true;
			else if (ret < 0)
				say(s, "%s: %s", p->name, why);
		}
		p->ll = ps_link_local_for(p->mac);
		if (ps_rtnl_addr_add4(&s->r, p->ifindex, p->ll, 16) == 0 ||
		    !strcmp(p->addr.how, "link-local"))
			p->has_ll = true;
		say(s, "%s: %s%s%s, link-local %s, MTU %u", p->name,
		    p->has_addr ? p->addr.txt : "no lease", p->has_addr ? " " : "",
		    p->has_addr ? p->addr.how : "", inet_ntoa(p->ll), l.mtu);
	}
}

static void restore_ports(struct server *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct sport *p = &s->p[i];
		struct ps_link l;

		if (p->has_addr)
			ps_rtnl_addr_del4(&s->r, p->ifindex, p->addr.addr, p->addr.prefix);
		if (p->has_ll)
			ps_rtnl_addr_del4(&s->r, p->ifindex, p->ll, 16);
		if (ps_rtnl_link_find(&s->r, p->name, NULL, 0, &l) < 0)
			continue;
		if (l.mtu != p->orig_mtu)
			ps_rtnl_link_set_mtu(&s->r, p->ifindex, p->orig_mtu);
		if (!!(l.flags & IFF_UP) != p->orig_up)
			ps_rtnl_link_set_up(&s->r, p->ifindex, p->orig_up);
	}
}

/* The export: a brd RAM disk (no confirmation needed: nothing on it), its own read speed. */
static void start_export(struct server *s)
{
	char path[64], why[256];
	int fd, pid;
	bool direct;
	uint64_t size;

	if (ps_ramdisk_create(RAMDISK_MIB, path, sizeof(path), why, sizeof(why)) < 0) {
		say(s, "no RAM disk to export: %s", why);
		return;
	}
	fd = ps_uio_open(path, true, &direct, NULL);
	if (fd >= 0 && ps_uio_size(fd, &size) == 0) {
		struct ps_uio_job j = {.fd = fd,
				       .size = size,
				       .length = size,
				       .bs = 1 << 20,
				       .qd = 8,
				       .time_budget_s = 2};
		struct ps_uio_result res;

		s->self.export_bytes = (int64_t)size;
		if (ps_uio_read(&j, &res) == 0 && res.seconds > 0)
			s->self.export_local_mbps = (double)res.bytes / res.seconds / 1e6;
	}
	if (fd >= 0)
		close(fd);
	mkdir("/run/probestick", 0755);
	pid = ps_nbd_server_spawn(access("/run/probestick", W_OK) == 0 ? "/run/probestick" : "/tmp",
				  EXPORT, path, PS_NBD_PORT, why, sizeof(why));
	if (pid < 0) {
		say(s, "no NBD export: %s", why);
		return;
	}
	s->nbd = pid;
	s->self.nbd_port = PS_NBD_PORT;
	snprintf(s->self.export_name, sizeof(s->self.export_name), "%s", EXPORT);
	snprintf(s->self.export_kind, sizeof(s->self.export_kind), "ram disk");
	say(s, "NBD export %s: %s, %lld MiB, read locally at %.0f MB/s (nbd-server, port %d)",
	    EXPORT, path, (long long)(s->self.export_bytes >> 20), s->self.export_local_mbps,
	    PS_NBD_PORT);
}

static void stop_child(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 30; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int ps_serve_run(const struct ps_serve_opts *o)
{
	struct server s = {.con = o->con, .echo_fd = -1, .disc_fd = -1};
	struct ps_inventory inv = {0};
	struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
	double end = o->seconds > 0 ? ps_mono_now() + o->seconds : 0;
	int ret;

	stop_flag = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	ps_peer_info_init(&s.self);
	snprintf(s.self.version, sizeof(s.self.version), "%s", PS_VERSION);
	ps_inventory_identify(&inv, "");
	snprintf(s.self.name, sizeof(s.self.name), "%.63s",
		 inv.machine.id[0] ? inv.machine.id : "probestick");
	ret = ps_rtnl_open(&s.r, -1);
	if (ret < 0) {
		say(&s, "cannot talk rtnetlink: %s", strerror(-ret));
		ps_inventory_free(&inv);
		return 1;
	}
	{
		/* the full NIC inventory: max MTU per port */
		struct ps_inventory_opts io = {.root = "", .module_fd = -1};

		ps_inventory_take(&inv, &io);
	}
	choose_ports(&s, o->ports, &inv);
	if (s.n == 0) {
		say(&s, "no port to serve on");
		ps_rtnl_close(&s.r);
		ps_inventory_free(&inv);
		return 1;
	}
	setup_ports(&s, o->cfg, &inv);
	s.iperf = ps_iperf_server_spawn(-1, NULL, PS_IPERF_PORT);
	if (s.iperf < 0)
		say(&s, "no iperf3 server: %s", strerror(-s.iperf));
	s.echo_fd = ps_echo_socket(-1, PS_ECHO_PORT);
	if (s.echo_fd < 0)
		say(&s, "no echo service (UDP %d): %s", PS_ECHO_PORT, strerror(-s.echo_fd));
	else
		s.self.echo_port = PS_ECHO_PORT;
	if (!o->no_export)
		start_export(&s);
	s.disc_fd = ps_disc_socket(-1);
	if (s.disc_fd < 0)
		say(&s, "no discovery answers (UDP %d): %s", PS_DISCOVERY_PORT,
		    strerror(-s.disc_fd));
	ps_console_flush(s.con); /* before the line that asks for a key */
	say(&s, "serving: iperf3 on TCP %d, echo on UDP %d, discovery on UDP %d%s; %s",
	    PS_IPERF_PORT, PS_ECHO_PORT, PS_DISCOVERY_PORT, s.nbd > 0 ? ", NBD on TCP 10809" : "",
	    o->seconds > 0 ? "ends after the time given" : "any key ends server mode");
	while (!stop_flag && (!end || ps_mono_now() < end)) {
		struct pollfd pf[2];
		int np = 0, k;

		if (s.echo_fd >= 0)
			pf[np++] = (struct pollfd){.fd = s.echo_fd, .events = POLLIN};
		if (s.disc_fd >= 0)
			pf[np++] = (struct pollfd){.fd = s.disc_fd, .events = POLLIN};
		if (np && poll(pf, (nfds_t)np, 100) > 0) {
			if (s.echo_fd >= 0)
				while (ps_echo_serve_one(s.echo_fd) > 0)
					s.echoes++;
			if (s.disc_fd >= 0)
				while (ps_disc_serve_one(s.disc_fd, &s.self, addrs_of, &s) > 0)
					;
		} else if (!np) {
			usleep(100000);
		}
		k = ps_console_key(s.con, 0);
		if (k >= 0)
			break;
		/* a server child that died is started again */
		if (s.iperf > 0 && waitpid(s.iperf, NULL, WNOHANG) == s.iperf)
			s.iperf = ps_iperf_server_spawn(-1, NULL, PS_IPERF_PORT);
	}
	say(&s, "ending server mode: %lu discovery answers, %lu echo probes", s.answered, s.echoes);
	stop_child(s.iperf);
	stop_child(s.nbd);
	if (s.echo_fd >= 0)
		close(s.echo_fd);
	if (s.disc_fd >= 0)
		close(s.disc_fd);
	restore_ports(&s);
	ps_rtnl_close(&s.r);
	ps_inventory_free(&inv);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return 0;
}
