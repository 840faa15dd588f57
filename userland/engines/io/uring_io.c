/* uring_io.c - the io_uring engine behind disk_read, disk_write and the benchmark:
 * keeps QD aligned requests in flight, times each one, and survives what drives do. */
#include "engines/io/uring_io.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* A request that keeps failing with EAGAIN is given up as an error after this. */
#define MAX_RETRIES 100
/* The user_data of the wake-up timer's request; slots are numbered below PS_UIO_MAX_QD. */
#define TIMER_TAG UINT64_MAX

struct slot {
	uint64_t off;	   /* first byte of the request */
	unsigned int len;  /* bytes asked for */
	unsigned int done; /* bytes got so far (short reads continue) */
	unsigned int retries;
	uint64_t t0; /* ns of the first submission */
};

struct engine {
	const struct ps_uio_job *job;
	struct ps_uio_result *res;
	struct io_uring ring;
	unsigned char *buf;
	size_t buf_len; /* the mapping of buf, 0 when none */
	struct slot *slots;
	unsigned int *free_slots, n_free;
	unsigned int inflight;
	int fatal;	 /* first engine-side error, stops the job */
	bool fixed_file; /* the fd is registered: index 0 */
	/*
	 * The engine must wake for stop checks and the time budget even when the
	 * drive answers nothing, but a timeout on every wait arms and cancels a
	 * kernel timer at every sleep (1.5 us in a VM, where each arming is a
	 * VM exit). One timeout request in the ring instead, armed again only
	 * when it fires; timer_ts holds its deadline until the kernel took it.
	 */
	bool timer_armed, timer_per_wait; /* per_wait: the kernel refused the request */
	struct __kernel_timespec timer_ts;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int open_flags(const char *path, int flags, bool want_direct, bool *direct,
		      const struct ps_uio_faults *f);

int ps_uio_open(const char *path, bool want_direct, bool *direct, const struct ps_uio_faults *f)
{
	return open_flags(path, O_RDONLY | O_CLOEXEC, want_direct, direct, f);
}

int ps_uio_open_rw(const char *path, bool want_direct, bool *direct, const struct ps_uio_faults *f)
{
	return open_flags(path, O_RDWR | O_EXCL | O_CLOEXEC, want_direct, direct, f);
}

static int open_flags(const char *path, int flags, bool want_direct, bool *direct,
		      const struct ps_uio_faults *f)
{
	int fd, err;

	for (;;) {
		int fl = flags | (want_direct ? O_DIRECT : 0);

		err = f && f->open ? f->open(f->arg, path, fl) : 0;
		if (err < 0) {
			fd = -1;
			errno = -err;
		} else {
			fd = open(path, fl);
		}
		if (fd >= 0 || errno != EINVAL || !want_direct)
			break;
		want_direct = false;
	}
	if (fd < 0)
		return -errno;
	if (direct)
		*direct = want_direct;
	return fd;
}

int ps_uio_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) < 0 ? -errno : 0;
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		return 0;
	}
	return -ENOTBLK;
}

/*
 * Flags that help a single-threaded submitter on 6.1 (task work run only
 * when we wait, one submitter); an older kernel refuses them with EINVAL,
 * so they are dropped one by one down to none.
 */
static int ring_init(struct engine *e, unsigned int entries)
{
	static const unsigned int tries[] = {
	    /* completions are posted only when the submitter waits for them: one
	     * batch per wait instead of task work at every interrupt (6.1) */
	    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN,
	    IORING_SETUP_COOP_TASKRUN,
	    0,
	};
	int ret = -EINVAL;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		p.flags = tries[i];
		ret = io_uring_queue_init_params(entries, &e->ring, &p);
		if (ret == 0) {
			e->res->ring_flags = tries[i];
			return 0;
		}
		if (ret != -EINVAL)
			break;
	}
	return ret;
}

static struct io_uring_sqe *get_sqe(struct engine *e)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	/* The SQ has room for every slot; a full one only means an unsubmitted batch. */
	if (!sqe && io_uring_submit(&e->ring) >= 0)
		sqe = io_uring_get_sqe(&e->ring);
	return sqe;
}

