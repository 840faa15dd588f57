/*
 * stick_check.c - fsck.fat on the stick before it is mounted, its output read
 * into problems people can act on, and the files its repair leaves cleared
 * away once the stick is mounted (boot/stick_check.h).
 */
#include "boot/stick_check.h"
#include "lib/store.h"
#include "lib/json.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The byte of a FAT32 boot sector that holds the dirty flag (BPB offset 0x41). */
#define DIRTY_FLAG_OFFSET 65
#define MAX_LOG_LINES	  60

static void problem(json_object *list, const char *kind, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void problem(json_object *list, const char *kind, const char *path, const char *fmt, ...)
{
	json_object *p = json_object_new_object();
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ps_json_set_str(p, "kind", kind);
	if (path)
		ps_json_set_str(p, "path", path);
	ps_json_set_str(p, "message", msg);
	json_object_array_add(list, p);
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Lines that say what fsck.fat does about a problem it already named, or nothing. */
static bool is_chatter(const char *l)
{
	static const char *const lines[] = {
	    "Leaving filesystem unchanged.",
	    "Performing changes.",
	    "  Auto-correcting.",
	    " Automatically removing dirty bit.",
	    "  Not automatically fixing this.",
	    "This is mostly harmless. Differences: (offset:original/backup)",
	    "Checking we can access the last sector of the filesystem",
	    "Starting check/repair pass.",
	    "Checking for unused clusters.",
	    "Checking free cluster summary.",
	};

	/* without the C library's codepage modules (the initramfs) fsck.fat says so and
	 * uses its own table: nothing about the stick */
	if (starts(l, "Cannot initialize conversion from ") ||
	    strcmp(l, "Using internal CP850 conversion table") == 0)
		return true;
	if (!*l || starts(l, "fsck.fat ") || starts(l, "Checking file ") ||
	    starts(l, "  Truncating ") || starts(l, "  Assuming EOF"))
		return true;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (strcmp(l, lines[i]) == 0)
			return true;
	return false;
}

/* "DEV: 8 files, 28/129022 clusters" */
static bool summary_line(const char *l, json_object *out)
{
	const char *p = strstr(l, ": ");
	long long files, used, total;
	json_object *s;

	if (!p || sscanf(p + 2, "%lld files, %lld/%lld clusters", &files, &used, &total) != 3)
		return false;
	s = json_object_new_object();
	ps_json_set_count(s, "files", files);
	ps_json_set_count(s, "clusters_used", used);
	ps_json_set_count(s, "clusters", total);
	ps_json_set(out, "summary", s);
	return true;
}

json_object *ps_fsck_decode(const char *output)
{
	json_object *out = json_object_new_object(), *probs = json_object_new_array();
	json_object *files = json_object_new_array();
	char *copy = strdup(output ? output : ""), *save = NULL;
	char prev[PATH_MAX] = "", prev2[PATH_MAX] = "", offsets[256] = "";
	bool dirty = false, backup = false, backup_other = false, in_diffs = false;
	int len = 0, ndiffs = 0;

	ps_json_set(out, "tool", NULL);
	ps_json_set(out, "summary", NULL);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		long long a, b, c;
		unsigned int off, x, y;
		char *nl = l + strlen(l);

		while (nl > l && nl[-1] == '\r')
			*--nl = '\0';
		/* "  3:53/6d, 4:59/6b, ..." and "  , 90:fa/0e, ...": offset:original/backup */
		if (in_diffs && strspn(l, " ,:/0123456789abcdef") == strlen(l) && strchr(l, ':')) {
			for (char *t = l; (t = strpbrk(t, "0123456789abcdef"));) {
				if (sscanf(t, "%u:%x/%x", &off, &x, &y) != 3)
					break;
				if (off != DIRTY_FLAG_OFFSET)
					backup_other = true;
				ndiffs++;
				if (ndiffs <= 8 && len < (int)sizeof(offsets))
					len += snprintf(offsets + len, sizeof(offsets) - len,
							"%s%u", len ? ", " : "", off);
				t += strcspn(t, ",");
			}
			continue;
		}
		if (!starts(l, "This is mostly harmless."))
			in_diffs = false;
		if (starts(l, "fsck.fat ")) {
			char tool[64];

			/* "fsck.fat 4.2 (2021-01-31)" -> "fsck.fat 4.2" */
			snprintf(tool, sizeof(tool), "%s", l);
			if (strstr(tool, " ("))
				*strstr(tool, " (") = '\0';
			ps_json_set_str(out, "tool", tool);
		} else if (starts(l, "Checking file ")) {
			char path[PATH_MAX];

			/* "Checking file /REPORTS/x/report.json (REPORT~1.JSO)": the long name */
			snprintf(path, sizeof(path), "%s", l + 14);
			if (strstr(path, " ("))
				*strstr(path, " (") = '\0';
			json_object_array_add(files, ps_json_new_str(path));
		} else if (starts(l, "Dirty bit is set.")) {
			dirty = true;
			problem(probs, "dirty", NULL,
				"the volume was not cleanly unmounted (FAT's dirty flag was set)");
		} else if (starts(l, "There are differences between boot sector and its backup")) {
			backup = in_diffs = true;
		} else if (sscanf(l, "Reclaimed %lld unused cluster%*[s] (%lld bytes)", &a, &b) ==
			       2 ||
			   sscanf(l, "Reclaimed %lld unused cluster (%lld bytes)", &a, &b) == 2) {
			problem(probs, "lost_clusters", NULL,
				"%lld lost cluster%s (%lld bytes) that no file owned, what a write "
				"cut off leaves",
				a, a == 1 ? "" : "s", b);
			ps_json_set_count(ps_json_at(probs, ps_json_len(probs) - 1), "clusters", a);
			ps_json_set_count(ps_json_at(probs, ps_json_len(probs) - 1), "bytes", b);
		} else if (sscanf(l, "Free cluster summary wrong (%lld vs. really %lld)", &a, &b) ==
			   2) {
			problem(probs, "free_count", NULL,
				"the free-space count was stale (%lld free clusters recorded, %lld "
				"really)",
				a, b);
		} else if (sscanf(l, "  Contains a free cluster (%lld).", &a) == 1) {
			problem(probs, "free_cluster", prev,
				"%s: its cluster chain runs into a free cluster (%lld): cut short "
				"there",
				prev, a);
		} else if (sscanf(l,
				  "  File size is %lld bytes, cluster chain length is %*[>] %lld",
				  &a, &b) == 2 ||
			   sscanf(l, "  File size is %lld bytes, cluster chain length is %lld", &a,
				  &b) == 2) {
			problem(probs, "file_size", prev,
				"%s: its size (%lld bytes) is not what its clusters hold (%lld "
				"bytes)",
				prev, a, b);
		} else if (strcmp(l, "  share clusters.") == 0) {
			char first[PATH_MAX];
			size_t n = strlen(prev2);

			snprintf(first, sizeof(first), "%.*s", (int)(n > 5 ? n - 5 : n), prev2);
			problem(probs, "cross_link", prev, "%s and %s share clusters", first, prev);
		} else if (strstr(l, "FATs differ")) {
			problem(probs, "fats_differ", NULL, "the two copies of the FAT differ: %s",
				l);
		} else if (l[0] == '/' || is_chatter(l) || summary_line(l, out) ||
			   sscanf(l, "%lld files, %lld/%lld", &a, &b, &c) == 3) {
			/* a path a message below refers to, or what fsck.fat does about one */
		} else {
			problem(probs, "other", NULL, "%s", l);
		}
		if (l[0] == '/') {
			snprintf(prev2, sizeof(prev2), "%s", prev);
			snprintf(prev, sizeof(prev), "%s", l);
		}
	}
	if (backup && (backup_other || !dirty))
		problem(
		    probs, "boot_backup", NULL,
		    "the boot sector and its backup differ in %d byte%s (%s%s); fsck.fat leaves "
		    "that alone",
		    ndiffs, ndiffs == 1 ? "" : "s", offsets[0] ? offsets : "?",
		    ndiffs > 8 ? ", ..." : "");
	free(copy);
	ps_json_set(out, "problems", probs);
	ps_json_set(out, "files", files);
	return out;
}

static int run_real(const char *const argv[], char **out, int *status, void *arg)
{
	int pfd[2];
	pid_t pid;
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);

	(void)arg;
	if (!buf)
		return -ENOMEM;
	if (pipe(pfd) < 0) {
		free(buf);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pfd[0]);
		close(pfd[1]);
		free(buf);
		return err;
	}
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
		n = read(pfd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pfd[0]);
	buf[len] = '\0';
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	*out = buf;
	return 0;
}

