/* The public API of include/muster/reserve.h: open, run, stop, read the
 * outcome, free.  The poll() loop lives here; a connection's own work is
 * in conn.c and dispatch.c. */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/error.h"
#include "lib/httpd.h"
#include "protocol.h"
#include "server.h"

/* How long replies already queued may take to leave once the run ends. */
#define RESERVE_DRAIN_MS 2000L
#define RESERVE_LINGER_MS 5000L

int muster_reserve_open(muster_reserve **out, const muster_reserve_options *o, muster_error *err)
{
	long idle_ms = 0, max_conns = 0, max_per_addr = 0;
	muster_reserve *s;
	int rc;

	error_clear(err);
	if (out == NULL || o == NULL || o->size < offsetof(muster_reserve_options, log_data) +
	                                              sizeof(void *))
		return error_set(err, MUSTER_EINVAL, "reserve: no options (MUSTER_RESERVE_OPTIONS_INIT)");
	*out = NULL;
	if (o->cluster_size <= 0)
		return error_set(err, MUSTER_EINVAL, "reserve: the cluster size must be positive, not %ld",
		                 o->cluster_size);
	if (o->port_min < 0 || o->port_max > 65535 || o->port_max < o->port_min)
		return error_set(err, MUSTER_EINVAL, "reserve: bad port range %d-%d", o->port_min,
		                 o->port_max);
	/* The flood limits, when the caller's struct has them. */
	if (o->size >= offsetof(muster_reserve_options, max_per_address) + sizeof(long)) {
		idle_ms = o->idle_timeout_ms;
		max_conns = o->max_connections;
		max_per_addr = o->max_per_address;
	}
	if (max_conns < 0 || max_per_addr < 0)
		return error_set(err, MUSTER_EINVAL,
		                 "reserve: connection caps must be positive (0: the default), not %ld, %ld",
		                 max_conns, max_per_addr);
	s = calloc(1, sizeof *s);
	if (s == NULL)
		return error_set(err, MUSTER_ENOMEM, "reserve: out of memory");
	s->listen_fd = -1;
	s->wake[0] = s->wake[1] = -1;
	s->size = o->cluster_size;
	s->timeout_ms = o->timeout_ms;
	s->idle_ms = idle_ms != 0 ? idle_ms : RESERVE_DEFAULT_IDLE_MS;
	s->max_conns = (size_t)(max_conns != 0 ? max_conns : o->cluster_size + RESERVE_TOTAL_SLACK);
	s->max_per_addr = (size_t)(max_per_addr != 0 ? max_per_addr
	                                             : o->cluster_size + RESERVE_PER_ADDRESS_SLACK);
	s->max_frame = o->max_frame != 0 ? o->max_frame : RESERVE_DEFAULT_MAX_FRAME;
	s->log.fn = o->log;
	s->log.data = o->log_data;
	s->log.level = o->log_level;
	s->accepting = true;
	s->last_logged = -1;
	/* Decoder bounds sized for a registration, not a whole QINFO list. */
	s->limits.max_input = s->max_frame;
	s->limits.max_depth = 16;
	s->limits.max_elements = 4096;
	s->limits.max_expanded = s->max_frame;
	s->limits.max_memo = 4096;

	if (o->auth_key_file != NULL) {
		char why[256];

		s->key = malloc(RES_AUTH_MAX_KEY);
		if (s->key == NULL) {
			rc = error_set(err, MUSTER_ENOMEM, "reserve: out of memory");
			goto fail;
		}
		if (res_auth_key_load(o->auth_key_file, s->key, &s->key_len, why, sizeof why) != 0) {
			rc = error_set(err, MUSTER_ECONFIG, "reserve: %s", why);
			goto fail;
		}
	}
	if (registry_init(&s->reg, s->size) != 0 || dispatch_init_replies(s) != 0) {
		rc = error_set(err, MUSTER_ENOMEM, "reserve: out of memory");
		goto fail;
	}
	if (pipe(s->wake) != 0 || reserve_set_nonblocking(s->wake[0]) != 0 ||
	    reserve_set_nonblocking(s->wake[1]) != 0) {
		rc = error_set(err, MUSTER_EUNAVAIL, "reserve: pipe: %s", strerror(errno));
		goto fail;
	}
	rc = reserve_listen(o->host, o->port_min, o->port_max, &s->listen_fd, &s->port, err);
	if (rc == 0)
		rc = metrics_open(s, o, err);
	if (rc != 0)
		goto fail;
	snprintf(s->bound, sizeof s->bound, "%s%s%s:%d",
	         o->host != NULL && strchr(o->host, ':') ? "[" : "",
	         o->host != NULL && o->host[0] != '\0' ? o->host : "0.0.0.0",
	         o->host != NULL && strchr(o->host, ':') ? "]" : "", s->port);
	log_msg(&s->log, MUSTER_LOG_NOTICE, "listening on %s for %ld reservations%s", s->bound,
	        s->size, s->key != NULL ? " (authenticated)" : "");
	*out = s;
	return 0;
fail:
	muster_reserve_free(s);
	return rc;
}

