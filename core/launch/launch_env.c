/* The environment a framework's process reads: muster_plan_env(), and
 * muster_launch_env() (a plan made, read once and freed). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "lib/error.h"
#include "lib/vec.h"
#include "net/netenv.h"

#define MAX_VARS 24

/* The variables collected before they are packed into one block. */
struct envlist {
	const char *name[MAX_VARS];
	char *value[MAX_VARS];
	size_t n;
	int failed;
};

static void put(struct envlist *e, const char *name, const char *value)
{
	char *copy = value ? strdup(value) : NULL;
	if (!copy || e->n == MAX_VARS) {
		free(copy);
		e->failed = 1;
		return;
	}
	e->name[e->n] = name;
	e->value[e->n++] = copy;
}

static void put_long(struct envlist *e, const char *name, long v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%ld", v);
	put(e, name, buf);
}

/* One allocation: the pointer array, then the "NAME=value" strings. */
static char **pack(struct envlist *e)
{
	size_t bytes = (e->n + 1) * sizeof(char *);
	for (size_t i = 0; i < e->n; i++)
		bytes += strlen(e->name[i]) + strlen(e->value[i]) + 2;
	char **vec = e->failed ? NULL : malloc(bytes);
	if (vec) {
		char *p = (char *)(vec + e->n + 1);
		for (size_t i = 0; i < e->n; i++) {
			vec[i] = p;
			p += sprintf(p, "%s=%s", e->name[i], e->value[i]) + 1;
		}
		vec[e->n] = NULL;
	}
	for (size_t i = 0; i < e->n; i++)
		free(e->value[i]);
	return vec;
}

/* net_env_put()'s setter: replaces the variable of that name, or adds it
 * unless `replace_only`. */
static void set_var(void *ctx, const char *name, const char *value, int replace_only)
{
	struct envlist *e = ctx;
	for (size_t i = 0; i < e->n; i++) {
		if (strcmp(e->name[i], name) == 0) {
			char *copy = strdup(value);
			if (!copy) {
				e->failed = 1;
				return;
			}
			free(e->value[i]);
			e->value[i] = copy;
			return;
		}
	}
	if (!replace_only)
		put(e, name, value);
}

static void torch_env(struct envlist *e, const struct muster_plan *p, long proc)
{
	put(e, "MASTER_ADDR", p->master_host);
	put_long(e, "MASTER_PORT", p->master_port);
	put_long(e, "WORLD_SIZE", p->world);
	put_long(e, "RANK", p->self_rank0 + proc);
	put_long(e, "LOCAL_RANK", p->self_local0 + proc);
	put_long(e, "LOCAL_WORLD_SIZE", p->self_node_nproc);
	put_long(e, "GROUP_RANK", (long)p->self_node);
	put_long(e, "NODE_RANK", (long)p->self_node);
	/* torchrun reads each of its arguments from PET_<NAME> when absent;
	 * they say "one agent per node, each with this many workers", which
	 * only a plan of one unit per node with equal counts is. */
	if (!p->one_unit_per_node || !p->equal_counts)
		return;
	put_long(e, "PET_NNODES", (long)p->nnodes);
	put_long(e, "PET_NODE_RANK", (long)p->self_node);
	put_long(e, "PET_NPROC_PER_NODE", p->self_nproc);
	put(e, "PET_MASTER_ADDR", p->master_host);
	put_long(e, "PET_MASTER_PORT", p->master_port);
}

static void jax_env(struct envlist *e, const struct muster_plan *p, long proc,
                    const char *local_device_ids, long node_gpus)
{
	char coordinator[300];
	int v6 = strchr(p->master_host, ':') != NULL;
	snprintf(coordinator, sizeof(coordinator), "%s%s%s:%d", v6 ? "[" : "", p->master_host,
	         v6 ? "]" : "", p->master_port);
	put(e, "JAX_COORDINATOR_ADDRESS", coordinator);
	put_long(e, "JAX_NUM_PROCESSES", p->world);
	put_long(e, "JAX_PROCESS_ID", p->self_rank0 + proc);
	if (local_device_ids)
		put(e, "JAX_LOCAL_DEVICE_IDS", local_device_ids);
	else if (node_gpus == p->self_node_nproc || (node_gpus < 0 && p->nproc == MUSTER_NPROC_GPU))
		/* Each process of the node owns one of its GPUs: its own. */
		put_long(e, "JAX_LOCAL_DEVICE_IDS", p->self_local0 + proc);
}

static int tf_env(struct envlist *e, const struct muster_plan *p, muster_error *err)
{
	char *tf = NULL;
	int rc = muster_result_to_tf_config(&tf, p->r, p->task_type, p->task_id, 0, err);
	if (rc == 0)
		put(e, "TF_CONFIG", tf);
	free(tf);
	return rc;
}

/* One task's GPU ids, as the result gives them; 0 when it gives none. */
static size_t task_gpu_ids(const muster_result *r, const char *job, long index, const int **ids)
{
	const char *kind;
	size_t n;
	if (!job || muster_result_accelerator_ids(r, job, index, &kind, ids, &n) != 0 ||
	    strcmp(kind, "GPU") != 0)
		return 0;
	return n;
}

/* The node's GPU ids, each once, in local-rank order. */
struct node_gpus {
	const struct muster_plan *p;
	const char *host; /* the own unit's address; its host is `len` bytes */
	size_t len;
	int *list;
	size_t n, cap;
};

