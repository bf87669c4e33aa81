/*
 * static: the cluster written in the config, as TensorFlow's
 * SimpleClusterResolver holds it.
 *
 *   config = {
 *     jobs = {
 *       worker = ["h1:2222", "h2:2222"];                 # dense: index = position
 *       ps = ( { index = 3; address = "h3:2222";         # sparse, per-task accelerators
 *                accelerators = { GPU = 8; }; } );
 *     };
 *     task = { type = "worker"; index = 0; };           # self identity
 *     rpc_layer = "grpc"; environment = ""; master = "";
 *     accelerators = { worker = { GPU = 8; }; };        # every task of a job
 *     placement = "processes";                          # a scheduler's cluster:
 *     node_order = ["n2", "n1"];                        #   tasks are processes in rank
 *     job_id = "4242";                                  #   order, hosts in this order
 *   };
 *
 * Everything is read and checked in open(), with file:line errors; resolve()
 * only replays it, so it is thread-safe and cannot fail on bad input.
 */
#include <config.h>

#include "builtin.h"

#include <stdlib.h>
#include <string.h>

#include "lib/address.h"
#include "lib/vec.h"

struct static_task {
	const char *job;
	long index;
	const char *address;
	const muster_cfg *accelerators; /* per-task group, or NULL */
};

struct static_state {
	const muster_host *host;
	const muster_cfg *jobs;         /* for the job order, and empty jobs */
	struct static_task *tasks;
	size_t ntasks, cap;
	const muster_cfg *accelerators; /* per-job groups, or NULL */
	const char *task_type;
	long task_index;
	char *rpc_layer, *environment, *master;
	int placement;                  /* MUSTER_PLACEMENT_* */
	char **node_order;
	size_t nnode_order;
	char *job_id;
};

static int get_string(const muster_host *h, muster_plugin_ctx *pc, const muster_cfg *group,
                      const char *key, const char **out)
{
	const muster_cfg *n = h->cfg_get(group, key);
	*out = NULL;
	if (!n)
		return 0;
	if (h->cfg_string(n, out) < 0) {
		h->open_error(pc, n, "'%s' must be a string", key);
		return -1;
	}
	return 0;
}

static int get_index(const muster_host *h, muster_plugin_ctx *pc, const muster_cfg *group,
                     const char *key, long *out)
{
	const muster_cfg *n = h->cfg_get(group, key);
	long long v;
	if (!n) {
		h->open_error(pc, group, "'%s' is missing", key);
		return -1;
	}
	if (h->cfg_int(n, &v) < 0 || v < 0 || v > 0x7fffffff) {
		h->open_error(pc, n, "'%s' must be an integer from 0 to 2147483647", key);
		return -1;
	}
	*out = (long)v;
	return 0;
}

/* A group of kind = count. */
static int check_accelerators(const muster_host *h, muster_plugin_ctx *pc, const muster_cfg *g)
{
	if (h->cfg_type(g) != MUSTER_CFG_GROUP) {
		h->open_error(pc, g, "accelerators must be a group { GPU = 8; }");
		return -1;
	}
	for (size_t i = 0; i < h->cfg_count(g); i++) {
		const muster_cfg *k = h->cfg_at(g, i);
		long long v;
		if (h->cfg_int(k, &v) < 0 || v < 0 || v > 0x7fffffff) {
			h->open_error(pc, k, "accelerator count '%s' must be an integer from 0", h->cfg_name(k));
			return -1;
		}
	}
	return 0;
}

/* `at`: where the address is written, for the error. */
static int add_task(struct static_state *st, muster_plugin_ctx *pc, const muster_cfg *at,
                    const char *job, long index, const char *address,
                    const muster_cfg *accelerators)
{
	char why[400];

	if (address_check(address, why, sizeof(why)) < 0) {
		st->host->open_error(pc, at, "job '%s': %s", job, why);
		return -1;
	}
	if (vec_reserve(&st->tasks, &st->cap, st->ntasks + 1, sizeof(*st->tasks)) < 0) {
		st->host->open_error(pc, NULL, "out of memory");
		return -1;
	}
	st->tasks[st->ntasks++] = (struct static_task){ job, index, address, accelerators };
	return 0;
}

