/* muster run's readiness: a node other than the master's starts its
 * workers once the master's host name resolves (a pod's DNS record is
 * published some time after the pod starts) and, with --wait-master,
 * once the master's port accepts a connection, tried again with backoff
 * until --master-timeout.  Every step is bounded by that deadline, the
 * name lookup too (run_lookup.c).  One line says that the node waits;
 * the timeout's message names host, port and the last error. */
#include <config.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/lookup_reason.h"
#include "run_ready.h"

/* The progress line goes out when a try fails or the first one has taken
 * this long. */
#define SAY_AFTER_MS 1000
/* One connection attempt: long enough for the kernel's first SYN
 * retransmissions (1 s, 3 s), short enough to try again soon. */
#define CONNECT_MS 10000
/* Between tries: 100 ms, doubling up to 2 s. */
#define PAUSE_FIRST_MS 100
#define PAUSE_MAX_MS 2000

void run_ready_init(struct run_ready *r)
{
	r->timeout_s = RUN_READY_TIMEOUT_S;
	r->wait_port = 0;
	r->given = 0;
}

int run_ready_option(struct run_ready *r, int c, const char *arg)
{
	switch (c) {
	case RUN_OPT_MASTER_TIMEOUT:
		r->given = 1;
		r->timeout_s = cli_parse_ms("run: --master-timeout", arg, RUN_READY_TIMEOUT_MAX_S);
		return r->timeout_s < 0 ? CLI_EXIT_USAGE : 0;
	case RUN_OPT_WAIT_MASTER:
		r->given = 1;
		r->wait_port = 1;
		return 0;
	default:
		return -1;
	}
}

int run_ready_check(const struct run_ready *r, int elastic, const char *framework)
{
	if (elastic && r->given)
		return cli_usage_error("run: --master-timeout and --wait-master go without "
		                       "--elastic (its workers start with each change)");
	if (r->given && strcmp(framework, "tensorflow") == 0)
		return cli_usage_error("run: --master-timeout and --wait-master: --for pytorch or "
		                       "jax (a TF_CONFIG names no master to wait for)");
	if (r->wait_port && r->timeout_s == 0)
		return cli_usage_error("run: --wait-master waits up to --master-timeout, "
		                       "and --master-timeout 0 does not wait");
	return 0;
}

struct master {
	char host[256]; /* as getaddrinfo takes it: an IPv6 address without brackets */
	char port[8];
	long node;      /* this node's rank; 0: the master's */
};

struct waiter {
	const struct cli_global *g;
	const struct run_ready *r;
	const struct master *m;
	long long start, deadline;
	int said;       /* the progress line went out */
	char why[192];  /* the last error; "" before the first */
};

/* "host:port", an IPv6 address in brackets. */
static const char *shown(const struct master *m, char *buf, size_t size)
{
	int v6 = strchr(m->host, ':') != NULL;
	snprintf(buf, size, "%s%s%s:%s", v6 ? "[" : "", m->host, v6 ? "]" : "", m->port);
	return buf;
}

static void say_waiting(struct waiter *w)
{
	char where[300];

	w->said = 1;
	cli_say(w->g, MUSTER_LOG_NOTICE, "run: waiting up to %ld s for the master %s to %s: %s",
	    w->r->timeout_s, shown(w->m, where, sizeof(where)),
	    w->r->wait_port ? "resolve and accept a connection" : "resolve",
	    w->why[0] ? w->why : "the name lookup has not answered yet");
}

/* Which node this is and who the master is, as the plan says: 0, or 1
 * when the plan names no master (a TensorFlow one). */
static int master_of(struct master *m, const muster_plan *plan)
{
	const char *host = muster_plan_master_host(plan);

	if (host == NULL)
		return 1;
	snprintf(m->host, sizeof(m->host), "%s", host);
	snprintf(m->port, sizeof(m->port), "%d", muster_plan_master_port(plan));
	m->node = muster_plan_node_rank(plan);
	return 0;
}

/* Polls `fd` for `events` until `end` (clock_now_ms()): 1 when it is
 * ready, 0 when `end` came first, -1 when poll fails.  The progress line
 * goes out once SAY_AFTER_MS have passed. */
static int wait_fd(struct waiter *w, int fd, short events, long long end)
{
	for (;;) {
		long long now = clock_now_ms(), until = end;
		struct pollfd p = { fd, events, 0 };
		int n;

		if (!w->said && now >= w->start + SAY_AFTER_MS)
			say_waiting(w);
		if (!w->said && until > w->start + SAY_AFTER_MS)
			until = w->start + SAY_AFTER_MS;
		n = poll(&p, 1, until > now ? (int)(until - now) : 0);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
		if (clock_now_ms() >= end)
			return 0;
	}
}

