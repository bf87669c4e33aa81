/* Building a result: what the host's builder services call.  Each call
 * copies its strings; a failure leaves a reason in the builder. */
#ifndef MUSTER_BUILDER_H
#define MUSTER_BUILDER_H

#include <string.h>

#include "model.h"

struct builder {
	struct muster_result *r;
	struct job *last_job;  /* most adds go to the job added to last */
	const char *kinds[16]; /* accelerator kinds copied so far, shared */
	size_t nkinds;
	char reason[512];      /* why the last call failed */
};

int builder_init(struct builder *b);
/* Hands over the result, sorted and checked; NULL with a reason. */
struct muster_result *builder_finish(struct builder *b);
void builder_discard(struct builder *b);

struct job *builder_job(struct builder *b, const char *name);
/* `len` is strlen(address), which the host knows from its check. */
int builder_task_n(struct builder *b, const char *job, long index, const char *address,
                   size_t len);
/* Room for `count` more tasks of `job` (a plugin's hint), at most
 * BUILDER_RESERVE_MAX: a count from untrusted input allocates nothing huge. */
#define BUILDER_RESERVE_MAX (1L << 20)
int builder_reserve(struct builder *b, const char *job, long count);
/* `count` tasks from index `first` whose addresses are `first_address`
 * ("HOST:PORT") with the port counted up; the caller has checked them. */
int builder_task_range(struct builder *b, const char *job, long first, long count,
                       const char *first_address);
static inline int builder_task(struct builder *b, const char *job, long index,
                               const char *address)
{
	return builder_task_n(b, job, index, address, address ? strlen(address) : 0);
}
int builder_accel(struct builder *b, const char *job, long index, const char *kind, long count);
/* `n` accelerators of `kind` with their device ids: counted as
 * builder_accel() counts them, and the ids kept. */
int builder_accel_ids(struct builder *b, const char *job, long index, const char *kind,
                      const int *ids, size_t n);
int builder_set_task(struct builder *b, const char *type, long index);
/* The scheduler's host order: copies of `n` hosts, replacing any before. */
int builder_set_node_order(struct builder *b, const char *const *hosts, size_t n);
/* A member known but not ready (pending.c): copies of its strings, the
 * name and reason cut at PENDING_TEXT_MAX and made printable ASCII.
 * Past PENDING_MAX it is only counted, and -1 (no reason: the answer
 * stands). */
int builder_pending(struct builder *b, const char *job, long index, const char *name,
                    const char *why);
/* Replaces *field with a copy of value (NULL clears it). */
int builder_set_string(struct builder *b, const char **field, const char *value);

#endif
