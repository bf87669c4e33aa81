/*
 * What an MPI launcher tells each process: Open MPI's mpirun sets
 * OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_SIZE}, a PMIx launcher PMIX_RANK and
 * PMIX_NAMESPACE (the size is then asked of its server), MPICH's Hydra
 * PMI_RANK, PMI_SIZE and MPI_LOCALNRANKS.  The first variable set wins.
 */
#include "config.h"

#include "mpi.h"
#include "lib/env.h"
#include "plugins/common/layout.h"

muster_status mpi_read_env(const muster_host *host, muster_call *call, struct mpi_env *env)
{
	static const char *const ranks[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
	                                     NULL };
	static const char *const sizes[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL };
	static const char *const locals[] = { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
	                                      NULL };
	struct env_reader r = ENV_READER_INIT;
	int rc;

	env->size = env->local_size = 0;
	rc = env_int_first(&r, ranks, 0, LAYOUT_MAX_TASKS - 1, &env->rank, &env->rank_var);
	if (rc == 0) {
		host->fail(call, "%s: not an MPI process", r.why);
		return MUSTER_STATUS_NOTFOUND;
	}
	if (rc < 0 ||
	    env_int_first(&r, sizes, 1, LAYOUT_MAX_TASKS, &env->size, &env->size_var) < 0 ||
	    env_int_first(&r, locals, 1, LAYOUT_MAX_TASKS, &env->local_size, &env->local_var) < 0) {
		host->fail(call, "%s", r.why);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (env->size > 0 && env->rank >= env->size) {
		host->fail(call, "%s is %ld, outside the %ld ranks of %s", env->rank_var, env->rank,
		           env->size, env->size_var);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (env->local_size > 0 && env->size > 0 && env->local_size > env->size) {
		host->fail(call, "%s is %ld, more than the %ld ranks of %s", env->local_var,
		           env->local_size, env->size, env->size_var);
		return MUSTER_STATUS_UNAVAIL;
	}
	env->pmix = env_str(&r, "PMIX_NAMESPACE") != NULL && env_str(&r, "PMIX_RANK") != NULL;
	return MUSTER_STATUS_SUCCESS;
}
