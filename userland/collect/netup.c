/* netup.c - the boot port's address for the collector: BOOTIF, ip=, DHCP, DNS. */
#include "collect/netup.h"
#include "lib/util.h"
#include "engines/net/netns.h"
#include "engines/net/peer.h"
#include "lib/json.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CARRIER_S 10.0
#define DHCP_S	  8.0
#define MAX_PORTS 16

struct port {
	char name[IF_NAMESIZE];
	unsigned char mac[6];
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct port *)a)->name, ((const struct port *)b)->name);
}

/* The machine's physical ports (a device behind them), by name. */
static size_t physical_ports(const char *root, struct port *ports, size_t max)
{
	char path[512], text[32];
	DIR *d = opendir(ps_path(path, sizeof(path), root, "/sys/class/net"));
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		unsigned int m[6];

		if (e->d_name[0] == '.' || strlen(e->d_name) >= IF_NAMESIZE)
			continue;
		ps_path(path, sizeof(path), root, "/sys/class/net/%s/device", e->d_name);
		if (access(path, F_OK) != 0)
			continue;
		ps_path(path, sizeof(path), root, "/sys/class/net/%s/address", e->d_name);
		if (ps_read_str(path, text, sizeof(text)) < 0 ||
		    sscanf(text, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) !=
			6)
			continue;
		snprintf(ports[n].name, sizeof(ports[n].name), "%s", e->d_name);
		for (int i = 0; i < 6; i++)
			ports[n].mac[i] = (unsigned char)m[i];
		n++;
	}
	closedir(d);
	qsort(ports, n, sizeof(*ports), name_cmp);
	return n;
}

static bool carrier(const char *root, const char *name)
{
	char path[512], v[8];

	ps_path(path, sizeof(path), root, "/sys/class/net/%s/carrier", name);
	return ps_read_str(path, v, sizeof(v)) > 0 && strcmp(v, "1") == 0;
}

static bool wait_carrier(const char *root, const char *name, double seconds)
{
	double end = ps_mono_now() + seconds;

	while (!carrier(root, name)) {
		if (ps_mono_now() > end)
			return false;
		usleep(100 * 1000);
	}
	return true;
}

static void write_resolv(const char *root, const char *dns)
{
	char path[512], text[64];
	int n = snprintf(text, sizeof(text), "nameserver %s\n", dns);

	/* /etc of the initramfs: the one file glibc's resolver reads */
	ps_path(path, sizeof(path), root, "/etc");
	ps_write_atomic(path, "resolv.conf", text, (size_t)n);
}

/* One port: up, link, address. 0, or -errno with why in n->why. */
static int try_port(const char *root, struct ps_rtnl *r, const struct port *p,
		    const struct ps_bootnet *b, struct ps_netup *n)
{
	struct ps_link l;
	struct ps_net_spec spec = {.how = PS_NET_DHCP};
	struct ps_net_addr a;
	char why[256], txt[64];
	int ret = ps_rtnl_link_find(r, p->name, NULL, 0, &l);

	if (ret < 0) {
		snprintf(n->why, sizeof(n->why), "%s: %s", p->name, strerror(-ret));
		return ret;
	}
	ps_rtnl_link_set_up(r, l.ifindex, true);
	if (!wait_carrier(root, p->name, CARRIER_S)) {
		snprintf(n->why, sizeof(n->why),
			 "%s has no link (no cable, or the switch port is "
			 "down) after %.0f s",
			 p->name, CARRIER_S);
		return -ENOLINK;
	}
	snprintf(n->port, sizeof(n->port), "%s", p->name);
	snprintf(n->mac, sizeof(n->mac), "%02x:%02x:%02x:%02x:%02x:%02x", p->mac[0], p->mac[1],
		 p->mac[2], p->mac[3], p->mac[4], p->mac[5]);
	if (ps_rtnl_global_addr(r, l.ifindex, txt, sizeof(txt)) == 1) {
		snprintf(n->how, sizeof(n->how), "kept");
		snprintf(n->address, sizeof(n->address), "%s", txt);
		return 0;
	}
	if (b->how == PS_BOOTNET_STATIC) {
		spec.how = PS_NET_STATIC;
		spec.addr = b->addr;
		spec.prefix = b->prefix;
		spec.gw = b->gw;
		spec.has_gw = b->has_gw;
	}
	ret = ps_net_configure(-1, r, p->name, l.ifindex, p->mac, &spec, DHCP_S, &a, why,
			       sizeof(why));
	if (ret < 0) {
		snprintf(n->why, sizeof(n->why), "%s: %s", p->name, why);
		n->port[0] = '\0';
		return ret;
	}
	snprintf(n->how, sizeof(n->how), "%s", a.how);
	snprintf(n->address, sizeof(n->address), "%s", a.txt);
	if (a.has_gw)
		inet_ntop(AF_INET, &a.gw, n->gateway, sizeof(n->gateway));
	if (b->ndns)
		inet_ntop(AF_INET, &b->dns[0], n->dns, sizeof(n->dns));
	else if (a.has_dns)
		inet_ntop(AF_INET, &a.dns, n->dns, sizeof(n->dns));
	if (n->dns[0])
		write_resolv(root, n->dns);
	return 0;
}