int muster_reserve_port(const muster_reserve *s)
{
	return s != NULL ? s->port : -1;
}

void muster_reserve_stop(muster_reserve *s)
{
	if (s == NULL)
		return;
	s->stop_requested = 1;
	if (s->wake[1] >= 0) {
		/* async-signal-safe; a full pipe already holds a wake-up */
		ssize_t w = write(s->wake[1], "x", 1);
		(void)w;
	}
}

long muster_reserve_registered(const muster_reserve *s)
{
	return s != NULL ? (long)s->reg.len : 0;
}

static void close_listener(muster_reserve *s)
{
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
	s->accepting = false;
}

/* Remove the closed slots, keeping the order. */
static void compact(muster_reserve *s)
{
	size_t i, j = 0;

	for (i = 0; i < s->nconns; i++)
		if (s->conns[i] != NULL)
			s->conns[j++] = s->conns[i];
	s->nconns = j;
}

static bool is_done(const muster_reserve *s)
{
	return registry_complete(s) && s->reg.fetched == s->reg.len;
}

/* Where a connection closed for idleness was, for the log. */
static const char *idle_state(const struct conn *c)
{
	if (c->payload != NULL)
		return "not reading its reply";
	if (c->rd.header_have > 0)
		return "inside a frame";
	if (c->auth != NULL && !c->hello_seen)
		return "no authentication hello";
	return "idle";
}

/* One connection's events.  Returns false when it must be closed. */
static bool service(muster_reserve *s, struct conn *c, short revents, long long now)
{
	if (revents & POLLOUT || c->payload != NULL) {
		int rc = conn_flush(c);

		if (rc < 0)
			return false;
		if (rc == 1 && c->close_after)
			return false;
	}
	if (c->payload == NULL && now >= c->quiet_until_ms &&
	    (revents & (POLLIN | POLLHUP | POLLERR))) {
		if (conn_input(s, c) != 0)
			return false;
		/* Most replies fit the socket buffer: send without another poll. */
		if (c->payload != NULL && conn_flush(c) < 0)
			return false;
	}
	if (s->idle_ms > 0 && now - c->last_request_ms > s->idle_ms) {
		s->metrics.idle_closed++;
		log_msg(&s->log, admit_log_level(&s->idle_logged),
		        "%s: dropped: no complete request in %.3g s (%s)", c->peer,
		        (double)s->idle_ms / 1000, idle_state(c));
		return false;
	}
	return true;
}

/* poll() over the listener (while accepting), the wake-up pipe, every
 * connection and the metrics page's sockets; `timeout` ms.  -1 when poll
 * itself failed. */
