/* Diffing two results job by job: both are sorted by index within a job and
 * indexed by job name, so a diff is linear in the tasks of both. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "lib/error.h"
#include "emit/jsonw.h"
#include "lib/vec.h"
#include "model.h"

static int push(struct muster_change *c, int kind, const char *job, long index,
                const char *address)
{
	if (vec_reserve(&c->items[kind], &c->cap[kind], c->n[kind] + 1,
	                  sizeof(struct change_item)) < 0)
		return -1;
	c->items[kind][c->n[kind]++] = (struct change_item){job, index, address};
	return 0;
}

/* Same kinds with the same counts, in the same (sorted) order. */
static int same_accels(const muster_result *a, size_t ja, const muster_result *b, size_t jb,
                       long index)
{
	size_t na, nb;
	const struct accel *x = model_accels(a, ja, index, &na);
	const struct accel *y = model_accels(b, jb, index, &nb);
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (x[i].count != y[i].count || strcmp(x[i].kind, y[i].kind) != 0)
			return 0;
	return 1;
}

/* Tasks of `now`'s job that are new, moved or re-equipped since `old`. */
static int diff_job(struct muster_change *c, const muster_result *old, const muster_result *now,
                    size_t jnow)
{
	const struct job *nj = &now->jobs[jnow];
	const struct job *oj = old ? model_job(old, nj->name) : NULL;
	for (size_t i = 0; i < nj->ntasks; i++) {
		long index = model_task_index(nj, i);
		const char *address = nj->address[i];
		const char *was = oj ? model_address(oj, index) : NULL;
		int rc = 0;
		if (!was)
			rc = push(c, MUSTER_CHANGE_ADDED, nj->name, index, address);
		else if (strcmp(was, address) != 0)
			rc = push(c, MUSTER_CHANGE_MOVED, nj->name, index, address);
		if (rc == 0 && was && !same_accels(old, model_job_pos(old, oj), now, jnow, index))
			rc = push(c, MUSTER_CHANGE_ACCELERATORS, nj->name, index, address);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Tasks of `old` that `now` lacks; their names are copied, as `old` goes. */
static int diff_removed(struct muster_change *c, const muster_result *old, const muster_result *now)
{
	for (size_t j = 0; j < old->njobs; j++) {
		const struct job *oj = &old->jobs[j];
		const struct job *nj = model_job(now, oj->name);
		const char *job = NULL;
		for (size_t i = 0; i < oj->ntasks; i++) {
			long index = model_task_index(oj, i);
			if (nj && model_address(nj, index))
				continue;
			const char *address = arena_strdup(&c->strings, oj->address[i]);
			if (!job)
				job = arena_strdup(&c->strings, oj->name);
			if (!job || !address || push(c, MUSTER_CHANGE_REMOVED, job, index, address) < 0)
				return -1;
		}
	}
	return 0;
}

struct muster_change *diff_results(const muster_result *old, const muster_result *now)
{
	struct muster_change *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	arena_init(&c->strings);
	for (size_t j = 0; j < now->njobs; j++)
		if (diff_job(c, old, now, j) < 0)
			goto fail;
	if (old && diff_removed(c, old, now) < 0)
		goto fail;
	return c;
fail:
	muster_change_free(c);
	return NULL;
}

static int same_string(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

int diff_is_empty(const struct muster_change *c, const muster_result *old,
                  const muster_result *r)
{
	for (int k = 0; k < CHANGE_KINDS; k++)
		if (c->n[k])
			return 0;
	return old && same_string(r->task_type, old->task_type) &&
	       r->task_index == old->task_index && same_string(r->rpc_layer, old->rpc_layer) &&
	       same_string(r->environment, old->environment) && same_string(r->master, old->master);
}

MUSTER_API const muster_result *muster_change_result(const muster_change *c)
{
	return c ? c->result : NULL;
}

MUSTER_API size_t muster_change_count(const muster_change *c, int kind)
{
	return c && kind >= 0 && kind < CHANGE_KINDS ? c->n[kind] : 0;
}

MUSTER_API int muster_change_at(const muster_change *c, int kind, size_t i, const char **job,
                                long *index, const char **address)
{
	if (!c || kind < 0 || kind >= CHANGE_KINDS)
		return MUSTER_EINVAL;
	if (i >= c->n[kind])
		return MUSTER_ENOENT;
	const struct change_item *it = &c->items[kind][i];
	if (job)
		*job = it->job;
	if (index)
		*index = it->index;
	if (address)
		*address = it->address;
	return 0;
}

static void write_items(struct jsonw *w, const struct muster_change *c, int kind, const char *key)
{
	jsonw_raw(w, ",\"");
	jsonw_raw(w, key);
	jsonw_raw(w, "\":[");
	for (size_t i = 0; i < c->n[kind]; i++) {
		const struct change_item *it = &c->items[kind][i];
		jsonw_raw(w, i ? ",{\"task\":" : "{\"task\":");
		/* "JOB:INDEX" as one string: the job name is escaped with it. */
		size_t len = strlen(it->job);
		char *task = malloc(len + 24);
		if (!task) {
			w->failed = 1;
			return;
		}
		memcpy(task, it->job, len);
		snprintf(task + len, 24, ":%ld", it->index);
		jsonw_string(w, task);
		free(task);
		jsonw_raw(w, ",\"address\":");
		jsonw_string(w, it->address);
		jsonw_char(w, '}');
	}
	jsonw_char(w, ']');
}

MUSTER_API int muster_change_to_json(char **out, const muster_change *c, muster_error *err)
{
	static const char *const keys[CHANGE_KINDS] = {"added", "removed", "moved",
	                                               "accelerators_changed"};
	char *result;
	int rc;
	if (!out || !c)
		return error_set(err, MUSTER_EINVAL, "muster_change_to_json: NULL argument");
	if ((rc = muster_result_to_json(&result, c->result, err)) < 0)
		return rc;
	struct jsonw w;
	jsonw_init(&w);
	/* The result's object, reopened before its closing brace. */
	result[strlen(result) - 1] = '\0';
	jsonw_raw(&w, result);
	free(result);
	for (int k = 0; k < CHANGE_KINDS; k++)
		write_items(&w, c, k, keys[k]);
	jsonw_char(&w, '}');
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}

MUSTER_API void muster_change_free(muster_change *c)
{
	if (!c)
		return;
	for (int k = 0; k < CHANGE_KINDS; k++)
		free(c->items[k]);
	arena_release(&c->strings);
	muster_result_free(c->result);
	free(c);
}
