/* config.h - probestick.cfg and kernel command line settings: what to run and what to do after. */
#ifndef PS_CONFIG_H
#define PS_CONFIG_H

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
	/* OpenStack Ironic (collect/inspector.h, README "With OpenStack Ironic"): "" none */
	char inspect[512];    /* ironic-inspector's callback (ipa-inspection-callback-url=) */
	char ironic_node[64]; /* the node's UUID, for a deploy's report and the collector */
};

/* net=: how the port facing a peer gets its address. */
struct ps_net_spec {
	enum { PS_NET_AUTO = 0, PS_NET_DHCP, PS_NET_STATIC } how;
	struct in_addr addr, gw;
	int prefix;
	bool has_gw;
};
/* "auto" (or ""), "dhcp", "ADDR/LEN[,GW]": 0, or -EINVAL and why[]. Pure. */
int ps_net_spec_parse(const char *s, struct ps_net_spec *out, char *why, size_t whylen);

/* peer=: an IPv4 address and a port (5201 when not given). Pure; "" gives port 0. */
int ps_peer_spec_parse(const char *s, struct in_addr *addr, int *port, char *why, size_t whylen);

/* mtu=: 0 for keep, -1 for max (the driver's largest), else the MTU. Pure; -EINVAL. */
int ps_mtu_spec_parse(const char *s, int *mtu);

/*
 * memtest=: a size with a unit (K, M, G, T: binary; "256M") into *bytes and
 * *pct 0, or "N%" (1..90) of the available memory into *pct and *bytes 0.
 * Pure; -EINVAL.
 */
int ps_memtest_spec_parse(const char *s, uint64_t *bytes, unsigned int *pct);

/* burnin=: "90s", "10m", "1h", "1h30m" (a bare number is seconds), 10 s to 7 days. Pure; -EINVAL.
 */
int ps_duration_parse(const char *s, unsigned int *seconds);

/* Defaults: plan from Kconfig (CONFIG_DEFAULT_PLAN), then=menu, console=tty0,ttyS0. */
void ps_config_defaults(struct ps_config *cfg);

/*
 * Parse probestick.cfg text (len bytes, may hold NULs or garbage). Each
 * problem appends one string to warnings (a JSON array) naming source and
 * line; the value in cfg is then left as it was.
 */
void ps_config_parse_text(struct ps_config *cfg, const char *text, size_t len, const char *source,
			  json_object *warnings);

/*
 * Apply probestick.plan=, .then=, .console= from a kernel command line, and
 * ironic-inspector's ipa-inspection-callback-url= as inspect= (that, or
 * probestick.inspect=, with ps_config_unattended: an inspection has nobody
 * at the console).
 */
void ps_config_parse_cmdline(struct ps_config *cfg, const char *cmdline, json_object *warnings);

/* No menu: plan=menu becomes quick, then=menu poweroff (what else was said stays). */
void ps_config_unattended(struct ps_config *cfg);

/*
 * Read cfg_path (NULL: none) then cmdline_path (NULL: none) and apply both,
 * the command line last. A missing or unreadable file is a warning.
 */
void ps_config_load(struct ps_config *cfg, const char *cfg_path, const char *cmdline_path,
		    json_object *warnings);

/* Check one key=value; 0 and cfg updated, or -EINVAL and why[] says what is wrong. */
int ps_config_set(struct ps_config *cfg, const char *key, const char *value, char *why,
		  size_t whylen);

/* Keys whose values no message, report or log shows: a password, or a URL that may hold one
 * (core/redact.c). */
bool ps_config_secret(const char *key);

/*
 * The kernel command line as a report may show it: the values of secret
 * keys (probestick.collect_password=) and a URL's user:password@ replaced
 * by "*". In place. Pure.
 */
void ps_config_redact_cmdline(char *cmdline);

/* A URL without its user:password@ (len >= strlen(url) + 1). Pure. */
void ps_config_redact_url(const char *url, char *out, size_t len);

/* Split a console= value into terminals; returns the count or -EINVAL (why[] says why). */
int ps_console_spec_parse(const char *spec, struct ps_term_spec *terms, int max, char *why,
			  size_t whylen);

#endif
