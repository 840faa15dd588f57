/*
 * fuzz_nbd.c - what an NBD server on the segment answers (the net_storage
 * step trusts no peer): the input is the server's side of the stream, from
 * its greeting on, and ps_nbd_handshake reads it through a socket pair as
 * it reads a real connection; the pure greeting and reply parsers too.
 */
// fuzz-sources: all
#include "fuzz.h"

#include "engines/net/nbd.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_nbd_export ex;
	char why[160];
	uint16_t hflags;
	uint32_t opt, type, dlen;
	int sv[2], r, sndbuf = 1 << 20;

	(void)ps_nbd_parse_greeting(data, size, &hflags);
	(void)ps_nbd_parse_reply(data, size, &opt, &type, &dlen);
	if (size > 1 << 18)
		return 0;
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	/* the whole answer, then the server hangs up: every read ends at once */
	FUZZ_CHECK(size == 0 || write(sv[1], data, size) == (ssize_t)size);
	shutdown(sv[1], SHUT_WR);
	why[0] = '\0';
	r = ps_nbd_handshake(sv[0], "probestick", &ex, why, sizeof(why));
	FUZZ_CHECK(r == 0 || r == -EPROTO || r == -ENOENT || r == -EACCES || r == -ECONNRESET);
	FUZZ_CHECK(memchr(why, '\0', sizeof(why)));
	if (r == 0)
		FUZZ_CHECK(ex.size > 0);
	else
		FUZZ_CHECK(why[0]);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
