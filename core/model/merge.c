/*
 * The union is built in place: the first merge copies the first result
 * (which stays alive for master()), and each later one adds the next
 * result to it, so a chain of N merges costs what its results hold, not
 * N times that.  Jobs are found by the name index, the next result's
 * strings are adopted with its arena rather than copied, and task arrays
 * of new jobs are moved.  Tasks and accelerators stay sorted throughout:
 * appended when they come after what is there, merged as two sorted runs
 * otherwise.
 */
#include <config.h>

#include "merge.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/vec.h"

/* Where each job of the next result goes in the union. */
struct placement {
	size_t pos;   /* in the union's jobs; SIZE_MAX: a new job */
	long offset;  /* added to its indices (a dense concatenation) */
	int as_map;   /* united by index */
};

static int append_tasks(struct job *to, const struct job *from, long offset)
{
	size_t n = to->ntasks;
	if (!from->ntasks)
		return 0;
	if (model_job_reserve(to, n + from->ntasks) < 0)
		return -1;
	/* Dense after dense stays dense: the addresses alone are copied. */
	int dense = !to->index && !from->index && offset == (long)n;
	if (!dense && model_job_index(to) < 0)
		return -1;
	memcpy(to->address + n, from->address, from->ntasks * sizeof(*to->address));
	for (size_t i = 0; !dense && i < from->ntasks; i++)
		to->index[n + i] = model_task_index(from, i) + offset;
	to->ntasks += from->ntasks;
	return 0;
}

/* Two sorted runs with no index in common, as one. */
static int unite_tasks(struct job *to, const struct job *from)
{
	if (!to->ntasks || !from->ntasks ||
	    model_task_index(from, 0) > model_task_index(to, to->ntasks - 1))
		return append_tasks(to, from, 0);
	size_t n = to->ntasks + from->ntasks, i = 0, j = 0, k = 0;
	const char **address = malloc(n * sizeof(*address));
	long *index = malloc(n * sizeof(*index));
	if (!address || !index) {
		free(address);
		free(index);
		return -1;
	}
	for (; k < n; k++) {
		int mine = j == from->ntasks ||
		           (i < to->ntasks && model_task_index(to, i) < model_task_index(from, j));
		index[k] = mine ? model_task_index(to, i) : model_task_index(from, j);
		address[k] = mine ? to->address[i++] : from->address[j++];
	}
	free(to->address);
	free(to->index);
	to->address = address;
	to->index = index;
	to->ntasks = to->cap = n;
	/* Two halves of one dense job (0,2 and 1) are dense together. */
	model_job_settle(to);
	return 0;
}

/* The smallest index of `b` that `a` has too. */
static int find_conflict(const struct job *a, const struct job *b, long *index)
{
	for (size_t i = 0; i < b->ntasks; i++)
		if (model_address(a, model_task_index(b, i))) {
			*index = model_task_index(b, i);
			return 1;
		}
	return 0;
}

/* The union's "a+b+c", grown in place rather than copied per merge. */
static int join_source(struct muster_result *u, const char *add)
{
	if (!add)
		return 0;
	size_t n = strlen(add), sep = u->source ? 1 : 0;
	if (vec_reserve(&u->union_source, &u->union_source_cap,
	                  u->union_source_len + sep + n + 1, 1) < 0)
		return -1;
	char *end = u->union_source + u->union_source_len;
	if (sep)
		*end++ = '+';
	memcpy(end, add, n + 1);
	u->union_source_len += sep + n;
	u->source = u->union_source;
	return 0;
}

/* A union holding a copy of `first`, which it keeps (and frees) as its
 * first contributor; NULL when out of memory, `first` freed then too. */
