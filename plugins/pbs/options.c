/*
 * The pbs entry's options, TensorFlow's PBSClusterResolver keywords:
 *
 *   jobs = { ps = 1; worker = 4; };  tasks in this order (default: one
 *                                    job worker with every slot)
 *   port_base = 8888;                a host's k-th task listens on port_base + k
 *   tasks_per_node = 2;              or { t02n13 = 2; t02n41 = 1; } (no file read)
 *   use_cpus = false;                true: no GPU per task
 *   gpus_per_node, gpus_per_task     Slurm's meaning (TensorFlow's PBS test)
 *   rpc_layer = "grpc";
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* strdup */
#endif

#include <stdlib.h>
#include <string.h>

#include "pbs.h"
#include "plugins/common/options.h"

void pbs_conf_free(struct pbs_conf *conf)
{
	if (conf == NULL)
		return;
	free(conf->jobs);
	slots_free(&conf->fixed);
	free(conf->rpc_layer);
	free(conf);
}

/* A group of name = count, in the order written. */
static int read_counts(const struct popts *o, const muster_cfg *g, const char *key, long min,
                       struct layout_job **jobs, size_t *njobs, struct slots *slots)
{
	const muster_host *h = o->host;
	size_t n = h->cfg_count(g);
	long long v;

	if (h->cfg_type(g) != MUSTER_CFG_GROUP || n == 0) {
		h->open_error(o->pc, g, "%s must be a non-empty group of name = count", key);
		return -1;
	}
	if (jobs != NULL && (*jobs = calloc(n, sizeof(**jobs))) == NULL)
		return popt_nomem(o, g);
	for (size_t i = 0; i < n; i++) {
		const muster_cfg *el = h->cfg_at(g, i);
		if (h->cfg_int(el, &v) != 0 || v < min || v > LAYOUT_MAX_TASKS) {
			h->open_error(o->pc, el, "%s: %s must be an integer from %ld to %ld", key,
			              h->cfg_name(el), min, LAYOUT_MAX_TASKS);
			return -1;
		}
		if (jobs != NULL) {
			(*jobs)[i].name = h->cfg_name(el);
			(*jobs)[i].count = (long)v;
			(*njobs)++;
		} else if (slots_add(slots, h->cfg_name(el), (long)v, LAYOUT_MAX_TASKS) < 0) {
			h->open_error(o->pc, el, "%s: more than %ld tasks in all, or out of memory",
			              key, LAYOUT_MAX_TASKS);
			return -1;
		}
	}
	return 0;
}

static int read_tasks_per_node(const struct popts *o, struct pbs_conf *conf)
{
	const muster_cfg *node = o->host->cfg_get(o->root, "tasks_per_node");

	conf->tasks_per_node = -1;
	if (node == NULL)
		return 0;
	if (o->host->cfg_type(node) == MUSTER_CFG_GROUP)
		return read_counts(o, node, "tasks_per_node", 0, NULL, NULL, &conf->fixed);
	return popt_int(o, "tasks_per_node", 1, LAYOUT_MAX_TASKS, &conf->tasks_per_node) < 0 ? -1
	                                                                                     : 0;
}

int pbs_conf_open(const muster_host *host, muster_plugin_ctx *pc, struct pbs_conf **out)
{
	struct popts o = { host, pc, host->cfg_root(pc) };
	const muster_cfg *jobs = host->cfg_get(o.root, "jobs");
	struct pbs_conf *conf = calloc(1, sizeof(*conf));
	int b = 0;

	if (conf == NULL)
		return popt_nomem(&o, NULL);
	slots_init(&conf->fixed);
	conf->port_base = 8888;
	conf->gpus_per_node = conf->gpus_per_task = -1;
	if ((jobs != NULL &&
	     read_counts(&o, jobs, "jobs", 0, &conf->jobs, &conf->njobs, NULL) != 0) ||
	    popt_int(&o, "port_base", 1, 65535, &conf->port_base) < 0 ||
	    read_tasks_per_node(&o, conf) != 0 ||
	    popt_int(&o, "gpus_per_node", 0, 1 << 20, &conf->gpus_per_node) < 0 ||
	    popt_int(&o, "gpus_per_task", 0, 1 << 20, &conf->gpus_per_task) < 0 ||
	    popt_bool(&o, "use_cpus", &b) < 0 ||
	    popt_string(&o, "rpc_layer", 1, &conf->rpc_layer) < 0)
		goto fail;
	conf->use_cpus = b != 0;
	if (conf->rpc_layer == NULL && (conf->rpc_layer = strdup("grpc")) == NULL) {
		popt_nomem(&o, NULL);
		goto fail;
	}
	*out = conf;
	return 0;
fail:
	pbs_conf_free(conf);
	return -1;
}
