/*
 * The sagemaker entry's options:
 *
 *   port = 2223;                 every host's port (TensorFlow's default)
 *   rpc_layer = "grpc";          default none, as TensorFlow's
 *   resource_config = "/opt/ml/input/config/resourceconfig.json";
 *                                read when SM_HOSTS and SM_CURRENT_HOST
 *                                are both unset
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* strdup */
#endif

#include <stdlib.h>
#include <string.h>

#include "sagemaker.h"
#include "plugins/common/options.h"

void sm_conf_free(struct sm_conf *conf)
{
	if (conf == NULL)
		return;
	free(conf->rpc_layer);
	free(conf->resource_config);
	free(conf);
}

int sm_conf_open(const muster_host *host, muster_plugin_ctx *pc, struct sm_conf **out)
{
	struct popts o = { host, pc, host->cfg_root(pc) };
	struct sm_conf *conf = calloc(1, sizeof(*conf));

	if (conf == NULL)
		return popt_nomem(&o, NULL);
	conf->port = 2223;
	if (popt_int(&o, "port", 1, 65535, &conf->port) < 0 ||
	    popt_string(&o, "rpc_layer", 1, &conf->rpc_layer) < 0 ||
	    popt_string(&o, "resource_config", 0, &conf->resource_config) < 0)
		goto fail;
	if (conf->resource_config == NULL &&
	    (conf->resource_config = strdup(SM_DEFAULT_RESOURCE_CONFIG)) == NULL) {
		popt_nomem(&o, NULL);
		goto fail;
	}
	*out = conf;
	return 0;
fail:
	sm_conf_free(conf);
	return -1;
}
