/* Names to positions in O(1): a hash table keyed by SipHash with a random
 * per-process key, so that no crafted set of job names (a TF_CONFIG, a
 * pod list) can make lookups linear again. */
#ifndef MUSTER_NAMEINDEX_H
#define MUSTER_NAMEINDEX_H

#include <stddef.h>
#include <stdint.h>

struct name_slot {
	const char *name; /* NULL: empty; the caller keeps the string alive */
	uint32_t pos;
	uint32_t hash;    /* low bits of the name's hash, to skip most strcmp */
};

struct name_index {
	struct name_slot *slots;
	size_t cap;       /* 0 or a power of two */
	size_t count;
};

/* Adds a name that is not in the index yet; -1 when out of memory. */
int name_index_put(struct name_index *ix, const char *name, uint32_t pos);
/* 1 and *pos when the name is there, else 0. */
int name_index_get(const struct name_index *ix, const char *name, uint32_t *pos);
void name_index_release(struct name_index *ix);

/* The same with the name's hash computed once, for a caller that looks a
 * name up and adds it when absent. */
uint32_t name_index_hash(const char *name, size_t len);
int name_index_get_hashed(const struct name_index *ix, const char *name, uint32_t hash,
                          uint32_t *pos);
int name_index_put_hashed(struct name_index *ix, const char *name, uint32_t hash, uint32_t pos);

#endif
