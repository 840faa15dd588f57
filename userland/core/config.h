/* config.h - probestick.cfg and kernel command line settings: what to run and what to do after. */
#ifndef PS_CONFIG_H
#define PS_CONFIG_H

#include "collect/collect.h"
#include "core/step.h"
#include "decode/wall.h"
#include "engines/net/spec.h"
#include "lib/redact.h"

#include <json-c/json.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define PS_MAX_TERMS	     8
#define PS_STEP_SETTINGS_MAX 24

/* scratch=: the serials of the drives a writing step may overwrite (core/scratch.h decides). */
#define PS_SCRATCH_MAX	  16
#define PS_SCRATCH_SERIAL 96
struct ps_scratch_list {
	char serial[PS_SCRATCH_MAX][PS_SCRATCH_SERIAL];
	size_t n;
};

/* One terminal from console=: "ttyS0,115200" gives name ttyS0 and speed 115200. */
struct ps_term_spec {
	char name[32];
	unsigned int speed; /* baud, 0 = leave as it is */
};

struct ps_config {
	char plan[16];	   /* quick | full | menu | serve */
	char then[16];	   /* poweroff | reboot | menu | shell */
	char console[128]; /* terminals, comma separated: "tty0,ttyS0,115200" */
	char stream[16];   /* none | serial: the OCP artifacts on the serial console as steps end */
	char stick[4096];  /* where the stick is mounted; "" when it was not found */
	char
	    boot_disk[64]; /* whole disk holding the stick ("sdb"), "" if unknown: never a target */
	char steps[512];   /* only these steps (and what they run after) at plan's depth; "" all */
	char scratch[512]; /* serials of confirmed scratch drives, comma separated ("": none) */
	char peer[80]; /* HOST[:PORT]: an iperf3 server or a stick in server mode; "" discover */
	char net[80];  /* auto | dhcp | ADDR/LEN[,GW]: the address of the port facing a peer */
	char mtu[16];  /* max | keep | N: the MTU the jumbo-frame tests set */
	char wall_idle[16]; /* a wall meter's reading with the machine idle: "105", "105W"; "" none
			     */
	char wall_load[16]; /* the same under full load (the burn-in says when to read it) */
	/* not keys: where the readings came from when not probestick.cfg */
	char wall_source[16];  /* "menu"; "" probestick.cfg */
	char wall_entered[32]; /* when they were entered in the menu (RFC 3339) */
	/* The fleet's collector (collect/, README "A fleet"): "" none */
	char collect[512];	    /* https://HOST[:PORT]/PATH/: the run folders go below it */
	char collect_ca[256];	    /* the collector's CA (PEM); "" the netboot tree's or stick's */
	char collect_user[128];	    /* basic authentication */
	char collect_password[256]; /* never in a report, a log or on the console */
	char collect_wait[16];	    /* after the plan, how long to try before then=: 10m, 0 */
	char syslog[300];	    /* tls://HOST[:PORT] (or tcp://): the OCP stream as syslog */
	char ip[320];		    /* the boot port: dhcp | off | the kernel's ip= syntax */
	/* the machine-wide settings parsed once (ps_config_set keeps them current) */
	struct ps_scratch_list scratch_list; /* scratch= */
	struct ps_net_want net_want;	     /* net=, peer= and mtu= */
	/* every step's settings (struct ps_setting, in the steps' files): text and value */
	struct ps_setting_slot {
		const struct ps_setting *s;
		char text[PS_SETTING_TEXT_MAX]; /* as given, or the default; "" none */
		_Alignas(16) unsigned char value[PS_SETTING_VALUE_MAX];
	} step[PS_STEP_SETTINGS_MAX];
	size_t n_step;
};

/*
 * Defaults: plan from Kconfig (CONFIG_DEFAULT_PLAN), then=menu,
 * console=tty0,ttyS0, ..., and every step's setting (ps_settings()) at its own.
 */
void ps_config_defaults(struct ps_config *cfg);

/*
 * Parse probestick.cfg text (len bytes, may hold NULs or garbage). Each
 * problem appends one string to warnings (a JSON array) naming source and
 * line; the value in cfg is then left as it was.
 */
void ps_config_parse_text(struct ps_config *cfg, const char *text, size_t len, const char *source,
			  json_object *warnings);

/* Apply probestick.plan=, .then=, .console= from a kernel command line. */
void ps_config_parse_cmdline(struct ps_config *cfg, const char *cmdline, json_object *warnings);

/*
 * Read cfg_path (NULL: none) then cmdline_path (NULL: none) and apply both,
 * the command line last. A missing or unreadable file is a warning.
 */
void ps_config_load(struct ps_config *cfg, const char *cfg_path, const char *cmdline_path,
		    json_object *warnings);

/*
 * Check one key=value, a core key or a step's; 0 and cfg updated, or -EINVAL
 * and why[] says what is wrong, or -ENOENT for a key no one declares.
 */
int ps_config_set(struct ps_config *cfg, const char *key, const char *value, char *why,
		  size_t whylen);

/* The text of a key in cfg (a core key or a step's), or NULL for an unknown key. */
const char *ps_config_text(const struct ps_config *cfg, const char *key);

/*
 * Every setting a step declares (ops->settings of the steps compiled in, in
 * their order; a key declared twice is kept once), and the core's own keys
 * with the help of each: for the report's config{}, its schema and the menu.
 */
const struct ps_setting *const *ps_settings(size_t *n);
struct ps_core_key {
	const char *key, *help;
};
const struct ps_core_key *ps_config_core_keys(size_t *n);

/*
 * The wall meter's readings in cfg (wall_idle=, wall_load=; NAN where none
 * or not a reading), where they came from and when (texts in cfg).
 */
struct ps_wall ps_config_wall(const struct ps_config *cfg);

/* The collector's keys of cfg, for ps_collect_start (texts in cfg). */
struct ps_collect_keys ps_config_collect_keys(const struct ps_config *cfg);

/*
 * A key's text as a report may show it (NULL: a key no one declares): a
 * secret hidden, the collector's URL without its user:password@, a
 * password as "(not shown)". buf: room for it (PS_CONFIG_SHOWN_MAX).
 */
#define PS_CONFIG_SHOWN_MAX 512
const char *ps_config_shown(const struct ps_config *cfg, const char *key, char *buf, size_t len);

/* Split a console= value into terminals; returns the count or -EINVAL (why[] says why). */
int ps_console_spec_parse(const char *spec, struct ps_term_spec *terms, int max, char *why,
			  size_t whylen);

#endif
