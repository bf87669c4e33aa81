/* local_accelerators = true: the own task's accelerators, when its
 * backend gave none, are this machine's devices, as TensorFlow's
 * num_accelerators() counts them. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "chain/ctx.h"
#include "lib/error.h"
#include "lib/vec.h"
#include "local_devices.h"
#include "model/model.h"

/* One more device of `kind` for the task: its entry among those added
 * from `first` on, or a new one. */
static int count_one(struct muster_result *r, size_t first, uint32_t job, long index,
                     const char *kind)
{
	for (size_t i = first; i < r->naccels; i++)
		if (strcmp(r->accels[i].kind, kind) == 0) {
			r->accels[i].count++;
			return 0;
		}
	if (vec_reserve(&r->accels, &r->accels_cap, r->naccels + 1,
	                  sizeof(*r->accels)) < 0)
		return -1;
	/* Counts only: an index names a device under one device order and
	 * one set of visible-devices variables, which a result does not carry. */
	struct accel a = { .index = index, .kind = arena_strdup(&r->arena, kind), .ids = NULL,
	                  .job = job, .count = 1 };
	if (!a.kind)
		return -1;
	r->accels[r->naccels++] = a;
	return 0;
}

/* The context's devices: counted by the first caller, under the lock that
 * makes the others wait for that count; a failed count is tried again. */
static int ctx_devices(struct muster_ctx *ctx, const muster_devices **out, muster_error *err)
{
	int rc = 0;
	pthread_mutex_lock(&ctx->local_lock);
	if (!ctx->local)
		rc = muster_local_devices(&ctx->local, NULL, err);
	*out = ctx->local;
	pthread_mutex_unlock(&ctx->local_lock);
	return rc;
}

int local_fill(struct muster_ctx *ctx, struct muster_result *r, muster_error *err)
{
	const struct job *job = r->task_type ? model_job(r, r->task_type) : NULL;
	size_t have;

	if (!job || r->task_index < 0 || !model_address(job, r->task_index))
		return 0;
	uint32_t pos = (uint32_t)model_job_pos(r, job);
	if (model_accels(r, pos, r->task_index, &have) != NULL)
		return 0;

	const muster_devices *d;
	int rc = ctx_devices(ctx, &d, err);
	if (rc != 0)
		return rc;
	size_t first = r->naccels;
	const char *kind;
	for (size_t i = 0; rc == 0 && muster_devices_at(d, i, &kind, NULL, NULL) == 0; i++)
		if (count_one(r, first, pos, r->task_index, kind) < 0)
			rc = error_set(err, MUSTER_ENOMEM, "out of memory");
	if (rc == 0)
		qsort(r->accels, r->naccels, sizeof(*r->accels), model_accel_cmp);
	return rc;
}
