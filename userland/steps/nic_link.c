/*
 * nic_link.c - every port's link as the plan leaves it: driver, firmware,
 * negotiation against the link partner, queues, rings, offloads,
 * coalescing, pause; the error and drop counters and the carrier changes
 * over the plan (the inventory is the plan's start, this step its end),
 * with the changes the plan's own steps made set apart.
 */
/* clang-format off */
//config:config STEP_NIC_LINK
//config:	bool "nic_link: every port's link, negotiation, settings and counters"
//config:	default y
//config:	help
//config:	  Reads every physical port through ethtool netlink at the end
//config:	  of the plan: driver, firmware, bus, permanent MAC, carrier,
//config:	  speed, duplex, autonegotiation with the advertised and the
//config:	  link partner's modes, MTU, queues and MSI-X vectors, rings,
//config:	  offloads, coalescing and pause; the error and drop counters
//config:	  and carrier changes since the inventory. A link below the best
//config:	  mode both ends support (a gigabit port at 100 Mb/s: a bad
//config:	  cable) is a warning. Sends nothing.
//kbuild:step-$(CONFIG_STEP_NIC_LINK) += nic_link.o
/* clang-format on */

#include "core/step.h"
#include "engines/net/ports.h"
#include "hw/ethtool.h"
#include "lib/json.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_VERSION 2 /* 2: rx_queues, tx_queues, offloads_on, offloads_main for 1's texts */

/* ---- the result: data{} as a struct, described once ---- */

struct pause_row {
	ps_tri autoneg, rx, tx;
};

struct link_row {
	char name[IF_NAMESIZE];
	const char *device;
	char driver[32], firmware[64], bus_info[32], perm_mac[18]; /* "" unknown */
	ps_tri carrier, autoneg;
	int speed_mbps;			   /* -1 unknown, and without link */
	char duplex[8];			   /* "" without link */
	json_object *advertised, *partner; /* the link modes' names, NULL unknown */
	int best_common_mbps;
	const char *link, *link_down_reason;
	int mtu, max_mtu, rx_queues, tx_queues, msix_vectors;
	json_object *channels, *rings, *coalesce; /* the driver's fields (hw/ethtool.h), NULL */
	json_object *offloads;			  /* every offload that is on, NULL unknown */
	int offloads_on;			  /* how many, -1 unknown */
	json_object *offloads_main;		  /* the main ones among them */
	struct pause_row *pause;
	json_object *counters; /* per kernel counter: before, after, delta */
	int64_t errors, drops, crc_errors, rx_packets, tx_packets; /* deltas, -1 unknown */
	int carrier_changes, carrier_changes_by_plan, carrier_changes_unexplained;
	json_object *changed; /* settings the plan left different */
};

struct link_result {
	struct link_row *ports;
	size_t n_ports;
};

#define NAMES_SCHEMA "{\"type\": [\"array\", \"null\"], \"items\": {\"type\": \"string\"}}"
#define FIELDS_SCHEMA                                                                              \
	"{\"type\": [\"object\", \"null\"], \"additionalProperties\": {\"type\": [\"integer\", "   \
	"\"boolean\", \"null\"]}}"
#define COUNTERS_SCHEMA                                                                            \
	"{\"type\": [\"object\", \"null\"], \"additionalProperties\": {\"type\": \"object\", "     \
	"\"properties\": {\"before\": {\"type\": \"integer\"}, \"after\": {\"type\": "             \
	"\"integer\"}, "                                                                           \
	"\"delta\": {\"type\": [\"integer\", \"null\"]}}, \"additionalProperties\": false}}"

static const struct ps_field pause_f[] = {
    PS_FIELD(struct pause_row, autoneg, "autoneg", .flags = PS_FLD_NULL),
    PS_FIELD(struct pause_row, rx, "rx", .flags = PS_FLD_NULL),
    PS_FIELD(struct pause_row, tx, "tx", .flags = PS_FLD_NULL),
};
static const struct ps_fields pause_fields = PS_FIELDS(struct pause_row, pause_f);

