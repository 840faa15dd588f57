/* smartctl.c - run smartctl with a deadline and capture what it prints: a drive
 * that hangs a command must not hang the plan. */
#include "hw/smartctl.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUTPUT_CAP (16U << 20)

extern char **environ;

void ps_smartctl_out_free(struct ps_smartctl_out *o)
{
	free(o->text);
	memset(o, 0, sizeof(*o));
}

static int grow(struct ps_smartctl_out *o, size_t *cap, size_t need)
{
	char *t;
	size_t n = *cap ? *cap : 65536;

	while (n < need)
		n *= 2;
	if (n == *cap)
		return 0;
	t = realloc(o->text, n);
	if (!t)
		return -ENOMEM;
	o->text = t;
	*cap = n;
	return 0;
}

int ps_smartctl_run(const char *const *argv, double timeout_s, struct ps_smartctl_out *out)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], status = 0, ret;
	size_t cap = 0, n = 0;
	const char **args;
	pid_t pid;
	double deadline = ps_mono_now() + timeout_s;
	bool killed = false;

	memset(out, 0, sizeof(*out));
	out->exit_status = -1;
	for (n = 0; argv[n]; n++)
		;
	args = calloc(n + 1, sizeof(*args));
	if (!args)
		return -ENOMEM;
	args[0] = "smartctl";
	for (size_t i = 1; i < n; i++)
		args[i] = argv[i];
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		free(args);
		return -errno;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	ret = posix_spawnp(&pid, "smartctl", &fa, NULL, (char *const *)args, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(args);
	close(pipefd[1]);
	if (ret) {
		close(pipefd[0]);
		return -ret;
	}
	n = 0;
	for (;;) {
		struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
		double left = deadline - ps_mono_now();
		ssize_t got;

		if (left <= 0) {
			kill(pid, SIGKILL);
			killed = true;
			break;
		}
		ret = poll(&p, 1, (int)(left * 1000) + 1);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0)
			continue;
		if (grow(out, &cap, n + 65536 + 1) < 0) {
			kill(pid, SIGKILL);
			break;
		}
		got = read(pipefd[0], out->text + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n >= OUTPUT_CAP) {
			out->truncated = true;
			kill(pid, SIGKILL);
			break;
		}
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!out->text && grow(out, &cap, 1) < 0)
		return -ENOMEM;
	out->text[n] = '\0';
	out->len = n;
	out->timed_out = killed;
	if (WIFEXITED(status)) {
		out->exit_status = WEXITSTATUS(status);
		/* posix_spawnp reports a missing program as exit 127 from the child */
		if (out->exit_status == 127 && n == 0) {
			ps_smartctl_out_free(out);
			return -ENOENT;
		}
	}
	return 0;
}

const char *const ps_smartctl_usb_types[PS_SMARTCTL_USB_TYPES] = {NULL, "sat", "sntjmicron",
								  "sntrealtek", "sntasmedia"};