static struct muster_result *start_union(struct muster_result *first)
{
	struct muster_result *u = model_new();
	if (!u) {
		muster_result_free(first);
		return NULL;
	}
	u->first = first;
	for (size_t i = 0; i < first->njobs; i++) {
		const struct job *from = &first->jobs[i];
		struct job *job = model_add_job(u, from->name);
		if (!job || append_tasks(job, from, 0) < 0)
			goto fail;
		job->merged_as_map = from->merged_as_map;
	}
	if (first->naccels) {
		if (!(u->accels = malloc(first->naccels * sizeof(*u->accels))))
			goto fail;
		memcpy(u->accels, first->accels, first->naccels * sizeof(*u->accels));
		u->naccels = u->accels_cap = first->naccels;
	}
	for (size_t i = 0; i < first->npending; i++)
		if (model_pending_push(u, &first->pending[i]) < 0)
			goto fail;
	u->pending_dropped = first->pending_dropped;
	u->task_type = first->task_type;
	u->task_index = first->task_index;
	u->rpc_layer = first->rpc_layer;
	u->environment = first->environment;
	/* How the launch numbers processes is the first contributor's alone:
	 * a later one's order or job id would not describe the union. */
	u->placement = first->placement;
	u->node_order = first->node_order;
	u->nnode_order = first->nnode_order;
	u->job_id = first->job_id;
	if (join_source(u, first->source) < 0)
		goto fail;
	u->held_fd = first->held_fd;
	u->held_port = first->held_port;
	first->held_fd = -1;
	return u;
fail:
	muster_result_free(u);
	return NULL;
}

/* TF's rule per job of `next`: concatenate when both sides are dense and
 * the job never was a map, else unite by index.  Nothing is changed yet,
 * so a conflict leaves the union as it was. */
static int place_jobs(const struct muster_result *u, const struct muster_result *next,
                      struct placement *place, muster_error *err)
{
	size_t conflict_pos = SIZE_MAX, conflict_job = 0;
	long conflict = 0;
	for (size_t i = 0; i < next->njobs; i++) {
		const struct job *b = &next->jobs[i];
		const struct job *a = model_job(u, b->name);
		place[i].pos = a ? model_job_pos(u, a) : SIZE_MAX;
		place[i].as_map = a && (a->merged_as_map || !model_job_dense(a) || !model_job_dense(b));
		place[i].offset = a && !place[i].as_map ? (long)a->ntasks : 0;
		/* The union's first job in conflict, as a pairwise merge finds it. */
		long index;
		if (place[i].as_map && place[i].pos < conflict_pos && find_conflict(a, b, &index)) {
			conflict_pos = place[i].pos;
			conflict_job = i;
			conflict = index;
		}
	}
	if (conflict_pos == SIZE_MAX)
		return 0;
	const struct job *a = &u->jobs[conflict_pos], *b = &next->jobs[conflict_job];
	return error_set(err, MUSTER_ECONFLICT,
	                 "merge conflict: task %s:%ld is given by both %s ('%s') and %s ('%s')",
	                 a->name, conflict, u->source ? u->source : "?",
	                 model_address(a, conflict), next->source ? next->source : "?",
	                 model_address(b, conflict));
}

static int add_jobs(struct muster_result *u, struct muster_result *next, struct placement *place)
{
	for (size_t i = 0; i < next->njobs; i++) {
		struct job *b = &next->jobs[i];
		if (place[i].pos == SIZE_MAX) {
			struct job *job = model_add_job(u, b->name);
			if (!job)
				return -1;
			place[i].pos = model_job_pos(u, job);
			/* Moved, not copied: `next` is freed after the merge. */
			job->address = b->address;
			job->index = b->index;
			job->ntasks = b->ntasks;
			job->cap = b->cap;
			job->merged_as_map = b->merged_as_map;
			b->address = NULL;
			b->index = NULL;
			b->ntasks = b->cap = 0;
			continue;
		}
		struct job *a = &u->jobs[place[i].pos];
		if ((place[i].as_map ? unite_tasks(a, b) : append_tasks(a, b, place[i].offset)) < 0)
			return -1;
		a->merged_as_map = place[i].as_map;
	}
	return 0;
}

