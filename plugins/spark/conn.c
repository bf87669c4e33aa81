/*
 * One TCP connection to the reservation server, every step bounded.
 *
 * The socket is non-blocking from the start: connect, each send and each
 * read wait in poll() for at most io_timeout_ms and never past the run's
 * deadline.  A request is one buffer (header and pickle in one send: the
 * Python server decodes the length from its first recv); a reply is read
 * exactly (4 bytes, then the announced length, capped), then decoded with
 * the restricted pickle decoder and its limits.
 *
 * Name lookup is the one step without a timeout of ours: getaddrinfo()
 * cannot be interrupted without a thread that could outlive the call.  A
 * numeric address (what TFoS's driver advertises) needs no lookup.
 */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "spark.h"
#include "lib/clock.h"
#include "lib/reason.h"

/* Wait for `events` on fd until `io` (the request's io_timeout_ms, counted
 * from its start so a server trickling bytes cannot stretch it, and never
 * past the run's deadline).  1 ready, 0 timed out (*by_deadline says
 * whose), -1 error. */
static int wait_fd(struct spark_run *run, int fd, short events, long long io,
                   bool *by_deadline)
{
	struct pollfd p;
	long ms;
	int rc;

	for (;;) {
		ms = clock_ms_until(io);
		*by_deadline = clock_ms_until(run->deadline_ms) <= ms;
		if (ms <= 0)
			return 0;
		p.fd = fd;
		p.events = events;
		p.revents = 0;
		rc = poll(&p, 1, ms > 1000000 ? 1000000 : (int)ms);
		if (rc > 0)
			return 1;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

static enum spark_io timed_out(struct spark_run *run, bool by_deadline, const char *doing,
                               char *why, size_t whylen)
{
	if (by_deadline)
		snprintf(why, whylen, "%s: out of time after %ld ms", doing, spark_elapsed_ms(run));
	else
		snprintf(why, whylen, "%s: no answer within %ld ms (io_timeout_ms)", doing,
		         run->conf->io_timeout_ms);
	return by_deadline ? SPARK_IO_DEADLINE : SPARK_IO_FAILED;
}

static enum spark_io connect_one(struct spark_run *run, const struct addrinfo *ai, int *out,
                                 char *why, size_t whylen)
{
	long long io = spark_deadline_in(run, run->conf->io_timeout_ms);
	int fd, err = 0, rc;
	socklen_t len = sizeof(err);
	bool by_deadline = false;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0) {
		snprintf(why, whylen, "socket: %s", strerror(errno));
		return SPARK_IO_FAILED;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
		*out = fd;
		return SPARK_IO_OK;
	}
	if (errno != EINPROGRESS && errno != EINTR) {
		snprintf(why, whylen, "%s", strerror(errno));
		close(fd);
		return SPARK_IO_FAILED;
	}
	rc = wait_fd(run, fd, POLLOUT, io, &by_deadline);
	if (rc == 0) {
		close(fd);
		return timed_out(run, by_deadline, "connect", why, whylen);
	}
	if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
		snprintf(why, whylen, "%s", strerror(rc < 0 ? errno : err != 0 ? err : errno));
		close(fd);
		return SPARK_IO_FAILED;
	}
	*out = fd;
	return SPARK_IO_OK;
}

/* Our end's address: what the server sees, so what the cluster should use. */
static int local_address(struct spark_conn *c, char *why, size_t whylen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	const void *a;

	if (getsockname(c->fd, (struct sockaddr *)&ss, &len) != 0)
		return reason_fail(why, whylen, "getsockname: %s", strerror(errno));
	c->local_family = ss.ss_family;
	if (ss.ss_family == AF_INET)
		a = &((struct sockaddr_in *)&ss)->sin_addr;
	else if (ss.ss_family == AF_INET6)
		a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
	else
		a = NULL;
	if (a == NULL || inet_ntop(ss.ss_family, a, c->local_host, sizeof(c->local_host)) == NULL)
		return reason_fail(why, whylen, "cannot name this end's address");
	return 0;
}

static enum spark_io send_all(struct spark_run *run, struct spark_conn *c, const uint8_t *buf,
                              size_t len, long long io, const char *what, char *why,
                              size_t whylen)
{
	char doing[64];
	bool by_deadline = false;
	ssize_t n;
	int rc;

	while (len > 0) {
		n = send(c->fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			snprintf(why, whylen, "sending %s: %s", what, strerror(errno));
			return SPARK_IO_FAILED;
		}
		rc = wait_fd(run, c->fd, POLLOUT, io, &by_deadline);
		if (rc == 0) {
			snprintf(doing, sizeof(doing), "sending %s", what);
			return timed_out(run, by_deadline, doing, why, whylen);
		}
		if (rc < 0) {
			snprintf(why, whylen, "sending %s: %s", what, strerror(errno));
			return SPARK_IO_FAILED;
		}
	}
	return SPARK_IO_OK;
}

