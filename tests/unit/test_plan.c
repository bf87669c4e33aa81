/*
 * The launch plan (core/launch/plan*.c) on results built through the
 * builder, as a backend builds them: the GPUs a node's processes see and
 * pick by LOCAL_RANK, heterogeneous --nproc-per-node gpu counts, the
 * scheduler's node order (hosts it does not know, hosts twice), the
 * accessors, a caller's muster_launch from before local_gpus, and an IPv6
 * master.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "../../core/model/builder.h"

struct task {
	const char *address;
	int ids[4];  /* GPU ids, -1 ended */
	long gpus;   /* a GPU count without ids; 0: none; -1: only a TPU */
};

/* A result of `n` tasks of job "worker" at `placement`, own task `self`. */
static muster_result *build(const struct task *t, size_t n, int placement, long self,
                            const char *const *order, size_t norder)
{
	struct builder b;
	assert_int_equal(builder_init(&b), 0);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		assert_int_equal(builder_task(&b, "worker", (long)i, t[i].address), 0);
		while (k < 4 && t[i].ids[k] >= 0)
			k++;
		if (t[i].gpus > 0)
			assert_int_equal(builder_accel(&b, "worker", (long)i, "GPU", t[i].gpus), 0);
		else if (t[i].gpus < 0)
			assert_int_equal(builder_accel(&b, "worker", (long)i, "TPU", 4), 0);
		else if (k)
			assert_int_equal(builder_accel_ids(&b, "worker", (long)i, "GPU", t[i].ids, k), 0);
	}
	assert_int_equal(builder_set_task(&b, "worker", self), 0);
	assert_int_equal(builder_set_string(&b, &b.r->source, "test"), 0);
	assert_int_equal(builder_set_node_order(&b, order, norder), 0);
	b.r->placement = placement;
	muster_result *r = builder_finish(&b);
	assert_non_null(r);
	return r;
}

#define NONE { -1, -1, -1, -1 }

