/*
 * libvirt: the event loop that delivers domain events to watch().
 *
 * libvirt delivers events only through an event loop implementation
 * registered process-wide, before the connection that wants them is
 * opened.  The first watch registers libvirt's default implementation
 * (virEventRegisterDefaultImpl, once per process) unless the host
 * application registered one already: then the host runs its loop and the
 * watch's callbacks arrive there.  Otherwise one thread of this plugin
 * runs virEventRunDefaultImpl() while any watch is running, and ends with
 * the last: one thread, because the default implementation is GLib's
 * default main context, which one thread at a time can run (two watch
 * threads running it would take turns dispatching each other's callbacks).
 *
 * A registration cannot be undone: connections the process opens later
 * (the host's own included) see an event loop and may start keepalive,
 * which only a running loop answers.  muster's own resolves open a
 * connection for a moment and close it, so they are unaffected.
 */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "lib/clock.h"
#include "virt.h"

/* How long a barrier waits for a loop the host runs (ours: for ever). */
#define HOST_LOOP_WAIT_MS 2000
/* After a failed iteration: no busy loop. */
#define FAILED_RUN_PAUSE_MS 100

static pthread_once_t register_once = PTHREAD_ONCE_INIT;
static int impl_ready;   /* some implementation is registered */
static int impl_ours;    /* ... and it is libvirt's default, run here */

static pthread_mutex_t users_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t users;
static pthread_t loop_thread;
static int quit;

static void noop_timer(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;
}

/* An implementation is registered when a timer can be added. */
static void register_impl(void)
{
	int probe;

	if (virInitialize() < 0)
		return;
	if ((probe = virEventAddTimeout(-1, noop_timer, NULL, NULL)) >= 0) {
		virEventRemoveTimeout(probe);
		impl_ready = 1;
		return;
	}
	if (virEventRegisterDefaultImpl() == 0)
		impl_ready = impl_ours = 1;
}

static void *run_loop(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&quit, __ATOMIC_ACQUIRE))
		if (virEventRunDefaultImpl() < 0)
			clock_sleep_ms(FAILED_RUN_PAUSE_MS);
	return NULL;
}

/* Wakes the loop once: an iteration returns after running it. */
static void wake_once(int timer, void *opaque)
{
	(void)opaque;
	virEventRemoveTimeout(timer);
}

int virt_evloop_acquire(const char **why)
{
	int rc = 0;

	pthread_once(&register_once, register_impl);
	if (!impl_ready) {
		*why = "libvirt's default event loop cannot be registered";
		return -1;
	}
	if (!impl_ours)
		return 0;
	pthread_mutex_lock(&users_lock);
	if (users == 0) {
		sigset_t all, old;

		__atomic_store_n(&quit, 0, __ATOMIC_RELEASE);
		/* The host's signals are never delivered to this thread. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&loop_thread, NULL, run_loop, NULL) != 0) {
			*why = "cannot start the event loop's thread";
			rc = -1;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (rc == 0)
		users++;
	pthread_mutex_unlock(&users_lock);
	return rc;
}

void virt_evloop_release(void)
{
	if (!impl_ours)
		return;
	pthread_mutex_lock(&users_lock);
	if (--users == 0) {
		__atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
		/* libvirt's default implementation always adds a timer. */
		virEventAddTimeout(0, wake_once, NULL, NULL);
		pthread_join(loop_thread, NULL);
	}
	pthread_mutex_unlock(&users_lock);
}

/* A barrier: a timer the loop runs after whatever it is dispatching.
 * Shared by the waiter and the timer's free callback; the last frees. */
struct barrier {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int passed;
	int refs;
};

static void barrier_unref(void *opaque)
{
	struct barrier *b = opaque;
	int last;

	pthread_mutex_lock(&b->lock);
	last = --b->refs == 0;
	pthread_mutex_unlock(&b->lock);
	if (last) {
		pthread_mutex_destroy(&b->lock);
		pthread_cond_destroy(&b->cond);
		free(b);
	}
}

static void barrier_pass(int timer, void *opaque)
{
	struct barrier *b = opaque;

	virEventRemoveTimeout(timer);
	pthread_mutex_lock(&b->lock);
	b->passed = 1;
	pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

void virt_evloop_barrier(void)
{
	struct barrier *b = calloc(1, sizeof(*b));
	struct timespec until;
	int timer, passed;

	if (b == NULL)
		return;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	b->refs = 2;
	if ((timer = virEventAddTimeout(0, barrier_pass, b, barrier_unref)) < 0) {
		b->refs = 1;
		barrier_unref(b);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += HOST_LOOP_WAIT_MS / 1000;
	pthread_mutex_lock(&b->lock);
	while (!b->passed) {
		int rc = impl_ours ? pthread_cond_wait(&b->cond, &b->lock)
		                   : pthread_cond_timedwait(&b->cond, &b->lock, &until);

		if (rc == ETIMEDOUT)
			break;
	}
	passed = b->passed;
	pthread_mutex_unlock(&b->lock);
	/* A host loop that never ran it: the timer goes, and its free
	 * callback drops that reference. */
	if (!passed)
		virEventRemoveTimeout(timer);
	barrier_unref(b);
}
