/* config.h - probestick.cfg and kernel command line settings: what to run and what to do after. */
#ifndef PS_CONFIG_H
#define PS_CONFIG_H

#include <json-c/json.h>
#include <stddef.h>

#define PS_MAX_TERMS 8

/* One terminal from console=: "ttyS0,115200" gives name ttyS0 and speed 115200. */
struct ps_term_spec {
	char name[32];
	unsigned int speed; /* baud, 0 = leave as it is */
};

struct ps_config {
	char plan[16];	   /* quick | full | menu */
	char then[16];	   /* poweroff | reboot | menu | shell */
	char console[128]; /* terminals, comma separated: "tty0,ttyS0,115200" */
	char stick[4096];  /* where the stick is mounted; "" when it was not found */
	char
	    boot_disk[64]; /* whole disk holding the stick ("sdb"), "" if unknown: never a target */
};

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
