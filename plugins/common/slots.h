/* Hosts and how many task slots each has, in order of first appearance,
 * shared by the scheduler backends (a PBS node file and an LSF rank file
 * list a host once per slot; MPI ranks name their host).  A hash index
 * keeps adding linear however the names repeat.  And how a scheduler
 * deals its ranks onto those slots (block, cyclic, plane, or each rank's
 * host given). */
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
/* The position of the first host named `name`; -1 when there is none,
 * -2 when memory ran out indexing the hosts. */
long slots_find(struct slots *s, const char *name);

/*
 * Ranks dealt onto the hosts of a struct slots, in rank order, as a
 * scheduler distributes tasks (Slurm's task distributions, docs/ranks.md
 * 1.3): with `plane` P > 0 the hosts take P ranks each per round, in
 * order, a host taking fewer when its tasks run out and leaving the
 * rounds then (P = 1 is cyclic); with 0 each host takes all its ranks at
 * once (block).  With `rank_host` (one host position per rank, s->total of
 * them) each rank goes where it says (Slurm's arbitrary distribution, an
 * MPI rank's own host) and `plane` is not used.  Work and memory are
 * linear in the hosts and ranks, however uneven the counts.
 */
struct slots_deal {
	const struct slots *s;
	long plane;
	const size_t *rank_host;
	long *dealt;     /* ranks dealt so far, per host (not for block) */
	size_t *active;  /* plane: the hosts still dealt to, in order */
	size_t nactive, at, kept;
	size_t next;     /* block: the next host; rank_host: the next rank */
};

/* 0, or -1 when out of memory. */
int slots_deal_init(struct slots_deal *d, const struct slots *s, long plane,
                    const size_t *rank_host);
/* The next run of consecutive ranks on one host: `count` of them on host
 * position *host, the first of them its *first-th task (its local rank).
 * 1, or 0 when every rank is dealt. */
int slots_deal_next(struct slots_deal *d, size_t *host, long *first, long *count);
void slots_deal_free(struct slots_deal *d);

/* Where `rank` is dealt: its host's position and its place on that host.
 * 0, or -1 when the rank is not below s->total or memory ran out. */
int slots_place(const struct slots *s, long plane, const size_t *rank_host, long rank,
                size_t *host, long *local);

#endif
