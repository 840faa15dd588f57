/* console.c - write to every console terminal, read single keys from any of them.
 * Plain text only, so VGA and a serial line behave the same. */
#include "cli/console.h"
#include "lib/util.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_all(int fd, const char *buf, size_t len);

static speed_t baud(unsigned int speed)
{
	switch (speed) {
	case 1200:
		return B1200;
	case 2400:
		return B2400;
	case 4800:
		return B4800;
	case 9600:
		return B9600;
	case 19200:
		return B19200;
	case 38400:
		return B38400;
	case 57600:
		return B57600;
	case 115200:
		return B115200;
	case 230400:
		return B230400;
	case 460800:
		return B460800;
	case 921600:
		return B921600;
	default:
		return B0;
	}
}

/* Single keys without Enter and without echo; output processing and ^C stay on. */
static void raw_mode(struct ps_term *t, int fd, unsigned int speed)
{
	struct termios tio;

	if (!isatty(fd) || tcgetattr(fd, &t->saved) < 0)
		return;
	t->restore = true;
	tio = t->saved;
	tio.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	tio.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	if (speed && baud(speed) != B0) {
		cfsetispeed(&tio, baud(speed));
		cfsetospeed(&tio, baud(speed));
	}
	tcsetattr(fd, TCSANOW, &tio);
}

void ps_console_stdio(struct ps_console *con, int in_fd, int out_fd)
{
	struct ps_term *t = &con->t[0];

	memset(con, 0, sizeof(*con));
	t->in_fd = in_fd;
	t->out_fd = out_fd;
	snprintf(t->name, sizeof(t->name), "stdio");
	if (in_fd >= 0)
		raw_mode(t, in_fd, 0);
	{
		const char *term = getenv("TERM");

		t->fancy = isatty(out_fd) && term && *term && strcmp(term, "dumb") != 0 &&
			   strcmp(term, "unknown") != 0;
	}
	con->n = 1;
}

int ps_console_open(struct ps_console *con, const char *root, const char *spec,
		    json_object *warnings)
{
	struct ps_term_spec terms[PS_MAX_TERMS];
	char why[160], path[4096], msg[4600];
	int n = ps_console_spec_parse(spec, terms, PS_MAX_TERMS, why, sizeof(why));

	memset(con, 0, sizeof(*con));
	if (n < 0) {
		snprintf(msg, sizeof(msg), "console=%s: %s: using stdin/stdout", spec, why);
		if (warnings)
			json_object_array_add(warnings, json_object_new_string(msg));
		n = 0;
	}
	for (int i = 0; i < n; i++) {
		struct ps_term *t = &con->t[con->n];
		int fd;

		ps_path(path, sizeof(path), root, "/dev/%s", terms[i].name);
		/* O_NOCTTY: the menu must not become the session's controlling terminal. */
		fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(msg, sizeof(msg), "console %s: %s: %s: not used", terms[i].name,
				 path, strerror(errno));
			if (warnings)
				json_object_array_add(warnings, json_object_new_string(msg));
			continue;
		}
		t->in_fd = fd;
		t->out_fd = fd;
		t->close_fds = true;
		memcpy(t->name, terms[i].name, sizeof(t->name));
		t->name[sizeof(t->name) - 1] = '\0';
		raw_mode(t, fd, terms[i].speed);
		/* The VGA consoles (tty0, tty1, ...) redraw a line in place; a serial line may
		 * be a log or a dumb terminal, so it gets whole lines only. */
		t->fancy =
		    strncmp(t->name, "tty", 3) == 0 && t->name[3] >= '0' && t->name[3] <= '9';
		/* Firmware (SeaBIOS, OVMF) leaves auto-wrap off: long lines would overwrite
		 * their own end. */
		if (isatty(fd))
			write_all(fd, "\033[?7h", 5);
		con->n++;
	}
	if (con->n == 0) {
		ps_console_stdio(con, STDIN_FILENO, STDOUT_FILENO);
		return 0;
	}
	return con->n;
}

void ps_console_close(struct ps_console *con)
{
	for (int i = 0; i < con->n; i++) {
		struct ps_term *t = &con->t[i];
		int fd = t->in_fd >= 0 ? t->in_fd : t->out_fd;

		if (t->restore)
			tcsetattr(fd, TCSANOW, &t->saved);
		if (t->close_fds) {
			close(t->out_fd);
			if (t->in_fd >= 0 && t->in_fd != t->out_fd)
				close(t->in_fd);
		}
	}
	con->n = 0;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* a dead terminal must not stop the others */
		buf += n;
		len -= (size_t)n;
	}
}

void ps_console_write_term(struct ps_console *con, int i, const char *buf, size_t len)
{
	if (con && i >= 0 && i < con->n)
		write_all(con->t[i].out_fd, buf, len);
}

void ps_console_write(struct ps_console *con, const char *buf, size_t len)
{
	if (!con)
		return;
	for (int i = 0; i < con->n; i++)
		write_all(con->t[i].out_fd, buf, len);
}

void ps_console_printf(struct ps_console *con, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n;

	if (!con)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	{
		char *clean = ps_text_clean_dup(s, (size_t)n, "\n\r\t");

		if (clean)
			ps_console_write(con, clean, strlen(clean));
		free(clean);
	}
	free(s);
}

bool ps_console_has_input(const struct ps_console *con)
{
	for (int i = 0; con && i < con->n; i++)
		if (con->t[i].in_fd >= 0)
			return true;
	return false;
}

bool ps_console_interactive(const struct ps_console *con)
{
	for (int i = 0; con && i < con->n; i++)
		if (con->t[i].in_fd >= 0 && isatty(con->t[i].in_fd))
			return true;
	return false;
}

int ps_console_key(struct ps_console *con, int timeout_ms)
{
	struct pollfd pfd[PS_MAX_TERMS];
	int map[PS_MAX_TERMS], n = 0, ret;

	for (int i = 0; con && i < con->n; i++) {
		if (con->t[i].in_fd < 0)
			continue;
		pfd[n].fd = con->t[i].in_fd;
		pfd[n].events = POLLIN;
		map[n++] = i;
	}
	if (n == 0)
		return -ENODEV;
	ret = poll(pfd, (nfds_t)n, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? -ETIMEDOUT : -errno;
	if (ret == 0)
		return -ETIMEDOUT;
	for (int i = 0; i < n; i++) {
		unsigned char c;
		ssize_t r;

		if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = read(pfd[i].fd, &c, 1);
		if (r == 1)
			return c;
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* End of input (a closed pipe, a hung-up line): stop listening there. */
		con->t[map[i]].in_fd = -1;
	}
	return ps_console_has_input(con) ? -ETIMEDOUT : -ENODEV;
}

void ps_console_flush(struct ps_console *con)
{
	/* Terminals only: keys queued in a pipe are a script's input, not stale presses. */
	for (int i = 0; con && i < con->n; i++)
		if (con->t[i].in_fd >= 0 && isatty(con->t[i].in_fd))
			tcflush(con->t[i].in_fd, TCIFLUSH);
}
