/* The backends linked into libmuster: descriptors like a plugin's, which
 * the loader finds by name before the plugin path, so a chain has a
 * working end with no shared object installed. */
#ifndef MUSTER_BUILTIN_H
#define MUSTER_BUILTIN_H

#include <stddef.h>

#include <muster/plugin.h>

#include "config/loader.h"

extern const muster_plugin static_plugin;

extern const struct loaded_plugin builtin_plugins[];
extern const size_t builtin_count;

#endif
