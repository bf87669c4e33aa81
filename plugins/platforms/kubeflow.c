/*
 * A Kubeflow training-operator v1 PyTorchJob pod, docs/platforms.md §2.1.
 *
 * Detect: in a pod (KUBERNETES_SERVICE_HOST) with PET_NNODES and the
 * operator's MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK (a Master
 * replica: master mode), or PET_RDZV_ENDPOINT (elastic mode).  PET_NNODES
 * without either is the Trainer's (trainer.c).  LOCAL_RANK set means a
 * launcher started this process inside the pod (muster run, accelerate):
 * its contract is the innermost one (launcher.c), not the pod's.
 *
 * The trap: RANK counts pods (master 0, worker i is i + 1) while
 * WORLD_SIZE counts processes, pods × nprocPerNode where nprocPerNode is
 * an integer (else 1).  PET_NNODES is the pod count; WORLD_SIZE must be it
 * times the integer PET_NPROC_PER_NODE (times 1 without one), or it
 * alone.  The answer is the pods, one node each: `muster run
 * --nproc-per-node N` then runs pods × N processes, ranks RANK × N +
 * local rank.
 *
 * Members: job master, "<job>-master-0" (MASTER_ADDR), and job worker,
 * "<job>-worker-<i>" (each replica's Service, namespace-relative, as the
 * operator names them), all at MASTER_PORT (the pytorchjob-port every
 * replica declares).  A MASTER_ADDR of another shape leaves the workers'
 * names unknown (placeholders).
 *
 * Elastic mode numbers the pods in torchrun's rendezvous, which no
 * variable shows: unavail, pointing at torchrun.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "platforms.h"

static const char *const master_mode[] = { "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK",
                                           NULL };

/* WORLD_SIZE over pods: the integer nprocPerNode, else 1.  WORLD_SIZE
 * equal to the pods is accepted too: the answer counts pods either way,
 * and WORLD_SIZE only checks that the variables belong together. */
static muster_status check_world(struct pf_run *run, long pods, long world)
{
	long nproc = 1;
	const char *given = env_str(&run->env, "PET_NPROC_PER_NODE");

	if (given != NULL && env_parse_int(given, 1, PF_MAX_TASKS, &nproc) < 0)
		nproc = 1; /* "auto", "gpu", "cpu": the operator counts 1 */
	if (world == pods * nproc || world == pods)
		return MUSTER_STATUS_SUCCESS;
	return pf_unavail(run, "WORLD_SIZE %ld is not PET_NNODES %ld pods times %ld processes "
	                       "(PET_NPROC_PER_NODE%s%s), as the training operator sets it",
	                  world, pods, nproc, given ? "=" : " unset", given ? given : "");
}

static muster_status build(struct pf_run *run, const char *master, long port, long pods,
                           long rank)
{
	struct pf_name name;
	char host[300];
	int named;

	pf_name_split(&name, master);
	named = pf_label_ends(&name, "-master-0");
	if (pf_add_hosts(run, "master", &master, 1, port) != 0 ||
	    muster_plugin_add_job_sized(run->host, run->call, "worker", pods - 1) != 0)
		return MUSTER_STATUS_UNAVAIL;
	for (long i = 0; i + 1 < pods; i++) {
		char address[320];

		if (named)
			pf_name_derive(host, sizeof(host), &name, name.label - strlen("master-0"),
			               "worker-", i);
		else
			pf_placeholder(host, sizeof(host), "pytorchjob-worker", i);
		snprintf(address, sizeof(address), "%s:%ld", host, port);
		if (run->host->add_task(run->call, "worker", i, address) != 0)
			return MUSTER_STATUS_UNAVAIL;
	}
	return pf_finish(run, rank == 0 ? "master" : "worker", rank == 0 ? 0 : rank - 1,
	                 MUSTER_PLACEMENT_NODES);
}

muster_status pf_kubeflow(struct pf_run *run)
{
	struct env_reader *env = &run->env;
	const char *master, *missing, *endpoint;
	long pods, world, rank, port, node_rank;
	unsigned set;

	if (env_str(env, "PET_NNODES") == NULL)
		return pf_notfound(run, "PET_NNODES is not set: not a PyTorchJob pod");
	if (env_str(env, "KUBERNETES_SERVICE_HOST") == NULL)
		return pf_notfound(run, "KUBERNETES_SERVICE_HOST is not set: not in a pod");
	if (env_str(env, "LOCAL_RANK") != NULL)
		return pf_notfound(run, "LOCAL_RANK is set: a launcher started this process inside "
		                        "the pod (the launcher entry reads it)");
	set = pf_which(run, master_mode, &missing);
	if ((endpoint = env_str(env, "PET_RDZV_ENDPOINT")) != NULL && set == 0)
		return pf_unavail(run, "an elastic PyTorchJob (PET_RDZV_ENDPOINT=%s): torchrun's "
		                       "rendezvous numbers its pods; run the training under torchrun, "
		                       "which reads the PET_* variables, and muster inside it",
		                  endpoint);
	if (set == 0)
		return pf_notfound(run, "none of MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK is "
		                        "set: not a training-operator v1 pod");
	if (missing != NULL)
		return pf_half(run, "a PyTorchJob's master mode", master_mode, missing);
	if (env_int(env, "PET_NNODES", 1, PF_MAX_TASKS, &pods) <= 0 ||
	    env_host(env, "MASTER_ADDR", &master) <= 0 ||
	    env_int(env, "MASTER_PORT", 1, 65535, &port) <= 0 ||
	    env_int(env, "WORLD_SIZE", 1, PF_MAX_TASKS, &world) <= 0 ||
	    env_index(env, "RANK", pods, "PET_NNODES, the pods", &rank) <= 0 ||
	    env_int(env, "PET_NODE_RANK", 0, PF_MAX_TASKS, &node_rank) < 0)
		return pf_env_failed(run);
	if (env_str(env, "PET_NODE_RANK") != NULL && node_rank != rank)
		return pf_unavail(run, "PET_NODE_RANK is %ld but RANK %ld: the operator sets both to "
		                       "the pod's index", node_rank, rank);
	if (check_world(run, pods, world) != MUSTER_STATUS_SUCCESS)
		return MUSTER_STATUS_UNAVAIL;
	return build(run, master, port, pods, rank);
}
