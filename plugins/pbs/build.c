/*
 * The pbs cluster, as TensorFlow's PBSClusterResolver source lays it out:
 * hosts in node-file order (not sorted), each with as many tasks as it has
 * lines (or tasks_per_node), jobs in the order written.  Each task has
 * one GPU unless use_cpus, or gpus_per_task GPUs (Slurm's rule) when
 * gpus_per_node or gpus_per_task is given; the k-th task of a host has
 * ordinals k*gpus_per_task onwards (plugins/common/layout.c).  The tasks
 * are processes, the hosts in the node file's order, the job PBS_JOBID.
 */
#include <config.h>

#include <stdio.h>

#include "pbs.h"
#include "plugins/common/hostfile.h"

/* PBS_NODENUM, when set, must be the host of this rank's slot, and
 * mpirun's OMPI_COMM_WORLD_LOCAL_RANK its place on that host. */
static muster_status check_place(struct noted *n, const struct slots *s, long rank)
{
	const muster_host *host = n->host;
	muster_call *call = n->call;
	long nodenum = -1, local = -1, slot = -1;
	size_t h = 0;

	if (env_int(&n->env, "PBS_NODENUM", 0, LAYOUT_MAX_TASKS, &nodenum) < 0 ||
	    env_int(&n->env, "OMPI_COMM_WORLD_LOCAL_RANK", 0, LAYOUT_MAX_TASKS - 1, &local) < 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "%s", n->env.why);
	if ((nodenum < 0 && local < 0) || slots_place(s, 0, NULL, rank, &h, &slot) != 0)
		return MUSTER_STATUS_SUCCESS; /* a rank past the slots: the layout says so */
	if (nodenum >= 0 && (long)h != nodenum)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "PBS_NODENUM is %ld but rank %ld is on host %zu (%.64s) of "
		                     "PBS_NODEFILE", nodenum, rank, h, s->hosts[h].name);
	if (local >= 0 && local != slot)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "OMPI_COMM_WORLD_LOCAL_RANK is %ld but rank %ld has slot %ld "
		                     "of its host %.64s in PBS_NODEFILE: the ranks are not placed "
		                     "in node-file order", local, rank, slot, s->hosts[h].name);
	return MUSTER_STATUS_SUCCESS;
}

static muster_status build(const muster_host *host, muster_call *call,
                           const struct pbs_conf *conf, const struct slots *s,
                           const char *source, const struct pbs_task *task)
{
	struct layout_job all = { "worker", s->total };
	struct layout l = { .source = source, .jobs = conf->jobs, .njobs = conf->njobs,
	                    .port_base = conf->port_base, .gpus_per_task = 1,
	                    .rank = task->rank, .rpc_layer = conf->rpc_layer,
	                    .job_id = task->job_id };

	if (conf->jobs == NULL) {
		l.jobs = &all;
		l.njobs = 1;
	}
	if (conf->use_cpus)
		l.gpus_per_task = 0;
	else if (conf->gpus_per_node >= 0 || conf->gpus_per_task >= 0)
		l.gpus_per_task = layout_gpus_per_task(host, call, conf->gpus_per_node,
		                                       conf->gpus_per_task, layout_most_tasks(s));
	if (l.gpus_per_task < 0)
		return MUSTER_STATUS_UNAVAIL;
	return layout_build(host, call, &l, s);
}

muster_status pbs_build(struct noted *n, const struct pbs_conf *conf, char *data, size_t len,
                        const char *source, const struct pbs_task *task)
{
	const muster_host *host = n->host;
	muster_call *call = n->call;
	struct slots file, per_host;
	const char *first = NULL;
	char why[300];
	muster_status st = MUSTER_STATUS_SUCCESS;

	if (data == NULL)
		return build(host, call, conf, &conf->fixed, "tasks_per_node", task);
	slots_init(&file);
	slots_init(&per_host);
	if (hostfile_parse(data, len, 0, &first, &file, why, sizeof(why)) != 0) {
		host->fail(call, "%s: %s", source, why);
		st = MUSTER_STATUS_UNAVAIL;
	}
	if (st == MUSTER_STATUS_SUCCESS && conf->tasks_per_node > 0) {
		/* The same count on every host of the file, duplicates collapsed. */
		for (size_t i = 0; i < file.nhosts && st == MUSTER_STATUS_SUCCESS; i++)
			if (slots_add(&per_host, file.hosts[i].name, conf->tasks_per_node,
			              LAYOUT_MAX_TASKS) < 0) {
				host->fail(call, "%s: tasks_per_node %ld on %zu hosts passes %ld tasks",
				           source, conf->tasks_per_node, file.nhosts, LAYOUT_MAX_TASKS);
				st = MUSTER_STATUS_UNAVAIL;
			}
	}
	if (st == MUSTER_STATUS_SUCCESS)
		st = check_place(n, conf->tasks_per_node > 0 ? &per_host : &file, task->rank);
	if (st == MUSTER_STATUS_SUCCESS)
		st = build(host, call, conf, conf->tasks_per_node > 0 ? &per_host : &file, source,
		           task);
	slots_free(&per_host);
	slots_free(&file);
	return st;
}
