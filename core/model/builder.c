#include <config.h>

#include "builder.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/reason.h"
#include "lib/vec.h"

/* The refusal's reason into the builder, and -1. */
#define fail(b, ...) reason_fail((b)->reason, sizeof((b)->reason), __VA_ARGS__)

int builder_init(struct builder *b)
{
	b->r = model_new();
	b->last_job = NULL;
	b->nkinds = 0;
	b->reason[0] = '\0';
	return b->r ? 0 : -1;
}

void builder_discard(struct builder *b)
{
	muster_result_free(b->r);
	b->r = NULL;
}

static int valid_name(const char *s)
{
	return s && *s;
}

/* Inline: a call to strcmp per task was a tenth of building a large job. */
static int same_name(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b)
		a++, b++;
	return *a == *b;
}

struct job *builder_job(struct builder *b, const char *name)
{
	struct muster_result *r = b->r;
	if (b->last_job && same_name(b->last_job->name, name))
		return b->last_job;
	if (!valid_name(name)) {
		fail(b, "a job name must be a non-empty string");
		return NULL;
	}
	struct job *job = model_job(r, name);
	if (!job) {
		const char *copy = arena_strdup(&r->arena, name);
		if (!copy || !(job = model_add_job(r, copy))) {
			fail(b, "out of memory");
			return NULL;
		}
	}
	b->last_job = job;
	return job;
}

/* The job `count` tasks from *index go to, with *index made the one past
 * the highest when negative (append) and the job marked for sorting when
 * it is not past the highest. */
static struct job *task_job(struct builder *b, const char *name, long *index, long count)
{
	struct job *job = builder_job(b, name);
	if (!job)
		return NULL;
	if (*index < 0)
		*index = job->highest + 1;
	if (*index <= job->highest)
		job->in_order = 0;
	/* An index past LONG_MAX is refused by the caller. */
	if (count > 0 && count - 1 <= LONG_MAX - *index && *index + count - 1 > job->highest)
		job->highest = *index + count - 1;
	return job;
}

int builder_task_n(struct builder *b, const char *name, long index, const char *address,
                   size_t len)
{
	if (!address)
		return fail(b, "task %s:%ld has no address", name ? name : "?", index);
	struct job *job = task_job(b, name, &index, 1);
	if (!job)
		return -1;
	const char *copy = arena_strndup(&b->r->arena, address, len);
	if (!copy || model_job_add(job, index, copy) < 0)
		return fail(b, "out of memory");
	return 0;
}

int builder_reserve(struct builder *b, const char *name, long count)
{
	struct job *job = builder_job(b, name);
	if (!job)
		return -1;
	if (count < 0)
		return fail(b, "reserve_tasks: %ld tasks of %s", count, name);
	if (count > BUILDER_RESERVE_MAX)
		count = BUILDER_RESERVE_MAX;
	if (model_job_reserve(job, job->ntasks + (size_t)count) < 0)
		return fail(b, "out of memory");
	return 0;
}

/* The next port of "HOST:PORT" (`len` bytes), in place: the last one plus
 * one, no division per task.  Its new length. */
static size_t next_port(char *address, size_t len)
{
	size_t i = len;
	while (address[i - 1] == '9')
		address[--i] = '0';
	if (address[i - 1] != ':') {
		address[i - 1]++;
		return len;
	}
	memmove(address + i + 1, address + i, len - i + 1);
	address[i] = '1';
	return len + 1;
}

int builder_task_range(struct builder *b, const char *name, long first, long count,
                       const char *first_address)
{
	struct job *job = task_job(b, name, &first, count);
	if (!job)
		return -1;
	if (count > LONG_MAX - first)
		return fail(b, "tasks of %s from %ld: %ld more is past the largest index", name,
		            first, count);
	if (model_job_reserve(job, job->ntasks + (size_t)count) < 0 ||
	    (first != (long)job->ntasks && model_job_index(job) < 0))
		return fail(b, "out of memory");
	size_t len = strlen(first_address);
	/* One block, each address at most its host, ':' and five digits long;
	 * 16 bytes more let a short address be copied as 16 fixed bytes. */
	size_t most = (size_t)(strrchr(first_address, ':') - first_address) + 7;
	char address[320]; /* the host checked the address: a name is at most 253 bytes */
	if (most > sizeof(address))
		return fail(b, "tasks of %s from %ld: a %zu-byte address, longer than a valid one",
		            name, first, len);
	size_t room = most * (size_t)count + 16;
	char *text = arena_alloc_text(&b->r->arena, room), *start = text;
	if (!text)
		return fail(b, "out of memory");
	memset(address, 0, 16);
	memcpy(address, first_address, len + 1);
	for (long k = 0; k < count; k++) {
		if (len < 16)
			memcpy(text, address, 16); /* the bytes past the NUL are overwritten next */
		else
			memcpy(text, address, len + 1);
		if (job->index)
			job->index[job->ntasks] = first + k;
		job->address[job->ntasks++] = text;
		text += len + 1;
		len = next_port(address, len);
	}
	/* The next range's text starts where this one ends. */
	arena_give_back(&b->r->arena, room - (size_t)(text - start));
	return 0;
}

