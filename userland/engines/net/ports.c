/*
 * ports.c - free ports into test namespaces, pairing by probe frame, and
 * everything put back: the shared ground of the port-to-port and peer steps.
 */
#include "engines/net/ports.h"
#include "lib/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RESTORE_S 5.0 /* namespace teardown runs from a kernel work queue */
#define RELINK_S  6.0 /* autonegotiation after a port comes back: 2-4 s on copper */

const uint8_t ps_probe_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
static const char probe_magic[8] = {'P', 'S', 'P', 'R', 'O', 'B', 'E', '1'};

/* ------------------------------------------------------------ probe frame -- */

size_t ps_probe_frame_build(uint8_t *buf, size_t len, const uint8_t src[6], uint64_t nonce,
			    unsigned int from)
{
	if (len < PS_PROBE_FRAME_LEN)
		return 0;
	memset(buf, 0, PS_PROBE_FRAME_LEN);
	memcpy(buf, ps_probe_dst, 6);
	memcpy(buf + 6, src, 6);
	buf[12] = PS_PROBE_ETHERTYPE >> 8;
	buf[13] = PS_PROBE_ETHERTYPE & 0xff;
	memcpy(buf + 14, probe_magic, sizeof(probe_magic));
	for (int i = 0; i < 8; i++)
		buf[22 + i] = (uint8_t)(nonce >> (56 - 8 * i));
	buf[30] = (uint8_t)(from >> 8);
	buf[31] = (uint8_t)from;
	return PS_PROBE_FRAME_LEN;
}

int ps_probe_frame_parse(const uint8_t *buf, size_t len, uint64_t nonce)
{
	uint64_t n = 0;

	if (len < 32 || buf[12] != (PS_PROBE_ETHERTYPE >> 8) ||
	    buf[13] != (PS_PROBE_ETHERTYPE & 0xff) ||
	    memcmp(buf + 14, probe_magic, sizeof(probe_magic)) != 0)
		return -1;
	for (int i = 0; i < 8; i++)
		n = n << 8 | buf[22 + i];
	if (n != nonce)
		return -1;
	return buf[30] << 8 | buf[31];
}

/* ----------------------------------------------------------------- ledger -- */

static struct {
	char mac[18], name[IF_NAMESIZE];
	int n;
} ledger[64];
static size_t n_ledger;

static int ledger_find(const char *mac, const char *name)
{
	for (size_t i = 0; i < n_ledger; i++) {
		if (mac && mac[0] && strcmp(ledger[i].mac, mac) == 0)
			return (int)i;
		if ((!mac || !mac[0]) && name && strcmp(ledger[i].name, name) == 0)
			return (int)i;
	}
	return -1;
}

void ps_port_ledger_add(const char *mac, const char *name, int n)
{
	int i = ledger_find(mac, name);

	if (n <= 0)
		return;
	if (i < 0) {
		if (n_ledger == PS_ARRAY_SIZE(ledger))
			return;
		i = (int)n_ledger++;
		snprintf(ledger[i].mac, sizeof(ledger[i].mac), "%s", mac ? mac : "");
		snprintf(ledger[i].name, sizeof(ledger[i].name), "%s", name ? name : "");
		ledger[i].n = 0;
	}
	ledger[i].n += n;
}

int ps_port_ledger_get(const char *mac, const char *name)
{
	int i = ledger_find(mac, name);

	return i < 0 ? 0 : ledger[i].n;
}

void ps_port_ledger_reset(void)
{
	n_ledger = 0;
}

int ps_link_carrier_changes(struct ps_rtnl *r, const char *name)
{
	struct ps_link l;

	if (ps_rtnl_link_find(r, name, NULL, 0, &l) < 0)
		return -1;
	return l.carrier_changes;
}

static void mac_text(const unsigned char *mac, size_t len, char *out, size_t olen)
{
	out[0] = '\0';
	if (len == 6)
		snprintf(out, olen, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
			 mac[4], mac[5]);
}

/* Wait until the link has carrier again; its carrier changes then. */
static int settle_carrier(struct ps_rtnl *r, const char *name, bool want, double wait_s)
{
	double end = ps_mono_now() + wait_s;
	struct ps_link l;

	for (;;) {
		int ret = ps_rtnl_link_find(r, name, NULL, 0, &l);

		if (ret < 0)
			return -1;
		if (!want || l.carrier == 1 || ps_mono_now() >= end)
			return l.carrier_changes;
		usleep(100000);
	}
}

