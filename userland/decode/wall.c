/* wall.c - a wall meter's reading as a person types it (probestick.cfg, the menu). */
#include "decode/wall.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ps_wall_parse(const char *s, double *watts)
{
	const char *p = s;
	char *end;
	double v;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return -ENODATA;
	/* digits and one point only: no sign, exponent, hex, inf or nan */
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return -EINVAL;
	v = strtod(p, &end);
	for (const char *q = p; q < end; q++)
		if (!isdigit((unsigned char)*q) && *q != '.')
			return -EINVAL;
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end == 'W' || *end == 'w')
		end++;
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end || !isfinite(v) || v < 0.1 || v > 100000)
		return -EINVAL;
	*watts = v;
	return 0;
}