/* One element of a job's list: an address string, or a task group. */
static int read_task(struct static_state *st, muster_plugin_ctx *pc, const char *job, size_t pos,
                     const muster_cfg *el)
{
	const muster_host *h = st->host;
	const char *address;
	if (h->cfg_string(el, &address) == 0)
		return add_task(st, pc, el, job, (long)pos, address, NULL);
	if (h->cfg_type(el) != MUSTER_CFG_GROUP) {
		h->open_error(pc, el, "job '%s': each task must be \"host:port\" or { index = N; address = \"host:port\"; }", job);
		return -1;
	}
	long index;
	const muster_cfg *acc = h->cfg_get(el, "accelerators");
	if (get_index(h, pc, el, "index", &index) < 0 ||
	    get_string(h, pc, el, "address", &address) < 0)
		return -1;
	if (!address) {
		h->open_error(pc, el, "job '%s': task %ld has no 'address'", job, index);
		return -1;
	}
	if (acc && check_accelerators(h, pc, acc) < 0)
		return -1;
	for (size_t i = 0; i < st->ntasks; i++)
		if (strcmp(st->tasks[i].job, job) == 0 && st->tasks[i].index == index) {
			h->open_error(pc, el, "job '%s': task %ld is given twice", job, index);
			return -1;
		}
	return add_task(st, pc, h->cfg_get(el, "address"), job, index, address, acc);
}

static int read_jobs(const muster_popts *o, const muster_cfg *jobs, void *base)
{
	struct static_state *st = base;
	const muster_host *h = st->host;
	muster_plugin_ctx *pc = o->pc;
	st->jobs = jobs;
	if (!st->jobs) {
		h->open_error(pc, o->group, "'jobs' is missing: jobs = { worker = [\"host:2222\"]; };");
		return -1;
	}
	if (h->cfg_type(st->jobs) != MUSTER_CFG_GROUP) {
		h->open_error(pc, st->jobs, "'jobs' must be a group { worker = [\"host:2222\"]; }");
		return -1;
	}
	for (size_t j = 0; j < h->cfg_count(st->jobs); j++) {
		const muster_cfg *job = h->cfg_at(st->jobs, j);
		int type = h->cfg_type(job);
		if (type != MUSTER_CFG_ARRAY && type != MUSTER_CFG_LIST) {
			h->open_error(pc, job, "job '%s' must be a list of tasks", h->cfg_name(job));
			return -1;
		}
		for (size_t i = 0; i < h->cfg_count(job); i++)
			if (read_task(st, pc, h->cfg_name(job), i, h->cfg_at(job, i)) < 0)
				return -1;
	}
	return 0;
}

static int read_job_accelerators(const muster_popts *o, const muster_cfg *accelerators,
                                 void *base)
{
	struct static_state *st = base;
	const muster_host *h = st->host;
	muster_plugin_ctx *pc = o->pc;
	st->accelerators = accelerators;
	if (!st->accelerators)
		return 0;
	if (h->cfg_type(st->accelerators) != MUSTER_CFG_GROUP) {
		h->open_error(pc, st->accelerators, "'accelerators' must be a group { worker = { GPU = 8; }; }");
		return -1;
	}
	for (size_t i = 0; i < h->cfg_count(st->accelerators); i++) {
		const muster_cfg *g = h->cfg_at(st->accelerators, i);
		if (!h->cfg_get(st->jobs, h->cfg_name(g))) {
			h->open_error(pc, g, "accelerators for job '%s', which is not in 'jobs'", h->cfg_name(g));
			return -1;
		}
		if (check_accelerators(h, pc, g) < 0)
			return -1;
	}
	return 0;
}

static int read_self(const muster_popts *o, const muster_cfg *task, void *base)
{
	struct static_state *st = base;
	const muster_host *h = st->host;
	muster_plugin_ctx *pc = o->pc;
	st->task_index = -1;
	if (!task)
		return 0;
	if (h->cfg_type(task) != MUSTER_CFG_GROUP) {
		h->open_error(pc, task, "'task' must be a group { type = \"worker\"; index = 0; }");
		return -1;
	}
	if (get_string(h, pc, task, "type", &st->task_type) < 0)
		return -1;
	return h->cfg_get(task, "index") ? get_index(h, pc, task, "index", &st->task_index) : 0;
}

/* Whether some task's address is on `host`. */
static int hosts_a_task(const struct static_state *st, const char *host)
{
	size_t n = strlen(host);
	for (size_t i = 0; i < st->ntasks; i++)
		if (strncmp(st->tasks[i].address, host, n) == 0 && st->tasks[i].address[n] == ':')
			return 1;
	return 0;
}

/* node_order: hosts of the tasks, as their addresses write them; a host
 * no task has is a typo, not an order. */
static int read_node_order(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct static_state *st = base;
	char why[400];
	if (!node)
		return 0;
	if (muster_popt_string_list(o, node, "node_order", &st->node_order, &st->nnode_order) < 0)
		return -1;
	for (size_t i = 0; i < st->nnode_order; i++) {
		const char *host = st->node_order[i];
		if (address_check_host(host, why, sizeof(why)) < 0) {
			o->host->open_error(o->pc, node, "node_order: %s", why);
			return -1;
		}
		if (!hosts_a_task(st, host)) {
			o->host->open_error(o->pc, node, "node_order: no task is on host '%s'", host);
			return -1;
		}
	}
	return 0;
}

