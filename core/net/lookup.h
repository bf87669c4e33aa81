/* Name lookups that cannot hold their caller: many names at once, each in
 * a worker thread, all within one deadline.  getaddrinfo() has no timeout
 * of its own (a resolver that never answers keeps it for the resolver's
 * own retries, or for ever behind a broken NSS module), so a lookup still
 * running at the deadline is abandoned: its thread ends on its own and
 * frees what it shares with the caller, and the caller goes on. */
#ifndef MUSTER_CORE_NET_LOOKUP_H
#define MUSTER_CORE_NET_LOOKUP_H

#include <stddef.h>
#include <sys/socket.h>

/* The most worker threads one call starts: names beyond it queue. */
#define LOOKUP_MAX_THREADS 32

enum lookup_status {
	LOOKUP_OK = 0,
	LOOKUP_NONAME,   /* the name does not resolve here */
	LOOKUP_FAILED,   /* the resolver failed (unreachable, refused, ...) */
	LOOKUP_TIMEDOUT  /* no answer by the deadline */
};

struct lookup_answer {
	enum lookup_status status;
	char reason[96];              /* why not, for LOOKUP_NONAME and after */
	struct sockaddr_storage addr; /* the first address getaddrinfo() gave */
	socklen_t addrlen;
	size_t naddrs;                /* how many it gave */
};

/* Looks up `n` names (numeric addresses are read at once, without a
 * thread), filling answers[i] for names[i], and returns within
 * `timeout_ms`.  0, or -1 when out of memory (no answer filled).  A name
 * without a worker thread (none could start) fails with the reason. */
int lookup_names(struct lookup_answer *answers, const char *const *names, size_t n,
                 long timeout_ms);

#endif
