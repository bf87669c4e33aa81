/*
 * The slurm layout: the hosts and counts in the entry's order (Slurm's,
 * order_slurm.c, or TensorFlow's, order_tensorflow.c), the own task at
 * rank SLURM_PROCID.  The rest is the layout every scheduler backend
 * shares (plugins/common/layout.c): port_base + k for a host's k-th task
 * (its local rank), jobs in name order taking the tasks in rank order,
 * the k-th task of a host getting GPUs k*gpus_per_task onwards
 * (TensorFlow writes that slice into its own CUDA_VISIBLE_DEVICES; here
 * they are each task's accelerator ids, mapped through the ids Slurm
 * handed out).
 */
#include <config.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

size_t slurm_host_count(const struct slurm_conf *conf, const struct slurm_env *env)
{
	return conf->ntpn_map ? conf->ntpn_map : env->hosts.n;
}

void slurm_host_at(const struct slurm_conf *conf, const struct slurm_env *env, size_t i,
                   const char **name, long *count)
{
	*name = conf->ntpn_map ? conf->tpn_map[i].name : env->hosts.names[i];
	*count = conf->ntpn_map              ? conf->tpn_map[i].count
	         : conf->tasks_per_node >= 0 ? conf->tasks_per_node
	                                     : env->counts[i];
}

void slurm_counts_source(const struct slurm_conf *conf, const struct slurm_env *env,
                         char *buf, size_t size)
{
	if (conf->ntpn_map)
		snprintf(buf, size, "the tasks_per_node option's hosts");
	else if (conf->tasks_per_node >= 0)
		snprintf(buf, size, "tasks_per_node = %ld on the %zu hosts of %s", conf->tasks_per_node,
		         env->hosts.n, env->names.nodelist);
	else
		snprintf(buf, size, "%s '%s'", env->names.tasks_per_node, env->counts_text);
}

/* The step's own counts agree with each other, and SLURM_PROCID is one of
 * its tasks; SUCCESS or UNAVAIL after fail(). */
static muster_status check_step(const struct slurm_conf *conf, const struct slurm_env *env,
                                const struct slots *s, const muster_host *h, muster_call *call)
{
	char from[160];

	if (!conf->njobs && env->num_tasks >= 0 && env->num_tasks != s->total) {
		slurm_counts_source(conf, env, from, sizeof(from));
		h->fail(call, "%s is %ld but %s places %ld tasks", env->names.num_tasks,
		        env->num_tasks, from, s->total);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (env->rank >= s->total)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL,
		                     "SLURM_PROCID %ld is not among the %ld tasks", env->rank,
		                     s->total);
	return MUSTER_STATUS_SUCCESS;
}

muster_status slurm_build(const struct slurm_conf *conf, const struct slurm_env *env,
                          const muster_host *h, muster_call *call)
{
	struct layout_job worker = { "worker", 0 };
	struct layout l = { .source = conf->ntpn_map ? "tasks_per_node" : env->names.nodelist,
	                    .jobs = conf->jobs, .njobs = conf->njobs,
	                    .port_base = conf->port_base, .rank = env->rank,
	                    .rpc_layer = conf->rpc_layer };
	struct slots s;
	size_t *rank_host = NULL;
	muster_status st = MUSTER_STATUS_UNAVAIL;

	slots_init(&s);
	if (conf->order == SLURM_ORDER_TENSORFLOW ? slurm_tf_slots(conf, env, &s, h, call)
	                                          : slurm_slots(conf, env, &s, &rank_host, h, call))
		goto out;
	if ((st = check_step(conf, env, &s, h, call)) != MUSTER_STATUS_SUCCESS)
		goto out;
	if (conf->order == SLURM_ORDER_SLURM &&
	    (st = slurm_check_self(conf, env, &s, rank_host, h, call)) != MUSTER_STATUS_SUCCESS)
		goto out;
	st = MUSTER_STATUS_UNAVAIL;
	l.plane = env->dist.plane;
	l.rank_host = rank_host;
	/* An arbitrary step's list is Slurm's sorted one, not the order its
	 * tasks' hosts come in. */
	if (rank_host != NULL) {
		l.node_order = (const char *const *)env->hosts.names;
		l.nnode_order = env->hosts.n;
	}
	l.job_id = env->job_id;
	if (!conf->njobs) {
		worker.count = s.total;
		l.jobs = &worker;
		l.njobs = 1;
	}
	l.gpus_per_task = layout_gpus_per_task(h, call,
	                                       conf->gpus_per_node >= 0 ? conf->gpus_per_node
	                                                                : env->gpus,
	                                       conf->gpus_per_task, layout_most_tasks(&s));
	if (l.gpus_per_task < 0) {
		st = MUSTER_STATUS_UNAVAIL;
		goto out;
	}
	l.gpu_ids = conf->gpus_per_node < 0 ? env->gpu_ids : NULL;
	l.gpu_counts_only = !conf->auto_set_gpu;
	l.gpu_source = conf->gpus_per_task >= 0 ? "gpus_per_task"
	               : conf->gpus_per_node >= 0 ? "gpus_per_node"
	                                          : env->gpus_from;
	st = layout_build(h, call, &l, &s);
out:
	slots_free(&s);
	free(rank_host);
	return st;
}
