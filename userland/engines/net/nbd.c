/* nbd.c - the NBD newstyle handshake, the kernel's client through generic netlink,
 * and the serving side: a brd RAM disk exported by Debian's nbd-server. */
#include "engines/net/nbd.h"
#include "lib/util.h"
#include "engines/net/netns.h"

#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/nbd-netlink.h>
#include <linux/nbd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NBD_MAGIC		0x4e42444d41474943ULL /* "NBDMAGIC" */
#define NBD_OPTS_MAGIC		0x49484156454f5054ULL /* "IHAVEOPT" */
#define NBD_REP_MAGIC		0x3e889045565a9ULL
#define NBD_OPT_EXPORT_NAME	1
#define NBD_OPT_GO		7
#define NBD_REP_ACK		1
#define NBD_REP_INFO		3
#define NBD_REP_FLAG_ERROR	(1U << 31)
#define NBD_REP_ERR_UNSUP	(1U | NBD_REP_FLAG_ERROR)
#define NBD_REP_ERR_UNKNOWN	(6U | NBD_REP_FLAG_ERROR)
#define NBD_INFO_EXPORT		0
#define NBD_FLAG_FIXED_NEWSTYLE (1 << 0)
#define NBD_FLAG_NO_ZEROES	(1 << 1)
#define NBD_MAX_REPLIES		64 /* nbd-server answers NBD_OPT_GO with a few INFO and an ACK */

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

int ps_nbd_parse_greeting(const uint8_t *buf, size_t len, uint16_t *handshake_flags)
{
	if (len < 18 || get64(buf) != NBD_MAGIC || get64(buf + 8) != NBD_OPTS_MAGIC)
		return -EPROTO;
	*handshake_flags = (uint16_t)(buf[16] << 8 | buf[17]);
	return 0;
}

int ps_nbd_parse_reply(const uint8_t *buf, size_t len, uint32_t *opt, uint32_t *type,
		       uint32_t *dlen)
{
	if (len < 20 || get64(buf) != NBD_REP_MAGIC)
		return -EPROTO;
	*opt = get32(buf + 8);
	*type = get32(buf + 12);
	*dlen = get32(buf + 16);
	return 0;
}

/* Read exactly len bytes within 5 s. */
static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	double end = ps_mono_now() + 5;

	while (got < len) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (ps_mono_now() > end)
			return -ETIMEDOUT;
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = read(fd, (char *)buf + got, len - got);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

static int send_opt(int fd, uint32_t opt, const void *data, uint32_t len)
{
	uint8_t h[16];
	int r;

	put64(h, NBD_OPTS_MAGIC);
	put32(h + 8, opt);
	put32(h + 12, len);
	r = write_full(fd, h, sizeof(h));
	return r < 0 || !len ? r : write_full(fd, data, len);
}

