/*
 * Who gets a connection slot, so that a flood cannot starve the executors
 * (docs/decisions.md).  At the total cap or the descriptor limit a newcomer
 * evicts the connection that has gone longest without completing a request,
 * once that one has had its chance (the grace); with nobody to evict the
 * listener is not polled, and newcomers wait in the kernel's backlog until a
 * connection closes (or a second passes: another process may free a
 * descriptor).  A newcomer from an address at its own cap evicts from that
 * address, or is closed: it never costs another address its slot.
 */
#include <config.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

int admit_log_level(bool *logged)
{
	int level = *logged ? MUSTER_LOG_INFO : MUSTER_LOG_WARNING;

	*logged = true;
	return level;
}

void admit_drop(struct muster_reserve *s, size_t i)
{
	struct conn *c = s->conns[i];

	registry_conn_closed(s, c);
	conn_free(c);
	s->conns[i] = NULL;
	s->nlive--;
	s->accept_resume_ms = 0; /* a descriptor and a slot are free */
}

static long long grace_ms(const struct muster_reserve *s)
{
	return s->idle_ms > 0 && s->idle_ms / 2 < RESERVE_EVICT_GRACE_MS ? s->idle_ms / 2
	                                                                  : RESERVE_EVICT_GRACE_MS;
}

/* Evict the connection (from `host`, or any) longest without a completed
 * request, if it has had the grace.  True when one was closed. */
static bool evict(struct muster_reserve *s, const char *host, long long now, const char *why)
{
	long long oldest = now - grace_ms(s);
	size_t i, victim = s->nconns;

	for (i = 0; i < s->nconns; i++) {
		const struct conn *c = s->conns[i];

		if (c != NULL && c->last_request_ms <= oldest &&
		    (host == NULL || strcmp(c->peer_host, host) == 0)) {
			oldest = c->last_request_ms;
			victim = i;
		}
	}
	if (victim == s->nconns)
		return false;
	s->metrics.evicted++;
	log_msg(&s->log, admit_log_level(&s->evict_logged),
	        "%s: evicted for a newcomer (%s): no request for %.3g s", s->conns[victim]->peer, why,
	        (double)(now - oldest) / 1000);
	admit_drop(s, victim);
	return true;
}

/* Stop polling the listener for a while; newcomers wait in the backlog. */
static void pause_accepting(struct muster_reserve *s, long long now, const char *why)
{
	s->accept_resume_ms = now + RESERVE_ACCEPT_RETRY_MS;
	log_msg(&s->log, admit_log_level(&s->pause_logged),
	        "not accepting for now: %s; newcomers wait in the backlog until a connection closes",
	        why);
}

/* A newcomer waits in the backlog (the first of a batch is known to). */
static bool newcomer_waits(const struct muster_reserve *s, int k)
{
	struct pollfd p = { s->listen_fd, POLLIN, 0 };

	return k == 0 || (poll(&p, 1, 0) == 1 && (p.revents & POLLIN));
}

static size_t count_from(const struct muster_reserve *s, const char *host)
{
	size_t i, n = 0;

	for (i = 0; i < s->nconns; i++)
		n += s->conns[i] != NULL && strcmp(s->conns[i]->peer_host, host) == 0;
	return n;
}

/* Make the new connection a slot.  False when out of memory (fd closed). */
static bool add_conn(struct muster_reserve *s, int fd, const char *peer, const char *host)
{
	struct conn *c;

	if (s->nconns == s->capconns) {
		size_t cap = s->capconns ? s->capconns * 2 : 64;
		struct conn **v = realloc(s->conns, cap * sizeof *v);

		if (v == NULL) {
			close(fd);
			return false;
		}
		s->conns = v;
		s->capconns = cap;
	}
	c = conn_new(s, fd, peer, host);
	if (c == NULL) {
		close(fd);
		log_msg(&s->log, MUSTER_LOG_ERR, "%s: out of memory", peer);
		return false;
	}
	s->conns[s->nconns++] = c;
	s->nlive++;
	s->metrics.accepted++;
	log_msg(&s->log, MUSTER_LOG_DEBUG, "%s: connected", peer);
	/* The auth hello leaves at once. */
	if (c->payload != NULL && conn_flush(c) < 0)
		admit_drop(s, s->nconns - 1);
	return true;
}

void admit_some(struct muster_reserve *s, long long now)
{
	char why[96];
	int k;

	/* A bounded batch, so a flood of connects cannot starve the others. */
	for (k = 0; k < 64; k++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof ss;
		char host[NI_MAXHOST], serv[NI_MAXSERV], peer[64];
		int fd;

		if (s->nlive >= s->max_conns) {
			if (!newcomer_waits(s, k))
				return;
			snprintf(why, sizeof why, "the cap of %zu connections", s->max_conns);
			if (!evict(s, NULL, now, why)) {
				pause_accepting(s, now, why);
				return;
			}
		}
		fd = accept(s->listen_fd, (struct sockaddr *)&ss, &len);
		if (fd < 0) {
			/* (accept fails so even with nobody waiting) */
			if ((errno != EMFILE && errno != ENFILE) || !newcomer_waits(s, k))
				return;
			snprintf(why, sizeof why, "accept: %s (raise ulimit -n)", strerror(errno));
			if (!evict(s, NULL, now, why)) {
				pause_accepting(s, now, why);
				return;
			}
			continue;
		}
		if (reserve_set_nonblocking(fd) != 0) {
			close(fd);
			continue;
		}
		if (getnameinfo((struct sockaddr *)&ss, len, host, sizeof host, serv, sizeof serv,
		                NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
			strcpy(host, "?");
			strcpy(serv, "?");
		}
		snprintf(peer, sizeof peer, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, serv);
		if (count_from(s, host) >= s->max_per_addr) {
			snprintf(why, sizeof why, "the per-address cap of %zu", s->max_per_addr);
			if (!evict(s, host, now, why)) {
				log_msg(&s->log, admit_log_level(&s->refuse_logged),
				        "%s: refused: %zu connections from %s are open (the per-address "
				        "cap), none idle for long",
				        peer, s->max_per_addr, host);
				s->metrics.refused++;
				close(fd);
				continue;
			}
		}
		if (!add_conn(s, fd, peer, host))
			return;
	}
}
