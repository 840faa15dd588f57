/*
 * nics.c - the NICs of the inventory: every physical network interface with
 * its link state, queues and interrupt vectors from sysfs, and on a live
 * system everything the ethtool helper (hw/ethtool.c) can ask: driver,
 * firmware, permanent MAC, link modes, rings, channels, coalescing, pause.
 */
#include "decode/decode.h"
#include "hw/ethtool.h"
#include "hw/hw_util.h"
#include "hw/readers.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * MSI/MSI-X vectors of the PCI function behind the interface: the device
 * itself, or its parent for virtio (virtioN sits on the PCI function).
 * Anything else (USB NICs) has no vectors of its own: unknown.
 */
static int msi_vectors(const char *devreal)
{
	char path[PATH_MAX];
	const char *base = strrchr(devreal, '/');
	size_t dirlen;

	if (!base)
		return PS_UNKNOWN;
	base++;
	if (ps_is_pci_address(base, strlen(base))) {
		dirlen = strlen(devreal);
	} else if (strncmp(base, "virtio", 6) == 0) {
		dirlen = (size_t)(base - 1 - devreal);
	} else {
		return PS_UNKNOWN;
	}
	if (snprintf(path, sizeof(path), "%.*s/msi_irqs", (int)dirlen, devreal) >=
	    (int)sizeof(path))
		return PS_UNKNOWN;
	return ps_dir_count(path, "");
}

static int read_int(const char *path)
{
	int64_t v;

	/* carrier and speed of an interface that is down read as EINVAL */
	if (ps_read_s64(path, &v) < 0 || v < 0 || v > INT_MAX)
		return PS_UNKNOWN;
	return (int)v;
}

void ps_nic_unknown(struct ps_nic *n)
{
	memset(n, 0, sizeof(*n));
	n->carrier = n->autoneg = PS_TRI_UNKNOWN;
	n->speed_mbps = n->mtu = n->max_mtu = n->min_mtu = PS_UNKNOWN;
	n->rx_queues = n->tx_queues = n->combined_queues = n->msix_vectors = PS_UNKNOWN;
	n->carrier_changes = n->carrier_up = n->carrier_down = PS_UNKNOWN;
	ps_coalesce_unknown(&n->coalesce);
}

void ps_nic_apply_ethtool(struct ps_nic *n, const struct ps_eth_info *e)
{
	n->ethtool = true;
	if (e->drv.known) {
		if (!n->driver[0])
			ps_copy_str(n->driver, sizeof(n->driver), e->drv.driver);
		ps_copy_str(n->firmware, sizeof(n->firmware), e->drv.firmware);
		ps_copy_str(n->bus_info, sizeof(n->bus_info), e->drv.bus_info);
	}
	if (e->rtlink.known) {
		n->max_mtu = e->rtlink.max_mtu;
		n->min_mtu = e->rtlink.min_mtu;
		n->carrier_changes = e->rtlink.carrier_changes;
		n->carrier_up = e->rtlink.carrier_up;
		n->carrier_down = e->rtlink.carrier_down;
		n->stats = e->rtlink.stats;
	}
	ps_copy_str(n->perm_mac, sizeof(n->perm_mac), e->rtlink.perm_mac);
	if (e->modes.known) {
		n->modes = e->modes;
		n->autoneg = e->modes.autoneg;
		/* the same ksettings sysfs reads: ethtool's answer wins, sysfs stays a fallback */
		if (e->modes.speed_mbps != PS_UNKNOWN)
			n->speed_mbps = e->modes.speed_mbps;
		if (e->modes.duplex[0])
			ps_copy_str(n->duplex, sizeof(n->duplex), e->modes.duplex);
	}
	n->link_state = e->state;
	n->rings = e->rings;
	n->channels = e->channels;
	n->combined_queues = e->channels.combined;
	n->has_coalesce = e->has_coalesce;
	n->coalesce = e->coalesce;
	n->pause = e->pause;
	n->features = e->features;
}

