/*
 * inventory_json.c - the one serializer of the typed inventory: the
 * report's machine{}, pcie[], drives[], nics[] and memory{} (docs/report.md)
 * from struct ps_inventory. Unknown values become null.
 */
#include "hw/ata_native.h"
#include "hw/inventory.h"
#include "hw/readers.h"
#include "lib/json.h"

#include "../../kmod/pcie_fields.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void set_bool(json_object *o, const char *key, bool v)
{
	ps_json_set(o, key, json_object_new_boolean(v));
}

/* ---------------------------------------------------------------- machine -- */

void ps_machine_to_json(const struct ps_machine *m, json_object *o)
{
	ps_json_set_str(o, "id", m->id);
	ps_json_set_str(o, "vendor", m->vendor);
	ps_json_set_str(o, "product", m->product);
	ps_json_set_str(o, "serial", m->serial);
	ps_json_set_str(o, "uuid", m->uuid);
	ps_json_set_str(o, "bios_vendor", m->bios_vendor);
	ps_json_set_str(o, "bios_version", m->bios_version);
	ps_json_set_str(o, "bios_date", m->bios_date);
	ps_json_set_str(o, "board_vendor", m->board_vendor);
	ps_json_set_str(o, "board_product", m->board_product);
	ps_json_set_str(o, "cpu_model", m->cpu_model);
	ps_json_set_count(o, "cpu_logical", m->cpu_logical);
	ps_json_set_count(o, "cpu_cores", m->cpu_cores);
	ps_json_set_count(o, "cpu_packages", m->cpu_packages);
	ps_json_set_str(o, "microcode", m->microcode);
	ps_json_set_count(o, "memory_bytes", m->memory_bytes);
	ps_json_set_str(o, "kernel_cmdline", m->kernel_cmdline);
	ps_json_set_tri(o, "under_hypervisor", m->cpu_flags_known ? m->under_hypervisor : -1);
}

/* ------------------------------------------------------------------- pcie -- */

static json_object *gts(int speed)
{
	return speed > 0 ? json_object_new_double(ps_pcie_speed_gts(speed)) : NULL;
}

/* The raw Link registers as lspci -xxx shows them, for readers who decode them anew. */
static json_object *regs_json(const struct ps_pcie_regs *r)
{
	json_object *o;
	char hex[16];

	if (!r->known)
		return NULL;
	o = json_object_new_object();
	snprintf(hex, sizeof(hex), "%08x", r->lnkcap);
	ps_json_set_str(o, "lnkcap", hex);
	snprintf(hex, sizeof(hex), "%04x", r->lnkctl);
	ps_json_set_str(o, "lnkctl", hex);
	snprintf(hex, sizeof(hex), "%04x", r->lnksta);
	ps_json_set_str(o, "lnksta", hex);
	snprintf(hex, sizeof(hex), "%08x", r->lnkcap2);
	ps_json_set_str(o, "lnkcap2", hex);
	snprintf(hex, sizeof(hex), "%04x", r->lnkctl2);
	ps_json_set_str(o, "lnkctl2", hex);
	snprintf(hex, sizeof(hex), "%04x", r->lnksta2);
	ps_json_set_str(o, "lnksta2", hex);
	return o;
}

