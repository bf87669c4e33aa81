#include <config.h>

#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <muster/muster.h>

#include "builtin/builtin.h"
#include "lib/reason.h"
#include "suggest.h"
#include "trust.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define ENTRY_NAME "muster_plugin_entry_v" STR(MUSTER_PLUGIN_ABI_MAJOR)

/* The smallest descriptor this core can use: up to and including close. */
#define MIN_DESCRIPTOR_SIZE (offsetof(muster_plugin, close) + sizeof(void (*)(void *)))

struct registry_entry {
	char *path;                 /* canonical path */
	int code;                   /* 0, or why it cannot be used */
	char why[512];
	muster_plugin desc;         /* a copy, zero-padded to this ABI's size */
	struct loaded_plugin plugin;
	struct registry_entry *next;
};

/* dlopen/dlsym/dlerror and the registry are serialised: dlerror's
 * thread-safety is implementation-defined. */
static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;
static struct registry_entry *registry;

/* The reason into `why`, and `code`. */
#define fail(why, len, code, ...) (reason_fail((why), (len), __VA_ARGS__), (code))

/* dlerror()'s words for a dependency that is missing or too old: only
 * then does ldd help. */
static int missing_dependency(const char *msg)
{
	return strstr(msg, "cannot open shared object file") || strstr(msg, "undefined symbol") ||
	       strstr(msg, "version `");
}

/* Opens `real` once, checks it and its directories, and dlopen()s that very
 * descriptor.  The descriptor of a mapped object stays open: glibc knows the
 * object by its name, /proc/self/fd/N, which must not come to mean another
 * file. */
static void *open_checked(const char *real, char *why, size_t len)
{
	char name[64];
	int fd = trust_open(real, why, len);
	if (fd < 0)
		return NULL;
	if (trust_fd_name(fd, real, name, sizeof(name), why, len) < 0) {
		close(fd);
		return NULL;
	}
	dlerror();
	void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		const char *msg = dlerror();
		size_t n = strlen(name);
		if (!msg)
			msg = "unknown error";
		else if (strncmp(msg, name, n) == 0 && strncmp(msg + n, ": ", 2) == 0)
			msg += n + 2; /* the descriptor's name says nothing: `real` is given */
		char hint[PATH_MAX + 64] = "";
		if (missing_dependency(msg))
			snprintf(hint, sizeof(hint), " (is a package or library missing? try: ldd %s)",
			         real);
		reason_fail(why, len, "cannot load %s: %s%s", real, msg, hint);
		close(fd);
	}
	return handle;
}

/* A plugin for another ABI major exports another entry name: say which. */
static int other_abi(void *handle)
{
	for (int major = 0; major <= 9; major++) {
		char sym[48];
		if (major == MUSTER_PLUGIN_ABI_MAJOR)
			continue;
		snprintf(sym, sizeof(sym), "muster_plugin_entry_v%d", major);
		if (dlsym(handle, sym))
			return major;
	}
	return -1;
}

static int validate(struct registry_entry *e, const char *name, void *handle)
{
	char *why = e->why;
	size_t len = sizeof(e->why);
	const char *file = e->path;
	const muster_plugin *(*entry)(void);
	*(void **)&entry = dlsym(handle, ENTRY_NAME);
	if (!entry) {
		int major = other_abi(handle);
		if (major >= 0)
			return fail(why, len, MUSTER_EABI, "%s was built for plugin ABI %d, this libmuster speaks %d",
			            file, major, MUSTER_PLUGIN_ABI_MAJOR);
		return fail(why, len, MUSTER_EPLUGIN, "%s does not export " ENTRY_NAME, file);
	}
	const muster_plugin *d = entry();
	if (!d)
		return fail(why, len, MUSTER_EPLUGIN, "%s returned no descriptor", file);
	if (d->abi_major != MUSTER_PLUGIN_ABI_MAJOR)
		return fail(why, len, MUSTER_EABI, "%s was built for plugin ABI %u, this libmuster speaks %d",
		            file, d->abi_major, MUSTER_PLUGIN_ABI_MAJOR);
	if (d->struct_size < MIN_DESCRIPTOR_SIZE)
		return fail(why, len, MUSTER_EABI,
		            "%s: descriptor is %u bytes, shorter than plugin ABI %d.0's %zu", file,
		            d->struct_size, MUSTER_PLUGIN_ABI_MAJOR, MIN_DESCRIPTOR_SIZE);
	/* A newer minor's larger descriptor is read up to what we know. */
	memcpy(&e->desc, d,
	       d->struct_size < sizeof(muster_plugin) ? d->struct_size : sizeof(muster_plugin));
	if (!e->desc.name || strcmp(e->desc.name, name) != 0)
		return fail(why, len, MUSTER_EPLUGIN, "%s declares itself as '%s', not '%s'", file,
		            e->desc.name ? e->desc.name : "(null)", name);
	if (!e->desc.resolve)
		return fail(why, len, MUSTER_EPLUGIN, "%s has no resolve callback", file);
	e->plugin.desc = &e->desc;
	e->plugin.file = e->path;
	return 0;
}

