/* session.c - ports taken, paired, addressed and put back for a NIC step (session.h). */
#include "engines/net/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct ps_field port_state_f[] = {
    PS_FIELD(struct ps_port_state, name, "name"),
    PS_FIELD(struct ps_port_state, partner, "partner", .flags = PS_FLD_NULL),
    PS_FIELD(struct ps_port_state, state, "state"),
    PS_FIELD(struct ps_port_state, reason, "reason", .flags = PS_FLD_NULL),
};
const struct ps_fields ps_port_state_fields = PS_FIELDS(struct ps_port_state, port_state_f);

const struct ps_col ps_port_state_cols[4] = {
    {.path = "/name", .title = "port", .flags = PS_COL_KEY},
    {.path = "/state", .title = "state"},
    {.path = "/partner", .title = "partner"},
    {.path = "/reason", .title = "why", .flags = PS_COL_WIDE},
};

const struct ps_col ps_put_back_cols[5] = {
    {.path = "/port", .title = "port", .flags = PS_COL_KEY},
    {.path = "/setting", .title = "setting", .flags = PS_COL_KEY},
    {.path = "/was", .title = "was"},
    {.path = "/now", .title = "now"},
    {.path = "/restored", .title = "restored", .fmt = PS_FMT_BOOL},
};