/* The value of NAME in the env of `proc`, copied; "(unset)" when absent. */
static const char *var(const muster_plan *p, long proc, const char *name)
{
	static char value[256];
	muster_error err = { 0, "" };
	char **env = NULL;
	size_t n = strlen(name);
	if (muster_plan_env(&env, p, proc, NULL, &err) != 0) {
		print_error("muster_plan_env: %s\n", err.message);
		fail();
	}
	snprintf(value, sizeof(value), "(unset)");
	for (size_t i = 0; env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			snprintf(value, sizeof(value), "%s", env[i] + n + 1);
	muster_free(env);
	return value;
}

static muster_plan *plan_of(const muster_result *r, const char *framework, long nproc,
                            long local_gpus)
{
	muster_launch l = MUSTER_LAUNCH_INIT;
	muster_error err = { 0, "" };
	muster_plan *p = NULL;
	l.framework = framework;
	l.nproc_per_node = nproc;
	l.local_gpus = local_gpus;
	if (muster_launch_plan(&p, r, &l, &err) != 0)
		print_error("muster_launch_plan: %s\n", err.message);
	assert_non_null(p);
	return p;
}

/* Slurm's per-task slices, two tasks a host: each process sees its host's
 * two GPUs and its LOCAL_RANK picks its own. */
static void test_node_gpus_in_local_rank_order(void **state)
{
	static const struct task t[] = {
		{ "h1:1", { 0, -1, -1, -1 }, 0 }, { "h1:2", { 1, -1, -1, -1 }, 0 },
		{ "h2:1", { 1, -1, -1, -1 }, 0 }, { "h2:2", { 0, -1, -1, -1 }, 0 },
	};
	(void)state;
	for (long self = 0; self < 4; self++) {
		muster_result *r = build(t, 4, MUSTER_PLACEMENT_PROCESSES, self, NULL, 0);
		muster_plan *p = plan_of(r, "pytorch", 1, 0);
		long local = self % 2;
		char want[8];
		snprintf(want, sizeof(want), "%ld", local);
		assert_string_equal(var(p, 0, "LOCAL_RANK"), want);
		assert_string_equal(var(p, 0, "CUDA_VISIBLE_DEVICES"), self < 2 ? "0,1" : "1,0");
		muster_plan_free(p);
		p = plan_of(r, "jax", 1, 0);
		assert_string_equal(var(p, 0, "JAX_LOCAL_DEVICE_IDS"), want);
		muster_plan_free(p);
		muster_result_free(r);
	}
}

/* --gpus-per-node: every task of a host sees all of them; each GPU once. */
static void test_shared_gpus_once(void **state)
{
	static const struct task t[] = {
		{ "h1:1", { 0, 1, -1, -1 }, 0 },
		{ "h1:2", { 0, 1, -1, -1 }, 0 },
	};
	(void)state;
	muster_result *r = build(t, 2, MUSTER_PLACEMENT_PROCESSES, 1, NULL, 0);
	muster_plan *p = plan_of(r, "jax", 1, 0);
	assert_string_equal(var(p, 0, "CUDA_VISIBLE_DEVICES"), "0,1");
	assert_string_equal(var(p, 0, "JAX_LOCAL_DEVICE_IDS"), "1");
	muster_plan_free(p);
	muster_result_free(r);
}

/* Under nodes placement a task's ids are its node's: unchanged; JAX picks
 * by local rank only where each process owns one GPU. */
static void test_nodes_keep_task_ids(void **state)
{
	static const struct task t[] = {
		{ "h1:1", { 2, 3, -1, -1 }, 0 },
		{ "h1:2", { 0, 1, -1, -1 }, 0 },
	};
	(void)state;
	muster_result *r = build(t, 2, MUSTER_PLACEMENT_NODES, 1, NULL, 0);
	muster_plan *p = plan_of(r, "jax", 2, 0);
	assert_string_equal(var(p, 1, "CUDA_VISIBLE_DEVICES"), "0,1");
	assert_string_equal(var(p, 1, "JAX_LOCAL_DEVICE_IDS"), "1");
	assert_string_equal(var(p, 1, "JAX_PROCESS_ID"), "3");
	muster_plan_free(p);
	p = plan_of(r, "jax", 1, 0); /* one process, two GPUs: it uses both */
	assert_string_equal(var(p, 0, "JAX_LOCAL_DEVICE_IDS"), "(unset)");
	muster_plan_free(p);
	muster_result_free(r);
}

/* The 3-GPU and 2-GPU nodes: one world of 5, prefix-sum ranks,
 * no PET_* (torchrun's one count per node would be wrong). */
static void test_heterogeneous_gpus(void **state)
{
	static const struct task t[] = {
		{ "g3:1", NONE, 3 },
		{ "g2:1", NONE, 2 },
	};
	(void)state;
	for (long self = 0; self < 2; self++) {
		muster_result *r = build(t, 2, MUSTER_PLACEMENT_NODES, self, NULL, 0);
		muster_plan *p = plan_of(r, "pytorch", MUSTER_NPROC_GPU, 8);
		assert_int_equal(muster_plan_world_size(p), 5);
		assert_int_equal(muster_plan_nproc(p), self ? 2 : 3);
		assert_int_equal(muster_plan_first_rank(p), self ? 3 : 0);
		assert_string_equal(var(p, self ? 1 : 2, "RANK"), self ? "4" : "2");
		assert_string_equal(var(p, 0, "WORLD_SIZE"), "5");
		assert_string_equal(var(p, 0, "LOCAL_WORLD_SIZE"), self ? "2" : "3");
		assert_string_equal(var(p, 0, "PET_NNODES"), "(unset)");
		assert_null(muster_plan_note(p)); /* the backend gave every count */
		muster_plan_free(p);
		muster_result_free(r);
	}
}

/* A node the backend says nothing of is assumed to be like this one, and
 * the plan says so; one with no GPU, or none to assume, is an error. */
static void test_assumed_gpus(void **state)
{
	static const struct task known[] = { { "a:1", NONE, 2 }, { "b:1", NONE, 0 } };
	static const struct task tpu[] = { { "a:1", NONE, 2 }, { "b:1", NONE, -1 } };
	muster_launch l = MUSTER_LAUNCH_INIT;
	muster_error err = { 0, "" };
	muster_plan *p = NULL;
	(void)state;

	muster_result *r = build(known, 2, MUSTER_PLACEMENT_NODES, 0, NULL, 0);
	p = plan_of(r, "pytorch", MUSTER_NPROC_GPU, 4);
	assert_int_equal(muster_plan_world_size(p), 6);
	assert_string_equal(muster_plan_note(p),
	                    "assuming every node the backend gives no GPU count for has 4 GPUs, "
	                    "as this machine does");
	muster_plan_free(p);
	l.framework = "pytorch";
	l.nproc_per_node = MUSTER_NPROC_GPU;
	assert_int_equal(muster_launch_plan(&p, r, &l, &err), MUSTER_ENOENT);
	assert_non_null(strstr(err.message, "gives task worker:1 no GPU count, and this machine "
	                                    "shows no GPU to assume"));
	muster_result_free(r);

	r = build(known, 2, MUSTER_PLACEMENT_NODES, 1, NULL, 0); /* only the own unit assumed */
	p = plan_of(r, "pytorch", MUSTER_NPROC_GPU, 4);
	assert_null(muster_plan_note(p));
	muster_plan_free(p);
	muster_result_free(r);

	r = build(tpu, 2, MUSTER_PLACEMENT_NODES, 0, NULL, 0);
	l.local_gpus = 8;
	assert_int_equal(muster_launch_plan(&p, r, &l, &err), MUSTER_ENOENT);
	assert_non_null(strstr(err.message, "task worker:1 has no GPU"));
	muster_result_free(r);
}

/* The scheduler's node order: hosts it lists first (one it lists twice
 * where it comes first, one no task is on skipped), then the others. */
static void test_node_order(void **state)
{
	static const struct task t[] = {
		{ "c:1", NONE, 0 }, { "a:1", NONE, 0 }, { "b:1", NONE, 0 }, { "a:2", NONE, 0 },
	};
	static const char *const order[] = { "zz", "b", "a", "b" };
	const char *host;
	long nproc;
	(void)state;
	muster_result *r = build(t, 4, MUSTER_PLACEMENT_PROCESSES, 3, order, 4);
	muster_plan *p = plan_of(r, "pytorch", 1, 0);
	assert_int_equal(muster_plan_node_count(p), 3);
	assert_int_equal(muster_plan_node_at(p, 0, &host, &nproc), 0);
	assert_string_equal(host, "b");
	assert_int_equal(nproc, 1);
	assert_int_equal(muster_plan_node_at(p, 1, &host, &nproc), 0);
	assert_string_equal(host, "a");
	assert_int_equal(nproc, 2);
	assert_int_equal(muster_plan_node_at(p, 2, &host, NULL), 0);
	assert_string_equal(host, "c");
	assert_int_equal(muster_plan_node_at(p, 3, &host, NULL), MUSTER_ENOENT);
	assert_int_equal(muster_plan_node_rank(p), 1);
	assert_int_equal(muster_plan_first_rank(p), 3);
	assert_int_equal(muster_plan_first_local_rank(p), 1);
	assert_string_equal(muster_plan_master_host(p), "c"); /* rank 0's host */
	assert_int_equal(muster_plan_master_port(p), 1);
	char *hosts = NULL;
	muster_error err = { 0, "" };
	assert_int_equal(muster_plan_hostfile(&hosts, p, "mpich", &err), 0);
	assert_string_equal(hosts, "b:1\na:2\nc:1\n");
	muster_free(hosts);
	muster_plan_free(p);
	muster_result_free(r);
}

/* What a plan refuses, and a caller's struct from before local_gpus. */
static void test_refusals_and_old_launch(void **state)
{
	static const struct task t[] = { { "h:1", NONE, 0 }, { "h:2", NONE, 0 } };
	muster_error err = { 0, "" };
	muster_launch l = MUSTER_LAUNCH_INIT;
	muster_plan *p = NULL;
	char **env = NULL;
	(void)state;
	muster_result *r = build(t, 2, MUSTER_PLACEMENT_NODES, 1, NULL, 0);

	p = plan_of(r, "openmpi", 1, 0);
	assert_int_equal(muster_plan_env(&env, p, 0, NULL, &err), MUSTER_EINVAL);
	muster_plan_free(p);
	p = plan_of(r, "pytorch", 2, 0);
	assert_int_equal(muster_plan_env(&env, p, 2, NULL, &err), MUSTER_EINVAL);
	assert_string_equal(err.message, "local rank 2 is not below 2 processes per node");
	muster_plan_free(p);

	l.framework = "pytorch";
	l.size = offsetof(muster_launch, local_gpus); /* built against the older header */
	assert_int_equal(muster_launch_plan(&p, r, &l, &err), 0);
	assert_string_equal(var(p, 0, "RANK"), "1");
	muster_plan_free(p);
	l.size = offsetof(muster_launch, local_device_ids);
	assert_int_equal(muster_launch_plan(&p, r, &l, &err), MUSTER_EINVAL);
	assert_null(p);

	p = plan_of(r, "tensorflow", 3, 0);
	assert_int_equal(muster_plan_nproc(p), 3);
	assert_int_equal(muster_plan_world_size(p), -1);
	assert_null(muster_plan_master_host(p));
	assert_non_null(strstr(var(p, 2, "TF_CONFIG"), "\"task\":{\"type\":\"worker\",\"index\":1}"));
	muster_plan_free(p);
	muster_result_free(r);
}

/* An IPv6 master: MASTER_ADDR bare, JAX's coordinator in brackets. */
static void test_ipv6_master(void **state)
{
	static const struct task t[] = { { "[fd00::1]:2222", NONE, 0 }, { "h:1", NONE, 0 } };
	(void)state;
	muster_result *r = build(t, 2, MUSTER_PLACEMENT_NODES, 1, NULL, 0);
	muster_plan *p = plan_of(r, "jax", 1, 0);
	assert_string_equal(var(p, 0, "JAX_COORDINATOR_ADDRESS"), "[fd00::1]:2222");
	muster_plan_free(p);
	p = plan_of(r, "pytorch", 1, 0);
	assert_string_equal(var(p, 0, "MASTER_ADDR"), "fd00::1");
	muster_plan_free(p);
	muster_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_gpus_in_local_rank_order),
		cmocka_unit_test(test_shared_gpus_once),
		cmocka_unit_test(test_nodes_keep_task_ids),
		cmocka_unit_test(test_heterogeneous_gpus),
		cmocka_unit_test(test_assumed_gpus),
		cmocka_unit_test(test_node_order),
		cmocka_unit_test(test_refusals_and_old_launch),
		cmocka_unit_test(test_ipv6_master),
	};
	unsetenv("MUSTER_MASTER_PORT");
	return run_tap_tests(tests, NULL, NULL);
}
