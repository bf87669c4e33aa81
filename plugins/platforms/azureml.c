/*
 * An Azure Machine Learning run, docs/platforms.md §11: its PyTorch or its
 * MPI distribution, processes in rank order.
 *
 * Detect: AZUREML_RUN_ID, then
 *  - MPI: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE (from the
 *    mpirun Azure ML builds) with the master from AZ_BATCH_MASTER_NODE
 *    ("addr:port", several nodes) or AZ_BATCHAI_MPI_MASTER_NODE (a host,
 *    one node; the entry's port).  In the shipped chain the mpi entry,
 *    earlier, answers for these ranks whenever it can.
 *  - PyTorch: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK with LOCAL_RANK
 *    and NODE_RANK, read as any launcher's (launcher.c), which the
 *    launcher entry, earlier, answers for a per-process launch.
 * AZUREML_RUN_ID alone is a run without a distribution: notfound.
 * Other nodes' hosts are not given: placeholders "azureml-node-<n>.unknown.invalid".
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "platforms.h"

static const char *const torch_vars[] = { "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
                                          NULL };
static const char *const mpi_vars[] = { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                                        "OMPI_COMM_WORLD_LOCAL_RANK",
                                        "OMPI_COMM_WORLD_LOCAL_SIZE", NULL };

/* The master's host and port from AZ_BATCH_MASTER_NODE or
 * AZ_BATCHAI_MPI_MASTER_NODE: SUCCESS, or UNAVAIL after fail(). */
static muster_status mpi_master(struct pf_run *run, char *host, size_t size, long *port)
{
	struct env_reader *env = &run->env;
	const char *value;

	switch (env_address(env, "AZ_BATCH_MASTER_NODE", &value)) {
	case 1: {
		const char *colon = strrchr(value, ':');

		snprintf(host, size, "%.*s", (int)(colon - value), value);
		return env_parse_int(colon + 1, 1, 65535, port) == 0
		               ? MUSTER_STATUS_SUCCESS
		               : pf_unavail(run, "AZ_BATCH_MASTER_NODE has no port");
	}
	case -1:
		return pf_env_failed(run);
	}
	if (env_host(env, "AZ_BATCHAI_MPI_MASTER_NODE", &value) <= 0)
		return env_str(env, "AZ_BATCHAI_MPI_MASTER_NODE")
		               ? pf_env_failed(run)
		               : pf_unavail(run, "neither AZ_BATCH_MASTER_NODE nor "
		                                 "AZ_BATCHAI_MPI_MASTER_NODE is set: Azure ML's MPI "
		                                 "distribution names its master in one of them");
	snprintf(host, size, "%s", value);
	*port = run->port;
	return MUSTER_STATUS_SUCCESS;
}

static muster_status mpi(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	long size, rank, local_size, local, port;
	char host[300];
	muster_status st;

	if (env_int(env, "OMPI_COMM_WORLD_SIZE", 1, PF_MAX_TASKS, &size) <= 0 ||
	    env_index(env, "OMPI_COMM_WORLD_RANK", size, "OMPI_COMM_WORLD_SIZE", &rank) <= 0 ||
	    env_int(env, "OMPI_COMM_WORLD_LOCAL_SIZE", 1, size, &local_size) <= 0 ||
	    env_index(env, "OMPI_COMM_WORLD_LOCAL_RANK", local_size, "OMPI_COMM_WORLD_LOCAL_SIZE",
	              &local) <= 0)
		return pf_env_failed(run);
	if (size % local_size != 0 || rank % local_size != local)
		return pf_unavail(run, "OMPI_COMM_WORLD_RANK %ld is not local rank %ld of nodes of "
		                       "%ld ranks each (OMPI_COMM_WORLD_SIZE %ld): the other nodes' "
		                       "shares are unknown", rank, local, local_size, size);
	if ((st = mpi_master(run, host, sizeof(host), &port)) != MUSTER_STATUS_SUCCESS)
		return st;
	return pf_add_processes(run, &(struct pf_procs){ size, local_size, rank, host, port,
	                                                 "azureml-node" });
}

muster_status pf_azureml(struct pf_run *run)
{
	const char *missing;
	unsigned torch;

	if (env_str(&run->env, "AZUREML_RUN_ID") == NULL)
		return pf_notfound(run, "AZUREML_RUN_ID is not set: not an Azure ML run");
	if (pf_which(run, mpi_vars, &missing) != 0)
		return missing ? pf_half(run, "Azure ML's MPI distribution (Open MPI)", mpi_vars,
		                         missing)
		               : mpi(run);
	torch = pf_which(run, torch_vars, &missing);
	if (torch == 0)
		return pf_notfound(run, "an Azure ML run without a distribution (neither "
		                        "OMPI_COMM_WORLD_RANK nor MASTER_ADDR is set): one process");
	if (missing != NULL)
		return pf_half(run, "Azure ML's PyTorch distribution", torch_vars, missing);
	return pf_env_contract(run, "azureml-node");
}
