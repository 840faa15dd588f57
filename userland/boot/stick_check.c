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

/* What ps_fsck_decode has read so far. */
struct fsck_read {
	json_object *out, *probs, *files;
	char prev[PATH_MAX], prev2[PATH_MAX]; /* the last two paths fsck.fat named */
	char offsets[256];		      /* the first differing boot-sector offsets */
	bool dirty, backup, backup_other, in_diffs;
	int len, ndiffs;
};

/* "  3:53/6d, 4:59/6b, ..." and "  , 90:fa/0e, ...": offset:original/backup. */
static bool diff_line(struct fsck_read *r, const char *l)
{
	unsigned int off, x, y;

	if (!r->in_diffs || strspn(l, " ,:/0123456789abcdef") != strlen(l) || !strchr(l, ':'))
		return false;
	for (const char *t = l; (t = strpbrk(t, "0123456789abcdef"));) {
		if (sscanf(t, "%u:%x/%x", &off, &x, &y) != 3)
			break;
		if (off != DIRTY_FLAG_OFFSET)
			r->backup_other = true;
		r->ndiffs++;
		if (r->ndiffs <= 8 && r->len < (int)sizeof(r->offsets))
			r->len += snprintf(r->offsets + r->len, sizeof(r->offsets) - r->len, "%s%u",
					   r->len ? ", " : "", off);
		t += strcspn(t, ",");
	}
	return true;
}

/* The text of l from skip on, cut before " (": the tool's version, a file's long name. */
static void before_paren(const char *l, size_t skip, char *buf, size_t len)
{
	snprintf(buf, len, "%s", l + skip);
	if (strstr(buf, " ("))
		*strstr(buf, " (") = '\0';
}

/* The lines that name: the tool, a file checked, the dirty flag, the boot backup. */
static bool state_line(struct fsck_read *r, const char *l)
{
	char text[PATH_MAX];

	if (starts(l, "fsck.fat ")) {
		/* "fsck.fat 4.2 (2021-01-31)" -> "fsck.fat 4.2" */
		before_paren(l, 0, text, 64);
		ps_json_set_str(r->out, "tool", text);
	} else if (starts(l, "Checking file ")) {
		/* "Checking file /REPORTS/x/report.json (REPORT~1.JSO)": the long name */
		before_paren(l, 14, text, sizeof(text));
		json_object_array_add(r->files, ps_json_new_str(text));
	} else if (starts(l, "Dirty bit is set.")) {
		r->dirty = true;
		problem(r->probs, "dirty", NULL,
			"the volume was not cleanly unmounted (FAT's dirty flag was set)");
	} else if (starts(l, "There are differences between boot sector and its backup")) {
		r->backup = r->in_diffs = true;
	} else {
		return false;
	}
	return true;
}

/* A problem fsck.fat reports about the volume or the file named before it. */
static bool problem_line(struct fsck_read *r, const char *l)
{
	const char *prev = r->prev;
	long long a, b;

	if (sscanf(l, "Reclaimed %lld unused cluster%*[s] (%lld bytes)", &a, &b) == 2 ||
	    sscanf(l, "Reclaimed %lld unused cluster (%lld bytes)", &a, &b) == 2) {
		problem(r->probs, "lost_clusters", NULL,
			"%lld lost cluster%s (%lld bytes) that no file owned, what a write "
			"cut off leaves",
			a, a == 1 ? "" : "s", b);
		ps_json_set_count(ps_json_at(r->probs, ps_json_len(r->probs) - 1), "clusters", a);
		ps_json_set_count(ps_json_at(r->probs, ps_json_len(r->probs) - 1), "bytes", b);
	} else if (sscanf(l, "Free cluster summary wrong (%lld vs. really %lld)", &a, &b) == 2) {
		problem(r->probs, "free_count", NULL,
			"the free-space count was stale (%lld free clusters recorded, %lld really)",
			a, b);
	} else if (sscanf(l, "  Contains a free cluster (%lld).", &a) == 1) {
		problem(r->probs, "free_cluster", prev,
			"%s: its cluster chain runs into a free cluster (%lld): cut short there",
			prev, a);
	} else if (sscanf(l, "  File size is %lld bytes, cluster chain length is %*[>] %lld", &a,
			  &b) == 2 ||
		   sscanf(l, "  File size is %lld bytes, cluster chain length is %lld", &a, &b) ==
		       2) {
		problem(r->probs, "file_size", prev,
			"%s: its size (%lld bytes) is not what its clusters hold (%lld bytes)",
			prev, a, b);
	} else if (strcmp(l, "  share clusters.") == 0) {
		char first[PATH_MAX];
		size_t n = strlen(r->prev2);

		snprintf(first, sizeof(first), "%.*s", (int)(n > 5 ? n - 5 : n), r->prev2);
		problem(r->probs, "cross_link", prev, "%s and %s share clusters", first, prev);
	} else if (strstr(l, "FATs differ")) {
		problem(r->probs, "fats_differ", NULL, "the two copies of the FAT differ: %s", l);
	} else {
		return false;
	}
	return true;
}

json_object *ps_fsck_decode(const char *output)
{
	struct fsck_read r = {.out = json_object_new_object(),
			      .probs = json_object_new_array(),
			      .files = json_object_new_array()};
	char *copy = strdup(output ? output : ""), *save = NULL;

	ps_json_set(r.out, "tool", NULL);
	ps_json_set(r.out, "summary", NULL);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		long long a, b, c;
		char *nl = l + strlen(l);

		while (nl > l && nl[-1] == '\r')
			*--nl = '\0';
		if (diff_line(&r, l))
			continue;
		if (!starts(l, "This is mostly harmless."))
			r.in_diffs = false;
		/* a path a message below refers to, or what fsck.fat does about one: no problem */
		if (!state_line(&r, l) && !problem_line(&r, l) && l[0] != '/' && !is_chatter(l) &&
		    !summary_line(l, r.out) && sscanf(l, "%lld files, %lld/%lld", &a, &b, &c) != 3)
			problem(r.probs, "other", NULL, "%s", l);
		if (l[0] == '/') {
			snprintf(r.prev2, sizeof(r.prev2), "%s", r.prev);
			snprintf(r.prev, sizeof(r.prev), "%s", l);
		}
	}
	if (r.backup && (r.backup_other || !r.dirty))
		problem(
		    r.probs, "boot_backup", NULL,
		    "the boot sector and its backup differ in %d byte%s (%s%s); fsck.fat leaves "
		    "that alone",
		    r.ndiffs, r.ndiffs == 1 ? "" : "s", r.offsets[0] ? r.offsets : "?",
		    r.ndiffs > 8 ? ", ..." : "");
	free(copy);
	ps_json_set(r.out, "problems", r.probs);
	ps_json_set(r.out, "files", r.files);
	return r.out;
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
