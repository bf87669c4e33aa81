#include <config.h>

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

/* The position of `name`, the first host of that name added, or -1;
 * adopted hosts are indexed when the first lookup needs them.  -2 when
 * out of memory. */
static long lookup(struct slots *s, const char *name)
{
	size_t i, mask, cap = 16;

	/* The index's size must be a power of two, whatever was adopted. */
	while (cap < s->nhosts)
		cap *= 2;
	if (s->index_size == 0 && s->nhosts > 0 && grow_to(s, cap) != 0)
		return -2;
	if (s->index_size == 0)
		return -1;
	mask = s->index_size - 1;
	for (i = name_hash(name) & mask; s->index[i] != 0; i = (i + 1) & mask)
		if (strcmp(s->hosts[s->index[i] - 1].name, name) == 0)
			return (long)(s->index[i] - 1);
	return -1;
}

long slots_find(struct slots *s, const char *name)
{
	return lookup(s, name);
}

long slots_add(struct slots *s, const char *name, long tasks, long max_total)
{
	long at;

	if (tasks < 0 || tasks > max_total - s->total)
		return -1;
	at = lookup(s, name);
	if (at == -2)
		return -1;
	if (at >= 0) {
		s->hosts[at].tasks += tasks;
		s->total += tasks;
		return at;
	}
	if (s->nhosts == s->cap && grow_to(s, s->cap ? s->cap * 2 : 16) != 0)
		return -1;
	s->hosts[s->nhosts].name = name;
	s->hosts[s->nhosts].tasks = tasks;
	index_put(s, s->nhosts);
	s->total += tasks;
	return (long)s->nhosts++;
}

int slots_deal_init(struct slots_deal *d, const struct slots *s, long plane,
                    const size_t *rank_host)
{
	memset(d, 0, sizeof(*d));
	d->s = s;
	d->plane = rank_host != NULL ? 0 : plane;
	d->rank_host = rank_host;
	if (d->plane == 0 && rank_host == NULL)
		return 0; /* block needs no state: the 4,096-node resolve pays nothing */
	d->dealt = calloc(s->nhosts ? s->nhosts : 1, sizeof(*d->dealt));
	if (d->dealt == NULL)
		return -1;
	if (rank_host != NULL)
		return 0;
	d->active = malloc((s->nhosts ? s->nhosts : 1) * sizeof(*d->active));
	if (d->active == NULL) {
		slots_deal_free(d);
		return -1;
	}
	for (size_t i = 0; i < s->nhosts; i++)
		if (s->hosts[i].tasks > 0)
			d->active[d->nactive++] = i;
	return 0;
}

/* A round of the plane deal: each host still active takes up to `plane`
 * ranks; those with ranks left are kept, in order, for the next round. */
static int deal_plane(struct slots_deal *d, size_t *host, long *first, long *count)
{
	size_t h;
	long left;

	if (d->at == d->nactive) {
		d->nactive = d->kept;
		d->at = d->kept = 0;
		if (d->nactive == 0)
			return 0;
	}
	h = d->active[d->at++];
	left = d->s->hosts[h].tasks - d->dealt[h];
	*host = h;
	*first = d->dealt[h];
	*count = left < d->plane ? left : d->plane;
	d->dealt[h] += *count;
	/* kept < at: the slot written was read already. */
	if (d->dealt[h] < d->s->hosts[h].tasks)
		d->active[d->kept++] = h;
	return 1;
}

int slots_deal_next(struct slots_deal *d, size_t *host, long *first, long *count)
{
	const struct slots *s = d->s;

	if (d->rank_host != NULL) {
		size_t r = d->next, h;

		if (r >= (size_t)s->total)
			return 0;
		h = d->rank_host[r];
		while (r < (size_t)s->total && d->rank_host[r] == h)
			r++;
		*host = h;
		*first = d->dealt[h];
		*count = (long)(r - d->next);
		d->dealt[h] += *count;
		d->next = r;
		return 1;
	}
	if (d->plane > 0)
		return deal_plane(d, host, first, count);
	while (d->next < s->nhosts && s->hosts[d->next].tasks == 0)
		d->next++;
	if (d->next == s->nhosts)
		return 0;
	*host = d->next;
	*first = 0;
	*count = s->hosts[d->next++].tasks;
	return 1;
}

void slots_deal_free(struct slots_deal *d)
{
	free(d->dealt);
	free(d->active);
	d->dealt = NULL;
	d->active = NULL;
}

int slots_place(const struct slots *s, long plane, const size_t *rank_host, long rank,
                size_t *host, long *local)
{
	struct slots_deal d;
	long pos = 0, first, count;
	int rc = -1;

	if (rank < 0 || rank >= s->total || slots_deal_init(&d, s, plane, rank_host) != 0)
		return -1;
	while (slots_deal_next(&d, host, &first, &count) == 1) {
		if (rank < pos + count) {
			*local = first + (rank - pos);
			rc = 0;
			break;
		}
		pos += count;
	}
	slots_deal_free(&d);
	return rc;
}
