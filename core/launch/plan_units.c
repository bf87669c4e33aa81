/* Which tasks are a launch's units, and in which order; the checks of a
 * launch that every output shares. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "launch.h"

int launch_check(const muster_launch *l, muster_error *err)
{
	/* A caller built before local_gpus was appended has a shorter struct. */
	if (l->size < offsetof(muster_launch, local_device_ids) + sizeof(l->local_device_ids))
		return error_set(err, MUSTER_EINVAL, "muster_launch: start from MUSTER_LAUNCH_INIT");
	if (l->nproc_per_node == MUSTER_NPROC_GPU)
		return 0;
	if (l->nproc_per_node < 1)
		return error_set(err, MUSTER_EINVAL, "processes per node: %ld is not at least 1",
		                 l->nproc_per_node);
	if (l->nproc_per_node > MUSTER_NPROC_PER_NODE_MAX)
		return error_set(err, MUSTER_EINVAL, "processes per node: %ld is more than %ld",
		                 l->nproc_per_node, MUSTER_NPROC_PER_NODE_MAX);
	return 0;
}

/* `name` is an item of the comma-separated `list`. */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && memcmp(p, name, n) == 0)
			return 1;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* Parameter servers and evaluators hold no rank of a data-parallel world. */
static int trains(const char *list, const char *name)
{
	if (list)
		return in_list(list, name);
	return strcmp(name, "ps") != 0 && strcmp(name, "evaluator") != 0;
}

/* Every job --jobs names must exist: a typo must not shrink the world. */
static int check_list(const muster_result *r, const char *list, muster_error *err)
{
	char name[256];
	for (const char *p = list; p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0)
			return error_set(err, MUSTER_EINVAL, "jobs '%s': an empty job name", list);
		if (len >= sizeof(name))
			len = sizeof(name) - 1;
		memcpy(name, p, len);
		name[len] = '\0';
		if (!model_job(r, name))
			return error_set(err, MUSTER_ENOENT,
			                 "jobs: the cluster has no job '%s' (source %s)", name,
			                 r->source ? r->source : "?");
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

static const struct job *master_job(const muster_result *r, const char *list)
{
	static const char *const preferred[] = { "chief", "master" };
	for (size_t i = 0; i < 2; i++) {
		const struct job *job = model_job(r, preferred[i]);
		if (job && job->ntasks && trains(list, job->name))
			return job;
	}
	for (size_t i = 0; i < r->njobs; i++)
		if (r->jobs[i].ntasks && trains(list, r->jobs[i].name))
			return &r->jobs[i];
	return NULL;
}

static void add_seg(struct muster_plan *p, const struct job *job, size_t first, size_t count)
{
	if (count)
		p->segs[p->nseg++] = (struct plan_seg){ job, first, count, p->nunits };
	p->nunits += count;
}

/* The launch's own unit: its task, else this process's own. */
static void find_self(struct muster_plan *p)
{
	const char *type = p->task_type ? p->task_type : p->r->task_type;
	long id = p->task_id >= 0 ? p->task_id : p->r->task_index;
	const struct job *job = type ? model_job(p->r, type) : NULL;
	size_t pos = job ? model_task_pos(job, id) : SIZE_MAX;

	if (p->env_code)
		return;
	p->env_code = MUSTER_ENOENT;
	if (!type || id < 0) {
		snprintf(p->env_why, sizeof(p->env_why), "no task given, and this process's own task "
		         "is unknown (source %s)", p->r->source ? p->r->source : "?");
		return;
	}
	if (!job) {
		snprintf(p->env_why, sizeof(p->env_why), "No such job in cluster: '%.256s'", type);
		return;
	}
	if (pos == SIZE_MAX) {
		snprintf(p->env_why, sizeof(p->env_why), "No task with index %ld in job '%.256s'", id,
		         type);
		return;
	}
	for (size_t i = 0; i < p->nseg; i++) {
		const struct plan_seg *s = &p->segs[i];
		if (s->job == job && pos >= s->first && pos < s->first + s->count) {
			p->self = s->unit + (pos - s->first);
			p->self_job = job;
			p->self_pos = pos;
			p->env_code = 0;
			return;
		}
	}
	snprintf(p->env_why, sizeof(p->env_why),
	         "task %.256s:%ld is not a training task of a %s launch (jobs %.200s)", type, id,
	         p->framework ? p->framework : "", p->jobs ? p->jobs : "other than ps and evaluator");
}

int plan_units(struct muster_plan *p, const muster_launch *l, muster_error *err)
{
	const muster_result *r = p->r;
	const char *list = l->jobs;
	size_t total = 0, jobs = 0;
	int rc;

	if (list && (rc = check_list(r, list, err)) != 0)
		return rc;
	for (size_t i = 0; i < r->njobs; i++) {
		const struct job *job = &r->jobs[i];
		if (!trains(list, job->name))
			continue;
		/* An empty job has no holes. */
		if (job->ntasks && !model_job_dense(job) && !p->env_code) {
			p->env_code = MUSTER_ENOENT;
			snprintf(p->env_why, sizeof(p->env_why),
			         "job '%s' has holes in its task indices (%zu tasks, highest index "
			         "%ld): %s needs dense ranks", job->name, job->ntasks,
			         model_job_padded(job) - 1, p->framework ? p->framework : "a launch");
		}
		total += job->ntasks;
		jobs++;
	}
	const struct job *master = master_job(r, list);
	if (!master || total == 0)
		return error_set(err, MUSTER_ENOENT,
		                 "the cluster has no training task (jobs %s) to launch",
		                 list ? list : "other than ps and evaluator");
	p->segs = jobs + 1 <= sizeof(p->seg) / sizeof(p->seg[0]) ? p->seg
	                                                         : malloc((jobs + 1) * sizeof(*p->segs));
	if (!p->segs)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	add_seg(p, master, 0, 1);
	for (size_t i = 0; i < r->njobs; i++) {
		const struct job *job = &r->jobs[i];
		if (trains(list, job->name))
			add_seg(p, job, job == master ? 1 : 0, job == master ? job->ntasks - 1 : job->ntasks);
	}
	find_self(p);
	return 0;
}

int plan_each_unit(const struct muster_plan *p,
                   int (*fn)(void *data, const struct job *job, size_t pos, size_t unit),
                   void *data)
{
	for (size_t i = 0; i < p->nseg; i++) {
		const struct plan_seg *s = &p->segs[i];
		for (size_t k = 0; k < s->count; k++) {
			int rc = fn(data, s->job, s->first + k, s->unit + k);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int launch_split_address(const char *address, char *host, size_t size, char port[6])
{
	const char *colon = strrchr(address, ':');
	const char *h = address;
	size_t len;

	if (!colon || strlen(colon + 1) > 5)
		return -1;
	len = (size_t)(colon - address);
	if (len >= 2 && h[0] == '[' && h[len - 1] == ']') {
		h++;
		len -= 2;
	}
	if (len == 0 || len >= size)
		return -1;
	memcpy(host, h, len);
	host[len] = '\0';
	strcpy(port, colon + 1);
	return 0;
}

size_t launch_host_length(const char *address)
{
	const char *colon = strrchr(address, ':');
	return colon ? (size_t)(colon - address) : 0;
}
