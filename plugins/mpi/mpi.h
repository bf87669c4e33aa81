/*
 * mpi backend: internal interfaces between its files.
 *
 *   mpi.c      descriptor, open()/close(), resolve(): the environment, the
 *              hosts of the ranks, the cluster
 *   options.c  the entry's options
 *   env.c      rank, size, ranks on this host and the job id from the
 *              launcher's variables (Open MPI, PMIx, MPICH's Hydra)
 *   pmix.c     every rank's host from the launcher's PMIx server, through
 *              libpmix loaded only then
 */
#ifndef MUSTER_PLUGINS_MPI_H
#define MUSTER_PLUGINS_MPI_H

#include <stdbool.h>
#include <stddef.h>

#include <muster/plugin.h>

#include "plugins/common/answer.h"
#include "plugins/common/noted.h"

#define MPI_DEFAULT_PMIX_LIBRARY "libpmix.so.2"

struct mpi_conf {
	long port_base;
	long gpus_per_node;  /* -1: not given */
	long gpus_per_task;  /* -1: not given */
	char *rpc_layer;
	char *pmix_library;
	bool defer_to_slurm; /* an srun task that is also an MPI rank: notfound */
};

struct mpi_env {
	long rank;
	long size;          /* 0: not in the environment (PMIx knows it) */
	long local_size;    /* ranks on this host; 0: not in the environment */
	long local_rank;    /* this rank's place among them; -1: not in the environment */
	const char *rank_var, *size_var, *local_var, *local_rank_var;
	bool pmix;          /* a PMIx server is there to ask */
	const char *job_id; /* NULL: none */
};

/* options.c: the descriptor's open() and close(). */
int mpi_open(const muster_host *host, muster_plugin_ctx *pc, void **state);
void mpi_close(void *state);

/* env.c: SUCCESS, NOTFOUND (no rank variable: not an MPI process; an
 * srun task under defer_to_slurm) or UNAVAIL, with the variable at fault.
 * Every variable looked up is noted through `n`. */
muster_status mpi_read_env(struct noted *n, const struct mpi_conf *conf, struct mpi_env *env);

/* pmix.c: the host of every rank (e->size of them, asked for when 0),
 * each a fresh string in *hosts.  SUCCESS or UNAVAIL after fail(). */
muster_status mpi_pmix_hosts(const muster_host *host, muster_call *call, const char *library,
                             struct mpi_env *env, char ***hosts);

#endif