int builder_accel(struct builder *b, const char *name, long index, const char *kind, long count)
{
	struct muster_result *r = b->r;
	if (!valid_name(kind))
		return fail(b, "an accelerator kind must be a non-empty string");
	if (count < 0 || index < 0)
		return fail(b, "accelerators of %s:%ld: negative %s", name ? name : "?", index,
		            count < 0 ? "count" : "index");
	if (count > INT32_MAX)
		return fail(b, "accelerators of %s:%ld: %ld %s is too many", name ? name : "?", index,
		            count, kind);
	struct job *job = builder_job(b, name);
	if (!job)
		return -1;
	if (vec_reserve(&r->accels, &r->accels_cap, r->naccels + 1, sizeof(*r->accels)) < 0)
		return fail(b, "out of memory");
	struct accel *a = &r->accels[r->naccels];
	a->ids = NULL;
	a->job = (uint32_t)model_job_pos(r, job);
	a->index = index;
	a->count = (int32_t)count;
	/* A cluster has a handful of kinds: share one copy of each. */
	a->kind = NULL;
	for (size_t i = 0; i < b->nkinds && !a->kind; i++)
		if (strcmp(b->kinds[i], kind) == 0)
			a->kind = b->kinds[i];
	if (!a->kind) {
		if (!(a->kind = arena_strdup(&r->arena, kind)))
			return fail(b, "out of memory");
		if (b->nkinds < sizeof(b->kinds) / sizeof(b->kinds[0]))
			b->kinds[b->nkinds++] = a->kind;
	}
	r->naccels++;
	return 0;
}

int builder_accel_ids(struct builder *b, const char *name, long index, const char *kind,
                      const int *ids, size_t n)
{
	if (n && !ids)
		return fail(b, "accelerator ids of %s:%ld: NULL ids", name ? name : "?", index);
	for (size_t i = 0; i < n; i++)
		if (ids[i] < 0)
			return fail(b, "accelerator ids of %s:%ld: negative id %d", name ? name : "?",
			            index, ids[i]);
	if (n > INT32_MAX)
		return fail(b, "accelerators of %s:%ld: %zu %s is too many", name ? name : "?", index,
		            n, kind ? kind : "?");
	if (builder_accel(b, name, index, kind, (long)n) < 0)
		return -1;
	if (!n)
		return 0;
	int *copy = arena_alloc(&b->r->arena, n * sizeof(*copy));
	if (!copy)
		return fail(b, "out of memory");
	memcpy(copy, ids, n * sizeof(*copy));
	b->r->accels[b->r->naccels - 1].ids = copy;
	return 0;
}

int builder_set_task(struct builder *b, const char *type, long index)
{
	if (builder_set_string(b, &b->r->task_type, type) < 0)
		return -1;
	b->r->task_index = index < 0 ? -1 : index;
	return 0;
}

int builder_set_node_order(struct builder *b, const char *const *hosts, size_t n)
{
	const char **order = n ? arena_alloc(&b->r->arena, n * sizeof(*order)) : NULL;
	if (n && !order)
		return fail(b, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!(order[i] = arena_strdup(&b->r->arena, hosts[i])))
			return fail(b, "out of memory");
	b->r->node_order = order;
	b->r->nnode_order = n;
	return 0;
}

int builder_set_string(struct builder *b, const char **field, const char *value)
{
	if (!value) {
		*field = NULL;
		return 0;
	}
	*field = arena_strdup(&b->r->arena, value);
	return *field ? 0 : fail(b, "out of memory");
}

struct indexed {
	long index;
	const char *address;
};

