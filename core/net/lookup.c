/* Bounded name lookups: lookup_names(). */
#include <config.h>

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/lookup_reason.h"
#include "lookup.h"

/* What the caller and its workers share.  Each holds a reference; the last
 * one out frees it, so a worker that outlives an abandoned call still has
 * its name and somewhere to write. */
struct job {
	pthread_mutex_t mu;
	pthread_cond_t cv;            /* signalled when the last name is done */
	size_t *queue, nqueued, next; /* indices of the names still to look up */
	size_t finished;
	int refs;
	int abandoned;                /* the caller has gone: stop taking names */
	char **names;                 /* the job's own copies */
	struct lookup_answer *answers;
};

static void job_free(struct job *j)
{
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	free(j->queue);
	free(j->names);
	free(j->answers);
	free(j);
}

/* Drops one reference; frees the job with the last.  Called locked. */
static void job_release(struct job *j)
{
	int last = --j->refs == 0;
	pthread_mutex_unlock(&j->mu);
	if (last)
		job_free(j);
}

/* getaddrinfo()'s return `rc` (errno `saved` after it) as an answer. */
static void answer_from(struct lookup_answer *a, int rc, int saved,
                        const struct addrinfo *list)
{
	memset(a, 0, sizeof(*a));
	switch (rc) {
	case 0:
		a->status = LOOKUP_OK;
		memcpy(&a->addr, list->ai_addr, list->ai_addrlen);
		a->addrlen = list->ai_addrlen;
		for (; list != NULL; list = list->ai_next)
			a->naddrs++;
		return;
	case EAI_NONAME:
#ifdef EAI_NODATA
	case EAI_NODATA:
#endif
		a->status = LOOKUP_NONAME;
		break;
	default:
		a->status = LOOKUP_FAILED;
	}
	lookup_reason(a->reason, sizeof(a->reason), rc, saved);
}

/* One stream address of `name`, as a connecting client would ask: any
 * family, in the order the resolver and gai.conf give. */
static void lookup_one(struct lookup_answer *a, const char *name, int numeric_only)
{
	struct addrinfo hints, *list = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = numeric_only ? AI_NUMERICHOST : 0;
	int rc = getaddrinfo(name, NULL, &hints, &list);
	answer_from(a, rc, errno, list);
	if (list != NULL)
		freeaddrinfo(list);
}

static void *worker(void *arg)
{
	struct job *j = arg;

	pthread_mutex_lock(&j->mu);
	while (!j->abandoned && j->next < j->nqueued) {
		size_t i = j->queue[j->next++];
		struct lookup_answer a;
		pthread_mutex_unlock(&j->mu);
		lookup_one(&a, j->names[i], 0);
		pthread_mutex_lock(&j->mu);
		j->answers[i] = a;
		if (++j->finished == j->nqueued)
			pthread_cond_signal(&j->cv);
	}
	job_release(j);
	return NULL;
}

static struct job *job_new(const char *const *names, size_t n)
{
	struct job *j = calloc(1, sizeof(*j));
	size_t bytes = n * sizeof(char *);

	for (size_t i = 0; i < n; i++)
		bytes += strlen(names[i]) + 1;
	if (j == NULL || (j->names = malloc(bytes)) == NULL ||
	    (j->answers = calloc(n, sizeof(*j->answers))) == NULL ||
	    (j->queue = calloc(n, sizeof(*j->queue))) == NULL) {
		if (j != NULL) {
			free(j->names);
			free(j->answers);
		}
		free(j);
		return NULL;
	}
	char *p = (char *)(j->names + n);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]) + 1;
		j->names[i] = memcpy(p, names[i], len);
		p += len;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&j->mu, NULL);
	j->refs = 1;
	return j;
}

/* Workers take no signal: the caller's handlers run in the caller's
 * threads, as they did before it asked for a lookup. */
static size_t start_workers(struct job *j, size_t want, int *error)
{
	sigset_t all, old;
	pthread_attr_t attr;
	size_t started = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&j->mu);
	for (; started < want; started++) {
		pthread_t t;
		j->refs++;
		if ((*error = pthread_create(&t, &attr, worker, j)) != 0) {
			j->refs--;
			break;
		}
	}
	pthread_mutex_unlock(&j->mu);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

static void deadline_after(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void mark_all(struct lookup_answer *answers, const size_t *queue, size_t n,
                     enum lookup_status status, const char *reason)
{
	for (size_t k = 0; k < n; k++) {
		struct lookup_answer *a = &answers[queue[k]];
		memset(a, 0, sizeof(*a));
		a->status = status;
		snprintf(a->reason, sizeof(a->reason), "%s", reason);
	}
}

int lookup_names(struct lookup_answer *answers, const char *const *names, size_t n,
                 long timeout_ms)
{
	struct job *j = job_new(names, n);
	struct timespec deadline;
	char reason[sizeof(answers->reason)];
	int error = 0;

	if (j == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		lookup_one(&answers[i], names[i], 1);
		if (answers[i].status != LOOKUP_OK)
			j->queue[j->nqueued++] = i;
	}
	if (j->nqueued == 0) {
		pthread_mutex_lock(&j->mu);
		job_release(j);
		return 0;
	}
	/* Until a worker writes it, a name has no answer: what the caller
	 * reads of it if the deadline comes first. */
	snprintf(reason, sizeof(reason), "no answer within %ld ms", timeout_ms);
	mark_all(j->answers, j->queue, j->nqueued, LOOKUP_TIMEDOUT, reason);
	deadline_after(&deadline, timeout_ms > 0 ? timeout_ms : 0);
	size_t want = j->nqueued < LOOKUP_MAX_THREADS ? j->nqueued : LOOKUP_MAX_THREADS;
	if (start_workers(j, want, &error) == 0) {
		snprintf(reason, sizeof(reason), "cannot start a lookup thread: %s", strerror(error));
		mark_all(answers, j->queue, j->nqueued, LOOKUP_FAILED, reason);
		pthread_mutex_lock(&j->mu);
		job_release(j);
		return 0;
	}
	pthread_mutex_lock(&j->mu);
	while (j->finished < j->nqueued &&
	       pthread_cond_timedwait(&j->cv, &j->mu, &deadline) != ETIMEDOUT) {
	}
	for (size_t k = 0; k < j->nqueued; k++)
		answers[j->queue[k]] = j->answers[j->queue[k]];
	j->abandoned = 1;
	job_release(j);
	return 0;
}
