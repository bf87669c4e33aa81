/*
 * What a Slurm task's environment says: SLURM_PROCID first, then only
 * what the options leave open, as TensorFlow reads it; then, in Slurm's
 * order, how the tasks were distributed and where Slurm says this one
 * runs.  A step's variables (srun) are preferred; in a batch script,
 * which has no step, the job's (SLURM_JOB_NODELIST, SLURM_NTASKS,
 * SLURM_TASKS_PER_NODE).  Variables are read as every backend reads them
 * (lib/env.h), numbers within the shared layout's limits, and each one
 * looked up is noted for --explain.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/env.h"
#include "slurm.h"

static const struct slurm_names step_names = {
	"SLURM_STEP_NODELIST", "SLURM_STEP_NUM_TASKS", "SLURM_STEP_TASKS_PER_NODE", "SLURM_STEP_GPUS"
};

static struct slurm_names job_names(struct env_reader *r)
{
	static const char *const lists[] = { "SLURM_JOB_NODELIST", "SLURM_NODELIST", NULL };
	struct slurm_names n = { "SLURM_JOB_NODELIST", "SLURM_NTASKS", "SLURM_TASKS_PER_NODE",
	                         "SLURM_JOB_GPUS" };
	if (env_any(r, lists) == 1)
		n.nodelist = "SLURM_NODELIST";
	return n;
}

void slurm_env_free(struct slurm_env *env)
{
	hostlist_free(&env->hosts);
	free(env->counts);
	free(env->gpu_ids);
	slurm_dist_free(&env->dist);
	memset(env, 0, sizeof(*env));
}

/* A set, non-empty variable; NULL after fail() with TensorFlow's reason. */
static const char *need(const muster_host *h, muster_call *call, struct env_reader *r,
                        const char *name)
{
	const char *v = env_str(r, name);
	if (!v)
		h->fail(call, "%s not found in environment. Not running inside a SLURM step?", name);
	else if (!*v)
		h->fail(call, "%s is empty", name);
	return v && *v ? v : NULL;
}

static muster_status read_int(const muster_host *h, muster_call *call, struct env_reader *r,
                              const char *name, long max, long *out)
{
	if (!need(h, call, r, name))
		return MUSTER_STATUS_UNAVAIL;
	if (env_int(r, name, 0, max, out) < 0)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL, "%s", r->why);
	return MUSTER_STATUS_SUCCESS;
}

/* "0,1,3": how many (at most LAYOUT_MAX_GPUS), and the ids when every
 * item is a number. */
static int id_list(const char *s, long *count, int **ids)
{
	size_t n = 1, i = 0;
	int numeric = 1;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	if (n > (size_t)LAYOUT_MAX_GPUS)
		return -1;
	*count = (long)n;
	*ids = malloc(n * sizeof(**ids));
	for (const char *p = s; *ids && i < n; i++) {
		long v;
		char item[16];
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(item))
			numeric = 0;
		else {
			memcpy(item, p, len);
			item[len] = '\0';
			numeric = numeric && env_parse_int(item, 0, LAYOUT_MAX_GPUS, &v) == 0;
			(*ids)[i] = numeric ? (int)v : 0;
		}
		p += len + (p[len] == ',');
	}
	if (!numeric || !*ids) {
		free(*ids);
		*ids = NULL;
	}
	return 0;
}

/* GPUs per node from the allocation: Slurm's count, else its id lists;
 * the ids are CUDA_VISIBLE_DEVICES's when it lists exactly that many. */
static muster_status read_gpus(const muster_host *h, muster_call *call, struct env_reader *r,
                               struct slurm_env *env)
{
	const char *on_node = env_str(r, "SLURM_GPUS_ON_NODE");
	const char *listed = env_str(r, env->names.gpus);
	const char *cuda = env_str(r, "CUDA_VISIBLE_DEVICES");
	int *ids = NULL;
	long n = 0;

	env->gpus = 0;
	if (on_node && *on_node) {
		env->gpus_from = "SLURM_GPUS_ON_NODE";
		if (env_int(r, env->gpus_from, 0, LAYOUT_MAX_GPUS, &env->gpus) < 0)
			return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL, "%s", r->why);
	} else if ((listed && *listed) || (cuda && *cuda)) {
		env->gpus_from = listed && *listed ? env->names.gpus : "CUDA_VISIBLE_DEVICES";
		if (id_list(listed && *listed ? listed : cuda, &env->gpus, &ids) < 0)
			return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL,
			                     "%s lists more than %ld GPUs", env->gpus_from,
			                     LAYOUT_MAX_GPUS);
		free(ids);
	}
	if (env->gpus && cuda && *cuda && id_list(cuda, &n, &ids) == 0) {
		if (n == env->gpus)
			env->gpu_ids = ids;
		else
			free(ids);
	}
	return MUSTER_STATUS_SUCCESS;
}

static muster_status read_hosts(const muster_host *h, muster_call *call, struct env_reader *r,
                                struct slurm_env *env)
{
	char why[200];
	const char *name = env->names.nodelist, *v = need(h, call, r, name);
	if (!v)
		return MUSTER_STATUS_UNAVAIL;
	if (hostlist_expand(v, &env->hosts, why, sizeof(why)) < 0)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL,
		                     "%s: invalid host list '%.60s%s': %s", name, v,
		                     strlen(v) > 60 ? "..." : "", why);
	if (env->hosts.n == 0)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL, "%s names no host", name);
	return MUSTER_STATUS_SUCCESS;
}

