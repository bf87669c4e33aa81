#include "config.h"

#include "merge.h"

#include <string.h>

#include "builder.h"
#include "error.h"

/* Copies one contribution's tasks (and their accelerators) into job `name`
 * of the builder, shifting indices by `offset`. */
static int copy_job(struct builder *b, const struct muster_result *src, const struct job *job,
                    long offset)
{
	if (!builder_job(b, job->name))
		return -1;
	for (size_t i = 0; i < job->ntasks; i++)
		if (builder_task(b, job->name, job->tasks[i].index + offset, job->tasks[i].address) < 0)
			return -1;
	size_t pos = model_job_pos(src, job);
	for (size_t i = 0; i < src->naccels; i++) {
		const struct accel *a = &src->accels[i];
		if (a->job == pos &&
		    builder_accel(b, job->name, a->index + offset, a->kind, a->count) < 0)
			return -1;
	}
	return 0;
}

static int find_conflict(const struct job *a, const struct job *b, long *index)
{
	for (size_t i = 0; i < b->ntasks; i++)
		if (model_task(a, b->tasks[i].index)) {
			*index = b->tasks[i].index;
			return 1;
		}
	return 0;
}

static int merge_job(struct builder *b, const struct muster_result *first,
                     const struct muster_result *next, const struct job *a, muster_error *err)
{
	const struct job *other = model_job(next, a->name);
	if (copy_job(b, first, a, 0) < 0)
		return error_set(err, MUSTER_ENOMEM, "merge: %s", b->reason);
	builder_job(b, a->name)->merged_as_map = a->merged_as_map;
	if (!other)
		return 0;
	int as_map = a->merged_as_map || !model_job_dense(a) || !model_job_dense(other);
	long conflict;
	if (as_map && find_conflict(a, other, &conflict))
		return error_set(err, MUSTER_ECONFLICT,
		                 "merge conflict: task %s:%ld is given by both %s ('%s') and %s ('%s')",
		                 a->name, conflict, first->source ? first->source : "?",
		                 model_task(a, conflict)->address, next->source ? next->source : "?",
		                 model_task(other, conflict)->address);
	if (copy_job(b, next, other, as_map ? 0 : (long)a->ntasks) < 0)
		return error_set(err, MUSTER_ENOMEM, "merge: %s", b->reason);
	builder_job(b, a->name)->merged_as_map = as_map;
	return 0;
}

static int merge_identity(struct builder *b, const struct muster_result *first,
                          const struct muster_result *next)
{
	const struct muster_result *self = first->task_type || first->task_index >= 0 ? first : next;
	struct muster_result *r = b->r;
	if (builder_set_task(b, self->task_type, self->task_index) < 0 ||
	    builder_set_string(b, &r->rpc_layer, first->rpc_layer ? first->rpc_layer : next->rpc_layer) < 0 ||
	    builder_set_string(b, &r->environment,
	                       first->environment ? first->environment : next->environment) < 0)
		return -1;
	if (!first->source || !next->source)
		return builder_set_string(b, &r->source, first->source ? first->source : next->source);
	size_t la = strlen(first->source), lb = strlen(next->source);
	char *s = arena_alloc(&r->arena, la + lb + 2);
	if (!s)
		return -1;
	memcpy(s, first->source, la);
	s[la] = '+';
	memcpy(s + la + 1, next->source, lb + 1);
	r->source = s;
	return 0;
}

int merge_results(struct muster_result **out, struct muster_result *first,
                  struct muster_result *next, muster_error *err)
{
	struct builder b;
	int rc = 0;
	*out = NULL;
	if (builder_init(&b) < 0) {
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < first->njobs && rc == 0; i++)
		rc = merge_job(&b, first, next, &first->jobs[i], err);
	for (size_t i = 0; i < next->njobs && rc == 0; i++)
		if (!model_job(first, next->jobs[i].name) &&
		    copy_job(&b, next, &next->jobs[i], 0) < 0)
			rc = error_set(err, MUSTER_ENOMEM, "merge: %s", b.reason);
	if (rc == 0 && merge_identity(&b, first, next) < 0)
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
	if (rc == 0) {
		struct muster_result *r = builder_finish(&b);
		if (!r) {
			rc = error_set(err, MUSTER_ECONFLICT, "merge: %s", b.reason);
			goto done;
		}
		/* The union holds the first reserved port; another one is released
		 * with its contribution. */
		struct muster_result *holder = first->held_fd >= 0 ? first : next;
		if (holder->held_fd >= 0) {
			r->held_fd = holder->held_fd;
			r->held_port = holder->held_port;
			holder->held_fd = -1;
		}
		/* Keep the first contributor alive for master() without a task. */
		r->first = first->first ? first->first : first;
		if (first->first) {
			first->first = NULL;
			muster_result_free(first);
		}
		first = NULL;
		*out = r;
	}
done:
	builder_discard(&b);
	muster_result_free(first);
	muster_result_free(next);
	return rc;
}