void ps_netup(const char *root, const struct ps_bootnet *b, struct ps_netup *n)
{
	struct port ports[MAX_PORTS];
	size_t np = physical_ports(root, ports, MAX_PORTS), tried = 0;
	struct ps_rtnl r;
	double t0 = ps_mono_now();
	int ret;

	memset(n, 0, sizeof(*n));
	if (b->how == PS_BOOTNET_OFF) {
		snprintf(n->why, sizeof(n->why), "ip=off: the network is left alone");
		return;
	}
	if (!np) {
		snprintf(n->why, sizeof(n->why),
			 "no network port: no driver took the NIC (the drivers step names it)");
		return;
	}
	ret = ps_rtnl_open(&r, -1);
	if (ret < 0) {
		snprintf(n->why, sizeof(n->why), "rtnetlink: %s", strerror(-ret));
		return;
	}
	for (size_t i = 0; i < np && !n->up; i++) {
		const struct port *p = &ports[i];

		if (b->has_mac && memcmp(p->mac, b->mac, 6) != 0)
			continue;
		if (!b->has_mac && b->device[0] && strcmp(p->name, b->device) != 0)
			continue;
		/* without a port named, each port with link in turn (DHCP may answer on one) */
		if (!b->has_mac && !b->device[0] && tried && !carrier(root, p->name))
			continue;
		tried++;
		snprintf(n->found_by, sizeof(n->found_by), "%s",
			 b->has_mac	? "BOOTIF"
			 : b->device[0] ? "ip= device"
			 : np == 1	? "the only port"
					: "a port with link");
		n->up = try_port(root, &r, p, b, n) == 0;
	}
	ps_rtnl_close(&r);
	if (!tried)
		snprintf(n->why, sizeof(n->why), "%s",
			 b->has_mac ? "no port has the MAC address BOOTIF= names"
				    : "no port is named as ip='s device");
	if (n->up)
		n->why[0] = '\0';
	n->seconds = ps_round(ps_mono_now() - t0, 1);
}

json_object *ps_netup_json(const struct ps_netup *n)
{
	json_object *o = json_object_new_object();

	ps_json_set_str(o, "port", n->port[0] ? n->port : NULL);
	ps_json_set_str(o, "mac", n->mac[0] ? n->mac : NULL);
	ps_json_set_str(o, "how", n->up ? n->how : NULL);
	ps_json_set_str(o, "address", n->up ? n->address : NULL);
	ps_json_set_str(o, "gateway", n->gateway[0] ? n->gateway : NULL);
	ps_json_set_str(o, "dns", n->dns[0] ? n->dns : NULL);
	ps_json_set_str(o, "found_by", n->found_by[0] ? n->found_by : NULL);
	ps_json_set_str(o, "problem", n->up ? NULL : n->why);
	ps_json_set_num(o, "seconds", n->seconds, 1);
	return o;
}
