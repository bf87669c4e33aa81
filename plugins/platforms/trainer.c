/*
 * A Kubeflow Trainer v2 TrainJob node, docs/platforms.md §3: the torch
 * runtime's PET_* (torchrun's arguments) or the JAX runtime's JAX_*.
 * Both are node-level: one task per pod, in completion-index order.
 *
 * torch: PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR, PET_MASTER_PORT
 *   (PET_NPROC_PER_NODE as well, read by torchrun, not here).  Anyone who
 *   sets torchrun's arguments this way is read the same.  The v1
 *   operator's MASTER_ADDR, RANK and WORLD_SIZE, which the Trainer never
 *   sets, mean another layer: a PyTorchJob (kubeflow.c) or a launcher that
 *   started this process with the PET_* of its node (launcher.c).
 * jax: JAX_COORDINATOR_ADDRESS (host:port), JAX_NUM_PROCESSES,
 *   JAX_PROCESS_ID.
 *
 * Members: the master "<job>-node-0-0.<job>" names the others
 * "<job>-node-0-<i>.<job>"; a master of another shape leaves them unknown
 * (placeholders).  Job worker, all at the master's port.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "platforms.h"

static const char *const torch_vars[] = { "PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR",
                                          "PET_MASTER_PORT", NULL };
static const char *const jax_vars[] = { "JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES",
                                        "JAX_PROCESS_ID", NULL };
static const char *const v1_vars[] = { "MASTER_ADDR", "RANK", "WORLD_SIZE", NULL };

/* Nodes 0..n-1 named after node 0's host, at `port`; own task `rank`. */
static muster_status build(struct pf_run *run, const char *master, long port, long n, long rank)
{
	struct pf_name name;
	char host[300], address[320];
	int named;

	pf_name_split(&name, master);
	named = pf_label_ends(&name, "-0");
	if (muster_plugin_add_job_sized(run->host, run->call, "worker", n) != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (long i = 0; i < n; i++) {
		if (i == 0)
			snprintf(host, sizeof(host), "%s", pf_host_form(address, sizeof(address), master));
		else if (named)
			pf_name_derive(host, sizeof(host), &name, name.label - 1, "", i);
		else
			pf_placeholder(host, sizeof(host), "trainjob-node", i);
		snprintf(address, sizeof(address), "%s:%ld", host, port);
		if (run->host->add_task(run->call, "worker", i, address) != 0)
			return MUSTER_STATUS_UNAVAIL;
	}
	return pf_finish(run, "worker", rank, MUSTER_PLACEMENT_NODES);
}

static muster_status torch(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	const char *master;
	long nodes, rank, port;

	if (env_int(env, "PET_NNODES", 1, PF_MAX_TASKS, &nodes) <= 0 ||
	    env_index(env, "PET_NODE_RANK", nodes, "PET_NNODES", &rank) <= 0 ||
	    env_host(env, "PET_MASTER_ADDR", &master) <= 0 ||
	    env_int(env, "PET_MASTER_PORT", 1, 65535, &port) <= 0)
		return pf_env_failed(run);
	return build(run, master, port, nodes, rank);
}

/* JAX_COORDINATOR_ADDRESS ("host:port", an IPv6 host in brackets),
 * JAX_NUM_PROCESSES and JAX_PROCESS_ID, known to be set. */
muster_status pf_jax_contract(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	const char *coordinator;
	char host[300];
	long n, id, port;

	if (env_address(env, "JAX_COORDINATOR_ADDRESS", &coordinator) <= 0 ||
	    env_int(env, "JAX_NUM_PROCESSES", 1, PF_MAX_TASKS, &n) <= 0 ||
	    env_index(env, "JAX_PROCESS_ID", n, "JAX_NUM_PROCESSES", &id) <= 0)
		return pf_env_failed(run);
	const char *colon = strrchr(coordinator, ':');
	snprintf(host, sizeof(host), "%.*s", (int)(colon - coordinator), coordinator);
	if (env_parse_int(colon + 1, 1, 65535, &port) < 0)
		return pf_unavail(run, "JAX_COORDINATOR_ADDRESS has no port");
	return build(run, host, port, n, id);
}

muster_status pf_trainer(struct pf_run *run)
{
	const char *missing, *v1;
	unsigned torch_set = pf_which(run, torch_vars, &missing);

	if (torch_set != 0) {
		if (pf_which(run, v1_vars, &v1) != 0)
			return pf_notfound(run, "%s is set: not the Trainer's torch runtime, which sets "
			                        "only PET_* (another layer sets both)",
			                   env_get("MASTER_ADDR") ? "MASTER_ADDR"
			                   : env_get("RANK") ? "RANK" : "WORLD_SIZE");
		if (missing != NULL)
			return pf_half(run, "torchrun's node arguments (the Trainer's torch runtime)",
			               torch_vars, missing);
		return torch(run);
	}
	if (pf_which(run, jax_vars, &missing) == 0)
		return pf_notfound(run, "neither PET_NNODES nor JAX_COORDINATOR_ADDRESS is set: not "
		                        "a TrainJob node");
	if (missing != NULL)
		return pf_half(run, "the Trainer's JAX runtime", jax_vars, missing);
	return pf_jax_contract(run);
}
