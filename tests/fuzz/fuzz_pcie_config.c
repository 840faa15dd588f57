/*
 * fuzz_pcie_config.c - a PCI config space dump (/sys/bus/pci/devices/X/config,
 * 64, 256 or 4096 bytes): ps_pcie_decode_config, the link it gives and
 * the link verdict (kmod/pcie_verdict.h) against a partner from the last bytes.
 */
// fuzz-sources: decode/pcie.c
#include "fuzz.h"

#include "../../kmod/pcie_verdict.h"
#include "decode/decode.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_pcie_config cfg;
	struct ps_pcie_link link;
	struct ps_pcie_link_ends e;
	enum ps_pcie_verdict v;
	int ret = ps_pcie_decode_config(data, size, &cfg);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENODATA);
	if (ret || !cfg.is_pcie) {
		FUZZ_CHECK(ret || cfg.port_type == -1);
		return 0;
	}
	FUZZ_CHECK(cfg.port_type >= 0 && cfg.port_type <= 15);
	(void)ps_pcie_port_type_name(cfg.port_type);
	if (!ps_pcie_port_type_has_link(cfg.port_type))
		return 0;
	ps_pcie_link_from_regs(cfg.lnkcap, cfg.lnksta, cfg.lnkcap2, &link);
	FUZZ_CHECK(link.cap_speed >= 0 && link.cap_speed <= PS_PCIE_SPEED_MAX);
	FUZZ_CHECK(link.sta_speed >= 0 && link.sta_speed <= PS_PCIE_SPEED_MAX);
	FUZZ_CHECK(link.cap_width >= -1 && link.cap_width <= 32);
	FUZZ_CHECK(link.sta_width >= -1 && link.sta_width <= 32);
	(void)ps_pcie_speed_gts(link.cap_speed);
	/* the partner's capability from the last bytes, as a second function would give it */
	memset(&e, 0, sizeof(e));
	e.has_link = true;
	e.training = link.training;
	e.partner_present = size > 2 && (data[size - 3] & 1);
	e.cap_speed = link.cap_speed;
	e.cap_width = link.cap_width;
	e.sta_speed = link.sta_speed;
	e.sta_width = link.sta_width;
	e.partner_speed = size ? data[size - 1] % 8 - 1 : 0;
	e.partner_width = size > 1 ? data[size - 2] % 40 - 1 : 0;
	v = ps_pcie_verdict(&e);
	FUZZ_CHECK(v >= PS_PCIE_VERDICT_NONE && v <= PS_PCIE_VERDICT_DOWN);
	/* only a degraded link loses bandwidth, and never more than the link it should have */
	FUZZ_CHECK(v == PS_PCIE_VERDICT_DEGRADED || ps_pcie_lost_kbps(&e) == 0);
	FUZZ_CHECK(ps_pcie_lost_kbps(&e) <= ps_pcie_link_kbps(PS_PCIE_GEN_MAX, 32));
	return 0;
}
