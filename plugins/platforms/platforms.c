/*
 * platforms: the descriptor, the entry's options and the table of
 * platforms (platforms.h, docs/platforms.md).
 *
 *   platform = "torchrun";  which one this entry reads (required)
 *   port = 2222;            members' port where the platform names none
 *                           (default 2222; 8482 on a TPU slice)
 *   port_base = 8888;       a host file's k-th process on a host listens
 *                           on port_base + k (mpi_operator)
 *   rpc_layer = "grpc";     default none
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "platforms.h"

#define PF_ROW(name, port) { #name, pf_##name, port },
const struct pf_platform pf_platforms[] = { PF_PLATFORMS(PF_ROW) };

#define PF_NAME(name, port) #name,
static const char *const names[] = { PF_PLATFORMS(PF_NAME) NULL };

static const muster_popt options[] = {
	MUSTER_POPT_CHOICE("platform", struct pf_conf, platform, names, -1),
	MUSTER_POPT_INT("port", struct pf_conf, port, 1, 65535, 0),
	MUSTER_POPT_INT("port_base", struct pf_conf, port_base, 1, 65535, 8888),
	MUSTER_POPT_STRING("rpc_layer", struct pf_conf, rpc_layer, MUSTER_POPT_EMPTY, NULL),
};

static void pf_close(void *state)
{
	struct pf_conf *conf = state;

	if (conf != NULL)
		free(conf->rpc_layer);
	free(conf);
}

/* The platform is required; its absence names every choice. */
static int check_platform(const muster_popts *o, void *state)
{
	const struct pf_conf *conf = state;
	char list[256];
	size_t used = 0;

	if (conf->platform >= 0)
		return 0;
	for (size_t i = 0; names[i] != NULL && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i == 0 ? "" : ", ",
		                         names[i]);
	o->host->open_error(o->pc, NULL, "platform is required: one of %s", list);
	return -1;
}

static int pf_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	*state = muster_plugin_conf_read(host, pc, sizeof(struct pf_conf), options,
	                                 MUSTER_POPT_COUNT(options), check_platform, pf_close);
	return *state != NULL ? 0 : -1;
}

static muster_status pf_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct pf_conf *conf = state;
	struct pf_run run;

	pf_run_init(&run, host, call, conf);
	run.port = conf->port ? conf->port : pf_platforms[conf->platform].port;
	return pf_platforms[conf->platform].resolve(&run);
}

static const muster_plugin platforms_plugin = {
	MUSTER_PLUGIN_HEADER,
	/* The environment and a pod's files are fixed for the process's life. */
	.flags = MUSTER_PLUGIN_THREADSAFE | MUSTER_PLUGIN_CONFIG_ONLY | MUSTER_PLUGIN_DETECTS,
	.name = "platforms",
	.version = PACKAGE_VERSION,
	.open = pf_open,
	.resolve = pf_resolve,
	.close = pf_close,
};

MUSTER_PLUGIN_DEFINE(platforms_plugin)