void ps_port_hold_begin(struct ps_port_hold *h, struct ps_rtnl *r, const char *name,
			const char *mac)
{
	struct ps_link l;

	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	snprintf(h->mac, sizeof(h->mac), "%s", mac ? mac : "");
	h->changes_before = -1;
	if (ps_rtnl_link_find(r, name, NULL, 0, &l) == 0) {
		h->changes_before = l.carrier_changes;
		h->carrier_before = l.carrier == 1;
	}
}

void ps_port_hold_end(struct ps_port_hold *h, struct ps_rtnl *r, double wait_s)
{
	int after = settle_carrier(r, h->name, h->carrier_before, wait_s);

	if (h->changes_before >= 0 && after > h->changes_before)
		ps_port_ledger_add(h->mac, h->name, after - h->changes_before);
}

/* ------------------------------------------------ what the plan learned -- */

/*
 * Which ports are cabled to each other does not change during a plan: the
 * first probe's answer is kept (by MAC) so that later steps need not send
 * frames again, and the peer steps know at once which ports face no peer.
 */
static struct {
	char mac[18], partner[18]; /* partner "": probed, no partner */
} cabling[PS_PORTS_MAX * 2];
static size_t n_cabling;

static int cabling_find(const char *mac)
{
	for (size_t i = 0; i < n_cabling; i++)
		if (strcmp(cabling[i].mac, mac) == 0)
			return (int)i;
	return -1;
}

static void cabling_note(const char *mac, const char *partner)
{
	int i = cabling_find(mac);

	if (i < 0) {
		if (n_cabling == PS_ARRAY_SIZE(cabling))
			return;
		i = (int)n_cabling++;
	}
	snprintf(cabling[i].mac, sizeof(cabling[i].mac), "%s", mac);
	snprintf(cabling[i].partner, sizeof(cabling[i].partner), "%s", partner ? partner : "");
}

int ps_ports_cabled(const char *mac, char *partner, size_t len)
{
	int i = mac && mac[0] ? cabling_find(mac) : -1;

	if (i < 0)
		return -1;
	if (partner)
		snprintf(partner, len, "%s", cabling[i].partner);
	return cabling[i].partner[0] ? 1 : 0;
}

void ps_ports_cabling_reset(void)
{
	n_cabling = 0;
}

/* ------------------------------------------------------------------ ports -- */

static const struct ps_field put_back_f[] = {
    PS_FIELD(struct ps_put_back, port, "port"),
    PS_FIELD(struct ps_put_back, setting, "setting"),
    PS_FIELD(struct ps_put_back, was, "was", .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_put_back, now, "now", .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_put_back, restored, "restored"),
};
const struct ps_fields ps_put_back_fields = PS_FIELDS(struct ps_put_back, put_back_f);

static void put_back_fill(struct ps_put_back *r, const char *port, const char *setting,
			  const char *was, const char *now)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->port, sizeof(r->port), "%s", port ? port : "");
	snprintf(r->setting, sizeof(r->setting), "%s", setting ? setting : "");
	snprintf(r->was, sizeof(r->was), "%s", was ? was : "");
	snprintf(r->now, sizeof(r->now), "%s", now ? now : "");
	r->restored = was && now && strcmp(was, now) == 0;
}

void ps_put_back_add(struct ps_put_back *rows, size_t *n, size_t max, const char *port,
		     const char *setting, const char *was, const char *now)
{
	if (*n < max)
		put_back_fill(&rows[(*n)++], port, setting, was, now);
}

void ps_restored_row(json_object *restored, const char *port, const char *setting, const char *was,
		     const char *now)
{
	struct ps_put_back r;

	put_back_fill(&r, port, setting, was, now);
	json_object_array_add(restored, ps_fields_json(&ps_put_back_fields, &r));
}

/* What ps_ports_close put back: typed, and for a step that still writes JSON, there too. */
static void put_back(struct ps_ports *ps, const char *port, const char *setting, const char *was,
		     const char *now)
{
	ps_put_back_add(ps->put_back, &ps->n_put_back, PS_PUT_BACK_MAX, port, setting, was, now);
	if (ps->restored)
		ps_restored_row(ps->restored, port, setting, was, now);
}

