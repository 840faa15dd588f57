/* test_console.c - terminals on a pseudo-terminal: single-key mode, serial speed,
 * output to every terminal, restored modes, and missing terminals as warnings. */
#include "check.h"
#include "cli/console.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static int open_pty(char *slave, size_t len)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, slave, len) != 0)
		return -1;
	return m;
}

int main(void)
{
	char root[256], dev[300], link[400], slave[128], buf[256];
	const char *o = getenv("OUT");
	struct ps_console con;
	struct termios before, during, after;
	json_object *w = json_object_new_array();
	int master, sfd, n;

	snprintf(root, sizeof(root), "%s/tests/console-%d", o ? o : "out", (int)getpid());
	snprintf(dev, sizeof(dev), "%s/dev", root);
	CHECK_INT(ps_mkdirs(dev, 0755), 0);
	master = open_pty(slave, sizeof(slave));
	CHECK(master >= 0);
	if (master < 0)
		return check_done("test_console");
	snprintf(link, sizeof(link), "%s/ttyS0", dev);
	CHECK_INT(symlink(slave, link), 0);
	/* keep the slave open so its mode outlives our close, as a real console's does */
	sfd = open(slave, O_RDWR | O_NOCTTY);
	CHECK_INT(tcgetattr(sfd, &before), 0);
	CHECK(before.c_lflag & ICANON);

	CHECK_INT(ps_console_open(&con, root, "tty0,ttyS0,9600", w), 1);
	CHECK_INT(json_object_array_length(w), 1);
	CHECK(strstr(json_object_get_string(json_object_array_get_idx(w, 0)), "console tty0") !=
	      NULL);
	CHECK(ps_console_interactive(&con));
	CHECK_INT(tcgetattr(sfd, &during), 0);
	CHECK(!(during.c_lflag & ICANON));
	CHECK(!(during.c_lflag & ECHO));
	CHECK(during.c_lflag & ISIG); /* ^C still reaches us as SIGINT */
	CHECK_INT(cfgetospeed(&during), B9600);

	/* one key, no Enter needed */
	CHECK_INT(ps_console_key(&con, 0), -ETIMEDOUT);
	CHECK_INT(write(master, "7", 1), 1);
	CHECK_INT(ps_console_key(&con, 1000), '7');
	ps_console_printf(&con, "hello %d\n", 42);
	usleep(50000);
	n = (int)read(master, buf, sizeof(buf) - 1);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	CHECK(strstr(buf, "hello 42") != NULL);

	ps_console_close(&con);
	CHECK_INT(tcgetattr(sfd, &after), 0);
	CHECK(after.c_lflag & ICANON);
	CHECK(after.c_lflag & ECHO);
	CHECK_INT(cfgetospeed(&after), cfgetospeed(&before));

	/* nothing opens: stdin/stdout, with a warning per terminal */
	json_object_put(w);
	w = json_object_new_array();
	CHECK_INT(ps_console_open(&con, root, "tty5,tty6", w), 0);
	CHECK_INT(con.n, 1);
	CHECK_STR(con.t[0].name, "stdio");
	CHECK_INT(json_object_array_length(w), 2);
	ps_console_close(&con);
	json_object_put(w);
	close(sfd);
	close(master);
	unlink(link);
	return check_done("test_console");
}
