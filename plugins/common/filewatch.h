/* A plugin's watch() over one file (or none): the file's directory through
 * inotify, so a replacement by rename is seen, until the watch stops. */
#ifndef MUSTER_PLUGIN_COMMON_FILEWATCH_H
#define MUSTER_PLUGIN_COMMON_FILEWATCH_H

#include <muster/plugin.h>

/* Arms, then reports each write, replacement or removal of `path` until
 * host->watch_stop_fd() is readable.  `path` NULL: nothing can change but
 * the config, which the core watches; it only waits.  0 when stopped, -1
 * after a log line saying why it cannot watch. */
int filewatch_run(const muster_host *host, muster_plugin_ctx *pc, muster_watcher *w,
                  const char *path);

#endif
