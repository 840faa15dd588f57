/* coldplug.c - find every device's modalias in sysfs and load its driver through
 * libkmod, again and again while loading drivers makes new devices appear. */
#include "boot/coldplug.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libgen.h>
#include <libkmod.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* USB and SCSI devices show up a second or two after their host driver loads. */
#define QUIET_S	  2.0
#define ROUND_S	  0.5
#define MAX_DEPTH 64

static size_t strset_pos(const struct ps_strset *s, const char *str, bool *found)
{
	size_t lo = 0, hi = s->n;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->v[mid], str);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ps_strset_add(struct ps_strset *s, const char *str)
{
	bool found;
	size_t pos = strset_pos(s, str, &found);
	char *copy;

	if (found)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	copy = strdup(str);
	if (!copy)
		return -ENOMEM;
	memmove(s->v + pos + 1, s->v + pos, (s->n - pos) * sizeof(*s->v));
	s->v[pos] = copy;
	s->n++;
	return 1;
}

bool ps_strset_has(const struct ps_strset *s, const char *str)
{
	bool found;

	strset_pos(s, str, &found);
	return found;
}

void ps_strset_free(struct ps_strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int note_alias(const char *path, struct ps_strset *seen, struct ps_strset *fresh)
{
	char alias[4096];
	int ret = ps_read_str(path, alias, sizeof(alias));

	if (ret <= 0)
		return 0; /* unreadable or empty: no driver to look up */
	ret = ps_strset_add(seen, alias);
	if (ret == 1 && fresh)
		ret = ps_strset_add(fresh, alias) < 0 ? -ENOMEM : 1;
	return ret;
}

/* sysfs is full of symlinks back up the tree (subsystem, driver, device): never follow them. */
static int walk(int fd_dir, const char *path, int depth, struct ps_strset *seen,
		struct ps_strset *fresh)
{
	DIR *d;
	struct dirent *e;
	int added = 0;

	if (depth > MAX_DEPTH) {
		close(fd_dir);
		return 0;
	}
	d = fdopendir(fd_dir);
	if (!d) {
		close(fd_dir);
		return 0;
	}
	while ((e = readdir(d))) {
		char sub[PATH_MAX];
		unsigned char type = e->d_type;

		if (e->d_name[0] == '.' &&
		    (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= (int)sizeof(sub))
			continue;
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (type == DT_REG && strcmp(e->d_name, "modalias") == 0) {
			int r = note_alias(sub, seen, fresh);

			if (r < 0) {
				closedir(d);
				return r;
			}
			added += r;
		} else if (type == DT_DIR) {
			int fd = openat(dirfd(d), e->d_name,
					O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int r;

			if (fd < 0)
				continue;
			r = walk(fd, sub, depth + 1, seen, fresh);
			if (r < 0) {
				closedir(d);
				return r;
			}
			added += r;
		}
	}
	closedir(d);
	return added;
}

int ps_coldplug_scan(const char *root, struct ps_strset *seen, struct ps_strset *fresh)
{
	char path[PATH_MAX], busdir[PATH_MAX];
	int fd, added;
	DIR *buses;
	struct dirent *b;

	ps_path(path, sizeof(path), root, "/sys/devices");
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	added = walk(fd, path, 0, seen, fresh);
	if (added < 0)
		return added;
	/* Devices are normally under /sys/devices; the bus view catches any that are not. */
	ps_path(busdir, sizeof(busdir), root, "/sys/bus");
	buses = opendir(busdir);
	while (buses && (b = readdir(buses))) {
		DIR *devs;
		struct dirent *e;

		if (b->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/devices", busdir, b->d_name) >=
		    (int)sizeof(path))
			continue;
		devs = opendir(path);
		while (devs && (e = readdir(devs))) {
			char alias[PATH_MAX];
			int r;

			if (e->d_name[0] == '.')
				continue;
			if (snprintf(alias, sizeof(alias), "%s/%s/modalias", path, e->d_name) >=
			    (int)sizeof(alias))
				continue;
			r = note_alias(alias, seen, fresh);
			if (r < 0) {
				closedir(devs);
				closedir(buses);
				return r;
			}
			added += r;
		}
		if (devs)
			closedir(devs);
	}
	if (buses)
		closedir(buses);
	return added;
}

struct result {
	struct ps_strset tried; /* module names already handled, loaded or not */
	json_object *loaded, *failed;
	json_object *unused; /* matched an alias but found nothing to drive (ENODEV) */
};

static void fail(struct result *res, const char *module, const char *error)
{
	json_object *f = json_object_new_object();

	json_object_object_add(f, "module", json_object_new_string(module));
	json_object_object_add(f, "error", json_object_new_string(error));
	json_object_array_add(res->failed, f);
}

static void load_module(struct kmod_module *mod, struct result *res)
{
	const char *name = kmod_module_get_name(mod);
	int state, err;

	if (ps_strset_add(&res->tried, name) != 1)
		return;
	state = kmod_module_get_initstate(mod);
	if (state == KMOD_MODULE_LIVE || state == KMOD_MODULE_BUILTIN ||
	    state == KMOD_MODULE_COMING)
		return;
	err = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL, NULL,
					      NULL);
	if (err == 0)
		json_object_array_add(res->loaded, json_object_new_string(name));
	else if (err == -ENODEV || err == -ENXIO)
		/* e.g. amd64_edac on an Intel CPU: the alias matched, the hardware is not there */
		json_object_array_add(res->unused, json_object_new_string(name));
	else if (err < 0 && err != -EEXIST)
		fail(res, name, strerror(-err));
	/* err > 0: blacklisted, which is the administrator's choice, not a failure */
}

static void load_alias(struct kmod_ctx *ctx, const char *alias, struct result *res)
{
	struct kmod_list *list = NULL, *l;

	if (kmod_module_new_from_lookup(ctx, alias, &list) < 0)
		return;
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);

		load_module(mod, res);
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(list);
}

/*
 * Modules no device alias names: drivetemp, the SATA/SAS drives'
 * temperature sensors (it attaches to every disk, SCT capable or not, and
 * has no modalias), then the board's Super I/O hardware monitor (fans,
 * board temperatures, voltages: superio_load.c decides which), then
 * probestick.ko itself.
 */
static const char *const by_name_first[] = {"drivetemp"};
static const char *const by_name_last[] = {"probestick"};

static void load_named(struct kmod_ctx *ctx, const char *name, struct result *res)
{
	struct kmod_list *list = NULL;
	int ret = kmod_module_new_from_lookup(ctx, name, &list);

	if (ret < 0 || !list) {
		fail(res, name, ret < 0 ? strerror(-ret) : "not in the module tree (modules.dep)");
		return;
	}
	{
		struct kmod_module *mod = kmod_module_get_module(list);

		load_module(mod, res);
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(list);
}

static int write_json(const char *path, json_object *doc)
{
	char dir[PATH_MAX], name[PATH_MAX];
	const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								   JSON_C_TO_STRING_NOSLASHESCAPE);
	int ret;

	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(name, sizeof(name), "%s", path);
	ret = ps_mkdirs(dirname(dir), 0755);
	if (ret < 0)
		return ret;
	snprintf(dir, sizeof(dir), "%s", path);
	return ps_write_atomic(dirname(dir), basename(name), text, strlen(text));
}

static void note_error(struct ps_coldplug_result *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note_error(struct ps_coldplug_result *out, const char *fmt, ...)
{
	va_list ap;

	if (out->error[0])
		return; /* the first one says what went wrong */
	va_start(ap, fmt);
	vsnprintf(out->error, sizeof(out->error), fmt, ap);
	va_end(ap);
}

int ps_coldplug_run(const struct ps_coldplug_opts *o, struct ps_coldplug_result *out)
{
	double t0 = ps_mono_now(), last_new = t0;
	struct ps_strset seen = {0};
	struct result res = {.loaded = json_object_new_array(),
			     .failed = json_object_new_array(),
			     .unused = json_object_new_array()};
	char modules[PATH_MAX];
	const char *dir = o->modules_dir;
	struct kmod_ctx *ctx;
	json_object *doc, *superio;
	int ret = 0, rounds = 0;

	if (!dir && o->root && *o->root) {
		struct utsname u;

		uname(&u);
		snprintf(modules, sizeof(modules), "%s/lib/modules/%s", o->root, u.release);
		dir = modules;
	}
	memset(out, 0, sizeof(*out));
	ctx = kmod_new(dir, NULL);
	if (!ctx) {
		note_error(out,
			   "libkmod cannot start (modules in %s): no driver is loaded; check that "
			   "the module tree is in the image",
			   dir ? dir : "/lib/modules/$(uname -r)");
		ret = -ENOENT;
	} else {
		kmod_load_resources(ctx);
	}
	for (;;) {
		struct ps_strset fresh = {0};
		int n = ps_coldplug_scan(o->root, &seen, &fresh);
		double now;

		rounds++;
		if (n < 0) {
			note_error(out, "cannot read %s/sys/devices: %s", o->root, strerror(-n));
			ret = n;
			ps_strset_free(&fresh);
			break;
		}
		for (size_t i = 0; ctx && i < fresh.n; i++)
			load_alias(ctx, fresh.v[i], &res);
		ps_strset_free(&fresh);
		now = ps_mono_now();
		if (n > 0)
			last_new = now;
		if (!ctx || now - last_new >= QUIET_S || now - t0 >= o->settle_s)
			break;
		usleep((useconds_t)(ROUND_S * 1e6));
	}
	for (size_t i = 0; ctx && i < PS_ARRAY_SIZE(by_name_first); i++)
		load_named(ctx, by_name_first[i], &res);
	superio = ctx ? ps_superio_load(ctx, o->root, res.loaded, res.unused, res.failed) : NULL;
	for (size_t i = 0; ctx && i < PS_ARRAY_SIZE(by_name_last); i++)
		load_named(ctx, by_name_last[i], &res);
	doc = json_object_new_object();
	json_object_object_add(doc, "loaded", res.loaded);
	json_object_object_add(doc, "failed", res.failed);
	json_object_object_add(doc, "unused", res.unused);
	json_object_object_add(doc, "superio", superio);
	json_object_object_add(
	    doc, "duration_s",
	    json_object_new_double((double)(long long)((ps_mono_now() - t0) * 10 + 0.5) / 10));
	{
		int w = write_json(o->json_path, doc);

		if (w < 0) {
			note_error(out, "cannot write %s: %s", o->json_path, strerror(-w));
			ret = ret ? ret : w;
		}
	}
	out->doc = doc;
	out->devices = seen.n;
	out->rounds = rounds;
	out->seconds = ps_mono_now() - t0;
	ps_strset_free(&seen);
	ps_strset_free(&res.tried);
	if (ctx)
		kmod_unref(ctx);
	return ret;
}