static const char *const link_states[] = {
    "up, at both ends' best", "up", "below both ends' best", "half duplex", "down", "gone", NULL};

#define N(m, nm, ...) PS_FIELD(struct link_row, m, nm, .flags = PS_FLD_NULL, __VA_ARGS__)
static const struct ps_field link_f[] = {
    PS_FIELD(struct link_row, name, "name"),
    N(device, "device"),
    N(driver, "driver"),
    N(firmware, "firmware"),
    N(bus_info, "bus_info"),
    N(perm_mac, "perm_mac"),
    N(carrier, "carrier"),
    N(speed_mbps, "speed_mbps", .unit = "Mb/s"),
    N(duplex, "duplex"),
    N(autoneg, "autoneg"),
    N(advertised, "advertised", .schema = NAMES_SCHEMA),
    N(partner, "partner", .schema = NAMES_SCHEMA),
    N(best_common_mbps, "best_common_mbps", .unit = "Mb/s"),
    PS_FIELD(struct link_row, link, "link", .names = link_states),
    N(link_down_reason, "link_down_reason"),
    N(mtu, "mtu", .unit = "bytes"),
    N(max_mtu, "max_mtu", .unit = "bytes"),
    N(rx_queues, "rx_queues"),
    N(tx_queues, "tx_queues"),
    N(msix_vectors, "msix_vectors"),
    N(channels, "channels", .schema = FIELDS_SCHEMA),
    N(rings, "rings", .schema = FIELDS_SCHEMA),
    N(offloads, "offloads", .schema = NAMES_SCHEMA),
    N(offloads_on, "offloads_on"),
    N(offloads_main, "offloads_main", .schema = NAMES_SCHEMA),
    N(coalesce, "coalesce", .schema = FIELDS_SCHEMA),
    PS_FIELD_OBJP(struct link_row, pause, "pause", &pause_fields, .flags = PS_FLD_NULL),
    N(counters, "counters", .schema = COUNTERS_SCHEMA),
    N(errors, "errors", .unit = "frames"),
    N(drops, "drops", .unit = "frames"),
    N(crc_errors, "crc_errors", .unit = "frames"),
    N(rx_packets, "rx_packets", .unit = "frames"),
    N(tx_packets, "tx_packets", .unit = "frames"),
    N(carrier_changes, "carrier_changes"),
    N(carrier_changes_by_plan, "carrier_changes_by_plan"),
    N(carrier_changes_unexplained, "carrier_changes_unexplained"),
    PS_FIELD(struct link_row, changed, "changed", .schema = NAMES_SCHEMA),
};
#undef N
static const struct ps_fields link_fields = PS_FIELDS(struct link_row, link_f);

static const struct ps_field result_f[] = {
    PS_FIELD_ARRAY(struct link_result, ports, n_ports, "ports", &link_fields),
};
static const struct ps_fields result_fields = PS_FIELDS(struct link_result, result_f);

/* ---- reading ---- */

/* "1000baseT/Full": speed 1000, full. Pure. */
static int mode_speed(const char *name, bool *full)
{
	const char *base = strstr(name, "base");
	long v;

	*full = strstr(name, "/Full") != NULL || !strstr(name, "/Half");
	if (!base || base == name)
		return -1;
	v = strtol(name, NULL, 10);
	return v > 0 ? (int)v : -1;
}

/* The best mode both ends advertise: its speed, or -1 when the partner is unknown. */
static int best_common(const struct ps_eth_modes *m, bool *full)
{
	int best = -1;

	*full = false;
	if (!m->known || !m->partner_known)
		return -1;
	for (unsigned int b = 0; b < PS_ETH_MODE_BITS; b++) {
		bool f;
		int s;

		if (!ps_eth_mode_test(m->advertised, b) || !ps_eth_mode_test(m->partner, b))
			continue;
		s = mode_speed(m->names[b], &f);
		if (s > best || (s == best && f && !*full)) {
			best = s;
			*full = f;
		}
	}
	return best;
}

