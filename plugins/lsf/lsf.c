/*
 * lsf: the cluster of an IBM Spectrum LSF job as PyTorch Lightning's
 * LSFEnvironment reads it: the compute hosts from LSB_DJOB_RANKFILE (one
 * line per slot), else LSB_MCPU_HOSTS, the launch host (listed first)
 * left out; rank, size and local rank from jsrun's JSM_NAMESPACE_*.
 * Every variable looked up, and the rank file, is noted for --explain.
 *
 * Answers:
 *   notfound  LSB_JOBID is not set: not an LSF job
 *   unavail   neither host list, an empty or unreadable one, no rank, a
 *             size above the slots, ranks not in rank-file order
 *
 * Options: port_base (8888), rpc_layer ("grpc").  Only the environment and
 * the rank file are read; resolve() keeps its state in locals.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsf.h"
#include "plugins/common/buf.h"
#include "plugins/common/hostfile.h"
#include "plugins/common/layout.h"

static void lsf_close(void *state)
{
	struct lsf_conf *conf = state;

	if (conf != NULL)
		free(conf->rpc_layer);
	free(conf);
}

static const muster_popt options[] = {
	MUSTER_POPT_INT("port_base", struct lsf_conf, port_base, 1, 65535, 8888),
	MUSTER_POPT_STRING("rpc_layer", struct lsf_conf, rpc_layer, MUSTER_POPT_EMPTY, "grpc"),
};

static int lsf_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	if (layout_open_check(host, pc) != 0)
		return -1;
	*state = muster_plugin_conf_read(host, pc, sizeof(struct lsf_conf), options,
	                                 MUSTER_POPT_COUNT(options), NULL, lsf_close);
	return *state != NULL ? 0 : -1;
}

static muster_status from_rankfile(struct noted *n, const struct lsf_conf *conf,
                                   const char *path, const char *job_id)
{
	const muster_host *host = n->host;
	muster_call *call = n->call;
	char source[300], why[300];
	const char *first = NULL;
	struct slots s;
	char *data = NULL;
	size_t len = 0;
	muster_status st = MUSTER_STATUS_UNAVAIL;

	if (path[0] == '\0')
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL,
		                     "LSB_DJOB_RANKFILE is empty: no rank file");
	snprintf(source, sizeof(source), "LSB_DJOB_RANKFILE %.256s", path);
	if (hostfile_read(path, LSF_MAX_RANKFILE, &data, &len, why, sizeof(why)) != 0)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "%s: %s", source, why);
	muster_plugin_note_input(host, call, path, data);
	slots_init(&s);
	if (hostfile_parse(data, len, 1, &first, &s, why, sizeof(why)) != 0)
		host->fail(call, "%s: %s", source, why);
	else
		st = lsf_build(n, conf, &s, source, job_id);
	slots_free(&s);
	free(data);
	return st;
}

static muster_status from_mcpu_hosts(struct noted *n, const struct lsf_conf *conf,
                                     const char *value, const char *job_id)
{
	const muster_host *host = n->host;
	muster_call *call = n->call;
	const char *first = NULL;
	char why[300];
	struct slots s;
	char *text = strdup(value);
	muster_status st = MUSTER_STATUS_UNAVAIL;

	if (text == NULL)
		return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "out of memory");
	slots_init(&s);
	if (lsf_mcpu_parse(text, &first, &s, why, sizeof(why)) != 0)
		host->fail(call, "LSB_MCPU_HOSTS: %s", why);
	else
		st = lsf_build(n, conf, &s, "LSB_MCPU_HOSTS", job_id);
	slots_free(&s);
	free(text);
	return st;
}

static muster_status lsf_resolve(void *state, const muster_host *host, muster_call *call)
{
	struct noted n;
	const char *job_id, *rankfile, *mcpu;

	noted_init(&n, host, call);
	if ((job_id = env_str(&n.env, "LSB_JOBID")) == NULL)
		return plugin_answer(host, call, MUSTER_STATUS_NOTFOUND,
		                     "LSB_JOBID is not set: not an LSF job");
	if (job_id[0] == '\0')
		job_id = NULL;
	if ((rankfile = env_str(&n.env, "LSB_DJOB_RANKFILE")) != NULL)
		return from_rankfile(&n, state, rankfile, job_id);
	if ((mcpu = env_str(&n.env, "LSB_MCPU_HOSTS")) != NULL)
		return from_mcpu_hosts(&n, state, mcpu, job_id);
	host->fail(call, "LSB_JOBID is set but LSB_DJOB_RANKFILE and LSB_MCPU_HOSTS are not: "
	                 "no host list");
	return MUSTER_STATUS_UNAVAIL;
}

static const muster_plugin lsf_plugin = {
	MUSTER_PLUGIN_HEADER,
	NOTED_PLUGIN_FLAGS,
	"lsf",
	PACKAGE_VERSION,
	lsf_open,
	lsf_resolve,
	lsf_close,
};

MUSTER_PLUGIN_DEFINE(lsf_plugin)
