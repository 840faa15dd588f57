/* serve.h - server mode: this machine as the peer of another stick (probestick serve). */
#ifndef PS_SERVE_H
#define PS_SERVE_H

#include <stdbool.h>

struct ps_config;
struct ps_console;

struct ps_serve_opts {
	const struct ps_config *cfg; /* net=, mtu= */
	struct ps_console *con;	     /* messages; a key there ends server mode */
	const char *ports;	     /* comma-separated names, NULL: every free physical port */
	double seconds;		     /* > 0: end after this long (tests) */
	bool no_export;		     /* no RAM disk and no nbd-server */
};

/* Serve until a key, SIGINT/SIGTERM or the time given; everything put back. 0 or 1. */
int ps_serve_run(const struct ps_serve_opts *o);

#endif