static json_object *modes(const struct ps_eth_modes *m, const uint32_t *set)
{
	json_object *a = json_object_new_array();

	for (unsigned int b = 0; b < PS_ETH_MODE_BITS; b++)
		if (ps_eth_mode_test(set, b) && strstr(m->names[b], "base"))
			json_object_array_add(a, ps_json_new_str(m->names[b]));
	return a;
}

/* ETHTOOL_LINK_EXT_STATE_*: why a link is down, when the driver says. */
static const char *ext_state_name(int s, bool *fault)
{
	static const char *const names[] = {
	    "autonegotiation did not complete",
	    "link training failed",
	    "link logical mismatch",
	    "bad signal integrity",
	    "no cable",
	    "cable issue",
	    "module EEPROM issue",
	    "calibration failed",
	    "power budget exceeded",
	    "overheated",
	    "module issue",
	};

	/* Not reported (PS_UNKNOWN) or newer than this table: no reason, and no fault known. */
	if (s < 0 || (size_t)s >= PS_ARRAY_SIZE(names)) {
		*fault = false;
		return NULL;
	}
	*fault = s != 0 && s != 4;
	return names[s];
}

/* The driver's fields (hw/ethtool.h's table) as JSON: a field it does not report is null. */
static json_object *fields(const void *base, const struct ps_eth_field *f, size_t n)
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

static const char *const main_offloads[] = {
    "rx-checksum",	   "tx-checksum-ip-generic",  "tx-checksum-ipv4", "tx-scatter-gather",
    "tx-tcp-segmentation", "tx-generic-segmentation", "rx-gro",		  "rx-lro",
    "rx-hashing",	   "rx-vlan-hw-parse"};

/* How many offloads are on, and the main ones among them. */
static void offloads(struct link_row *o, const struct ps_eth_features *f)
{
	if (!f->known)
		return;
	o->offloads = ps_nic_offloads_json(f);
	o->offloads_on = (int)json_object_array_length(o->offloads);
	o->offloads_main = json_object_new_array();
	for (size_t i = 0; i < PS_ARRAY_SIZE(main_offloads); i++)
		for (unsigned int b = 0; b < PS_ETH_MODE_BITS; b++)
			if (ps_eth_mode_test(f->active, b) &&
			    strcmp(f->names[b], main_offloads[i]) == 0)
				json_object_array_add(o->offloads_main,
						      json_object_new_string(main_offloads[i]));
}

/* A counter's growth since the inventory, -1 when either reading is missing. */
static int64_t delta(const struct ps_eth_stats *a, const struct ps_eth_stats *b, int i)
{
	if (!a->known || !b->known || b->v[i] < a->v[i])
		return -1;
	return (int64_t)(b->v[i] - a->v[i]);
}

static int64_t sum2(int64_t x, int64_t y)
{
	return x < 0 || y < 0 ? -1 : x + y;
}

/* One port's reading: the ethtool answers, the inventory's as the plan's start. */
struct reading {
	struct ps_ctx *ctx;
	const struct ps_nic *n; /* at the plan's start */
	struct ps_eth_info *e;	/* now */
	struct link_row *o;
	struct ps_dev_ref ref;
};

/* Damaged frames (CRC, framing), other errors, drops over the plan: findings. Inside a
 * virtual machine the counters follow the emulation (QEMU's e1000e counts its 60-byte frames,
 * which carry no FCS there, as too short). */
