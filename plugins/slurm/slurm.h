/* The slurm backend: TensorFlow's SlurmClusterResolver over the
 * environment a Slurm step (or batch script) gives each task, laid out by
 * the scheduler layout the pbs, lsf and mpi backends share
 * (plugins/common/layout.c), with its limits. */
#ifndef MUSTER_SLURM_H
#define MUSTER_SLURM_H

#include <muster/plugin.h>

#include "hostlist.h"
#include "plugins/common/layout.h"

/* The entry's options, TensorFlow's keyword names; -1: not given. */
struct slurm_conf {
	struct layout_job *jobs; /* sorted by name: TF's allocation order; names are the config's */
	size_t njobs;
	long port_base;
	long gpus_per_node, gpus_per_task;
	long tasks_per_node;        /* every host the same */
	struct layout_job *tpn_map; /* or a fixed host -> tasks map (no host list read) */
	size_t ntpn_map;
	int auto_set_gpu;
	char *rpc_layer;
};

/* The variables of the step, or of the job when there is no step. */
struct slurm_names {
	const char *nodelist, *num_tasks, *tasks_per_node, *gpus;
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