/* What the registers say beyond speed and width (pcie_fields.h); null when unread. */
static void link_fields_json(json_object *link, const struct ps_pcie_regs *r)
{
	bool v2 = r->known && r->lnkcap2 != 0;

	/* "" would read as null (unknown): no ASPM is said in words */
	ps_json_set_str(link, "aspm_supported",
			!r->known ? NULL
			: PS_LNKCAP_ASPM(r->lnkcap) == 0
			    ? "none"
			    : ps_pcie_aspm_name(PS_LNKCAP_ASPM(r->lnkcap)));
	ps_json_set_str(link, "aspm_enabled",
			!r->known ? NULL
			: PS_LNKCTL_ASPM(r->lnkctl) == 0
			    ? "disabled"
			    : ps_pcie_aspm_name(PS_LNKCTL_ASPM(r->lnkctl)));
	ps_json_set(link, "target_speed_gts",
		    v2 && PS_LNKCTL2_TARGET(r->lnkctl2) ? json_object_new_double(ps_pcie_speed_gts(
							      (int)PS_LNKCTL2_TARGET(r->lnkctl2)))
							: NULL);
	ps_json_set_tri(link, "dl_active_reporting",
			r->known ? !!(r->lnkcap & PS_LNKCAP_DLLLA_REPORT) : -1);
	/* DLActive means something only where the port reports it (LnkCap bit 20). */
	ps_json_set_tri(link, "dl_active",
			r->known && (r->lnkcap & PS_LNKCAP_DLLLA_REPORT)
			    ? !!(r->lnksta & PS_LNKSTA_DLLLA)
			    : -1);
	ps_json_set_tri(link, "bw_notification",
			r->known ? !!(r->lnkcap & PS_LNKCAP_BW_NOTIFY) : -1);
	ps_json_set_tri(
	    link, "lbms",
	    r->known && (r->lnkcap & PS_LNKCAP_BW_NOTIFY) ? !!(r->lnksta & PS_LNKSTA_LBMS) : -1);
	ps_json_set_tri(
	    link, "labs",
	    r->known && (r->lnkcap & PS_LNKCAP_BW_NOTIFY) ? !!(r->lnksta & PS_LNKSTA_LABS) : -1);
	ps_json_set(link, "registers", regs_json(r));
}

static json_object *link_json(const struct ps_pcie_fn *fn)
{
	json_object *link, *speeds;

	if (!fn->has_link)
		return NULL;
	link = json_object_new_object();
	ps_json_set(link, "cap_speed_gts", gts(fn->link.cap_speed));
	ps_json_set_count(link, "cap_width", fn->link.cap_width);
	/* a link that is down has a width of 0 and no meaningful speed */
	ps_json_set(link, "speed_gts", gts(fn->link.sta_width > 0 ? fn->link.sta_speed : 0));
	ps_json_set_count(link, "width", fn->link.sta_width);
	speeds = json_object_new_array();
	for (int s = 1; s <= PS_PCIE_SPEED_MAX; s++)
		if (fn->link.speeds & (1U << (s - 1)))
			json_object_array_add(speeds, json_object_new_double(ps_pcie_speed_gts(s)));
	ps_json_set(link, "supported_speeds_gts", speeds);
	set_bool(link, "training", fn->link.training);
	link_fields_json(link, &fn->regs);
	return link;
}

static json_object *pcie_dev_json(const struct ps_inventory *inv, const struct ps_pcie_dev *dev)
{
	const struct ps_pcie_fn *fn = &dev->fn;
	const struct ps_pcie_fn *up = dev->up_index >= 0 ? &inv->pcie[dev->up_index].fn : NULL;
	json_object *o = json_object_new_object();
	char hex[24];

	ps_json_set_str(o, "address", fn->address);
	ps_json_set_str(o, "id", dev->id);
	snprintf(hex, sizeof(hex), "%04x", fn->vendor);
	ps_json_set_str(o, "vendor_id", fn->ids_known ? hex : NULL);
	snprintf(hex, sizeof(hex), "%04x", fn->device);
	ps_json_set_str(o, "device_id", fn->ids_known ? hex : NULL);
	snprintf(hex, sizeof(hex), "%06x", fn->class);
	ps_json_set_str(o, "class", fn->ids_known ? hex : NULL);
	ps_json_set_str(o, "vendor_name", fn->vendor_name);
	ps_json_set_str(o, "device_name", fn->device_name);
	ps_json_set_str(o, "class_name", fn->class_name);
	ps_json_set_str(o, "driver", fn->driver);
	set_bool(o, "is_pcie", fn->is_pcie);
	ps_json_set_str(o, "port_type", fn->is_pcie ? ps_pcie_port_type_name(fn->port_type) : NULL);
	ps_json_set(o, "link", link_json(fn));
	if (fn->upstream[0]) {
		json_object *u = json_object_new_object();
		bool known = up && up->has_link;

		ps_json_set_str(u, "address", fn->upstream);
		ps_json_set(u, "cap_speed_gts", gts(known ? up->link.cap_speed : 0));
		ps_json_set_count(u, "cap_width", known ? up->link.cap_width : -1);
		ps_json_set(u, "registers", regs_json(&fn->up_regs));
		ps_json_set(o, "upstream", u);
	} else {
		ps_json_set(o, "upstream", NULL);
	}
	ps_json_set_str(o, "verdict", ps_link_verdict_name(dev->verdict));
	ps_json_set_num(o, "lost_gbps", dev->lost_gbps, 3);
	/* kept for readers of schema 1: the verdict "degraded" */
	set_bool(o, "downgraded", dev->verdict == PS_LINK_DEGRADED);
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)fn->dsn);
	ps_json_set_str(o, "dsn", fn->dsn ? hex : NULL);
	ps_json_set_str(o, "source", fn->source);
	return o;
}

