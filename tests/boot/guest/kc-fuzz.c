/*
 * kc-fuzz - guest side of tests/boot/test_ioctl_fuzz: every ioctl of
 * /dev/probestick with wrong sizes, versions, flags, masks and counts,
 * NULL, unmapped, read-only, kernel and half-mapped pointers, from several
 * threads at once while one thread runs windows as a plan does. Every call
 * must end in success or in one of the errno values docs/design.md lists
 * for it; a successful snapshot must hold well-formed records.
 * Usage: kc-fuzz SECONDS SEED   (prints FUZZ lines; exit 0 when all held)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <probestick.h>

#define NR_FUZZERS 3
#define ARENA	   (2u << 20) /* per thread, followed by a PROT_NONE guard page */
#define PAGE	   4096u

/* Errno values as bits, for the sets each ioctl may return. */
enum {
	E_OK = 1,
	E_PERM = 2,
	E_NOTTY = 4,
	E_FAULT = 8,
	E_INVAL = 16,
	E_BUSY = 32,
	E_NODATA = 64,
	E_NOMEM = 128,
	E_OTHER = 256
};

static int ebit(int err)
{
	switch (err) {
	case 0:
		return E_OK;
	case EPERM:
		return E_PERM;
	case ENOTTY:
		return E_NOTTY;
	case EFAULT:
		return E_FAULT;
	case EINVAL:
		return E_INVAL;
	case EBUSY:
		return E_BUSY;
	case ENODATA:
		return E_NODATA;
	case ENOMEM:
		return E_NOMEM;
	default:
		return E_OTHER;
	}
}

struct cmd {
	unsigned long nr;
	const char *name;
	size_t size; /* of its argument, 0 for none */
	int allowed; /* docs/design.md, "Errors" */
};

static const struct cmd cmds[] = {
    {PROBESTICK_IOC_VERSION, "VERSION", sizeof(struct probestick_version), E_OK | E_FAULT},
    {PROBESTICK_IOC_PCIE_LINKS, "PCIE_LINKS", sizeof(struct probestick_pcie_table),
     E_OK | E_FAULT | E_INVAL},
    {PROBESTICK_IOC_KC_PROBES, "KC_PROBES", sizeof(struct probestick_kc_probes),
     E_OK | E_FAULT | E_INVAL},
    {PROBESTICK_IOC_KC_ATTACH, "KC_ATTACH", sizeof(struct probestick_kc_attach),
     E_OK | E_FAULT | E_INVAL | E_BUSY},
    {PROBESTICK_IOC_KC_DETACH, "KC_DETACH", 0, E_OK | E_INVAL | E_BUSY},
    {PROBESTICK_IOC_KC_START, "KC_START", sizeof(struct probestick_kc_start),
     E_OK | E_FAULT | E_INVAL | E_BUSY},
    {PROBESTICK_IOC_KC_STOP, "KC_STOP", 0, E_OK | E_INVAL | E_BUSY},
    {PROBESTICK_IOC_KC_SNAPSHOT, "KC_SNAPSHOT", sizeof(struct probestick_kc_snapshot),
     E_OK | E_FAULT | E_INVAL | E_NODATA | E_NOMEM},
    {PROBESTICK_IOC_DMI_MEMORY, "DMI_MEMORY", sizeof(struct probestick_dimm_table),
     E_OK | E_FAULT | E_INVAL | E_NODATA | E_NOMEM},
    {PROBESTICK_IOC_IMC, "IMC", sizeof(struct probestick_imc), E_OK | E_FAULT | E_NOMEM},
};
#define NR_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static atomic_long bad, calls, by_errno[9];
static atomic_int stop_all;
static uint32_t valid_mask; /* the probes the module lists */
static unsigned int nr_probes;
/* Below vm.mmap_min_addr: never mapped (a page unmapped here could be reused by mmap). */
static char *const unmapped = (char *)0x1000;
static char *noaccess; /* a PROT_NONE page, kept reserved */
static char *readonly; /* a read-only page */

