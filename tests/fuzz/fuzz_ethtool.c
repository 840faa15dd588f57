/*
 * fuzz_ethtool.c - the replies of one interface's ethtool netlink and
 * rtnetlink queries (hw/ethtool.c's pure parsers, nlmsghdr onwards), merged
 * into the inventory's NIC as the live reader merges them
 * (ps_nic_apply_ethtool) and serialized as report.json's nics[].
 * Input: up to ten replies, each a 16-bit little-endian length and that
 * many bytes, in the order of parsers[] below (a missing one is an empty
 * reply); tests/fuzz/make-seeds.sh packs the recorded replies so.
 */
// fuzz-sources: hw/ethtool.c hw/nics.c hw/inventory_json.c hw/hw_util.c decode/sysfs_path.c
// fuzz-sources: hw/edac.c decode/memory_channel.c hw/pci_names.c lib/store.c decode/pcie.c
// fuzz-sources: hw/inventory.c hw/identity.c hw/pcie.c hw/drives.c decode/ata_identify.c
// fuzz-sources: decode/ata_link.c hw/machine.c decode/machine_id_rule.c hw/memory.c
// fuzz-sources: decode/smbios17.c hw/environment.c lib/json.c lib/util.c decode/memory_array.c
// fuzz-sources: lib/redact.c
// fuzz-sources: decode/ata_capacity.c hw/ata_native.c
#include "fuzz.h"

#include "hw/ethtool.h"
#include "hw/readers.h"

#include <errno.h>

/* A field the parser fills ends within its room. */
#define TERMINATED(field) FUZZ_CHECK(memchr(field, '\0', sizeof(field)) != NULL)

static void check_mac(const char *mac)
{
	size_t n = strnlen(mac, 18);

	FUZZ_CHECK(n < 18);
	FUZZ_CHECK(n == 0 || n == 17);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(i % 3 == 2 ? mac[i] == ':' : strchr("0123456789abcdef", mac[i]) != NULL);
}

static void check_ret(int ret)
{
	/* 0, the kernel's errno from an NLMSG_ERROR, or -EINVAL/-EPROTO */
	FUZZ_CHECK(ret <= 0 && ret >= -4095);
}

/*
 * The next reply, in a buffer of its own as a recv() into malloc'ed memory
 * gives it (aligned, and ASan sees a read past its end); free() it.
 */
static uint8_t *next(const uint8_t **p, size_t *left, size_t *len)
{
	uint8_t *msg;
	size_t n = 0;

	if (*left >= 2) {
		n = (size_t)(*p)[0] | (size_t)(*p)[1] << 8;
		if (n > *left - 2)
			n = *left - 2;
		*p += 2;
		*left -= 2;
	}
	msg = malloc(n ? n : 1);
	FUZZ_CHECK(msg);
	memcpy(msg, *p, n);
	*p += n;
	*left -= n;
	*len = n;
	return msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_eth_info e;
	static struct ps_nic nic;
	struct ps_inventory inv = {.nics = &nic, .n_nics = 1};
	uint8_t *msg;
	json_object *nics;
	size_t len;
	int ret;

	memset(&e, 0, sizeof(e));
	msg = next(&data, &size, &len);
	check_ret(e.err[PS_ETH_LINKMODES] = ps_ethtool_parse_linkmodes(msg, len, &e.modes));
	FUZZ_CHECK(e.modes.speed_mbps >= PS_UNKNOWN && e.modes.lanes >= PS_UNKNOWN);
	FUZZ_CHECK(!strcmp(e.modes.duplex, "") || !strcmp(e.modes.duplex, "full") ||
		   !strcmp(e.modes.duplex, "half"));
	for (unsigned int b = 0; b < PS_ETH_MODE_BITS; b++)
		TERMINATED(e.modes.names[b]);
	free(msg);
	msg = next(&data, &size, &len);
	check_ret(e.err[PS_ETH_LINKSTATE] = ps_ethtool_parse_linkstate(msg, len, &e.state));
	free(msg);
	msg = next(&data, &size, &len);
	check_ret(e.err[PS_ETH_RINGS] = ps_ethtool_parse_rings(msg, len, &e.rings));
	free(msg);
	msg = next(&data, &size, &len);
	check_ret(e.err[PS_ETH_CHANNELS] = ps_ethtool_parse_channels(msg, len, &e.channels));
	free(msg);
	msg = next(&data, &size, &len);
	check_ret(e.err[PS_ETH_COALESCE] = ps_ethtool_parse_coalesce(msg, len, &e.coalesce));
	e.has_coalesce = e.err[PS_ETH_COALESCE] == 0;
	free(msg);
	msg = next(&data, &size, &len);
	check_ret(e.err[PS_ETH_PAUSE] = ps_ethtool_parse_pause(msg, len, &e.pause));
	free(msg);
	msg = next(&data, &size, &len);
	check_ret(e.err[PS_ETH_RTLINK] = ps_rtnl_parse_link(msg, len, &e.rtlink));
	check_mac(e.rtlink.mac);
	check_mac(e.rtlink.perm_mac);
	FUZZ_CHECK(e.rtlink.mtu >= PS_UNKNOWN && e.rtlink.max_mtu >= PS_UNKNOWN);
	free(msg);
	msg = next(&data, &size, &len);
	ret = ps_genl_parse_family(msg, len);
	free(msg);
	FUZZ_CHECK(ret > 0 ? ret <= 0xffff : ret >= -4095);
	/* the features reply (bitsets as linkmodes has them) and a set's acknowledgement */
	msg = next(&data, &size, &len);
	check_ret(e.err[PS_ETH_FEATURES] = ps_ethtool_parse_features(msg, len, &e.features));
	for (unsigned int b = 0; b < PS_ETH_MODE_BITS; b++)
		TERMINATED(e.features.names[b]);
	FUZZ_CHECK(e.err[PS_ETH_FEATURES] == 0 || !e.features.known);
	free(msg);
	msg = next(&data, &size, &len);
	check_ret(ps_netlink_parse_ack(msg, len));
	free(msg);

	/* what the live reader has from sysfs, then what ethtool adds */
	ps_nic_unknown(&nic);
	snprintf(nic.name, sizeof(nic.name), "eth0");
	snprintf(nic.id, sizeof(nic.id), "nic:52:54:00:50:00:01");
	ps_nic_apply_ethtool(&nic, &e);
	FUZZ_CHECK(nic.speed_mbps >= PS_UNKNOWN);
	TERMINATED(nic.perm_mac);
	TERMINATED(nic.duplex);
	nics = json_object_new_array();
	ps_nics_to_json(&inv, nics);
	fuzz_dump(nics);
	fuzz_check_strings(nics);
	json_object_put(nics);
	return 0;
}
