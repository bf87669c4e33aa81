#include "config.h"

#include "model.h"

#include <stdlib.h>
#include <string.h>

struct muster_result *model_new(void)
{
	struct muster_result *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	arena_init(&r->arena);
	r->task_index = -1;
	r->held_fd = -1;
	r->held_port = -1;
	return r;
}

MUSTER_API void muster_result_free(struct muster_result *r)
{
	if (!r)
		return;
	muster_result_release_port(r);
	muster_result_free(r->first);
	for (size_t i = 0; i < r->njobs; i++)
		free(r->jobs[i].tasks);
	free(r->jobs);
	free(r->accels);
	arena_release(&r->arena);
	free(r);
}

struct job *model_job(const struct muster_result *r, const char *name)
{
	for (size_t i = 0; i < r->njobs; i++)
		if (strcmp(r->jobs[i].name, name) == 0)
			return &r->jobs[i];
	return NULL;
}

size_t model_job_pos(const struct muster_result *r, const struct job *job)
{
	return (size_t)(job - r->jobs);
}

const struct task *model_task(const struct job *job, long index)
{
	size_t lo = 0, hi = job->ntasks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (job->tasks[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < job->ntasks && job->tasks[lo].index == index ? &job->tasks[lo] : NULL;
}

int model_job_dense(const struct job *job)
{
	return job->ntasks > 0 && job->tasks[0].index == 0 &&
	       job->tasks[job->ntasks - 1].index == (long)job->ntasks - 1;
}

long model_job_padded(const struct job *job)
{
	return job->ntasks ? job->tasks[job->ntasks - 1].index + 1 : 0;
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
