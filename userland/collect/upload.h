/*
 * upload.h - one file of a run onto the collector so that a cut at any
 * moment leaves the collector's copy whole: the bytes go to a temporary
 * name beside it (.NAME.part) and a WebDAV MOVE puts them in its place,
 * which a server does by renaming; a half-sent file is only ever the
 * temporary one, which the next try overwrites. The run's folders are made
 * with MKCOL (an existing one is fine), so any WebDAV server will do.
 */
#ifndef PS_COLLECT_UPLOAD_H
#define PS_COLLECT_UPLOAD_H

#include "collect/http.h"
#include "collect/url.h"

/*
 * The folders <base>/<machine>/ and <base>/<machine>/<run>/: 0, or -1 with
 * res (a 405 for a folder that exists is success).
 */
int ps_upload_folders(struct ps_http *h, const struct ps_url *base, const char *machine,
		      const char *run, struct ps_http_result *res);

/* <base>/<machine>/<run>/<name> holds data afterwards, whole. 0, or -1 with res. */
int ps_upload_file(struct ps_http *h, const struct ps_url *base, const char *machine,
		   const char *run, const char *name, const void *data, size_t len,
		   struct ps_http_result *res);

/* The temporary name of name: ".name.part". Pure. */
void ps_upload_part_name(const char *name, char *buf, size_t len);

#endif