static void nic_ethtool(struct ps_ethtool *et, struct ps_nic *n)
{
	struct ps_eth_info *e = malloc(sizeof(*e));

	if (!e)
		return;
	ps_ethtool_query(et, n->name, e);
	ps_nic_apply_ethtool(n, e);
	free(e);
}

static void nic_read(const char *root, const char *name, struct ps_ethtool *et, struct ps_nic *n)
{
	char path[PATH_MAX], real[PATH_MAX], buf[64];
	int v;

	ps_nic_unknown(n);
	ps_copy_str(n->name, sizeof(n->name), name);
	if (ps_link_name(ps_path(path, sizeof(path), root, "/sys/class/net/%s/device/driver", name),
			 n->driver, sizeof(n->driver)) < 0)
		n->driver[0] = '\0';
	if (ps_read_str(ps_path(path, sizeof(path), root, "/sys/class/net/%s/address", name), buf,
			sizeof(buf)) == 17 &&
	    strcmp(buf, "00:00:00:00:00:00") != 0)
		ps_copy_str(n->mac, sizeof(n->mac), buf);
	if (ps_read_str(ps_path(path, sizeof(path), root, "/sys/class/net/%s/operstate", name),
			n->operstate, sizeof(n->operstate)) < 0)
		n->operstate[0] = '\0';
	v = read_int(ps_path(path, sizeof(path), root, "/sys/class/net/%s/carrier", name));
	n->carrier = v == 0 || v == 1 ? (ps_tri)v : PS_TRI_UNKNOWN;
	n->speed_mbps =
	    read_int(ps_path(path, sizeof(path), root, "/sys/class/net/%s/speed", name));
	if (ps_read_str(ps_path(path, sizeof(path), root, "/sys/class/net/%s/duplex", name), buf,
			sizeof(buf)) > 0 &&
	    (strcmp(buf, "full") == 0 || strcmp(buf, "half") == 0))
		ps_copy_str(n->duplex, sizeof(n->duplex), buf);
	n->mtu = read_int(ps_path(path, sizeof(path), root, "/sys/class/net/%s/mtu", name));
	ps_path(path, sizeof(path), root, "/sys/class/net/%s/queues", name);
	n->rx_queues = ps_dir_count(path, "rx-");
	n->tx_queues = ps_dir_count(path, "tx-");
	if (n->rx_queues < 0)
		n->rx_queues = PS_UNKNOWN;
	if (n->tx_queues < 0)
		n->tx_queues = PS_UNKNOWN;
	ps_path(path, sizeof(path), root, "/sys/class/net/%s/device", name);
	if (realpath(path, real)) {
		n->msix_vectors = msi_vectors(real);
		if (n->msix_vectors < 0)
			n->msix_vectors = PS_UNKNOWN;
		ps_pci_ancestor(real, 0, n->pci_address, sizeof(n->pci_address));
	}
	if (et)
		nic_ethtool(et, n);
	ps_nic_identity(n->perm_mac, n->mac, n->id, sizeof(n->id));
}

int ps_read_nics(const char *root, struct ps_nic **nics, size_t *n)
{
	char path[PATH_MAX];
	struct ps_dirlist list;
	struct ps_ethtool et;
	bool live = !root || !root[0];
	int r = ps_dir_list(ps_path(path, sizeof(path), root, "/sys/class/net"), &list);

	*nics = NULL;
	*n = 0;
	if (r < 0)
		return r;
	*nics = calloc(list.n ? list.n : 1, sizeof(**nics));
	if (!*nics) {
		ps_dir_free(&list);
		return -ENOMEM;
	}
	/* ethtool talks to the running kernel: only meaningful on the live system */
	if (live && ps_ethtool_open(&et) < 0)
		live = false;
	for (size_t i = 0; i < list.n; i++) {
		/* only interfaces backed by a device: no lo, veth, bridge, bond, tun */
		if (access(ps_path(path, sizeof(path), root, "/sys/class/net/%s/device",
				   list.names[i]),
			   F_OK) != 0)
			continue;
		nic_read(root, list.names[i], live ? &et : NULL, &(*nics)[(*n)++]);
	}
	if (live)
		ps_ethtool_close(&et);
	ps_dir_free(&list);
	return 0;
}
