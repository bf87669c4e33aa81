/* What a plugin's watch() thread uses of the host outside any call. */
#ifndef MUSTER_PLUGIN_COMMON_WATCHHOST_H
#define MUSTER_PLUGIN_COMMON_WATCHHOST_H

#include <muster/plugin.h>

/* The host's services into `dst`, for a watch that replaces some (fail(),
 * remaining_ms()): only host->struct_size bytes, since a host of an older
 * ABI minor has a shorter struct; the rest is zeroed. */
void watch_host_copy(muster_host *dst, const muster_host *host);

/* Whether host->watch_stop_fd(w) is readable, so watch() must return:
 * at once (wait_ms 0), after up to wait_ms, or once it is (-1). */
int watch_stopping(const muster_host *host, const muster_watcher *w, int wait_ms);

#endif
