/* muster doctor: the launch as the plan sees it (its nodes, ranks, master
 * and world size), and the checks on it alone: the world size against
 * the tasks a scheduler started, duplicate task addresses, and
 * this node's visible GPUs against its processes. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

static char *env_value(char **env, const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; env[i] != NULL; i++)
		if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

static int add_node(struct doctor_launch *dl, const char *host, size_t hlen, long nproc)
{
	struct doctor_node *p = realloc(dl->node, (dl->nnodes + 1) * sizeof(*p));
	if (p == NULL)
		return -1;
	dl->node = p;
	p = &dl->node[dl->nnodes];
	if ((p->host = strndup(host, hlen)) == NULL)
		return -1;
	p->nproc = nproc;
	p->first_rank = dl->nnodes ? p[-1].first_rank + p[-1].nproc : 0;
	dl->nnodes++;
	return 0;
}

/* The nodes' distinct hosts, in node order. */
static int distinct_hosts(struct doctor_launch *dl)
{
	dl->host = calloc(dl->nnodes + 1, sizeof(*dl->host));
	if (dl->host == NULL)
		return -1;
	for (size_t i = 0; i < dl->nnodes; i++) {
		size_t j = 0;
		while (j < dl->nhosts && strcmp(dl->host[j], dl->node[i].host) != 0)
			j++;
		if (j == dl->nhosts)
			dl->host[dl->nhosts++] = dl->node[i].host;
	}
	return 0;
}

int doctor_launch_read(struct doctor_launch *dl, const muster_result *res,
                       const struct cli_launch *cl)
{
	muster_launch l = cl->l;
	muster_error err = { 0, "" };
	char *hostfile = NULL, **env = NULL;
	int rc;

	memset(dl, 0, sizeof(*dl));
	dl->framework = cl->l.framework;
	dl->scheduler_tasks = -1;
	l.framework = "openmpi";
	if ((rc = muster_launch_hostfile(&hostfile, res, &l, &err)) != 0)
		return cli_fail(rc, &err);
	for (char *line = hostfile; *line != '\0'; line += strcspn(line, "\n") + 1) {
		const char *slots = strstr(line, " slots=");
		if (slots == NULL || add_node(dl, line, (size_t)(slots - line), atol(slots + 7)) != 0) {
			muster_free(hostfile);
			return cli_fail(MUSTER_ENOMEM, NULL);
		}
	}
	muster_free(hostfile);
	l.framework = "pytorch";
	if ((rc = muster_launch_env(&env, res, &l, &err)) != 0)
		return cli_fail(rc, &err);
	const char *node_rank = env_value(env, "NODE_RANK");
	dl->self = node_rank ? (size_t)atol(node_rank) : 0;
	dl->master_host = strdup(env_value(env, "MASTER_ADDR"));
	dl->master_port = atoi(env_value(env, "MASTER_PORT"));
	dl->world_size = atol(env_value(env, "WORLD_SIZE"));
	muster_free(env);
	if (dl->self >= dl->nnodes)
		dl->self = 0;
	if (dl->master_host == NULL || distinct_hosts(dl) != 0)
		return cli_fail(MUSTER_ENOMEM, NULL);
	return 0;
}

void doctor_launch_free(struct doctor_launch *dl)
{
	for (size_t i = 0; i < dl->nnodes; i++)
		free(dl->node[i].host);
	free(dl->node);
	free(dl->host);
	free(dl->master_host);
	free(dl->own_gpu_ids);
	memset(dl, 0, sizeof(*dl));
}