static void report(const char *fmt, ...)
{
	static atomic_int shown;
	va_list ap;

	atomic_fetch_add(&bad, 1);
	if (atomic_fetch_add(&shown, 1) >= 30)
		return;
	va_start(ap, fmt);
	printf("FUZZ BAD ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

/* xorshift64*: each thread its own sequence from the seed. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static int call(int fd, unsigned long nr, void *arg)
{
	int ret = ioctl(fd, nr, arg);

	return ret < 0 ? errno : 0;
}

/* Counts the call; a result outside the allowed set is a finding. */
static int check(const struct cmd *c, int err, const char *how)
{
	atomic_fetch_add(&calls, 1);
	atomic_fetch_add(&by_errno[__builtin_ctz(ebit(err))], 1);
	if (!(ebit(err) & c->allowed))
		report("%s (%s): %s", c->name, how, err ? strerror(err) : "success");
	return err;
}

/* A successful snapshot's records must be well formed. */
static void check_records(const struct probestick_kc_snapshot *s,
			  const struct probestick_kc_record *r, uint32_t room, const char *who)
{
	uint32_t n = s->count < room ? s->count : room;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t sum = 0;

		for (unsigned int b = 0; b < PROBESTICK_KC_BUCKETS; b++)
			sum += r[i].buckets[b];
		if (r[i].metric < PROBESTICK_KC_M_HARDIRQ ||
		    r[i].metric > PROBESTICK_KC_M_NIC_PKTS || r[i].probe >= nr_probes ||
		    (r[i].cpu != PROBESTICK_KC_ALL_CPUS && r[i].cpu >= s->nr_cpus) ||
		    sum != r[i].count || !memchr(r[i].name, 0, sizeof(r[i].name))) {
			report("KC_SNAPSHOT (%s): record %u of %u malformed (metric %u probe %u "
			       "cpu %u "
			       "key %u dir %u count %llu, buckets %llu, name[0] %d)",
			       who, i, n, r[i].metric, r[i].probe, r[i].cpu, r[i].key, r[i].dir,
			       (unsigned long long)r[i].count, (unsigned long long)sum,
			       r[i].name[0]);
			return;
		}
	}
}

/* ---- well-formed-ish arguments with one or more fields wrong ---- */

struct arena {
	char *base; /* ARENA bytes, then a guard page: buffers the arguments point to */
	char *args; /* a page for the arguments themselves */
	uint64_t seed;
};

static uint32_t pick_count(uint64_t *s)
{
	static const uint32_t counts[] = {0,
					  1,
					  2,
					  3,
					  8,
					  64,
					  1000,
					  PROBESTICK_KC_RECORDS_MAX,
					  PROBESTICK_KC_RECORDS_MAX + 1,
					  0x7fffffff,
					  0xffffffff};

	return counts[rnd(s) % (sizeof(counts) / sizeof(counts[0]))];
}

static uint32_t pick_mask(uint64_t *s)
{
	switch (rnd(s) % 6) {
	case 0:
		return 0;
	case 1:
		return valid_mask;
	case 2:
		return 1U << (rnd(s) % 32);
	case 3:
		return (uint32_t)rnd(s);
	default:
		return (uint32_t)rnd(s) & valid_mask ? (uint32_t)rnd(s) & valid_mask : 1;
	}
}

/* A user pointer: NULL, unmapped, read-only, kernel, at the guard page, or room in the arena. */
static uint64_t pick_ptr(struct arena *a, size_t entry, uint32_t *room)
{
	uint64_t k = rnd(&a->seed) % 9;

	*room = 0;
	switch (k) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)unmapped;
	case 2:
		return (uintptr_t)readonly;
	case 3:
		return 0xffff888000000000ULL;
	case 8:
		return (uintptr_t)noaccess;
	case 4: /* one entry, right before the guard page: more runs into it */
		*room = 1;
		return (uintptr_t)(a->base + ARENA - entry);
	default:
		*room = (uint32_t)(ARENA / entry);
		return (uintptr_t)a->base;
	}
}

