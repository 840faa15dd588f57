/* curl.c - load libcurl and the libraries it needs from a folder, only when it is used. */
#include "collect/curl.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static struct ps_curl api;
static const struct ps_curl *loaded;
static char load_why[512];
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_lib(const char *name)
{
	return strstr(name, ".so") != NULL && name[0] != '.';
}

/*
 * dlopen every library in dir by its path, RTLD_GLOBAL, until no more
 * loads: one whose dependency is not loaded yet fails and is tried again
 * in the next round, when the dependency is. Then libcurl's own needs are
 * met by soname from what is loaded.
 */
static void preload(const char *dir)
{
	char names[64][256], path[600];
	bool done[64] = {false};
	size_t n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	bool progress = true;

	if (!d)
		return;
	while ((e = readdir(d)) && n < 64)
		if (is_lib(e->d_name) && strlen(e->d_name) < sizeof(names[0]))
			snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
	closedir(d);
	while (progress) {
		progress = false;
		for (size_t i = 0; i < n; i++) {
			if (done[i])
				continue;
			snprintf(path, sizeof(path), "%.300s/%.255s", dir, names[i]);
			if (dlopen(path, RTLD_NOW | RTLD_GLOBAL)) {
				done[i] = true;
				progress = true;
			}
		}
	}
}

#define SYM(field, name)                                                                           \
	do {                                                                                       \
		*(void **)&api.field = dlsym(h, name);                                             \
		if (!api.field) {                                                                  \
			snprintf(load_why, sizeof(load_why), "libcurl has no %s", name);           \
			return NULL;                                                               \
		}                                                                                  \
	} while (0)

static const struct ps_curl *resolve(void *h)
{
	SYM(global_init, "curl_global_init");
	SYM(easy_init, "curl_easy_init");
	SYM(easy_setopt, "curl_easy_setopt");
	SYM(easy_perform, "curl_easy_perform");
	SYM(easy_getinfo, "curl_easy_getinfo");
	SYM(easy_cleanup, "curl_easy_cleanup");
	SYM(easy_reset, "curl_easy_reset");
	SYM(easy_strerror, "curl_easy_strerror");
	SYM(easy_send, "curl_easy_send");
	SYM(easy_recv, "curl_easy_recv");
	SYM(slist_append, "curl_slist_append");
	SYM(slist_free_all, "curl_slist_free_all");
	SYM(version_info, "curl_version_info");
	if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(load_why, sizeof(load_why), "curl_global_init failed");
		return NULL;
	}
	return &api;
}

const struct ps_curl *ps_curl_load(const char *const *dirs, char *why, size_t whylen)
{
	static bool tried;
	void *h = NULL;

	pthread_mutex_lock(&load_lock);
	if (!tried) {
		tried = true;
		for (size_t i = 0; dirs && dirs[i] && !h; i++) {
			char path[600];

			preload(dirs[i]);
			snprintf(path, sizeof(path), "%s/libcurl.so.4", dirs[i]);
			h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
		}
		if (!h)
			h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_GLOBAL);
		if (!h)
			snprintf(load_why, sizeof(load_why),
				 "libcurl is not there (the netboot tree's collect.img, the "
				 "stick's tools/collect, or Debian's libcurl4): %s",
				 dlerror());
		else
			loaded = resolve(h);
	}
	if (!loaded)
		snprintf(why, whylen, "%s", load_why);
	pthread_mutex_unlock(&load_lock);
	return loaded;
}
