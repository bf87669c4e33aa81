/*
 * What an MPI launcher tells each process: Open MPI's mpirun sets
 * OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_SIZE}, a PMIx launcher PMIX_RANK and
 * PMIX_NAMESPACE (the size is then asked of its server), MPICH's Hydra
 * PMI_RANK, PMI_SIZE and MPI_LOCALNRANKS.  The first variable set wins.
 */
#include "config.h"

#include "mpi.h"
#include "plugins/common/buf.h"
#include "plugins/common/envnum.h"
#include "plugins/common/layout.h"

/* The first set variable of `names` into *out: 1, 0 when none is set, -1
 * after fail(). */
static int pick(const muster_host *host, muster_call *call, const char *const *names, long lo,
                long *out, const char **which)
{
	char why[200];
	int i = env_first(names);

	if (i < 0)
		return 0;
	*which = names[i];
	if (env_long(names[i], lo, lo + LAYOUT_MAX_TASKS - 1, out, why, sizeof(why)) < 0) {
		host->fail(call, "%s", why);
		return -1;
	}
	return 1;
}

muster_status mpi_read_env(const muster_host *host, muster_call *call, struct mpi_env *env)
{
	static const char *const ranks[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
	                                     NULL };
	static const char *const sizes[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL };
	static const char *const locals[] = { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
	                                      NULL };
	int rc;

	env->size = env->local_size = 0;
	rc = pick(host, call, ranks, 0, &env->rank, &env->rank_var);
	if (rc == 0) {
		host->fail(call, "none of OMPI_COMM_WORLD_RANK, PMIX_RANK and PMI_RANK is set: not "
		                 "an MPI process");
		return MUSTER_STATUS_NOTFOUND;
	}
	if (rc < 0 || pick(host, call, sizes, 1, &env->size, &env->size_var) < 0 ||
	    pick(host, call, locals, 1, &env->local_size, &env->local_var) < 0)
		return MUSTER_STATUS_UNAVAIL;
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
	env->pmix = plugin_getenv("PMIX_NAMESPACE") != NULL && plugin_getenv("PMIX_RANK") != NULL;
	return MUSTER_STATUS_SUCCESS;
}
