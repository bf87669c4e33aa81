/* The chain's `merge` action: TensorFlow's UnionClusterResolver rule. */
#ifndef MUSTER_MERGE_H
#define MUSTER_MERGE_H

#include "model.h"

/*
 * Unites `first` and `next` into *out, consuming both (also on failure);
 * when `first` is a union an earlier call returned, `next` is added to it
 * in place, so a chain of merges costs O(total size).
 * Jobs of different names coexist, in first-seen order.  A job in both is
 * concatenated and re-indexed when every contribution so far was dense,
 * and united by index when any was sparse (or empty), where a shared
 * index is a conflict (MUSTER_ECONFLICT).  Self task, rpc layer and
 * environment come from the first result that has them; accelerators
 * follow their tasks.  master() without a task is answered by the first
 * contributor, as TF's union delegates to its first resolver; so are the
 * placement, node order and job id (the first contributor's, kept alive
 * as u->first).
 */
int merge_results(struct muster_result **out, struct muster_result *first,
                  struct muster_result *next, muster_error *err);

#endif
