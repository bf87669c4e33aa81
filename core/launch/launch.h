/* The launch plan: a result and a launch turned, once, into units (the
 * training tasks, in rank order), nodes (hosts, in the scheduler's order)
 * and the numbers every process of the launch gets.  Every launch output
 * (env, hostfile, run, Python's env()) reads it.
 *
 * Nothing is kept per unit: the units are runs of the result's own task
 * arrays (segments), and one pass over them sums what the outputs read —
 * the world, each node's processes, the own unit's first global and local
 * rank.  A 32,768-task step so costs its distinct hosts, not its tasks, in
 * memory. */
#ifndef MUSTER_CORE_LAUNCH_H
#define MUSTER_CORE_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include <muster/muster.h>

#include "model/arena.h"
#include "model/model.h"

struct net_env;

/* Units job->address[first .. first + count), in unit order. */
struct plan_seg {
	const struct job *job;
	size_t first, count;
	size_t unit; /* the first one's unit number */
};

struct plan_node {
	const char *host; /* as the addresses write it (IPv6 in brackets), NUL-terminated */
	long nproc;       /* processes on the node */
};

struct muster_plan {
	muster_result *r;   /* a reference: the plan outlives the caller's result */
	char *framework;    /* the launch's; NULL for a hostfile-only plan */
	int tensorflow;     /* the launch is TF_CONFIG's: no units are built */
	int placement;      /* the result's MUSTER_PLACEMENT_* */
	const char *task_type; /* the launch's own task (task_copy), NULL: the result's */
	long task_id;
	char *task_copy;
	char *jobs;         /* the launch's --jobs, for messages */
	long nproc;         /* each unit's processes, or MUSTER_NPROC_GPU */
	long local_gpus;    /* MUSTER_NPROC_GPU: a unit's count when the backend gives none */
	long tf_nproc;      /* tensorflow: the processes of this task */

	struct plan_seg seg[2]; /* seg[0]: the master; then one per training job, */
	struct plan_seg *segs;  /* in segs (seg when they fit) */
	size_t nseg, nunits;
	long world;
	int one_unit_per_node, equal_counts; /* PET_* are true when both hold */

	/* Processes placement: the distinct hosts in node order.  Nodes
	 * placement: node i is unit i, listed (lazy_nodes) only when asked. */
	struct plan_node *node;
	size_t nnodes;
	struct arena text;  /* the hosts of `node` */
	struct plan_node *lazy; /* nodes placement: its nodes, built once when asked */
	struct arena lazy_text;

	/* The own unit (self == SIZE_MAX: none, and env fails with env_code). */
	size_t self;
	const struct job *self_job;
	size_t self_pos;    /* its position in self_job */
	long self_rank0, self_local0, self_nproc, self_node_nproc;
	size_t self_node;
	int env_code;
	char env_why[600];

	char master_host[256]; /* unit 0's host, without brackets */
	int master_port;
	char note[200];     /* "assuming ...", or "" */
	struct net_env *net; /* muster_plan_probe_network()'s, NULL before */
};

/* plan_net.c: what muster_plan_probe_network() kept, for
 * muster_plan_free(). */
void plan_net_free(struct muster_plan *p);

/* MUSTER_EINVAL unless `l` starts from MUSTER_LAUNCH_INIT and its
 * nproc_per_node is MUSTER_NPROC_GPU or 1..MUSTER_NPROC_PER_NODE_MAX. */
int launch_check(const muster_launch *l, muster_error *err);

/* The training jobs of `l->jobs` as segments, master first; the own unit
 * located (or p->env_code saying why not).  A sparse job is recorded in
 * p->env_code too: env needs ranks 0..n-1, a hostfile does not. */
int plan_units(struct muster_plan *p, const muster_launch *l, muster_error *err);

/* Calls fn(data, job, pos, unit) for every unit, in order; stops at the
 * first non-zero return, which it returns. */
int plan_each_unit(const struct muster_plan *p,
                   int (*fn)(void *data, const struct job *job, size_t pos, size_t unit),
                   void *data);

/* The processes of one unit: p->nproc, or its GPUs (muster(3)); 0, or an
 * error for a unit with no GPU to count.  *assumed: this machine's count
 * stood in. */
int plan_unit_nproc(const struct muster_plan *p, const struct job *job, size_t pos, long *n,
                    int *assumed, muster_error *err);

/* The nodes of a nodes-placement plan (one per unit), built at the first
 * call; NULL when out of memory. */
const struct plan_node *plan_lazy_nodes(const struct muster_plan *p);

/* The launch's local_gpus, where the caller's struct has it; else 0. */
long launch_local_gpus(const muster_launch *l);

/* The master port by the rule of muster(3): MUSTER_MASTER_PORT, the
 * config's master_port, derived from the job id, the master task's port
 * (`task_port`). */
int plan_master_port(const muster_result *r, const char *task_port, int *port, muster_error *err);

/* The host of "HOST:PORT" (an IPv6 address without its brackets) and the
 * port, as NUL-terminated copies in `host` (size bytes) and `port`. */
int launch_split_address(const char *address, char *host, size_t size, char port[6]);

/* The length of the host part of "HOST:PORT" as written (brackets kept). */
size_t launch_host_length(const char *address);

#endif