void ps_pcie_to_json(const struct ps_inventory *inv, json_object *pcie)
{
	for (size_t i = 0; i < inv->n_pcie; i++)
		json_object_array_add(pcie, pcie_dev_json(inv, &inv->pcie[i]));
}

/* ----------------------------------------------------------------- drives -- */

static json_object *ata_json(const struct ps_drive *d)
{
	static const double gbps[3] = {1.5, 3.0, 6.0};
	json_object *o, *gens;

	if (!d->has_ata)
		return NULL;
	o = json_object_new_object();
	ps_json_set_tri(o, "ncq", d->ata.ncq);
	ps_json_set_count(o, "queue_depth", d->ata.queue_depth);
	gens = json_object_new_array();
	for (int g = 0; g < 3; g++)
		if (d->ata.sata_gens & (1U << g))
			json_object_array_add(gens, ps_json_new_num(gbps[g], 1));
	ps_json_set(o, "sata_speeds_gbps", d->ata.sata_gens ? gens : NULL);
	if (!d->ata.sata_gens)
		json_object_put(gens);
	ps_json_set_num(o, "sata_speed_gbps", d->ata.sata_gen ? gbps[d->ata.sata_gen - 1] : NAN, 1);
	ps_json_set_tri(o, "trim", d->ata.trim);
	ps_json_set_count(o, "sectors", d->ata.sectors);
	ps_json_set_count(o, "logical_sector", d->ata.logical_sector);
	ps_json_set_count(o, "physical_sector", d->ata.physical_sector);
	ps_json_set_str(o, "form_factor", d->ata.form_factor);
	ps_json_set_tri(o, "checksum_ok", d->ata.checksum_ok);
	return o;
}

static json_object *drive_json(const struct ps_drive *d)
{
	json_object *o = json_object_new_object();

	ps_json_set_str(o, "name", d->name);
	ps_json_set_str(o, "id", d->id);
	ps_json_set_str(o, "path", d->path);
	ps_json_set_str(o, "vendor", d->vendor);
	ps_json_set_str(o, "model", d->model);
	ps_json_set_str(o, "serial", d->serial);
	ps_json_set_str(o, "serial_source", d->serial_source);
	ps_json_set_str(o, "firmware", d->firmware);
	ps_json_set_str(o, "identity_source", d->identity_source);
	ps_json_set_str(o, "wwn", d->wwn);
	ps_json_set_count(o, "size_bytes", d->size_bytes);
	ps_json_set_count(o, "logical_sector", d->logical_sector);
	ps_json_set_count(o, "physical_sector", d->physical_sector);
	ps_json_set_tri(o, "rotational", d->rotational);
	ps_json_set_count(o, "rotation_rpm", d->rotation_rpm);
	ps_json_set_str(o, "rotation_source", d->rotation_source);
	ps_json_set_tri(o, "removable", d->removable);
	ps_json_set_str(o, "transport", ps_transport_name(d->transport));
	ps_json_set_str(o, "link", d->link);
	ps_json_set_count(o, "queue_depth", d->queue_depth);
	ps_json_set_str(o, "pci_address", d->pci_address);
	ps_json_set_str(o, "usb_path", d->usb_path);
	set_bool(o, "boot_device", d->boot_device);
	ps_json_set(o, "ata", ata_json(d));
	ps_json_set(o, "capacity", ps_ata_capacity_json(&d->capacity));
	return o;
}