static void fill(struct arena *a, unsigned int c, void *arg, uint32_t *room)
{
	uint64_t *s = &a->seed;
	int wrong = rnd(s) % 4 == 0;

	*room = 0;
	switch (c) {
	case 8: {
		struct probestick_dimm_table *t = arg;

		t->entry_size = wrong ? (uint32_t)rnd(s) % 512 : sizeof(struct probestick_dimm);
		t->dimms = pick_ptr(a, sizeof(struct probestick_dimm), room);
		t->count = rnd(s) % 2 ? *room : pick_count(s);
		break;
	}
	case 1: {
		struct probestick_pcie_table *t = arg;

		t->entry_size =
		    wrong ? (uint32_t)rnd(s) % 128 : sizeof(struct probestick_pcie_link);
		t->links = pick_ptr(a, sizeof(struct probestick_pcie_link), room);
		t->count = rnd(s) % 2 ? *room : pick_count(s);
		break;
	}
	case 2: {
		struct probestick_kc_probes *p = arg;

		p->entry_size = wrong ? (uint32_t)rnd(s) % 256 : sizeof(struct probestick_kc_probe);
		p->probes = pick_ptr(a, sizeof(struct probestick_kc_probe), room);
		p->count = rnd(s) % 2 ? *room : pick_count(s);
		break;
	}
	case 3:
	case 5: {
		struct probestick_kc_attach *t = arg; /* the same layout as kc_start */

		t->mask = pick_mask(s);
		t->flags = wrong && rnd(s) % 2 ? (uint32_t)rnd(s) : 0;
		t->reserved = wrong && rnd(s) % 2 ? (uint32_t)rnd(s) : 0;
		t->attached = (uint32_t)rnd(s);
		break;
	}
	case 7: {
		struct probestick_kc_snapshot *n = arg;

		n->version =
		    wrong && rnd(s) % 2 ? (uint32_t)rnd(s) % 4 : PROBESTICK_KC_RECORD_VERSION;
		n->record_size = wrong && rnd(s) % 2 ? (uint32_t)rnd(s) % 8192
						     : sizeof(struct probestick_kc_record);
		n->records = pick_ptr(a, sizeof(struct probestick_kc_record), room);
		n->count = rnd(s) % 2 ? *room : pick_count(s);
		break;
	}
	}
}

/* One random call: a known command with a mangled argument, or an unknown command. */
static void fuzz_one(struct arena *a, int fd)
{
	uint64_t *s = &a->seed;
	unsigned int c = (unsigned int)(rnd(s) % (NR_CMDS + 2));
	char how[64];
	uint32_t room = 0;
	void *arg;
	int err;

	if (c >= NR_CMDS) {
		/* Our magic with another number, direction or size: not ours. */
		unsigned long nr =
		    _IOC(rnd(s) % 4, PROBESTICK_IOC_MAGIC, rnd(s) % 64, rnd(s) % 512);
		static const struct cmd unknown = {0, "unknown", 0, E_NOTTY};

		for (unsigned int i = 0; i < NR_CMDS; i++)
			if (nr == cmds[i].nr)
				return;
		snprintf(how, sizeof(how), "nr 0x%lx", nr);
		check(&unknown, call(fd, nr, a->base), how);
		return;
	}
	switch (rnd(s) % 9) {
	case 8:
		arg = noaccess;
		snprintf(how, sizeof(how), "PROT_NONE");
		break;
	case 0:
		arg = NULL;
		snprintf(how, sizeof(how), "NULL");
		break;
	case 1:
		arg = unmapped;
		snprintf(how, sizeof(how), "unmapped");
		break;
	case 2:
		arg = readonly;
		snprintf(how, sizeof(how), "read-only");
		break;
	case 3: /* the argument's last byte is in the guard page */
		arg = a->base + ARENA - (cmds[c].size ? cmds[c].size - 1 : 0);
		snprintf(how, sizeof(how), "half-mapped");
		break;
	case 4:
		arg = a->base;
		for (size_t i = 0; i < 256; i += 8)
			*(uint64_t *)(a->base + i) = rnd(s);
		snprintf(how, sizeof(how), "random bytes");
		break;
	default:
		arg = a->args;
		memset(arg, 0, 256);
		fill(a, c, arg, &room);
		snprintf(how, sizeof(how), "mangled");
	}
	/* A snapshot fills at most the room it was given; what it leaves is poison. */
	if (c == 7 && arg == a->args) {
		if (((struct probestick_kc_snapshot *)arg)->count < room)
			room = ((struct probestick_kc_snapshot *)arg)->count;
		if (((struct probestick_kc_snapshot *)arg)->records == (uintptr_t)a->base)
			memset(a->base, 0xa5,
			       (room < 64 ? room : 64) * sizeof(struct probestick_kc_record));
	}
	err = check(&cmds[c], call(fd, cmds[c].nr, arg), how);
	if (!err && c == 7 && arg == a->args) {
		const struct probestick_kc_snapshot *n = arg;

		if (n->records == (uintptr_t)a->base)
			check_records(n, (void *)a->base, room, "fuzzer");
	}
}

