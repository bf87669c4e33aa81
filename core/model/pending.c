/* Members a backend knows of but that are not ready (plugin ABI 1.8,
 * add_pending): kept beside the tasks, never among them, so that nothing
 * that reads the cluster sees them; `muster status` shows them. */
#include <config.h>

#include "builder.h"
#include "model.h"

#include <string.h>

#include "lib/vec.h"

int model_pending_push(struct muster_result *r, const struct pending *p)
{
	if (r->npending >= PENDING_MAX) {
		r->pending_dropped++;
		return 0;
	}
	if (vec_reserve(&r->pending, &r->pending_cap, r->npending + 1, sizeof(*r->pending)) < 0)
		return -1;
	r->pending[r->npending++] = *p;
	return 0;
}

/* A copy of at most PENDING_TEXT_MAX bytes of `s` in the arena, bytes
 * outside printable ASCII as '?': a backend's text reaches terminals and
 * JSON.  NULL for NULL, or when out of memory (*nomem set). */
static const char *printable_copy(struct arena *a, const char *s, int *nomem)
{
	if (!s)
		return NULL;
	char *copy = arena_strndup(a, s, strnlen(s, PENDING_TEXT_MAX));
	if (!copy) {
		*nomem = 1;
		return NULL;
	}
	for (char *c = copy; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	return copy;
}

int builder_pending(struct builder *b, const char *job, long index, const char *name,
                    const char *why)
{
	struct muster_result *r = b->r;
	int nomem = 0;
	if (!job || !*job)
		return -1;
	if (r->npending >= PENDING_MAX) {
		r->pending_dropped++;
		return -1;
	}
	struct pending p = { arena_strdup(&r->arena, job), printable_copy(&r->arena, name, &nomem),
	                     printable_copy(&r->arena, why, &nomem), index < 0 ? -1 : index };
	if (!p.job || nomem || model_pending_push(r, &p) < 0)
		return -1;
	return 0;
}

MUSTER_API size_t muster_result_pending_count(const muster_result *r)
{
	return r ? r->npending : 0;
}

MUSTER_API size_t muster_result_pending_dropped(const muster_result *r)
{
	return r ? r->pending_dropped : 0;
}

MUSTER_API int muster_result_pending_at(const muster_result *r, size_t i, const char **job,
                                        long *index, const char **name, const char **why)
{
	if (!r)
		return MUSTER_EINVAL;
	if (i >= r->npending)
		return MUSTER_ENOENT;
	const struct pending *p = &r->pending[i];
	if (job)
		*job = p->job;
	if (index)
		*index = p->index;
	if (name)
		*name = p->name;
	if (why)
		*why = p->why;
	return 0;
}
