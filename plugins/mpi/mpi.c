/*
 * mpi: the cluster of an MPI job from its launcher, without initialising
 * MPI: one job `worker`, task r = rank r, on the host rank r really runs
 * on (TensorFlow's MPIClusterResolver puts rank r in the r-th slot of the
 * sorted hosts instead, which may be another host); a host's k-th rank
 * listens on port_base + k and, with gpus_per_node or gpus_per_task, has
 * GPU ordinals k*gpus_per_task onwards.  The ranks are processes; the
 * node order is the order in which hosts first come by rank, so node 0
 * holds rank 0 (PyTorch Lightning's MPIEnvironment sorts the host names
 * instead, and its node 0 need not hold rank 0).  This rank's place on
 * its host must be the launcher's local rank, and the ranks on its host
 * its local size, where the launcher gives them.
 *
 * Where the hosts come from:
 *   - a PMIx launch (PMIX_NAMESPACE set: Open MPI's mpirun, prterun,
 *     srun --mpi=pmix): each rank's PMIX_HOSTNAME from the server, through
 *     libpmix loaded only then (pmix.c);
 *   - otherwise, every rank on this host (OMPI_COMM_WORLD_LOCAL_SIZE or
 *     MPI_LOCALNRANKS equal to the size, or a single rank): this host's name;
 *   - otherwise the other ranks' hosts are unknown: unavail.
 *
 * Answers:
 *   notfound  no rank variable: not an MPI process; an srun task whose
 *             SLURM_PROCID is its rank (defer_to_slurm)
 *   unavail   a bad variable, no PMIx server to ask, libpmix missing, the
 *             server's answer incomplete, a local rank or size that is not
 *             this rank's, more GPUs per task than a node has
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"
#include "plugins/common/layout.h"

/* Every rank on this host: its name for each. */
static muster_status local_hosts(const muster_host *host, muster_call *call,
                                 const struct mpi_env *env, char ***hosts)
{
	char name[256];

	if (env->size == 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "neither OMPI_COMM_WORLD_SIZE nor PMI_SIZE is set, and no "
		                     "PMIx server (PMIX_NAMESPACE) to ask: the number of ranks is "
		                     "unknown");
	if (env->size > 1 && env->local_size != env->size) {
		if (env->local_size > 0)
			host->fail(call, "only %ld of the %ld ranks run on this host (%s) and no PMIx "
			                 "server (PMIX_NAMESPACE) says where the others run",
			           env->local_size, env->size, env->local_var);
		else
			host->fail(call, "no PMIx server (PMIX_NAMESPACE) says where the other ranks of "
			                 "%s run", env->size_var);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (gethostname(name, sizeof(name)) != 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "gethostname failed");
	name[sizeof(name) - 1] = '\0';
	if ((*hosts = calloc((size_t)env->size, sizeof(**hosts))) == NULL)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "out of memory");
	for (long r = 0; r < env->size; r++)
		if (((*hosts)[r] = strdup(name)) == NULL)
			return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "out of memory");
	return MUSTER_STATUS_SUCCESS;
}

/* The hosts, in the order they first come by rank, and each rank's. */
static int place(const muster_host *host, muster_call *call, char *const *hosts, long n,
                 struct slots *s, size_t **rank_host)
{
	*rank_host = malloc((size_t)n * sizeof(**rank_host));
	if (*rank_host == NULL) {
		host->fail(call, "out of memory");
		return -1;
	}
	for (long r = 0; r < n; r++) {
		long at = slots_add(s, hosts[r], 1, LAYOUT_MAX_TASKS);

		if (at < 0) {
			host->fail(call, "out of memory");
			return -1;
		}
		(*rank_host)[r] = (size_t)at;
	}
	return 0;
}

/* The launcher's local rank and size, where it gives them, are this
 * rank's place on its host and the ranks there. */
static muster_status check_local(const muster_host *host, muster_call *call,
                                 const struct mpi_env *env, const struct slots *s,
                                 const size_t *rank_host)
{
	size_t h = rank_host[env->rank];
	long local = 0;

	for (long r = 0; r < env->rank; r++)
		local += rank_host[r] == h;
	if (env->local_rank >= 0 && env->local_rank != local)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "%s is %ld but rank %ld is rank %ld of the ranks on %.64s "
		                     "(%s)", env->local_rank_var, env->local_rank, env->rank, local,
		                     s->hosts[h].name,
		                     env->pmix ? "as the PMIx server places them" : "this host");
	if (env->local_size > 0 && env->local_size != s->hosts[h].tasks)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "%s is %ld but %ld ranks run on %.64s (%s)", env->local_var,
		                     env->local_size, s->hosts[h].tasks, s->hosts[h].name,
		                     env->pmix ? "as the PMIx server places them" : "this host");
	return MUSTER_STATUS_SUCCESS;
}

static muster_status build(const muster_host *host, muster_call *call,
                           const struct mpi_conf *conf, const struct mpi_env *env,
                           char *const *hosts)
{
	struct layout_job all = { "worker", env->size };
	struct layout l = { .source = "the MPI launcher", .jobs = &all, .njobs = 1,
	                    .port_base = conf->port_base, .rank = env->rank,
	                    .rpc_layer = conf->rpc_layer, .job_id = env->job_id };
	struct slots s;
	size_t *rank_host = NULL;
	muster_status st = MUSTER_STATUS_UNAVAIL;

	slots_init(&s);
	if (place(host, call, hosts, env->size, &s, &rank_host) != 0)
		goto out;
	if ((st = check_local(host, call, env, &s, rank_host)) != MUSTER_STATUS_SUCCESS)
		goto out;
	st = MUSTER_STATUS_UNAVAIL;
	if (conf->gpus_per_node >= 0 || conf->gpus_per_task >= 0) {
		l.gpus_per_task = layout_gpus_per_task(host, call, conf->gpus_per_node,
		                                       conf->gpus_per_task, layout_most_tasks(&s));
		if (l.gpus_per_task < 0)
			goto out;
	}
	l.rank_host = rank_host;
	st = layout_build(host, call, &l, &s);
out:
	slots_free(&s);
	free(rank_host);
	return st;
}

static muster_status mpi_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct mpi_conf *conf = state;
	struct mpi_env env;
	struct noted n;
	char **hosts = NULL;
	muster_status st;

	noted_init(&n, host, call);
	st = mpi_read_env(&n, conf, &env);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	if (env.pmix)
		st = mpi_pmix_hosts(host, call, conf->pmix_library, &env, &hosts);
	else
		st = local_hosts(host, call, &env, &hosts);
	if (st == MUSTER_STATUS_SUCCESS)
		st = build(host, call, conf, &env, hosts);
	for (long r = 0; hosts != NULL && r < env.size; r++)
		free(hosts[r]);
	free(hosts);
	return st;
}

static const muster_plugin mpi_plugin = {
	MUSTER_PLUGIN_HEADER,
	NOTED_PLUGIN_FLAGS,
	"mpi",
	PACKAGE_VERSION,
	mpi_open,
	mpi_resolve,
	mpi_close,
};

MUSTER_PLUGIN_DEFINE(mpi_plugin)