/* Looks the master's name up within the deadline: 1 with *k holding the
 * addresses in *list, 0 with w->why set, -1 on failure (printed). */
static int resolve(struct waiter *w, struct lookup **k, const struct addrinfo **list)
{
	int ready, rc, saved = 0;

	if ((*k = lookup_start(w->m->host, w->m->port)) == NULL) {
		cli_error("run: cannot look up %s: %s", w->m->host, strerror(errno));
		return -1;
	}
	ready = wait_fd(w, lookup_fd(*k), POLLIN, w->deadline);
	rc = ready > 0 ? lookup_result(*k, list, &saved) : EAI_INPROGRESS;
	if (rc == 0)
		return 1;
	lookup_end(*k);
	*k = NULL;
	if (ready < 0) {
		cli_error("run: poll: %s", strerror(errno));
		return -1;
	}
	if (rc != EAI_INPROGRESS)
		lookup_reason(w->why, sizeof(w->why), rc, saved);
	else if (w->why[0] == '\0') /* else the earlier try's error says more */
		snprintf(w->why, sizeof(w->why), "the name lookup did not finish "
		         "(the resolver did not answer)");
	return 0;
}

/* One connection to `ai`, closed at once: 0 or an errno value. */
static int connect_once(struct waiter *w, const struct addrinfo *ai, long long end)
{
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	int e = 0;
	socklen_t len = sizeof(e);

	if (fd < 0)
		return errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		e = errno;
		if (e == EINPROGRESS) {
			int ready = wait_fd(w, fd, POLLOUT, end);
			if (ready < 0)
				e = errno;
			else if (ready == 0)
				e = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
				e = errno;
		}
	}
	close(fd);
	return e;
}

static void connect_reason(char *why, size_t size, int e)
{
	switch (e) {
	case ECONNREFUSED:
		snprintf(why, size, "connection refused");
		break;
	case ENETUNREACH:
		snprintf(why, size, "network unreachable");
		break;
	case EHOSTUNREACH:
		snprintf(why, size, "host unreachable");
		break;
	case ETIMEDOUT:
		snprintf(why, size, "connection timed out");
		break;
	default:
		snprintf(why, size, "connect: %s", strerror(e));
	}
}

/* Some address of the master accepts a connection: 1, else 0 with
 * w->why set. */
static int reach(struct waiter *w, const struct addrinfo *list)
{
	for (const struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next) {
		long long now = clock_now_ms();
		long long end = now + CONNECT_MS < w->deadline ? now + CONNECT_MS : w->deadline;
		int e = connect_once(w, ai, end);

		if (e == 0)
			return 1;
		connect_reason(w->why, sizeof(w->why), e);
		if (clock_now_ms() >= w->deadline)
			break;
	}
	return 0;
}

/* One try: 1 ready, 0 not yet, -1 failed (printed). */
static int try_once(struct waiter *w)
{
	const struct addrinfo *list = NULL;
	struct lookup *k = NULL;
	int ok = resolve(w, &k, &list);

	if (ok > 0 && w->r->wait_port)
		ok = reach(w, list);
	if (k != NULL)
		lookup_end(k);
	return ok;
}

int run_wait_master(const struct cli_global *g, const struct run_ready *r,
                    const muster_plan *plan)
{
	struct backoff pause = { PAUSE_FIRST_MS, PAUSE_MAX_MS };
	struct master m;
	struct waiter w = { .g = g, .r = r, .m = &m, .said = 0, .why = "" };
	char where[300];

	if (r->timeout_s == 0 || master_of(&m, plan) != 0)
		return 0;
	if (m.node == 0) /* the master's own node: nothing to wait for */
		return 0;
	w.start = clock_now_ms();
	w.deadline = w.start + r->timeout_s * 1000LL;
	for (;;) {
		int ok = try_once(&w);
		long long left;

		if (ok < 0)
			return CLI_EXIT_SOFTWARE;
		if (ok > 0) {
			if (w.said)
				cli_say(g, MUSTER_LOG_INFO, "run: the master answered after %.1f s",
				    (double)(clock_now_ms() - w.start) / 1000);
			return 0;
		}
		if (!w.said)
			say_waiting(&w);
		if ((left = w.deadline - clock_now_ms()) <= 0)
			break;
		long step = backoff_step(&pause);
		clock_sleep_ms(step < left ? step : (long)left);
		if (clock_now_ms() >= w.deadline)
			break;
	}
	cli_error("run: the master %s was not ready within %ld s (--master-timeout): %s",
	          shown(&m, where, sizeof(where)), r->timeout_s, w.why);
	return CLI_EXIT_TRYAGAIN;
}