static int add_unit_gpus(void *data, const struct job *job, size_t pos, size_t unit)
{
	struct node_gpus *g = data;
	const char *address = job->address[pos];
	const int *ids;
	(void)unit;
	if (launch_host_length(address) != g->len || memcmp(address, g->host, g->len) != 0)
		return 0;
	size_t m = task_gpu_ids(g->p->r, job->name, model_task_index(job, pos), &ids);
	for (size_t j = 0; j < m; j++) {
		size_t i = 0;
		while (i < g->n && g->list[i] != ids[j]) /* Slurm's --gpus-per-node: shared */
			i++;
		if (i < g->n)
			continue;
		if (vec_reserve(&g->list, &g->cap, g->n + 1, sizeof(*g->list)) < 0)
			return -1;
		g->list[g->n++] = ids[j];
	}
	return 0;
}

/*
 * The GPUs the result gives the launch's processes on this node, as
 * CUDA_VISIBLE_DEVICES: a library must not set it in its own process, so
 * the process it launches gets it.  Every process of a node sees the
 * node's GPUs in one order and picks by LOCAL_RANK, as under torchrun:
 * under processes placement the ids of its tasks in local-rank order, each
 * once; under nodes placement (and for tensorflow) the task's ids.  The
 * number of ids, -1 when none is set.
 */
static long gpu_ids_env(struct envlist *e, const struct muster_plan *p)
{
	const int *ids;
	const char *job = p->self_job ? p->self_job->name
	                              : p->task_type ? p->task_type : p->r->task_type;
	long index = p->self_job ? model_task_index(p->self_job, p->self_pos)
	                         : p->task_id >= 0 ? p->task_id : p->r->task_index;
	struct node_gpus g = { .p = p };

	if (p->r->naccels == 0) /* no ids anywhere: the usual case, at no cost */
		return -1;
	if (!p->tensorflow && p->placement == MUSTER_PLACEMENT_PROCESSES) {
		g.host = p->self_job->address[p->self_pos];
		g.len = launch_host_length(g.host);
		if (plan_each_unit(p, add_unit_gpus, &g) != 0)
			e->failed = 1;
	} else if ((g.n = task_gpu_ids(p->r, job, index, &ids)) > 0) {
		if (!(g.list = malloc(g.n * sizeof(*g.list))))
			e->failed = 1;
		else
			memcpy(g.list, ids, g.n * sizeof(*g.list));
	}
	char *text = g.n && g.list ? malloc(g.n * 12 + 1) : NULL, *o = text;
	for (size_t i = 0; text && i < g.n; i++)
		o += sprintf(o, "%s%d", i ? "," : "", g.list[i]);
	if (text)
		put(e, "CUDA_VISIBLE_DEVICES", text);
	else if (g.n)
		e->failed = 1;
	free(text);
	free(g.list);
	return g.n ? (long)g.n : -1;
}

MUSTER_API int muster_plan_env(char ***out, const muster_plan *p, long proc,
                               const char *local_device_ids, muster_error *err)
{
	struct envlist e = { .n = 0 };
	struct envlist gpus = { .n = 0 };
	int rc = 0;

	if (!out || !p)
		return error_set(err, MUSTER_EINVAL, "muster_plan_env: NULL argument");
	*out = NULL;
	if (!p->framework || (!p->tensorflow && strcmp(p->framework, "pytorch") != 0 &&
	                      strcmp(p->framework, "jax") != 0))
		return error_set(err, MUSTER_EINVAL, "muster_plan_env: a plan for %s has no "
		                 "environment (tensorflow, pytorch or jax)",
		                 p->framework ? p->framework : "a hostfile");
	long nproc = muster_plan_nproc(p);
	if (!p->tensorflow && p->self == SIZE_MAX)
		return error_set(err, p->env_code, "%s", p->env_why);
	if (proc < 0 || proc >= nproc)
		return error_set(err, MUSTER_EINVAL, "local rank %ld is not below %ld processes per "
		                 "node", proc, nproc);
	/* The GPU ids come last, but whether each process owns one decides
	 * JAX_LOCAL_DEVICE_IDS: they are counted first, apart. */
	long node_gpus = gpu_ids_env(&gpus, p);
	if (p->tensorflow)
		rc = tf_env(&e, p, err);
	else if (p->framework[0] == 'p')
		torch_env(&e, p, proc);
	else
		jax_env(&e, p, proc, local_device_ids, node_gpus);
	if (rc == 0 && !p->tensorflow)
		net_env_put(p->net, p->framework, p->master_port, set_var, &e);
	if (gpus.n == 1 && rc == 0)
		put(&e, gpus.name[0], gpus.value[0]);
	e.failed |= gpus.failed;
	for (size_t i = 0; i < gpus.n; i++)
		free(gpus.value[i]);
	if (rc != 0) {
		for (size_t i = 0; i < e.n; i++)
			free(e.value[i]);
		return rc;
	}
	*out = pack(&e);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}

MUSTER_API int muster_launch_env(char ***out, const muster_result *r, const muster_launch *l,
                                 muster_error *err)
{
	muster_plan *p = NULL;
	int rc;

	if (!out || !r || !l)
		return error_set(err, MUSTER_EINVAL, "muster_launch_env: NULL argument");
	*out = NULL;
	if (!l->framework)
		return error_set(err, MUSTER_EINVAL, "muster_launch: no framework given");
	if (strcmp(l->framework, "tensorflow") != 0 && strcmp(l->framework, "pytorch") != 0 &&
	    strcmp(l->framework, "jax") != 0)
		return error_set(err, MUSTER_EINVAL,
		                 "unknown framework '%s' (tensorflow, pytorch or jax)", l->framework);
	if ((rc = muster_launch_plan(&p, r, l, err)) == 0)
		rc = muster_plan_env(out, p, l->local_rank, l->local_device_ids, err);
	muster_plan_free(p);
	return rc;
}
