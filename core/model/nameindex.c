#include <config.h>

#include "nameindex.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

static uint64_t sip_key[2];
static pthread_once_t sip_once = PTHREAD_ONCE_INIT;

/* Without the kernel's randomness (a seccomp sandbox), the clock and the
 * address space layout still make the key unpredictable enough. */
static void sip_seed(void)
{
	if (getrandom(sip_key, sizeof(sip_key), GRND_NONBLOCK) == (ssize_t)sizeof(sip_key))
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sip_key[0] = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)(uintptr_t)&ts;
	sip_key[1] = (uint64_t)(uintptr_t)&sip_key ^ 0x736f6d6570736575ULL;
}

static uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIP_ROUND(v0, v1, v2, v3)                                                      \
	do {                                                                           \
		v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);              \
		v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;                                 \
		v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;                                 \
		v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);              \
	} while (0)

/* SipHash-1-3 (the variant Rust's and Python's hash tables use). */
static uint64_t siphash(const char *s, size_t len)
{
	uint64_t v0 = 0x736f6d6570736575ULL ^ sip_key[0], v1 = 0x646f72616e646f6dULL ^ sip_key[1];
	uint64_t v2 = 0x6c7967656e657261ULL ^ sip_key[0], v3 = 0x7465646279746573ULL ^ sip_key[1];
	const unsigned char *p = (const unsigned char *)s;
	size_t whole = len & ~(size_t)7;
	uint64_t m;

	for (size_t i = 0; i < whole; i += 8) {
		m = 0;
		for (int b = 7; b >= 0; b--)
			m = (m << 8) | p[i + (size_t)b];
		v3 ^= m;
		SIP_ROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	m = (uint64_t)len << 56;
	for (size_t b = 0; b < (len & 7); b++)
		m |= (uint64_t)p[whole + b] << (8 * b);
	v3 ^= m;
	SIP_ROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

uint32_t name_index_hash(const char *name, size_t len)
{
	pthread_once(&sip_once, sip_seed);
	return (uint32_t)siphash(name, len);
}

static uint32_t name_hash(const char *name)
{
	return name_index_hash(name, strlen(name));
}

/* Linear probing from the hash's home slot: the slot of `name`, or the
 * empty one where it would go. */
static struct name_slot *probe(const struct name_index *ix, const char *name, uint32_t hash)
{
	size_t mask = ix->cap - 1;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct name_slot *s = &ix->slots[i];
		if (!s->name || (s->hash == hash && strcmp(s->name, name) == 0))
			return s;
	}
}

/* Keeps the table at most three quarters full. */
static int grow(struct name_index *ix)
{
	if (ix->count + 1 <= ix->cap / 4 * 3)
		return 0;
	size_t ncap = ix->cap ? ix->cap * 2 : 16;
	struct name_index bigger = {calloc(ncap, sizeof(struct name_slot)), ncap, ix->count};
	if (!bigger.slots)
		return -1;
	for (size_t i = 0; i < ix->cap; i++)
		if (ix->slots[i].name)
			*probe(&bigger, ix->slots[i].name, ix->slots[i].hash) = ix->slots[i];
	free(ix->slots);
	*ix = bigger;
	return 0;
}

int name_index_put(struct name_index *ix, const char *name, uint32_t pos)
{
	return name_index_put_hashed(ix, name, name_hash(name), pos);
}

int name_index_put_hashed(struct name_index *ix, const char *name, uint32_t hash, uint32_t pos)
{
	if (grow(ix) < 0)
		return -1;
	struct name_slot *s = probe(ix, name, hash);
	s->name = name;
	s->pos = pos;
	s->hash = hash;
	ix->count++;
	return 0;
}

int name_index_get(const struct name_index *ix, const char *name, uint32_t *pos)
{
	return ix->count && name_index_get_hashed(ix, name, name_hash(name), pos);
}

int name_index_get_hashed(const struct name_index *ix, const char *name, uint32_t hash,
                          uint32_t *pos)
{
	if (!ix->count)
		return 0;
	const struct name_slot *s = probe(ix, name, hash);
	if (!s->name)
		return 0;
	*pos = s->pos;
	return 1;
}

void name_index_release(struct name_index *ix)
{
	free(ix->slots);
	ix->slots = NULL;
	ix->cap = ix->count = 0;
}
