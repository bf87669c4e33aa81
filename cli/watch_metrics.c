/*
 * muster watch --metrics-port: the watch's counters, updated by the
 * observer on the watch's own threads (each plugin watcher's, the loop's)
 * with atomic adds, no lock; read by the page's renderer on the program's
 * thread.  A backend's series is found by its entry's name among a fixed
 * number of slots: those of the entries that watch are made at the start,
 * an entry a config edit brings claims a free slot (an atomic compare and
 * swap), and past the slots its events are counted as "other".
 */
#include <config.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "lib/clock.h"
#include "lib/httpd.h"
#include "lib/prom.h"
#include "watch_metrics.h"

#define BACKENDS_MAX 64
#define NAME_MAX_LEN 128

/* The resolve durations' buckets, in seconds: a static config answers in
 * microseconds, an API server in tens of milliseconds, a wait in seconds. */
static const double bounds[] = { 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                                 0.25,   0.5,    1,     2.5,   5,    10,    30 };
#define NBOUNDS (sizeof(bounds) / sizeof(bounds[0]))

enum { SLOT_FREE, SLOT_WRITING, SLOT_READY };

struct backend {
	atomic_int state;
	char name[NAME_MAX_LEN];
	atomic_ullong reconnects, resyncs;
};

struct watch_metrics {
	struct httpd *httpd;
	struct backend backends[BACKENDS_MAX];
	struct backend other; /* past BACKENDS_MAX */
	atomic_ullong changes, resolves_failed;
	atomic_ullong buckets[NBOUNDS + 1];
	atomic_ullong sum_us;
	atomic_llong last_change_ms; /* wall clock; 0: none yet */
};

/* The slot of `name`, claimed when new; `other` when they are all taken.
 * Slots are claimed in order, so a name that has one is met before the
 * first free slot. */
static struct backend *backend(struct watch_metrics *m, const char *name)
{
	for (size_t i = 0; i < BACKENDS_MAX; i++) {
		struct backend *b = &m->backends[i];
		int state = SLOT_FREE;
		if (atomic_compare_exchange_strong(&b->state, &state, SLOT_WRITING)) {
			snprintf(b->name, sizeof(b->name), "%s", name);
			atomic_store(&b->state, SLOT_READY);
			return b;
		}
		while (state == SLOT_WRITING) /* another thread, a few stores from done */
			state = atomic_load(&b->state);
		if (strncmp(b->name, name, NAME_MAX_LEN - 1) == 0)
			return b;
	}
	return &m->other;
}

void watch_metrics_observe(const muster_watch_event *ev, void *data)
{
	struct watch_metrics *m = data;

	if (ev->kind == MUSTER_WATCH_RESOLVED) {
		size_t i = 0;
		while (i < NBOUNDS && ev->seconds > bounds[i])
			i++;
		atomic_fetch_add(&m->buckets[i], 1);
		atomic_fetch_add(&m->sum_us, (unsigned long long)(ev->seconds * 1e6 + 0.5));
		if (ev->code != 0)
			atomic_fetch_add(&m->resolves_failed, 1);
	} else if (ev->instance) {
		struct backend *b = backend(m, ev->instance);
		atomic_fetch_add(ev->kind == MUSTER_WATCH_RECONNECTED ? &b->reconnects : &b->resyncs, 1);
	}
}

void watch_metrics_changed(struct watch_metrics *m)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	atomic_fetch_add(&m->changes, 1);
	atomic_store(&m->last_change_ms, (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void per_backend(FILE *f, struct watch_metrics *m, const char *name, const char *help,
                        int resyncs)
{
	prom_family(f, name, "counter", help);
	for (size_t i = 0; i < BACKENDS_MAX; i++) {
		struct backend *b = &m->backends[i];
		if (atomic_load(&b->state) == SLOT_READY)
			prom_sample(f, name, "backend", b->name,
			            (double)atomic_load(resyncs ? &b->resyncs : &b->reconnects));
	}
	unsigned long long other = atomic_load(resyncs ? &m->other.resyncs : &m->other.reconnects);
	if (other)
		prom_sample(f, name, "backend", "other", (double)other);
}

static int render(FILE *f, void *data)
{
	struct watch_metrics *m = data;
	unsigned long long counts[NBOUNDS + 1];

	prom_counter(f, "muster_watch_changes_total", "Changes of the cluster printed.",
	             atomic_load(&m->changes));
	prom_gauge(f, "muster_watch_last_change_timestamp_seconds",
	           "When the last change was printed, in seconds since the epoch (0: none yet).",
	           (double)atomic_load(&m->last_change_ms) / 1000);
	per_backend(f, m, "muster_watch_reconnects_total",
	            "Times a backend's watch opened its broken stream again.", 0);
	per_backend(f, m, "muster_watch_resyncs_total",
	            "Times a backend's watch could not follow on and listed afresh.", 1);
	for (size_t i = 0; i <= NBOUNDS; i++)
		counts[i] = atomic_load(&m->buckets[i]);
	prom_histogram(f, "muster_watch_resolve_duration_seconds",
	               "How long each run of the chain took.", bounds, NBOUNDS, counts,
	               (double)atomic_load(&m->sum_us) / 1e6);
	prom_counter(f, "muster_watch_resolve_failures_total",
	             "Runs of the chain that found no cluster (the last one stays).",
	             atomic_load(&m->resolves_failed));
	return ferror(f) ? -1 : 0;
}

int watch_metrics_open(struct watch_metrics **out, const muster_ctx *ctx, const char *host,
                       int port)
{
	struct watch_metrics *m = calloc(1, sizeof(*m));
	char why[400];

	*out = NULL;
	if (!m)
		return cli_fail(MUSTER_ENOMEM, NULL);
	for (size_t i = 0; i < muster_ctx_entry_count(ctx); i++) {
		muster_entry_info info;
		if (muster_ctx_entry_watch(ctx, i, NULL) == MUSTER_ENTRY_WATCHED &&
		    muster_ctx_entry_info(ctx, i, &info) == 0)
			backend(m, info.instance);
	}
	if (httpd_open(&m->httpd, host, port, "/metrics", PROM_CONTENT_TYPE, render, m, why,
	               sizeof(why)) != 0) {
		free(m);
		cli_error("watch: metrics: %s", why);
		return CLI_EXIT_UNAVAIL;
	}
	*out = m;
	return 0;
}

struct httpd *watch_metrics_httpd(struct watch_metrics *m)
{
	return m->httpd;
}

void watch_metrics_free(struct watch_metrics *m)
{
	if (!m)
		return;
	httpd_free(m->httpd);
	free(m);
}
