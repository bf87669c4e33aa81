/*
 * placement -c CONF [--explain]: resolve CONF's chain through libmuster and
 * print what the answer tells a launch, one fact a line:
 *
 *   placement processes        (or nodes)
 *   nodes n1 n2 n3             the scheduler's node order, as the backend gave it
 *   job 123                    (or none)
 *   task worker 5              the own task
 *   input NAME=VALUE           with --explain: what the answering entry noted
 *                              ("(unset)" for a variable that is not set)
 *
 * Exit 2 with the chain's reason when it does not resolve.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <muster/muster.h>

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
	if (explain)
		print_inputs(x);
	muster_result_free(r);
	muster_explain_free(x);
	muster_ctx_free(ctx);
	return 0;
}
