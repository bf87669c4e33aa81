/* The `static` backend, built into libmuster so every chain has a working
 * end with no shared object installed. */
#ifndef MUSTER_STATIC_H
#define MUSTER_STATIC_H

#include <muster/plugin.h>

extern const muster_plugin static_plugin;

#endif