static int accel_sorted(const struct accel *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (model_accel_cmp(&a[i - 1], &a[i]) > 0)
			return 0;
	return 1;
}

/* The next result's accelerators, moved to their tasks' new places. */
static int add_accels(struct muster_result *u, const struct muster_result *next,
                      const struct placement *place)
{
	size_t n = next->naccels;
	if (!n)
		return 0;
	struct accel *moved = malloc(n * sizeof(*moved));
	if (!moved)
		return -1;
	for (size_t i = 0; i < n; i++) {
		moved[i] = next->accels[i];
		moved[i].job = (uint32_t)place[moved[i].job].pos;
		moved[i].index += place[next->accels[i].job].offset;
	}
	if (!accel_sorted(moved, n))
		qsort(moved, n, sizeof(*moved), model_accel_cmp);
	/* Tasks are never shared, so neither are accelerator keys. */
	size_t m = u->naccels, total = m + n;
	if (!m || model_accel_cmp(&u->accels[m - 1], &moved[0]) < 0) {
		int rc = vec_reserve(&u->accels, &u->accels_cap, total, sizeof(*u->accels));
		if (rc == 0) {
			memcpy(u->accels + m, moved, n * sizeof(*moved));
			u->naccels = total;
		}
		free(moved);
		return rc;
	}
	struct accel *all = malloc(total * sizeof(*all));
	if (!all) {
		free(moved);
		return -1;
	}
	for (size_t i = 0, j = 0, k = 0; k < total; k++)
		all[k] = j == n || (i < m && model_accel_cmp(&u->accels[i], &moved[j]) < 0)
		                 ? u->accels[i++]
		                 : moved[j++];
	free(moved);
	free(u->accels);
	u->accels = all;
	u->naccels = u->accels_cap = total;
	return 0;
}

/* The next result's pending members, their indices moved as their job's
 * tasks were (a member of a job the next result has no task of keeps its
 * index). */
static int add_pending(struct muster_result *u, const struct muster_result *next,
                       const struct placement *place)
{
	for (size_t i = 0; i < next->npending; i++) {
		struct pending p = next->pending[i];
		const struct job *job = p.index >= 0 ? model_job(next, p.job) : NULL;
		if (job)
			p.index += place[model_job_pos(next, job)].offset;
		if (model_pending_push(u, &p) < 0)
			return -1;
	}
	u->pending_dropped += next->pending_dropped;
	return 0;
}

/* Adds `next` to the union `u`; `next` stays the caller's to free. */
static int add_result(struct muster_result *u, struct muster_result *next, muster_error *err)
{
	struct placement *place = malloc((next->njobs ? next->njobs : 1) * sizeof(*place));
	if (!place)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	int rc = place_jobs(u, next, place, err);
	if (rc < 0)
		goto done;
	arena_adopt(&u->arena, &next->arena);
	if (add_jobs(u, next, place) < 0 || add_accels(u, next, place) < 0 ||
	    add_pending(u, next, place) < 0 || join_source(u, next->source) < 0) {
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
		goto done;
	}
	if (!u->task_type && u->task_index < 0) {
		u->task_type = next->task_type;
		u->task_index = next->task_index;
	}
	if (!u->rpc_layer)
		u->rpc_layer = next->rpc_layer;
	if (!u->environment)
		u->environment = next->environment;
	if (u->held_fd < 0) {
		u->held_fd = next->held_fd;
		u->held_port = next->held_port;
		next->held_fd = -1;
	}
done:
	free(place);
	return rc;
}

int merge_results(struct muster_result **out, struct muster_result *first,
                  struct muster_result *next, muster_error *err)
{
	*out = NULL;
	/* A result with a first contributor is a union an earlier merge made. */
	struct muster_result *u = first->first ? first : start_union(first);
	if (!u) {
		muster_result_free(next);
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	}
	int rc = add_result(u, next, err);
	muster_result_free(next);
	if (rc < 0) {
		muster_result_free(u);
		return rc;
	}
	*out = u;
	return 0;
}
