/* test_uring_io.c - the io_uring engine on regular temp files: whole and
 * wrapped regions, QD1 and QD8, short tails, retries, read errors, engine
 * errors, the O_DIRECT fallback, stop and time budget (faults injected). */
#include "check.h"
#include "engines/io/uring_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_SIZE (1048576 + 12345) /* not a multiple of any block size */

static char path[] = "/var/tmp/test_uring_io.XXXXXX";

static void make_file(void)
{
	int fd = mkstemp(path);
	char buf[4096];
	size_t left = FILE_SIZE;

	CHECK(fd >= 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7 + 3);
	while (left > 0) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		CHECK(write(fd, buf, n) == (ssize_t)n);
		left -= n;
	}
	close(fd);
}

struct faults {
	int mode;
	uint64_t at; /* the piece starting here is hit */
	int hits;
	uint64_t err_off;
	unsigned int err_len;
	int err, n_errors;
};

enum {
	F_NONE,
	F_SHORT,
	F_EAGAIN_ONCE,
	F_EAGAIN_ALWAYS,
	F_EIO_AT,
	F_ENODEV_AT,
	F_EINVAL,
	F_NO_DIRECT
};

static int fault_open(void *arg, const char *p, int flags)
{
	struct faults *f = arg;

	return f->mode == F_NO_DIRECT && (flags & O_DIRECT) ? -EINVAL : 0;
}

static int fault_complete(void *arg, uint64_t off, unsigned int len, int res)
{
	struct faults *f = arg;

	switch (f->mode) {
	case F_SHORT: /* every read stops after 4 KiB: the engine must continue it */
		return res > 4096 ? 4096 : res;
	case F_EAGAIN_ONCE:
		if (off == f->at && f->hits++ == 0)
			return -EAGAIN;
		return res;
	case F_EAGAIN_ALWAYS:
		return off == f->at ? -EAGAIN : res;
	case F_EIO_AT:
		return off == f->at ? -EIO : res;
	case F_ENODEV_AT:
		return off >= f->at ? -ENODEV : res;
	case F_EINVAL:
		return -EINVAL;
	default:
		return res;
	}
}

static void on_error(void *arg, uint64_t off, unsigned int len, int err)
{
	struct faults *f = arg;

	f->err_off = off;
	f->err_len = len;
	f->err = err;
	f->n_errors++;
}

static bool stop_now(void *arg)
{
	return true;
}

static int run(int fd, uint64_t offset, uint64_t length, unsigned int bs, unsigned int qd,
	       struct faults *f, struct ps_lat_hist *lat, struct ps_uio_result *r)
{
	struct ps_uio_faults hooks = {.open = fault_open, .complete = fault_complete, .arg = f};
	struct ps_uio_job j = {
	    .fd = fd,
	    .size = FILE_SIZE,
	    .offset = offset,
	    .length = length,
	    .bs = bs,
	    .qd = qd,
	    .on_error = on_error,
	    .error_arg = f,
	    .lat = lat,
	    .faults = &hooks,
	};

	return ps_uio_read(&j, r);
}

static void test_whole_file(int fd)
{
	static const struct {
		unsigned int bs, qd;
		uint64_t ios;
	} cases[] = {
	    {65536, 1, 17}, {65536, 8, 17}, {4096, 1, 260}, {4096, 8, 260}, {1048576, 8, 2},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct faults f = {0};
		struct ps_uio_result r;
		struct ps_lat_hist lat;

		ps_lat_init(&lat);
		CHECK_INT(run(fd, 0, FILE_SIZE, cases[i].bs, cases[i].qd, &f, &lat, &r), 0);
		CHECK_INT(r.bytes, FILE_SIZE);
		CHECK_INT(r.ios, cases[i].ios);
		CHECK_INT(r.errors, 0);
		CHECK_INT(r.short_reads, 0); /* the short tail is the end, not a retry */
		CHECK(!r.eof && !r.stopped && !r.time_up);
		CHECK_INT(lat.count, cases[i].ios);
		CHECK(r.seconds > 0);
		CHECK(r.fixed_buffers || geteuid() != 0);
	}
}