static int indexed_cmp(const void *pa, const void *pb)
{
	const struct indexed *a = pa, *b = pb;
	return (a->index > b->index) - (a->index < b->index);
}

/* Sorts tasks by index (only when they came out of order, so the job has
 * its index array) and rejects a duplicate index: two addresses for one
 * task is never a right answer. */
static int finish_job(struct builder *b, struct job *job)
{
	if (job->in_order)
		return 0;
	struct indexed *t = malloc(job->ntasks * sizeof(*t));
	if (!t)
		return fail(b, "out of memory");
	for (size_t i = 0; i < job->ntasks; i++)
		t[i] = (struct indexed){ job->index[i], job->address[i] };
	qsort(t, job->ntasks, sizeof(*t), indexed_cmp);
	for (size_t i = 0; i < job->ntasks; i++) {
		if (i && t[i].index == t[i - 1].index) {
			fail(b, "task %s:%ld is given twice ('%s' and '%s')", job->name, t[i].index,
			     t[i - 1].address, t[i].address);
			free(t);
			return -1;
		}
		job->index[i] = t[i].index;
		job->address[i] = t[i].address;
	}
	free(t);
	job->in_order = 1;
	model_job_settle(job);
	return 0;
}

/* A repeat of a kind keeps ids only when both parts have them: ids for
 * some of a task's devices would name the wrong ones. */
static int join_ids(struct builder *b, struct accel *into, const struct accel *a)
{
	if (!into->ids || !a->ids) {
		into->ids = NULL;
		return 0;
	}
	int *ids = arena_alloc(&b->r->arena, ((size_t)into->count + (size_t)a->count) * sizeof(*ids));
	if (!ids)
		return fail(b, "out of memory");
	memcpy(ids, into->ids, (size_t)into->count * sizeof(*ids));
	memcpy(ids + into->count, a->ids, (size_t)a->count * sizeof(*ids));
	into->ids = ids;
	return 0;
}

/* A task's ids are one list (what CUDA_VISIBLE_DEVICES and the JSON
 * output carry), so at most one of its kinds may have them. */
static int check_one_id_kind(struct builder *b)
{
	const struct muster_result *r = b->r;
	for (size_t i = 1; i < r->naccels; i++) {
		const struct accel *p = &r->accels[i - 1], *a = &r->accels[i];
		if (p->ids && a->ids && p->job == a->job && p->index == a->index)
			return fail(b, "accelerator ids of %s:%ld are given for both %s and %s",
			            r->jobs[a->job].name, a->index, p->kind, a->kind);
	}
	return 0;
}

/* Sorts accelerators, adds up repeats of a kind (a task with two GPU
 * containers has both), drops zero counts, and rejects accelerators of a task that is not in
 * the cluster. */
static int finish_accels(struct builder *b)
{
	struct muster_result *r = b->r;
	if (!r->naccels)
		return 0;
	qsort(r->accels, r->naccels, sizeof(*r->accels), model_accel_cmp);
	size_t out = 0;
	for (size_t i = 0; i < r->naccels; i++) {
		struct accel *a = &r->accels[i];
		if (!model_address(&r->jobs[a->job], a->index))
			return fail(b, "accelerators given for %s:%ld, which is not a task",
			            r->jobs[a->job].name, a->index);
		if (out && model_accel_cmp(&r->accels[out - 1], a) == 0) {
			long sum = (long)r->accels[out - 1].count + a->count;
			if (sum > INT32_MAX)
				return fail(b, "accelerators of %s:%ld: too many %s", r->jobs[a->job].name,
				            a->index, a->kind);
			if (join_ids(b, &r->accels[out - 1], a) < 0)
				return -1;
			r->accels[out - 1].count = (int32_t)sum;
			continue;
		}
		r->accels[out++] = *a;
	}
	/* As in TensorFlow's maps, a kind with no devices is absent. */
	size_t kept = 0;
	for (size_t i = 0; i < out; i++)
		if (r->accels[i].count > 0)
			r->accels[kept++] = r->accels[i];
	r->naccels = kept;
	return check_one_id_kind(b);
}

struct muster_result *builder_finish(struct builder *b)
{
	for (size_t i = 0; i < b->r->njobs; i++)
		if (finish_job(b, &b->r->jobs[i]) < 0)
			return NULL;
	if (finish_accels(b) < 0)
		return NULL;
	struct muster_result *r = b->r;
	b->r = NULL;
	return r;
}
