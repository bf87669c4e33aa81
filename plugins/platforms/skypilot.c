/*
 * A SkyPilot task's node, docs/platforms.md §9 (the run stage).
 *
 * Detect: SKYPILOT_NODE_RANK and SKYPILOT_NODE_IPS (one without the
 * other: unavail).  The setup stage's SKYPILOT_SETUP_* are a cluster-wide
 * view, not the task's: they are not read.
 *
 * Members: SKYPILOT_NODE_IPS, one IP a line in rank order; the count must
 * be SKYPILOT_NUM_NODES where set.  Own task SKYPILOT_NODE_RANK.  GPUs:
 * SKYPILOT_NUM_GPUS_PER_NODE on every node.  SkyPilot names no port: the
 * entry's port, and SKYPILOT_TASK_ID as the job id (the launch derives the
 * master port from it, the same on every node).
 */
#include <config.h>

#include "platforms.h"

static const char *const sky_vars[] = { "SKYPILOT_NODE_RANK", "SKYPILOT_NODE_IPS", NULL };

static muster_status build(struct pf_run *run, const struct env_list *ips, long rank, long gpus)
{
	struct env_reader *env = &run->env;
	const char *task_id = env_str(env, "SKYPILOT_TASK_ID");

	if (pf_add_hosts(run, "worker", (const char *const *)ips->items, ips->n,
	                 run->port) != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (size_t i = 0; gpus > 0 && i < ips->n; i++)
		if (run->host->add_accelerator(run->call, "worker", (long)i, "GPU", gpus) != 0)
			return MUSTER_STATUS_UNAVAIL;
	if (task_id != NULL && task_id[0] != '\0' && pf_job_id(run, task_id) != 0)
		return MUSTER_STATUS_UNAVAIL;
	return pf_finish(run, "worker", rank, MUSTER_PLACEMENT_NODES);
}

muster_status pf_skypilot(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	struct env_list ips;
	const char *missing;
	long rank, count, gpus = 0;
	muster_status st;

	if (pf_which(run, sky_vars, &missing) == 0)
		return pf_notfound(run, "neither SKYPILOT_NODE_RANK nor SKYPILOT_NODE_IPS is set: not "
		                        "a SkyPilot task");
	if (missing != NULL)
		return pf_half(run, "SkyPilot", sky_vars, missing);
	if (env_hosts(env, "SKYPILOT_NODE_IPS", "\n", PF_MAX_TASKS, &ips) <= 0)
		return pf_env_failed(run);
	if (env_index(env, "SKYPILOT_NODE_RANK", (long)ips.n, "the lines of SKYPILOT_NODE_IPS",
	              &rank) <= 0 ||
	    env_int(env, "SKYPILOT_NUM_NODES", 1, PF_MAX_TASKS, &count) < 0 ||
	    env_int(env, "SKYPILOT_NUM_GPUS_PER_NODE", 0, 1L << 20, &gpus) < 0)
		st = pf_env_failed(run);
	else if (env_str(env, "SKYPILOT_NUM_NODES") != NULL && (size_t)count != ips.n)
		st = pf_unavail(run, "SKYPILOT_NUM_NODES is %ld but SKYPILOT_NODE_IPS has %zu lines",
		                count, ips.n);
	else
		st = build(run, &ips, rank, gpus);
	env_list_free(&ips);
	return st;
}