void ps_drives_to_json(const struct ps_inventory *inv, json_object *drives)
{
	for (size_t i = 0; i < inv->n_drives; i++)
		json_object_array_add(drives, drive_json(&inv->drives[i]));
}

/* ------------------------------------------------------------------- nics -- */

static json_object *fields_json(const void *base, const struct ps_eth_field *f, size_t n)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < n; i++) {
		const char *p = (const char *)base + f[i].offset;

		if (f[i].tri)
			ps_json_set_tri(o, f[i].key, *(const ps_tri *)p);
		else
			ps_json_set_count(o, f[i].key, *(const int *)p);
	}
	return o;
}

/*
 * Link modes proper ("1000baseT/Full") of a set, or (modes false) the other
 * bits ethtool keeps beside them: ports ("TP"), "Autoneg", "Pause", FEC.
 */
static json_object *mode_list(const struct ps_eth_modes *m, const uint32_t *set, bool modes)
{
	json_object *a = json_object_new_array();

	for (unsigned int b = 0; b < PS_ETH_MODE_BITS; b++) {
		const char *name = m->names[b];
		char unnamed[24];

		if (!ps_eth_mode_test(set, b))
			continue;
		if (!name[0]) {
			snprintf(unnamed, sizeof(unnamed), "bit%u",
				 b); /* a compact reply: no names */
			name = unnamed;
		}
		if ((strstr(name, "base") != NULL) == modes)
			json_object_array_add(a, ps_json_new_str(name));
	}
	return a;
}

static json_object *modes_json(const struct ps_nic *n)
{
	const struct ps_eth_modes *m = &n->modes;
	json_object *o;

	if (!m->known)
		return NULL;
	o = json_object_new_object();
	ps_json_set(o, "supported", mode_list(m, m->supported, true));
	ps_json_set(o, "advertised", mode_list(m, m->advertised, true));
	ps_json_set(o, "partner", m->partner_known ? mode_list(m, m->partner, true) : NULL);
	ps_json_set(o, "supported_other", mode_list(m, m->supported, false));
	ps_json_set(o, "advertised_other", mode_list(m, m->advertised, false));
	ps_json_set(o, "partner_other", m->partner_known ? mode_list(m, m->partner, false) : NULL);
	ps_json_set_count(o, "lanes", m->lanes);
	return o;
}

static json_object *link_state_json(const struct ps_eth_state *s)
{
	json_object *o;

	if (!s->known)
		return NULL;
	o = json_object_new_object();
	ps_json_set_tri(o, "link", s->link);
	ps_json_set_count(o, "sqi", s->sqi);
	ps_json_set_count(o, "sqi_max", s->sqi_max);
	ps_json_set_count(o, "ext_state", s->ext_state);
	ps_json_set_count(o, "ext_substate", s->ext_substate);
	return o;
}

static json_object *pause_json(const struct ps_eth_pause *p)
{
	json_object *o;

	if (!p->known)
		return NULL;
	o = json_object_new_object();
	ps_json_set_tri(o, "autoneg", p->autoneg);
	ps_json_set_tri(o, "rx", p->rx);
	ps_json_set_tri(o, "tx", p->tx);
	return o;
}