/* kB of a "VmRSS:"-style line of /proc/self/status, -1 when absent. */
static long status_kb(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ':')
			v = strtol(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

/* Whether the page at p is mapped in this process (mincore says ENOMEM when not). */
static bool mapped(const void *p)
{
	unsigned char vec;
	void *page = (void *)((uintptr_t)p & ~(uintptr_t)4095);

	return mincore(page, 4096, &vec) == 0;
}

static void note_buffer(void *arg, const unsigned char *buf, uint64_t off, unsigned int len)
{
	*(const unsigned char **)arg = buf;
}

/*
 * disk_read's runs in a row at 256 MiB (issue 29): each run of seq 1M QD8
 * pins 8 MiB. A run must give its buffers back when it returns: none still
 * pinned (closing a ring only queues its teardown) and none still mapped. A
 * malloc heap chunk stays mapped after free(), and the plan's long-lived
 * allocations between runs kept it from being reused: in a 256 MiB guest
 * every run left its 8 MiB resident until the OOM killer ended the plan.
 */
static void test_buffers_returned(int fd)
{
	long rss0, rss, pin;
	void *keep[12];

	rss0 = status_kb("VmRSS");
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		const unsigned char *buf = NULL;
		struct ps_uio_result r;
		struct ps_uio_job j = {.fd = fd,
				       .size = FILE_SIZE,
				       .length = FILE_SIZE,
				       .bs = 1048576,
				       .qd = 8,
				       .on_data = note_buffer,
				       .data_arg = &buf};

		CHECK_INT(ps_uio_read(&j, &r), 0);
		CHECK(buf != NULL && !mapped(buf));
		pin = status_kb("VmPin");
		if (pin >= 0)
			CHECK_INT(pin, 0);
		keep[i] = malloc(200 + i); /* what a step keeps between runs: its report */
		CHECK(keep[i] != NULL);
	}
	rss = status_kb("VmRSS");
	printf("12 runs of 1M QD8 (8 MiB of buffers each): VmRSS %ld -> %ld kB\n", rss0, rss);
	CHECK(rss0 < 0 || rss < rss0 + 8192);
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		free(keep[i]);
}

static void test_regions(int fd)
{
	struct faults f = {0};
	struct ps_uio_result r;

	/* From the middle, once around: every byte once, the tail and the head. */
	CHECK_INT(run(fd, 524288, FILE_SIZE, 65536, 8, &f, NULL, &r), 0);
	CHECK_INT(r.bytes, FILE_SIZE);
	CHECK_INT(r.ios, 17);
	/* A region shorter than a block. */
	CHECK_INT(run(fd, 0, 102400, 65536, 1, &f, NULL, &r), 0);
	CHECK_INT(r.bytes, 102400);
	CHECK_INT(r.ios, 2);
	/* Twice around the file. */
	CHECK_INT(run(fd, 0, 2ULL * FILE_SIZE, 262144, 4, &f, NULL, &r), 0);
	CHECK_INT(r.bytes, 2ULL * FILE_SIZE);
	CHECK_INT(run(fd, 0, 0, 4096, 1, &f, NULL, &r), 0);
	CHECK_INT(r.bytes, 0);
	CHECK_INT(r.ios, 0);
}

