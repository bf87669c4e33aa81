/* What this node does with one result of muster run --elastic's watch:
 * train (and with which launch), wait for --min-nodes, or wait as a spare. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* The value of NAME in a launch environment, as a number; -1 if absent. */
static long var(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env[i] != NULL; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return strtol(env[i] + n + 1, NULL, 10);
	return -1;
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

/* The world trimmed to the nodes that train; torchrun's GROUP_WORLD_SIZE. */
static void trim(struct node_launch *n, int pytorch, long nproc)
{
	size_t k = 0;
	if (pytorch) {
		snprintf(n->vars[k++], sizeof(n->vars[0]), "WORLD_SIZE=%ld", n->trained * nproc);
		snprintf(n->vars[k++], sizeof(n->vars[0]), "PET_NNODES=%ld", n->trained);
		snprintf(n->vars[k++], sizeof(n->vars[0]), "GROUP_WORLD_SIZE=%ld", n->trained);
	} else {
		snprintf(n->vars[k++], sizeof(n->vars[0]), "JAX_NUM_PROCESSES=%ld", n->trained * nproc);
	}
	for (size_t i = 0; i < k; i++)
		n->set[i] = n->vars[i];
	n->set[k] = NULL;
}

int run_node_decide(struct node_launch *n, const muster_result *res, struct cli_launch *cl,
                    long min_nodes, long max_nodes)
{
	muster_error err = { 0, "" };
	int pytorch = strcmp(cl->l.framework, "pytorch") == 0;
	long nproc = cl->l.nproc_per_node;
	char **env = NULL;

	memset(n, 0, sizeof(*n));
	cl->l.local_rank = 0;
	cl->l.local_device_ids = NULL;
	int rc = muster_launch_env(&env, res, &cl->l, &err);
	if (rc == MUSTER_ENOMEM)
		return cli_fail(rc, &err);
	if (rc != 0) { /* no task of ours, no training task, no dense ranks */
		n->part = NODE_SPARE;
		snprintf(n->note, sizeof(n->note), "waiting as a spare: %s", err.message);
		return 0;
	}
	n->nodes = pytorch ? var(env, "PET_NNODES") : var(env, "JAX_NUM_PROCESSES") / nproc;
	n->group_rank = pytorch ? var(env, "GROUP_RANK") : var(env, "JAX_PROCESS_ID") / nproc;
	n->trained = n->nodes < max_nodes ? n->nodes : max_nodes;
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
		trim(n, pytorch, nproc);
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
}
