/* upload.c - a run's files onto the collector through a temporary name and MOVE. */
#include "collect/upload.h"

#include <stdio.h>
#include <string.h>

void ps_upload_part_name(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, ".%s.part", name);
}

static int url_of(const struct ps_url *base, const char *const *segs, size_t n, bool dir, char *buf,
		  size_t len, struct ps_http_result *res)
{
	if (ps_url_join(base, segs, n, dir, buf, len) == 0)
		return 0;
	memset(res, 0, sizeof(*res));
	res->fail = PS_HTTP_LOCAL;
	snprintf(res->why, sizeof(res->why), "the run's path below the collector is too long");
	return -1;
}

int ps_upload_folders(struct ps_http *h, const struct ps_url *base, const char *machine,
		      const char *run, struct ps_http_result *res)
{
	const char *segs[] = {machine, run};
	char url[1200];

	for (size_t n = 1; n <= 2; n++) {
		if (url_of(base, segs, n, true, url, sizeof(url), res) < 0)
			return -1;
		if (ps_http_request(h, "MKCOL", url, NULL, 0, NULL, res) == 0)
			continue;
		/* 405: it is there already */
		if (res->status == 405) {
			res->fail = PS_HTTP_OK;
			continue;
		}
		return -1;
	}
	return 0;
}

int ps_upload_file(struct ps_http *h, const struct ps_url *base, const char *machine,
		   const char *run, const char *name, const void *data, size_t len,
		   struct ps_http_result *res)
{
	char part[128], tmp_url[1200], url[1200];
	const char *tmp_segs[] = {machine, run, part}, *segs[] = {machine, run, name};

	ps_upload_part_name(name, part, sizeof(part));
	if (url_of(base, tmp_segs, 3, false, tmp_url, sizeof(tmp_url), res) < 0 ||
	    url_of(base, segs, 3, false, url, sizeof(url), res) < 0)
		return -1;
	if (ps_http_request(h, "PUT", tmp_url, data, len, NULL, res) < 0)
		return -1;
	return ps_http_request(h, "MOVE", tmp_url, NULL, 0, url, res);
}
