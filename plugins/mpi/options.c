/*
 * The mpi entry's options, TensorFlow's MPIClusterResolver keywords where
 * they apply:
 *
 *   port_base = 8888;        a host's k-th rank listens on port_base + k
 *   gpus_per_node, gpus_per_task
 *                            GPUs of each task, Slurm's rule (default: none
 *                            known)
 *   rpc_layer = "grpc";
 *   pmix_library = "libpmix.so.2";
 *                            loaded only inside a PMIx launch
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* strdup */
#endif

#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "plugins/common/options.h"

void mpi_conf_free(struct mpi_conf *conf)
{
	if (conf == NULL)
		return;
	free(conf->rpc_layer);
	free(conf->pmix_library);
	free(conf);
}

int mpi_conf_open(const muster_host *host, muster_plugin_ctx *pc, struct mpi_conf **out)
{
	struct popts o = { host, pc, host->cfg_root(pc) };
	struct mpi_conf *conf = calloc(1, sizeof(*conf));

	if (conf == NULL)
		return popt_nomem(&o, NULL);
	conf->port_base = 8888;
	conf->gpus_per_node = conf->gpus_per_task = -1;
	if (popt_int(&o, "port_base", 1, 65535, &conf->port_base) < 0 ||
	    popt_int(&o, "gpus_per_node", 0, 1 << 20, &conf->gpus_per_node) < 0 ||
	    popt_int(&o, "gpus_per_task", 0, 1 << 20, &conf->gpus_per_task) < 0 ||
	    popt_string(&o, "rpc_layer", 1, &conf->rpc_layer) < 0 ||
	    popt_string(&o, "pmix_library", 0, &conf->pmix_library) < 0)
		goto fail;
	if ((conf->rpc_layer == NULL && (conf->rpc_layer = strdup("grpc")) == NULL) ||
	    (conf->pmix_library == NULL &&
	     (conf->pmix_library = strdup(MPI_DEFAULT_PMIX_LIBRARY)) == NULL)) {
		popt_nomem(&o, NULL);
		goto fail;
	}
	*out = conf;
	return 0;
fail:
	mpi_conf_free(conf);
	return -1;
}
