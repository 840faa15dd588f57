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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "ports": {"type": "array", "items": {"type": "object",
//schema:      "properties": {
//schema:        "name": {"type": "string"}, "device": {"type": ["string", "null"]},
//schema:        "driver": {"type": ["string", "null"]}, "firmware": {"type": ["string", "null"]},
//schema:        "bus_info": {"type": ["string", "null"]}, "perm_mac": {"type": ["string", "null"]},
//schema:        "carrier": {"type": ["boolean", "null"]},
//schema:        "speed_mbps": {"type": ["integer", "null"]},
//schema:        "duplex": {"type": ["string", "null"]},
//schema:        "autoneg": {"type": ["boolean", "null"]},
//schema:        "advertised": {"type": ["array", "null"], "items": {"type": "string"}},
//schema:        "partner": {"type": ["array", "null"], "items": {"type": "string"}},
//schema:        "best_common_mbps": {"type": ["integer", "null"]},
//schema:        "link": {"type": "string"},
//schema:        "link_down_reason": {"type": ["string", "null"]},
//schema:        "mtu": {"type": ["integer", "null"]}, "max_mtu": {"type": ["integer", "null"]},
//schema:        "queues": {"type": ["string", "null"]},
//schema:        "msix_vectors": {"type": ["integer", "null"]},
//schema:        "channels": {"type": ["object", "null"]},
//schema:        "rings": {"type": ["object", "null"]},
//schema:        "offloads": {"type": ["array", "null"], "items": {"type": "string"}},
//schema:        "offloads_text": {"type": ["string", "null"]},
//schema:        "coalesce": {"type": ["object", "null"]},
//schema:        "pause": {"type": ["object", "null"]},
//schema:        "counters": {"type": ["object", "null"]},
//schema:        "errors": {"type": ["integer", "null"]},
//schema:        "drops": {"type": ["integer", "null"]},
//schema:        "crc_errors": {"type": ["integer", "null"]},
//schema:        "rx_packets": {"type": ["integer", "null"]},
//schema:        "tx_packets": {"type": ["integer", "null"]},
//schema:        "carrier_changes": {"type": ["integer", "null"]},
//schema:        "carrier_changes_by_plan": {"type": ["integer", "null"]},
//schema:        "carrier_changes_unexplained": {"type": ["integer", "null"]},
//schema:        "changed": {"type": "array", "items": {"type": "string"}}
//schema:      },
//schema:      "required": ["name", "link", "changed"]}}
//schema:  },
//schema:  "required": ["ports"]
//schema:}
/* clang-format on */

#include "core/step.h"
#include "lib/util.h"
#include "engines/net/ports.h"
#include "hw/ethtool.h"
#include "lib/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_VERSION 1

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

/* The known fields as JSON, and as "rx_usecs 3, adaptive_rx off" for people. */
static json_object *fields(const void *base, const struct ps_eth_field *f, size_t n, char *text,
			   size_t tlen)
{
	json_object *o = json_object_new_object();
	size_t t = 0;

	text[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *p = (const char *)base + f[i].offset;
		int v = f[i].tri ? *(const ps_tri *)p : *(const int *)p;
		char val[16];

		if (f[i].tri)
			ps_json_set_tri(o, f[i].key, v);
		else
			ps_json_set_count(o, f[i].key, v);
		if (v == PS_UNKNOWN || t >= tlen)
			continue;
		if (f[i].tri)
			snprintf(val, sizeof(val), "%s", v ? "on" : "off");
		else
			snprintf(val, sizeof(val), "%d", v);
		t += (size_t)snprintf(text + t, tlen - t, "%s%s %s", t ? ", " : "", f[i].key, val);
	}
	return o;
}

static const char *const main_offloads[] = {
    "rx-checksum",	   "tx-checksum-ip-generic",  "tx-checksum-ipv4", "tx-scatter-gather",
    "tx-tcp-segmentation", "tx-generic-segmentation", "rx-gro",		  "rx-lro",
    "rx-hashing",	   "rx-vlan-hw-parse"};

static void offloads_text(const struct ps_eth_features *f, char *text, size_t len)
{
	size_t t = 0;
	int on = 0;

	text[0] = '\0';
	for (unsigned int b = 0; b < PS_ETH_MODE_BITS; b++)
		on += ps_eth_mode_test(f->active, b) && f->names[b][0];
	t += (size_t)snprintf(text, len, "%d on", on);
	for (size_t i = 0; i < PS_ARRAY_SIZE(main_offloads) && t < len; i++)
		for (unsigned int b = 0; b < PS_ETH_MODE_BITS; b++)
			if (ps_eth_mode_test(f->active, b) &&
			    strcmp(f->names[b], main_offloads[i]) == 0)
				t += (size_t)snprintf(text + t, len - t, "%s%s", t ? ", " : "",
						      main_offloads[i]);
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

static void changed(json_object *arr, const char *what)
{
	json_object_array_add(arr, json_object_new_string(what));
}

static void port(struct ps_ctx *ctx, struct ps_ethtool *et, const struct ps_nic *n,
		 json_object *ports)
{
	struct ps_eth_info *e = calloc(1, sizeof(*e));
	json_object *o = json_object_new_object(), *ch = json_object_new_array();
	struct ps_dev_ref ref = ps_nic_ref(n);
	const char *down_why = NULL;
	char text[256], queues[64];
	bool fault = false, full = false;
	int best, speed, cc, by_plan, unexplained = -1;

	if (!e) {
		json_object_put(o);
		json_object_put(ch);
		return;
	}
	ps_ethtool_query(et, n->name, e);
	ps_json_set_str(o, "name", n->name);
	ps_json_set_str(o, "device", n->id);
	if (e->err[PS_ETH_RTLINK] == -ENODEV) {
		ps_json_set_str(o, "link", "gone");
		ps_json_set(o, "changed", ch);
		ps_findf(
		    ctx, PS_SEV_WARN, ref, "gone",
		    "%s, in the inventory at the plan's start, is gone: its driver let go of it "
		    "(see the kernel log) or a step did not put it back",
		    n->name);
		json_object_array_add(ports, o);
		free(e);
		return;
	}
	ps_json_set_str(o, "driver", e->drv.known ? e->drv.driver : n->driver);
	ps_json_set_str(o, "firmware", e->drv.known ? e->drv.firmware : n->firmware);
	ps_json_set_str(o, "bus_info", e->drv.known ? e->drv.bus_info : n->bus_info);
	ps_json_set_str(o, "perm_mac", e->rtlink.perm_mac[0] ? e->rtlink.perm_mac : n->perm_mac);
	ps_json_set_tri(o, "carrier", e->rtlink.carrier);
	speed = e->modes.known && e->rtlink.carrier == 1 ? e->modes.speed_mbps : PS_UNKNOWN;
	ps_json_set_count(o, "speed_mbps", speed);
	ps_json_set_str(o, "duplex", e->rtlink.carrier == 1 ? e->modes.duplex : "");
	ps_json_set_tri(o, "autoneg", e->modes.known ? e->modes.autoneg : PS_TRI_UNKNOWN);
	ps_json_set(o, "advertised", e->modes.known ? modes(&e->modes, e->modes.advertised) : NULL);
	ps_json_set(o, "partner",
		    e->modes.known && e->modes.partner_known ? modes(&e->modes, e->modes.partner)
							     : NULL);
	best = best_common(&e->modes, &full);
	ps_json_set_count(o, "best_common_mbps", best);
	if (e->state.known && e->state.link == 0)
		down_why = ext_state_name(e->state.ext_state, &fault);
	ps_json_set_str(o, "link_down_reason", down_why);
	ps_json_set_count(o, "mtu", e->rtlink.mtu);
	ps_json_set_count(o, "max_mtu", e->rtlink.max_mtu);
	queues[0] = '\0';
	if (e->channels.known && e->channels.combined > 0)
		snprintf(queues, sizeof(queues), "%d combined (max %d)", e->channels.combined,
			 e->channels.combined_max);
	else if (e->channels.known)
		snprintf(queues, sizeof(queues), "%d rx, %d tx", e->channels.rx, e->channels.tx);
	else if (n->rx_queues > 0 && n->tx_queues > 0)
		snprintf(queues, sizeof(queues), "%d rx, %d tx", n->rx_queues, n->tx_queues);
	ps_json_set_str(o, "queues", queues);
	ps_json_set_count(o, "msix_vectors", n->msix_vectors);
	ps_json_set(o, "channels",
		    e->channels.known ? fields(&e->channels, ps_channels_fields,
					       ps_channels_nfields, text, sizeof(text))
				      : NULL);
	ps_json_set(o, "rings",
		    e->rings.known
			? fields(&e->rings, ps_rings_fields, ps_rings_nfields, text, sizeof(text))
			: NULL);
	ps_json_set(o, "offloads", ps_nic_offloads_json(&e->features));
	if (e->features.known) {
		offloads_text(&e->features, text, sizeof(text));
		ps_json_set_str(o, "offloads_text", text);
	} else {
		ps_json_set(o, "offloads_text", NULL);
	}
	ps_json_set(o, "coalesce",
		    e->has_coalesce ? fields(&e->coalesce, ps_coalesce_fields, ps_coalesce_nfields,
					     text, sizeof(text))
				    : NULL);
	if (e->pause.known) {
		json_object *p = json_object_new_object();

		ps_json_set_tri(p, "autoneg", e->pause.autoneg);
		ps_json_set_tri(p, "rx", e->pause.rx);
		ps_json_set_tri(p, "tx", e->pause.tx);
		ps_json_set(o, "pause", p);
	} else {
		ps_json_set(o, "pause", NULL);
	}

	/* Counters: the inventory's reading is the plan's start. */
	{
		const struct ps_eth_stats *a = &n->stats, *b = &e->rtlink.stats;
		json_object *c = NULL;

		if (a->known && b->known) {
			c = json_object_new_object();
			for (int i = 0; i < PS_ETH_NSTATS; i++) {
				json_object *x = json_object_new_object();

				ps_json_set(x, "before", json_object_new_int64((int64_t)a->v[i]));
				ps_json_set(x, "after", json_object_new_int64((int64_t)b->v[i]));
				ps_json_set_count(x, "delta", delta(a, b, i));
				ps_json_set(c, ps_eth_stat_names[i], x);
			}
		}
		ps_json_set(o, "counters", c);
		ps_json_set_count(o, "errors",
				  sum2(delta(a, b, PS_ST_RX_ERRORS), delta(a, b, PS_ST_TX_ERRORS)));
		ps_json_set_count(
		    o, "drops", sum2(delta(a, b, PS_ST_RX_DROPPED), delta(a, b, PS_ST_TX_DROPPED)));
		ps_json_set_count(o, "crc_errors", delta(a, b, PS_ST_RX_CRC_ERRORS));
		ps_json_set_count(o, "rx_packets", delta(a, b, PS_ST_RX_PACKETS));
		ps_json_set_count(o, "tx_packets", delta(a, b, PS_ST_TX_PACKETS));
		if (a->known && b->known) {
			int64_t crc = delta(a, b, PS_ST_RX_CRC_ERRORS),
				frame = delta(a, b, PS_ST_RX_FRAME_ERRORS),
				errs = sum2(delta(a, b, PS_ST_RX_ERRORS),
					    delta(a, b, PS_ST_TX_ERRORS)),
				miss = delta(a, b, PS_ST_RX_MISSED_ERRORS),
				drops = sum2(delta(a, b, PS_ST_RX_DROPPED),
					     delta(a, b, PS_ST_TX_DROPPED));
			/* Inside a virtual machine the counters follow the emulation (QEMU's e1000e
			 * counts its 60-byte frames, which carry no FCS there, as too short). */
			bool vm = ctx->inv->machine.under_hypervisor;
			struct ps_finding f = {.severity = vm ? PS_SEV_INFO : PS_SEV_WARN,
					       .dev = ref,
					       .unit = "frames"};
			const char *vm_note =
			    vm ? "; this is a virtual machine, whose emulated NIC "
				 "counts errors as the emulation sees them: "
				 "information only"
			       : "";

			if (crc > 0 || frame > 0) {
				f.rule = "crc_errors";
				f.value =
				    (double)(crc > 0 ? crc : 0) + (double)(frame > 0 ? frame : 0);
				f.limit = 0;
				ps_find(ctx, &f,
					"%lld CRC and %lld framing errors during the plan: damaged "
					"frames on the wire (a bad cable, connector or port)%s",
					(long long)(crc > 0 ? crc : 0),
					(long long)(frame > 0 ? frame : 0), vm_note);
			} else if (errs > 0) {
				f.rule = "errors";
				f.value = (double)errs;
				f.limit = 0;
				ps_find(ctx, &f,
					"%lld receive and transmit errors during the plan (%lld of "
					"them length errors: runts or frames too long, as a duplex "
					"mismatch makes)%s",
					(long long)errs,
					(long long)(delta(a, b, PS_ST_RX_LENGTH_ERRORS) > 0
							? delta(a, b, PS_ST_RX_LENGTH_ERRORS)
							: 0),
					vm_note);
			}
			if (miss > 0 || drops > 0) {
				f.severity = PS_SEV_INFO;
				f.rule = "drops";
				f.value =
				    (double)(drops > 0 ? drops : 0) + (double)(miss > 0 ? miss : 0);
				f.limit = PS_NO_VALUE;
				ps_find(ctx, &f,
					"%lld frames dropped and %lld missed (receive ring full) "
					"during "
					"the plan: the host did not keep up at some point",
					(long long)(drops > 0 ? drops : 0),
					(long long)(miss > 0 ? miss : 0));
			}
		}
	}

	/* Carrier changes: those the plan's own steps made (namespace moves, self-test,
	 * MTU) are set apart; the others are the link's. */
	cc = n->carrier_changes != PS_UNKNOWN && e->rtlink.carrier_changes != PS_UNKNOWN &&
		     e->rtlink.carrier_changes >= n->carrier_changes
		 ? e->rtlink.carrier_changes - n->carrier_changes
		 : PS_UNKNOWN;
	by_plan = ps_port_ledger_get(n->mac[0] ? n->mac : NULL, n->name);
	if (cc != PS_UNKNOWN)
		unexplained = cc > by_plan ? cc - by_plan : 0;
	ps_json_set_count(o, "carrier_changes", cc);
	ps_json_set_count(o, "carrier_changes_by_plan", cc != PS_UNKNOWN ? by_plan : PS_UNKNOWN);
	ps_json_set_count(o, "carrier_changes_unexplained", unexplained);
	if (unexplained > 0) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = ref,
				       .rule = "carrier_changes",
				       .value = unexplained,
				       .limit = 0,
				       .unit = "changes"};

		ps_find(
		    ctx, &f,
		    "the link went down or up %d time%s during the plan beyond the %d the plan's "
		    "own steps caused: a flapping link (cable, connector, the partner port)",
		    unexplained, unexplained == 1 ? "" : "s", by_plan);
	}

	/* What the plan left different from the inventory: nothing should be. */
	if (n->mtu != PS_UNKNOWN && e->rtlink.mtu != PS_UNKNOWN && n->mtu != e->rtlink.mtu)
		changed(ch, "mtu");
	if (n->has_coalesce && e->has_coalesce &&
	    memcmp(&n->coalesce, &e->coalesce, sizeof(n->coalesce)) != 0)
		changed(ch, "coalescing");
	if (n->rings.known && e->rings.known &&
	    (n->rings.rx != e->rings.rx || n->rings.tx != e->rings.tx))
		changed(ch, "rings");
	if (n->features.known && e->features.known &&
	    memcmp(n->features.active, e->features.active, sizeof(n->features.active)) != 0)
		changed(ch, "offloads");
	if (n->pause.known && e->pause.known &&
	    (n->pause.rx != e->pause.rx || n->pause.tx != e->pause.tx))
		changed(ch, "pause");
	ps_json_set(o, "changed", ch);
	if (json_object_array_length(ch) > 0)
		ps_findf(ctx, PS_SEV_FAIL, ref, "not_restored",
			 "the plan left %s of %s different from what the inventory read at its "
			 "start",
			 json_object_to_json_string_ext(ch, JSON_C_TO_STRING_PLAIN), n->name);

	/* The link itself. */
	if (e->rtlink.carrier != 1) {
		bool had = n->carrier == 1;

		ps_json_set_str(o, "link", "down");
		if (had)
			ps_findf(ctx, PS_SEV_WARN, ref, "link_lost",
				 "%s had link when the plan started and has none now%s%s", n->name,
				 down_why ? ": " : "", down_why ? down_why : "");
		else if (fault)
			ps_findf(ctx, PS_SEV_WARN, ref, "no_link", "no link: %s", down_why);
		else
			ps_findf(ctx, PS_SEV_INFO, ref, "no_link",
				 "no link%s%s: no cable, or the "
				 "other end is off",
				 down_why ? ": " : "", down_why ? down_why : "");
	} else if (best > 0 && speed > 0 && speed < best) {
		struct ps_finding f = {.severity = PS_SEV_WARN,
				       .dev = ref,
				       .rule = "below_common",
				       .value = speed,
				       .limit = best,
				       .unit = "Mb/s"};

		ps_json_set_str(o, "link", "below both ends' best");
		ps_find(
		    ctx, &f,
		    "negotiated %d Mb/s %s though both ends advertise %d Mb/s: the classic sign "
		    "of a bad cable (a broken pair), or a port forced to a lower speed",
		    speed, e->modes.duplex, best);
	} else if (best > 0 && full && strcmp(e->modes.duplex, "half") == 0) {
		ps_json_set_str(o, "link", "half duplex");
		ps_findf(ctx, PS_SEV_WARN, ref, "half_duplex",
			 "half duplex though both ends advertise full duplex at %d Mb/s: a duplex "
			 "mismatch or a forced setting",
			 best);
	} else {
		ps_json_set_str(o, "link", best > 0 ? "up, at both ends' best" : "up");
		ps_examined(ctx, ref, "link", "link up at %d Mb/s %s%s", speed, e->modes.duplex,
			    best > 0 ? ", the best both ends support" : "");
	}
	json_object_array_add(ports, o);
	free(e);
}

static int run(struct ps_ctx *ctx)
{
	json_object *ports = json_object_new_array();
	struct ps_ethtool et;
	int ret;

	ps_json_set(ctx->data, "ports", ports);
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
		port(ctx, &et, &ctx->inv->nics[i], ports);
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

static const struct ps_col driver_cols[] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/driver", .title = "driver"},
    {.path = "/firmware", .title = "firmware"},
    {.path = "/bus_info", .title = "bus"},
    {.path = "/perm_mac", .title = "permanent MAC"},
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

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "links",
     .title = "Links at the end of the plan",
     .rows = "/ports",
     .cols = PS_COLS(link_cols),
     .empty = "no physical network port",
     .note = "best common: the fastest mode both this port and its link partner advertise"},
    {.kind = PS_BLOCK_TABLE,
     .id = "drivers",
     .title = "Drivers",
     .rows = "/ports",
     .cols = PS_COLS(driver_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "negotiation",
     .title = "Negotiation",
     .rows = "/ports",
     .cols = PS_COLS(nego_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "settings",
     .title = "Settings",
     .rows = "/ports",
     .cols = PS_COLS(settings_cols),
     .note = "a setting the driver does not support is left out, never shown as 0"},
    {.kind = PS_BLOCK_TABLE, .id = "offloads", .rows = "/ports", .cols = PS_COLS(offload_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "counters",
     .title = "During the plan (counters from the inventory to now)",
     .rows = "/ports",
     .cols = PS_COLS(counter_cols),
     .note = "carrier: link changes; by steps: those the plan's own steps caused (namespace "
	     "moves, self-test, MTU)"},
};

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
    .run = run,
};
PS_STEP_REGISTER(nic_link_ops);
