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

char *k8s_strdup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

char *k8s_path_relative(const char *base, const char *path)
{
	const char *slash;

	if (path[0] == '/' || (slash = strrchr(base, '/')) == NULL)
		return strdup(path);
	return plugin_asprintf("%.*s/%s", (int)(slash - base), base, path);
}

muster_status k8s_nomem(struct k8s_run *run)
{
	run->host->fail(run->call, "out of memory");
	return MUSTER_STATUS_UNAVAIL;
}
