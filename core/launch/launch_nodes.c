/* Which tasks are a launch's nodes, and in which order; the checks of a
 * launch that the environment and hostfile writers share. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "launch.h"

int launch_check(const muster_launch *l, muster_error *err)
{
	if (l->size < sizeof(muster_launch))
		return error_set(err, MUSTER_EINVAL, "muster_launch: start from MUSTER_LAUNCH_INIT");
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

int launch_nodes_build(struct launch_nodes *out, const muster_result *r, const muster_launch *l,
                       int dense, muster_error *err)
{
	const char *list = l->jobs;
	size_t total = 0;
	int rc;

	out->node = NULL;
	out->count = 0;
	if (list && (rc = check_list(r, list, err)) != 0)
		return rc;
	for (size_t i = 0; i < r->njobs; i++) {
		const struct job *job = &r->jobs[i];
		if (!trains(list, job->name))
			continue;
		if (dense && job->ntasks && !model_job_dense(job)) /* an empty job has no holes */
			return error_set(err, MUSTER_ENOENT,
			                 "job '%s' has holes in its task indices (%zu tasks, highest "
			                 "index %ld): %s needs dense ranks", job->name, job->ntasks,
			                 model_job_padded(job) - 1, l->framework);
		total += job->ntasks;
	}
	const struct job *master = master_job(r, list);
	if (!master || total == 0)
		return error_set(err, MUSTER_ENOENT,
		                 "the cluster has no training task (jobs %s) to launch",
		                 list ? list : "other than ps and evaluator");
	out->node = malloc(total * sizeof(*out->node));
	if (!out->node)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	out->node[out->count++] = (struct launch_node){ master, model_task_index(master, 0),
	                                                            master->address[0] };
	for (size_t i = 0; i < r->njobs; i++) {
		const struct job *job = &r->jobs[i];
		if (!trains(list, job->name))
			continue;
		for (size_t t = job == master ? 1 : 0; t < job->ntasks; t++)
			out->node[out->count++] = (struct launch_node){ job, model_task_index(job, t),
			                                                            job->address[t] };
	}
	return 0;
}

void launch_nodes_free(struct launch_nodes *n)
{
	free(n->node);
	n->node = NULL;
	n->count = 0;
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
