/* The cluster a scheduler backend answers, laid out as TensorFlow's Slurm
 * family of resolvers does: each host's k-th task listens on
 * port_base + k, and the task list is cut into jobs in allocation order.
 * Addresses are checked before they reach the result, so a bad host name
 * is named with the variable or file it came from. */
#ifndef MUSTER_PLUGIN_COMMON_LAYOUT_H
#define MUSTER_PLUGIN_COMMON_LAYOUT_H

#include <muster/plugin.h>

#include "slots.h"

/* The limits every scheduler backend (slurm, pbs, lsf, mpi) applies, here
 * once so that they cannot drift apart:
 * task slots of one job (a rank, a size or a count past it is refused);
 * 65,536 hosts of 16 tasks, far above the largest training jobs run. */
#define LAYOUT_MAX_TASKS (1L << 20)
/* GPUs one node or one task may have, as an option or a variable. */
#define LAYOUT_MAX_GPUS (1L << 20)
/* GPU ids a layout hands out over all its tasks (16 MiB of them): what
 * bounds the memory of a GPU count that is a typo or hostile. */
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
	const int *gpu_ids;      /* a host's GPU ids by ordinal (Slurm's
	                          * CUDA_VISIBLE_DEVICES); NULL: the ordinals */
	int gpu_counts_only;     /* each task's GPU count but no ids */
	const char *gpu_source;  /* what gave gpus_per_task, named when the ids
	                          * would be too many; NULL: source */
	/* How the ranks are dealt onto the slots' hosts (struct slots_deal):
	 * `plane` ranks a host a round (0: block), or each rank's host. */
	long plane;
	const size_t *rank_host;
	/* The scheduler's order of the hosts (set_node_order); NULL: the
	 * slots' order, which is the scheduler's for every backend but a
	 * Slurm arbitrary step (its step list is sorted). */
	const char *const *node_order;
	size_t nnode_order;
	const char *job_id;      /* the launcher's job id (set_job_id); NULL: none */
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

/* The slots' tasks in rank order, dealt onto their hosts as l->plane or
 * l->rank_host says, cut into l->jobs; the job counts must add up to the
 * slots ("Requested N tasks but only M were assigned.", TensorFlow's
 * words, for jobs an option asks for).  A host's k-th task (its local
 * rank) listens on port_base + k.  Runs of a host's tasks go in through
 * add_task_range(): open() must have passed layout_open_check().  The
 * answer is a scheduler's: its tasks are processes (set_placement), its
 * hosts in the slots' order or l->node_order, l->job_id its id.  SUCCESS
 * or UNAVAIL after fail(). */
muster_status layout_build(const muster_host *host, muster_call *call, const struct layout *l,
                           const struct slots *s);

/* TensorFlow's default share of a node's GPUs: gpus_per_node divided by the
 * most tasks on one host, and its check; -1 after fail() ("GPU"). */
long layout_gpus_per_task(const muster_host *host, muster_call *call, long gpus_per_node,
                          long gpus_per_task, long max_tasks_per_host);

/* The most tasks any one host of `s` has. */
long layout_most_tasks(const struct slots *s);

#endif
