/* What this node does with one result of muster run --elastic's watch:
 * train (and with which launch), wait for --min-nodes, or wait as a spare. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* Whether the environment sets NAME. */
static int has_var(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env[i] != NULL; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return 1;
	return 0;
}

/* The set variable that replaces `e`, else `e` itself. */
static const char *effective(const char *e, char *const *set)
{
	size_t n = strcspn(e, "=");
	for (size_t i = 0; set[i] != NULL; i++)
		if (strncmp(set[i], e, n + 1) == 0)
			return set[i];
	return e;
}

/* The launch as this node's workers would see it, one string: two
 * results that launch this node alike give the same key. */
static char *launch_key(char *const *env, char *const *set)
{
	size_t len = 1;
	for (size_t i = 0; env[i] != NULL; i++)
		len += strlen(effective(env[i], set)) + 1;
	for (size_t i = 0; set[i] != NULL; i++)
		len += strlen(set[i]) + 1;
	char *key = malloc(len), *o = key;
	for (size_t i = 0; key && env[i] != NULL; i++)
		o += sprintf(o, "%s\n", effective(env[i], set));
	for (size_t i = 0; key && set[i] != NULL; i++)
		o += sprintf(o, "%s\n", set[i]);
	return key;
}

/* The world trimmed to the nodes that train (their processes, which the
 * plan counts per node); torchrun's GROUP_WORLD_SIZE, and PET_NNODES where
 * the plan gives torchrun's arguments at all. */
static void trim(struct node_launch *n, int pytorch, char *const *env)
{
	long world = 0, nproc;
	size_t k = 0;
	for (long i = 0; i < n->trained && muster_plan_node_at(n->plan, (size_t)i, NULL, &nproc) == 0;
	     i++)
		world += nproc;
	if (pytorch) {
		snprintf(n->vars[k++], sizeof(n->vars[0]), "WORLD_SIZE=%ld", world);
		if (has_var(env, "PET_NNODES"))
			snprintf(n->vars[k++], sizeof(n->vars[0]), "PET_NNODES=%ld", n->trained);
		snprintf(n->vars[k++], sizeof(n->vars[0]), "GROUP_WORLD_SIZE=%ld", n->trained);
	} else {
		snprintf(n->vars[k++], sizeof(n->vars[0]), "JAX_NUM_PROCESSES=%ld", world);
	}
	for (size_t i = 0; i < k; i++)
		n->set[i] = n->vars[i];
	n->set[k] = NULL;
}

/* Trimming by node keeps ranks 0..W-1 only where the first nodes hold the
 * first ranks: always under nodes placement, not for a scheduler's cyclic
 * layout.  A scheduler's job is not elastic anyway: no trimming there. */
static int untrimmable(const struct node_launch *n, const muster_result *res, long max_nodes)
{
	return muster_result_placement(res) == MUSTER_PLACEMENT_PROCESSES && n->nodes > max_nodes;
}

int run_node_decide(struct node_launch *n, const muster_result *res, struct cli_launch *cl,
                    long min_nodes, long max_nodes)
{
	muster_error err = { 0, "" };
	int pytorch = strcmp(cl->l.framework, "pytorch") == 0;
	char **env = NULL;

	memset(n, 0, sizeof(*n));
	int rc = muster_launch_plan(&n->plan, res, &cl->l, &err);
	if (rc == MUSTER_ENOMEM || rc == MUSTER_EINVAL || rc == MUSTER_ECONFIG) /* MUSTER_MASTER_PORT */
		return cli_fail(rc, &err);
	if (rc == 0 && (rc = muster_plan_env(&env, n->plan, 0, NULL, &err)) == MUSTER_ENOMEM)
		return cli_fail(rc, &err);
	if (rc != 0) { /* no task of ours, no training task, no dense ranks */
		n->part = NODE_SPARE;
		snprintf(n->note, sizeof(n->note), "waiting as a spare: %s", err.message);
		return 0;
	}
	n->nodes = (long)muster_plan_node_count(n->plan);
	n->group_rank = muster_plan_node_rank(n->plan);
	n->trained = n->nodes < max_nodes ? n->nodes : max_nodes;
	if (untrimmable(n, res, max_nodes)) {
		muster_free(env);
		cli_error("%s: --max-nodes %ld is below the scheduler's %ld nodes: its ranks cannot "
		          "be trimmed by node", cl->command, max_nodes, n->nodes);
		return CLI_EXIT_USAGE;
	}
	if (n->nodes < min_nodes) {
		n->part = NODE_WAITS;
		snprintf(n->note, sizeof(n->note),
		         "%ld training node%s, fewer than --min-nodes %ld: waiting for %ld more",
		         n->nodes, n->nodes == 1 ? "" : "s", min_nodes, min_nodes - n->nodes);
	} else if (n->group_rank >= max_nodes) {
		n->part = NODE_SPARE;
		snprintf(n->note, sizeof(n->note),
		         "this node is node %ld of %ld, past --max-nodes %ld: waiting as a spare",
		         n->group_rank, n->nodes, max_nodes);
	} else {
		n->part = NODE_TRAINS;
		trim(n, pytorch, env);
		if ((n->key = launch_key(env, n->set)) == NULL) {
			muster_free(env);
			cli_error("%s", muster_strerror(MUSTER_ENOMEM));
			return CLI_EXIT_SOFTWARE;
		}
	}
	muster_free(env);
	return 0;
}

void run_node_free(struct node_launch *n)
{
	free(n->key);
	n->key = NULL;
	muster_plan_free(n->plan);
	n->plan = NULL;
}
