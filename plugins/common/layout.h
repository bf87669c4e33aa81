/* The cluster a scheduler backend answers, laid out as TensorFlow's Slurm
 * family of resolvers does: each host's k-th task listens on
 * port_base + k, and the task list is cut into jobs in allocation order.
 * Addresses are checked before they reach the result, so a bad host name
 * is named with the variable or file it came from. */
#ifndef MUSTER_PLUGIN_COMMON_LAYOUT_H
#define MUSTER_PLUGIN_COMMON_LAYOUT_H

#include <muster/plugin.h>

#include "slots.h"

/* Task slots a layout takes at most, over all its hosts, and so the bound
 * of the ranks and counts the pbs, lsf and mpi backends read: 65,536, as
 * many as a Slurm host list may name hosts.  The slurm backend lays out
 * its tasks itself and allows SLURM_MAX_TASKS. */
#define LAYOUT_MAX_TASKS 65536L
/* GPU ids a layout hands out over all its tasks: 2^22, 16 MiB as ints. */
#define LAYOUT_MAX_GPU_IDS (1L << 22)

struct layout_job {
	const char *name;
	long count;
};

struct layout {
	const char *source;      /* names where the hosts came from, in reasons */
	const struct layout_job *jobs;
	size_t njobs;
	long port_base;
	long gpus_per_task;      /* GPUs of each task, the k-th of a host getting ordinals
	                          * k*gpus_per_task onwards; 0: none known */
	long rank;               /* this process's position in the task list */
	const char *rpc_layer;   /* NULL or "": none */
};

/* open()'s check for a backend whose tasks go in as ranges (layout_build(),
 * slurm): the ABI major first, then add_task_range (plugin ABI 1.4).  0,
 * or -1 after open_error(). */
static inline int layout_open_check(const muster_host *host, muster_plugin_ctx *pc)
{
	if (muster_plugin_abi_check(host, pc) != 0)
		return -1;
	if (MUSTER_HOST_HAS(host, add_task_range))
		return 0;
	host->open_error(pc, NULL, "needs a host of plugin ABI 1.4 or later, not %u.%u",
	                 (unsigned)host->abi_major, (unsigned)host->abi_minor);
	return -1;
}

/* Hosts in the order given, each with its slots, cut into l->jobs; the
 * job counts must add up to the slots ("Requested N tasks but only M were
 * assigned.", TensorFlow's words).  Each host's tasks go in through
 * add_task_range(): open() must have passed layout_open_check().  SUCCESS
 * or UNAVAIL after fail(). */
muster_status layout_build(const muster_host *host, muster_call *call, const struct layout *l,
                           const struct slots *s);

/* One job `worker` whose task r runs on rank_hosts[r]: the k-th rank on a
 * host listens on port_base + k.  SUCCESS or UNAVAIL after fail(). */
muster_status layout_build_ranks(const muster_host *host, muster_call *call,
                                 const struct layout *l, const char *const *rank_hosts,
                                 size_t n);

/* TensorFlow's default share of a node's GPUs: gpus_per_node divided by the
 * most tasks on one host, and its check; -1 after fail() ("GPU"). */
long layout_gpus_per_task(const muster_host *host, muster_call *call, long gpus_per_node,
                          long gpus_per_task, long max_tasks_per_host);

/* The GPUs of a host's k-th task, `gpt` of them: ordinals k*gpt onwards
 * (the slice TensorFlow writes into its CUDA_VISIBLE_DEVICES), each
 * mapped through id_map when given (the ids Slurm handed out), or only
 * their count from a host older than ABI 1.2.  0, or -1 after fail(). */
int layout_add_gpu_slice(const muster_host *host, muster_call *call, const char *job,
                         long index, long k, long gpt, const int *id_map);

#endif
