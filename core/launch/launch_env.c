/* The environment a framework's process reads: muster_launch_env(). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "launch.h"

#define MAX_VARS 16

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

/* The position of the launch's task among the nodes. */
static int find_self(const struct launch_nodes *nodes, const muster_result *r,
                     const muster_launch *l, size_t *rank, muster_error *err)
{
	const char *type = l->task_type ? l->task_type : r->task_type;
	long id = l->task_id >= 0 ? l->task_id : r->task_index;

	if (!type || id < 0)
		return error_set(err, MUSTER_ENOENT,
		                 "no task given, and this process's own task is unknown "
		                 "(source %s)", r->source ? r->source : "?");
	const struct job *job = model_job(r, type);
	if (!job)
		return error_set(err, MUSTER_ENOENT, "No such job in cluster: '%s'", type);
	if (!model_address(job, id))
		return error_set(err, MUSTER_ENOENT, "No task with index %ld in job '%s'", id, type);
	for (size_t i = 0; i < nodes->count; i++) {
		if (nodes->node[i].job == job && nodes->node[i].index == id) {
			*rank = i;
			return 0;
		}
	}
	return error_set(err, MUSTER_ENOENT,
	                 "task %s:%ld is not a training task of a %s launch (jobs %s)", type, id,
	                 l->framework, l->jobs ? l->jobs : "other than ps and evaluator");
}

static int torch_env(struct envlist *e, const struct launch_nodes *nodes, size_t node,
                     const muster_launch *l, muster_error *err)
{
	const char *master = nodes->node[0].address;
	char host[256], port[6];

	if (launch_split_address(master, host, sizeof(host), port) != 0)
		return error_set(err, MUSTER_ENOENT, "the master task's address '%s' is not HOST:PORT",
		                 master);
	put(e, "MASTER_ADDR", host);
	put(e, "MASTER_PORT", port);
	put_long(e, "WORLD_SIZE", (long)nodes->count * l->nproc_per_node);
	put_long(e, "RANK", (long)node * l->nproc_per_node + l->local_rank);
	put_long(e, "LOCAL_RANK", l->local_rank);
	put_long(e, "LOCAL_WORLD_SIZE", l->nproc_per_node);
	put_long(e, "GROUP_RANK", (long)node);
	put_long(e, "NODE_RANK", (long)node);
	/* torchrun reads each of its arguments from PET_<NAME> when absent. */
	put_long(e, "PET_NNODES", (long)nodes->count);
	put_long(e, "PET_NODE_RANK", (long)node);
	put_long(e, "PET_NPROC_PER_NODE", l->nproc_per_node);
	put(e, "PET_MASTER_ADDR", host);
	put(e, "PET_MASTER_PORT", port);
	return 0;
}

static void jax_env(struct envlist *e, const struct launch_nodes *nodes, size_t node,
                    const muster_launch *l)
{
	put(e, "JAX_COORDINATOR_ADDRESS", nodes->node[0].address);
	put_long(e, "JAX_NUM_PROCESSES", (long)nodes->count * l->nproc_per_node);
	put_long(e, "JAX_PROCESS_ID", (long)node * l->nproc_per_node + l->local_rank);
	if (l->local_device_ids)
		put(e, "JAX_LOCAL_DEVICE_IDS", l->local_device_ids);
}

static int tf_env(struct envlist *e, const muster_result *r, const muster_launch *l,
                  muster_error *err)
{
	char *tf = NULL;
	int rc = muster_result_to_tf_config(&tf, r, l->task_type, l->task_id, 0, err);
	if (rc == 0)
		put(e, "TF_CONFIG", tf);
	free(tf);
	return rc;
}

/* The GPUs the result gives the launch's task (a scheduler's allocation,
 * e.g. Slurm's per-task slice) as CUDA_VISIBLE_DEVICES: a library must not
 * set it in its own process, so the process it launches gets it.  Every
 * process of the node sees them all and picks by LOCAL_RANK, as under
 * torchrun. */
static void gpu_ids_env(struct envlist *e, const muster_result *r, const muster_launch *l)
{
	const char *type = l->task_type ? l->task_type : r->task_type;
	long id = l->task_id >= 0 ? l->task_id : r->task_index;
	const char *kind;
	const int *ids;
	size_t n;

	if (!type || muster_result_accelerator_ids(r, type, id, &kind, &ids, &n) != 0 ||
	    strcmp(kind, "GPU") != 0 || n == 0)
		return;
	char *list = malloc(n * 12 + 1), *p = list;
	if (!list) {
		e->failed = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%d", i ? "," : "", ids[i]);
	put(e, "CUDA_VISIBLE_DEVICES", list);
	free(list);
}

static int check_launch(const muster_launch *l, muster_error *err)
{
	int rc = launch_check(l, err);

	if (rc != 0)
		return rc;
	if (!l->framework)
		return error_set(err, MUSTER_EINVAL, "muster_launch: no framework given");
	if (l->local_rank < 0 || l->local_rank >= l->nproc_per_node)
		return error_set(err, MUSTER_EINVAL, "local rank %ld is not below %ld processes per node",
		                 l->local_rank, l->nproc_per_node);
	return 0;
}

MUSTER_API int muster_launch_env(char ***out, const muster_result *r, const muster_launch *l,
                                 muster_error *err)
{
	struct envlist e = { .n = 0 };
	struct launch_nodes nodes = { NULL, 0 };
	size_t node = 0;
	int rc;

	if (!out || !r || !l)
		return error_set(err, MUSTER_EINVAL, "muster_launch_env: NULL argument");
	*out = NULL;
	if ((rc = check_launch(l, err)) != 0)
		return rc;
	if (strcmp(l->framework, "tensorflow") == 0) {
		rc = tf_env(&e, r, l, err);
	} else if (strcmp(l->framework, "pytorch") == 0 || strcmp(l->framework, "jax") == 0) {
		rc = launch_nodes_build(&nodes, r, l, 1, err);
		if (rc == 0)
			rc = find_self(&nodes, r, l, &node, err);
		if (rc == 0 && l->framework[0] == 'p')
			rc = torch_env(&e, &nodes, node, l, err);
		else if (rc == 0)
			jax_env(&e, &nodes, node, l);
		launch_nodes_free(&nodes);
	} else {
		return error_set(err, MUSTER_EINVAL,
		                 "unknown framework '%s' (tensorflow, pytorch or jax)", l->framework);
	}
	if (rc != 0) {
		for (size_t i = 0; i < e.n; i++)
			free(e.value[i]);
		return rc;
	}
	gpu_ids_env(&e, r, l);
	*out = pack(&e);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}
