/* fuzz_inspector.c - what ironic-inspector answers to probestick's callback (any bytes a
 * server on the boot network sends back): a node named only by a well-formed UUID, a message
 * only of printable, valid text. */
// fuzz-sources: collect/inspector_reply.c lib/json.c lib/util.c lib/store.c
#include "fuzz.h"

#include "collect/inspector.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char node[64], msg[200];
	int ret =
	    ps_inspector_reply((const char *)data, size, node, sizeof(node), msg, sizeof(msg));

	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENOMEM);
	FUZZ_CHECK(strlen(node) == 0 || strlen(node) == 36);
	for (const char *p = node; *p; p++)
		FUZZ_CHECK((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
			   (*p >= 'A' && *p <= 'F') || *p == '-');
	for (const char *p = msg; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= ' ' && *p != 0x7f);
	FUZZ_CHECK(ret == 0 || (!node[0] && !msg[0]));
	return 0;
}