static int open_dev(void)
{
	int fd = open(PROBESTICK_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		report("open %s: %s", PROBESTICK_DEVICE, strerror(errno));
		atomic_store(&stop_all, 1);
	}
	return fd;
}

static int shared_fd;

static void *fuzzer(void *p)
{
	struct arena *a = p;
	int own = open_dev();

	while (own >= 0 && !atomic_load(&stop_all)) {
		fuzz_one(a, rnd(&a->seed) % 3 ? own : shared_fd);
		/* Now and then the file goes: its attachment and window must go with it. */
		if (rnd(&a->seed) % 400 == 0) {
			close(own);
			own = open_dev();
		}
	}
	if (own >= 0)
		close(own);
	return NULL;
}

static atomic_long windows, attach_busy;

/* A plan's way of using the module, on its own file: its calls must all succeed. */
static void *planner(void *p)
{
	struct arena *a = p;
	struct probestick_kc_attach at;
	struct probestick_kc_start st;
	struct probestick_kc_snapshot sn;
	const uint32_t room = ARENA / sizeof(struct probestick_kc_record);
	int fd = open_dev(), err, held = 0;

	while (fd >= 0 && !atomic_load(&stop_all)) {
		if (!held) {
			memset(&at, 0, sizeof(at));
			at.mask = valid_mask;
			err = check(&cmds[3], call(fd, PROBESTICK_IOC_KC_ATTACH, &at), "plan");
			if (err == EBUSY) {
				/* a fuzzer holds it: wait for its file to go */
				atomic_fetch_add(&attach_busy, 1);
				usleep(2000);
				continue;
			}
			if (err) {
				report("plan: KC_ATTACH: %s", strerror(err));
				break;
			}
			held = 1;
		}
		memset(&st, 0, sizeof(st));
		st.mask = valid_mask;
		if (check(&cmds[5], call(fd, PROBESTICK_IOC_KC_START, &st), "plan"))
			report("plan: KC_START on its own attachment failed");
		usleep((useconds_t)(rnd(&a->seed) % 3000));
		memset(&sn, 0, sizeof(sn));
		sn.version = PROBESTICK_KC_RECORD_VERSION;
		sn.record_size = sizeof(struct probestick_kc_record);
		sn.count = room;
		sn.records = (uintptr_t)a->base;
		if (check(&cmds[7], call(fd, PROBESTICK_IOC_KC_SNAPSHOT, &sn), "plan"))
			report("plan: KC_SNAPSHOT of its own window failed");
		else
			check_records(&sn, (void *)a->base, room, "planner");
		if (check(&cmds[6], call(fd, PROBESTICK_IOC_KC_STOP, NULL), "plan"))
			report("plan: KC_STOP of its own window failed");
		atomic_fetch_add(&windows, 1);
		/* Every 40 windows the plan ends: DETACH, or just its file closing. */
		if (rnd(&a->seed) % 40 == 0) {
			if (rnd(&a->seed) % 2 &&
			    check(&cmds[4], call(fd, PROBESTICK_IOC_KC_DETACH, NULL), "plan"))
				report("plan: KC_DETACH of its own attachment failed");
			close(fd);
			fd = open_dev();
			held = 0;
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* The calls the documentation fixes, one by one, on a freshly loaded module. */
static void edge_cases(int fd, int fd2)
{
	struct probestick_kc_snapshot sn = {.version = PROBESTICK_KC_RECORD_VERSION,
					    .record_size = sizeof(struct probestick_kc_record)};
	struct probestick_kc_start st = {.mask = valid_mask};
	struct probestick_kc_attach at = {.mask = valid_mask};
	struct probestick_pcie_table pt = {.entry_size = sizeof(struct probestick_pcie_link),
					   .count = 0xffffffff};
	long before = atomic_load(&bad);

#define EXPECT(c, arg, want, how)                                                                  \
	do {                                                                                       \
		int e_ = call(fd, cmds[c].nr, (arg));                                              \
		check(&cmds[c], e_, how);                                                          \
		if (e_ != (want))                                                                  \
			report("%s (%s): %s, expected %s", cmds[c].name, how, strerror(e_),        \
			       strerror(want));                                                    \
	} while (0)

	EXPECT(7, &sn, ENODATA, "before any window");
	EXPECT(6, NULL, EINVAL, "STOP without a window");
	EXPECT(4, NULL, EINVAL, "DETACH without an attachment");
	EXPECT(1, &pt, EINVAL, "count 0xffffffff");
	pt.count = 1000;
	pt.links = 0;
	EXPECT(1, &pt, EFAULT, "room without a pointer");
	at.flags = 1;
	EXPECT(3, &at, EINVAL, "flags");
	at.flags = 0;
	at.reserved = 7;
	EXPECT(3, &at, EINVAL, "reserved");
	at.reserved = 0;
	at.mask = 0;
	EXPECT(3, &at, EINVAL, "empty mask");
	at.mask = ~valid_mask;
	EXPECT(3, &at, EINVAL, "unknown ids");
	at.mask = valid_mask;
	EXPECT(3, readonly, EFAULT, "read-only: nothing may stay attached");
	EXPECT(4, NULL, EINVAL, "... so DETACH finds nothing");
	EXPECT(3, &at, 0, "attach");
	EXPECT(3, &at, EBUSY, "attach twice");
	/* another file may read, not steer */
	if (call(fd2, PROBESTICK_IOC_KC_START, &st) != EBUSY ||
	    call(fd2, PROBESTICK_IOC_KC_DETACH, NULL) != EBUSY ||
	    call(fd2, PROBESTICK_IOC_KC_ATTACH, &at) != EBUSY)
		report("another file could steer the attachment");
	EXPECT(5, &st, 0, "start");
	EXPECT(5, &st, EBUSY, "start twice");
	if (call(fd2, PROBESTICK_IOC_KC_STOP, NULL) != EBUSY)
		report("another file could stop the window");
	sn.count = 1;
	sn.records = 0;
	EXPECT(7, &sn, EFAULT, "room without a pointer");
	sn.count = PROBESTICK_KC_RECORDS_MAX + 1;
	EXPECT(7, &sn, EINVAL, "room above the maximum");
	sn.count = 0;
	sn.version = 1;
	EXPECT(7, &sn, EINVAL, "ABI-2 record version");
	sn.version = PROBESTICK_KC_RECORD_VERSION;
	sn.record_size = 4;
	EXPECT(7, &sn, EINVAL, "record size");
	sn.record_size = sizeof(struct probestick_kc_record);
	if (call(fd2, PROBESTICK_IOC_KC_SNAPSHOT, &sn) != 0 || sn.state != PROBESTICK_KC_RUNNING)
		report("another file cannot read the running window");
	EXPECT(6, NULL, 0, "stop");
	EXPECT(6, NULL, EINVAL, "stop twice");
	EXPECT(4, NULL, 0, "detach");
	EXPECT(4, NULL, EINVAL, "detach twice");
	/* a START of its own attaches for its window alone */
	st.mask = valid_mask;
	EXPECT(5, &st, 0, "start without an attachment");
	if (call(fd2, PROBESTICK_IOC_KC_ATTACH, &at) != EBUSY)
		report("the window's own attachment is not held");
	EXPECT(6, NULL, 0, "stop detaches it");
	if (call(fd2, PROBESTICK_IOC_KC_ATTACH, &at) != 0 ||
	    call(fd2, PROBESTICK_IOC_KC_DETACH, NULL) != 0)
		report("the attachment outlived its window");
	printf("FUZZ edge cases: %ld bad\n", atomic_load(&bad) - before);
#undef EXPECT
}

/* Without CAP_SYS_ADMIN every ioctl is EPERM, also on a file root opened. */
static void unprivileged(int fd)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		int wrong = 0;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		for (unsigned int i = 0; i < NR_CMDS; i++)
			wrong += call(fd, cmds[i].nr, NULL) != EPERM;
		_exit(wrong ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		report("unprivileged: not EPERM for every ioctl (status 0x%x)", status);
	else
		printf("FUZZ unprivileged: EPERM for all %zu ioctls\n", NR_CMDS);
}

static int discover(int fd)
{
	struct probestick_kc_probe pr[PROBESTICK_KC_MAX_PROBES];
	struct probestick_kc_probes q = {.count = PROBESTICK_KC_MAX_PROBES,
					 .entry_size = sizeof(pr[0]),
					 .probes = (uintptr_t)pr};
	struct probestick_version v;

	if (ioctl(fd, PROBESTICK_IOC_VERSION, &v) < 0 || v.abi != PROBESTICK_ABI_VERSION ||
	    ioctl(fd, PROBESTICK_IOC_KC_PROBES, &q) < 0) {
		printf("FUZZ FAIL: the module does not answer as ABI %d: %s\n",
		       PROBESTICK_ABI_VERSION, strerror(errno));
		return -1;
	}
	for (unsigned int i = 0; i < q.count && i < PROBESTICK_KC_MAX_PROBES; i++)
		if (pr[i].id < PROBESTICK_KC_MAX_PROBES) {
			valid_mask |= 1U << pr[i].id;
			nr_probes++;
		}
	printf("FUZZ module %s ABI %u: %u probes, mask 0x%x\n", v.release, v.abi, nr_probes,
	       valid_mask);
	return valid_mask ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"ok",    "EPERM",	"ENOTTY", "EFAULT", "EINVAL",
					    "EBUSY", "ENODATA", "ENOMEM", "other"};
	struct arena arenas[NR_FUZZERS + 1];
	pthread_t th[NR_FUZZERS + 1];
	unsigned int seconds = argc > 1 ? (unsigned int)atoi(argv[1]) : 30;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
	int fd, fd2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(PROBESTICK_DEVICE, O_RDWR | O_CLOEXEC);
	fd2 = open(PROBESTICK_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fd2 < 0) {
		printf("FUZZ FAIL: %s: %s\n", PROBESTICK_DEVICE, strerror(errno));
		return 1;
	}
	if (discover(fd) < 0)
		return 1;
	noaccess = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	readonly = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (noaccess == MAP_FAILED || readonly == MAP_FAILED)
		return 1;
	/* Plausible contents, so that a missing write-back check would show. */
	((struct probestick_kc_attach *)readonly)->mask = valid_mask;
	mprotect(readonly, PAGE, PROT_READ);

	edge_cases(fd, fd2);
	unprivileged(fd);

	shared_fd = fd2;
	for (int i = 0; i <= NR_FUZZERS; i++) {
		arenas[i].base = mmap(NULL, ARENA + PAGE, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (arenas[i].base == MAP_FAILED)
			return 1;
		mprotect(arenas[i].base + ARENA, PAGE, PROT_NONE);
		arenas[i].args =
		    mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (arenas[i].args == MAP_FAILED)
			return 1;
		arenas[i].seed = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i + 1;
		pthread_create(&th[i], NULL, i == NR_FUZZERS ? planner : fuzzer, &arenas[i]);
	}
	printf("FUZZ random: %d fuzzers and a planner for %u s, seed 0x%llx\n", NR_FUZZERS, seconds,
	       (unsigned long long)seed);
	sleep(seconds);
	atomic_store(&stop_all, 1);
	for (int i = 0; i <= NR_FUZZERS; i++)
		pthread_join(th[i], NULL);
	printf("FUZZ calls %ld:", atomic_load(&calls));
	for (int i = 0; i < 9; i++)
		printf(" %s %ld", names[i], atomic_load(&by_errno[i]));
	printf("\nFUZZ planner: %ld windows, %ld attaches refused while a fuzzer held it\n",
	       atomic_load(&windows), atomic_load(&attach_busy));
	close(fd);
	close(fd2);
	printf("FUZZ RESULT %s %ld bad\n", atomic_load(&bad) ? "bad" : "ok", atomic_load(&bad));
	return atomic_load(&bad) ? 1 : 0;
}