static void counter_findings(struct reading *rd, int64_t crc, int64_t frame, int64_t length,
			     int64_t miss)
{
	bool vm = rd->ctx->inv->machine.under_hypervisor;
	struct ps_finding f = {
	    .severity = vm ? PS_SEV_INFO : PS_SEV_WARN, .dev = rd->ref, .unit = "frames"};
	const char *vm_note = vm ? "; this is a virtual machine, whose emulated NIC counts errors "
				   "as the emulation sees them: information only"
				 : "";
	int64_t errs = rd->o->errors, drops = rd->o->drops > 0 ? rd->o->drops : 0;

	if (crc > 0 || frame > 0) {
		f.rule = "crc_errors";
		f.value = (double)crc + (double)frame;
		f.limit = 0;
		ps_find(rd->ctx, &f,
			"%lld CRC and %lld framing errors during the plan: damaged frames on the "
			"wire (a bad cable, connector or port)%s",
			(long long)crc, (long long)frame, vm_note);
	} else if (errs > 0) {
		f.rule = "errors";
		f.value = (double)errs;
		f.limit = 0;
		ps_find(rd->ctx, &f,
			"%lld receive and transmit errors during the plan (%lld of them length "
			"errors: runts or frames too long, as a duplex mismatch makes)%s",
			(long long)errs, (long long)(length > 0 ? length : 0), vm_note);
	}
	if (miss > 0 || drops > 0) {
		f.severity = PS_SEV_INFO;
		f.rule = "drops";
		f.value = (double)drops + (double)miss;
		f.limit = PS_NO_VALUE;
		ps_find(rd->ctx, &f,
			"%lld frames dropped and %lld missed (receive ring full) during the plan: "
			"the host did not keep up at some point",
			(long long)drops, (long long)miss);
	}
}

/* Driver, firmware, bus, MAC; carrier, speed, negotiation. */
static void identity(struct reading *rd)
{
	const struct ps_nic *n = rd->n;
	const struct ps_eth_info *e = rd->e;
	struct link_row *o = rd->o;
	bool full;

	snprintf(o->driver, sizeof(o->driver), "%s", e->drv.known ? e->drv.driver : n->driver);
	snprintf(o->firmware, sizeof(o->firmware), "%s",
		 e->drv.known ? e->drv.firmware : n->firmware);
	snprintf(o->bus_info, sizeof(o->bus_info), "%s",
		 e->drv.known ? e->drv.bus_info : n->bus_info);
	snprintf(o->perm_mac, sizeof(o->perm_mac), "%s",
		 e->rtlink.perm_mac[0] ? e->rtlink.perm_mac : n->perm_mac);
	o->carrier = e->rtlink.carrier;
	o->speed_mbps = e->modes.known && e->rtlink.carrier == 1 ? e->modes.speed_mbps : -1;
	if (e->rtlink.carrier == 1)
		snprintf(o->duplex, sizeof(o->duplex), "%s", e->modes.duplex);
	o->autoneg = e->modes.known ? e->modes.autoneg : PS_TRI_UNKNOWN;
	if (e->modes.known)
		o->advertised = modes(&e->modes, e->modes.advertised);
	if (e->modes.known && e->modes.partner_known)
		o->partner = modes(&e->modes, e->modes.partner);
	o->best_common_mbps = best_common(&e->modes, &full);
}

/* MTU, queues, rings, offloads, coalescing, pause: as the driver has them now. */
static void settings(struct reading *rd)
{
	const struct ps_nic *n = rd->n;
	const struct ps_eth_info *e = rd->e;
	struct link_row *o = rd->o;

	o->mtu = e->rtlink.mtu;
	o->max_mtu = e->rtlink.max_mtu;
	/* a combined channel is a queue each way */
	if (e->channels.known) {
		o->rx_queues =
		    e->channels.rx + (e->channels.combined > 0 ? e->channels.combined : 0);
		o->tx_queues =
		    e->channels.tx + (e->channels.combined > 0 ? e->channels.combined : 0);
	} else if (n->rx_queues > 0 && n->tx_queues > 0) {
		o->rx_queues = n->rx_queues;
		o->tx_queues = n->tx_queues;
	}
	o->msix_vectors = n->msix_vectors;
	if (e->channels.known)
		o->channels = fields(&e->channels, ps_channels_fields, ps_channels_nfields);
	if (e->rings.known)
		o->rings = fields(&e->rings, ps_rings_fields, ps_rings_nfields);
	offloads(o, &e->features);
	if (e->has_coalesce)
		o->coalesce = fields(&e->coalesce, ps_coalesce_fields, ps_coalesce_nfields);
	if (e->pause.known && (o->pause = ps_fields_new(&pause_fields, 1)) != NULL) {
		o->pause->autoneg = e->pause.autoneg;
		o->pause->rx = e->pause.rx;
		o->pause->tx = e->pause.tx;
	}
}

