/*
 * mpi: the cluster of an MPI job from its launcher, without initialising
 * MPI: one job `worker`, task r = rank r, on the host rank r really runs
 * on (TensorFlow's MPIClusterResolver puts rank r in the r-th slot of the
 * sorted hosts instead, which may be another host); a host's k-th rank
 * listens on port_base + k and, with gpus_per_node or gpus_per_task, has
 * GPU ordinals k*gpus_per_task onwards.
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
 *   notfound  no rank variable: not an MPI process
 *   unavail   a bad variable, no PMIx server to ask, libpmix missing, the
 *             server's answer incomplete, more GPUs per task than a node has
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* strdup */
#endif

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"
#include "plugins/common/layout.h"

static int mpi_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	struct mpi_conf *conf = NULL;

	if (mpi_conf_open(host, pc, &conf) != 0)
		return -1;
	*state = conf;
	return 0;
}

/* Every rank on this host: its name for each. */
static muster_status local_hosts(const muster_host *host, muster_call *call,
                                 const struct mpi_env *env, char ***hosts)
{
	char name[256];

	if (env->size == 0) {
		host->fail(call, "neither OMPI_COMM_WORLD_SIZE nor PMI_SIZE is set, and no PMIx "
		                 "server (PMIX_NAMESPACE) to ask: the number of ranks is unknown");
		return MUSTER_STATUS_UNAVAIL;
	}
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
	if (gethostname(name, sizeof(name)) != 0) {
		host->fail(call, "gethostname failed");
		return MUSTER_STATUS_UNAVAIL;
	}
	name[sizeof(name) - 1] = '\0';
	if ((*hosts = calloc((size_t)env->size, sizeof(**hosts))) == NULL) {
		host->fail(call, "out of memory");
		return MUSTER_STATUS_UNAVAIL;
	}
	for (long r = 0; r < env->size; r++)
		if (((*hosts)[r] = strdup(name)) == NULL) {
			host->fail(call, "out of memory");
			return MUSTER_STATUS_UNAVAIL;
		}
	return MUSTER_STATUS_SUCCESS;
}

/* The most ranks on one host. */
static long most_per_host(char *const *hosts, long n)
{
	struct slots s;
	long most = 0, at;

	slots_init(&s);
	for (long r = 0; r < n; r++)
		if ((at = slots_add(&s, hosts[r], 1, LAYOUT_MAX_TASKS)) >= 0 &&
		    s.hosts[at].tasks > most)
			most = s.hosts[at].tasks;
	slots_free(&s);
	return most;
}

static muster_status mpi_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct mpi_conf *conf = state;
	struct mpi_env env;
	struct layout l = { .source = "the MPI launcher", .port_base = conf->port_base,
	                    .rpc_layer = conf->rpc_layer };
	char **hosts = NULL;
	muster_status st;

	st = mpi_read_env(host, call, &env);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	if (env.pmix)
		st = mpi_pmix_hosts(host, call, conf->pmix_library, &env, &hosts);
	else
		st = local_hosts(host, call, &env, &hosts);
	if (st == MUSTER_STATUS_SUCCESS && (conf->gpus_per_node >= 0 || conf->gpus_per_task >= 0)) {
		l.gpus_per_task = layout_gpus_per_task(host, call, conf->gpus_per_node,
		                                       conf->gpus_per_task,
		                                       most_per_host(hosts, env.size));
		if (l.gpus_per_task < 0)
			st = MUSTER_STATUS_UNAVAIL;
	}
	if (st == MUSTER_STATUS_SUCCESS) {
		l.rank = env.rank;
		st = layout_build_ranks(host, call, &l, (const char *const *)hosts, (size_t)env.size);
	}
	for (long r = 0; hosts != NULL && r < env.size; r++)
		free(hosts[r]);
	free(hosts);
	return st;
}

static void mpi_close(void *state)
{
	mpi_conf_free(state);
}

static const muster_plugin mpi_plugin = {
	MUSTER_PLUGIN_HEADER,
	/* The launcher's environment and files are fixed for the job's life. */
	MUSTER_PLUGIN_THREADSAFE | MUSTER_PLUGIN_CONFIG_ONLY,
	"mpi",
	PACKAGE_VERSION,
	mpi_open,
	mpi_resolve,
	mpi_close,
};

MUSTER_PLUGIN_DEFINE(mpi_plugin)