/* The offloads that are on, by ethtool's names ("rx-checksum", "tx-tcp-segmentation"). */
json_object *ps_nic_offloads_json(const struct ps_eth_features *f)
{
	json_object *a;

	if (!f->known)
		return NULL;
	a = json_object_new_array();
	for (unsigned int b = 0; b < PS_ETH_MODE_BITS; b++)
		if (ps_eth_mode_test(f->active, b) && f->names[b][0])
			json_object_array_add(a, ps_json_new_str(f->names[b]));
	return a;
}

/* The standard counters, by the kernel's names; null when the kernel gave none. */
json_object *ps_nic_stats_json(const struct ps_eth_stats *st)
{
	json_object *o;

	if (!st->known)
		return NULL;
	o = json_object_new_object();
	for (int i = 0; i < PS_ETH_NSTATS; i++)
		ps_json_set(o, ps_eth_stat_names[i], json_object_new_int64((int64_t)st->v[i]));
	return o;
}

static json_object *nic_json(const struct ps_nic *n)
{
	json_object *o = json_object_new_object();

	ps_json_set_str(o, "name", n->name);
	ps_json_set_str(o, "id", n->id);
	ps_json_set_str(o, "driver", n->driver);
	ps_json_set_str(o, "firmware", n->firmware);
	ps_json_set_str(o, "bus_info", n->bus_info);
	ps_json_set_str(o, "mac", n->mac);
	ps_json_set_str(o, "perm_mac", n->perm_mac);
	ps_json_set_str(o, "operstate", n->operstate);
	ps_json_set_tri(o, "carrier", n->carrier);
	ps_json_set_count(o, "carrier_changes", n->carrier_changes);
	ps_json_set_count(o, "speed_mbps", n->speed_mbps);
	ps_json_set_str(o, "duplex", n->duplex);
	ps_json_set_tri(o, "autoneg", n->autoneg);
	ps_json_set(o, "link_modes", modes_json(n));
	ps_json_set(o, "link_state", link_state_json(&n->link_state));
	ps_json_set_count(o, "mtu", n->mtu);
	ps_json_set_count(o, "min_mtu", n->min_mtu);
	ps_json_set_count(o, "max_mtu", n->max_mtu);
	ps_json_set_count(o, "rx_queues", n->rx_queues);
	ps_json_set_count(o, "tx_queues", n->tx_queues);
	ps_json_set(o, "channels",
		    n->channels.known
			? fields_json(&n->channels, ps_channels_fields, ps_channels_nfields)
			: NULL);
	ps_json_set_count(o, "msix_vectors", n->msix_vectors);
	ps_json_set_str(o, "pci_address", n->pci_address);
	ps_json_set(o, "rings",
		    n->rings.known ? fields_json(&n->rings, ps_rings_fields, ps_rings_nfields)
				   : NULL);
	ps_json_set(o, "coalesce",
		    n->has_coalesce
			? fields_json(&n->coalesce, ps_coalesce_fields, ps_coalesce_nfields)
			: NULL);
	ps_json_set(o, "pause", pause_json(&n->pause));
	ps_json_set(o, "offloads", ps_nic_offloads_json(&n->features));
	ps_json_set(o, "counters", ps_nic_stats_json(&n->stats));
	return o;
}

void ps_nics_to_json(const struct ps_inventory *inv, json_object *nics)
{
	for (size_t i = 0; i < inv->n_nics; i++)
		json_object_array_add(nics, nic_json(&inv->nics[i]));
}

/* ----------------------------------------------------------------- memory -- */

