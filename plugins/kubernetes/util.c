/*
 * kubernetes: small helpers — buffers, an arena, files, base64, strings.
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* secure_getenv, GNU strerror_r, vasprintf */
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "k8s.h"

void k8s_buf_init(struct k8s_buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

int k8s_buf_append(struct k8s_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 16384;
		char *q;

		if (b->len + n > b->max) {
			b->overflow = 1;
			return -1;
		}
		while (cap < b->len + n + 1)
			cap *= 2;
		q = realloc(b->data, cap);
		if (q == NULL)
			return -1;
		b->data = q;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

void k8s_buf_reset(struct k8s_buf *b)
{
	b->len = 0;
	b->overflow = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

void k8s_buf_free(struct k8s_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* 64 KiB chunks: a 100,000-pod listing needs about a hundred. */
#define ARENA_CHUNK ((size_t)64 * 1024)

struct k8s_arena_chunk {
	struct k8s_arena_chunk *prev;
	size_t size;
	long data[]; /* aligned for the counts */
};

void *k8s_arena_alloc(struct k8s_arena *a, size_t n)
{
	struct k8s_arena_chunk *c = a->head;
	size_t need = (n + sizeof(long) - 1) & ~(sizeof(long) - 1);
	void *p;

	if (c == NULL || c->size - a->used < need) {
		size_t size = need > ARENA_CHUNK ? need : ARENA_CHUNK;

		if ((c = malloc(sizeof(*c) + size)) == NULL)
			return NULL;
		c->prev = a->head;
		c->size = size;
		a->head = c;
		a->used = 0;
	}
	p = (char *)c->data + a->used;
	a->used += need;
	return p;
}

char *k8s_arena_strdup(struct k8s_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = k8s_arena_alloc(a, n);

	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

void k8s_arena_mark(const struct k8s_arena *a, struct k8s_arena_mark *m)
{
	m->head = a->head;
	m->used = a->used;
}

/* Back to a mark: what was handed out since is freed. */
void k8s_arena_rewind(struct k8s_arena *a, const struct k8s_arena_mark *m)
{
	while (a->head != m->head) {
		struct k8s_arena_chunk *c = a->head;

		a->head = c->prev;
		free(c);
	}
	a->used = m->used;
}

void k8s_arena_free(struct k8s_arena *a)
{
	struct k8s_arena_mark none = { NULL, 0 };

	k8s_arena_rewind(a, &none);
}

int k8s_read_file(const char *path, char **data, size_t *len)
{
	struct stat st;
	struct k8s_buf b;
	char chunk[8192];
	int fd, saved;

	*data = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO at the path must not hang the call. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		saved = errno;
		if (fstat(fd, &st) == 0)
			saved = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		errno = saved;
		return -1;
	}
	k8s_buf_init(&b, K8S_MAX_FILE);
	if (k8s_buf_append(&b, "", 0) < 0)
		goto fail;
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof(chunk));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		if (k8s_buf_append(&b, chunk, (size_t)got) < 0) {
			errno = b.overflow ? EFBIG : ENOMEM;
			goto fail;
		}
	}
	close(fd);
	*data = b.data;
	*len = b.len;
	return 0;
fail:
	saved = errno;
	close(fd);
	k8s_buf_free(&b);
	errno = saved;
	return -1;
}

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int k8s_base64_decode(const char *in, char **out, size_t *outlen)
{
	size_t n = strlen(in), o = 0;
	unsigned acc = 0;
	int bits = 0, pad = 0;
	char *buf = malloc(n / 4 * 3 + 4);

	if (buf == NULL)
		return -1;
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		int v;

		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		v = b64_value(c);
		if (v < 0 || pad > 0)
			goto bad;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	if (pad > 2 || bits >= 6)
		goto bad;
	buf[o] = '\0';
	*out = buf;
	*outlen = o;
	return 0;
bad:
	free(buf);
	return -1;
}

const char *k8s_getenv(const char *name)
{
#ifdef HAVE_SECURE_GETENV
	/* A setuid program must not take its cluster from the caller. */
	return secure_getenv(name);
#else
	return getenv(name);
#endif
}

char *k8s_strdup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

char *k8s_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

char *k8s_path_relative(const char *base, const char *path)
{
	const char *slash;

	if (path[0] == '/' || (slash = strrchr(base, '/')) == NULL)
		return strdup(path);
	return k8s_asprintf("%.*s/%s", (int)(slash - base), base, path);
}

const char *k8s_strerror(int err, char *buf, size_t size)
{
	return strerror_r(err, buf, size); /* GNU: returns the text */
}

muster_status k8s_nomem(struct k8s_run *run)
{
	run->host->fail(run->call, "out of memory");
	return MUSTER_STATUS_UNAVAIL;
}
