/*
 * session.h - what every NIC step that moves ports does around its own
 * measurement, written once: the free ports taken into namespaces (ports.h),
 * brought up, paired by probe frame and given their test addresses; each
 * port's state for the report (in use, no link, paired, unpaired, and why)
 * with its finding; and at the end every port put back, with what was put
 * back and a finding for one that did not come back as it was. The step's
 * result holds the typed rows (ps_port_state_fields, ps_put_back_fields) and
 * its view shows them with PS_NIC_PORTS_BLOCK and PS_NIC_RESTORED_BLOCK.
 *
 * Findings go through the step's hook (core/step.h, ps_find_hook), so the
 * rules are the step's: <step>.in_use, .setup_failed, .no_link, .no_partner,
 * .no_pairs, .not_restored; a port that takes no part is not tested, with
 * why (ps_not_tested_hook): nothing not measured is a pass.
 */
#ifndef PS_NET_SESSION_H
#define PS_NET_SESSION_H

#include "engines/net/ports.h"
#include "lib/fields.h"
#include "report/view.h"

#include <stdbool.h>
#include <stddef.h>

/* A port as the step found it: "paired", "unpaired", "no link", "in use", "not tested". */
struct ps_port_state {
	char name[IF_NAMESIZE];
	char partner[IF_NAMESIZE]; /* "" none */
	const char *state;
	char reason[200]; /* "" none */
};
extern const struct ps_fields ps_port_state_fields;

typedef void ps_find_fn(void *arg, enum ps_severity sev, struct ps_dev_ref dev, const char *rule,
			const char *message);
typedef void ps_not_tested_fn(void *arg, struct ps_dev_ref dev, const char *why);

struct ps_nic_session_opts {
	const char *only; /* comma-separated port names (tests: veth), NULL: every free port */
	double carrier_s; /* how long to wait for carrier */
	double probe_s;	  /* probe frames' rounds (pairing), 0: do not pair */
	ps_find_fn *find; /* the step's findings (ps_find_hook) */
	ps_not_tested_fn
	    *not_tested; /* a port it meant to test and could not (ps_not_tested_hook) */
	void *find_arg;	 /* their argument (the step's ctx) */
	bool (*should_stop)(void *arg);
	void *stop_arg;
};

struct ps_nic_session {
	struct ps_ports ps;
	struct ps_pair pairs[PS_PORTS_MAX / 2]; /* pair k on 198.18.k.0/24, a .1 and b .2 */
	size_t npairs;
	size_t with_link;
	bool aborted;
	struct ps_port_state states[PS_PORTS_MAX * 2];
	size_t n_states;
	char no_pairs[160]; /* pairing found none: why ("" when it found some) */
	bool unrestored;    /* a port did not come back as it was */
	ps_find_fn *find;
	ps_not_tested_fn *not_tested;
	void *find_arg;
};

/*
 * Take the ports, bring them up, pair them (when o->probe_s) and address the
 * pairs; the states of the ports that take no part are noted. 0, or -errno
 * when no port could be taken (no rtnetlink: nothing to put back then).
 * s->aborted when should_stop stopped it.
 */
int ps_nic_session_open(struct ps_nic_session *s, const struct ps_inventory *inv,
			const struct ps_nic_session_opts *o);

/* The index of the partner of port i in a pair, or -1. */
int ps_nic_session_partner(const struct ps_nic_session *s, size_t i);

/*
 * Every port put back (ps_ports_close), the ports' states noted (paired,
 * no link, unpaired...) with their findings, and the typed rows of what was
 * put back copied to rows[*n] (room for max); a port that did not come back
 * as it was is a fail finding. Always safe to call after open.
 */
void ps_nic_session_close(struct ps_nic_session *s, struct ps_put_back *rows, size_t *n,
			  size_t max);

/* The "ports" and "restored" blocks of a NIC step's view, over its data's /ports and /restored. */
extern const struct ps_col ps_port_state_cols[4];
extern const struct ps_col ps_put_back_cols[5];
#define PS_NIC_PORTS_BLOCK                                                                         \
	{                                                                                          \
		.kind = PS_BLOCK_TABLE, .id = "ports", .title = "Ports", .rows = "/ports",         \
		.cols = ps_port_state_cols, .ncols = 4                                             \
	}
#define PS_NIC_RESTORED_BLOCK                                                                      \
	{                                                                                          \
		.kind = PS_BLOCK_TABLE, .id = "restored", .title = "Put back after the step",      \
		.rows = "/restored", .cols = ps_put_back_cols, .ncols = 5                          \
	}

#endif