static json_object *dimm_json(const struct ps_dimm_slot *s)
{
	const struct ps_dimm *d = &s->d;
	json_object *o = json_object_new_object();
	bool pop = d->populated;

	ps_json_set_str(o, "locator", d->locator);
	ps_json_set_str(o, "id", s->id);
	ps_json_set_str(o, "bank", d->bank);
	ps_json_set_str(o, "channel", s->channel);
	ps_json_set_count(o, "handle", (int64_t)d->handle);
	set_bool(o, "populated", pop);
	set_bool(o, "system_memory", s->ram);
	ps_json_set_count(o, "size_bytes", d->size_bytes);
	ps_json_set_str(o, "type", pop ? d->type : NULL);
	ps_json_set_str(o, "form_factor", d->form_factor);
	ps_json_set_count(o, "speed_mts", pop ? d->speed_mts : -1);
	ps_json_set_count(o, "configured_speed_mts", pop ? d->configured_speed_mts : -1);
	ps_json_set_count(o, "rank", pop ? d->rank : -1);
	ps_json_set_count(o, "total_width", pop ? d->total_width : -1);
	ps_json_set_count(o, "data_width", pop ? d->data_width : -1);
	/* ECC: the device carries more bits than data (72 of 64, 80 of 64 for DDR5) */
	ps_json_set_tri(
	    o, "ecc",
	    pop && d->total_width > 0 && d->data_width > 0 ? d->total_width > d->data_width : -1);
	ps_json_set_count(o, "configured_voltage_mv", pop ? d->configured_voltage_mv : -1);
	ps_json_set_str(o, "manufacturer", d->manufacturer);
	ps_json_set_str(o, "part_number", d->part_number);
	ps_json_set_str(o, "serial", d->serial);
	return o;
}

static const char *ddr_name(unsigned int code)
{
	switch (code) {
	case PROBESTICK_IMC_DDR3:
		return "DDR3";
	case PROBESTICK_IMC_DDR4:
		return "DDR4";
	case PROBESTICK_IMC_DDR5:
		return "DDR5";
	case PROBESTICK_IMC_LPDDR3:
		return "LPDDR3";
	case PROBESTICK_IMC_LPDDR4:
		return "LPDDR4";
	case PROBESTICK_IMC_LPDDR5:
		return "LPDDR5";
	default:
		return NULL;
	}
}

static json_object *imc_json(const struct ps_imc *imc)
{
	json_object *o, *chs;
	char hex[16];

	if (!imc->read)
		return NULL;
	o = json_object_new_object();
	ps_json_set_str(o, "family", imc->family);
	ps_json_set_str(o, "reason", imc->status ? imc->reason : NULL);
	ps_json_set_count(o, "cpu_family", imc->cpu_family);
	ps_json_set_count(o, "cpu_model", imc->cpu_model);
	chs = json_object_new_array();
	for (size_t i = 0; i < imc->n; i++) {
		const struct probestick_imc_channel *c = &imc->ch[i];
		json_object *ch = json_object_new_object(), *dimms = json_object_new_array(),
			    *regs = json_object_new_array();
		char name[16];

		snprintf(name, sizeof(name), "%u.%u", c->controller, c->channel);
		ps_json_set_str(ch, "channel", name);
		ps_json_set_count(ch, "controller", c->controller);
		ps_json_set_count(ch, "index", c->channel);
		set_bool(ch, "present", c->flags & PROBESTICK_IMC_CH_PRESENT);
		set_bool(ch, "populated", c->flags & PROBESTICK_IMC_CH_POPULATED);
		ps_json_set_str(ch, "type", ddr_name(c->ddr));
		ps_json_set_tri(ch, "ecc",
				(c->flags & PROBESTICK_IMC_CH_ECC_KNOWN)
				    ? !!(c->flags & PROBESTICK_IMC_CH_ECC)
				    : -1);
		for (int d = 0; d < PROBESTICK_IMC_MAX_DIMMS; d++) {
			json_object *dm = json_object_new_object();

			set_bool(dm, "present", c->dimms[d].present);
			ps_json_set_count(dm, "size_bytes",
					  c->dimms[d].size_mib ? (int64_t)c->dimms[d].size_mib << 20
							       : -1);
			ps_json_set_count(dm, "ranks", c->dimms[d].ranks ? c->dimms[d].ranks : -1);
			ps_json_set_count(dm, "width", c->dimms[d].width ? c->dimms[d].width : -1);
			json_object_array_add(dimms, dm);
		}
		ps_json_set(ch, "dimms", dimms);
		for (int r = 0; r < 4; r++) {
			snprintf(hex, sizeof(hex), "%08x", c->regs[r]);
			json_object_array_add(regs, ps_json_new_str(hex));
		}
		ps_json_set(ch, "registers", regs);
		json_object_array_add(chs, ch);
	}
	ps_json_set(o, "channels", chs);
	return o;
}