/* Queue the rest of slot idx: [off + done, off + len). */
static int queue_slot(struct engine *e, unsigned int idx)
{
	struct slot *s = &e->slots[idx];
	struct io_uring_sqe *sqe = get_sqe(e);
	unsigned char *b = e->buf + (size_t)idx * e->job->bs + s->done;

	if (!sqe)
		return -EBUSY;
	if (e->job->write) {
		if (s->done == 0 && s->retries == 0 && e->job->fill)
			e->job->fill(e->job->data_arg, b, s->off, s->len);
		if (e->res->fixed_buffers)
			io_uring_prep_write_fixed(sqe, e->job->fd, b, s->len - s->done,
						  s->off + s->done, (int)idx);
		else
			io_uring_prep_write(sqe, e->job->fd, b, s->len - s->done, s->off + s->done);
	} else if (e->res->fixed_buffers)
		io_uring_prep_read_fixed(sqe, e->job->fd, b, s->len - s->done, s->off + s->done,
					 (int)idx);
	else
		io_uring_prep_read(sqe, e->job->fd, b, s->len - s->done, s->off + s->done);
	io_uring_sqe_set_data64(sqe, idx);
	if (e->fixed_file) {
		/* the registered table's index instead of the fd: no file lookup per request */
		sqe->fd = 0;
		sqe->flags |= IOSQE_FIXED_FILE;
	}
	return 0;
}

/* Arms the wake-up timer for the absolute CLOCK_MONOTONIC time at_ns; 0 or -EBUSY. */
static int arm_timer(struct engine *e, uint64_t at_ns)
{
	struct io_uring_sqe *sqe = get_sqe(e);

	if (!sqe)
		return -EBUSY;
	e->timer_ts.tv_sec = (long long)(at_ns / 1000000000ULL);
	e->timer_ts.tv_nsec = (long long)(at_ns % 1000000000ULL);
	io_uring_prep_timeout(sqe, &e->timer_ts, 0, IORING_TIMEOUT_ABS);
	io_uring_sqe_set_data64(sqe, TIMER_TAG);
	e->timer_armed = true;
	return 0;
}

/* The timer's completion: -ETIME when it fired; anything else means the kernel
 * cannot time requests this way, and the waits carry their own timeout. */
static void timer_done(struct engine *e, int res)
{
	e->timer_armed = false;
	if (res != -ETIME && res != -ECANCELED)
		e->timer_per_wait = true;
}

static void release(struct engine *e, unsigned int idx)
{
	e->free_slots[e->n_free++] = idx;
	e->inflight--;
}

static void finish_request(struct engine *e, unsigned int idx, uint64_t t)
{
	struct slot *s = &e->slots[idx];

	if (s->done > 0) {
		e->res->ios++;
		if (e->job->lat)
			ps_lat_add(e->job->lat, t - s->t0);
	}
	release(e, idx);
}

bool ps_uio_media_error(int err)
{
	switch (err) {
	case EIO:
	case ENODATA:
	case EILSEQ:
	case EBADMSG:
	case EREMOTEIO:
	case ETIMEDOUT: /* the block layer's BLK_STS_TIMEOUT: the drive gave up on it */
		return true;
	default:
		return false;
	}
}

bool ps_uio_device_gone(int err)
{
	return err == ENODEV || err == ENXIO || err == ENOMEDIUM || err == ESHUTDOWN;
}

static void complete(struct engine *e, unsigned int idx, int res, uint64_t t)
{
	const struct ps_uio_job *j = e->job;
	struct slot *s = &e->slots[idx];

	if (j->faults && j->faults->complete)
		res = j->faults->complete(j->faults->arg, s->off + s->done, s->len - s->done, res);
	if (res == -EAGAIN || res == -EINTR) {
		e->res->retries++;
		if (++s->retries <= MAX_RETRIES && e->fatal == 0 && queue_slot(e, idx) == 0)
			return;
		/* Past the retry limit: the engine cannot get the request through, which
		 * says nothing about the medium. */
	}
	if (res < 0) {
		if (ps_uio_media_error(-res)) {
			e->res->errors++;
			if (j->on_error)
				j->on_error(j->error_arg, s->off + s->done, s->len - s->done, -res);
		} else {
			if (ps_uio_device_gone(-res))
				e->res->device_gone = true;
			if (!e->fatal)
				e->fatal = res;
		}
		finish_request(e, idx, t);
		return;
	}
	if (res == 0) {
		/* Nothing where size said there was data: the file shrank or the media left. */
		if (s->off + s->done < j->size)
			e->res->eof = true;
		finish_request(e, idx, t);
		return;
	}
	if ((unsigned int)res > s->len - s->done)
		res = (int)(s->len - s->done); /* a fault hook must not inflate counts */
	if (!j->write && j->on_data)
		j->on_data(j->data_arg, e->buf + (size_t)idx * j->bs + s->done, s->off + s->done,
			   (unsigned int)res);
	e->res->bytes += (uint64_t)res;
	s->done += (unsigned int)res;
	if (s->done < s->len && s->off + s->done < j->size) {
		e->res->short_reads++;
		if (e->fatal == 0 && queue_slot(e, idx) == 0)
			return;
	}
	finish_request(e, idx, t);
}

