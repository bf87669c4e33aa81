/* What a plugin's watch() thread uses of the host outside any call. */
#ifndef MUSTER_PLUGIN_COMMON_WATCHHOST_H
#define MUSTER_PLUGIN_COMMON_WATCHHOST_H

#include <muster/plugin.h>

/* The host's services into `dst`, for a watch that replaces some (fail(),
 * remaining_ms()): only host->struct_size bytes, since a host of an older
 * ABI minor has a shorter struct; the rest is zeroed. */
void watch_host_copy(muster_host *dst, const muster_host *host);

#endif
