/* Reading a result: the public accessors.  All are lock-free reads of an
 * immutable structure. */
#include <config.h>

#include "model.h"

#include <unistd.h>

MUSTER_API const char *muster_result_source(const muster_result *r)
{
	return r ? r->source : NULL;
}

MUSTER_API int muster_result_placement(const muster_result *r)
{
	return r ? r->placement : MUSTER_PLACEMENT_NODES;
}

MUSTER_API const char *muster_result_node_order(const muster_result *r, size_t i)
{
	return r && i < r->nnode_order ? r->node_order[i] : NULL;
}

MUSTER_API const char *muster_result_job_id(const muster_result *r)
{
	return r ? r->job_id : NULL;
}

MUSTER_API size_t muster_result_job_count(const muster_result *r)
{
	return r ? r->njobs : 0;
}

MUSTER_API const char *muster_result_job_name(const muster_result *r, size_t i)
{
	return r && i < r->njobs ? r->jobs[i].name : NULL;
}

static const struct job *find_job(const muster_result *r, const char *name)
{
	return r && name ? model_job(r, name) : NULL;
}

MUSTER_API size_t muster_result_task_count(const muster_result *r, const char *name)
{
	const struct job *job = find_job(r, name);
	return job ? job->ntasks : 0;
}

MUSTER_API int muster_result_job_is_dense(const muster_result *r, const char *name)
{
	const struct job *job = find_job(r, name);
	return job ? model_job_dense(job) : 0;
}

MUSTER_API int muster_result_task_at(const muster_result *r, const char *name, size_t i,
                                     long *index, const char **address)
{
	const struct job *job = find_job(r, name);
	if (!job || i >= job->ntasks)
		return MUSTER_ENOENT;
	if (index)
		*index = model_task_index(job, i);
	if (address)
		*address = job->address[i];
	return 0;
}

MUSTER_API const char *muster_result_address(const muster_result *r, const char *name,
                                             long index)
{
	const struct job *job = find_job(r, name);
	return job ? model_address(job, index) : NULL;
}

MUSTER_API const char *muster_result_task_type(const muster_result *r)
{
	return r ? r->task_type : NULL;
}

MUSTER_API long muster_result_task_index(const muster_result *r)
{
	return r ? r->task_index : -1;
}

MUSTER_API const char *muster_result_rpc_layer(const muster_result *r)
{
	return r ? r->rpc_layer : NULL;
}

MUSTER_API const char *muster_result_environment(const muster_result *r)
{
	return r ? r->environment : NULL;
}

/* A task's accelerators (the own task when `name` is NULL): 0 with *out
 * and *n set, or the error code. */
static int task_accels(const muster_result *r, const char *name, long index,
                       const struct accel **out, size_t *n)
{
	if (!r)
		return MUSTER_EINVAL;
	if (!name) {
		name = r->task_type;
		index = r->task_index;
	}
	const struct job *job = find_job(r, name);
	if (!job)
		return MUSTER_ENOENT;
	*out = model_accels(r, model_job_pos(r, job), index, n);
	return 0;
}

MUSTER_API int muster_result_accelerator_at(const muster_result *r, const char *name, long index,
                                            size_t i, const char **kind, long *count)
{
	const struct accel *a;
	size_t n;
	int rc = task_accels(r, name, index, &a, &n);
	if (rc != 0)
		return rc;
	if (i >= n)
		return MUSTER_ENOENT;
	if (kind)
		*kind = a[i].kind;
	if (count)
		*count = a[i].count;
	return 0;
}

MUSTER_API int muster_result_accelerator_ids(const muster_result *r, const char *name, long index,
                                             const char **kind, const int **ids, size_t *n)
{
	const struct accel *a;
	size_t count;
	int rc = task_accels(r, name, index, &a, &count);
	if (rc != 0)
		return rc;
	for (size_t i = 0; i < count; i++)
		if (a[i].ids) {
			if (kind)
				*kind = a[i].kind;
			if (ids)
				*ids = a[i].ids;
			if (n)
				*n = (size_t)a[i].count;
			return 0;
		}
	return MUSTER_ENOENT;
}

MUSTER_API int muster_result_reserved_port(const muster_result *r)
{
	return r && __atomic_load_n(&r->held_fd, __ATOMIC_ACQUIRE) >= 0 ? r->held_port : -1;
}

/* The one mutation a result allows: hosts on several threads may race to
 * release, so the socket is taken with an atomic exchange. */
MUSTER_API int muster_result_release_port(muster_result *r)
{
	if (!r)
		return MUSTER_EINVAL;
	int fd = __atomic_exchange_n(&r->held_fd, -1, __ATOMIC_ACQ_REL);
	if (fd >= 0)
		close(fd);
	return 0;
}
