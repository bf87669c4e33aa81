/* Plugin watchers: a thread per entry whose plugin has watch(), and the
 * host services watch() calls.  A watcher whose watch() returns leaves its
 * entry to the loop's polling. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "watch.h"

static void wake(int fd)
{
	uint64_t one = 1;
	/* A full counter already wakes the loop; nothing to add. */
	if (write(fd, &one, sizeof(one)) < 0) {
	}
}

void host_watch_armed(muster_watcher *w)
{
	__atomic_store_n(&w->armed, 1, __ATOMIC_RELEASE);
	wake(w->wake_fd);
}

void host_watch_changed(muster_watcher *w)
{
	wake(w->wake_fd);
}

int host_watch_stop_fd(const muster_watcher *w)
{
	return w->stop_fd;
}

void host_watch_event(muster_watcher *w, int event)
{
	if (!w || !w->observer->fn ||
	    (event != MUSTER_WATCH_EVENT_RECONNECT && event != MUSTER_WATCH_EVENT_RESYNC))
		return;
	muster_watch_event ev = { sizeof(ev),
	                          event == MUSTER_WATCH_EVENT_RECONNECT ? MUSTER_WATCH_RECONNECTED
	                                                                : MUSTER_WATCH_RESYNCED,
	                          w->entry->set->name, 0, 0 };
	w->observer->fn(&ev, w->observer->data);
}

static int can_watch(const struct entry *e)
{
	return e->plugin && e->plugin->desc->watch;
}

static void *run_watcher(void *arg)
{
	struct muster_watcher *w = arg;
	struct entry *e = w->entry;
	if (e->plugin->desc->watch(e->state, &host_services, &e->pc, w) != 0)
		log_msg(e->pc.logger, MUSTER_LOG_WARNING,
		        "%s:%d: %swatch ended; polling every %ld ms", e->set->file, e->set->line,
		        e->pc.prefix, e->set->watch_interval_ms);
	__atomic_store_n(&w->ended, 1, __ATOMIC_RELEASE);
	wake(w->wake_fd);
	return NULL;
}

MUSTER_API int muster_ctx_entry_watch(const muster_ctx *ctx, size_t i, long *interval_ms)
{
	if (!ctx || i >= ctx->nentries)
		return MUSTER_EINVAL;
	const struct entry *e = &ctx->entries[i];
	if (!e->plugin)
		return MUSTER_ENOENT;
	if (interval_ms)
		*interval_ms = e->set->watch_interval_ms;
	if (e->plugin->desc->flags & MUSTER_PLUGIN_CONFIG_ONLY)
		return MUSTER_ENTRY_CONFIG;
	return can_watch(e) ? MUSTER_ENTRY_WATCHED : MUSTER_ENTRY_POLLED;
}

int watchers_start(struct watchers *ws, struct muster_ctx *ctx, int wake_fd,
                   const struct watch_observer *observer)
{
	memset(ws, 0, sizeof(*ws));
	if ((ws->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return -1;
	if (!(ws->w = calloc(ctx->nentries ? ctx->nentries : 1, sizeof(*ws->w)))) {
		close(ws->stop_fd);
		return -1;
	}
	for (size_t i = 0; i < ctx->nentries; i++) {
		struct entry *e = &ctx->entries[i];
		if (!can_watch(e))
			continue;
		struct muster_watcher *w = &ws->w[ws->n];
		*w = (struct muster_watcher){e, observer, ws->stop_fd, wake_fd, 0, 0, 0};
		if (pthread_create(&w->thread, NULL, run_watcher, w) != 0) {
			watchers_stop(ws);
			return -1;
		}
		ws->n++;
	}
	return 0;
}

int watchers_settled(const struct watchers *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		if (!__atomic_load_n(&ws->w[i].armed, __ATOMIC_ACQUIRE) &&
		    !__atomic_load_n(&ws->w[i].ended, __ATOMIC_ACQUIRE))
			return 0;
	return 1;
}

static const struct muster_watcher *watcher_of(const struct watchers *ws, const struct entry *e)
{
	for (size_t i = 0; i < ws->n; i++)
		if (ws->w[i].entry == e)
			return &ws->w[i];
	return NULL;
}

long watchers_poll_interval(const struct watchers *ws, const struct muster_ctx *ctx)
{
	long ms = -1;
	for (size_t i = 0; i < ctx->nentries; i++) {
		const struct entry *e = &ctx->entries[i];
		const struct muster_watcher *w = watcher_of(ws, e);
		/* These answer the same until the config changes. */
		if (!e->plugin || (e->plugin->desc->flags & MUSTER_PLUGIN_CONFIG_ONLY))
			continue;
		if (w && !__atomic_load_n(&w->ended, __ATOMIC_ACQUIRE))
			continue;
		if (ms < 0 || e->set->watch_interval_ms < ms)
			ms = e->set->watch_interval_ms;
	}
	return ms;
}

void watchers_stop(struct watchers *ws)
{
	if (!ws->w)
		return;
	wake(ws->stop_fd);
	for (size_t i = 0; i < ws->n; i++)
		pthread_join(ws->w[i].thread, NULL);
	free(ws->w);
	close(ws->stop_fd);
	memset(ws, 0, sizeof(*ws));
}