int ps_nbd_handshake(int fd, const char *name, struct ps_nbd_export *ex, char *why, size_t whylen)
{
	uint8_t buf[512];
	uint16_t hflags;
	uint32_t cflags, namelen = (uint32_t)strlen(name);
	int r;

	memset(ex, 0, sizeof(*ex));
	if (namelen > 256)
		return -EINVAL;
	r = read_full(fd, buf, 18);
	if (r < 0 || ps_nbd_parse_greeting(buf, 18, &hflags) < 0) {
		snprintf(why, whylen, "%s",
			 r < 0 ? strerror(-r)
			       : "the server does not speak NBD's newstyle protocol");
		return r < 0 ? r : -EPROTO;
	}
	cflags = NBD_FLAG_FIXED_NEWSTYLE | (hflags & NBD_FLAG_NO_ZEROES);
	put32(buf, cflags);
	r = write_full(fd, buf, 4);
	if (r < 0)
		goto io;
	/* NBD_OPT_GO: name, and no information requests (the server sends the export's). */
	put32(buf, namelen);
	memcpy(buf + 4, name, namelen);
	buf[4 + namelen] = 0;
	buf[5 + namelen] = 0;
	r = send_opt(fd, NBD_OPT_GO, buf, namelen + 6);
	if (r < 0)
		goto io;
	for (unsigned int replies = 0;; replies++) {
		uint8_t rh[20], data[256];
		uint32_t opt, type, dlen;

		if (replies == NBD_MAX_REPLIES) {
			snprintf(why, whylen, "the server sent %u option replies without an answer",
				 replies);
			return -EPROTO;
		}
		r = read_full(fd, rh, sizeof(rh));
		if (r < 0)
			goto io;
		if (ps_nbd_parse_reply(rh, sizeof(rh), &opt, &type, &dlen) < 0 || dlen > 65536) {
			snprintf(why, whylen, "a malformed option reply");
			return -EPROTO;
		}
		while (dlen > 0) {
			uint32_t n = dlen > sizeof(data) ? (uint32_t)sizeof(data) : dlen;

			r = read_full(fd, data, n);
			if (r < 0)
				goto io;
			if (type == NBD_REP_INFO && n >= 12 &&
			    (data[0] << 8 | data[1]) == NBD_INFO_EXPORT) {
				ex->size = get64(data + 2);
				ex->flags = (uint16_t)(data[10] << 8 | data[11]);
			}
			dlen -= n;
		}
		if (type == NBD_REP_ACK)
			break;
		if (type == NBD_REP_ERR_UNSUP) {
			/* An old server: the export by name, size and flags in its answer. */
			uint8_t ans[134];

			r = send_opt(fd, NBD_OPT_EXPORT_NAME, name, namelen);
			if (r < 0)
				goto io;
			r = read_full(fd, ans, (hflags & NBD_FLAG_NO_ZEROES) ? 10 : 134);
			if (r < 0)
				goto io;
			ex->size = get64(ans);
			ex->flags = (uint16_t)(ans[8] << 8 | ans[9]);
			break;
		}
		if (type & NBD_REP_FLAG_ERROR) {
			snprintf(why, whylen, "the server refused export %s (error %u)", name,
				 type & ~NBD_REP_FLAG_ERROR);
			return type == NBD_REP_ERR_UNKNOWN ? -ENOENT : -EACCES;
		}
	}
	if (!ex->size) {
		snprintf(why, whylen, "the server gave no size for export %s", name);
		return -EPROTO;
	}
	return 0;
io:
	snprintf(why, whylen, "the NBD handshake: %s", strerror(-r));
	return r;
}

/* ------------------------------------------------------------- netlink -- */

static int nbd_family(struct mnl_socket *nl, unsigned int *seq)
{
	char buf[8192];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;
	struct nlattr *a;
	int n;

	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++*seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, NBD_GENL_FAMILY_NAME);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	n = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	nlh = (struct nlmsghdr *)buf;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		return e->error ? e->error : -EPROTO;
	}
	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
	{
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			return mnl_attr_get_u16(a);
	}
	return -ENOENT;
}

struct nl_reply {
	int index;
};

static int connect_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nl_reply *r = data;
	struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
	{
		if (mnl_attr_get_type(a) == NBD_ATTR_INDEX)
			r->index = (int)mnl_attr_get_u32(a);
	}
	return MNL_CB_OK;
}

static int nbd_cmd(uint8_t cmd, const struct ps_nbd_export *ex, int fd, int index, int *out_index)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	struct timeval tv = {.tv_sec = 10};
	char buf[8192];
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	struct nl_reply rep = {.index = -1};
	unsigned int seq = (unsigned int)time(NULL), portid;
	int family, ret;

	if (!nl)
		return -errno;
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	family = nbd_family(nl, &seq);
	if (family < 0) {
		ret = family;
		goto out;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (uint16_t)family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = NBD_GENL_VERSION;
	if (cmd == NBD_CMD_CONNECT) {
		struct nlattr *socks, *item;

		mnl_attr_put_u64(nlh, NBD_ATTR_SIZE_BYTES, ex->size);
		mnl_attr_put_u64(nlh, NBD_ATTR_BLOCK_SIZE_BYTES, 4096);
		mnl_attr_put_u64(nlh, NBD_ATTR_SERVER_FLAGS, ex->flags);
		mnl_attr_put_u64(nlh, NBD_ATTR_TIMEOUT, 30);
		socks = mnl_attr_nest_start(nlh, NBD_ATTR_SOCKETS);
		item = mnl_attr_nest_start(nlh, NBD_SOCK_ITEM);
		mnl_attr_put_u32(nlh, NBD_SOCK_FD, (uint32_t)fd);
		mnl_attr_nest_end(nlh, item);
		mnl_attr_nest_end(nlh, socks);
	} else {
		mnl_attr_put_u32(nlh, NBD_ATTR_INDEX, (uint32_t)index);
	}
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	for (;;) {
		int n = (int)mnl_socket_recvfrom(nl, buf, sizeof(buf));

		if (n < 0) {
			ret = -errno;
			break;
		}
		errno = 0;
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, connect_cb, &rep);
		if (ret == MNL_CB_ERROR) {
			ret = errno ? -errno : -EPROTO;
			break;
		}
		if (ret == MNL_CB_STOP) {
			ret = 0;
			break;
		}
	}
	if (ret == 0 && out_index)
		*out_index = rep.index;
