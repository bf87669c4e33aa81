/* TF_CONFIG for one task, byte-identical to the Kubeflow training
 * operator's: Go's encoding/json, compact, map keys sorted bytewise, struct
 * fields in declaration order. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "jsonw.h"
#include "model/model.h"

static int job_name_cmp(const void *pa, const void *pb)
{
	const struct job *const *a = pa, *const *b = pb;
	return strcmp((*a)->name, (*b)->name);
}

/* Addresses as a list in index order: how the operator writes a job. */
static void write_list(struct jsonw *w, const struct job *job)
{
	jsonw_char(w, '[');
	for (size_t i = 0; job && i < job->ntasks; i++) {
		if (i)
			jsonw_char(w, ',');
		jsonw_string(w, job->address[i]);
	}
	jsonw_char(w, ']');
}

/* A sparse job (legal in TensorFlow, never written by the operator) keeps
 * its indices as string keys. */
static void write_job(struct jsonw *w, const struct job *job)
{
	if (model_job_dense(job)) {
		write_list(w, job);
		return;
	}
	jsonw_char(w, '{');
	for (size_t i = 0; i < job->ntasks; i++) {
		if (i)
			jsonw_char(w, ',');
		jsonw_char(w, '"');
		jsonw_long(w, model_task_index(job, i));
		jsonw_raw(w, "\":");
		jsonw_string(w, job->address[i]);
	}
	jsonw_char(w, '}');
}

static int write_dense(struct jsonw *w, const muster_result *r)
{
	const struct job **sorted = malloc((r->njobs ? r->njobs : 1) * sizeof(*sorted));
	if (!sorted)
		return -1;
	for (size_t i = 0; i < r->njobs; i++)
		sorted[i] = &r->jobs[i];
	qsort(sorted, r->njobs, sizeof(*sorted), job_name_cmp);
	jsonw_raw(w, "{\"cluster\":{");
	for (size_t i = 0; i < r->njobs; i++) {
		if (i)
			jsonw_char(w, ',');
		jsonw_string(w, sorted[i]->name);
		jsonw_char(w, ':');
		write_job(w, sorted[i]);
	}
	free(sorted);
	jsonw_char(w, '}');
	return 0;
}

/* The dynamic-worker form: a worker sees only itself (as a one-key map) and
 * every ps ("ps":null without a ps job, as Go writes a nil slice); a ps sees
 * only itself; any other type gets empty containers. */
static void write_sparse(struct jsonw *w, const muster_result *r, const char *type, long id,
                         const char *own)
{
	jsonw_raw(w, "{\"cluster\":{\"worker\":{");
	if (strcmp(type, "worker") == 0) {
		jsonw_char(w, '"');
		jsonw_long(w, id);
		jsonw_raw(w, "\":");
		jsonw_string(w, own);
		jsonw_raw(w, "},\"ps\":");
		const struct job *ps = model_job(r, "ps");
		if (ps)
			write_list(w, ps);
		else
			jsonw_raw(w, "null");
	} else if (strcmp(type, "ps") == 0) {
		jsonw_raw(w, "},\"ps\":[");
		jsonw_string(w, own);
		jsonw_char(w, ']');
	} else {
		jsonw_raw(w, "},\"ps\":[]");
	}
	jsonw_char(w, '}');
}

MUSTER_API int muster_result_to_tf_config(char **out, const muster_result *r,
                                          const char *task_type, long task_id, unsigned flags,
                                          muster_error *err)
{
	if (!out || !r)
		return error_set(err, MUSTER_EINVAL, "muster_result_to_tf_config: NULL argument");
	*out = NULL;
	const char *type = task_type ? task_type : r->task_type;
	long id = task_id >= 0 ? task_id : r->task_index;
	if (!type || id < 0)
		return error_set(err, MUSTER_ENOENT,
		                 "no task given, and this process's own task is unknown");
	const struct job *job = model_job(r, type);
	if (!job)
		return error_set(err, MUSTER_ENOENT, "No such job in cluster: '%s'", type);
	const char *address = model_address(job, id);
	if (!address)
		return error_set(err, MUSTER_ENOENT, "No task with index %ld in job '%s'", id, type);
	int rc = model_refuse_placeholders(r, "TF_CONFIG", err);
	if (rc != 0)
		return rc;

	struct jsonw w;
	jsonw_init(&w);
	if (flags & MUSTER_TF_CONFIG_SPARSE)
		write_sparse(&w, r, type, id, address);
	else if (write_dense(&w, r) < 0)
		w.failed = 1;
	jsonw_raw(&w, ",\"task\":{\"type\":");
	jsonw_string(&w, type);
	jsonw_raw(&w, ",\"index\":");
	jsonw_long(&w, id);
	jsonw_char(&w, '}');
	if (!(flags & MUSTER_TF_CONFIG_SPARSE))
		jsonw_raw(&w, ",\"environment\":\"cloud\"");
	jsonw_char(&w, '}');
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}
