/* master(): TensorFlow's rules for the master URL, chosen per result by the
 * backend that produced it. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "lib/address.h"
#include "lib/error.h"
#include "jsonw.h"
#include "model/model.h"

/* "<rpc_layer>://<address>", or the address alone when the layer is empty. */
static int format_url(char **out, const char *address, const char *layer, muster_error *err)
{
	if (address_is_placeholder(address))
		return error_set(err, MUSTER_EUNAVAIL, "that task's address is not known: its "
		                 "platform does not publish it (muster gave it the placeholder %s)",
		                 address);
	struct jsonw w;
	jsonw_init(&w);
	if (layer && *layer) {
		jsonw_raw(&w, layer);
		jsonw_raw(&w, "://");
	}
	jsonw_raw(&w, address);
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}

/* TF's ClusterSpec.task_address, with its two errors. */
static int task_url(char **out, const muster_result *r, const char *type, long id,
                    const char *layer, muster_error *err)
{
	const struct job *job = type ? model_job(r, type) : NULL;
	if (!job) {
		if (!type)
			return error_set(err, MUSTER_ENOENT, "No such job in cluster: None");
		return error_set(err, MUSTER_ENOENT, "No such job in cluster: '%s'", type);
	}
	if (id < 0)
		return error_set(err, MUSTER_ENOENT, "No task with index None in job '%s'", type);
	const char *address = model_address(job, id);
	if (!address)
		return error_set(err, MUSTER_ENOENT, "No task with index %ld in job '%s'", id, type);
	return format_url(out, address, layer, err);
}

/* `rpc or own`: an empty argument falls back to the own layer. */
static const char *or_layer(const char *arg, const char *own)
{
	return arg && *arg ? arg : own;
}

MUSTER_API int muster_result_master_url(char **out, const muster_result *r,
                                        const char *task_type, long task_id,
                                        const char *rpc_layer, muster_error *err)
{
	if (!out || !r)
		return error_set(err, MUSTER_EINVAL, "muster_result_master_url: NULL argument");
	*out = NULL;

	/* UnionClusterResolver: a named task is looked up in the merged spec;
	 * otherwise the first resolver answers, given only the rpc layer. */
	if (r->first) {
		if (task_type && task_id >= 0)
			return task_url(out, r, task_type, task_id, or_layer(rpc_layer, r->rpc_layer), err);
		return muster_result_master_url(out, r->first, NULL, -1, rpc_layer, err);
	}

	switch (r->master_rule) {
	case MUSTER_MASTER_SIMPLE:
		if (task_type && task_id >= 0)
			return task_url(out, r, task_type, task_id, or_layer(rpc_layer, r->rpc_layer), err);
		return format_url(out, r->master ? r->master : "", or_layer(rpc_layer, r->rpc_layer), err);
	case MUSTER_MASTER_TASK: {
		const char *type = task_type ? task_type : r->task_type;
		long id = task_id >= 0 ? task_id : r->task_index;
		if (!type || id < 0)
			return format_url(out, "", NULL, err);
		return task_url(out, r, type, id, or_layer(rpc_layer, r->rpc_layer), err);
	}
	default: /* MUSTER_MASTER_TF_CONFIG */
		if (r->master)
			return format_url(out, r->master, NULL, err);
		if (r->njobs == 0 || (r->njobs == 1 && model_job_padded(&r->jobs[0]) == 1))
			return format_url(out, "", NULL, err);
		return task_url(out, r, task_type ? task_type : r->task_type,
		                task_id >= 0 ? task_id : r->task_index,
		                rpc_layer ? rpc_layer : r->rpc_layer, err);
	}
}
