/*
 * The watch loop.  Changes are coalesced: the loop keeps only the newest
 * result that differs from what was last delivered, and the diff is taken
 * at delivery, so a slow reader costs no memory and sees no stale step.
 * A plugin watcher arms before the first resolve, so a change between that
 * resolve and the watcher's first event cannot be missed.
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "chain/chain.h"
#include "model/diff.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "chain/host.h"
#include "model/model.h"
#include "watch.h"

/* How long the first resolve waits for watchers to arm. */
#define ARM_WAIT_MS 10000
/* A burst that never settles is delivered after this many settle periods. */
#define SETTLE_CAP 10

struct muster_watch {
	struct muster_ctx *ctx;     /* the caller's, until the config changes */
	struct muster_ctx *own;     /* opened from an edited config */
	struct watchers watchers;
	struct config_files files;
	long settle_ms;
	int wake_fd, stop_fd, ready_fd;
	pthread_t thread;
	pthread_mutex_t lock;       /* guards pending and base */
	muster_result *pending;     /* newest result not yet delivered */
	muster_result *base;        /* what the reader saw last */
	char last_error[sizeof(((muster_error *)0)->message)];
	struct watch_observer observer;
	struct chain_warned warned; /* the failed entries warned about last */
};

static void drain(int fd)
{
	uint64_t v;
	while (read(fd, &v, sizeof(v)) > 0) {
	}
}

static void signal_fd(int fd)
{
	uint64_t one = 1;
	if (write(fd, &one, sizeof(one)) < 0) {
	}
}

/* Said once per distinct failure, so a backend down for an hour is one line. */
static void report(struct muster_watch *w, const muster_error *err)
{
	if (strcmp(w->last_error, err->message) == 0)
		return;
	snprintf(w->last_error, sizeof(w->last_error), "%s", err->message);
	log_msg(&w->ctx->logger, MUSTER_LOG_ERR, "watch: %s", err->message);
}

static struct muster_ctx *current(const struct muster_watch *w)
{
	return w->own ? w->own : w->ctx;
}

/* Hands `r` to the reader unless it shows nothing new. */
static void publish(struct muster_watch *w, muster_result *r)
{
	pthread_mutex_lock(&w->lock);
	const muster_result *newest = w->pending ? w->pending : w->base;
	struct muster_change *c = newest ? diff_results(newest, r) : NULL;
	int same = c && diff_is_empty(c, newest, r);
	muster_change_free(c);
	if (same) {
		pthread_mutex_unlock(&w->lock);
		muster_result_free(r);
		return;
	}
	muster_result_free(w->pending);
	w->pending = r;
	pthread_mutex_unlock(&w->lock);
	signal_fd(w->ready_fd);
}

static void resolve_and_publish(struct muster_watch *w)
{
	muster_error err = {0, ""};
	muster_result *r = NULL;
	long long start = w->observer.fn ? clock_now_us() : 0;
	int rc = chain_resolve_warned(current(w), &r, &err, &w->warned);
	if (w->observer.fn) {
		muster_watch_event ev = { sizeof(ev), MUSTER_WATCH_RESOLVED, NULL,
		                          (double)(clock_now_us() - start) / 1e6, rc < 0 ? rc : 0 };
		w->observer.fn(&ev, w->observer.data);
	}
	if (rc < 0) {
		report(w, &err);
		return;
	}
	w->last_error[0] = '\0';
	publish(w, r);
}

/* Waits until every watcher armed (or gave up), or the stop. */
static int wait_armed(struct muster_watch *w)
{
	long long until = clock_now_ms() + ARM_WAIT_MS;
	while (!watchers_settled(&w->watchers)) {
		struct pollfd p[2] = {{w->stop_fd, POLLIN, 0}, {w->wake_fd, POLLIN, 0}};
		long long left = until - clock_now_ms();
		if (left <= 0)
			break;
		if (poll(p, 2, (int)left) > 0 && (p[0].revents & POLLIN))
			return -1;
		drain(w->wake_fd);
	}
	return 0;
}

/* The edited config, or the old chain (and one error line) when it is broken. */
static void follow_config(struct muster_watch *w)
{
	muster_error err = {0, ""};
	struct muster_ctx *fresh;
	if (ctx_reopen(w->ctx, &fresh, &err) < 0) {
		report(w, &err);
		return;
	}
	watchers_stop(&w->watchers);
	muster_ctx_free(w->own);
	w->own = fresh;
	if (watchers_start(&w->watchers, fresh, w->wake_fd, &w->observer) < 0)
		log_msg(&w->ctx->logger, MUSTER_LOG_ERR, "watch: cannot start the watchers");
	wait_armed(w);
}

static int poll_timeout(long long settle_at, long long poll_at)
{
	long long t = -1, now = clock_now_ms();
	if (settle_at >= 0)
		t = settle_at;
	if (poll_at >= 0 && (t < 0 || poll_at < t))
		t = poll_at;
	return t < 0 ? -1 : t <= now ? 0 : (int)(t - now);
}