/* One fsck.fat run: its exit code (-1: it did not run) and its output decoded. */
static int run_fsck(ps_cmd_runner run, void *arg, const char *fsck, const char *mode,
		    const char *device, json_object *log, json_object **decoded)
{
	/* -n -l: look and list every file; -a -w: repair without asking, each change at once */
	const char *argv[] = {fsck, mode, strcmp(mode, "-n") == 0 ? "-l" : "-w", device, NULL};
	char *out = NULL;
	int status = 0, ret = run(argv, &out, &status, arg);
	char *save = NULL;

	*decoded = NULL;
	if (ret < 0 || !out)
		return -1;
	*decoded = ps_fsck_decode(out);
	/* fsck.fat's own words, without the file listing, for the record */
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (starts(l, "Checking file ") ||
		    starts(l, "Cannot initialize conversion from ") ||
		    starts(l, "Using internal CP850") || ps_json_len(log) >= MAX_LOG_LINES)
			continue;
		char line[600];

		snprintf(line, sizeof(line), "%s %s", mode, l);
		json_object_array_add(log, ps_json_new_str(line));
	}
	free(out);
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static bool listed(json_object *files, const char *path)
{
	for (size_t i = 0; i < ps_json_len(files); i++)
		if (strcmp(json_object_get_string(ps_json_at(files, i)), path) == 0)
			return true;
	return false;
}

