#include <config.h>

#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	max_align_t data[];
};

/* Small first: a chain of many small results keeps every one's arena. */
enum { ARENA_FIRST_CHUNK = 512, ARENA_MAX_CHUNK = 1 << 20 };

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->chunk_size = ARENA_FIRST_CHUNK;
}

void arena_release(struct arena *a)
{
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
}

static void *arena_alloc_aligned(struct arena *a, size_t size, size_t align)
{
	struct arena_chunk *c = a->head;
	/* align is a power of two: a mask, not a division per allocation. */
	size_t pad = c ? (align - (c->used & (align - 1))) & (align - 1) : 0;

	if (size > SIZE_MAX / 2)
		return NULL;
	size_t need = size;
	if (!c || c->size - c->used < need + pad) {
		pad = 0;
		/* Chunks double up to 1 MiB so small results stay small. */
		size_t sz = a->chunk_size;
		if (sz < ARENA_MAX_CHUNK)
			a->chunk_size = sz * 2;
		if (sz < need)
			sz = need;
		c = malloc(sizeof(*c) + sz);
		if (!c)
			return NULL;
		c->size = sz;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	c->used += pad;
	void *p = (char *)c->data + c->used;
	c->used += need;
	return p;
}

void *arena_alloc(struct arena *a, size_t size)
{
	return arena_alloc_aligned(a, size, _Alignof(max_align_t));
}

char *arena_alloc_text(struct arena *a, size_t size)
{
	return arena_alloc_aligned(a, size, 1);
}

/* The latest allocation is always at the end of the newest chunk. */
void arena_give_back(struct arena *a, size_t n)
{
	a->head->used -= n;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	struct arena_chunk *c = a->head;
	char *p;
	/* Room in the current chunk, the usual case, without the general path. */
	if (c && c->size - c->used > n) {
		p = (char *)c->data + c->used;
		c->used += n + 1;
	} else {
		p = arena_alloc_aligned(a, n + 1, 1);
	}
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void arena_adopt(struct arena *to, struct arena *from)
{
	if (!from->head)
		return;
	/* Behind `to`'s current chunk, which keeps taking new allocations. */
	struct arena_chunk *last = from->head;
	while (last->next)
		last = last->next;
	if (to->head) {
		last->next = to->head->next;
		to->head->next = from->head;
	} else {
		to->head = from->head;
	}
	from->head = NULL;
}

size_t arena_footprint(const struct arena *a)
{
	size_t total = 0;
	for (const struct arena_chunk *c = a->head; c; c = c->next)
		total += sizeof(*c) + c->size;
	return total;
}
