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
 *   defer_to_slurm = true;   an srun task that is also an MPI rank (srun
 *                            --mpi=pmix, pmi2) is left to the slurm entry
 */
#include <config.h>

#include <stdlib.h>

#include "mpi.h"
#include "plugins/common/layout.h"

void mpi_close(void *state)
{
	struct mpi_conf *conf = state;

	if (conf == NULL)
		return;
	free(conf->rpc_layer);
	free(conf->pmix_library);
	free(conf);
}

static const muster_popt options[] = {
	MUSTER_POPT_INT("port_base", struct mpi_conf, port_base, 1, 65535, 8888),
	MUSTER_POPT_INT("gpus_per_node", struct mpi_conf, gpus_per_node, 0, LAYOUT_MAX_GPUS, -1),
	MUSTER_POPT_INT("gpus_per_task", struct mpi_conf, gpus_per_task, 0, LAYOUT_MAX_GPUS, -1),
	MUSTER_POPT_STRING("rpc_layer", struct mpi_conf, rpc_layer, MUSTER_POPT_EMPTY, "grpc"),
	MUSTER_POPT_STRING("pmix_library", struct mpi_conf, pmix_library, 0,
	                   MPI_DEFAULT_PMIX_LIBRARY),
	MUSTER_POPT_BOOL("defer_to_slurm", struct mpi_conf, defer_to_slurm, 1),
};

/* A host's ranks go in as ranges (plugin ABI 1.4). */
int mpi_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	if (layout_open_check(host, pc) != 0)
		return -1;
	*state = muster_plugin_conf_read(host, pc, sizeof(struct mpi_conf), options,
	                                 MUSTER_POPT_COUNT(options), NULL, mpi_close);
	return *state != NULL ? 0 : -1;
}
