#include <config.h>

#include "model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"

struct muster_result *model_new(void)
{
	struct muster_result *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	arena_init(&r->arena);
	r->task_index = -1;
	r->held_fd = -1;
	r->held_port = -1;
	r->refs = 1;
	return r;
}

struct muster_result *model_ref(struct muster_result *r)
{
	__atomic_add_fetch(&r->refs, 1, __ATOMIC_RELAXED);
	return r;
}

MUSTER_API void muster_result_free(struct muster_result *r)
{
	if (!r || __atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	muster_result_release_port(r);
	muster_result_free(r->first);
	for (size_t i = 0; i < r->njobs; i++) {
		free(r->jobs[i].address);
		free(r->jobs[i].index);
	}
	free(r->jobs);
	name_index_release(&r->job_index);
	free(r->accels);
	free(r->pending);
	free(r->union_source);
	arena_release(&r->arena);
	free(r);
}

struct job *model_add_job(struct muster_result *r, const char *name)
{
	if (r->njobs >= UINT32_MAX ||
	    vec_reserve(&r->jobs, &r->jobs_cap, r->njobs + 1, sizeof(*r->jobs)) < 0 ||
	    name_index_put(&r->job_index, name, (uint32_t)r->njobs) < 0)
		return NULL;
	struct job *job = &r->jobs[r->njobs++];
	memset(job, 0, sizeof(*job));
	job->name = name;
	job->highest = -1;
	job->in_order = 1;
	return job;
}

struct job *model_job(const struct muster_result *r, const char *name)
{
	uint32_t pos;
	return name_index_get(&r->job_index, name, &pos) ? &r->jobs[pos] : NULL;
}

size_t model_job_pos(const struct muster_result *r, const struct job *job)
{
	return (size_t)(job - r->jobs);
}

size_t model_task_pos(const struct job *job, long index)
{
	if (!job->index)
		return index >= 0 && (size_t)index < job->ntasks ? (size_t)index : SIZE_MAX;
	size_t lo = 0, hi = job->ntasks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (job->index[mid] < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < job->ntasks && job->index[lo] == index ? lo : SIZE_MAX;
}

const char *model_address(const struct job *job, long index)
{
	size_t pos = model_task_pos(job, index);
	return pos == SIZE_MAX ? NULL : job->address[pos];
}

int model_job_reserve(struct job *job, size_t need)
{
	size_t cap = job->cap;
	if (vec_reserve(&job->address, &cap, need, sizeof(*job->address)) < 0)
		return -1;
	/* The index array follows; until it has grown, cap stays the smaller. */
	if (job->index && cap != job->cap) {
		long *index = realloc(job->index, cap * sizeof(*index));
		if (!index)
			return -1;
		job->index = index;
	}
	job->cap = cap;
	return 0;
}

int model_job_index(struct job *job)
{
	if (job->index)
		return 0;
	long *index = malloc((job->cap ? job->cap : 1) * sizeof(*index));
	if (!index)
		return -1;
	for (size_t i = 0; i < job->ntasks; i++)
		index[i] = (long)i;
	job->index = index;
	return 0;
}

int model_job_add(struct job *job, long index, const char *address)
{
	if (job->ntasks == job->cap && model_job_reserve(job, job->ntasks + 1) < 0)
		return -1;
	if (!job->index && index != (long)job->ntasks && model_job_index(job) < 0)
		return -1;
	if (job->index)
		job->index[job->ntasks] = index;
	job->address[job->ntasks++] = address;
	return 0;
}

void model_job_settle(struct job *job)
{
	if (job->index && model_job_dense(job)) {
		free(job->index);
		job->index = NULL;
	}
}

/* Indices are sorted and unique, so the ends tell. */
int model_job_dense(const struct job *job)
{
	return job->ntasks > 0 &&
	       (!job->index ||
	        (job->index[0] == 0 && job->index[job->ntasks - 1] == (long)job->ntasks - 1));
}

long model_job_padded(const struct job *job)
{
	return job->ntasks ? model_task_index(job, job->ntasks - 1) + 1 : 0;
}

int model_accel_cmp(const void *pa, const void *pb)
{
	const struct accel *a = pa, *b = pb;
	if (a->job != b->job)
		return a->job < b->job ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return strcmp(a->kind, b->kind);
}

static int accel_cmp_key(const struct accel *a, size_t job, long index)
{
	if (a->job != job)
		return a->job < job ? -1 : 1;
	if (a->index != index)
		return a->index < index ? -1 : 1;
	return 0;
}

const struct accel *model_accels(const struct muster_result *r, size_t job, long index,
                                 size_t *count)
{
	size_t lo = 0, hi = r->naccels;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (accel_cmp_key(&r->accels[mid], job, index) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < r->naccels && accel_cmp_key(&r->accels[end], job, index) == 0)
		end++;
	*count = end - lo;
	return *count ? &r->accels[lo] : NULL;
}
