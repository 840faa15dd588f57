/* coldplug.h - load the drivers for the hardware present (what udev's coldplug does), via libkmod.
 */
#ifndef PS_COLDPLUG_H
#define PS_COLDPLUG_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* A sorted set of strings (modaliases, module names). */
struct ps_strset {
	char **v;
	size_t n, cap;
};

/* 1 when added, 0 when already there, -ENOMEM. */
int ps_strset_add(struct ps_strset *s, const char *str);
bool ps_strset_has(const struct ps_strset *s, const char *str);
void ps_strset_free(struct ps_strset *s);

/*
 * Read every modalias under <root>/sys/devices (not following symlinks)
 * and <root>/sys/bus/<bus>/devices/<dev>/modalias. Aliases not yet in seen
 * are added to seen and to fresh. Returns how many were new, or -errno when
 * <root>/sys/devices cannot be read at all.
 */
int ps_coldplug_scan(const char *root, struct ps_strset *seen, struct ps_strset *fresh);

struct ps_coldplug_opts {
	const char *root;	 /* "" live */
	double settle_s;	 /* keep looking for new devices this long at most */
	const char *json_path;	 /* where coldplug.json goes */
	const char *modules_dir; /* NULL: <root>/lib/modules/<uname -r> (libkmod's default when root
				    is "") */
};

struct ps_coldplug_result {
	json_object *doc; /* what went to json_path: loaded, failed, unused, duration_s */
	size_t devices;	  /* modaliases seen */
	int rounds;
	double seconds;
	char error[512]; /* the first problem, "" when none */
};

/* Load drivers until no new device appears; write json_path. 0 or -errno; the caller
 * puts out->doc. */
int ps_coldplug_run(const struct ps_coldplug_opts *o, struct ps_coldplug_result *out);

/*
 * The board's Super I/O hardware monitor (superio_load.c): its chip ID read
 * through root's /dev/port decides the driver (by name for every one when
 * the ports are refused); a driver that attaches to nothing is unloaded
 * with its helpers. Module names go to loaded, unused and failed ({module,
 * error}) as the rest of coldplug's; returns coldplug.json's "superio".
 */
struct kmod_ctx;
json_object *ps_superio_load(struct kmod_ctx *ctx, const char *root, json_object *loaded,
			     json_object *unused, json_object *failed);

#endif
