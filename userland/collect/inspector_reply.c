/* inspector_reply.c - what ironic-inspector answers to the callback: the node, or why not. */
#include "collect/inspector.h"
#include "lib/json.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static bool is_uuid(const char *s, size_t n)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23)
			? s[i] != '-'
			: !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
			    (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

int ps_inspector_reply(const char *body, size_t len, char *node, size_t nodelen, char *message,
		       size_t msglen)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o, *err;
	const char *s;

	node[0] = '\0';
	message[0] = '\0';
	if (!tok)
		return -ENOMEM;
	o = len <= INT32_MAX ? json_tokener_parse_ex(tok, body, (int)len) : NULL;
	json_tokener_free(tok);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -EINVAL;
	}
	s = ps_json_str(o, "uuid");
	if (s && is_uuid(s, strlen(s)) && nodelen > 36)
		snprintf(node, nodelen, "%s", s);
	err = ps_json_get(o, "error");
	s = ps_json_str(err, "message");
	if (!s)
		s = ps_json_str(o, "error"); /* older answers: a plain string */
	if (s)
		ps_text_clean(s, strlen(s), NULL, message, msglen);
	json_object_put(o);
	return 0;
}
