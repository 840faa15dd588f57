/*
 * nics.c - nics[] of the report: every physical network interface with its
 * link state, queues and interrupt vectors from sysfs, and firmware, autoneg
 * and interrupt coalescing from the ethtool ioctls on a live system.
 */
#include "decode.h"
#include "probe_util.h"
#include "probes.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int ethtool(int sock, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(sock, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* Autoneg from GLINKSETTINGS (two-call handshake for the mask size), else GSET. */
static int ethtool_autoneg(int sock, const char *ifname)
{
	struct {
		struct ethtool_link_settings req;
		__u32 masks[3 * 127]; /* the kernel's upper bound on mask words */
	} ls;
	struct ethtool_cmd cmd;

	memset(&ls, 0, sizeof(ls));
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	if (ethtool(sock, ifname, &ls) == 0 && ls.req.link_mode_masks_nwords < 0) {
		__s8 nwords = (__s8)-ls.req.link_mode_masks_nwords;

		memset(&ls, 0, sizeof(ls));
		ls.req.cmd = ETHTOOL_GLINKSETTINGS;
		ls.req.link_mode_masks_nwords = nwords;
		if (ethtool(sock, ifname, &ls) == 0 && ls.req.link_mode_masks_nwords > 0)
			return ls.req.autoneg == AUTONEG_ENABLE;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.cmd = ETHTOOL_GSET;
	if (ethtool(sock, ifname, &cmd) == 0)
		return cmd.autoneg == AUTONEG_ENABLE;
	return -1;
}

static json_object *ethtool_coalesce(int sock, const char *ifname)
{
	struct ethtool_coalesce c;
	json_object *o;

	memset(&c, 0, sizeof(c));
	c.cmd = ETHTOOL_GCOALESCE;
	if (ethtool(sock, ifname, &c) < 0)
		return NULL; /* EOPNOTSUPP: the driver has no coalescing knobs */
	o = json_object_new_object();
	json_object_object_add(o, "rx_usecs", json_object_new_int64(c.rx_coalesce_usecs));
	json_object_object_add(o, "rx_frames", json_object_new_int64(c.rx_max_coalesced_frames));
	json_object_object_add(o, "tx_usecs", json_object_new_int64(c.tx_coalesce_usecs));
	json_object_object_add(o, "tx_frames", json_object_new_int64(c.tx_max_coalesced_frames));
	json_object_object_add(o, "adaptive_rx",
			       json_object_new_boolean(c.use_adaptive_rx_coalesce != 0));
	json_object_object_add(o, "adaptive_tx",
			       json_object_new_boolean(c.use_adaptive_tx_coalesce != 0));
	return o;
}

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
		return -1;
	base++;
	if (ps_is_pci_address(base, strlen(base))) {
		dirlen = strlen(devreal);
	} else if (strncmp(base, "virtio", 6) == 0) {
		dirlen = (size_t)(base - 1 - devreal);
	} else {
		return -1;
	}
	if (snprintf(path, sizeof(path), "%.*s/msi_irqs", (int)dirlen, devreal) >=
	    (int)sizeof(path))
		return -1;
	return ps_dir_count(path, "");
}

static json_object *nic_json(const char *root, const char *name, int sock)
{
	char path[PATH_MAX], real[PATH_MAX], buf[128], pci[32] = "";
	json_object *o = json_object_new_object();
	int64_t v;
	int n, q;

	json_object_object_add(o, "name", json_object_new_string(name));
	if (ps_link_name(ps_path(path, sizeof(path), root, "/sys/class/net/%s/device/driver", name),
			 buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	ps_json_add_str(o, "driver", buf);
	json_object_object_add(o, "firmware", NULL);
	if (sock >= 0) {
		struct ethtool_drvinfo info;

		memset(&info, 0, sizeof(info));
		info.cmd = ETHTOOL_GDRVINFO;
		if (ethtool(sock, name, &info) == 0) {
			info.fw_version[sizeof(info.fw_version) - 1] = '\0';
			ps_json_add_str(o, "firmware", info.fw_version);
		}
	}
	ps_json_add_file(o, "mac",
			 ps_path(path, sizeof(path), root, "/sys/class/net/%s/address", name));
	ps_json_add_file(o, "operstate",
			 ps_path(path, sizeof(path), root, "/sys/class/net/%s/operstate", name));
	/* carrier and speed of an interface that is down read as EINVAL */
	n = ps_read_s64(ps_path(path, sizeof(path), root, "/sys/class/net/%s/carrier", name), &v);
	json_object_object_add(o, "carrier",
			       n == 0 && (v == 0 || v == 1) ? json_object_new_boolean(v) : NULL);
	n = ps_read_s64(ps_path(path, sizeof(path), root, "/sys/class/net/%s/speed", name), &v);
	ps_json_add_int(o, "speed_mbps", n == 0 ? v : -1);
	n = ps_read_str(ps_path(path, sizeof(path), root, "/sys/class/net/%s/duplex", name), buf,
			sizeof(buf));
	ps_json_add_str(o, "duplex",
			n > 0 && (strcmp(buf, "full") == 0 || strcmp(buf, "half") == 0) ? buf
											: NULL);
	json_object_object_add(o, "autoneg", NULL);
	if (sock >= 0) {
		int a = ethtool_autoneg(sock, name);

		json_object_object_add(o, "autoneg", a >= 0 ? json_object_new_boolean(a) : NULL);
	}
	n = ps_read_s64(ps_path(path, sizeof(path), root, "/sys/class/net/%s/mtu", name), &v);
	ps_json_add_int(o, "mtu", n == 0 ? v : -1);
	ps_path(path, sizeof(path), root, "/sys/class/net/%s/queues", name);
	q = ps_dir_count(path, "rx-");
	ps_json_add_int(o, "rx_queues", q);
	q = ps_dir_count(path, "tx-");
	ps_json_add_int(o, "tx_queues", q);
	ps_path(path, sizeof(path), root, "/sys/class/net/%s/device", name);
	if (realpath(path, real)) {
		ps_json_add_int(o, "msix_vectors", msi_vectors(real));
		ps_pci_ancestor(real, 0, pci, sizeof(pci));
	} else {
		ps_json_add_int(o, "msix_vectors", -1);
	}
	ps_json_add_str(o, "pci_address", pci);
	json_object_object_add(o, "coalesce", sock >= 0 ? ethtool_coalesce(sock, name) : NULL);
	return o;
}

int ps_probe_nics(const char *root, json_object *nics)
{
	char path[PATH_MAX];
	struct ps_dirlist list;
	int sock = -1;
	int r = ps_dir_list(ps_path(path, sizeof(path), root, "/sys/class/net"), &list);

	if (r < 0)
		return r;
	/* ethtool talks to the running kernel: only meaningful on the live system */
	if (!root || !root[0])
		sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (size_t i = 0; i < list.n; i++) {
		/* only interfaces backed by a device: no lo, veth, bridge, bond, tun */
		if (access(ps_path(path, sizeof(path), root, "/sys/class/net/%s/device",
				   list.names[i]),
			   F_OK) != 0)
			continue;
		json_object_array_add(nics, nic_json(root, list.names[i], sock));
	}
	if (sock >= 0)
		close(sock);
	ps_dir_free(&list);
	return 0;
}