/* Ports the machine is managed through stay alone (CLI use on an installed system). */
static const char *in_use(struct ps_ports *ps, const struct ps_link *l, char *why, size_t len)
{
	char addr[64], master[IF_NAMESIZE];
	int ret;

	if (l->master) {
		snprintf(why, len, "in use: part of %s (bond or bridge)",
			 if_indextoname((unsigned int)l->master, master) ? master
									 : "a bond or bridge");
		return why;
	}
	ret = ps_rtnl_global_addr(&ps->home_r, l->ifindex, addr, sizeof(addr));
	if (ret < 0) {
		snprintf(why, len, "cannot tell whether it is in use: reading its addresses: %s",
			 strerror(-ret));
		return why;
	}
	if (ret > 0) {
		snprintf(why, len, "in use: has address %s", addr);
		return why;
	}
	ret = ps_rtnl_default_route_via(&ps->home_r, l->ifindex);
	if (ret != 0) {
		snprintf(why, len,
			 ret > 0 ? "in use: carries the default route"
				 : "cannot tell whether it carries the default route");
		return why;
	}
	return NULL;
}

static void leave(struct ps_ports *ps, const char *name, const struct ps_nic *nic, int skip,
		  const char *why)
{
	if (ps->n_left == PS_ARRAY_SIZE(ps->left))
		return;
	snprintf(ps->left[ps->n_left].name, sizeof(ps->left[0].name), "%s", name);
	ps->left[ps->n_left].nic = nic;
	ps->left[ps->n_left].skip = skip;
	snprintf(ps->left[ps->n_left].why, sizeof(ps->left[0].why), "%s", why);
	ps->n_left++;
}

static void take(struct ps_ports *ps, const char *name, const struct ps_nic *nic)
{
	struct ps_link l;
	struct ps_port *p;
	char why[200];
	int ret;

	if (ps->n == PS_PORTS_MAX) {
		leave(ps, name, nic, PS_PORT_TOO_MANY,
		      "more than 16 ports: only the first 16 are tested");
		return;
	}
	ret = ps_rtnl_link_find(&ps->home_r, name, NULL, 0, &l);
	if (ret < 0) {
		snprintf(why, sizeof(why), "not found when the step started: %s", strerror(-ret));
		leave(ps, name, nic, PS_PORT_NOT_FOUND, why);
		return;
	}
	if (in_use(ps, &l, why, sizeof(why))) {
		leave(ps, name, nic, PS_PORT_IN_USE, why);
		return;
	}
	p = &ps->p[ps->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->nic = nic;
	memcpy(p->mac, l.mac, sizeof(p->mac));
	p->mac_len = l.mac_len;
	p->orig_mtu = p->mtu = l.mtu;
	p->orig_up = l.flags & IFF_UP;
	p->orig_carrier = l.carrier == 1;
	p->carrier_changes_before = l.carrier_changes;
	p->ns = -1;
	p->speed = -1;
}

int ps_ports_open(struct ps_ports *ps, const struct ps_inventory *inv, const char *only,
		  json_object *restored)
{
	int ret;

	memset(ps, 0, sizeof(*ps));
	ps->restored = restored;
	ps->home = ps_netns_open_current();
	if (ps->home < 0)
		return ps->home;
	ret = ps_rtnl_open(&ps->home_r, -1);
	if (ret < 0) {
		close(ps->home);
		ps->home = -1;
		return ret;
	}
	if (only) {
		/* Named ports, in the order named; the inventory's entry when there is one. */
		for (const char *p = only; *p;) {
			size_t len = strcspn(p, ",");
			char name[IF_NAMESIZE];

			snprintf(name, sizeof(name), "%.*s", (int)len, p);
			if (name[0])
				take(ps, name, inv ? ps_inventory_nic(inv, name) : NULL);
			p += len;
			if (*p == ',')
				p++;
		}
		return 0;
	}
	for (size_t i = 0; inv && i < inv->n_nics; i++)
		if (inv->nics[i].name[0])
			take(ps, inv->nics[i].name, &inv->nics[i]);
	return 0;
}

static int setup_one(struct ps_ports *ps, struct ps_port *p)
{
	struct ps_link l;
	int ret;

	p->ns = ps_netns_create();
	if (p->ns < 0)
		return p->ns;
	ret = ps_rtnl_link_find(&ps->home_r, p->name, NULL, 0, &l);
	if (ret < 0)
		return ret;
	ret = ps_rtnl_link_set_ns(&ps->home_r, l.ifindex, p->ns);
	if (ret < 0)
		return ret;
	p->in_ns = true;
	ret = ps_rtnl_open(&p->r, p->ns);
	if (ret < 0)
		return ret;
	ret = ps_rtnl_link_find(&p->r, p->name, NULL, 0, &l);
	if (ret < 0)
		return ret;
	p->ifindex = l.ifindex;
	/* Best effort: a kernel without IPv6 refuses, and that is just as quiet. */
	ps_rtnl_link_no_ipv6_ll(&p->r, p->ifindex);
	return ps_rtnl_link_set_up(&p->r, p->ifindex, true);
}

static bool stop(struct ps_ports *ps)
{
	if (!ps->aborted && ps->should_stop && ps->should_stop(ps->stop_arg))
		ps->aborted = true;
	return ps->aborted;
}

bool ps_ports_setup(struct ps_ports *ps, double carrier_s)
{
	double end;

	for (size_t i = 0; i < ps->n; i++) {
		struct ps_port *p = &ps->p[i];
		int ret = setup_one(ps, p);

		if (ret < 0) {
			p->skip = PS_PORT_SETUP;
			snprintf(p->why, sizeof(p->why),
				 "setting it up in a test namespace failed: %s", strerror(-ret));
		}
	}
	end = ps_mono_now() + carrier_s;
	for (;;) {
		bool all = true;

		for (size_t i = 0; i < ps->n; i++) {
			struct ps_port *p = &ps->p[i];
			struct ps_link l;

			if (p->skip || p->carrier)
				continue;
			if (ps_rtnl_link_find(&p->r, p->name, NULL, 0, &l) == 0 && l.carrier == 1)
				p->carrier = true;
			else
				all = false;
		}
		if (all || ps_mono_now() >= end)
			break;
		if (stop(ps))
			return false;
		usleep(100000);
	}
	for (size_t i = 0; i < ps->n; i++) {
		struct ps_port *p = &ps->p[i];

		if (p->skip)
			continue;
		if (!p->carrier) {
			p->skip = PS_PORT_NO_LINK;
			snprintf(p->why, sizeof(p->why), "no link after %.0f s up: no cable?",
				 carrier_s);
			continue;
		}
		p->speed = ps_netns_link_speed(p->ns, p->name);
		if (p->speed < 0)
			p->speed = -1;
	}
	return true;
}

size_t ps_ports_with_link(const struct ps_ports *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++)
		n += !ps->p[i].skip && ps->p[i].carrier;
	return n;
}

