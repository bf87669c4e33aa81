/*
 * What a Slurm task's environment says, read the way TensorFlow reads it:
 * SLURM_PROCID first, then only what the options leave open.  A step's
 * variables (srun) are preferred; in a batch script, which has no step,
 * the job's (SLURM_JOB_NODELIST, SLURM_NTASKS, SLURM_TASKS_PER_NODE).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

#define MAX_GPUS 65536

/* The variables of the step, or of the job when there is no step. */
struct names {
	const char *nodelist, *num_tasks, *tasks_per_node, *gpus;
};

static const struct names step_names = {
	"SLURM_STEP_NODELIST", "SLURM_STEP_NUM_TASKS", "SLURM_STEP_TASKS_PER_NODE", "SLURM_STEP_GPUS"
};

static struct names job_names(void)
{
	struct names n = { "SLURM_JOB_NODELIST", "SLURM_NTASKS", "SLURM_TASKS_PER_NODE",
	                   "SLURM_JOB_GPUS" };
	if (!getenv(n.nodelist) && getenv("SLURM_NODELIST"))
		n.nodelist = "SLURM_NODELIST";
	return n;
}

void slurm_env_free(struct slurm_env *env)
{
	hostlist_free(&env->hosts);
	free(env->counts);
	free(env->gpu_ids);
	memset(env, 0, sizeof(*env));
}

/* A set, non-empty variable; NULL after fail() with TensorFlow's reason. */
static const char *need(const muster_host *h, muster_call *call, const char *name)
{
	const char *v = getenv(name);
	if (!v)
		h->fail(call, "%s not found in environment. Not running inside a SLURM step?", name);
	else if (!*v)
		h->fail(call, "%s is empty", name);
	return v && *v ? v : NULL;
}

static int integer(const char *s, long max, long *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static muster_status read_int(const muster_host *h, muster_call *call, const char *name, long max,
                              long *out)
{
	const char *v = need(h, call, name);
	if (!v)
		return MUSTER_STATUS_UNAVAIL;
	if (integer(v, max, out) < 0) {
		h->fail(call, "%s must be an integer from 0 to %ld, not '%.40s'", name, max, v);
		return MUSTER_STATUS_UNAVAIL;
	}
	return MUSTER_STATUS_SUCCESS;
}

/* "0,1,3": how many, and the ids when every item is a number. */
static int id_list(const char *s, long *count, int **ids)
{
	size_t n = 1, i = 0;
	int numeric = 1;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	if (n > MAX_GPUS)
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
			numeric = numeric && integer(item, MAX_GPUS, &v) == 0;
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
static muster_status read_gpus(const muster_host *h, muster_call *call, const struct names *nm,
                               struct slurm_env *env)
{
	const char *on_node = getenv("SLURM_GPUS_ON_NODE");
	const char *listed = getenv(nm->gpus);
	const char *cuda = getenv("CUDA_VISIBLE_DEVICES");
	int *ids = NULL;
	long n = 0;

	env->gpus = 0;
	if (on_node && *on_node) {
		if (integer(on_node, MAX_GPUS, &env->gpus) < 0) {
			h->fail(call, "SLURM_GPUS_ON_NODE must be a GPU count, not '%.40s'", on_node);
			return MUSTER_STATUS_UNAVAIL;
		}
	} else if (listed && *listed) {
		if (id_list(listed, &env->gpus, &ids) < 0) {
			h->fail(call, "%s lists more than %d GPUs", nm->gpus, MAX_GPUS);
			return MUSTER_STATUS_UNAVAIL;
		}
		free(ids);
	} else if (cuda && *cuda) {
		if (id_list(cuda, &env->gpus, &ids) < 0) {
			h->fail(call, "CUDA_VISIBLE_DEVICES lists more than %d GPUs", MAX_GPUS);
			return MUSTER_STATUS_UNAVAIL;
		}
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

static muster_status read_hosts(const muster_host *h, muster_call *call, const struct names *nm,
                                struct slurm_env *env)
{
	char why[200];
	const char *v = need(h, call, nm->nodelist);
	if (!v)
		return MUSTER_STATUS_UNAVAIL;
	if (hostlist_expand(v, &env->hosts, why, sizeof(why)) < 0) {
		h->fail(call, "%s: invalid host list '%.60s%s': %s", nm->nodelist, v,
		        strlen(v) > 60 ? "..." : "", why);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (env->hosts.n == 0) {
		h->fail(call, "%s names no host", nm->nodelist);
		return MUSTER_STATUS_UNAVAIL;
	}
	return MUSTER_STATUS_SUCCESS;
}

static muster_status read_counts(const muster_host *h, muster_call *call, const struct names *nm,
                                 struct slurm_env *env)
{
	char why[200];
	const char *v = need(h, call, nm->tasks_per_node);
	if (!v)
		return MUSTER_STATUS_UNAVAIL;
	if (tasks_per_node_expand(v, SLURM_MAX_HOSTS, &env->counts, &env->ncounts, why,
	                          sizeof(why)) < 0) {
		h->fail(call, "Invalid tasks-per-node list format in %s '%.60s%s': %s",
		        nm->tasks_per_node, v, strlen(v) > 60 ? "..." : "", why);
		return MUSTER_STATUS_UNAVAIL;
	}
	/* TensorFlow pairs them up silently, cutting the longer list. */
	if (env->ncounts != env->hosts.n) {
		h->fail(call, "%s gives %zu task counts for the %zu hosts of %s", nm->tasks_per_node,
		        env->ncounts, env->hosts.n, nm->nodelist);
		return MUSTER_STATUS_UNAVAIL;
	}
	return MUSTER_STATUS_SUCCESS;
}

static int in_slurm(void)
{
	static const char *const marks[] = { "SLURM_PROCID", "SLURM_JOB_ID", "SLURM_JOBID",
	                                     "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST",
	                                     "SLURM_NODELIST" };
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (getenv(marks[i]))
			return 1;
	return 0;
}

muster_status slurm_read_env(const struct slurm_conf *conf, const muster_host *h,
                             muster_call *call, struct slurm_env *env)
{
	muster_status st;
	memset(env, 0, sizeof(*env));
	env->num_tasks = env->gpus = -1;
	if (!in_slurm()) {
		h->fail(call, "not inside Slurm: neither SLURM_PROCID nor SLURM_JOB_ID is set");
		return MUSTER_STATUS_NOTFOUND;
	}
	int step = getenv("SLURM_STEP_NODELIST") || getenv("SLURM_STEP_NUM_TASKS") ||
	           getenv("SLURM_STEP_TASKS_PER_NODE");
	struct names nm = step ? step_names : job_names();

	if ((st = read_int(h, call, "SLURM_PROCID", SLURM_MAX_TASKS, &env->rank)) != 0)
		return st;
	if (!conf->njobs) {
		/* A batch script without --ntasks: one task per slot it has. */
		if (step || getenv(nm.num_tasks))
			st = read_int(h, call, nm.num_tasks, SLURM_MAX_TASKS, &env->num_tasks);
		if (st != 0)
			return st;
	}
	if (!conf->ntpn_map && (st = read_hosts(h, call, &nm, env)) != 0)
		return st;
	if (!conf->ntpn_map && conf->tasks_per_node < 0 && (st = read_counts(h, call, &nm, env)) != 0)
		return st;
	if (conf->gpus_per_node < 0 && (st = read_gpus(h, call, &nm, env)) != 0)
		return st;
	return MUSTER_STATUS_SUCCESS;
}
