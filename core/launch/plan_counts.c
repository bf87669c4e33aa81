/* How many processes a unit runs: the launch's count, or with
 * MUSTER_NPROC_GPU the unit's GPUs as the backend reports them, this
 * machine's count standing in for units the backend says nothing of. */
#include <config.h>

#include <string.h>

#include "launch.h"
#include "lib/error.h"

long launch_local_gpus(const muster_launch *l)
{
	return l->size >= offsetof(muster_launch, local_gpus) + sizeof(l->local_gpus)
	               ? l->local_gpus
	               : 0;
}

/* The GPUs the backend gives a task: 1 with *n (0 when it gives the task
 * accelerators of other kinds only), 0 when it gives it none at all. */
static int backend_gpus(const muster_result *r, const struct job *job, size_t pos, long *n)
{
	size_t count;
	const struct accel *a = model_accels(r, model_job_pos(r, job), model_task_index(job, pos),
	                                     &count);
	if (!count)
		return 0;
	*n = 0;
	for (size_t i = 0; i < count; i++)
		if (strcmp(a[i].kind, "GPU") == 0)
			*n += a[i].count;
	return 1;
}

int plan_unit_nproc(const struct muster_plan *p, const struct job *job, size_t pos, long *n,
                    int *assumed, muster_error *err)
{
	long index = model_task_index(job, pos);

	*assumed = 0;
	if (p->nproc != MUSTER_NPROC_GPU) {
		*n = p->nproc;
		return 0;
	}
	if (!backend_gpus(p->r, job, pos, n)) {
		if (p->local_gpus <= 0)
			return error_set(err, MUSTER_ENOENT,
			                 "--nproc-per-node gpu: the backend (%s) gives task %s:%ld no GPU "
			                 "count, and this machine shows no GPU to assume",
			                 p->r->source ? p->r->source : "?", job->name, index);
		*n = p->local_gpus;
		*assumed = 1;
	}
	if (*n == 0)
		return error_set(err, MUSTER_ENOENT, "--nproc-per-node gpu: task %s:%ld has no GPU, "
		                 "so no process would run there", job->name, index);
	if (*n > MUSTER_NPROC_PER_NODE_MAX)
		return error_set(err, MUSTER_EINVAL, "--nproc-per-node gpu: task %s:%ld has %ld GPUs, "
		                 "more than %ld processes", job->name, index, *n,
		                 MUSTER_NPROC_PER_NODE_MAX);
	return 0;
}