/* job_id: what the launch derives its master port from (muster(3)). */
static int read_job_id(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct static_state *st = base;
	const char *id;
	if (!node)
		return 0;
	if (muster_popt_node_string(o, node, "job_id", 0, &id) < 0)
		return -1;
	for (const char *c = id; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			o->host->open_error(o->pc, node, "job_id must not hold a control character");
			return -1;
		}
	if (strlen(id) > 256) {
		o->host->open_error(o->pc, node, "job_id must be at most 256 bytes long");
		return -1;
	}
	return muster_popt_copy(o, node, id, &st->job_id);
}

static void static_close(void *state)
{
	struct static_state *st = state;
	if (st) {
		for (size_t i = 0; st->node_order && i < st->nnode_order; i++)
			free(st->node_order[i]);
		free(st->node_order);
		free(st->job_id);
		free(st->tasks);
		free(st->rpc_layer);
		free(st->environment);
		free(st->master);
	}
	free(st);
}

/* In MUSTER_PLACEMENT_* order. */
static const char *const placements[] = { "nodes", "processes", NULL };

static const muster_popt options[] = {
	MUSTER_POPT_CUSTOM("jobs", read_jobs),
	MUSTER_POPT_CUSTOM("accelerators", read_job_accelerators),
	MUSTER_POPT_CUSTOM("task", read_self),
	MUSTER_POPT_STRING("rpc_layer", struct static_state, rpc_layer, MUSTER_POPT_EMPTY, NULL),
	MUSTER_POPT_STRING("environment", struct static_state, environment, MUSTER_POPT_EMPTY, NULL),
	MUSTER_POPT_STRING("master", struct static_state, master, MUSTER_POPT_EMPTY, NULL),
	MUSTER_POPT_CHOICE("placement", struct static_state, placement, placements,
	                   MUSTER_PLACEMENT_NODES),
	MUSTER_POPT_CUSTOM("node_order", read_node_order),
	MUSTER_POPT_CUSTOM("job_id", read_job_id),
};

static int static_open(const muster_host *h, muster_plugin_ctx *pc, void **state)
{
	struct static_state *st = calloc(1, sizeof(*st));
	if (!st) {
		h->open_error(pc, NULL, "out of memory");
		return -1;
	}
	st->host = h;
	muster_popts o = { h, pc, h->cfg_root(pc) };
	if (muster_popt_read(&o, options, MUSTER_POPT_COUNT(options), st) != 0) {
		static_close(st);
		return -1;
	}
	*state = st;
	return 0;
}

static int add_accelerators(const muster_host *h, muster_call *call, const struct static_task *t,
                            const muster_cfg *g)
{
	for (size_t i = 0; i < h->cfg_count(g); i++) {
		const muster_cfg *k = h->cfg_at(g, i);
		long long v = 0;
		h->cfg_int(k, &v);
		if (h->add_accelerator(call, t->job, t->index, h->cfg_name(k), (long)v) < 0)
			return -1;
	}
	return 0;
}

static muster_status static_resolve(void *state, const muster_host *h, muster_call *call)
{
	const struct static_state *st = state;
	/* Jobs first, in config order, so empty jobs exist and order is kept. */
	for (size_t j = 0; j < h->cfg_count(st->jobs); j++) {
		const muster_cfg *job = h->cfg_at(st->jobs, j);
		if (muster_plugin_add_job_sized(h, call, h->cfg_name(job), (long)h->cfg_count(job)) < 0)
			return MUSTER_STATUS_UNAVAIL;
	}
	for (size_t i = 0; i < st->ntasks; i++) {
		const struct static_task *t = &st->tasks[i];
		/* A task's own accelerators replace its job's. */
		const muster_cfg *acc = t->accelerators ? t->accelerators
		                        : st->accelerators ? h->cfg_get(st->accelerators, t->job) : NULL;
		if (h->add_task(call, t->job, t->index, t->address) < 0 ||
		    (acc && add_accelerators(h, call, t, acc) < 0))
			return MUSTER_STATUS_UNAVAIL;
	}
	if (h->set_task(call, st->task_type, st->task_index) < 0 ||
	    h->set_rpc_layer(call, st->rpc_layer) < 0 ||
	    h->set_environment(call, st->environment) < 0 || h->set_master(call, st->master) < 0 ||
	    h->set_master_rule(call, MUSTER_MASTER_SIMPLE) < 0 ||
	    h->set_placement(call, st->placement) < 0 ||
	    h->set_node_order(call, (const char *const *)st->node_order, st->nnode_order) < 0 ||
	    h->set_job_id(call, st->job_id) < 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}

const muster_plugin static_plugin = {
	MUSTER_PLUGIN_HEADER,
	MUSTER_PLUGIN_THREADSAFE | MUSTER_PLUGIN_CONFIG_ONLY,
	"static",
	MUSTER_VERSION,
	static_open,
	static_resolve,
	static_close,
};