/* One complete frame into the reader (READY), or why not. */
static enum spark_io read_frame(struct spark_run *run, struct spark_conn *c,
                                long long io, const char *what, char *why,
                                size_t whylen)
{
	enum res_frame_status st;
	char doing[64];
	bool by_deadline = false;
	int rc;

	for (;;) {
		st = res_frame_read_fd(&c->reader, c->fd);
		switch (st) {
		case RES_FRAME_READY:
			return SPARK_IO_OK;
		case RES_FRAME_MORE:
			break;
		case RES_FRAME_EOF:
			snprintf(why, whylen, "the server closed the connection instead of answering %s",
			         what);
			return SPARK_IO_FAILED;
		case RES_FRAME_TRUNCATED:
			snprintf(why, whylen, "the server closed the connection inside its reply to %s",
			         what);
			return SPARK_IO_FAILED;
		case RES_FRAME_TOO_BIG:
			snprintf(why, whylen, "the server's reply to %s announces more than %zu bytes",
			         what, SPARK_MAX_REPLY);
			return SPARK_IO_FAILED;
		default:
			snprintf(why, whylen, "reading the reply to %s: %s", what, strerror(errno));
			return SPARK_IO_FAILED;
		}
		rc = wait_fd(run, c->fd, POLLIN, io, &by_deadline);
		if (rc == 0) {
			snprintf(doing, sizeof(doing), "waiting for the reply to %s", what);
			return timed_out(run, by_deadline, doing, why, whylen);
		}
		if (rc < 0) {
			snprintf(why, whylen, "reading the reply to %s: %s", what, strerror(errno));
			return SPARK_IO_FAILED;
		}
	}
}

/* Both hellos (frame.h): ours out, the server's in. */
static enum spark_io say_hello(struct spark_run *run, struct spark_conn *c, char *why,
                               size_t whylen)
{
	long long io = spark_deadline_in(run, run->conf->io_timeout_ms);
	uint8_t hello[RES_AUTH_HELLO_SIZE];
	uint8_t *buf = NULL;
	size_t len = 0;
	const uint8_t *payload;
	enum spark_io st;

	if (res_auth_init(&c->auth, run->conf->key, run->conf->key_len, false) != 0 ||
	    res_auth_hello(&c->auth, hello) != 0 ||
	    res_frame_build(NULL, hello, sizeof(hello), &buf, &len) != 0) {
		snprintf(why, whylen, "cannot start authentication (random source or memory)");
		free(buf);
		return SPARK_IO_FAILED;
	}
	st = send_all(run, c, buf, len, io, "the auth hello", why, whylen);
	free(buf);
	if (st == SPARK_IO_OK)
		st = read_frame(run, c, io, "the auth hello", why, whylen);
	if (st != SPARK_IO_OK)
		return st;
	payload = res_frame_payload(&c->reader, &len);
	if (res_auth_accept_hello(&c->auth, payload, len) != 0) {
		snprintf(why, whylen, "the server did not answer with an auth hello: is "
		                      "auth_key_file set on the server too?");
		return SPARK_IO_FAILED;
	}
	res_frame_next(&c->reader);
	c->authenticated = true;
	return SPARK_IO_OK;
}

enum spark_io spark_conn_open(struct spark_run *run, struct spark_conn *c, char *why,
                              size_t whylen)
{
	struct addrinfo hints, *list = NULL, *ai;
	enum spark_io io = SPARK_IO_FAILED;
	char last[160] = "no address";
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	res_frame_reader_init(&c->reader, SPARK_MAX_REPLY);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	rc = getaddrinfo(run->server_host, run->server_port, &hints, &list);
	if (rc != 0) {
		snprintf(why, whylen, "reservation server %s: %s", run->server_host,
		         rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return SPARK_IO_FAILED;
	}
	for (ai = list; ai != NULL; ai = ai->ai_next) {
		io = connect_one(run, ai, &c->fd, last, sizeof(last));
		if (io != SPARK_IO_FAILED)
			break;
	}
	freeaddrinfo(list);
	if (io != SPARK_IO_OK) {
		snprintf(why, whylen, "cannot connect to the reservation server %s port %s: %s",
		         run->server_host, run->server_port, last);
		return io;
	}
	if (local_address(c, why, whylen) != 0)
		return SPARK_IO_FAILED;
	if (run->conf->have_key)
		return say_hello(run, c, why, whylen);
	return SPARK_IO_OK;
}

void spark_conn_close(struct spark_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	res_frame_reader_free(&c->reader);
	res_auth_clear(&c->auth);
}

enum spark_io spark_conn_call(struct spark_run *run, struct spark_conn *c, const char *what,
                              pv *request, pv **reply, char *why, size_t whylen)
{
	long long deadline = spark_deadline_in(run, run->conf->io_timeout_ms);
	struct res_auth *auth = c->authenticated ? &c->auth : NULL;
	struct pv_limits limits = { 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	const uint8_t *payload;
	char err[240];
	enum spark_io io;

	*reply = NULL;
	if (request == NULL || res_pack(auth, request, &buf, &len) != 0) {
		pv_free(request);
		snprintf(why, whylen, "cannot build %s: out of memory", what);
		return SPARK_IO_FAILED;
	}
	pv_free(request);
	io = send_all(run, c, buf, len, deadline, what, why, whylen);
	free(buf);
	if (io == SPARK_IO_OK)
		io = read_frame(run, c, deadline, what, why, whylen);
	if (io != SPARK_IO_OK)
		return io;
	payload = res_frame_payload(&c->reader, &len);
	limits.max_input = SPARK_MAX_REPLY;
	err[0] = '\0';
	*reply = res_unpack(auth, payload, len, &limits, err, sizeof(err));
	res_frame_next(&c->reader);
	if (*reply == NULL) {
		snprintf(why, whylen, "the server's reply to %s was refused: %s", what,
		         err[0] ? err : "not a valid frame");
		return SPARK_IO_FAILED;
	}
	return SPARK_IO_OK;
}
