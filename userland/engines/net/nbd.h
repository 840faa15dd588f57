/*
 * nbd.h - a disk over the network with the kernel's own NBD client: the
 * newstyle handshake with an NBD server (Debian's nbd-server on a stick in
 * server mode), then the socket handed to the kernel through the "nbd"
 * generic netlink family, so /dev/nbdN reads go over the wire and the disk
 * engine reads it like any drive. Also what the serving side runs.
 */
#ifndef PS_NET_NBD_H
#define PS_NET_NBD_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_nbd_export {
	uint64_t size;	/* bytes */
	uint16_t flags; /* transmission flags (NBD_FLAG_*) */
};

/*
 * The client's half of the fixed newstyle handshake on a connected socket:
 * NBD_OPT_GO for name (NBD_OPT_EXPORT_NAME when the server has no GO).
 * 0, or -errno with why (-ENOENT: no such export, -EACCES: refused, -EPROTO:
 * not NBD, or 64 option replies without an answer).
 */
int ps_nbd_handshake(int fd, const char *name, struct ps_nbd_export *ex, char *why, size_t whylen);

/* Pure parts of the handshake, for the tests: the server's greeting (0 or -EPROTO,
 * *handshake_flags), and one option reply header (0 or -EPROTO). */
int ps_nbd_parse_greeting(const uint8_t *buf, size_t len, uint16_t *handshake_flags);
int ps_nbd_parse_reply(const uint8_t *buf, size_t len, uint32_t *opt, uint32_t *type,
		       uint32_t *dlen);

/*
 * Hand the connected, negotiated socket to the kernel (NBD_CMD_CONNECT):
 * the kernel picks a free /dev/nbdN; *index gets N. The kernel keeps its
 * own reference; the caller may close fd. 0 or -errno (-ENOENT: no nbd
 * module, which ps_nbd_load_module loads).
 */
int ps_nbd_kernel_connect(int fd, const struct ps_nbd_export *ex, int *index, char *why,
			  size_t whylen);
int ps_nbd_kernel_disconnect(int index);
/* modprobe nbd (through libkmod); 0 or -errno. */
int ps_nbd_load_module(void);

/* ---- the serving side ---- */

/* A RAM disk (brd, /dev/ram0, unwritten pages read as zeros) of mib MiB: its path. */
int ps_ramdisk_create(unsigned int mib, char *path, size_t len, char *why, size_t whylen);

/*
 * nbd-server (Debian's) in the foreground, exporting path read-only as
 * export on port (PS_NBD_PORT when 0), configured in dir. Its pid or -errno.
 */
int ps_nbd_server_spawn(const char *dir, const char *export_name, const char *path, int port,
			char *why, size_t whylen);

#endif
