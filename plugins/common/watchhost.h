/* What a plugin's watch() thread uses of the host outside any call. */
#ifndef MUSTER_PLUGIN_COMMON_WATCHHOST_H
#define MUSTER_PLUGIN_COMMON_WATCHHOST_H

#include <muster/plugin.h>

/* The host's call for watch() (host->watch_call_begin, ABI 1.6), whose
 * fail() goes to failed(data, reason): NULL after a log line saying why
 * not (an older host, no memory); watch() then returns -1 and the core
 * polls.  Released with host->watch_call_end(). */
muster_call *watch_call_open(const muster_host *host, muster_plugin_ctx *pc, long budget_ms,
                             void (*failed)(void *data, const char *reason), void *data);

/* Whether host->watch_stop_fd(w) is readable, so watch() must return:
 * at once (wait_ms 0), after up to wait_ms, or once it is (-1). */
int watch_stopping(const muster_host *host, const muster_watcher *w, int wait_ms);

#endif