/* The error and drop counters over the plan, with their findings. */
static void counters(struct reading *rd)
{
	const struct ps_eth_stats *a = &rd->n->stats, *b = &rd->e->rtlink.stats;
	struct link_row *o = rd->o;
	int64_t crc, frame, miss;

	o->errors = sum2(delta(a, b, PS_ST_RX_ERRORS), delta(a, b, PS_ST_TX_ERRORS));
	o->drops = sum2(delta(a, b, PS_ST_RX_DROPPED), delta(a, b, PS_ST_TX_DROPPED));
	o->crc_errors = delta(a, b, PS_ST_RX_CRC_ERRORS);
	o->rx_packets = delta(a, b, PS_ST_RX_PACKETS);
	o->tx_packets = delta(a, b, PS_ST_TX_PACKETS);
	if (!a->known || !b->known)
		return;
	o->counters = json_object_new_object();
	for (int i = 0; i < PS_ETH_NSTATS; i++) {
		json_object *x = json_object_new_object();

		ps_json_set(x, "before", json_object_new_int64((int64_t)a->v[i]));
		ps_json_set(x, "after", json_object_new_int64((int64_t)b->v[i]));
		ps_json_set_count(x, "delta", delta(a, b, i));
		ps_json_set(o->counters, ps_eth_stat_names[i], x);
	}
	crc = o->crc_errors;
	frame = delta(a, b, PS_ST_RX_FRAME_ERRORS);
	miss = delta(a, b, PS_ST_RX_MISSED_ERRORS);
	counter_findings(rd, crc > 0 ? crc : 0, frame > 0 ? frame : 0,
			 delta(a, b, PS_ST_RX_LENGTH_ERRORS), miss > 0 ? miss : 0);
}

/* Carrier changes: those the plan's own steps made (namespace moves, self-test, MTU) are set
 * apart; the others are the link's. */
static void carrier(struct reading *rd)
{
	const struct ps_nic *n = rd->n;
	struct link_row *o = rd->o;
	int now = rd->e->rtlink.carrier_changes, by_plan;

	if (n->carrier_changes == PS_UNKNOWN || now == PS_UNKNOWN || now < n->carrier_changes)
		return;
	by_plan = ps_port_ledger_get(n->mac[0] ? n->mac : NULL, n->name);
	o->carrier_changes = now - n->carrier_changes;
	o->carrier_changes_by_plan = by_plan;
	o->carrier_changes_unexplained =
	    o->carrier_changes > by_plan ? o->carrier_changes - by_plan : 0;
	if (o->carrier_changes_unexplained > 0) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = rd->ref,
				       .rule = "carrier_changes",
				       .value = o->carrier_changes_unexplained,
				       .limit = 0,
				       .unit = "changes"};

		ps_find(rd->ctx, &f,
			"the link went down or up %d time%s during the plan beyond the %d the "
			"plan's own steps caused: a flapping link (cable, connector, the partner "
			"port)",
			o->carrier_changes_unexplained,
			o->carrier_changes_unexplained == 1 ? "" : "s", by_plan);
	}
}

/* What the plan left different from the inventory: nothing should be. */
static void changed(struct reading *rd)
{
	const struct ps_nic *n = rd->n;
	const struct ps_eth_info *e = rd->e;
	const char *what[5];
	size_t k = 0;

	if (n->mtu != PS_UNKNOWN && e->rtlink.mtu != PS_UNKNOWN && n->mtu != e->rtlink.mtu)
		what[k++] = "mtu";
	if (n->has_coalesce && e->has_coalesce &&
	    memcmp(&n->coalesce, &e->coalesce, sizeof(n->coalesce)) != 0)
		what[k++] = "coalescing";
	if (n->rings.known && e->rings.known &&
	    (n->rings.rx != e->rings.rx || n->rings.tx != e->rings.tx))
		what[k++] = "rings";
	if (n->features.known && e->features.known &&
	    memcmp(n->features.active, e->features.active, sizeof(n->features.active)) != 0)
		what[k++] = "offloads";
	if (n->pause.known && e->pause.known &&
	    (n->pause.rx != e->pause.rx || n->pause.tx != e->pause.tx))
		what[k++] = "pause";
	for (size_t i = 0; i < k; i++)
		json_object_array_add(rd->o->changed, json_object_new_string(what[i]));
	if (k)
		ps_findf(rd->ctx, PS_SEV_FAIL, rd->ref, "not_restored",
			 "the plan left %s of %s different from what the inventory read at its "
			 "start",
			 json_object_to_json_string_ext(rd->o->changed, JSON_C_TO_STRING_PLAIN),
			 n->name);
}

