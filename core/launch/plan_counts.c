/* How many processes each unit runs: the launch's count, or with
 * MUSTER_NPROC_GPU the unit's GPUs as the backend reports them, this
 * machine's count standing in for units the backend says nothing of. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/error.h"
#include "launch.h"

/* The GPUs the backend gives a unit: 1 with *n (0 when it gives the unit
 * accelerators of other kinds only), 0 when it gives it none at all. */
static int backend_gpus(const muster_result *r, const struct plan_unit *u, long *n)
{
	size_t count;
	const struct accel *a = model_accels(r, model_job_pos(r, u->job), u->index, &count);
	if (!count)
		return 0;
	*n = 0;
	for (size_t i = 0; i < count; i++)
		if (strcmp(a[i].kind, "GPU") == 0)
			*n += a[i].count;
	return 1;
}

long launch_local_gpus(const muster_launch *l)
{
	return l->size >= offsetof(muster_launch, local_gpus) + sizeof(l->local_gpus)
	               ? l->local_gpus
	               : 0;
}

int plan_counts(struct muster_plan *p, const muster_launch *l, muster_error *err)
{
	if (l->nproc_per_node != MUSTER_NPROC_GPU) {
		for (size_t i = 0; i < p->nunits; i++)
			p->unit[i].nproc = l->nproc_per_node;
		return 0;
	}
	long local = launch_local_gpus(l);
	p->gpu_counts = 1;
	int assumed = 0;
	for (size_t i = 0; i < p->nunits; i++) {
		struct plan_unit *u = &p->unit[i];
		long n;
		if (!backend_gpus(p->r, u, &n)) {
			if (local <= 0)
				return error_set(err, MUSTER_ENOENT,
				                 "--nproc-per-node gpu: the backend (%s) gives task %s:%ld "
				                 "no GPU count, and this machine shows no GPU to assume",
				                 p->r->source ? p->r->source : "?", u->job->name, u->index);
			n = local;
			assumed |= i != p->self;
		}
		if (n == 0)
			return error_set(err, MUSTER_ENOENT,
			                 "--nproc-per-node gpu: task %s:%ld has no GPU, so no process "
			                 "would run there", u->job->name, u->index);
		if (n > MUSTER_NPROC_PER_NODE_MAX)
			return error_set(err, MUSTER_EINVAL,
			                 "--nproc-per-node gpu: task %s:%ld has %ld GPUs, more than "
			                 "%ld processes", u->job->name, u->index, n,
			                 MUSTER_NPROC_PER_NODE_MAX);
		u->nproc = n;
	}
	if (assumed)
		snprintf(p->note, sizeof(p->note),
		         "assuming every %s the backend gives no GPU count for has %ld GPU%s, as this "
		         "machine does", p->placement == MUSTER_PLACEMENT_PROCESSES ? "task" : "node",
		         local, local == 1 ? "" : "s");
	return 0;
}
