/*
 * frame.h's framing: the incremental reader and the one-buffer writer.
 * The reader allocates a frame's payload only once its header passed the
 * size cap, and reads from a socket never beyond the frame at hand.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "frame.h"

void res_frame_reader_init(struct res_frame_reader *r, size_t max_payload)
{
	memset(r, 0, sizeof(*r));
	r->max_payload = max_payload ? max_payload : RES_FRAME_DEFAULT_MAX;
}

void res_frame_reader_free(struct res_frame_reader *r)
{
	free(r->payload);
	r->payload = NULL;
	r->header_have = r->payload_have = r->payload_len = 0;
	r->ready = false;
}

/* The header is complete: check the length and make room. */
static enum res_frame_status start_payload(struct res_frame_reader *r)
{
	const uint8_t *h = r->header;
	uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
	if (n > r->max_payload)
		return RES_FRAME_TOO_BIG;
	free(r->payload);
	/* malloc(0) may return NULL: always ask for one byte more. */
	r->payload = malloc((size_t)n + 1);
	if (!r->payload)
		return RES_FRAME_ERROR;
	r->payload_len = n;
	r->payload_have = 0;
	if (n == 0)
		r->ready = true;
	return r->ready ? RES_FRAME_READY : RES_FRAME_MORE;
}

enum res_frame_status res_frame_feed(struct res_frame_reader *r, const void *data, size_t len,
                                     size_t *consumed)
{
	const uint8_t *p = data;
	size_t used = 0;
	enum res_frame_status st = RES_FRAME_MORE;

	if (r->ready) {
		*consumed = 0;
		return RES_FRAME_READY;
	}
	if (r->header_have < RES_FRAME_HEADER_SIZE) {
		size_t k = RES_FRAME_HEADER_SIZE - r->header_have;
		if (k > len)
			k = len;
		memcpy(r->header + r->header_have, p, k);
		r->header_have += k;
		used += k;
		if (r->header_have < RES_FRAME_HEADER_SIZE) {
			*consumed = used;
			return RES_FRAME_MORE;
		}
		st = start_payload(r);
		if (st != RES_FRAME_MORE) {
			*consumed = used;
			return st;
		}
	}
	size_t k = r->payload_len - r->payload_have;
	if (k > len - used)
		k = len - used;
	if (k)
		memcpy(r->payload + r->payload_have, p + used, k);
	r->payload_have += k;
	used += k;
	*consumed = used;
	if (r->payload_have == r->payload_len) {
		r->ready = true;
		return RES_FRAME_READY;
	}
	return RES_FRAME_MORE;
}

enum res_frame_status res_frame_read_fd(struct res_frame_reader *r, int fd)
{
	for (;;) {
		if (r->ready)
			return RES_FRAME_READY;
		uint8_t *dst;
		size_t want;
		if (r->header_have < RES_FRAME_HEADER_SIZE) {
			dst = r->header + r->header_have;
			want = RES_FRAME_HEADER_SIZE - r->header_have;
		} else {
			dst = r->payload + r->payload_have;
			want = r->payload_len - r->payload_have;
		}
		ssize_t got = read(fd, dst, want);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return RES_FRAME_MORE;
			return RES_FRAME_ERROR;
		}
		if (got == 0)
			return r->header_have == 0 ? RES_FRAME_EOF : RES_FRAME_TRUNCATED;
		r->bytes_read += (uint64_t)got;
		if (r->header_have < RES_FRAME_HEADER_SIZE) {
			r->header_have += (size_t)got;
			if (r->header_have == RES_FRAME_HEADER_SIZE) {
				enum res_frame_status st = start_payload(r);
				if (st != RES_FRAME_MORE)
					return st;
			}
		} else {
			r->payload_have += (size_t)got;
			if (r->payload_have == r->payload_len)
				r->ready = true;
		}
	}
}

const uint8_t *res_frame_payload(const struct res_frame_reader *r, size_t *len)
{
	if (!r->ready)
		return NULL;
	*len = r->payload_len;
	return r->payload;
}

void res_frame_next(struct res_frame_reader *r)
{
	free(r->payload);
	r->payload = NULL;
	r->header_have = r->payload_have = r->payload_len = 0;
	r->ready = false;
}

const char *res_frame_status_str(enum res_frame_status s)
{
	switch (s) {
	case RES_FRAME_MORE: return "incomplete frame";
	case RES_FRAME_READY: return "frame ready";
	case RES_FRAME_EOF: return "connection closed";
	case RES_FRAME_TRUNCATED: return "connection closed inside a frame";
	case RES_FRAME_TOO_BIG: return "frame too big";
	case RES_FRAME_ERROR: return "read error";
	}
	return "unknown frame status";
}