/* A packet socket on the port for probe frames, joined to the group address. */
static int probe_socket(struct ps_port *p)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET,
				  .sll_protocol = htons(PS_PROBE_ETHERTYPE),
				  .sll_ifindex = p->ifindex};
	struct packet_mreq mr = {
	    .mr_ifindex = p->ifindex, .mr_type = PACKET_MR_MULTICAST, .mr_alen = 6};
	int one = 1;
	int fd =
	    ps_netns_socket(p->ns, AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(PS_PROBE_ETHERTYPE));

	if (fd < 0)
		return fd;
	memcpy(mr.mr_address, ps_probe_dst, 6);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	/* Our own frames going out are not news (kernels before 4.20 lack it: filtered below). */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	return fd;
}

static void send_probe(int fd, const struct ps_port *p, uint64_t nonce, unsigned int i)
{
	uint8_t frame[PS_PROBE_FRAME_LEN];
	struct sockaddr_ll to = {.sll_family = AF_PACKET,
				 .sll_protocol = htons(PS_PROBE_ETHERTYPE),
				 .sll_ifindex = p->ifindex,
				 .sll_halen = 6};
	size_t len = ps_probe_frame_build(frame, sizeof(frame), p->mac, nonce, i);

	memcpy(to.sll_addr, ps_probe_dst, 6);
	sendto(fd, frame, len, 0, (struct sockaddr *)&to, sizeof(to));
}

