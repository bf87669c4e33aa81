/* The slurm backend: TensorFlow's SlurmClusterResolver over the
 * environment a Slurm step (or batch script) gives each task. */
#ifndef MUSTER_SLURM_H
#define MUSTER_SLURM_H

#include <muster/plugin.h>

#include "hostlist.h"

/* The most tasks one layout has, and so the bound of every count and rank
 * read for it (a job's count, tasks_per_node, SLURM_PROCID, the number of
 * tasks): 2^20, 32 times the 32,768 of a 4,096-node allocation of 8. */
#define SLURM_MAX_TASKS (1L << 20)

struct slurm_job {
	char *name;
	long count;
};

/* The entry's options, TensorFlow's keyword names; -1: not given. */
struct slurm_conf {
	struct slurm_job *jobs; /* sorted by name: TF's allocation order */
	size_t njobs;
	long port_base;
	long gpus_per_node, gpus_per_task;
	long tasks_per_node;       /* every host the same */
	struct slurm_job *tpn_map; /* or a fixed host -> tasks map (no host list read) */
	size_t ntpn_map;
	int auto_set_gpu;
	char *rpc_layer;
};

/* What one resolve reads from the environment. */
struct slurm_env {
	long rank;
	long num_tasks;          /* -1: not read (jobs given) */
	struct hostlist hosts;   /* empty: not read */
	long *counts;            /* tasks per host, hosts.n of them */
	size_t ncounts;
	long gpus;               /* per node; -1: not read, 0: none */
	int *gpu_ids;            /* `gpus` ids as Slurm set them; NULL: ordinals */
};

int slurm_conf_open(const muster_host *host, muster_plugin_ctx *pc, struct slurm_conf **out);
void slurm_conf_free(struct slurm_conf *conf);

/* MUSTER_STATUS_SUCCESS, or another status after host->fail(). */
muster_status slurm_read_env(const struct slurm_conf *conf, const muster_host *host,
                             muster_call *call, struct slurm_env *env);
void slurm_env_free(struct slurm_env *env);

/* TensorFlow's layout, through the host's builder. */
muster_status slurm_build(const struct slurm_conf *conf, const struct slurm_env *env,
                          const muster_host *host, muster_call *call);

#endif
