/* wall.h - what a person read from a wall power meter, idle and under full load (seed 001). */
#ifndef PS_DECODE_WALL_H
#define PS_DECODE_WALL_H

struct ps_wall {
	double idle_w, load_w; /* NAN: not entered */
	const char *source;    /* "probestick.cfg", "menu" */
	const char *entered;   /* RFC 3339 time it was entered, or NULL */
};

/*
 * A reading as a person types it: "105", "105W", "105.5 w", " 98 W ".
 * 0 and *watts, or -EINVAL (not a number of watts from 0.1 to 100000);
 * "" is -ENODATA. Pure.
 */
int ps_wall_parse(const char *s, double *watts);

#endif
