/*
 * The slurm entry's options, with TensorFlow's keyword names:
 *   jobs = { ps = 1; worker = 3; };  default { worker = SLURM_STEP_NUM_TASKS }
 *   port_base = 8888;
 *   gpus_per_node, gpus_per_task;    default: the step's GPUs, split
 *   tasks_per_node = 2;              or { n1 = 2; n2 = 1; } (no host list read)
 *   auto_set_gpu = true;             each task's GPU ids in the result
 *   rpc_layer = "grpc";
 *   order = "slurm";                 or "tensorflow": hosts sorted as strings
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "slurm.h"
#include "plugins/common/popts.h"

void slurm_close(void *state)
{
	struct slurm_conf *conf = state;

	if (!conf)
		return;
	free(conf->jobs);
	free(conf->tpn_map);
	free(conf->rpc_layer);
	free(conf);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct layout_job *)a)->name, ((const struct layout_job *)b)->name);
}

/* A group of NAME = count members, in the order written (the names stay
 * the config's); -1 after open_error. */
static int read_counts(const muster_popts *o, const muster_cfg *group, const char *key,
                       long min, struct layout_job **out, size_t *n)
{
	const muster_host *h = o->host;
	size_t count = h->cfg_count(group);

	if (h->cfg_type(group) != MUSTER_CFG_GROUP) {
		h->open_error(o->pc, group, "%s must be a group like { worker = 4; }, not %s", key,
		              muster_popt_kind(h, group));
		return -1;
	}
	if (count == 0)
		return popt_fail(o, group, "%s must not be empty", key);
	if (!(*out = calloc(count, sizeof(**out))))
		return muster_popt_nomem(o, group);
	for (size_t i = 0; i < count; i++) {
		const muster_cfg *m = h->cfg_at(group, i);
		long long v;
		if (h->cfg_int(m, &v) != 0 || v < min || v > LAYOUT_MAX_TASKS)
			return popt_fail(o, m,
			                 "%s: %s must be an integer from %ld to %ld", key,
			                 h->cfg_name(m), min, LAYOUT_MAX_TASKS);
		(*out)[i].name = h->cfg_name(m);
		(*out)[i].count = (long)v;
		*n = i + 1;
	}
	return 0;
}

/* Jobs take the tasks in name order, as TensorFlow's do. */
static int read_jobs(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct slurm_conf *conf = base;

	if (!node)
		return 0;
	if (read_counts(o, node, "jobs", 0, &conf->jobs, &conf->njobs) != 0)
		return -1;
	qsort(conf->jobs, conf->njobs, sizeof(*conf->jobs), by_name);
	return 0;
}

/* One count for every host (-1 when absent), or a group of host = count. */
static int read_tasks_per_node(const muster_popts *o, const muster_cfg *node, void *base)
{
	static const muster_popt one[] = {
		MUSTER_POPT_INT("tasks_per_node", struct slurm_conf, tasks_per_node, 1,
		                LAYOUT_MAX_TASKS, -1),
	};
	struct slurm_conf *conf = base;

	if (node && o->host->cfg_type(node) == MUSTER_CFG_GROUP) {
		conf->tasks_per_node = -1;
		return read_counts(o, node, "tasks_per_node", 0, &conf->tpn_map, &conf->ntpn_map);
	}
	return muster_popt_read(o, one, MUSTER_POPT_COUNT(one), conf);
}

static const char *const orders[] = { "slurm", "tensorflow", NULL };

static const muster_popt options[] = {
	MUSTER_POPT_CUSTOM("jobs", read_jobs),
	MUSTER_POPT_INT("port_base", struct slurm_conf, port_base, 1, 65535, 8888),
	MUSTER_POPT_INT("gpus_per_node", struct slurm_conf, gpus_per_node, 0, LAYOUT_MAX_GPUS, -1),
	MUSTER_POPT_INT("gpus_per_task", struct slurm_conf, gpus_per_task, 0, LAYOUT_MAX_GPUS, -1),
	MUSTER_POPT_CUSTOM("tasks_per_node", read_tasks_per_node),
	MUSTER_POPT_BOOL("auto_set_gpu", struct slurm_conf, auto_set_gpu, 1),
	MUSTER_POPT_STRING("rpc_layer", struct slurm_conf, rpc_layer, MUSTER_POPT_EMPTY, "grpc"),
	MUSTER_POPT_CHOICE("order", struct slurm_conf, order, orders, SLURM_ORDER_SLURM),
};

/* A node's tasks go in as ranges (plugin ABI 1.4). */
int slurm_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	if (layout_open_check(host, pc) != 0)
		return -1;
	*state = muster_plugin_conf_read(host, pc, sizeof(struct slurm_conf), options,
	                                 MUSTER_POPT_COUNT(options), NULL, slurm_close);
	return *state != NULL ? 0 : -1;
}
