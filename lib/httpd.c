/* The tiny HTTP server of httpd.h.  A connection lives through three
 * states: reading its request, writing the whole answer (built at once,
 * headers and body, so that writing is one buffer), then draining what
 * the client still sends until it closes, so that closing never resets a
 * connection whose answer is still on its way (RFC 9112 9.6's "lingering
 * close").  All of it within one deadline per connection. */
#include <config.h>

#include "httpd.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "http_request.h"

/* What a connection may still send after its answer, and how long. */
#define HTTPD_DRAIN_MAX ((size_t)64 << 10)
#define HTTPD_DRAIN_MS 1000

enum hstate { H_READ, H_WRITE, H_DRAIN };

struct hconn {
	int fd;
	enum hstate state;
	long long deadline_ms;
	size_t len, drained;
	char *answer;
	size_t answer_len, sent;
	char req[HTTPD_MAX_REQUEST];
};

struct httpd {
	int fd, port;
	char address[80];
	char *path, *content_type;
	httpd_render_fn render;
	void *data;
	struct hconn *conns[HTTPD_MAX_CONNS]; /* oldest first */
	size_t n;
};

/* `what` (and `detail`) as the reason; -1. */
static int fail(char *why, size_t len, const char *what, const char *detail)
{
	if (why && len)
		snprintf(why, len, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	return -1;
}

static int listen_on(struct httpd *h, const char *host, int port, char *why, size_t whylen)
{
	struct addrinfo hints, *res = NULL, *ai;
	char service[8], num[64];
	int rc, saved = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	snprintf(service, sizeof(service), "%d", port);
	if ((rc = getaddrinfo(host, service, &hints, &res)) != 0) {
		char what[300];
		snprintf(what, sizeof(what), "cannot listen on %s", host);
		return fail(why, whylen, what, gai_strerror(rc));
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
		if (fd < 0) {
			saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof(ss);
			h->fd = fd;
			if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
			    getnameinfo((struct sockaddr *)&ss, sl, num, sizeof(num), service,
			                sizeof(service), NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
				h->port = atoi(service);
				snprintf(h->address, sizeof(h->address), "%s%s%s:%s",
				         ss.ss_family == AF_INET6 ? "[" : "", num,
				         ss.ss_family == AF_INET6 ? "]" : "", service);
			}
			freeaddrinfo(res);
			return 0;
		}
		saved = errno;
		close(fd);
	}
	freeaddrinfo(res);
	snprintf(num, sizeof(num), "%d", port);
	if (why && whylen)
		snprintf(why, whylen, "cannot listen on %s port %s: %s", host, num, strerror(saved));
	return -1;
}

int httpd_open(struct httpd **out, const char *host, int port, const char *path,
               const char *content_type, httpd_render_fn render, void *data, char *why,
               size_t whylen)
{
	struct httpd *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (h)
		h->fd = -1;
	if (!h || !(h->path = strdup(path)) || !(h->content_type = strdup(content_type))) {
		httpd_free(h);
		return fail(why, whylen, "out of memory", NULL);
	}
	h->render = render;
	h->data = data;
	if (port < 0 || port > 65535) {
		httpd_free(h);
		return fail(why, whylen, "the port must be from 0 to 65535", NULL);
	}
	if (listen_on(h, host ? host : "127.0.0.1", port, why, whylen) < 0) {
		httpd_free(h);
		return -1;
	}
	*out = h;
	return 0;
}

int httpd_port(const struct httpd *h)
{
	return h->port;
}

const char *httpd_address(const struct httpd *h)
{
	return h->address;
}

static void drop(struct httpd *h, size_t i)
{
	struct hconn *c = h->conns[i];
	close(c->fd);
	free(c->answer);
	free(c);
	memmove(&h->conns[i], &h->conns[i + 1], (h->n - i - 1) * sizeof(h->conns[0]));
	h->n--;
}

size_t httpd_nfds(const struct httpd *h)
{
	return 1 + h->n;
}

void httpd_poll(struct httpd *h, struct pollfd *p, int *timeout_ms)
{
	long long now = clock_now_ms();

	p[0] = (struct pollfd){ h->fd, POLLIN, 0 };
	for (size_t i = 0; i < h->n; i++) {
		const struct hconn *c = h->conns[i];
		long long left = c->deadline_ms > now ? c->deadline_ms - now : 0;
		p[1 + i] = (struct pollfd){ c->fd, c->state == H_WRITE ? POLLOUT : POLLIN, 0 };
		if (*timeout_ms < 0 || left < *timeout_ms)
			*timeout_ms = (int)left;
	}
}

static const char *reason_phrase(int code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	default: return "Internal Server Error";
	}
}

/* The whole answer into c->answer: a status line, the fields, the body
 * (none for HEAD).  On failure nothing is sent and the connection closes. */
