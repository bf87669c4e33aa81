/* Hosts and how many task slots each has, in order of first appearance,
 * shared by the scheduler backends (a PBS node file and an LSF rank file
 * list a host once per slot; MPI ranks name their host).  A hash index
 * keeps adding linear however the names repeat. */
#ifndef MUSTER_PLUGIN_COMMON_SLOTS_H
#define MUSTER_PLUGIN_COMMON_SLOTS_H

#include <stddef.h>

struct slot_host {
	const char *name; /* the caller's storage, which must outlive the slots */
	long tasks;
};

struct slots {
	struct slot_host *hosts;
	size_t nhosts, cap;
	long total;        /* the sum of the tasks */
	size_t *index;     /* open addressing: host position + 1, 0 empty */
	size_t index_size; /* a power of two, at least twice nhosts */
};

void slots_init(struct slots *s);
void slots_free(struct slots *s);
/* `s` becomes the `n` hosts of `hosts` (malloc()ed; the slots own it from
 * then on), which the caller knows to be distinct: nothing is hashed until
 * a later slots_add() looks a name up.  0, or -1 (`hosts` still the
 * caller's) past `max_total` slots in all. */
int slots_adopt(struct slots *s, struct slot_host *hosts, size_t n, long max_total);
/* Adds `tasks` slots to `name` (a new host at the end, else the one seen
 * before).  The host's position, or -1 when out of memory or past
 * `max_total` slots in all. */
long slots_add(struct slots *s, const char *name, long tasks, long max_total);

#endif