static int validate(const struct ps_uio_job *j)
{
	if (j->fd < 0 || j->size == 0 || j->offset >= j->size || j->offset % PS_UIO_ALIGN ||
	    j->bs == 0 || j->bs % PS_UIO_ALIGN || j->qd == 0 || j->qd > PS_UIO_MAX_QD)
		return -EINVAL;
	if (j->random && j->size - j->offset < j->bs)
		return -EINVAL;
	return 0;
}

/* xorshift64*: cheap enough not to show in the IOPS it helps measure. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/*
 * The request buffers are a mapping of their own, not the malloc heap: each
 * run registers (pins) and touches all of them, and a heap chunk freed between
 * the long-lived allocations of a plan was never reused for the next run's
 * aligned request, so every seq 1M QD8 run left 8 MiB resident until a 256 MiB
 * machine ran out (docs/design.md, "Memory"). munmap gives them back at once.
 */
static int buf_map(struct engine *e, size_t len)
{
	void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return -errno;
	e->buf = buf;
	e->buf_len = len;
	return 0;
}

/*
 * The ring gone and its buffers returned. Closing a ring only queues its
 * teardown, which unpins the registered buffers later: runs in a row held
 * several runs' buffers pinned at once. Unregistering first unpins them now.
 */
static void teardown(struct engine *e, bool ring)
{
	if (ring) {
		if (e->res->fixed_buffers)
			io_uring_unregister_buffers(&e->ring);
		io_uring_queue_exit(&e->ring);
	}
	if (e->buf_len)
		munmap(e->buf, e->buf_len);
	free(e->slots);
	free(e->free_slots);
}

static int setup(struct engine *e)
{
	const struct ps_uio_job *j = e->job;
	struct iovec *iov;
	int ret;

	ret = buf_map(e, (size_t)j->qd * j->bs);
	if (ret < 0)
		return ret;
	e->slots = calloc(j->qd, sizeof(*e->slots));
	e->free_slots = calloc(j->qd, sizeof(*e->free_slots));
	iov = calloc(j->qd, sizeof(*iov));
	if (!e->slots || !e->free_slots || !iov) {
		free(iov);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < j->qd; i++) {
		e->free_slots[i] = j->qd - 1 - i;
		iov[i].iov_base = e->buf + (size_t)i * j->bs;
		iov[i].iov_len = j->bs;
	}
	e->n_free = j->qd;
	/* one entry more than the requests: the wake-up timer */
	ret = ring_init(e, j->qd + 1);
	if (ret == 0) {
		/* Pinning once saves a page walk per request; without it reads still work
		 * (RLIMIT_MEMLOCK can refuse it). */
		e->res->fixed_buffers = io_uring_register_buffers(&e->ring, iov, j->qd) == 0;
		/* Likewise the file: no reference taken and dropped per request. */
		e->fixed_file = io_uring_register_files(&e->ring, &j->fd, 1) == 0;
	}
	free(iov);
	return ret;
}

/* Where a job stands between one wait for completions and the next. */
struct run_state {
	uint64_t pos, left; /* the next sequential offset; bytes still to cover */
	uint64_t start, last_check, last_done; /* ns */
	uint64_t check_ns, budget_ns;
	uint64_t rnd, nblocks; /* random positions: the generator and the blocks drawn from */
	bool issuing;
};

/* Queue requests into every free slot while there is work and no stop. */
static void issue(struct engine *e, struct run_state *st)
{
	const struct ps_uio_job *j = e->job;

	while (st->issuing && !e->fatal && st->left > 0 && e->n_free > 0) {
		unsigned int idx = e->free_slots[e->n_free - 1];
		struct slot *s = &e->slots[idx];
		uint64_t cover = st->left < j->bs ? st->left : j->bs, rest, want;

		if (j->random)
			st->pos = j->offset + next_random(&st->rnd) % st->nblocks * j->bs;
		rest = j->size - st->pos;
		/* The region advances by what it covers; the request is rounded to
		 * whole aligned units (O_DIRECT refuses odd lengths, and a read
		 * past the end just comes back short). */
		if (cover > rest)
			cover = rest;
		want = (cover + PS_UIO_ALIGN - 1) / PS_UIO_ALIGN * PS_UIO_ALIGN;
		if (want > j->bs)
			want = j->bs;
		*s = (struct slot){.off = st->pos, .len = (unsigned int)want};
		if (queue_slot(e, idx) < 0) {
			e->fatal = -EBUSY;
			break;
		}
		e->n_free--;
		e->inflight++;
		st->left -= cover;
		st->pos += cover;
		if (st->pos >= j->size)
			st->pos = 0;
	}
}

