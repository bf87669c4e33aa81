/*
 * A torchrun (TorchElastic) worker, docs/platforms.md §1: the launch that
 * started this process, which it reports as processes in rank order.
 *
 * Detect: TORCHELASTIC_RUN_ID (PyTorch's own is_torchelastic_launched()).
 * Then RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
 * MASTER_ADDR and MASTER_PORT must all be there (else unavail naming the
 * first missing: a process that inherited the run id without being a
 * worker); GROUP_WORLD_SIZE too where torchrun sets it (else WORLD_SIZE /
 * LOCAL_WORLD_SIZE).
 *
 * torchrun publishes only the master (rank 0's agent, MASTER_ADDR): the
 * other nodes' hosts are placeholders, so env and run work (they need
 * only the master and the ranks) while resolve and tf-config say what is
 * missing.  Every node runs LOCAL_WORLD_SIZE workers, numbered
 * GROUP_RANK × LOCAL_WORLD_SIZE + local rank; workers started with
 * --virtual-local-rank (LOCAL_RANK 0 for all) get their real position.
 * Nodes with different worker counts cannot be laid out: unavail.
 * MASTER_PORT stays the master's port (the agent's store is there).
 */
#include <config.h>

#include "platforms.h"

static const char *const required[] = { "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
                                        "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT", NULL };

muster_status pf_torchrun(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	long world, rank, local_world, local_rank, groups, group, port, local;
	const char *master, *missing;

	if (env_str(env, "TORCHELASTIC_RUN_ID") == NULL)
		return pf_notfound(run, "TORCHELASTIC_RUN_ID is not set: not a torchrun worker");
	pf_which(run, required, &missing);
	if (missing != NULL)
		return pf_unavail(run, "TORCHELASTIC_RUN_ID is set but %s is not: not a torchrun "
		                       "worker's environment (torchrun sets them together)", missing);
	if (env_int(env, "WORLD_SIZE", 1, PF_MAX_TASKS, &world) <= 0 ||
	    env_index(env, "RANK", world, "WORLD_SIZE", &rank) <= 0 ||
	    env_int(env, "LOCAL_WORLD_SIZE", 1, world, &local_world) <= 0 ||
	    env_index(env, "LOCAL_RANK", local_world, "LOCAL_WORLD_SIZE", &local_rank) <= 0 ||
	    env_int(env, "GROUP_RANK", 0, world - 1, &group) <= 0 ||
	    env_host(env, "MASTER_ADDR", &master) <= 0 ||
	    env_int(env, "MASTER_PORT", 1, 65535, &port) <= 0)
		return pf_env_failed(run);
	switch (env_int(env, "GROUP_WORLD_SIZE", 1, world, &groups)) {
	case 0:
		groups = world / local_world;
		break;
	case 1:
		break;
	default:
		return pf_env_failed(run);
	}
	if (group >= groups)
		return pf_unavail(run, "GROUP_RANK must be an index below %ld (GROUP_WORLD_SIZE), not %ld",
		                  groups, group);
	local = rank - group * local_world;
	if (groups * local_world != world || local < 0 || local >= local_world ||
	    (local_rank != local && local_rank != 0))
		return pf_unavail(run, "torchrun's nodes run different numbers of workers (WORLD_SIZE "
		                       "%ld over %ld nodes, LOCAL_WORLD_SIZE %ld here, RANK %ld, "
		                       "GROUP_RANK %ld): the other nodes' shares are unknown",
		                  world, groups, local_world, rank, group);
	return pf_add_processes(run, &(struct pf_procs){ world, local_world, rank, master, port,
	                                                 "torchrun-node" });
}
