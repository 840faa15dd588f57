/* config.h - probestick.cfg and kernel command line settings: what to run and what to do after. */
#ifndef PS_CONFIG_H
#define PS_CONFIG_H

#include "engines/net/spec.h"

#include <json-c/json.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define PS_MAX_TERMS 8

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
	char surface[16];  /* surface scan: sampled | full */
	char scratch[512]; /* serials of confirmed scratch drives, comma separated ("": none) */
	char peer[80];	/* HOST[:PORT]: an iperf3 server or a stick in server mode; "" discover */
	char net[80];	/* auto | dhcp | ADDR/LEN[,GW]: the address of the port facing a peer */
	char mtu[16];	/* max | keep | N: the MTU the jumbo-frame tests set */
	char bond[16];	/* off | balance-rr | 802.3ad: nic_aggregate also over a bond */
	char array[64]; /* RAID levels the array step builds ("1,5,6"); "" none */
	char array_chunk[16];	    /* md chunk size of those arrays ("512K") */
	char array_extrapolate[24]; /* a member size rebuild times are scaled to ("2TB"); "" none */
	char memtest[16]; /* the memtest step's size: SIZE (256M, 2G) or N% of free; "" its default
			   */
	char burnin[16];  /* the burnin step's budget: 90s, 10m, 1h, 1h30m; "" its default */
	struct ps_net_want net_want; /* net=, peer= and mtu= parsed */
};

/*
 * memtest=: a size with a unit (K, M, G, T: binary; "256M") into *bytes and
 * *pct 0, or "N%" (1..90) of the available memory into *pct and *bytes 0.
 * Pure; -EINVAL.
 */
int ps_memtest_spec_parse(const char *s, uint64_t *bytes, unsigned int *pct);

/* burnin=: "90s", "10m", "1h", "1h30m" (a bare number is seconds), 10 s to 7 days. Pure; -EINVAL.
 */
int ps_duration_parse(const char *s, unsigned int *seconds);

/* cfg->net_want from the net=, peer= and mtu= texts (ps_config_set keeps it current). */
void ps_config_net_want(struct ps_config *cfg);

/* Defaults: plan from Kconfig (CONFIG_DEFAULT_PLAN), then=menu, console=tty0,ttyS0. */
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

/* Check one key=value; 0 and cfg updated, or -EINVAL and why[] says what is wrong. */
int ps_config_set(struct ps_config *cfg, const char *key, const char *value, char *why,
		  size_t whylen);

/* Split a console= value into terminals; returns the count or -EINVAL (why[] says why). */
int ps_console_spec_parse(const char *spec, struct ps_term_spec *terms, int max, char *why,
			  size_t whylen);

#endif