static void test_faults(int fd)
{
	struct faults f = {.mode = F_SHORT};
	struct ps_uio_result r;

	/* Short reads are continued until the request is whole. */
	CHECK_INT(run(fd, 0, FILE_SIZE, 65536, 8, &f, NULL, &r), 0);
	CHECK_INT(r.bytes, FILE_SIZE);
	CHECK_INT(r.ios, 17);
	CHECK_INT(r.short_reads, 16 * 15 + 3); /* 15 per full 64K, 3 in the 16K+ tail */

	f = (struct faults){.mode = F_EAGAIN_ONCE, .at = 131072};
	CHECK_INT(run(fd, 0, FILE_SIZE, 65536, 4, &f, NULL, &r), 0);
	CHECK_INT(r.bytes, FILE_SIZE);
	CHECK_INT(r.retries, 1);
	CHECK_INT(r.errors, 0);

	/* EIO: reported with its place, skipped, the rest still read. */
	f = (struct faults){.mode = F_EIO_AT, .at = 131072};
	CHECK_INT(run(fd, 0, FILE_SIZE, 65536, 8, &f, NULL, &r), 0);
	CHECK_INT(r.errors, 1);
	CHECK_INT(f.n_errors, 1);
	CHECK_INT(f.err, EIO);
	CHECK_INT(f.err_off, 131072);
	CHECK_INT(f.err_len, 65536);
	CHECK_INT(r.bytes, FILE_SIZE - 65536);
	CHECK_INT(r.ios, 16);

	/* EAGAIN past the retry limit: the engine gave up, the medium is not blamed. */
	f = (struct faults){.mode = F_EAGAIN_ALWAYS, .at = 131072};
	CHECK_INT(run(fd, 0, FILE_SIZE, 65536, 4, &f, NULL, &r), -EAGAIN);
	CHECK_INT(r.errors, 0);
	CHECK_INT(f.n_errors, 0);
	CHECK(r.retries > 1);
	CHECK(!r.device_gone);

	/* The drive leaves: its presence is the problem, not sectors. */
	f = (struct faults){.mode = F_ENODEV_AT, .at = 262144};
	CHECK_INT(run(fd, 0, FILE_SIZE, 65536, 1, &f, NULL, &r), -ENODEV);
	CHECK(r.device_gone);
	CHECK_INT(f.n_errors, 0);
	CHECK_INT(r.bytes, 262144);
	CHECK(ps_uio_media_error(EIO) && ps_uio_media_error(ENODATA) &&
	      ps_uio_media_error(ETIMEDOUT));
	CHECK(!ps_uio_media_error(EAGAIN) && !ps_uio_media_error(ENODEV) &&
	      !ps_uio_media_error(EINVAL));
	CHECK(ps_uio_device_gone(ENXIO) && ps_uio_device_gone(ENOMEDIUM) &&
	      !ps_uio_device_gone(EIO));

	/* EINVAL is the engine's problem (alignment, no O_DIRECT), not the medium's. */
	f = (struct faults){.mode = F_EINVAL};
	CHECK_INT(run(fd, 0, FILE_SIZE, 65536, 8, &f, NULL, &r), -EINVAL);
	CHECK_INT(r.errors, 0);
	CHECK_INT(f.n_errors, 0);
}

static void test_bad_jobs(int fd)
{
	struct faults f = {0};
	struct ps_uio_result r;

	CHECK_INT(run(fd, 0, FILE_SIZE, 1000, 1, &f, NULL, &r), -EINVAL);
	CHECK_INT(run(fd, 0, FILE_SIZE, 4096, 0, &f, NULL, &r), -EINVAL);
	CHECK_INT(run(fd, 0, FILE_SIZE, 4096, PS_UIO_MAX_QD + 1, &f, NULL, &r), -EINVAL);
	CHECK_INT(run(fd, 2048, FILE_SIZE, 4096, 1, &f, NULL, &r), -EINVAL);
	CHECK_INT(run(fd, 2 * 1048576, FILE_SIZE, 4096, 1, &f, NULL, &r), -EINVAL);
	CHECK_INT(run(-1, 0, FILE_SIZE, 4096, 1, &f, NULL, &r), -EINVAL);
}

static void test_stop_and_budget(int fd)
{
	struct ps_uio_result r;
	struct ps_uio_job j = {
	    .fd = fd,
	    .size = FILE_SIZE,
	    .length = 1ULL << 40, /* wraps for ever: only a stop ends it */
	    .bs = 65536,
	    .qd = 8,
	    .check_ms = 1,
	    .should_stop = stop_now,
	};

	CHECK_INT(ps_uio_read(&j, &r), 0);
	CHECK(r.stopped);
	CHECK(!r.time_up);
	CHECK(r.bytes < j.length);
	CHECK(r.seconds < 1.0);

	j.should_stop = NULL;
	j.time_budget_s = 0.2;
	CHECK_INT(ps_uio_read(&j, &r), 0);
	CHECK(r.time_up);
	CHECK(!r.stopped);
	CHECK(r.seconds >= 0.2 && r.seconds < 2.0);
	CHECK(r.bytes > FILE_SIZE);
}