bool ps_ports_probe(struct ps_ports *ps, double seconds, bool *reach)
{
	int fd[PS_PORTS_MAX];
	size_t n = ps->n;
	uint64_t nonce;
	struct timespec ts;
	double end = ps_mono_now() + seconds, next_round = 0;
	int rounds = 0;

	memset(reach, 0, n * n * sizeof(*reach));
	{
		/* Known already from this plan's first probe? */
		bool all = true;

		for (size_t i = 0; i < n && all; i++) {
			char mac[18], partner[18];

			if (ps->p[i].skip || !ps->p[i].carrier)
				continue;
			mac_text(ps->p[i].mac, ps->p[i].mac_len, mac, sizeof(mac));
			if (ps_ports_cabled(mac, partner, sizeof(partner)) < 0) {
				all = false;
				break;
			}
			for (size_t j = 0; j < n && partner[0]; j++) {
				char other[18];

				mac_text(ps->p[j].mac, ps->p[j].mac_len, other, sizeof(other));
				if (j != i && strcmp(other, partner) == 0 && !ps->p[j].skip &&
				    ps->p[j].carrier)
					reach[i * n + j] = true;
			}
		}
		if (all)
			return true;
		memset(reach, 0, n * n * sizeof(*reach));
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	nonce = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 16;
	for (size_t i = 0; i < n; i++) {
		struct ps_port *p = &ps->p[i];

		fd[i] = -1;
		if (p->skip || !p->carrier)
			continue;
		fd[i] = probe_socket(p);
		if (fd[i] < 0) {
			snprintf(p->why, sizeof(p->why), "no packet socket for the probe frame: %s",
				 strerror(-fd[i]));
			fd[i] = -1;
		}
	}
	while (ps_mono_now() < end && !stop(ps)) {
		struct pollfd pf[PS_PORTS_MAX];
		size_t idx[PS_PORTS_MAX], np = 0;

		/* Three rounds: one frame lost to a link still settling does not split a pair. */
		if (rounds < 3 && ps_mono_now() >= next_round) {
			for (size_t i = 0; i < n; i++)
				if (fd[i] >= 0)
					send_probe(fd[i], &ps->p[i], nonce, (unsigned int)i);
			rounds++;
			next_round = ps_mono_now() + seconds / 4;
		}
		for (size_t i = 0; i < n; i++)
			if (fd[i] >= 0) {
				pf[np] = (struct pollfd){.fd = fd[i], .events = POLLIN};
				idx[np++] = i;
			}
		if (np == 0 || poll(pf, np, 50) <= 0)
			continue;
		for (size_t k = 0; k < np; k++) {
			uint8_t buf[256];
			struct sockaddr_ll from;
			socklen_t flen = sizeof(from);
			ssize_t len;

			if (!(pf[k].revents & POLLIN))
				continue;
			while ((len = recvfrom(pf[k].fd, buf, sizeof(buf), 0,
					       (struct sockaddr *)&from, &flen)) > 0) {
				int s;

				/* recvfrom gives the frame from the MAC header on (SOCK_RAW) */
				if (from.sll_pkttype != PACKET_OUTGOING &&
				    (s = ps_probe_frame_parse(buf, (size_t)len, nonce)) >= 0 &&
				    (size_t)s < n && (size_t)s != idx[k])
					reach[(size_t)s * n + idx[k]] = true;
				flen = sizeof(from);
			}
		}
		/* Done early once every port with link has heard someone and three rounds went. */
		if (rounds >= 3) {
			bool all = true;

			for (size_t j = 0; j < n && all; j++) {
				bool heard = false;

				if (fd[j] < 0)
					continue;
				for (size_t i = 0; i < n; i++)
					heard = heard || reach[i * n + j];
				all = heard;
			}
			if (all)
				break;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return !ps->aborted;
}

size_t ps_ports_pairs(const struct ps_ports *ps, const bool *reach, struct ps_pair *out)
{
	struct ps_pair_port pp[PS_PORTS_MAX] = {{0}};
	bool sym[PS_PORTS_MAX * PS_PORTS_MAX] = {false};
	struct ps_pair all[PS_PORTS_MAX / 2] = {{0}};
	size_t n = ps->n, np, k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ps_port *p = &ps->p[i];

		pp[i] = (struct ps_pair_port){
		    .name = p->name,
		    .pci = p->nic && p->nic->pci_address[0] ? p->nic->pci_address : NULL,
		    .carrier = !p->skip && p->carrier};
	}
	/* A frame one way proves the cable; pairing wants it both ways or either. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			sym[i * n + j] = reach[i * n + j] || reach[j * n + i];
	np = ps_pair_ports(pp, n, sym, all);
	for (size_t i = 0; i < n; i++) {
		char mac[18];

		mac_text(ps->p[i].mac, ps->p[i].mac_len, mac, sizeof(mac));
		if (mac[0] && pp[i].carrier && cabling_find(mac) < 0)
			cabling_note(mac, NULL);
	}
	for (size_t i = 0; i < np; i++)
		if (all[i].reachable) {
			char ma[18], mb[18];

			out[k++] = all[i];
			mac_text(ps->p[all[i].a].mac, ps->p[all[i].a].mac_len, ma, sizeof(ma));
			mac_text(ps->p[all[i].b].mac, ps->p[all[i].b].mac_len, mb, sizeof(mb));
			if (ma[0] && mb[0]) {
				cabling_note(ma, mb);
				cabling_note(mb, ma);
			}
		}
	return k;
}

int ps_ports_address(struct ps_ports *ps, size_t i, unsigned int net, unsigned int host)
{
	struct ps_port *p = &ps->p[i];
	int ret;

	p->addr.s_addr = htonl(0xc6120000u | (net & 0xff) << 8 | (host & 0xff));
	p->prefix = 24;
	inet_ntop(AF_INET, &p->addr, p->addr_txt, sizeof(p->addr_txt));
	ret = ps_rtnl_addr_add4(&p->r, p->ifindex, p->addr, 24);
	return ret == -EEXIST ? 0 : ret;
}

int ps_ports_set_mtu(struct ps_ports *ps, size_t i, unsigned int mtu)
{
	struct ps_port *p = &ps->p[i];
	int ret = ps_rtnl_link_set_mtu(&p->r, p->ifindex, mtu);

	if (ret == 0)
		p->mtu = mtu;
	return ret;
}

void ps_ports_close(struct ps_ports *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct ps_port *p = &ps->p[i];

		if (p->in_ns && p->r.nl) {
			int ret = ps_rtnl_link_set_ns(&p->r, p->ifindex, ps->home);

			/* Else closing the namespace sends it to the initial one. */
			if (ret == 0)
				p->in_ns = false;
		}
		ps_rtnl_close(&p->r);
		if (p->ns >= 0)
			close(p->ns);
		p->ns = -1;
	}
	for (size_t i = 0; i < ps->n && ps->home_r.nl; i++) {
		struct ps_port *p = &ps->p[i];
		double end = ps_mono_now() + RESTORE_S;
		char was[32], now[32], mac[18];
		struct ps_link l;
		int ret, after;

		while ((ret = ps_rtnl_link_find(&ps->home_r, p->name, p->mac, p->mac_len, &l)) ==
			   -ENODEV &&
		       ps_mono_now() < end)
			usleep(100000);
		if (ret < 0) {
			snprintf(p->restore_error, sizeof(p->restore_error),
				 "%s did not come back from its test namespace within %.0f s (%s): "
				 "reboot before using this port",
				 p->name, RESTORE_S, strerror(-ret));
			put_back(ps, p->name, "namespace", "initial", NULL);
			continue;
		}
		if (strcmp(l.name, p->name) != 0)
			snprintf(p->restore_error, sizeof(p->restore_error),
				 "%s came back from its test namespace as %s (the name was taken)",
				 p->name, l.name);
		if (l.mtu != p->orig_mtu)
			ps_rtnl_link_set_mtu(&ps->home_r, l.ifindex, p->orig_mtu);
		if (!!(l.flags & IFF_UP) != p->orig_up)
			ps_rtnl_link_set_up(&ps->home_r, l.ifindex, p->orig_up);
		/* The link trains again after the move: the next step needs it, and the
		 * carrier changes of the move belong to this step, not to the cable. */
		after =
		    settle_carrier(&ps->home_r, l.name, p->orig_up && p->orig_carrier, RELINK_S);
		mac_text(p->mac, p->mac_len, mac, sizeof(mac));
		if (p->carrier_changes_before >= 0 && after > p->carrier_changes_before)
			ps_port_ledger_add(mac, p->name, after - p->carrier_changes_before);
		ret = ps_rtnl_link_find(&ps->home_r, l.name, NULL, 0, &l);
		put_back(ps, p->name, "namespace", "initial", ret == 0 ? "initial" : NULL);
		snprintf(was, sizeof(was), "%u", p->orig_mtu);
		snprintf(now, sizeof(now), "%u", l.mtu);
		put_back(ps, p->name, "mtu", was, ret == 0 ? now : NULL);
		put_back(ps, p->name, "up", p->orig_up ? "up" : "down",
			 ret < 0	    ? NULL
			 : l.flags & IFF_UP ? "up"
					    : "down");
		if (!p->restore_error[0] &&
		    (ret < 0 || l.mtu != p->orig_mtu || !!(l.flags & IFF_UP) != p->orig_up))
			snprintf(p->restore_error, sizeof(p->restore_error),
				 "%s is back but not as it was: MTU %u (was %u), %s (was %s)",
				 p->name, l.mtu, p->orig_mtu, l.flags & IFF_UP ? "up" : "down",
				 p->orig_up ? "up" : "down");
	}
	ps_rtnl_close(&ps->home_r);
	if (ps->home >= 0)
		close(ps->home);
	ps->home = -1;
}
