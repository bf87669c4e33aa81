/*
 * A launcher's bare contract, docs/platforms.md §14: MASTER_ADDR,
 * MASTER_PORT, WORLD_SIZE and RANK (PyTorch's env://), with LOCAL_RANK,
 * LOCAL_WORLD_SIZE and NODE_RANK where the launcher gives them.  Every
 * launcher muster does not know by name (muster run itself, accelerate,
 * DeepSpeed's, a platform that sets only these) is read the same way, as
 * processes in rank order.
 *
 * Two entries of the chain read it:
 *   launcher  early, right after torchrun: only the complete contract of
 *             a per-process launcher (the four and LOCAL_RANK, or JAX's
 *             JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and
 *             JAX_PROCESS_ID).  Such a worker is the innermost layer,
 *             whatever platform or scheduler variables it inherited.
 *             Anything less: notfound.
 *   bare      last before static: the contract at node level.  Without
 *             LOCAL_RANK each rank is one process on a node of its own
 *             (the pods of Alibaba PAI, Baidu AIHC or an old PyTorchJob:
 *             WORLD_SIZE nodes, RANK the node's), never localhost world 1;
 *             half of the four is unavail naming what is missing.
 *
 * The processes on a node: LOCAL_WORLD_SIZE, else what RANK, LOCAL_RANK
 * and NODE_RANK imply ((RANK - LOCAL_RANK) / NODE_RANK on node 1 and
 * after), else one; nodes that run different numbers cannot be laid out
 * (unavail), nor can node 0's share without LOCAL_WORLD_SIZE.
 */
#include <config.h>

#include "platforms.h"

static const char *const contract[] = { "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
                                        NULL };

/* The processes per node, from what is set: 0 with *per_node, or
 * UNAVAIL after fail(). */
static muster_status per_node(struct pf_run *run, long world, long rank, long *out)
{
	struct env_reader *env = &run->env;
	long local_world = 0, local = -1, node = -1;
	int has_lws, has_local, has_node;

	if ((has_lws = env_int(env, "LOCAL_WORLD_SIZE", 1, world, &local_world)) < 0 ||
	    (has_local = env_int(env, "LOCAL_RANK", 0, world - 1, &local)) < 0 ||
	    (has_node = env_int(env, "NODE_RANK", 0, world - 1, &node)) < 0)
		return pf_env_failed(run);
	if (has_lws) {
		*out = local_world;
		if (world % local_world != 0)
			return pf_unavail(run, "WORLD_SIZE %ld is not a multiple of LOCAL_WORLD_SIZE %ld: "
			                       "the nodes run different numbers of processes, whose "
			                       "shares are unknown", world, local_world);
	} else if (has_local && has_node && node > 0) {
		*out = (rank - local) / node;
		if (rank < local || (rank - local) % node != 0 || *out <= local || world % *out != 0)
			return pf_unavail(run, "RANK %ld, LOCAL_RANK %ld and NODE_RANK %ld do not fit "
			                       "nodes of equal size in WORLD_SIZE %ld, and LOCAL_WORLD_SIZE "
			                       "is not set", rank, local, node, world);
	} else if (world == 1) {
		*out = 1;
	} else if (has_local) {
		return pf_unavail(run, "LOCAL_RANK is set but not LOCAL_WORLD_SIZE%s: the processes "
		                       "per node are unknown", has_node ? ", and NODE_RANK is 0"
		                                                        : " nor NODE_RANK");
	} else {
		*out = 1; /* no per-process launcher: each rank a node's one process */
	}
	if (has_local && local != rank % *out)
		return pf_unavail(run, "LOCAL_RANK is %ld, but RANK %ld is process %ld of its node "
		                       "with %ld per node", local, rank, rank % *out, *out);
	if (has_node && node != rank / *out)
		return pf_unavail(run, "NODE_RANK is %ld, but RANK %ld is on node %ld with %ld "
		                       "processes per node", node, rank, rank / *out, *out);
	return MUSTER_STATUS_SUCCESS;
}

/* The four, known to be set, then the layout: SUCCESS or UNAVAIL. */
muster_status pf_env_contract(struct pf_run *run, const char *stem)
{
	struct env_reader *env = &run->env;
	long world, rank, port, n;
	const char *master;
	muster_status st;

	if (env_host(env, "MASTER_ADDR", &master) <= 0 ||
	    env_int(env, "MASTER_PORT", 1, 65535, &port) <= 0 ||
	    env_int(env, "WORLD_SIZE", 1, PF_MAX_TASKS, &world) <= 0 ||
	    env_index(env, "RANK", world, "WORLD_SIZE", &rank) <= 0)
		return pf_env_failed(run);
	if ((st = per_node(run, world, rank, &n)) != MUSTER_STATUS_SUCCESS)
		return st;
	return pf_add_processes(run, &(struct pf_procs){ world, n, rank, master, port, stem });
}

muster_status pf_launcher(struct pf_run *run)
{
	static const char *const jax[] = { "JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES",
	                                   "JAX_PROCESS_ID", NULL };
	const char *missing;

	if (env_str(&run->env, "LOCAL_RANK") == NULL) {
		/* JAX's per-process contract (muster run --for jax sets it). */
		if (pf_which(run, jax, &missing) != 0 && missing == NULL)
			return pf_jax_contract(run);
		return pf_notfound(run, "LOCAL_RANK is not set: no per-process launcher started "
		                        "this process");
	}
	pf_which(run, contract, &missing);
	if (missing != NULL)
		return pf_notfound(run, "LOCAL_RANK is set but %s is not: not a launcher's whole "
		                        "contract (the bare entry reads what there is)", missing);
	return pf_env_contract(run, "launcher-node");
}

muster_status pf_bare(struct pf_run *run)
{
	const char *missing;

	if (pf_which(run, contract, &missing) == 0)
		return pf_notfound(run, "none of MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK is set");
	if (missing != NULL)
		return pf_half(run, "a launcher (PyTorch's env:// contract)", contract, missing);
	return pf_env_contract(run, "node");
}