static json_object *edac_json(const struct ps_edac *e)
{
	json_object *o, *mcs, *dimms;

	if (!e->present)
		return NULL;
	o = json_object_new_object();
	mcs = json_object_new_array();
	for (size_t i = 0; i < e->n_mcs; i++) {
		json_object *m = json_object_new_object();

		ps_json_set_count(m, "mc", e->mcs[i].mc);
		ps_json_set_str(m, "name", e->mcs[i].name);
		ps_json_set_count(m, "size_mb", e->mcs[i].size_mb);
		ps_json_set_count(m, "ce", e->mcs[i].ce);
		ps_json_set_count(m, "ue", e->mcs[i].ue);
		ps_json_set_count(m, "ce_noinfo", e->mcs[i].ce_noinfo);
		ps_json_set_count(m, "ue_noinfo", e->mcs[i].ue_noinfo);
		json_object_array_add(mcs, m);
	}
	ps_json_set(o, "controllers", mcs);
	dimms = json_object_new_array();
	for (size_t i = 0; i < e->n_dimms; i++) {
		const struct ps_edac_dimm *d = &e->dimms[i];
		json_object *m = json_object_new_object();

		ps_json_set_count(m, "mc", d->mc);
		ps_json_set_str(m, "name", d->name);
		ps_json_set_str(m, "label", d->label);
		ps_json_set_str(m, "location", d->location);
		ps_json_set_count(m, "size_mb", d->size_mb);
		ps_json_set_str(m, "mem_type", d->mem_type);
		ps_json_set_str(m, "edac_mode", d->edac_mode);
		ps_json_set_count(m, "ce", d->ce);
		ps_json_set_count(m, "ue", d->ue);
		json_object_array_add(dimms, m);
	}
	ps_json_set(o, "dimms", dimms);
	return o;
}

void ps_memory_to_json(const struct ps_memory *m, json_object *o)
{
	json_object *dimms = json_object_new_array();

	ps_json_set_count(o, "total_bytes", m->total_bytes);
	ps_json_set_count(o, "slots_total", m->slots_total);
	ps_json_set_count(o, "slots_populated", m->slots_populated);
	ps_json_set_str(o, "source", m->source);
	ps_json_set_count(o, "channels_smbios", m->channels_smbios);
	ps_json_set_count(o, "channels_present", m->channels_present);
	ps_json_set_count(o, "channels_populated", m->channels_imc);
	for (size_t i = 0; i < m->n_dimms; i++)
		json_object_array_add(dimms, dimm_json(&m->dimms[i]));
	ps_json_set(o, "dimms", dimms);
	ps_json_set(o, "imc", imc_json(&m->imc));
	ps_json_set(o, "edac", edac_json(&m->edac));
}

/* ------------------------------------------------------------------ whole -- */

void ps_inventory_json(const struct ps_inventory *inv, json_object *report)
{
	ps_machine_to_json(&inv->machine, ps_json_reset_obj(report, "machine"));
	ps_pcie_to_json(inv, ps_json_reset_arr(report, "pcie"));
	ps_drives_to_json(inv, ps_json_reset_arr(report, "drives"));
	ps_nics_to_json(inv, ps_json_reset_arr(report, "nics"));
	ps_memory_to_json(&inv->memory, ps_json_reset_obj(report, "memory"));
}