static void say(struct ps_nic_session *s, enum ps_severity sev, struct ps_dev_ref dev,
		const char *rule, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void say(struct ps_nic_session *s, enum ps_severity sev, struct ps_dev_ref dev,
		const char *rule, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (!s->find)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->find(s->find_arg, sev, dev, rule, msg);
}

static void untested(struct ps_nic_session *s, struct ps_dev_ref dev, const char *why)
{
	if (s->not_tested)
		s->not_tested(s->find_arg, dev, why);
}

static void state(struct ps_nic_session *s, const char *name, const char *partner, const char *what,
		  const char *reason)
{
	struct ps_port_state *r;

	if (s->n_states >= sizeof(s->states) / sizeof(s->states[0]))
		return;
	r = &s->states[s->n_states++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->partner, sizeof(r->partner), "%s", partner ? partner : "");
	r->state = what;
	snprintf(r->reason, sizeof(r->reason), "%s", reason ? reason : "");
}

int ps_nic_session_partner(const struct ps_nic_session *s, size_t i)
{
	for (size_t k = 0; k < s->npairs; k++) {
		if (s->pairs[k].a == i)
			return (int)s->pairs[k].b;
		if (s->pairs[k].b == i)
			return (int)s->pairs[k].a;
	}
	return -1;
}

static void no_pairs(struct ps_nic_session *s, const struct ps_inventory *inv)
{
	size_t total = inv ? inv->n_nics : 0;
	char why[160];

	if (total == 0 && s->ps.n == 0)
		snprintf(why, sizeof(why), "the inventory found no physical network port");
	else if (s->ps.n == 0)
		snprintf(why, sizeof(why), "none of the %zu port%s is free to test", total,
			 total == 1 ? "" : "s");
	else if (s->with_link == 0)
		snprintf(why, sizeof(why), "no port has link: cable two ports to each other");
	else if (s->with_link == 1)
		snprintf(why, sizeof(why),
			 "only one port has link: cable two ports to each other to measure them");
	else
		snprintf(why, sizeof(why),
			 "no port saw another's probe frame: the ports with link are cabled "
			 "elsewhere (a switch does not forward the probe)");
	say(s, PS_SEV_INFO, (struct ps_dev_ref){0}, "no_pairs", "no port pairs measured: %s", why);
	snprintf(s->no_pairs, sizeof(s->no_pairs), "%s", why);
}

/* Each port that was taken: its state and, where it takes no part, why. */
static void port_states(struct ps_nic_session *s, bool paired)
{
	for (size_t i = 0; i < s->ps.n; i++) {
		struct ps_port *p = &s->ps.p[i];
		int partner = ps_nic_session_partner(s, i);
		const char *why;

		if (p->skip == PS_PORT_SETUP) {
			say(s, PS_SEV_WARN, ps_port_ref(p), "setup_failed", "%s", p->why);
			state(s, p->name, NULL, "not tested", p->why);
			untested(s, ps_port_ref(p), p->why);
		} else if (p->skip == PS_PORT_NO_LINK) {
			say(s, PS_SEV_INFO, ps_port_ref(p), "no_link", "%s", p->why);
			state(s, p->name, NULL, "no link", p->why);
			untested(s, ps_port_ref(p), p->why);
		} else if (partner >= 0) {
			state(s, p->name, s->ps.p[partner].name, "paired", NULL);
		} else if (paired && !s->aborted) {
			why = s->with_link == 1
				  ? "has link, but it is the only port with link"
				  : "has link, but no other port saw its probe frame: its cable "
				    "goes elsewhere";
			if (s->with_link > 1)
				say(s, PS_SEV_INFO, ps_port_ref(p), "no_partner", "%s", why);
			state(s, p->name, NULL, "unpaired", why);
			untested(s, ps_port_ref(p), why);
		}
	}
}

int ps_nic_session_open(struct ps_nic_session *s, const struct ps_inventory *inv,
			const struct ps_nic_session_opts *o)
{
	bool reach[PS_PORTS_MAX * PS_PORTS_MAX];
	int ret;

	memset(s, 0, sizeof(*s));
	s->find = o->find;
	s->not_tested = o->not_tested;
	s->find_arg = o->find_arg;
	ret = ps_ports_open(&s->ps, inv, o->only, NULL);
	if (ret < 0)
		return ret;
	s->ps.should_stop = o->should_stop;
	s->ps.stop_arg = o->stop_arg;
	for (size_t i = 0; i < s->ps.n_left; i++) {
		struct ps_dev_ref ref =
		    s->ps.left[i].nic ? ps_nic_ref(s->ps.left[i].nic)
				      : (struct ps_dev_ref){PS_DEV_NIC, NULL, s->ps.left[i].name};
		bool in_use = s->ps.left[i].skip == PS_PORT_IN_USE;

		if (in_use)
			say(s, PS_SEV_INFO, ref, "in_use", "not tested: %s", s->ps.left[i].why);
		untested(s, ref, s->ps.left[i].why);
		state(s, s->ps.left[i].name, NULL, in_use ? "in use" : "not tested",
		      s->ps.left[i].why);
	}
	s->aborted = !ps_ports_setup(&s->ps, o->carrier_s);
	s->with_link = ps_ports_with_link(&s->ps);
	if (o->probe_s > 0 && !s->aborted && s->with_link >= 2)
		s->aborted = !ps_ports_probe(&s->ps, o->probe_s, reach);
	if (o->probe_s > 0 && !s->aborted && s->with_link >= 2)
		s->npairs = ps_ports_pairs(&s->ps, reach, s->pairs);
	for (size_t k = 0; k < s->npairs; k++) {
		struct ps_port *a = &s->ps.p[s->pairs[k].a], *b = &s->ps.p[s->pairs[k].b];

		if (ps_ports_address(&s->ps, s->pairs[k].a, (unsigned int)k, 1) < 0 ||
		    ps_ports_address(&s->ps, s->pairs[k].b, (unsigned int)k, 2) < 0)
			say(s, PS_SEV_WARN, ps_port_ref(a), "setup_failed",
			    "cannot give %s and %s their test addresses", a->name, b->name);
	}
	port_states(s, o->probe_s > 0);
	if (o->probe_s > 0 && !s->aborted && s->npairs == 0)
		no_pairs(s, inv);
	return 0;
}

void ps_nic_session_close(struct ps_nic_session *s, struct ps_put_back *rows, size_t *n, size_t max)
{
	ps_ports_close(&s->ps);
	s->aborted = s->aborted || s->ps.aborted;
	for (size_t i = 0; i < s->ps.n; i++)
		if (s->ps.p[i].restore_error[0]) {
			say(s, PS_SEV_FAIL, ps_port_ref(&s->ps.p[i]), "not_restored", "%s",
			    s->ps.p[i].restore_error);
			s->unrestored = true;
		}
	for (size_t i = 0; rows && i < s->ps.n_put_back && *n < max; i++)
		rows[(*n)++] = s->ps.put_back[i];
}
