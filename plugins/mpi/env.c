/*
 * What an MPI launcher tells each process: Open MPI's mpirun sets
 * OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE}, a PMIx launcher
 * PMIX_RANK and PMIX_NAMESPACE (the size is then asked of its server),
 * MPICH's Hydra PMI_RANK, PMI_SIZE, MPI_LOCALRANKID and MPI_LOCALNRANKS.
 * The first variable set wins.  Every variable looked up is noted.
 *
 * The job id is the launch's own, PMIX_NAMESPACE (the same for every rank
 * of one mpirun, another for the next), else the id of the scheduler
 * that holds the allocation (SLURM_JOB_ID, LSB_JOBID, PBS_JOBID), else
 * none: then the ranks' ports are TensorFlow's, rank 0's port_base the
 * master's.
 */
#include <config.h>

#include "mpi.h"
#include "plugins/common/layout.h"

/* An srun task started with a PMI plugin (srun --mpi=pmix, pmi2) is an
 * MPI rank and a Slurm task with the same numbers; an mpirun rank inside
 * an allocation carries its daemon step's SLURM_* instead, which are not
 * its own. */
static int srun_task(struct env_reader *r, const struct mpi_env *env)
{
	long procid, ntasks;

	if (env_str(r, "SLURM_STEP_NODELIST") == NULL ||
	    env_int(r, "SLURM_PROCID", 0, LAYOUT_MAX_TASKS - 1, &procid) <= 0 ||
	    procid != env->rank)
		return 0;
	return env->size == 0 ||
	       (env_int(r, "SLURM_STEP_NUM_TASKS", 1, LAYOUT_MAX_TASKS, &ntasks) > 0 &&
	        ntasks == env->size);
}

static void read_job_id(struct env_reader *r, struct mpi_env *env)
{
	static const char *const ids[] = { "PMIX_NAMESPACE", "SLURM_JOB_ID", "LSB_JOBID",
	                                   "PBS_JOBID", NULL };
	int at = env_any(r, ids);

	env->job_id = at >= 0 ? env_get(ids[at]) : NULL;
	if (env->job_id != NULL && env->job_id[0] == '\0')
		env->job_id = NULL;
}

muster_status mpi_read_env(struct noted *n, const struct mpi_conf *conf, struct mpi_env *env)
{
	static const char *const ranks[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
	                                     NULL };
	static const char *const sizes[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL };
	static const char *const locals[] = { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
	                                      NULL };
	static const char *const local_ranks[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
	                                           NULL };
	const muster_host *host = n->host;
	muster_call *call = n->call;
	struct env_reader *r = &n->env;
	int rc;

	env->size = env->local_size = 0;
	env->local_rank = -1;
	rc = env_int_first(r, ranks, 0, LAYOUT_MAX_TASKS - 1, &env->rank, &env->rank_var);
	if (rc == 0)
		return plugin_answer(host, call, MUSTER_STATUS_NOTFOUND,
		                     "%s: not an MPI process", r->why);
	if (rc < 0 ||
	    env_int_first(r, sizes, 1, LAYOUT_MAX_TASKS, &env->size, &env->size_var) < 0 ||
	    env_int_first(r, locals, 1, LAYOUT_MAX_TASKS, &env->local_size, &env->local_var) < 0 ||
	    env_int_first(r, local_ranks, 0, LAYOUT_MAX_TASKS - 1, &env->local_rank,
	                  &env->local_rank_var) < 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "%s", r->why);
	if (env->size > 0 && env->rank >= env->size)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "%s is %ld, outside the %ld ranks of %s", env->rank_var,
		                     env->rank, env->size, env->size_var);
	if (env->local_size > 0 && env->size > 0 && env->local_size > env->size)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "%s is %ld, more than the %ld ranks of %s", env->local_var,
		                     env->local_size, env->size, env->size_var);
	if (conf->defer_to_slurm && srun_task(r, env))
		return plugin_answer(host, call, MUSTER_STATUS_NOTFOUND,
		                     "%s is SLURM_PROCID of an srun task: the slurm entry answers "
		                     "it (defer_to_slurm)", env->rank_var);
	env->pmix = env_str(r, "PMIX_NAMESPACE") != NULL && env_str(r, "PMIX_RANK") != NULL;
	read_job_id(r, env);
	return MUSTER_STATUS_SUCCESS;
}