/* The link itself: down, below both ends' best, half duplex, or up. */
static void link_verdict(struct reading *rd)
{
	const struct ps_eth_info *e = rd->e;
	struct link_row *o = rd->o;
	const char *why = NULL;
	bool fault = false, full = false;
	int best = best_common(&e->modes, &full), speed = o->speed_mbps;

	if (e->state.known && e->state.link == 0)
		why = ext_state_name(e->state.ext_state, &fault);
	o->link_down_reason = why;
	if (e->rtlink.carrier != 1) {
		o->link = "down";
		if (rd->n->carrier == 1)
			ps_findf(rd->ctx, PS_SEV_WARN, rd->ref, "link_lost",
				 "%s had link when the plan started and has none now%s%s",
				 rd->n->name, why ? ": " : "", why ? why : "");
		else if (fault)
			ps_findf(rd->ctx, PS_SEV_WARN, rd->ref, "no_link", "no link: %s", why);
		else
			ps_findf(rd->ctx, PS_SEV_INFO, rd->ref, "no_link",
				 "no link%s%s: no cable, or the other end is off", why ? ": " : "",
				 why ? why : "");
	} else if (best > 0 && speed > 0 && speed < best) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = rd->ref,
				       .rule = "below_common",
				       .value = speed,
				       .limit = best,
				       .unit = "Mb/s"};

		o->link = "below both ends' best";
		ps_find(rd->ctx, &f,
			"negotiated %d Mb/s %s though both ends advertise %d Mb/s: the classic "
			"sign of a bad cable (a broken pair), or a port forced to a lower speed",
			speed, e->modes.duplex, best);
	} else if (best > 0 && full && strcmp(e->modes.duplex, "half") == 0) {
		o->link = "half duplex";
		ps_findf(rd->ctx, PS_SEV_WARN, rd->ref, "half_duplex",
			 "half duplex though both ends advertise full duplex at %d Mb/s: a duplex "
			 "mismatch or a forced setting",
			 best);
	} else {
		o->link = best > 0 ? "up, at both ends' best" : "up";
		ps_examined(rd->ctx, rd->ref, "link", "link up at %d Mb/s %s%s", speed,
			    e->modes.duplex, best > 0 ? ", the best both ends support" : "");
	}
}

static void port(struct ps_ctx *ctx, struct ps_ethtool *et, const struct ps_nic *n)
{
	struct link_result *r = ctx->result;
	struct reading rd = {.ctx = ctx, .n = n, .ref = ps_nic_ref(n)};

	rd.e = calloc(1, sizeof(*rd.e));
	rd.o = rd.e ? ps_fields_grow(&link_fields, &r->ports, &r->n_ports) : NULL;
	if (!rd.o) {
		free(rd.e);
		return;
	}
	ps_ethtool_query(et, n->name, rd.e);
	snprintf(rd.o->name, sizeof(rd.o->name), "%s", n->name);
	rd.o->device = n->id;
	rd.o->changed = json_object_new_array();
	if (rd.e->err[PS_ETH_RTLINK] == -ENODEV) {
		rd.o->link = "gone";
		ps_findf(ctx, PS_SEV_WARN, rd.ref, "gone",
			 "%s, in the inventory at the plan's start, is gone: its driver let go of "
			 "it (see the kernel log) or a step did not put it back",
			 n->name);
	} else {
		identity(&rd);
		settings(&rd);
		counters(&rd);
		carrier(&rd);
		changed(&rd);
		link_verdict(&rd);
	}
	free(rd.e);
}