static void world_size_row(struct doctor_rows *r, const struct doctor_launch *dl)
{
	char subject[48];

	snprintf(subject, sizeof(subject), "WORLD_SIZE %ld", dl->world_size);
	if (dl->scheduler_tasks < 0 || dl->scheduler_tasks == dl->world_size) {
		doctor_add(r, DOCTOR_OK, "world-size", subject, NULL, "%zu node%s, %ld process%s%s",
		           dl->nnodes, dl->nnodes == 1 ? "" : "s", dl->world_size,
		           dl->world_size == 1 ? "" : "es",
		           dl->scheduler_tasks < 0 ? "" : ", one per task the scheduler started");
		return;
	}
	doctor_add(r, DOCTOR_PROBLEM, "world-size", subject,
	           "start one task per node (srun --ntasks-per-node=1) for --nproc-per-node, or "
	           "leave --nproc-per-node out",
	           "the scheduler started %ld tasks, and each would start %ld processes",
	           dl->scheduler_tasks, dl->world_size / (dl->scheduler_tasks ? dl->scheduler_tasks : 1));
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* No two tasks of the cluster share an address. */
static void addresses_row(struct doctor_rows *r, const muster_result *res)
{
	size_t n = 0, k = 0;
	for (size_t j = 0; j < muster_result_job_count(res); j++)
		n += muster_result_task_count(res, muster_result_job_name(res, j));
	const char **all = calloc(n ? n : 1, sizeof(*all));
	if (all == NULL) {
		r->oom = 1;
		return;
	}
	for (size_t j = 0; j < muster_result_job_count(res); j++) {
		const char *job = muster_result_job_name(res, j);
		for (size_t i = 0; i < muster_result_task_count(res, job); i++)
			muster_result_task_at(res, job, i, NULL, &all[k++]);
	}
	qsort(all, k, sizeof(*all), by_string);
	size_t dup = 0;
	while (dup + 1 < k && strcmp(all[dup], all[dup + 1]) != 0)
		dup++;
	if (dup + 1 < k)
		doctor_add(r, DOCTOR_PROBLEM, "duplicates", all[dup],
		           "give each task its own address (another port)",
		           "two tasks of the cluster have this address: their servers would collide");
	else
		doctor_add(r, DOCTOR_OK, "duplicates", "addresses", NULL,
		           "the cluster's %zu task addresses are distinct", k);
	free(all);
}

static void devices_row(struct doctor_rows *r, const struct doctor_launch *dl)
{
	muster_error err = { 0, "" };
	muster_devices *d = NULL;
	const char *kind;
	long gpus = 0, procs = dl->node[dl->self].nproc;
	char subject[48];

	if (muster_local_devices(&d, NULL, &err) != 0) {
		doctor_add(r, DOCTOR_NOTE, "devices", "GPUs", NULL, "cannot count them: %s",
		           err.message);
		return;
	}
	for (size_t i = 0; muster_devices_at(d, i, &kind, NULL, NULL) == 0; i++)
		gpus += strcmp(kind, "GPU") == 0;
	muster_devices_free(d);
	snprintf(subject, sizeof(subject), "%ld GPU%s", gpus, gpus == 1 ? "" : "s");
	if (gpus == 0)
		doctor_add(r, DOCTOR_OK, "devices", subject, NULL,
		           "none visible here: %ld CPU process%s", procs, procs == 1 ? "" : "es");
	else if (procs > gpus)
		doctor_add(r, DOCTOR_PROBLEM, "devices", subject,
		           "start one process per GPU (--nproc-per-node gpu), or make more GPUs "
		           "visible (CUDA_VISIBLE_DEVICES)",
		           "%ld processes on this node, more than its visible GPUs: some would share "
		           "one", procs);
	else if (procs < gpus)
		doctor_add(r, DOCTOR_NOTE, "devices", subject, NULL,
		           "%ld process%s on this node: %ld GPU%s idle", procs, procs == 1 ? "" : "es",
		           gpus - procs, gpus - procs == 1 ? "" : "s");
	else
		doctor_add(r, DOCTOR_OK, "devices", subject, NULL, "one per process on this node");
}

void doctor_check_launch(struct doctor_rows *r, const struct doctor_launch *dl,
                         const muster_result *res)
{
	world_size_row(r, dl);
	addresses_row(r, res);
	devices_row(r, dl);
}
