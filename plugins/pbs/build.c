/*
 * The pbs cluster, as TensorFlow's PBSClusterResolver source lays it out:
 * hosts in node-file order (not sorted), each with as many tasks as it has
 * lines (or tasks_per_node), jobs in the order written.  Each task has
 * one GPU unless use_cpus, or gpus_per_task GPUs (Slurm's rule) when
 * gpus_per_node or gpus_per_task is given; the k-th task of a host has
 * ordinals k*gpus_per_task onwards (plugins/common/layout.c).
 */
#include "config.h"

#include <stdio.h>

#include "lib/env.h"
#include "pbs.h"
#include "plugins/common/hostfile.h"

/* PBS_NODENUM, when set, must be the host of this rank's slot. */
static muster_status check_nodenum(const muster_host *host, muster_call *call,
                                   const struct slots *s, long rank)
{
	struct env_reader env = ENV_READER_INIT;
	long nodenum = 0, seen = 0;
	size_t h;
	int rc = env_int(&env, "PBS_NODENUM", 0, LAYOUT_MAX_TASKS, &nodenum);

	if (rc < 0) {
		host->fail(call, "%s", env.why);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (rc == 0)
		return MUSTER_STATUS_SUCCESS;
	for (h = 0; h < s->nhosts && seen + s->hosts[h].tasks <= rank; h++)
		seen += s->hosts[h].tasks;
	if (h < s->nhosts && (long)h != nodenum) {
		host->fail(call, "PBS_NODENUM is %ld but rank %ld is on host %zu (%.64s) of "
		           "PBS_NODEFILE", nodenum, rank, h, s->hosts[h].name);
		return MUSTER_STATUS_UNAVAIL;
	}
	return MUSTER_STATUS_SUCCESS;
}

static muster_status build(const muster_host *host, muster_call *call,
                           const struct pbs_conf *conf, const struct slots *s,
                           const char *source, long rank)
{
	struct layout_job all = { "worker", s->total };
	struct layout l = { .source = source, .jobs = conf->jobs, .njobs = conf->njobs,
	                    .port_base = conf->port_base, .gpus_per_task = 1, .rank = rank,
	                    .rpc_layer = conf->rpc_layer };

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

muster_status pbs_build(const muster_host *host, muster_call *call, const struct pbs_conf *conf,
                        char *data, size_t len, const char *source, long rank)
{
	struct slots file, per_host;
	const char *first = NULL;
	char why[300];
	muster_status st = MUSTER_STATUS_SUCCESS;

	if (data == NULL)
		return build(host, call, conf, &conf->fixed, "tasks_per_node", rank);
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
		st = check_nodenum(host, call, conf->tasks_per_node > 0 ? &per_host : &file, rank);
	if (st == MUSTER_STATUS_SUCCESS)
		st = build(host, call, conf, conf->tasks_per_node > 0 ? &per_host : &file, source,
		           rank);
	slots_free(&per_host);
	slots_free(&file);
	return st;
}