static int poll_round(muster_reserve *s, struct pollfd **pfds, size_t *cap, int timeout,
                      bool drain)
{
	struct httpd *page = s->metrics.httpd;
	size_t nc = s->nconns, npage = page ? httpd_nfds(page) : 0, n = 2 + nc + npage, i;
	struct pollfd *p = *pfds;
	long long now = clock_now_ms();
	int rc;

	if (n > *cap) {
		p = realloc(*pfds, n * sizeof *p);
		if (p == NULL)
			return -1;
		*pfds = p;
		*cap = n;
	}
	/* Paused at a cap or the descriptor limit: the backlog holds newcomers. */
	p[0].fd = s->accepting && !drain && now >= s->accept_resume_ms ? s->listen_fd : -1;
	p[0].events = POLLIN;
	p[1].fd = s->wake[0];
	p[1].events = POLLIN;
	for (i = 0; i < s->nconns; i++) {
		struct conn *c = s->conns[i];
		bool quiet = c->payload == NULL && now < c->quiet_until_ms;

		/* Pausing after a refusal: not polled at all (a hangup would
		 * report at once, every round), but woken in time. */
		p[2 + i].fd = quiet ? -1 : c->fd;
		if (quiet && c->quiet_until_ms - now < timeout)
			timeout = (int)(c->quiet_until_ms - now);
		/* A reply in flight: wait to write it, read nothing more. */
		p[2 + i].events = c->payload != NULL ? POLLOUT : drain ? 0 : POLLIN;
		p[2 + i].revents = 0;
	}
	if (page)
		httpd_poll(page, p + 2 + nc, &timeout);
	rc = poll(p, (nfds_t)n, timeout);
	if (rc < 0)
		return errno == EINTR ? 0 : -1;
	if (p[1].revents & POLLIN) {
		char buf[64];

		while (read(s->wake[0], buf, sizeof buf) > 0)
			;
	}
	if (page)
		httpd_service(page, p + 2 + nc, npage);
	now = clock_now_ms();
	for (i = 0; i < s->nconns; i++) {
		short ev = p[2 + i].revents;

		if (drain && s->conns[i]->payload == NULL)
			continue;
		if (!service(s, s->conns[i], ev, now))
			admit_drop(s, i);
	}
	compact(s);
	if (!drain && s->accepting && (p[0].revents & POLLIN)) {
		admit_some(s, now);
		compact(s);
	}
	return 0;
}

/* Let queued replies (the last executor's list) leave before closing. */
static void drain(muster_reserve *s, struct pollfd **pfds, size_t *cap)
{
	long long end = clock_now_ms() + RESERVE_DRAIN_MS;
	size_t i;

	for (;;) {
		bool pending = false;
		long long left = end - clock_now_ms();

		for (i = 0; i < s->nconns; i++)
			pending |= s->conns[i]->payload != NULL;
		if (!pending || left <= 0 || s->stop_requested)
			return;
		if (poll_round(s, pfds, cap, (int)left, true) != 0)
			return;
	}
}

/*
 * Done means every executor has received the complete list, but an executor
 * may still be mid-conversation: a retried one got the list in its first
 * QINFO and still sends QUERY and a last QINFO, and TensorFlowOnSpark's
 * clients close only after that.  So the open connections keep being served
 * (no new ones are accepted) until they close, for a bounded time.
 */
static void linger(muster_reserve *s, struct pollfd **pfds, size_t *cap)
{
	long long end = clock_now_ms() + RESERVE_LINGER_MS;

	for (;;) {
		long long left = end - clock_now_ms();

		if (s->nconns == 0 || left <= 0 || s->stop_requested)
			return;
		if (poll_round(s, pfds, cap, (int)left, false) != 0)
			return;
	}
}

int muster_reserve_run(muster_reserve *s, muster_error *err)
{
	struct pollfd *pfds = NULL;
	size_t cap = 0;
	long long start = clock_now_ms(), deadline = 0;
	int rc = 0;

	error_clear(err);
	if (s == NULL)
		return error_set(err, MUSTER_EINVAL, "reserve: no server");
	if (s->ran || s->listen_fd < 0)
		return error_set(err, MUSTER_EINVAL, "reserve: the server has already run");
	s->ran = true;
	if (s->timeout_ms >= 0)
		deadline = start + s->timeout_ms;
	report_progress(s, true);

	while (!is_done(s) && !s->stopped_by_request && !s->stop_requested) {
		long long now = clock_now_ms();
		long long wait = 1000; /* stall checks and progress lines */

		if (s->timeout_ms >= 0) {
			if (now >= deadline)
				break;
			if (deadline - now < wait)
				wait = deadline - now;
		}
		if (poll_round(s, &pfds, &cap, (int)wait, false) != 0) {
			rc = error_set(err, MUSTER_EUNAVAIL, "reserve: poll: %s", strerror(errno));
			break;
		}
		report_progress(s, false);
	}
	close_listener(s);
	if (rc == 0 && is_done(s) && !s->stopped_by_request)
		linger(s, &pfds, &cap);
	drain(s, &pfds, &cap);
	free(pfds);
	/* Without the loop nobody would answer it. */
	metrics_close(s);
	if (rc != 0)
		return rc;

	if (is_done(s) || (s->stopped_by_request && registry_complete(s))) {
		char *spec = NULL;

		report_progress(s, true);
		/* A conflict is the run's outcome too: say it here. */
		rc = muster_reserve_cluster_spec(&spec, s, err);
		muster_free(spec);
		return rc;
	}
	if (s->stopped_by_request)
		return report_unfinished(s, MUSTER_EUNAVAIL, "stopped by a STOP request", err);
	if (s->stop_requested)
		return report_unfinished(s, MUSTER_EUNAVAIL, "interrupted", err);
	{
		char why[64];

		snprintf(why, sizeof why, "timed out after %.3g s", (double)s->timeout_ms / 1000);
		return report_unfinished(s, MUSTER_ETRYAGAIN, why, err);
	}
}

