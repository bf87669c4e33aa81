#include "config.h"

#include "slots.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void slots_init(struct slots *s)
{
	memset(s, 0, sizeof(*s));
}

void slots_free(struct slots *s)
{
	free(s->hosts);
	free(s->index);
	slots_init(s);
}

static size_t name_hash(const char *name)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *name != '\0'; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ULL;
	return (size_t)h;
}

static void index_put(struct slots *s, size_t pos)
{
	size_t mask = s->index_size - 1;
	size_t i = name_hash(s->hosts[pos].name) & mask;

	while (s->index[i] != 0)
		i = (i + 1) & mask;
	s->index[i] = pos + 1;
}

/* Room for `cap` hosts, the index rebuilt at twice that. */
static int grow_to(struct slots *s, size_t cap)
{
	struct slot_host *hosts;
	size_t *index;

	if (cap > SIZE_MAX / (2 * sizeof(*index)))
		return -1;
	hosts = realloc(s->hosts, cap * sizeof(*hosts));
	if (hosts == NULL)
		return -1;
	s->hosts = hosts;
	index = calloc(cap * 2, sizeof(*index));
	if (index == NULL)
		return -1;
	free(s->index);
	s->index = index;
	s->index_size = cap * 2;
	s->cap = cap;
	for (size_t i = 0; i < s->nhosts; i++)
		index_put(s, i);
	return 0;
}

int slots_adopt(struct slots *s, struct slot_host *hosts, size_t n, long max_total)
{
	long total = 0;

	for (size_t i = 0; i < n; i++) {
		if (hosts[i].tasks < 0 || hosts[i].tasks > max_total - total)
			return -1;
		total += hosts[i].tasks;
	}
	slots_free(s);
	s->hosts = hosts;
	s->nhosts = s->cap = n;
	s->total = total;
	return 0;
}

long slots_add(struct slots *s, const char *name, long tasks, long max_total)
{
	size_t i, mask;

	if (tasks < 0 || tasks > max_total - s->total)
		return -1;
	/* Adopted hosts are indexed when the first lookup needs them. */
	if (s->index_size == 0 && s->nhosts > 0 && grow_to(s, s->cap) != 0)
		return -1;
	if (s->index_size != 0) {
		mask = s->index_size - 1;
		for (i = name_hash(name) & mask; s->index[i] != 0; i = (i + 1) & mask) {
			struct slot_host *h = &s->hosts[s->index[i] - 1];
			if (strcmp(h->name, name) == 0) {
				h->tasks += tasks;
				s->total += tasks;
				return (long)(s->index[i] - 1);
			}
		}
	}
	if (s->nhosts == s->cap && grow_to(s, s->cap ? s->cap * 2 : 16) != 0)
		return -1;
	s->hosts[s->nhosts].name = name;
	s->hosts[s->nhosts].tasks = tasks;
	index_put(s, s->nhosts);
	s->total += tasks;
	return (long)s->nhosts++;
}