/* Loads (once) the file at canonical path `real`; the lock is held. */
static struct registry_entry *load_file(const char *name, const char *real)
{
	for (struct registry_entry *e = registry; e; e = e->next)
		if (strcmp(e->path, real) == 0)
			return e;
	struct registry_entry *e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(real))) {
		free(e);
		return NULL;
	}
	int saved = errno;
	void *handle = open_checked(real, e->why, sizeof(e->why));
	e->code = handle ? validate(e, name, handle) : MUSTER_EPLUGIN;
	errno = saved;
	/* Failures are remembered as well: the handle (if any) stays open,
	 * since its constructors have run. */
	e->next = registry;
	registry = e;
	return e;
}

static const struct loaded_plugin *find_builtin(const char *name)
{
	for (size_t i = 0; i < builtin_count; i++)
		if (strcmp(name, builtin_plugins[i].desc->name) == 0)
			return &builtin_plugins[i];
	return NULL;
}

const char *loader_builtin_name(size_t i)
{
	return i < builtin_count ? builtin_plugins[i].desc->name : NULL;
}

int plugin_name_valid(const char *name)
{
	if (!name || !*name)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

/* Keeps `candidate` in `out` when it is nearer than what is there. */
static void consider(const char *name, const char *candidate, char *out, size_t len)
{
	const char *pair[2] = { out, candidate };
	const char *best = suggest_nearest(name, out[0] ? pair : pair + 1, out[0] ? 2 : 1);
	if (best == candidate)
		snprintf(out, len, "%s", candidate);
}

void suggest_plugin(const char *name, char *const *dirs, size_t ndirs, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; loader_builtin_name(i); i++)
		consider(name, loader_builtin_name(i), out, len);
	for (size_t i = 0; i < ndirs; i++) {
		DIR *d = opendir(dirs[i]);
		if (!d)
			continue;
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			char plugin[SUGGEST_MAX_WORD + 1];
			size_t n = strlen(de->d_name);
			if (n <= 3 || n - 3 > SUGGEST_MAX_WORD || strcmp(de->d_name + n - 3, ".so") != 0)
				continue;
			snprintf(plugin, sizeof(plugin), "%.*s", (int)(n - 3), de->d_name);
			if (plugin_name_valid(plugin))
				consider(name, plugin, out, len);
		}
		closedir(d);
	}
}

int loader_load(const char *name, char *const *dirs, size_t ndirs,
                const struct loaded_plugin **out, char *why, size_t whylen)
{
	*out = NULL;
	if (!plugin_name_valid(name))
		return fail(why, whylen, MUSTER_EPLUGIN, "invalid plugin name '%s': use [a-z0-9_]+",
		            name ? name : "");
	if ((*out = find_builtin(name)) != NULL)
		return 0;

	for (size_t i = 0; i < ndirs; i++) {
		char path[PATH_MAX], real[PATH_MAX];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s.so", dirs[i], name) >= sizeof(path))
			continue;
		if (!realpath(path, real))
			continue; /* not in this directory */
		pthread_mutex_lock(&loader_lock);
		struct registry_entry *e = load_file(name, real);
		int code = e ? e->code : MUSTER_ENOMEM;
		if (code == 0)
			*out = &e->plugin;
		else
			snprintf(why, whylen, "%s", e ? e->why : "out of memory");
		pthread_mutex_unlock(&loader_lock);
		return code;
	}

	/* Name every directory searched, so a typo or a missing package shows. */
	size_t n = (size_t)snprintf(why, whylen, "plugin '%s' not found in ", name);
	for (size_t i = 0; i < ndirs && n < whylen; i++)
		n += (size_t)snprintf(why + n, whylen - n, "%s%s", i ? ":" : "", dirs[i]);
	return MUSTER_EPLUGIN;
}