static muster_status read_counts(const muster_host *h, muster_call *call, struct env_reader *r,
                                 struct slurm_env *env)
{
	char why[200];
	const char *name = env->names.tasks_per_node, *v = need(h, call, r, name);
	if (!v)
		return MUSTER_STATUS_UNAVAIL;
	snprintf(env->counts_text, sizeof(env->counts_text), "%.40s%s", v,
	         strlen(v) > 40 ? "..." : "");
	if (tasks_per_node_expand(v, SLURM_MAX_HOSTS, &env->counts, &env->ncounts, why,
	                          sizeof(why)) < 0)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL,
		                     "Invalid tasks-per-node list format in %s '%.60s%s': %s", name,
		                     v, strlen(v) > 60 ? "..." : "", why);
	/* TensorFlow pairs them up silently, cutting the longer list. */
	if (env->ncounts != env->hosts.n)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL,
		                     "%s gives %zu task counts for the %zu hosts of %s", name,
		                     env->ncounts, env->hosts.n, env->names.nodelist);
	return MUSTER_STATUS_SUCCESS;
}

/* The job id, and where Slurm says this task runs: SLURMD_NODENAME,
 * SLURM_NODEID, SLURM_LOCALID, each optional but valid when set. */
static muster_status read_own(const muster_host *h, muster_call *call, struct env_reader *r,
                              int slurm_order, struct slurm_env *env)
{
	static const char *const ids[] = { "SLURM_JOB_ID", "SLURM_JOBID", NULL };
	int at = env_any(r, ids);

	env->job_id = at >= 0 ? env_get(ids[at]) : NULL;
	if (env->job_id != NULL && env->job_id[0] == '\0')
		env->job_id = NULL;
	env->nodeid = env->localid = -1;
	if (!slurm_order)
		return MUSTER_STATUS_SUCCESS;
	env->nodename = env_str(r, "SLURMD_NODENAME");
	if (env->nodename != NULL && env->nodename[0] == '\0')
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL, "SLURMD_NODENAME is empty");
	if (env_int(r, "SLURM_NODEID", 0, SLURM_MAX_HOSTS - 1, &env->nodeid) < 0 ||
	    env_int(r, "SLURM_LOCALID", 0, LAYOUT_MAX_TASKS - 1, &env->localid) < 0)
		return plugin_answer(h, call, MUSTER_STATUS_UNAVAIL, "%s", r->why);
	return MUSTER_STATUS_SUCCESS;
}

/* The tasks the hosts have: what an arbitrary task list must cover. */
static long total_tasks(const struct slurm_conf *conf, const struct slurm_env *env)
{
	long total = 0;

	if (conf->tasks_per_node >= 0)
		return conf->tasks_per_node * (long)env->hosts.n;
	for (size_t i = 0; i < env->ncounts; i++)
		total += env->counts[i];
	return total;
}

muster_status slurm_read_env(const struct slurm_conf *conf, struct noted *n,
                             struct slurm_env *env)
{
	const muster_host *h = n->host;
	muster_call *call = n->call;
	static const char *const marks[] = { "SLURM_PROCID", "SLURM_JOB_ID", "SLURM_JOBID",
	                                     "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST",
	                                     "SLURM_NODELIST", NULL };
	static const char *const step_marks[] = { "SLURM_STEP_NODELIST", "SLURM_STEP_NUM_TASKS",
	                                          "SLURM_STEP_TASKS_PER_NODE", NULL };
	struct env_reader *r = &n->env;
	muster_status st = MUSTER_STATUS_SUCCESS;
	int step, slurm_order = conf->order == SLURM_ORDER_SLURM;

	memset(env, 0, sizeof(*env));
	env->num_tasks = env->gpus = -1;
	if (env_any(r, marks) < 0)
		return plugin_answer(h, call, MUSTER_STATUS_NOTFOUND,
		                     "not inside Slurm: neither SLURM_PROCID nor SLURM_JOB_ID is "
		                     "set");
	step = env_any(r, step_marks) >= 0;
	env->names = step ? step_names : job_names(r);

	if ((st = read_int(h, call, r, "SLURM_PROCID", LAYOUT_MAX_TASKS - 1, &env->rank)) != 0)
		return st;
	/* A batch script without --ntasks: one task per slot it has. */
	if (!conf->njobs && (step || env_str(r, env->names.num_tasks)) &&
	    (st = read_int(h, call, r, env->names.num_tasks, LAYOUT_MAX_TASKS, &env->num_tasks)) !=
	            0)
		return st;
	if (!conf->ntpn_map && (st = read_hosts(h, call, r, env)) != 0)
		return st;
	if (!conf->ntpn_map && conf->tasks_per_node < 0 && (st = read_counts(h, call, r, env)) != 0)
		return st;
	if (conf->gpus_per_node < 0 && (st = read_gpus(h, call, r, env)) != 0)
		return st;
	if ((st = read_own(h, call, r, slurm_order, env)) != 0)
		return st;
	/* The distribution places Slurm's own hosts; hosts the config lists
	 * are laid out in block, in the order written. */
	if (slurm_order && !conf->ntpn_map)
		return slurm_read_dist(n, total_tasks(conf, env), &env->dist);
	snprintf(env->dist.text, sizeof(env->dist.text), "block");
	return MUSTER_STATUS_SUCCESS;
}
