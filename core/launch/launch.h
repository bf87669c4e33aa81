/* The launch plan: a result and a launch turned, once, into units (the
 * training tasks, in rank order), nodes (hosts, in the scheduler's order)
 * and the numbers every process of the launch gets.  Every launch output
 * (env, hostfile, run, Python's env()) reads it. */
#ifndef MUSTER_CORE_LAUNCH_H
#define MUSTER_CORE_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include <muster/muster.h>

#include "model/model.h"

/* One training task: under processes placement one process a scheduler
 * started, under nodes placement a node on which `muster run` starts
 * processes. */
struct plan_unit {
	const struct job *job;
	long index;
	const char *address;
	long nproc;  /* processes of the unit */
	long rank0;  /* its first global rank: the processes of the units before it */
	long local0; /* its first local rank: those of the units before it on its node */
	uint32_t node;
};

struct plan_node {
	const char *host;   /* as the addresses write it (IPv6 in brackets), in plan->text */
	long nproc;         /* processes on the node */
	size_t first_unit;  /* its first unit, in rank order */
};

struct muster_plan {
	muster_result *r;   /* a reference: the plan outlives the caller's result */
	char *framework;    /* the launch's; NULL for a hostfile-only plan */
	int tensorflow;     /* the launch is TF_CONFIG's: no units are built */
	int placement;      /* the result's MUSTER_PLACEMENT_* */
	const char *task_type; /* the launch's own task (in r, or task_copy) */
	long task_id;
	char *task_copy;
	char *jobs;         /* the launch's --jobs, for messages */
	long tf_nproc;      /* tensorflow: the processes of this task */
	struct plan_unit *unit;
	size_t nunits;
	struct plan_node *node;
	size_t nnodes;
	char *text;         /* the nodes' hosts */
	long world;
	size_t self;        /* the own unit, SIZE_MAX: none, and env fails with env_code */
	int env_code;
	char env_why[600];
	char master_host[256]; /* unit 0's host, without brackets */
	int master_port;
	int one_unit_per_node, equal_counts; /* PET_* are true when both hold */
	int gpu_counts;     /* units run a process per GPU (MUSTER_NPROC_GPU) */
	char note[160];     /* "assuming ...", or "" */
};

/* The own unit, NULL when there is none (p->env_code says why). */
const struct plan_unit *plan_self(const struct muster_plan *p);

/* MUSTER_EINVAL unless `l` starts from MUSTER_LAUNCH_INIT and its
 * nproc_per_node is MUSTER_NPROC_GPU or 1..MUSTER_NPROC_PER_NODE_MAX. */
int launch_check(const muster_launch *l, muster_error *err);

/* The training tasks of `l->jobs`, master first, into p->unit (only job,
 * index and address set).  A sparse job is recorded in p->env_code: env
 * needs ranks 0..n-1, a hostfile does not. */
int plan_units(struct muster_plan *p, const muster_launch *l, muster_error *err);

/* The launch's local_gpus, where the caller's struct has it; else 0. */
long launch_local_gpus(const muster_launch *l);

/* Each unit's process count (l->nproc_per_node, or its GPUs), p->note. */
int plan_counts(struct muster_plan *p, const muster_launch *l, muster_error *err);

/* The master port by the rule of muster(3): MUSTER_MASTER_PORT, the
 * config's master_port, derived from the job id, the master task's port
 * (`task_port`). */
int plan_master_port(const muster_result *r, const char *task_port, int *port, muster_error *err);

/* The host of "HOST:PORT" (an IPv6 address without its brackets) and the
 * port, as NUL-terminated copies in `host` (size bytes) and `port`. */
int launch_split_address(const char *address, char *host, size_t size, char port[6]);

/* The length of the host part of "HOST:PORT" as written (brackets kept);
 * 0 when there is no port. */
size_t launch_host_length(const char *address);

#endif