static void answer(struct httpd *h, struct hconn *c, int code, int head)
{
	char *body = NULL;
	size_t body_len = 0;
	FILE *f;
	int have_body = 0;

	if (code == 200) {
		if ((f = open_memstream(&body, &body_len)) == NULL)
			code = 500;
		else if (h->render(f, h->data) != 0 || fclose(f) != 0 || body_len > HTTPD_MAX_BODY) {
			free(body);
			body = NULL;
			code = 500;
		} else {
			have_body = 1;
		}
	}
	if (!have_body) {
		free(body);
		f = open_memstream(&body, &body_len);
		if (!f)
			return;
		fprintf(f, "%d %s\n", code, reason_phrase(code));
		if (fclose(f) != 0) {
			free(body);
			return;
		}
	}
	if ((f = open_memstream(&c->answer, &c->answer_len)) == NULL) {
		free(body);
		return;
	}
	fprintf(f, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
	           "Connection: close\r\n%s\r\n",
	        code, reason_phrase(code), have_body ? h->content_type : "text/plain; charset=utf-8",
	        body_len, code == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (!head)
		fwrite(body, 1, body_len, f);
	free(body);
	if (fclose(f) != 0) {
		free(c->answer);
		c->answer = NULL;
		return;
	}
	c->state = H_WRITE;
}

static int decide(const struct httpd *h, const struct http_request *r, int *head)
{
	*head = strcmp(r->method, "HEAD") == 0;
	if (strcmp(r->method, "GET") != 0 && !*head)
		return 405;
	return strcmp(r->path, h->path) == 0 ? 200 : 404;
}

/* Reads what arrived; 0 to keep the connection, -1 to close it. */
static int on_read(struct httpd *h, struct hconn *c)
{
	struct http_request r;
	int head = 0;
	ssize_t got;

	if (c->state == H_DRAIN) {
		char sink[4096];
		got = recv(c->fd, sink, sizeof(sink), 0);
		if (got > 0 && (c->drained += (size_t)got) <= HTTPD_DRAIN_MAX)
			return 0;
		return got < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
	}
	got = recv(c->fd, c->req + c->len, sizeof(c->req) - c->len, 0);
	if (got < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (got == 0)
		return -1; /* closed before its request was whole */
	c->len += (size_t)got;
	switch (http_parse_request(c->req, c->len, sizeof(c->req), &r)) {
	case HTTP_NEED_MORE:
		return 0;
	case HTTP_COMPLETE: {
		int code = decide(h, &r, &head); /* before `head` is read */
		answer(h, c, code, head);
		break;
	}
	case HTTP_TOO_LARGE:
		answer(h, c, 431, 0);
		break;
	default:
		answer(h, c, 400, 0);
		break;
	}
	return c->state == H_WRITE ? 0 : -1;
}

static int on_write(struct hconn *c)
{
	ssize_t n = send(c->fd, c->answer + c->sent, c->answer_len - c->sent, MSG_NOSIGNAL);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	c->sent += (size_t)n;
	if (c->sent < c->answer_len)
		return 0;
	shutdown(c->fd, SHUT_WR);
	c->state = H_DRAIN;
	long long until = clock_now_ms() + HTTPD_DRAIN_MS;
	if (until < c->deadline_ms)
		c->deadline_ms = until;
	return 0;
}

static void accept_some(struct httpd *h)
{
	for (int k = 0; k < HTTPD_MAX_CONNS; k++) {
		int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		struct hconn *c = malloc(sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		if (h->n == HTTPD_MAX_CONNS)
			drop(h, 0); /* the oldest makes room: a flood cannot lock scrapers out */
		c->fd = fd;
		c->state = H_READ;
		c->deadline_ms = clock_now_ms() + HTTPD_TIMEOUT_MS;
		c->len = c->drained = c->answer_len = c->sent = 0;
		c->answer = NULL;
		h->conns[h->n++] = c;
		/* Most requests are there already. */
		if (on_read(h, c) < 0 || (c->state == H_WRITE && on_write(c) < 0))
			drop(h, h->n - 1);
	}
}

void httpd_service(struct httpd *h, const struct pollfd *p, size_t n)
{
	long long now = clock_now_ms();
	/* p[1 + i] is conns[i] as httpd_poll() saw them: walked backwards, a
	 * drop moves only what was already handled. */
	size_t seen = n > 1 ? n - 1 : 0;
	if (seen > h->n)
		seen = h->n;
	for (size_t i = seen; i-- > 0;) {
		struct hconn *c = h->conns[i];
		short ev = p[1 + i].revents;
		int rc = 0;
		if (c->fd != p[1 + i].fd)
			continue;
		if (ev & (POLLERR | POLLNVAL))
			rc = -1;
		else if (c->state == H_WRITE && (ev & POLLOUT))
			rc = on_write(c);
		else if (c->state != H_WRITE && (ev & (POLLIN | POLLHUP)))
			rc = on_read(h, c);
		if (rc == 0 && c->state == H_WRITE && c->sent == 0 && (ev & POLLIN))
			rc = on_write(c); /* answered this round: most answers fit at once */
		if (rc < 0 || now >= c->deadline_ms)
			drop(h, i);
	}
	if (n > 0 && (p[0].revents & POLLIN))
		accept_some(h);
}

void httpd_free(struct httpd *h)
{
	if (!h)
		return;
	while (h->n)
		drop(h, h->n - 1);
	if (h->fd >= 0)
		close(h->fd);
	free(h->path);
	free(h->content_type);
	free(h);
}
