/* The slurm backend's descriptor: options read once, the environment on
 * every resolve (each task of a step has its own SLURM_PROCID), each
 * variable noted for --explain. */
#include <config.h>

#include "slurm.h"

static muster_status slurm_resolve(void *state, const muster_host *host, muster_call *call)
{
	struct slurm_env env;
	struct noted n;
	muster_status st;

	noted_init(&n, host, call);
	st = slurm_read_env(state, &n, &env);
	if (st == MUSTER_STATUS_SUCCESS)
		st = slurm_build(state, &env, host, call);
	slurm_env_free(&env);
	return st;
}

static const muster_plugin slurm_plugin = {
	MUSTER_PLUGIN_HEADER,
	NOTED_PLUGIN_FLAGS,
	"slurm",
	PACKAGE_VERSION,
	slurm_open,
	slurm_resolve,
	slurm_close,
};

MUSTER_PLUGIN_DEFINE(slurm_plugin)
