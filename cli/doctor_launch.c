/* muster doctor: the launch as the plan sees it (its nodes, ranks, master
 * and world size), and the checks on it alone: the world size against
 * the tasks a scheduler started, duplicate task addresses, and
 * this node's visible GPUs against its processes. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "lib/env.h"

/* A host as a lookup takes it: an IPv6 address without its brackets. */
static char *bare_copy(const char *host)
{
	size_t len = strlen(host);
	if (len >= 2 && host[0] == '[' && host[len - 1] == ']')
		return strndup(host + 1, len - 2);
	return strdup(host);
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

/* Under a scheduler that started the processes, its count of them. */
static long scheduler_tasks(const muster_result *res, const char **var)
{
	static const char *const names[] = { "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS",
	                                     "OMPI_COMM_WORLD_SIZE", "PMI_SIZE" };
	if (muster_result_placement(res) != MUSTER_PLACEMENT_PROCESSES)
		return -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = env_get(names[i]);
		char *end;
		long n = v ? strtol(v, &end, 10) : 0;
		if (v != NULL && *v != '\0' && *end == '\0' && n > 0) {
			*var = names[i];
			return n;
		}
	}
	return -1;
}

int doctor_launch_read(struct doctor_launch *dl, const muster_plan *plan, const muster_result *res)
{
	memset(dl, 0, sizeof(*dl));
	if (muster_plan_node_rank(plan) < 0) {
		cli_error("doctor: this node's own task is unknown or not a training task; name it "
		          "with --task TYPE:ID");
		return CLI_EXIT_NOENT;
	}
	dl->nnodes = muster_plan_node_count(plan);
	dl->node = calloc(dl->nnodes ? dl->nnodes : 1, sizeof(*dl->node));
	if (dl->node == NULL)
		return cli_fail(MUSTER_ENOMEM, NULL);
	for (size_t i = 0; i < dl->nnodes; i++) {
		const char *host;
		muster_plan_node_at(plan, i, &host, &dl->node[i].nproc);
		if ((dl->node[i].host = bare_copy(host)) == NULL)
			return cli_fail(MUSTER_ENOMEM, NULL);
	}
	dl->self = (size_t)muster_plan_node_rank(plan);
	dl->master_host = strdup(muster_plan_master_host(plan));
	dl->master_port = muster_plan_master_port(plan);
	dl->world_size = muster_plan_world_size(plan);
	dl->scheduler_tasks = scheduler_tasks(res, &dl->scheduler_var);
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
	memset(dl, 0, sizeof(*dl));
}

static void world_size_row(struct doctor_rows *r, const struct doctor_launch *dl)
{
	char subject[48];

	snprintf(subject, sizeof(subject), "WORLD_SIZE %ld", dl->world_size);
	if (dl->scheduler_tasks < 0 || dl->scheduler_tasks == dl->world_size) {
		doctor_add(r, DOCTOR_OK, "world-size", subject, NULL, "%zu node%s, %ld process%s%s%s",
		           dl->nnodes, dl->nnodes == 1 ? "" : "s", dl->world_size,
		           dl->world_size == 1 ? "" : "es",
		           dl->scheduler_tasks < 0 ? "" : ": as many as the scheduler started, ",
		           dl->scheduler_tasks < 0 ? "" : dl->scheduler_var);
		return;
	}
	doctor_add(r, DOCTOR_PROBLEM, "world-size", subject,
	           "leave --nproc-per-node out (each task already is one process), or start one "
	           "task per node (srun --ntasks-per-node=1)",
	           "but the scheduler started %ld processes (%s): each of its tasks would start "
	           "more", dl->scheduler_tasks, dl->scheduler_var);
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
