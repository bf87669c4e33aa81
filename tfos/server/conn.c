/* One client connection: its frame reader, its one reply in flight, and
 * the authentication handshake when the server has a key. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/clock.h"
#include "server.h"

struct blob *blob_new(const void *data, size_t len)
{
	struct blob *b = malloc(sizeof *b + len);

	if (b == NULL)
		return NULL;
	b->refs = 1;
	b->len = len;
	if (len > 0)
		memcpy(b->data, data, len);
	return b;
}

static struct blob *blob_ref(struct blob *b)
{
	b->refs++;
	return b;
}

void blob_unref(struct blob *b)
{
	if (b != NULL && --b->refs == 0)
		free(b);
}

struct conn *conn_new(struct muster_reserve *s, int fd, const char *peer, const char *peer_host)
{
	struct conn *c = calloc(1, sizeof *c);

	if (c == NULL)
		return NULL;
	c->fd = fd;
	c->serial = ++s->next_serial;
	c->reg = -1;
	c->last_request_ms = clock_now_ms();
	c->bytes_out = &s->metrics.bytes_out;
	snprintf(c->peer, sizeof c->peer, "%s", peer);
	snprintf(c->peer_host, sizeof c->peer_host, "%s", peer_host);
	res_frame_reader_init(&c->rd, s->max_frame);
	if (s->key != NULL) {
		uint8_t hello[RES_AUTH_HELLO_SIZE];
		struct blob *b;

		c->auth = malloc(sizeof *c->auth);
		if (c->auth == NULL || res_auth_init(c->auth, s->key, s->key_len, true) != 0 ||
		    res_auth_hello(c->auth, hello) != 0 ||
		    (b = blob_new(hello, sizeof hello)) == NULL) {
			conn_free(c);
			return NULL;
		}
		/* The hello goes out as a plain frame, before anything is read. */
		c->tag_len = 0;
		c->head[0] = 0;
		c->head[1] = 0;
		c->head[2] = 0;
		c->head[3] = (uint8_t)sizeof hello;
		c->payload = b;
		c->sent = 0;
		c->total = RES_FRAME_HEADER_SIZE + b->len;
	}
	return c;
}

void conn_free(struct conn *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	res_frame_reader_free(&c->rd);
	blob_unref(c->payload);
	if (c->auth != NULL) {
		res_auth_clear(c->auth);
		free(c->auth);
	}
	free(c);
}

int conn_send(struct conn *c, struct blob *b)
{
	size_t len = b->len;

	c->tag_len = 0;
	if (c->auth != NULL) {
		/* Tag computed here so that the pickle itself stays shared. */
		if (res_auth_tag(c->auth, 'S', c->auth->send_seq, b->data, b->len, c->tag) != 0)
			return -1;
		c->auth->send_seq++;
		c->tag_len = RES_AUTH_TAG_SIZE;
		len += RES_AUTH_TAG_SIZE;
	}
	c->head[0] = (uint8_t)(len >> 24);
	c->head[1] = (uint8_t)(len >> 16);
	c->head[2] = (uint8_t)(len >> 8);
	c->head[3] = (uint8_t)len;
	blob_unref(c->payload);
	c->payload = blob_ref(b);
	c->sent = 0;
	c->total = RES_FRAME_HEADER_SIZE + len;
	return 0;
}

int conn_flush(struct conn *c)
{
	while (c->payload != NULL) {
		struct iovec iov[3];
		size_t skip = c->sent, n = 0, plen = c->payload->len;
		const uint8_t *parts[3] = { c->head, c->payload->data, c->tag };
		size_t lens[3] = { RES_FRAME_HEADER_SIZE, plen, c->tag_len };
		struct msghdr mh;
		ssize_t w;
		int i;

		for (i = 0; i < 3; i++) {
			if (skip >= lens[i]) {
				skip -= lens[i];
				continue;
			}
			iov[n].iov_base = (void *)(parts[i] + skip);
			iov[n].iov_len = lens[i] - skip;
			skip = 0;
			n++;
		}
		memset(&mh, 0, sizeof mh);
		mh.msg_iov = iov;
		mh.msg_iovlen = n;
		/* One sendmsg for header and payload: the Python receiver reads
		 * the length from its first recv. */
		w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		c->sent += (size_t)w;
		*c->bytes_out += (unsigned long long)w;
		if (c->sent >= c->total) {
			blob_unref(c->payload);
			c->payload = NULL;
			c->sent = c->total = 0;
		}
	}
	return 1;
}

/* One complete frame's payload. 0, or -1 to close. */
static int handle_frame(struct muster_reserve *s, struct conn *c, const uint8_t *p, size_t len)
{
	size_t plen = len;
	int rc;

	if (c->auth != NULL) {
		if (!c->hello_seen) {
			if (res_auth_accept_hello(c->auth, p, len) != 0) {
				log_msg(&s->log, MUSTER_LOG_WARNING,
				        "%s: dropped: no authentication hello (a client without the key?)",
				        c->peer);
				return -1;
			}
			c->hello_seen = true;
			return 0;
		}
		if (res_auth_open(c->auth, p, len, &plen) != 0) {
			log_msg(&s->log, MUSTER_LOG_WARNING,
			        "%s: dropped: a frame without a valid authentication tag", c->peer);
			return -1;
		}
	}
	/* Only a request served restarts the idle clock: not the hello, and
	 * not a refused one (a client that only repeats those is idle, and is
	 * not read again for a while). */
	rc = dispatch_request(s, c, p, plen);
	if (rc == DISPATCH_SERVED) {
		c->last_request_ms = clock_now_ms();
		s->metrics.requests++;
	} else if (rc == DISPATCH_REFUSED) {
		c->quiet_until_ms = clock_now_ms() + RESERVE_REFUSAL_PAUSE_MS;
		s->metrics.requests_refused++;
	}
	return rc < 0 ? -1 : 0;
}

int conn_input(struct muster_reserve *s, struct conn *c)
{
	/* Frames are handled one at a time: a reply in flight stops reading
	 * (the caller polls for output only), which keeps the lockstep. */
	while (c->payload == NULL) {
		uint64_t before = c->rd.bytes_read;
		enum res_frame_status st = res_frame_read_fd(&c->rd, c->fd);
		const uint8_t *p;
		size_t len;
		int rc;

		s->metrics.bytes_in += c->rd.bytes_read - before;
		switch (st) {
		case RES_FRAME_MORE:
			return 0;
		case RES_FRAME_READY:
			p = res_frame_payload(&c->rd, &len);
			rc = handle_frame(s, c, p, len);
			res_frame_next(&c->rd);
			if (rc != 0)
				return -1;
			if (c->close_after)
				return 0;
			break;
		case RES_FRAME_EOF:
			log_msg(&s->log, MUSTER_LOG_DEBUG, "%s: closed", c->peer);
			return -1;
		case RES_FRAME_TOO_BIG:
			log_msg(&s->log, MUSTER_LOG_WARNING,
			        "%s: dropped: a frame larger than %zu bytes", c->peer, s->max_frame);
			return -1;
		case RES_FRAME_TRUNCATED:
			log_msg(&s->log, MUSTER_LOG_WARNING, "%s: dropped: closed inside a frame",
			        c->peer);
			return -1;
		case RES_FRAME_ERROR:
		default:
			log_msg(&s->log, MUSTER_LOG_INFO, "%s: dropped: %s", c->peer,
			        errno != 0 ? strerror(errno) : res_frame_status_str(st));
			return -1;
		}
	}
	return 0;
}
