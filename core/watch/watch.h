/* A watch: one loop thread that re-runs the chain when a plugin's watcher,
 * the config's files or a poll interval says so, and hands the newest
 * result to muster_watch_next(). */
#ifndef MUSTER_WATCH_H
#define MUSTER_WATCH_H

#include <pthread.h>

#include <muster/muster.h>
#include <muster/plugin.h>

#include "chain/ctx.h"
#include "chain/host.h"

/* Who observes a watch (muster_watch_options.observe). */
struct watch_observer {
	muster_watch_observe_fn fn; /* NULL: nobody */
	void *data;
};

/* One plugin's watch() running on its own thread. */
struct muster_watcher {
	struct entry *entry;
	const struct watch_observer *observer;
	int stop_fd;      /* the watch's: readable once the watch stops */
	int wake_fd;      /* the loop's eventfd, written on armed and changed */
	int armed;        /* atomic: watch_armed() was called */
	int ended;        /* atomic: watch() returned; the entry is polled */
	pthread_t thread;
};

/* The plugin watchers of a context's entries. */
struct watchers {
	struct muster_watcher *w;
	size_t n;
	int stop_fd;      /* eventfd written to stop exactly these watchers */
};

/* Starts a watcher per entry whose plugin can watch; 0 or -1 (out of
 * memory or threads: nothing is left running). */
int watchers_start(struct watchers *ws, struct muster_ctx *ctx, int wake_fd,
                   const struct watch_observer *observer);
/* Every watcher armed or ended. */
int watchers_settled(const struct watchers *ws);
/* Smallest watch_interval_ms among entries nobody watches; -1: none. */
long watchers_poll_interval(const struct watchers *ws, const struct muster_ctx *ctx);
void watchers_stop(struct watchers *ws);

/* The config file and its drop-in directory, through inotify. */
struct config_files {
	int fd;           /* inotify descriptor, -1 when unavailable */
	char *dir, *base, *dropins; /* dirname, basename, basename + ".d" */
	int dropin_wd;
};

int config_files_watch(struct config_files *cf, const char *path);
/* Reads what inotify queued: 1 when one of the config's files changed. */
int config_files_changed(struct config_files *cf);
void config_files_release(struct config_files *cf);

#endif