int muster_reserve_cluster_spec(char **out, const muster_reserve *s, muster_error *err)
{
	struct res_cluster cl;
	char why[400];
	pv *list;
	size_t i;
	int rc;

	error_clear(err);
	if (out == NULL || s == NULL)
		return error_set(err, MUSTER_EINVAL, "reserve: no server");
	*out = NULL;
	if (!registry_complete(s))
		return error_set(err, MUSTER_ETRYAGAIN, "reserve: %ld of %ld reservations still missing",
		                 s->size - (long)s->reg.len, s->size);
	if ((list = pv_list()) == NULL)
		return error_set(err, MUSTER_ENOMEM, "reserve: out of memory");
	/* (Our own encodings: the default limits hold them.) */
	for (i = 0; i < s->reg.len; i++)
		if (pv_seq_append(list, pv_decode(s->reg.items[i].pickle, s->reg.items[i].len, NULL,
		                                  NULL)) != 0) {
			pv_free(list);
			return error_set(err, MUSTER_ENOMEM, "reserve: out of memory");
		}
	rc = res_cluster_from_qinfo(list, &cl, why, sizeof why);
	pv_free(list);
	if (rc != 0)
		return error_set(err, MUSTER_ECONFLICT,
		                 "reserve: the registrations do not make a ClusterSpec: %s", why);
	*out = res_cluster_json(&cl);
	res_cluster_free(&cl);
	if (*out == NULL)
		return error_set(err, MUSTER_ENOMEM, "reserve: out of memory");
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The missing ids of one kind, ascending, into out (NULL: count only). */
static size_t missing_ids(const muster_reserve *s, int which, long *out)
{
	size_t n = 0, i;

	if (s == NULL)
		return 0;
	if (which == MUSTER_RESERVE_UNREGISTERED) {
		long id;

		for (id = 0; id < s->size; id++)
			if (s->reg.slot[id] == 0) {
				if (out != NULL)
					out[n] = id;
				n++;
			}
		return n;
	}
	if (which != MUSTER_RESERVE_UNFETCHED)
		return 0;
	for (i = 0; i < s->reg.len; i++) {
		const struct reg *g = &s->reg.items[i];

		if (!g->fetched) {
			if (out != NULL)
				out[n] = (long)g->executor_id;
			n++;
		}
	}
	if (out != NULL)
		qsort(out, n, sizeof *out, cmp_long);
	return n;
}

size_t muster_reserve_missing_count(const muster_reserve *s, int which)
{
	return missing_ids(s, which, NULL);
}

long muster_reserve_missing_at(const muster_reserve *s, int which, size_t i)
{
	size_t n = missing_ids(s, which, NULL);
	long *ids, v;

	if (i >= n || (ids = malloc(n * sizeof *ids)) == NULL)
		return -1;
	missing_ids(s, which, ids);
	v = ids[i];
	free(ids);
	return v;
}

void muster_reserve_free(muster_reserve *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nconns; i++)
		conn_free(s->conns[i]);
	free(s->conns);
	close_listener(s);
	if (s->wake[0] >= 0)
		close(s->wake[0]);
	if (s->wake[1] >= 0)
		close(s->wake[1]);
	metrics_close(s);
	registry_free(&s->reg);
	blob_unref(s->reply_ok);
	blob_unref(s->reply_err);
	blob_unref(s->reply_true);
	blob_unref(s->reply_false);
	blob_unref(s->reply_list);
	if (s->key != NULL) {
		explicit_bzero(s->key, RES_AUTH_MAX_KEY);
		free(s->key);
	}
	free(s);
}
