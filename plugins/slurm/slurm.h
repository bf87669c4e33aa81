/* The slurm backend: the tasks of a Slurm step (or batch script) as Slurm
 * placed them, from the environment Slurm gives each task: its node
 * order, its task distribution, each task at host:port_base + its local
 * rank; or, with order = "tensorflow", TensorFlow's SlurmClusterResolver
 * layout (hosts sorted as strings).  Laid out by the scheduler layout the
 * pbs, lsf and mpi backends share (plugins/common/layout.c), with its
 * limits.
 *
 *   slurm.c     descriptor, open()/close(), resolve()
 *   options.c   the entry's options
 *   env.c       the step's variables
 *   dist.c      SLURM_DISTRIBUTION, and an arbitrary step's task list
 *   build.c     the hosts and counts in either order, the own task checked
 *               against where Slurm says it runs, the layout
 */
#ifndef MUSTER_SLURM_H
#define MUSTER_SLURM_H

#include <muster/plugin.h>

#include "hostlist.h"
#include "plugins/common/answer.h"
#include "plugins/common/layout.h"
#include "plugins/common/noted.h"

/* The `order` option. */
enum slurm_order {
	SLURM_ORDER_SLURM = 0,      /* Slurm's node order and task distribution */
	SLURM_ORDER_TENSORFLOW = 1  /* TensorFlow's: hosts sorted as strings, block */
};

/* The entry's options, TensorFlow's keyword names; -1: not given. */
struct slurm_conf {
	struct layout_job *jobs; /* sorted by name: TF's allocation order; names are the config's */
	size_t njobs;
	long port_base;
	long gpus_per_node, gpus_per_task;
	long tasks_per_node;        /* every host the same */
	struct layout_job *tpn_map; /* or a fixed host -> tasks map (no host list read), */
	size_t ntpn_map;            /* in the order written */
	int auto_set_gpu;
	char *rpc_layer;
	int order;                  /* enum slurm_order */
};

/* The variables of the step, or of the job when there is no step. */
struct slurm_names {
	const char *nodelist, *num_tasks, *tasks_per_node, *gpus;
};

/* How Slurm dealt the tasks onto the nodes: SLURM_DISTRIBUTION's first
 * level.  Block, cyclic and plane are a plane size (0, 1, P: struct
 * slots_deal); arbitrary names each task's host. */
struct slurm_dist {
	long plane;
	int arbitrary;
	char text[64];           /* "SLURM_DISTRIBUTION=cyclic", or "block (the default)" */
	/* arbitrary: the host of each task, in rank order, at least the
	 * step's tasks of them (the rest is not used) */
	const char **rank_hosts;
	size_t nrank_hosts;
	char from[300];          /* SLURM_ARBITRARY_NODELIST, or "SLURM_HOSTFILE PATH" */
	struct hostlist list;    /* SLURM_ARBITRARY_NODELIST expanded */
	char *file;              /* SLURM_HOSTFILE's bytes, which rank_hosts point into */
};

/* What one resolve reads from the environment. */
struct slurm_env {
	struct slurm_names names;
	long rank;
	long num_tasks;          /* -1: not read (jobs given) */
	struct hostlist hosts;   /* empty: not read */
	long *counts;            /* tasks per host, hosts.n of them */
	size_t ncounts;
	char counts_text[48];    /* the tasks-per-node list as given, for reasons */
	long gpus;               /* per node; -1: not read, 0: none */
	const char *gpus_from;   /* the variable `gpus` came from; NULL: none */
	int *gpu_ids;            /* `gpus` ids as Slurm set them; NULL: ordinals */
	const char *job_id;      /* SLURM_JOB_ID (SLURM_JOBID); NULL: none */
	struct slurm_dist dist;  /* Slurm's order only */
	/* Where Slurm says this task runs (Slurm's order only): NULL, -1 when
	 * unset. */
	const char *nodename;    /* SLURMD_NODENAME */
	long nodeid, localid;    /* SLURM_NODEID, SLURM_LOCALID */
};

/* options.c: the descriptor's open() and close(). */
int slurm_open(const muster_host *host, muster_plugin_ctx *pc, void **state);
void slurm_close(void *state);

/* MUSTER_STATUS_SUCCESS, or another status after host->fail().  Every
 * variable looked up is noted through `n`. */
muster_status slurm_read_env(const struct slurm_conf *conf, struct noted *n,
                             struct slurm_env *env);
void slurm_env_free(struct slurm_env *env);

/* dist.c: SLURM_DISTRIBUTION (and SLURM_DIST_PLANESIZE) into env->dist;
 * for arbitrary, the task list of SLURM_ARBITRARY_NODELIST or a readable
 * SLURM_HOSTFILE, at least `tasks` hosts of it.  SUCCESS or UNAVAIL after
 * fail(). */
muster_status slurm_read_dist(struct noted *n, long tasks, struct slurm_dist *dist);
void slurm_dist_free(struct slurm_dist *dist);

/* build.c: the layout, through the host's builder. */
muster_status slurm_build(const struct slurm_conf *conf, const struct slurm_env *env,
                          const muster_host *host, muster_call *call);
/* The hosts as given (the tasks_per_node group's, else the node list's),
 * and the i-th with its task count. */
size_t slurm_host_count(const struct slurm_conf *conf, const struct slurm_env *env);
void slurm_host_at(const struct slurm_conf *conf, const struct slurm_env *env, size_t i,
                   const char **name, long *count);
/* Where the task counts came from, for a reason. */
void slurm_counts_source(const struct slurm_conf *conf, const struct slurm_env *env, char *buf,
                         size_t size);

/* order_tensorflow.c: the hosts sorted as strings, each once with its
 * count, into `s`.  0, or -1 after fail(). */
int slurm_tf_slots(const struct slurm_conf *conf, const struct slurm_env *env, struct slots *s,
                   const muster_host *h, muster_call *call);

/* order_slurm.c: the hosts in Slurm's order, each once (a host listed
 * twice is refused), with its count, into `s`; for an arbitrary step
 * also each rank's host position, into *rank_host (the caller frees it).
 * 0, or -1 after fail(). */
int slurm_slots(const struct slurm_conf *conf, const struct slurm_env *env, struct slots *s,
                size_t **rank_host, const muster_host *h, muster_call *call);
/* The own task (SLURM_PROCID), as laid out, runs where Slurm says this
 * process runs: SLURMD_NODENAME its host, SLURM_NODEID its host's place
 * in the node list, SLURM_LOCALID its place on the host, each when set.
 * SUCCESS, or UNAVAIL after fail() naming both values. */
muster_status slurm_check_self(const struct slurm_conf *conf, const struct slurm_env *env,
                               const struct slots *s, const size_t *rank_host,
                               const muster_host *h, muster_call *call);

#endif
