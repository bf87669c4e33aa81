/*
 * placement -c CONF [--explain]: resolve CONF's chain through libmuster and
 * print what the answer tells a launch, one fact a line:
 *
 *   placement processes        (or nodes)
 *   nodes n1 n2 n3             the scheduler's node order, as the backend gave it
 *   job 123                    (or none)
 *   task worker 5              the own task
 *   ranks RANK=5 LOCAL_RANK=1 NODE_RANK=2 LOCAL_WORLD_SIZE=2 WORLD_SIZE=8 MASTER_ADDR=n1
 *   input NAME=VALUE           with --explain: what the answering entry noted
 *                              ("(unset)" for a variable that is not set)
 *
 * "ranks" applies the launch's rules to one process per task of the own
 * job (docs/ranks.md, the spec of the launch plan): ranks in task order,
 * nodes the distinct hosts in the node order (hosts it does not name after,
 * by first task), a task's local rank its place among the tasks of its
 * host, the master the host of task 0.  The scheduler tests compare it
 * with what PyTorch Lightning and JAX compute from the same variables.
 * Exit 2 with the chain's reason when it does not resolve.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <muster/muster.h>

/* The host part of "host:port" or "[v6]:port", into buf. */
static const char *host_of(const char *address, char *buf, size_t size)
{
	const char *colon = strrchr(address, ':');
	size_t len = colon != NULL ? (size_t)(colon - address) : strlen(address);

	if (len >= 2 && address[0] == '[' && address[len - 1] == ']') {
		address++;
		len -= 2;
	}
	snprintf(buf, size, "%.*s", (int)len, address);
	return buf;
}

/* The position of `host` among the nodes: node order first (hosts that
 * hold a task), then by first task. */
static long node_of(const muster_result *r, const char *job, size_t ntasks, const char *host)
{
	char a[300], b[300];
	long node = 0;
	const char *name, *address;
	long index;

	for (size_t i = 0; (name = muster_result_node_order(r, i)) != NULL; i++) {
		int holds = 0, seen = 0;

		for (size_t k = 0; k < i; k++)
			seen |= strcmp(muster_result_node_order(r, k), name) == 0;
		for (size_t t = 0; t < ntasks && !holds; t++)
			holds = muster_result_task_at(r, job, t, &index, &address) == 0 &&
			        strcmp(host_of(address, a, sizeof(a)), name) == 0;
		if (seen || !holds)
			continue;
		if (strcmp(name, host) == 0)
			return node;
		node++;
	}
	for (size_t t = 0; t < ntasks; t++) {
		int earlier = 0, listed = 0;

		muster_result_task_at(r, job, t, &index, &address);
		host_of(address, a, sizeof(a));
		for (size_t k = 0; k < t && !earlier; k++) {
			muster_result_task_at(r, job, k, &index, &address);
			earlier = strcmp(host_of(address, b, sizeof(b)), a) == 0;
		}
		for (size_t i = 0; (name = muster_result_node_order(r, i)) != NULL && !listed; i++)
			listed = strcmp(name, a) == 0;
		if (earlier || listed)
			continue;
		if (strcmp(a, host) == 0)
			return node;
		node++;
	}
	return -1;
}

static void print_ranks(const muster_result *r)
{
	const char *job = muster_result_task_type(r), *address, *own;
	long self = muster_result_task_index(r), index, local = 0, local_size = 0;
	size_t n = job != NULL ? muster_result_task_count(r, job) : 0;
	char host[300], other[300], master[300];

	if (job == NULL || self < 0 || (own = muster_result_address(r, job, self)) == NULL)
		return;
	host_of(own, host, sizeof(host));
	for (size_t t = 0; t < n; t++) {
		if (muster_result_task_at(r, job, t, &index, &address) != 0)
			continue;
		if (strcmp(host_of(address, other, sizeof(other)), host) != 0)
			continue;
		local += index < self;
		local_size++;
	}
	host_of(muster_result_address(r, job, 0), master, sizeof(master));
	printf("ranks RANK=%ld LOCAL_RANK=%ld NODE_RANK=%ld LOCAL_WORLD_SIZE=%ld WORLD_SIZE=%zu "
	       "MASTER_ADDR=%s\n",
	       self, local, node_of(r, job, n, host), local_size, n, master);
}

static void print_inputs(const muster_explain *x)
{
	size_t n = muster_explain_entry_count(x);

	for (size_t i = 0; i < n; i++) {
		muster_explain_entry e = MUSTER_EXPLAIN_ENTRY_INIT;
		const char *name, *value;

		if (muster_explain_entry_at(x, i, &e) != 0 || !e.used)
			continue;
		for (size_t j = 0; muster_explain_input_at(x, i, j, &name, &value) == 0; j++)
			printf("input %s=%s\n", name, value != NULL ? value : "(unset)");
	}
}

int main(int argc, char **argv)
{
	muster_ctx *ctx = NULL;
	muster_result *r = NULL;
	muster_explain *x = NULL;
	muster_error err;
	const char *name;
	int explain = argc == 4 && strcmp(argv[3], "--explain") == 0;

	if ((argc != 3 && !explain) || strcmp(argv[1], "-c") != 0) {
		fprintf(stderr, "usage: placement -c CONF [--explain]\n");
		return 64;
	}
	if (muster_ctx_open(&ctx, argv[2], NULL, &err) != 0) {
		fprintf(stderr, "placement: %s\n", err.message);
		return 2;
	}
	if (muster_resolve_explain(&r, &x, ctx, &err) != 0) {
		fprintf(stderr, "placement: %s\n", err.message);
		muster_explain_free(x);
		muster_ctx_free(ctx);
		return 2;
	}
	printf("placement %s\n",
	       muster_result_placement(r) == MUSTER_PLACEMENT_PROCESSES ? "processes" : "nodes");
	printf("nodes");
	for (size_t i = 0; (name = muster_result_node_order(r, i)) != NULL; i++)
		printf(" %s", name);
	printf("\njob %s\n", muster_result_job_id(r) != NULL ? muster_result_job_id(r) : "none");
	if (muster_result_task_type(r) != NULL)
		printf("task %s %ld\n", muster_result_task_type(r), muster_result_task_index(r));
	print_ranks(r);
	if (explain)
		print_inputs(x);
	muster_result_free(r);
	muster_explain_free(x);
	muster_ctx_free(ctx);
	return 0;
}