/* "/FSCK0000.REC": what fsck.fat -a makes of a lost cluster chain, in the root. */
static bool is_salvage_name(const char *p)
{
	if (strlen(p) != 13 || strncmp(p, "/FSCK", 5) != 0 || strcmp(p + 9, ".REC") != 0)
		return false;
	for (int i = 5; i < 9; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

json_object *ps_stick_check(const char *device, const char *fsck, ps_cmd_runner run, void *arg)
{
	json_object *c = json_object_new_object(), *log = json_object_new_array();
	json_object *before = NULL, *repair = NULL, *after = NULL, *salvaged;
	int rc;
	char err[512];

	fsck = fsck ? fsck : "fsck.fat";
	run = run ? run : run_real;
	ps_json_set_str(c, "device", device);
	ps_json_set(c, "tool", NULL);
	ps_json_set(c, "clean", NULL);
	ps_json_set(c, "problems", json_object_new_array());
	ps_json_set(c, "repaired", NULL);
	ps_json_set(c, "clean_after", NULL);
	ps_json_set(c, "salvaged", json_object_new_array());
	ps_json_set(c, "error", NULL);
	ps_json_set(c, "log", log);
	rc = run_fsck(run, arg, fsck, "-n", device, log, &before);
	if (rc < 0 || rc == 127 || !before) {
		snprintf(err, sizeof(err),
			 "%s could not be run on %s%s: the stick was mounted unchecked", fsck,
			 device, rc == 127 ? " (not found)" : "");
		ps_json_set_str(c, "error", err);
		json_object_put(before);
		return c;
	}
	ps_json_set(c, "tool", json_object_get(ps_json_get(before, "tool")));
	ps_json_set(c, "problems", json_object_get(ps_json_arr(before, "problems")));
	if (rc == 0 && ps_json_len(ps_json_arr(before, "problems")) == 0) {
		ps_json_set(c, "clean", json_object_new_boolean(1));
		json_object_put(before);
		return c;
	}
	ps_json_set(c, "clean", json_object_new_boolean(0));
	if (rc == 0) {
		/* something said (a boot sector backup that differs) but nothing to repair */
		json_object_put(before);
		return c;
	}
	if (rc != 1) {
		snprintf(err, sizeof(err),
			 "%s -n %s ended with exit status %d (not a check result): not repaired",
			 fsck, device, rc);
		ps_json_set_str(c, "error", err);
		json_object_put(before);
		return c;
	}
	rc = run_fsck(run, arg, fsck, "-a", device, log, &repair);
	ps_json_set(c, "repaired", json_object_new_boolean(rc == 0 || rc == 1));
	json_object_put(repair);
	rc = run_fsck(run, arg, fsck, "-n", device, log, &after);
	ps_json_set(c, "clean_after",
		    json_object_new_boolean(rc == 0 && after &&
					    ps_json_len(ps_json_arr(after, "problems")) == 0));
	salvaged = ps_json_arr(c, "salvaged");
	for (size_t i = 0; after && i < ps_json_len(ps_json_arr(after, "files")); i++) {
		const char *p = json_object_get_string(ps_json_at(ps_json_arr(after, "files"), i));

		if (is_salvage_name(p) && !listed(ps_json_arr(before, "files"), p))
			json_object_array_add(salvaged, ps_json_new_str(p));
	}
	json_object_put(before);
	json_object_put(after);
	return c;
}

void ps_stick_check_settle(const char *stick, json_object *check, json_object *recovered)
{
	json_object *salvaged = ps_json_arr(check, "salvaged");

	for (size_t i = 0; i < ps_json_len(salvaged); i++) {
		const char *name = json_object_get_string(ps_json_at(salvaged, i));
		char path[PATH_MAX];
		json_object *o;
		int ret;

		if (!name || !is_salvage_name(name) ||
		    snprintf(path, sizeof(path), "%s%s", stick, name) >= (int)sizeof(path))
			continue;
		/* fsck.fat names them in upper case; vfat finds them in any case */
		ret = ps_store_unlink(path);
		if (ret == -ENOENT)
			continue; /* an earlier session of this boot removed it */
		o = json_object_new_object();
		ps_json_set_str(o, "action", ret == 0 ? "removed" : "failed");
		ps_json_set_str(o, "path", name + 1);
		if (ret == 0) {
			ps_json_set_str(
			    o, "message",
			    "removed: fsck.fat made it of lost clusters, leftovers of a "
			    "write that was cut off");
		} else {
			char msg[300];

			snprintf(msg, sizeof(msg),
				 "fsck.fat made it of lost clusters; it could "
				 "not be removed: %s",
				 strerror(-ret));
			ps_json_set_str(o, "message", msg);
		}
		json_object_array_add(recovered, o);
	}
}