static int run(struct ps_ctx *ctx)
{
	struct ps_ethtool et;
	int ret;

	if (ctx->root && ctx->root[0]) {
		ps_step_reason(ctx, "asks the running kernel: live system only, not with --root");
		return PS_SKIPPED;
	}
	if (ctx->inv->n_nics == 0) {
		ps_step_reason(ctx, "the inventory found no physical network port");
		return PS_SKIPPED;
	}
	ret = ps_ethtool_open(&et);
	if (ret < 0) {
		ps_step_reason(ctx, "cannot open ethtool netlink and rtnetlink: %s",
			       strerror(-ret));
		return ret;
	}
	ps_progress_phase(ctx, "ports", ctx->inv->n_nics, "ports");
	for (size_t i = 0; i < ctx->inv->n_nics; i++) {
		port(ctx, &et, &ctx->inv->nics[i]);
		ps_progress_set(ctx, i + 1);
	}
	ps_ethtool_close(&et);
	return PS_PASS;
}

/* ---- view ---- */

static const struct ps_col link_cols[] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/device", .title = "id", .flags = PS_COL_DEVICE},
    {.path = "/speed_mbps", .title = "speed", .unit = "Mb/s", .flags = PS_COL_HEADLINE},
    {.path = "/duplex", .title = "duplex"},
    {.path = "/autoneg", .title = "aneg", .fmt = PS_FMT_BOOL},
    {.path = "/best_common_mbps", .title = "best common", .unit = "Mb/s"},
    {.path = "/mtu", .title = "mtu"},
    {.path = "/max_mtu", .title = "max", .flags = PS_COL_OPTIONAL},
    {.path = "/link", .title = "link", .flags = PS_COL_WIDE},
};

#define DRIVER_COLS                                                                                \
	{.path = "/name", .title = "port", .flags = PS_COL_KEY},                                   \
	    {.path = "/driver", .title = "driver"}, {.path = "/firmware", .title = "firmware"},    \
	    {.path = "/bus_info", .title = "bus"},                                                 \
	{                                                                                          \
		.path = "/perm_mac", .title = "permanent MAC"                                      \
	}

static const struct ps_col driver_cols[] = {
    DRIVER_COLS,
    {.path = "/rx_queues", .title = "rx q", .flags = PS_COL_OPTIONAL},
    {.path = "/tx_queues", .title = "tx q", .flags = PS_COL_OPTIONAL},
    {.path = "/msix_vectors", .title = "msi-x", .flags = PS_COL_OPTIONAL},
};

static const struct ps_col driver_cols_v1[] = {
    DRIVER_COLS,
    {.path = "/queues", .title = "queues", .flags = PS_COL_OPTIONAL},
    {.path = "/msix_vectors", .title = "msi-x", .flags = PS_COL_OPTIONAL},
};

static const struct ps_col nego_cols[] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/advertised", .title = "advertised", .flags = PS_COL_WIDE},
    {.path = "/partner", .title = "link partner", .flags = PS_COL_WIDE},
};

static const struct ps_col settings_cols[] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/rings",
     .title = "rings",
     .fmt = PS_FMT_TEMPLATE,
     .tmpl = "rx {/rx}/{/rx_max}, tx {/tx}/{/tx_max}"},
    {.path = "/coalesce", .title = "coalescing", .fmt = PS_FMT_PAIRS},
    {.path = "/pause",
     .title = "pause",
     .fmt = PS_FMT_TEMPLATE,
     .tmpl = "rx {/rx}, tx {/tx}, negotiated {/autoneg}"},
};

static const struct ps_col offload_cols[] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/offloads_on", .title = "on"},
    {.path = "/offloads_main", .title = "the main ones", .flags = PS_COL_WIDE},
};

static const struct ps_col offload_cols_v1[] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/offloads_text", .title = "offloads", .flags = PS_COL_WIDE},
};

