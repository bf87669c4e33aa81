/*
 * TensorFlow's Slurm layout: hosts in string order, a host listed twice
 * kept once with its last count (TF's dict), the own task at position
 * SLURM_PROCID.  The rest is the layout every scheduler backend shares
 * (plugins/common/layout.c): port_base + k for a host's k-th task, jobs
 * in name order taking the next tasks, the k-th task of a host getting
 * GPUs k*gpus_per_task onwards (TensorFlow writes that slice into its own
 * CUDA_VISIBLE_DEVICES; here they are each task's accelerator ids, mapped
 * through the ids Slurm handed out).
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

struct slot {
	const char *host;
	long count;
	size_t pos; /* in the host list: the later of two mentions wins */
};

static int by_host(const void *pa, const void *pb)
{
	const struct slot *a = pa, *b = pb;
	int c = strcmp(a->host, b->host);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* Host -> tasks, sorted, a host listed twice kept once with its last
 * count, into `out` in that order; 0, or -1 after fail(). */
static int task_configuration(const struct slurm_conf *conf, const struct slurm_env *env,
                              struct slots *out, const muster_host *h, muster_call *call)
{
	size_t total = conf->ntpn_map ? conf->ntpn_map : env->hosts.n, n = 0;
	struct slot *s = malloc((total ? total : 1) * sizeof(*s));
	struct slot_host *hosts = malloc((total ? total : 1) * sizeof(*hosts));

	if (!s || !hosts) {
		h->fail(call, "out of memory");
		free(s);
		free(hosts);
		return -1;
	}
	for (size_t i = 0; i < total; i++) {
		s[i].pos = i;
		s[i].host = conf->ntpn_map ? conf->tpn_map[i].name : env->hosts.names[i];
		s[i].count = conf->ntpn_map         ? conf->tpn_map[i].count
		             : conf->tasks_per_node >= 0 ? conf->tasks_per_node
		                                         : env->counts[i];
	}
	/* Expanded host lists usually come sorted already: then no sort. */
	size_t sorted = 1;
	while (sorted < total && by_host(&s[sorted - 1], &s[sorted]) < 0)
		sorted++;
	if (sorted < total)
		qsort(s, total, sizeof(*s), by_host);
	for (size_t i = 0; i < total; i++) {
		if (n && strcmp(hosts[n - 1].name, s[i].host) == 0)
			n--;
		hosts[n].name = s[i].host;
		hosts[n++].tasks = s[i].count;
	}
	free(s);
	/* Distinct now: the slots need no hash of them. */
	if (slots_adopt(out, hosts, n, LAYOUT_MAX_TASKS) != 0) {
		h->fail(call, "more than %ld tasks in the step", LAYOUT_MAX_TASKS);
		free(hosts);
		return -1;
	}
	return 0;
}

/* Where the task counts came from, for a reason. */
static void counts_source(const struct slurm_conf *conf, const struct slurm_env *env,
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
		counts_source(conf, env, from, sizeof(from));
		h->fail(call, "%s is %ld but %s places %ld tasks", env->names.num_tasks,
		        env->num_tasks, from, s->total);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (env->rank >= s->total) {
		h->fail(call, "SLURM_PROCID %ld is not among the %ld tasks", env->rank, s->total);
		return MUSTER_STATUS_UNAVAIL;
	}
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
	muster_status st = MUSTER_STATUS_UNAVAIL;

	slots_init(&s);
	if (task_configuration(conf, env, &s, h, call) != 0)
		goto out;
	if ((st = check_step(conf, env, &s, h, call)) != MUSTER_STATUS_SUCCESS)
		goto out;
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
	return st;
}
