/* uring_io.h - a small io_uring read engine: one ring per job, QD requests of
 * BS bytes over a region, with user-visible latencies, retries and read errors. */
#ifndef PS_IO_URING_IO_H
#define PS_IO_URING_IO_H

#include "lib/stats.h"

#include <stdbool.h>
#include <stdint.h>

#define PS_UIO_ALIGN  4096U /* buffer, offset and request alignment (O_DIRECT on 4Kn drives) */
#define PS_UIO_MAX_QD 256U

/*
 * Fault injection, compiled always so that tests reach the paths real
 * hardware takes only when it fails. Every hook is optional.
 */
struct ps_uio_faults {
	/* Before open(2): a negative errno fails this open with it; 0 lets it go on. */
	int (*open)(void *arg, const char *path, int flags);
	/* At each completion: returns the result to use instead of res (the
	 * piece read was [offset, offset + len)): res itself, a shorter count,
	 * or a negative errno. */
	int (*complete)(void *arg, uint64_t offset, unsigned int len, int res);
	void *arg;
};

/*
 * Opens path for writing (O_RDWR | O_EXCL | O_CLOEXEC: a block device that is
 * mounted or held by md/dm refuses with EBUSY), with O_DIRECT when asked and
 * the same fallback as ps_uio_open. Only disk_write uses it. fd or -errno.
 */
int ps_uio_open_rw(const char *path, bool want_direct, bool *direct, const struct ps_uio_faults *f);

/*
 * Opens path read-only (O_RDONLY | O_CLOEXEC), with O_DIRECT when asked.
 * A file system that refuses O_DIRECT (EINVAL: tmpfs before 6.6) gets a
 * buffered open instead, and *direct says which one it is. fd or -errno.
 */
int ps_uio_open(const char *path, bool want_direct, bool *direct, const struct ps_uio_faults *f);

/* Bytes in a block device (BLKGETSIZE64) or regular file; 0 or -errno. */
int ps_uio_size(int fd, uint64_t *size);

struct ps_uio_job {
	int fd;
	uint64_t size;	       /* where positions wrap to 0: the device or region size */
	uint64_t offset;       /* first byte, a multiple of PS_UIO_ALIGN below size */
	uint64_t length;       /* bytes to read from offset on, wrapping at size */
	unsigned int bs;       /* request size, a multiple of PS_UIO_ALIGN */
	unsigned int qd;       /* requests in flight, 1..PS_UIO_MAX_QD */
	double time_budget_s;  /* no new request after this long; 0: no limit */
	unsigned int check_ms; /* should_stop is asked at least this often; 0: 50 */
	bool (*should_stop)(void *arg);
	void *stop_arg;
	/* Optional, called with stop_arg at every stop check: bytes read so far. */
	void (*progress)(void *arg, uint64_t bytes);
	/* A piece the medium could not give (ps_uio_media_error): the job skips it and goes on. */
	void (*on_error)(void *arg, uint64_t offset, unsigned int len, int err);
	void *error_arg;
	struct ps_lat_hist *lat; /* optional: per-request latency, submit to last completion */
	const struct ps_uio_faults *faults;
	/* Random mode (the benchmark): each request reads bs bytes at a random
	 * bs-aligned position in [offset, size); length still bounds the bytes. */
	bool random;
	uint64_t seed; /* of the position generator; 0 picks a fixed one */
	/* Writes instead of reads (disk_write, on a confirmed scratch drive only):
	 * fill, when given, writes each request's data before it is submitted. */
	bool write;
	void (*fill)(void *arg, unsigned char *buf, uint64_t offset, unsigned int len);
	/* Reads: called with the data of each completed piece (a verify pass). */
	void (*on_data)(void *arg, const unsigned char *buf, uint64_t offset, unsigned int len);
	void *data_arg; /* of fill and on_data */
};

struct ps_uio_result {
	uint64_t bytes;		 /* read (or written) successfully */
	uint64_t ios;		 /* requests completed with data */
	uint64_t errors;	 /* requests that failed (on_error was called) */
	uint64_t retries;	 /* EAGAIN / EINTR completions resubmitted */
	uint64_t short_reads;	 /* partial completions continued with a new request */
	double seconds;		 /* first submission to last completion */
	bool stopped;		 /* should_stop said so */
	bool time_up;		 /* time_budget_s ran out before length */
	bool eof;		 /* the file ended before size said it would */
	bool device_gone;	 /* ENODEV/ENXIO/ENOMEDIUM: the drive left (the job stopped) */
	unsigned int ring_flags; /* IORING_SETUP_* the ring got */
	bool fixed_buffers;	 /* the buffers were registered */
};

/* EIO-class results on a present device: these sectors cannot be read. */
bool ps_uio_media_error(int err);
/* The device went away (ENODEV, ENXIO, ENOMEDIUM): its presence, not its media. */
bool ps_uio_device_gone(int err);

/*
 * Runs the job: 0 with *res filled, read errors included (they are
 * findings, not failures of the engine); -errno when the engine itself
 * could not work (ring setup, memory, bad job, EINVAL from a read: an
 * alignment O_DIRECT does not accept, EAGAIN past the retry limit), or the
 * device went away (res->device_gone). *res holds what was done even then.
 */
int ps_uio_read(const struct ps_uio_job *job, struct ps_uio_result *res);
/* The same job as writes: job->write must be set (a guard against a read job by mistake). */
int ps_uio_write(const struct ps_uio_job *job, struct ps_uio_result *res);

#endif
