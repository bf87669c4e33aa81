/*
 * sagemaker: the cluster of an Amazon SageMaker training job, as
 * TensorFlow's SageMakerClusterResolver reads it: SM_HOSTS (a JSON list)
 * and SM_CURRENT_HOST; when both are unset, SageMaker's
 * resourceconfig.json (the resource_config option), which holds the same.
 *
 * Answers:
 *   notfound  neither variable is set and the file does not exist
 *   unavail   one variable without the other, SM_HOSTS or the file not
 *             the JSON expected, the current host not among the hosts
 *
 * Nothing but the environment and that file is read; resolve() keeps its
 * state in locals.  Both are noted for --explain.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sagemaker.h"
#include "plugins/common/buf.h"
#include "plugins/common/noted.h"

static muster_status from_variables(const muster_host *host, muster_call *call,
                                    const struct sm_conf *conf, const char *hosts,
                                    const char *current)
{
	struct sm_hosts h = { 0 };
	char why[300] = "";
	muster_status st = MUSTER_STATUS_UNAVAIL;

	if (hosts == NULL || current == NULL)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "%s is set but %s is not: not a SageMaker environment",
		                     hosts != NULL ? "SM_HOSTS" : "SM_CURRENT_HOST",
		                     hosts != NULL ? "SM_CURRENT_HOST" : "SM_HOSTS");
	if (strlen(hosts) > SM_MAX_INPUT)
		host->fail(call, "SM_HOSTS is longer than %zu bytes", SM_MAX_INPUT);
	else if (sm_parse_hosts(hosts, strlen(hosts), &h, why, sizeof(why)) != 0)
		host->fail(call, "SM_HOSTS: %s", why);
	else if ((h.current = strdup(current)) == NULL)
		host->fail(call, "out of memory");
	else
		st = sm_build(host, call, conf, &h, "SM_HOSTS", "SM_CURRENT_HOST");
	sm_hosts_free(&h);
	return st;
}

static muster_status from_file(const muster_host *host, muster_call *call,
                               const struct sm_conf *conf)
{
	struct sm_hosts h = { 0 };
	char why[300] = "", src[300];
	char *data = NULL;
	size_t len = 0;
	muster_status st = MUSTER_STATUS_UNAVAIL;

	if (plugin_read_file(conf->resource_config, SM_MAX_INPUT, &data, &len) != 0) {
		if (errno == ENOENT)
			return plugin_answer(host, call, MUSTER_STATUS_NOTFOUND,
			                     "SM_HOSTS and SM_CURRENT_HOST are not set and %s "
			                     "does not exist: not a SageMaker job",
			                     conf->resource_config);
		host->fail(call, "%s: %s", conf->resource_config,
		           plugin_read_error(conf->resource_config, errno, SM_MAX_INPUT, why,
		                             sizeof(why)));
		return MUSTER_STATUS_UNAVAIL;
	}
	muster_plugin_note_input(host, call, conf->resource_config, data);
	snprintf(src, sizeof(src), "%.256s \"hosts\"", conf->resource_config);
	if (sm_parse_resource_config(data, len, &h, why, sizeof(why)) != 0)
		host->fail(call, "%s: %s", conf->resource_config, why);
	else
		st = sm_build(host, call, conf, &h, src, "\"current_host\"");
	sm_hosts_free(&h);
	free(data);
	return st;
}

static muster_status sm_resolve(void *state, const muster_host *host, muster_call *call)
{
	struct noted n;
	const char *hosts, *current;

	noted_init(&n, host, call);
	hosts = env_str(&n.env, "SM_HOSTS");
	current = env_str(&n.env, "SM_CURRENT_HOST");
	if (hosts != NULL || current != NULL)
		return from_variables(host, call, state, hosts, current);
	return from_file(host, call, state);
}

static const muster_plugin sm_plugin = {
	MUSTER_PLUGIN_HEADER,
	NOTED_PLUGIN_FLAGS,
	"sagemaker",
	PACKAGE_VERSION,
	sm_open,
	sm_resolve,
	sm_close,
};

MUSTER_PLUGIN_DEFINE(sm_plugin)
