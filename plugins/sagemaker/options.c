/*
 * The sagemaker entry's options:
 *
 *   port = 2223;                 every host's port (TensorFlow's default)
 *   rpc_layer = "grpc";          default none, as TensorFlow's
 *   resource_config = "/opt/ml/input/config/resourceconfig.json";
 *                                read when SM_HOSTS and SM_CURRENT_HOST
 *                                are both unset
 */
#include <config.h>

#include <stdlib.h>

#include "sagemaker.h"

void sm_close(void *state)
{
	struct sm_conf *conf = state;

	if (conf == NULL)
		return;
	free(conf->rpc_layer);
	free(conf->resource_config);
	free(conf);
}

static const muster_popt options[] = {
	MUSTER_POPT_INT("port", struct sm_conf, port, 1, 65535, 2223),
	MUSTER_POPT_STRING("rpc_layer", struct sm_conf, rpc_layer, MUSTER_POPT_EMPTY, NULL),
	MUSTER_POPT_STRING("resource_config", struct sm_conf, resource_config, 0,
	                   SM_DEFAULT_RESOURCE_CONFIG),
};

int sm_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	*state = muster_plugin_conf_read(host, pc, sizeof(struct sm_conf), options,
	                                 MUSTER_POPT_COUNT(options), NULL, sm_close);
	return *state != NULL ? 0 : -1;
}
