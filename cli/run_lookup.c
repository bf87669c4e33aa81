/* A name lookup that its caller can stop waiting for.  getaddrinfo()
 * takes no timeout and cannot be cancelled: a resolver that does not
 * answer holds it for the resolver's timeouts times its attempts times
 * its servers.  So it runs in a thread of its own, which tells the
 * caller through a pipe that it is done; a caller whose deadline passes
 * walks away, and the thread frees the lookup when getaddrinfo returns
 * (or the process exits first). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_ready.h"

struct lookup {
	atomic_int refs;   /* the thread's and the caller's: the last one frees */
	atomic_int done;   /* rc, saved and list are set */
	int pipe[2];       /* the thread writes one byte to [1] when done */
	char *host, *port;
	int rc, saved;     /* getaddrinfo's return, errno for EAI_SYSTEM */
	struct addrinfo *list;
};

static void lookup_unref(struct lookup *k)
{
	if (atomic_fetch_sub(&k->refs, 1) != 1)
		return;
	if (k->list != NULL)
		freeaddrinfo(k->list);
	close(k->pipe[0]);
	close(k->pipe[1]);
	free(k->host);
	free(k->port);
	free(k);
}

static void *lookup_run(void *arg)
{
	struct lookup *k = arg;
	struct addrinfo hints;
	ssize_t n;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	k->rc = getaddrinfo(k->host, k->port, &hints, &k->list);
	k->saved = errno;
	atomic_store(&k->done, 1);
	do
		n = write(k->pipe[1], "", 1);
	while (n < 0 && errno == EINTR);
	lookup_unref(k);
	return NULL;
}

struct lookup *lookup_start(const char *host, const char *port)
{
	struct lookup *k = calloc(1, sizeof(*k));
	sigset_t all, old;
	pthread_attr_t attr;
	int rc;

	if (k == NULL)
		return NULL;
	k->pipe[0] = k->pipe[1] = -1;
	if (pipe2(k->pipe, O_CLOEXEC) != 0 || (k->host = strdup(host)) == NULL ||
	    (k->port = strdup(port)) == NULL) {
		atomic_init(&k->refs, 1);
		lookup_unref(k);
		return NULL;
	}
	atomic_init(&k->refs, 2);
	/* The thread blocks every signal: they stay muster run's, which
	 * later takes them through a signalfd. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	if ((rc = pthread_attr_init(&attr)) == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&t, &attr, lookup_run, k);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		atomic_store(&k->refs, 1);
		lookup_unref(k);
		errno = rc;
		return NULL;
	}
	return k;
}

int lookup_fd(const struct lookup *k)
{
	return k->pipe[0];
}

int lookup_result(const struct lookup *k, const struct addrinfo **list, int *saved)
{
	if (!atomic_load(&k->done))
		return EAI_INPROGRESS;
	*list = k->list;
	*saved = k->saved;
	return k->rc;
}

void lookup_end(struct lookup *k)
{
	lookup_unref(k);
}