out:
	mnl_socket_close(nl);
	return ret;
}

int ps_nbd_kernel_connect(int fd, const struct ps_nbd_export *ex, int *index, char *why,
			  size_t whylen)
{
	int ret = nbd_cmd(NBD_CMD_CONNECT, ex, fd, -1, index);

	if (ret < 0)
		snprintf(why, whylen, "handing the connection to the kernel's NBD client: %s%s",
			 strerror(-ret),
			 ret == -ENOENT ? " (no nbd module: CONFIG_BLK_DEV_NBD)" : "");
	else if (*index < 0) {
		snprintf(why, whylen, "the kernel's NBD client named no device");
		ret = -EPROTO;
	}
	return ret;
}

int ps_nbd_kernel_disconnect(int index)
{
	return nbd_cmd(NBD_CMD_DISCONNECT, NULL, -1, index, NULL);
}

int ps_nbd_load_module(void)
{
	return ps_module_load("nbd", NULL);
}

int ps_ramdisk_create(unsigned int mib, char *path, size_t len, char *why, size_t whylen)
{
	char opts[64];
	struct stat st;
	int ret;

	snprintf(path, len, "/dev/ram0");
	if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		return 0;
	snprintf(opts, sizeof(opts), "rd_nr=1 rd_size=%u", mib * 1024);
	ret = ps_module_load("brd", opts);
	if (ret < 0) {
		snprintf(why, whylen, "modprobe brd: %s", strerror(-ret));
		return ret;
	}
	for (int i = 0; i < 50; i++) {
		if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
			return 0;
		usleep(100000);
	}
	snprintf(why, whylen, "brd loaded but %s did not appear", path);
	return -ENODEV;
}

int ps_nbd_server_spawn(const char *dir, const char *export_name, const char *path, int port,
			char *why, size_t whylen)
{
	char conf[512], text[1024], log[512];
	int fd, status;
	pid_t pid;

	snprintf(conf, sizeof(conf), "%s/nbd-server.conf", dir);
	snprintf(log, sizeof(log), "%s/nbd-server.log", dir);
	snprintf(text, sizeof(text),
		 "# written by probestick serve\n[generic]\nport = %d\nallowlist = false\n"
		 "[%s]\nexportname = %s\nreadonly = true\n",
		 port ? port : 10809, export_name, path);
	fd = open(conf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_full(fd, text, strlen(text)) < 0) {
		int err = -errno;

		snprintf(why, whylen, "cannot write %s: %s", conf, strerror(errno));
		if (fd >= 0)
			close(fd);
		return err;
	}
	close(fd);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot start nbd-server: %s", strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int null = open("/dev/null", O_RDONLY);
		sigset_t none;

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		if (lfd >= 0) {
			dup2(lfd, STDOUT_FILENO);
			dup2(lfd, STDERR_FILENO);
		}
		/* -d: in the foreground, so it ends with us */
		execlp("nbd-server", "nbd-server", "-C", conf, "-d", (char *)NULL);
		_exit(127);
	}
	/* A missing binary or a refused config ends it at once. */
	for (int i = 0; i < 5; i++) {
		usleep(100000);
		if (waitpid(pid, &status, WNOHANG) == pid) {
			snprintf(why, whylen, "nbd-server ended at once (%s): see %s",
				 WIFEXITED(status) && WEXITSTATUS(status) == 127
				     ? "not installed: Debian's nbd-server"
				     : "exit status",
				 log);
			return -ENOENT;
		}
	}
	return pid;
}
