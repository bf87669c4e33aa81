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
#include <config.h>

#include <stdlib.h>

#include "pbs.h"
#include "plugins/common/popts.h"

void pbs_close(void *state)
{
	struct pbs_conf *conf = state;

	if (conf == NULL)
		return;
	free(conf->jobs);
	slots_free(&conf->fixed);
	free(conf->rpc_layer);
	free(conf);
}

/* A group of name = count, in the order written. */
static int read_counts(const muster_popts *o, const muster_cfg *g, const char *key, long min,
                       struct layout_job **jobs, size_t *njobs, struct slots *slots)
{
	const muster_host *h = o->host;
	size_t n = h->cfg_count(g);
	long long v;

	if (h->cfg_type(g) != MUSTER_CFG_GROUP || n == 0)
		return popt_fail(o, g, "%s must be a non-empty group of name = count", key);
	if (jobs != NULL && (*jobs = calloc(n, sizeof(**jobs))) == NULL)
		return muster_popt_nomem(o, g);
	for (size_t i = 0; i < n; i++) {
		const muster_cfg *el = h->cfg_at(g, i);
		if (h->cfg_int(el, &v) != 0 || v < min || v > LAYOUT_MAX_TASKS)
			return popt_fail(o, el,
			                 "%s: %s must be an integer from %ld to %ld", key,
			                 h->cfg_name(el), min, LAYOUT_MAX_TASKS);
		if (jobs != NULL) {
			(*jobs)[i].name = h->cfg_name(el);
			(*jobs)[i].count = (long)v;
			(*njobs)++;
		} else if (slots_add(slots, h->cfg_name(el), (long)v, LAYOUT_MAX_TASKS) < 0)
			return popt_fail(o, el,
			                 "%s: more than %ld tasks in all, or out of memory", key,
			                 LAYOUT_MAX_TASKS);
	}
	return 0;
}

static int read_jobs(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct pbs_conf *conf = base;

	return node ? read_counts(o, node, "jobs", 0, &conf->jobs, &conf->njobs, NULL) : 0;
}

/* One count for every host (-1 when absent), or a group of host = count. */
static int read_tasks_per_node(const muster_popts *o, const muster_cfg *node, void *base)
{
	static const muster_popt one[] = {
		MUSTER_POPT_INT("tasks_per_node", struct pbs_conf, tasks_per_node, 1,
		                LAYOUT_MAX_TASKS, -1),
	};
	struct pbs_conf *conf = base;

	if (node != NULL && o->host->cfg_type(node) == MUSTER_CFG_GROUP) {
		conf->tasks_per_node = -1;
		return read_counts(o, node, "tasks_per_node", 0, NULL, NULL, &conf->fixed);
	}
	return muster_popt_read(o, one, MUSTER_POPT_COUNT(one), conf);
}

static const muster_popt options[] = {
	MUSTER_POPT_CUSTOM("jobs", read_jobs),
	MUSTER_POPT_INT("port_base", struct pbs_conf, port_base, 1, 65535, 8888),
	MUSTER_POPT_CUSTOM("tasks_per_node", read_tasks_per_node),
	MUSTER_POPT_INT("gpus_per_node", struct pbs_conf, gpus_per_node, 0, LAYOUT_MAX_GPUS, -1),
	MUSTER_POPT_INT("gpus_per_task", struct pbs_conf, gpus_per_task, 0, LAYOUT_MAX_GPUS, -1),
	MUSTER_POPT_BOOL("use_cpus", struct pbs_conf, use_cpus, 0),
	MUSTER_POPT_STRING("rpc_layer", struct pbs_conf, rpc_layer, MUSTER_POPT_EMPTY, "grpc"),
};

/* The ranks go in as ranges (plugin ABI 1.4). */
int pbs_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	if (layout_open_check(host, pc) != 0)
		return -1;
	*state = muster_plugin_conf_read(host, pc, sizeof(struct pbs_conf), options,
	                                 MUSTER_POPT_COUNT(options), NULL, pbs_close);
	return *state != NULL ? 0 : -1;
}
