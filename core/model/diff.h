/* What changed between two results, task by task: the payload of a watch's
 * change. */
#ifndef MUSTER_DIFF_H
#define MUSTER_DIFF_H

#include <stddef.h>

#include <muster/muster.h>

#include "arena.h"

#define CHANGE_KINDS 4 /* enum muster_change_kind */

struct change_item {
	const char *job;
	long index;
	const char *address;
};

struct muster_change {
	muster_result *result;
	struct arena strings;  /* removed tasks' names, copied out of the old result */
	struct change_item *items[CHANGE_KINDS];
	size_t n[CHANGE_KINDS], cap[CHANGE_KINDS];
};

/* The change from `old` (NULL: an empty cluster) to `now`, with no result
 * yet: the caller gives it one (or frees it as it is).  NULL when out of
 * memory.  It may point into `now`, never into `old`. */
struct muster_change *diff_results(const muster_result *old, const muster_result *now);
/* Nothing a reader of the result could see differs: no task moved, and
 * identity, rpc layer, environment and master are the same. */
int diff_is_empty(const struct muster_change *c, const muster_result *old,
                  const muster_result *now);

#endif