/* Submit what is queued and wait for one completion, or the next check (t: now). */
static int submit_and_wait(struct engine *e, struct run_state *st, uint64_t t)
{
	/* Wake in time for the next stop check and the end of the time budget,
	 * however slow the drive (at least 1 ms ahead). */
	uint64_t deadline = st->last_check + st->check_ns, wait;
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;

	if (st->budget_ns && st->issuing && st->start + st->budget_ns < deadline)
		deadline = st->start + st->budget_ns;
	if (deadline < t + 1000000)
		deadline = t + 1000000;
	if (e->timer_per_wait) {
		wait = deadline - t;
		ts.tv_sec = (long long)(wait / 1000000000ULL);
		ts.tv_nsec = (long long)(wait % 1000000000ULL);
		return io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1, &ts, NULL);
	}
	if (!e->timer_armed && arm_timer(e, deadline) < 0) {
		e->fatal = -EBUSY;
		st->issuing = false;
	}
	/* One completion wakes it: a latency is read when its request is
	 * reaped, so waiting for a batch would add to the first ones. */
	return io_uring_submit_and_wait(&e->ring, 1);
}

/* Reap every completion, then the time budget and the periodic stop check. */
static void reap(struct engine *e, struct run_state *st)
{
	const struct ps_uio_job *j = e->job;
	struct ps_uio_result *res = e->res;
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	uint64_t t = now_ns();

	io_uring_for_each_cqe(&e->ring, head, cqe)
	{
		uint64_t tag = io_uring_cqe_get_data64(cqe);

		if (tag == TIMER_TAG) {
			timer_done(e, cqe->res);
		} else {
			complete(e, (unsigned int)tag, cqe->res, t);
			st->last_done = t;
		}
		seen++;
	}
	io_uring_cq_advance(&e->ring, seen);
	if (st->budget_ns && t - st->start >= st->budget_ns && st->left > 0 && st->issuing) {
		st->issuing = false;
		res->time_up = true;
	}
	/* The check period runs on without a should_stop too: it paces the timer. */
	if (t - st->last_check >= st->check_ns) {
		st->last_check = t;
		if (j->should_stop && st->issuing) {
			if (j->progress)
				j->progress(j->stop_arg, res->bytes);
			if (j->should_stop(j->stop_arg)) {
				st->issuing = false;
				res->stopped = true;
			}
		}
	}
	if (e->fatal || res->eof)
		st->issuing = false;
}

int ps_uio_read(const struct ps_uio_job *j, struct ps_uio_result *res)
{
	struct engine e = {.job = j, .res = res};
	struct run_state st = {.issuing = true};
	int ret;

	memset(res, 0, sizeof(*res));
	ret = validate(j);
	if (ret < 0)
		return ret;
	ret = setup(&e);
	if (ret < 0) {
		teardown(&e, false);
		return ret;
	}
	st.check_ns = (uint64_t)(j->check_ms ? j->check_ms : 50) * 1000000ULL;
	st.budget_ns = j->time_budget_s > 0 ? (uint64_t)(j->time_budget_s * 1e9) : 0;
	st.pos = j->offset;
	st.left = j->length;
	st.rnd = j->seed ? j->seed : 0x9E3779B97F4A7C15ULL;
	st.nblocks = j->random ? (j->size - j->offset) / j->bs : 0;
	st.start = st.last_check = st.last_done = now_ns();

	for (;;) {
		unsigned int queued_from = e.n_free;
		uint64_t t;

		issue(&e, &st);
		if (e.inflight == 0)
			break;
		t = now_ns();
		/* One clock read for the batch about to be submitted (the requests just
		 * popped from free_slots): a latency runs from here to its reaping. */
		for (unsigned int i = e.n_free; i < queued_from; i++)
			e.slots[e.free_slots[i]].t0 = t;
		ret = submit_and_wait(&e, &st, t);
		if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
			/* The ring itself failed: requests in flight cannot be reaped safely,
			 * so the buffers are leaked with the ring's memory rather than reused. */
			if (!e.fatal)
				e.fatal = ret;
			io_uring_queue_exit(&e.ring);
			res->seconds = (double)(st.last_done - st.start) / 1e9;
			free(e.slots);
			free(e.free_slots);
			return e.fatal;
		}
		reap(&e, &st);
	}
	res->seconds = (double)(st.last_done - st.start) / 1e9;
	teardown(&e, true);
	return e.fatal;
}

int ps_uio_write(const struct ps_uio_job *j, struct ps_uio_result *res)
{
	if (!j->write) {
		memset(res, 0, sizeof(*res));
		return -EINVAL;
	}
	return ps_uio_read(j, res);
}