static void test_open(void)
{
	struct faults f = {.mode = F_NO_DIRECT};
	struct ps_uio_faults hooks = {.open = fault_open, .arg = &f};
	bool direct = true;
	uint64_t size = 0;
	int fd;

	/* A file system refusing O_DIRECT gets a buffered open, marked as such. */
	fd = ps_uio_open(path, true, &direct, &hooks);
	CHECK(fd >= 0);
	CHECK(!direct);
	close(fd);
	fd = ps_uio_open(path, false, &direct, &hooks);
	CHECK(fd >= 0);
	CHECK(!direct);
	CHECK_INT(fcntl(fd, F_GETFL) & (O_ACCMODE | O_DIRECT), O_RDONLY);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	CHECK_INT(ps_uio_size(fd, &size), 0);
	CHECK_INT(size, FILE_SIZE);
	close(fd);
	/* /var/tmp on a disk file system takes O_DIRECT. */
	fd = ps_uio_open(path, true, &direct, NULL);
	CHECK(fd >= 0);
	if (direct)
		CHECK(fcntl(fd, F_GETFL) & O_DIRECT);
	close(fd);

	CHECK_INT(ps_uio_open("/nonexistent/drive", true, &direct, NULL), -ENOENT);
	fd = ps_uio_open("/dev/null", false, &direct, NULL);
	CHECK(fd >= 0);
	CHECK_INT(ps_uio_size(fd, &size), -ENOTBLK);
	close(fd);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A drive that answers nothing: a pipe no one writes to, until the stop check does. */
struct silent_drive {
	int wfd;
	unsigned int checks;
	double first_check_s, t0;
};

static bool feed_on_check(void *arg)
{
	struct silent_drive *d = arg;
	char buf[4 * 4096];

	if (d->checks++ == 0) {
		d->first_check_s = mono_s() - d->t0;
		memset(buf, 0x5a, sizeof(buf));
		CHECK(write(d->wfd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	}
	return false;
}

static void test_silent_drive(void)
{
	struct silent_drive d = {0};
	struct ps_uio_result r;
	struct ps_lat_hist lat;
	int p[2];

	CHECK(pipe(p) == 0);
	ps_lat_init(&lat);
	d.wfd = p[1];
	d.t0 = mono_s();
	{
		/* four reads in flight and nothing completing: only the engine's own
		 * timer can wake it for the stop check, which then feeds the pipe */
		struct ps_uio_job j = {.fd = p[0],
				       .size = 1 << 20,
				       .length = 4 * 4096,
				       .bs = 4096,
				       .qd = 4,
				       .check_ms = 30,
				       .should_stop = feed_on_check,
				       .stop_arg = &d,
				       .lat = &lat};

		alarm(20); /* a lost wake-up hangs: fail instead */
		CHECK_INT(ps_uio_read(&j, &r), 0);
		alarm(0);
	}
	CHECK(d.checks >= 1);
	CHECK(d.first_check_s >= 0.025);
	CHECK_INT(r.ios, 4);
	CHECK_INT(r.bytes, 4 * 4096);
	/* each read waited for the feed: its latency covers the silent 30 ms */
	CHECK_INT(lat.count, 4);
	CHECK(lat.min_ns >= 25000000);
	close(p[0]);
	close(p[1]);
}

/* Real tmpfs: refused O_DIRECT (before 6.6) falls back; accepted, it reads. */
static void test_tmpfs(void)
{
	char p[] = "/dev/shm/test_uring_io.XXXXXX";
	int fd = mkstemp(p);
	struct ps_uio_result r;
	bool direct;

	if (fd < 0)
		return; /* no /dev/shm here: nothing to learn */
	CHECK(ftruncate(fd, 3 * 65536 + 100) == 0);
	close(fd);
	fd = ps_uio_open(p, true, &direct, NULL);
	CHECK(fd >= 0);
	{
		struct ps_uio_job j = {.fd = fd,
				       .size = 3 * 65536 + 100,
				       .length = 3 * 65536 + 100,
				       .bs = 65536,
				       .qd = 2};

		CHECK_INT(ps_uio_read(&j, &r), 0);
		CHECK_INT(r.bytes, 3 * 65536 + 100);
		CHECK_INT(r.ios, 4);
	}
	printf("tmpfs O_DIRECT: %s\n", direct ? "accepted" : "refused, buffered fallback");
	close(fd);
	unlink(p);
}

int main(void)
{
	int fd;
	bool direct = false;

	make_file();
	fd = ps_uio_open(path, true, &direct, NULL);
	CHECK(fd >= 0);
	printf("%s: O_DIRECT %s\n", path, direct ? "yes" : "no");
	test_whole_file(fd);
	test_buffers_returned(fd);
	test_regions(fd);
	test_faults(fd);
	test_bad_jobs(fd);
	test_stop_and_budget(fd);
	close(fd);
	test_silent_drive();
	test_open();
	test_tmpfs();
	unlink(path);
	return check_done("test_uring_io");
}