static void *run_loop(void *arg)
{
	struct muster_watch *w = arg;
	long long settle_at = -1, first_event = -1, poll_at = -1;
	int config_dirty = 0;
	if (wait_armed(w) < 0)
		return NULL;
	resolve_and_publish(w);
	for (;;) {
		long every = watchers_poll_interval(&w->watchers, current(w));
		if (every > 0 && poll_at < 0)
			poll_at = clock_now_ms() + every;
		struct pollfd p[3] = {{w->stop_fd, POLLIN, 0},
		                      {w->wake_fd, POLLIN, 0},
		                      {w->files.fd, POLLIN, 0}};
		int n = poll(p, 3, poll_timeout(settle_at, poll_at));
		if (n < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN)
			break;
		int event = 0;
		if (p[1].revents & POLLIN) {
			drain(w->wake_fd);
			event = 1;
		}
		if ((p[2].revents & POLLIN) && config_files_changed(&w->files))
			event = config_dirty = 1;
		long long now = clock_now_ms();
		if (event) {
			if (first_event < 0)
				first_event = now;
			settle_at = now + w->settle_ms;
			long long cap = first_event + SETTLE_CAP * w->settle_ms;
			if (settle_at > cap)
				settle_at = cap;
		}
		if (settle_at >= 0 && now >= settle_at) {
			if (config_dirty)
				follow_config(w);
			resolve_and_publish(w);
			settle_at = first_event = poll_at = -1;
			config_dirty = 0;
		} else if (poll_at >= 0 && now >= poll_at) {
			resolve_and_publish(w);
			poll_at = -1;
		}
	}
	return NULL;
}

static void watch_free(struct muster_watch *w)
{
	watchers_stop(&w->watchers);
	config_files_release(&w->files);
	muster_ctx_free(w->own);
	muster_result_free(w->pending);
	muster_result_free(w->base);
	chain_warned_clear(&w->warned);
	for (int *fd = &w->wake_fd; fd <= &w->ready_fd; fd++)
		if (*fd >= 0)
			close(*fd);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

MUSTER_API int muster_watch_start(muster_watch **out, muster_ctx *ctx,
                                  const muster_watch_options *o, muster_error *err)
{
	if (!out || !ctx)
		return error_set(err, MUSTER_EINVAL, "muster_watch_start: NULL argument");
	*out = NULL;
	struct muster_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	w->ctx = ctx;
	w->settle_ms = 100;
	if (o && o->size >= offsetof(muster_watch_options, settle_ms) + sizeof(o->settle_ms))
		w->settle_ms = o->settle_ms < 0 ? 0 : o->settle_ms;
	if (o && o->size >= offsetof(muster_watch_options, observe_data) + sizeof(o->observe_data)) {
		w->observer.fn = o->observe;
		w->observer.data = o->observe_data;
	}
	pthread_mutex_init(&w->lock, NULL);
	w->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->ready_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->wake_fd < 0 || w->stop_fd < 0 || w->ready_fd < 0) {
		watch_free(w);
		return error_set(err, MUSTER_ENOMEM, "watch: cannot create an eventfd: %s",
		                 strerror(errno));
	}
	if (config_files_watch(&w->files, ctx->settings.path) < 0) {
		watch_free(w);
		return error_set(err, MUSTER_ENOMEM, "watch: cannot watch %s: %s", ctx->settings.path,
		                 strerror(errno));
	}
	if (watchers_start(&w->watchers, ctx, w->wake_fd, &w->observer) < 0 ||
	    pthread_create(&w->thread, NULL, run_loop, w) != 0) {
		watch_free(w);
		return error_set(err, MUSTER_ENOMEM, "watch: cannot start a thread");
	}
	*out = w;
	return 0;
}

MUSTER_API int muster_watch_fd(const muster_watch *w)
{
	return w ? w->ready_fd : -1;
}

/* The pending result as a change from what the reader saw last; the
 * change and the next diff's base share the result. */
static struct muster_change *take_pending(struct muster_watch *w)
{
	pthread_mutex_lock(&w->lock);
	muster_result *r = w->pending;
	struct muster_change *c = r ? diff_results(w->base, r) : NULL;
	if (c) {
		c->result = r;
		muster_result_free(w->base);
		w->base = model_ref(r);
		w->pending = NULL;
		drain(w->ready_fd);
	}
	pthread_mutex_unlock(&w->lock);
	return c;
}

MUSTER_API int muster_watch_next(muster_watch *w, long timeout_ms, muster_change **out,
                                 muster_error *err)
{
	if (!w || !out)
		return error_set(err, MUSTER_EINVAL, "muster_watch_next: NULL argument");
	*out = NULL;
	struct pollfd p = {w->ready_fd, POLLIN, 0};
	long long now = clock_now_ms();
	/* A timeout past the clock's range (LONG_MAX: "as long as it takes")
	 * waits without end rather than overflow the deadline. */
	long long until = timeout_ms < 0 || timeout_ms > LLONG_MAX - now ? -1 : now + timeout_ms;
	for (;;) {
		pthread_mutex_lock(&w->lock);
		int have = w->pending != NULL;
		pthread_mutex_unlock(&w->lock);
		if (have) {
			if (!(*out = take_pending(w)))
				return error_set(err, MUSTER_ENOMEM, "out of memory");
			return 1;
		}
		long long left = until < 0 ? -1 : until - clock_now_ms();
		if (until >= 0 && left <= 0)
			return 0;
		if (poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left) < 0 && errno != EINTR)
			return error_set(err, MUSTER_EINVAL, "watch: poll: %s", strerror(errno));
	}
}

MUSTER_API void muster_watch_stop(muster_watch *w)
{
	if (!w)
		return;
	signal_fd(w->stop_fd);
	pthread_join(w->thread, NULL);
	watch_free(w);
}
