/* A bump allocator: a result's strings and arrays live in a few large
 * chunks and are freed together, which keeps 10,000-task results cheap. */
#ifndef MUSTER_ARENA_H
#define MUSTER_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	size_t chunk_size;
};

void arena_init(struct arena *a);
void arena_release(struct arena *a);
void *arena_alloc(struct arena *a, size_t size);
/* Strings are packed byte by byte: no alignment padding per string. */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Room for at most `size` bytes of text (no alignment), of which the
 * caller returns what it did not use with arena_give_back(). */
char *arena_alloc_text(struct arena *a, size_t size);
/* Returns the last `n` bytes of the latest allocation. */
void arena_give_back(struct arena *a, size_t n);
/* Moves every chunk of `from` into `to`: what was allocated in `from` now
 * lives as long as `to`.  `from` is left empty. */
void arena_adopt(struct arena *to, struct arena *from);
/* Total bytes reserved, for the memory benchmark. */
size_t arena_footprint(const struct arena *a);

#endif