static const struct ps_col counter_cols[] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/rx_packets", .title = "rx pkts", .flags = PS_COL_MEASURED},
    {.path = "/tx_packets", .title = "tx pkts", .flags = PS_COL_MEASURED},
    {.path = "/errors", .title = "errors", .better = PS_BETTER_LOWER},
    {.path = "/crc_errors", .title = "crc", .better = PS_BETTER_LOWER},
    {.path = "/drops", .title = "drops", .better = PS_BETTER_LOWER},
    {.path = "/carrier_changes", .title = "carrier", .flags = PS_COL_MEASURED},
    {.path = "/carrier_changes_by_plan", .title = "by steps", .flags = PS_COL_MEASURED},
    {.path = "/carrier_changes_unexplained", .title = "other", .better = PS_BETTER_LOWER},
};

#define LINKS_BLOCK                                                                                \
	{                                                                                          \
		.kind = PS_BLOCK_TABLE, .id = "links", .title = "Links at the end of the plan",    \
		.rows = "/ports", .cols = PS_COLS(link_cols), .empty = "no physical network port", \
		.note =                                                                            \
		    "best common: the fastest mode both this port and its link partner advertise"  \
	}
#define NEGOTIATION_SETTINGS_BLOCKS                                                                \
	{.kind = PS_BLOCK_TABLE,                                                                   \
	 .id = "negotiation",                                                                      \
	 .title = "Negotiation",                                                                   \
	 .rows = "/ports",                                                                         \
	 .cols = PS_COLS(nego_cols)},                                                              \
	{                                                                                          \
		.kind = PS_BLOCK_TABLE, .id = "settings", .title = "Settings", .rows = "/ports",   \
		.cols = PS_COLS(settings_cols),                                                    \
		.note = "a setting the driver does not support is left out, never shown as 0"      \
	}
#define COUNTERS_BLOCK                                                                             \
	{                                                                                          \
		.kind = PS_BLOCK_TABLE, .id = "counters",                                          \
		.title = "During the plan (counters from the inventory to now)", .rows = "/ports", \
		.cols = PS_COLS(counter_cols),                                                     \
		.note = "carrier: link changes; by steps: those the plan's own steps caused "      \
			"(namespace "                                                              \
			"moves, self-test, MTU)"                                                   \
	}

static const struct ps_block blocks[] = {
    LINKS_BLOCK,
    {.kind = PS_BLOCK_TABLE,
     .id = "drivers",
     .title = "Drivers",
     .rows = "/ports",
     .cols = PS_COLS(driver_cols)},
    NEGOTIATION_SETTINGS_BLOCKS,
    {.kind = PS_BLOCK_TABLE,
     .id = "offloads",
     .rows = "/ports",
     .cols = PS_COLS(offload_cols),
     .note = "on: how many offloads are on; the main ones: checksums, segmentation, GRO, LRO, "
	     "hashing, VLAN parsing"},
    COUNTERS_BLOCK,
};

/* Data version 1 (queues and offloads_text as text): reports of an earlier probestick still
 * show. */
static const struct ps_block blocks_v1[] = {
    LINKS_BLOCK,
    {.kind = PS_BLOCK_TABLE,
     .id = "drivers",
     .title = "Drivers",
     .rows = "/ports",
     .cols = PS_COLS(driver_cols_v1)},
    NEGOTIATION_SETTINGS_BLOCKS,
    {.kind = PS_BLOCK_TABLE, .id = "offloads", .rows = "/ports", .cols = PS_COLS(offload_cols_v1)},
    COUNTERS_BLOCK,
};

static const struct ps_view view_v1 = {
    .name = "nic_link",
    .version = 1,
    .blocks = PS_BLOCKS(blocks_v1),
};

static const struct ps_view *const older_views[] = {&view_v1, NULL};

static const struct ps_view view = {
    .name = "nic_link",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops nic_link_ops = {
    .abi = PS_STEP_ABI,
    .name = "nic_link",
    .title = "every port's link, negotiation, settings and counters over the plan",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .needs = 0,
    .order = 90, /* last of the NIC steps: its counters span the plan */
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &result_fields,
    .older_views = older_views,
    .run = run,
};
PS_STEP_REGISTER(nic_link_ops);
