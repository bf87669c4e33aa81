/* The result as JSON: what `muster resolve` prints and hosts may parse. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>

#include "lib/error.h"
#include "jsonw.h"
#include "model/model.h"

/* Dense jobs as arrays, sparse (and empty) jobs as objects keyed by the
 * index string: TensorFlow's ClusterSpec.as_dict(). */
static void write_job(struct jsonw *w, const struct job *job)
{
	int dense = model_job_dense(job);
	jsonw_char(w, dense ? '[' : '{');
	for (size_t i = 0; i < job->ntasks; i++) {
		if (i)
			jsonw_char(w, ',');
		if (!dense) {
			jsonw_char(w, '"');
			jsonw_long(w, model_task_index(job, i));
			jsonw_raw(w, "\":");
		}
		jsonw_string(w, job->address[i]);
	}
	jsonw_char(w, dense ? ']' : '}');
}

static void write_accel_map(struct jsonw *w, const struct accel *a, size_t n)
{
	jsonw_char(w, '{');
	for (size_t i = 0; i < n; i++) {
		if (i)
			jsonw_char(w, ',');
		jsonw_string(w, a[i].kind);
		jsonw_char(w, ':');
		jsonw_long(w, a[i].count);
	}
	jsonw_char(w, '}');
}

/* {"JOB": {"INDEX": {"GPU": n}}}, accelerators being sorted by job and task. */
static void write_accelerators(struct jsonw *w, const muster_result *r)
{
	jsonw_raw(w, ",\"accelerators\":{");
	for (size_t i = 0; i < r->naccels;) {
		const struct accel *a = &r->accels[i];
		int new_job = i == 0 || r->accels[i - 1].job != a->job;
		if (new_job) {
			if (i)
				jsonw_raw(w, "},");
			jsonw_string(w, r->jobs[a->job].name);
			jsonw_raw(w, ":{");
		} else {
			jsonw_char(w, ',');
		}
		size_t n;
		const struct accel *run = model_accels(r, a->job, a->index, &n);
		jsonw_char(w, '"');
		jsonw_long(w, a->index);
		jsonw_raw(w, "\":");
		write_accel_map(w, run, n);
		i += n;
	}
	jsonw_raw(w, "}}");
}

/* {"JOB": {"INDEX": [0, 1]}}: each task's one list of device ids. */
static void write_accelerator_ids(struct jsonw *w, const muster_result *r)
{
	size_t last_job = SIZE_MAX;
	jsonw_raw(w, ",\"accelerator_ids\":{");
	for (size_t i = 0; i < r->naccels; i++) {
		const struct accel *a = &r->accels[i];
		if (!a->ids)
			continue;
		if (a->job != last_job) {
			if (last_job != SIZE_MAX)
				jsonw_raw(w, "},");
			jsonw_string(w, r->jobs[a->job].name);
			jsonw_raw(w, ":{");
			last_job = a->job;
		} else {
			jsonw_char(w, ',');
		}
		jsonw_char(w, '"');
		jsonw_long(w, a->index);
		jsonw_raw(w, "\":[");
		for (int32_t k = 0; k < a->count; k++) {
			if (k)
				jsonw_char(w, ',');
			jsonw_long(w, a->ids[k]);
		}
		jsonw_char(w, ']');
	}
	jsonw_raw(w, "}}");
}

static int any_ids(const muster_result *r)
{
	for (size_t i = 0; i < r->naccels; i++)
		if (r->accels[i].ids)
			return 1;
	return 0;
}

MUSTER_API int muster_result_to_json(char **out, const muster_result *r, muster_error *err)
{
	if (!out || !r)
		return error_set(err, MUSTER_EINVAL, "muster_result_to_json: NULL argument");
	int rc = model_refuse_placeholders(r, "a cluster spec", err);
	if (rc != 0)
		return rc;
	struct jsonw w;
	jsonw_init(&w);
	jsonw_raw(&w, "{\"cluster\":{");
	for (size_t i = 0; i < r->njobs; i++) {
		if (i)
			jsonw_char(&w, ',');
		jsonw_string(&w, r->jobs[i].name);
		jsonw_char(&w, ':');
		write_job(&w, &r->jobs[i]);
	}
	jsonw_char(&w, '}');
	if (r->task_type || r->task_index >= 0) {
		jsonw_raw(&w, ",\"task\":{");
		if (r->task_type) {
			jsonw_raw(&w, "\"type\":");
			jsonw_string(&w, r->task_type);
		}
		if (r->task_index >= 0) {
			jsonw_raw(&w, r->task_type ? ",\"index\":" : "\"index\":");
			jsonw_long(&w, r->task_index);
		}
		jsonw_char(&w, '}');
	}
	if (r->rpc_layer) {
		jsonw_raw(&w, ",\"rpc_layer\":");
		jsonw_string(&w, r->rpc_layer);
	}
	if (r->environment) {
		jsonw_raw(&w, ",\"environment\":");
		jsonw_string(&w, r->environment);
	}
	if (r->naccels)
		write_accelerators(&w, r);
	if (any_ids(r))
		write_accelerator_ids(&w, r);
	jsonw_char(&w, '}');
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}

MUSTER_API int muster_result_accelerators_json(char **out, const muster_result *r,
                                               const char *job_name, long index, muster_error *err)
{
	if (!out || !r)
		return error_set(err, MUSTER_EINVAL, "muster_result_accelerators_json: NULL argument");
	*out = NULL;
	if (!job_name) {
		if (!r->task_type || r->task_index < 0)
			return error_set(err, MUSTER_ENOENT,
			                 "no task given, and this process's own task is unknown");
		job_name = r->task_type;
		index = r->task_index;
	}
	const struct job *job = model_job(r, job_name);
	if (!job)
		return error_set(err, MUSTER_ENOENT, "No such job in cluster: '%s'", job_name);
	if (!model_address(job, index))
		return error_set(err, MUSTER_ENOENT, "No task with index %ld in job '%s'", index,
		                 job_name);
	size_t n;
	const struct accel *a = model_accels(r, model_job_pos(r, job), index, &n);
	struct jsonw w;
	jsonw_init(&w);
	write_accel_map(&w, a, n);
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}
