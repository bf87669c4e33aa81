/*
 * TensorFlow's Slurm layout: hosts in string order, port_base + k for the
 * k-th task of a host, jobs in name order taking the next tasks, the own
 * task at position SLURM_PROCID, and the k-th task of a host getting GPUs
 * k*gpus_per_task up to (k+1)*gpus_per_task.  TensorFlow writes that slice
 * into its own CUDA_VISIBLE_DEVICES; here it is each task's accelerator ids.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/common/layout.h"
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

/* Host -> tasks, sorted, a host listed twice kept once with its last count. */
static struct slot *task_configuration(const struct slurm_conf *conf, const struct slurm_env *env,
                                       size_t *n)
{
	size_t total = conf->ntpn_map ? conf->ntpn_map : env->hosts.n, out = 0;
	struct slot *s = malloc((total ? total : 1) * sizeof(*s));
	if (!s)
		return NULL;
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
		if (out && strcmp(s[out - 1].host, s[i].host) == 0)
			out--;
		s[out++] = s[i];
	}
	*n = out;
	return s;
}

struct plan {
	const struct slurm_job *jobs;
	size_t njobs;
	struct slurm_job single; /* { "worker", SLURM_STEP_NUM_TASKS } */
	long total, max_tpn, gpn, gpt;
};

static muster_status check(const struct slurm_conf *conf, const struct slurm_env *env,
                           const struct slot *s, size_t n, struct plan *p, const muster_host *h,
                           muster_call *call)
{
	long wanted = 0;
	p->total = p->max_tpn = 0;
	for (size_t i = 0; i < n; i++) {
		p->total += s[i].count;
		if (s[i].count > p->max_tpn)
			p->max_tpn = s[i].count;
		if (p->total > SLURM_MAX_TASKS) {
			h->fail(call, "more than %ld tasks", SLURM_MAX_TASKS);
			return MUSTER_STATUS_UNAVAIL;
		}
	}
	p->gpn = conf->gpus_per_node >= 0 ? conf->gpus_per_node : env->gpus;
	p->gpt = conf->gpus_per_task >= 0 ? conf->gpus_per_task
	         : p->max_tpn           ? p->gpn / p->max_tpn
	                                : 0;
	if (p->max_tpn * p->gpt > p->gpn) {
		h->fail(call, "Requested more GPUs per node than available. (%ld tasks on a node "
		              "with %ld GPUs each, %ld GPUs per node)", p->max_tpn, p->gpt, p->gpn);
		return MUSTER_STATUS_UNAVAIL;
	}
	p->jobs = conf->jobs;
	p->njobs = conf->njobs;
	if (!conf->njobs) {
		p->single.name = (char *)"worker";
		p->single.count = env->num_tasks >= 0 ? env->num_tasks : p->total;
		p->jobs = &p->single;
		p->njobs = 1;
	}
	for (size_t i = 0; i < p->njobs; i++)
		wanted += p->jobs[i].count;
	if (wanted != p->total) {
		h->fail(call, "Requested %ld tasks but only %ld were assigned.", wanted, p->total);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (p->max_tpn && conf->port_base + p->max_tpn - 1 > 65535) {
		h->fail(call, "port_base %ld + %ld tasks on a node passes port 65535", conf->port_base,
		        p->max_tpn);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (env->rank >= p->total) {
		h->fail(call, "SLURM_PROCID %ld is not among the %ld tasks", env->rank, p->total);
		return MUSTER_STATUS_UNAVAIL;
	}
	return MUSTER_STATUS_SUCCESS;
}

/* The GPUs of a host's k-th task: Slurm's ids when it gave them; only
 * their count when auto_set_gpu is off. */
static int add_gpus(const struct slurm_conf *conf, const struct slurm_env *env,
                    const struct plan *p, const char *job, long index, long k,
                    const muster_host *h, muster_call *call)
{
	if (!conf->auto_set_gpu)
		return h->add_accelerator(call, job, index, "GPU", p->gpt);
	return layout_add_gpu_slice(h, call, job, index, k, p->gpt,
	                            conf->gpus_per_node < 0 ? env->gpu_ids : NULL);
}

/* A host's tasks go in as ranges, one per job they fall in: the host
 * checks the name once instead of an address per task. */
static int add_tasks(const struct slurm_conf *conf, const struct slurm_env *env,
                     const struct slot *s, size_t n, const struct plan *p, const muster_host *h,
                     muster_call *call)
{
	size_t j = 0;
	long index = 0, rank = 0;

	for (size_t i = 0; i < p->njobs; i++)
		if (muster_plugin_add_job_sized(h, call, p->jobs[i].name, p->jobs[i].count) < 0)
			return -1;
	for (size_t i = 0; i < n; i++) {
		for (long k = 0; k < s[i].count;) {
			while (index == p->jobs[j].count) {
				j++;
				index = 0;
			}
			const char *job = p->jobs[j].name;
			long run = s[i].count - k < p->jobs[j].count - index ? s[i].count - k
			                                                      : p->jobs[j].count - index;
			if (h->add_task_range(call, job, index, run, s[i].host, conf->port_base + k) < 0)
				return -1;
			for (long m = 0; p->gpt && m < run; m++)
				if (add_gpus(conf, env, p, job, index + m, k + m, h, call) < 0)
					return -1;
			if (env->rank >= rank && env->rank < rank + run &&
			    h->set_task(call, job, index + env->rank - rank) < 0)
				return -1;
			k += run;
			index += run;
			rank += run;
		}
	}
	return 0;
}

muster_status slurm_build(const struct slurm_conf *conf, const struct slurm_env *env,
                          const muster_host *h, muster_call *call)
{
	struct plan p;
	size_t n;
	struct slot *s = task_configuration(conf, env, &n);
	muster_status st;

	if (!s) {
		h->fail(call, "out of memory");
		return MUSTER_STATUS_UNAVAIL;
	}
	st = check(conf, env, s, n, &p, h, call);
	if (st == MUSTER_STATUS_SUCCESS &&
	    (add_tasks(conf, env, s, n, &p, h, call) < 0 ||
	     h->set_rpc_layer(call, conf->rpc_layer) < 0 ||
	     h->set_master_rule(call, MUSTER_MASTER_TASK) < 0))
		st = MUSTER_STATUS_UNAVAIL;
	free(s);
	return st;
}
