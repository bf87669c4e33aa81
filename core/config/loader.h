/* Finding, checking and loading plugins.  Built-ins and shared objects
 * come out as the same descriptor; each .so is loaded once per process
 * and never unloaded (its dependencies may have atexit handlers or TLS
 * destructors that would crash after an unmap). */
#ifndef MUSTER_LOADER_H
#define MUSTER_LOADER_H

#include <stddef.h>

#include <muster/plugin.h>

struct loaded_plugin {
	const muster_plugin *desc; /* fields the plugin's ABI minor lacks are NULL */
	const char *file;          /* NULL for a built-in */
};

/*
 * Looks `name` up among the built-ins, then as <dir>/<name>.so in each of
 * `dirs`.  Returns 0, or MUSTER_EPLUGIN / MUSTER_EABI with the reason in
 * `why`.  The outcome for a file is remembered, so a broken plugin is
 * dlopen()ed only once too.
 */
int loader_load(const char *name, char *const *dirs, size_t ndirs,
                const struct loaded_plugin **out, char *why, size_t whylen);

/* The i-th built-in plugin's name; NULL past the last. */
const char *loader_builtin_name(size_t i);

/* Whether `name` is a plugin name: [a-z0-9_]+. */
int plugin_name_valid(const char *name);

/* The plugin name nearest to `name` among the built-ins and the NAME.so
 * files in `dirs`; copied into `out`, which is "" when none is near. */
void suggest_plugin(const char *name, char *const *dirs, size_t ndirs, char *out, size_t len);

#endif
