/*
 * tf_config: what TFConfigClusterResolver reads from a valid TF_CONFIG —
 * the cluster (dense, sparse, Kubeflow's forms), self identity, rpc layer,
 * environment — and the config options that override them.
 */
#include <config.h>

#include "tfc_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *normal_tf_config =
	"{\n"
	"  \"cluster\": {\n"
	"    \"ps\": [\"ps0:2222\", \"ps1:2222\"],\n"
	"    \"worker\": [\"worker0:2222\", \"worker1:2222\", \"worker2:2222\"]\n"
	"  },\n"
	"  \"task\": {\n"
	"    \"type\": \"ps\",\n"
	"    \"index\": 0\n"
	"  }\n"
	"}\n";

/* TF: testNormalClusterSpecRead. */
static void normal_cluster(void **state)
{
	muster_result *res = tfc_resolve(NULL, normal_tf_config);

	(void)state;
	assert_string_equal(muster_result_source(res), "tfc");
	assert_int_equal(muster_result_job_count(res), 2);
	assert_string_equal(muster_result_job_name(res, 0), "ps");
	assert_string_equal(muster_result_job_name(res, 1), "worker");
	TFC_TASKS(res, "ps", { 0, "ps0:2222" }, { 1, "ps1:2222" });
	TFC_TASKS(res, "worker", { 0, "worker0:2222" }, { 1, "worker1:2222" },
	          { 2, "worker2:2222" });
	assert_true(muster_result_job_is_dense(res, "ps"));
	assert_true(muster_result_job_is_dense(res, "worker"));
	assert_string_equal(muster_result_task_type(res), "ps");
	assert_int_equal(muster_result_task_index(res), 0);
	/* Nothing in TF_CONFIG: TF's properties are None. */
	assert_null(muster_result_rpc_layer(res));
	assert_null(muster_result_environment(res));
	muster_result_free(res);
}

/* Jobs keep TF_CONFIG's order, not sorted. */
static void job_order_kept(void **state)
{
	muster_result *res = tfc_resolve(
		NULL, "{\"cluster\":{\"worker\":[\"w0:1\"],\"chief\":[\"c0:1\"],\"ps\":[\"p0:1\"]}}");

	(void)state;
	assert_int_equal(muster_result_job_count(res), 3);
	assert_string_equal(muster_result_job_name(res, 0), "worker");
	assert_string_equal(muster_result_job_name(res, 1), "chief");
	assert_string_equal(muster_result_job_name(res, 2), "ps");
	assert_null(muster_result_task_type(res));
	assert_int_equal(muster_result_task_index(res), -1);
	muster_result_free(res);
}

/* TF: testSparseClusterSpecRead. */
static void sparse_cluster(void **state)
{
	muster_result *res = tfc_resolve(NULL, "{\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"], "
	                                       "\"worker\": {\"1\": \"worker1:2222\"}}, "
	                                       "\"task\": {\"type\": \"worker\", \"index\": 1}}");

	(void)state;
	assert_int_equal(muster_result_job_count(res), 2);
	TFC_TASKS(res, "worker", { 1, "worker1:2222" });
	assert_false(muster_result_job_is_dense(res, "worker"));
	assert_null(muster_result_address(res, "worker", 0));
	assert_true(muster_result_job_is_dense(res, "ps"));
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 1);
	muster_result_free(res);
}

/* Sparse keys go through Python's int(): order by index, not by text. */
static void sparse_numeric_string_keys(void **state)
{
	muster_result *res;

	(void)state;
	res = tfc_resolve(NULL, "{\"cluster\":{\"worker\":{\"10\":\"w10:1\",\" 2 \":\"w2:1\","
	                        "\"+1\":\"w1:1\",\"\\t0\\n\":\"w0:1\",\"1_1\":\"w11:1\","
	                        "\"007\":\"w7:1\"}}}");
	TFC_TASKS(res, "worker", { 0, "w0:1" }, { 1, "w1:1" }, { 2, "w2:1" }, { 7, "w7:1" },
	          { 10, "w10:1" }, { 11, "w11:1" });
	assert_false(muster_result_job_is_dense(res, "worker"));
	muster_result_free(res);

	/* A map that covers 0..n-1 reads as dense, whatever its key order. */
	res = tfc_resolve(NULL, "{\"cluster\":{\"worker\":{\"1\":\"b:1\",\"0\":\"a:1\"}}}");
	TFC_TASKS(res, "worker", { 0, "a:1" }, { 1, "b:1" });
	assert_true(muster_result_job_is_dense(res, "worker"));
	muster_result_free(res);
}

/* TF: testTaskTypeCastToString — str(123456). */
static void task_type_number(void **state)
{
	muster_result *res = tfc_resolve(NULL, "{\"cluster\": {\"123456\": [\"a:1\", \"b:1\"]}, "
	                                       "\"task\": {\"type\": 123456, \"index\": 1}}");

	(void)state;
	assert_string_equal(muster_result_task_type(res), "123456");
	assert_int_equal(muster_result_task_index(res), 1);
	tfc_assert_master(res, NULL, -1, NULL, "b:1");
	muster_result_free(res);

	res = tfc_resolve(NULL, "{\"task\": {\"type\": -7}}");
	assert_string_equal(muster_result_task_type(res), "-7");
	assert_int_equal(muster_result_task_index(res), -1);
	muster_result_free(res);
}

/* TF: testTaskIndexCastToInteger — int("1"); an integral float too. */
static void task_index_as_string(void **state)
{
	muster_result *res = tfc_resolve(NULL, "{\"task\": {\"type\": \"worker\", \"index\": \"1\"}}");

	(void)state;
	assert_int_equal(muster_result_task_index(res), 1);
	muster_result_free(res);

	res = tfc_resolve(NULL, "{\"task\": {\"type\": \"worker\", \"index\": \" +12 \"}}");
	assert_int_equal(muster_result_task_index(res), 12);
	muster_result_free(res);

	res = tfc_resolve(NULL, "{\"task\": {\"type\": \"worker\", \"index\": 3.0}}");
	assert_int_equal(muster_result_task_index(res), 3);
	muster_result_free(res);

	/* Only the index: the type stays unknown. */
	res = tfc_resolve(NULL, "{\"task\": {\"index\": 2}}");
	assert_null(muster_result_task_type(res));
	assert_int_equal(muster_result_task_index(res), 2);
	muster_result_free(res);
}

/* TF's constructor arguments, from the config: each one wins on its own. */
static void overrides_each_separately(void **state)
{
	const char *tf = "{\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"], "
	                 "\"worker\": [\"worker0:2222\", \"worker1:2222\"]}, "
	                 "\"task\": {\"type\": \"worker\", \"index\": 0}, "
	                 "\"rpc_layer\": \"grpc\", \"environment\": \"cloud\"}";
	muster_ctx *ctx;
	muster_result *res;

	(void)state;
	ctx = tfc_ctx("variable = \"" TFC_VAR "\"; task_type = \"ps\";");
	res = tfc_resolve(ctx, tf);
	assert_string_equal(muster_result_task_type(res), "ps");
	assert_int_equal(muster_result_task_index(res), 0);
	assert_string_equal(muster_result_rpc_layer(res), "grpc");
	tfc_assert_master(res, NULL, -1, NULL, "grpc://ps0:2222");
	muster_result_free(res);
	muster_ctx_free(ctx);

	/* TF: testTaskIndexOverride. */
	ctx = tfc_ctx("variable = \"" TFC_VAR "\"; task_id = 1;");
	res = tfc_resolve(ctx, tf);
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 1);
	tfc_assert_master(res, NULL, -1, NULL, "grpc://worker1:2222");
	muster_result_free(res);
	muster_ctx_free(ctx);

	ctx = tfc_ctx("variable = \"" TFC_VAR "\"; rpc_layer = \"grpc+verbs\";");
	res = tfc_resolve(ctx, tf);
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 0);
	assert_string_equal(muster_result_rpc_layer(res), "grpc+verbs");
	tfc_assert_master(res, NULL, -1, NULL, "grpc+verbs://worker0:2222");
	muster_result_free(res);
	muster_ctx_free(ctx);

	ctx = tfc_ctx("variable = \"" TFC_VAR "\"; environment = \"google\";");
	res = tfc_resolve(ctx, tf);
	assert_string_equal(muster_result_environment(res), "google");
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_string_equal(muster_result_rpc_layer(res), "grpc");
	muster_result_free(res);
	muster_ctx_free(ctx);

	/* TF: testParameterOverrides — all together. */
	ctx = tfc_ctx("variable = \"" TFC_VAR "\"; task_type = \"ps\"; task_id = 1; "
	              "rpc_layer = \"grpc\"; environment = \"local\";");
	res = tfc_resolve(ctx, "{\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"], "
	                       "\"worker\": [\"worker0:2222\", \"worker1:2222\"]}, "
	                       "\"task\": {\"type\": \"worker\", \"index\": 0}}");
	assert_string_equal(muster_result_task_type(res), "ps");
	assert_int_equal(muster_result_task_index(res), 1);
	assert_string_equal(muster_result_environment(res), "local");
	tfc_assert_master(res, NULL, -1, NULL, "grpc://ps1:2222");
	tfc_assert_master(res, "worker", 0, "", "worker0:2222");
	muster_result_free(res);
	muster_ctx_free(ctx);
}

/* rpc_layer: TF_CONFIG's, unless the config gives one — "" included. */
static void rpc_layer_override_vs_tf_config(void **state)
{
	const char *tf = "{\"cluster\": {\"ps\": [\"ps0:2222\"], \"worker\": [\"worker0:2222\"]}, "
	                 "\"task\": {\"type\": \"ps\", \"index\": 0}, \"rpc_layer\": \"grpc\"}";
	muster_ctx *ctx;
	muster_result *res;

	(void)state;
	res = tfc_resolve(NULL, tf);
	assert_string_equal(muster_result_rpc_layer(res), "grpc");
	tfc_assert_master(res, NULL, -1, NULL, "grpc://ps0:2222");
	muster_result_free(res);

	ctx = tfc_ctx("variable = \"" TFC_VAR "\"; rpc_layer = \"\";");
	res = tfc_resolve(ctx, tf);
	assert_string_equal(muster_result_rpc_layer(res), "");
	tfc_assert_master(res, NULL, -1, NULL, "ps0:2222");
	muster_result_free(res);
	muster_ctx_free(ctx);

	/* null is Python's None: no rpc layer. */
	res = tfc_resolve(NULL, "{\"cluster\": {\"ps\": [\"ps0:2222\"], \"worker\": [\"w:1\"]}, "
	                        "\"task\": {\"type\": \"ps\", \"index\": 0}, \"rpc_layer\": null}");
	assert_null(muster_result_rpc_layer(res));
	tfc_assert_master(res, NULL, -1, NULL, "ps0:2222");
	muster_result_free(res);
}

/* environment: a deliberate difference — TF_CONFIG's is reported. */
static void environment_values(void **state)
{
	muster_result *res = tfc_resolve(NULL, "{\"environment\": \"cloud\"}");

	(void)state;
	assert_string_equal(muster_result_environment(res), "cloud");
	assert_int_equal(muster_result_job_count(res), 0);
	muster_result_free(res);

	/* TF does not read it at all, so a wrong type is not an error. */
	res = tfc_resolve(NULL, "{\"environment\": 5}");
	assert_null(muster_result_environment(res));
	muster_result_free(res);

	res = tfc_resolve(NULL, "{\"environment\": null}");
	assert_null(muster_result_environment(res));
	muster_result_free(res);
}

/* TF: no "cluster" key is an empty ClusterSpec. */
static void empty_cluster(void **state)
{
	muster_result *res = tfc_resolve(NULL, "{}");

	(void)state;
	assert_int_equal(muster_result_job_count(res), 0);
	assert_null(muster_result_task_type(res));
	assert_int_equal(muster_result_task_index(res), -1);
	tfc_assert_master(res, NULL, -1, NULL, "");
	muster_result_free(res);

	res = tfc_resolve(NULL, "{\"cluster\": {}, \"task\": {\"type\": \"worker\", \"index\": 0}}");
	assert_int_equal(muster_result_job_count(res), 0);
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 0);
	muster_result_free(res);
}

/* Jobs with no tasks are kept: [], {} and Kubeflow's null. */
static void jobs_without_tasks(void **state)
{
	muster_result *res =
		tfc_resolve(NULL, "{\"cluster\":{\"worker\":[],\"evaluator\":{},\"ps\":null,"
		                  "\"chief\":[\"c:1\"]}}");

	(void)state;
	assert_int_equal(muster_result_job_count(res), 4);
	assert_string_equal(muster_result_job_name(res, 0), "worker");
	assert_string_equal(muster_result_job_name(res, 1), "evaluator");
	assert_string_equal(muster_result_job_name(res, 2), "ps");
	assert_string_equal(muster_result_job_name(res, 3), "chief");
	assert_int_equal(muster_result_task_count(res, "worker"), 0);
	assert_int_equal(muster_result_task_count(res, "evaluator"), 0);
	assert_int_equal(muster_result_task_count(res, "ps"), 0);
	TFC_TASKS(res, "chief", { 0, "c:1" });
	muster_result_free(res);
}

/* The Kubeflow operator's own test expectation, literally. */
static void kubeflow_literal(void **state)
{
	char *json = tfc_fixture("kubeflow.json");
	muster_result *res = tfc_resolve(NULL, json);

	(void)state;
	free(json);
	assert_int_equal(muster_result_job_count(res), 3);
	assert_string_equal(muster_result_job_name(res, 0), "evaluator");
	assert_string_equal(muster_result_job_name(res, 1), "ps");
	assert_string_equal(muster_result_job_name(res, 2), "worker");
	TFC_TASKS(res, "evaluator", { 0, "test-tfjob-evaluator-0.ns3.svc.tf.training.io:2222" });
	TFC_TASKS(res, "ps", { 0, "test-tfjob-ps-0.ns3.svc.tf.training.io:2222" });
	TFC_TASKS(res, "worker", { 0, "test-tfjob-worker-0.ns3.svc.tf.training.io:2222" });
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 0);
	assert_string_equal(muster_result_environment(res), "cloud");
	assert_null(muster_result_rpc_layer(res));
	tfc_assert_master(res, NULL, -1, NULL, "test-tfjob-worker-0.ns3.svc.tf.training.io:2222");
	muster_result_free(res);
}

/* B.1: the dynamic-worker form, {"1": own address} plus the PS list. */
static void kubeflow_sparse(void **state)
{
	char *json = tfc_fixture("kubeflow_sparse.json");
	muster_result *res = tfc_resolve(NULL, json);

	(void)state;
	free(json);
	assert_int_equal(muster_result_job_count(res), 2);
	assert_string_equal(muster_result_job_name(res, 0), "worker");
	assert_string_equal(muster_result_job_name(res, 1), "ps");
	TFC_TASKS(res, "worker", { 1, "dyn-worker-1.default.svc:2222" });
	assert_false(muster_result_job_is_dense(res, "worker"));
	TFC_TASKS(res, "ps", { 0, "dyn-ps-0.default.svc:2222" }, { 1, "dyn-ps-1.default.svc:2222" });
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 1);
	assert_null(muster_result_environment(res));
	muster_result_free(res);

	/* A PS pod of the same job: worker = {}. */
	res = tfc_resolve(NULL, "{\"cluster\":{\"worker\":{},\"ps\":[\"dyn-ps-0:2222\"]},"
	                        "\"task\":{\"type\":\"ps\",\"index\":0}}");
	assert_int_equal(muster_result_job_count(res), 2);
	assert_int_equal(muster_result_task_count(res, "worker"), 0);
	TFC_TASKS(res, "ps", { 0, "dyn-ps-0:2222" });
	muster_result_free(res);
}

/* The legacy key (2020-03 .. 2023-05), with "ps": null. */
static void sparse_cluster_legacy_key(void **state)
{
	char *json = tfc_fixture("kubeflow_sparse_legacy.json");
	muster_result *res = tfc_resolve(NULL, json);

	(void)state;
	free(json);
	assert_int_equal(muster_result_job_count(res), 2);
	TFC_TASKS(res, "worker", { 3, "dyn-worker-3.default.svc:2222" });
	assert_int_equal(muster_result_task_count(res, "ps"), 0);
	assert_int_equal(muster_result_task_index(res), 3);
	muster_result_free(res);

	/* "cluster" wins when both are there. */
	res = tfc_resolve(NULL, "{\"sparseCluster\":{\"old\":[\"o:1\"]},\"cluster\":{\"new\":[\"n:1\"]}}");
	assert_int_equal(muster_result_job_count(res), 1);
	assert_string_equal(muster_result_job_name(res, 0), "new");
	muster_result_free(res);
}

/* Python's json.dumps(indent=4) style, read from the `file` option. */
static void python_spaced_file(void **state)
{
	char conf[1200];
	muster_ctx *ctx;
	muster_result *res;
	char *json;

	(void)state;
	snprintf(conf, sizeof(conf), "file = \"%s\";", tfc_fixture_path("python_spaced.json"));
	ctx = tfc_ctx(conf);
	/* The environment is not read when `file` is set. */
	setenv(TFC_VAR, "not json", 1);
	setenv("TF_CONFIG", "not json", 1);
	res = tfc_resolve(ctx, NULL);
	unsetenv("TF_CONFIG");
	assert_int_equal(muster_result_job_count(res), 3);
	assert_string_equal(muster_result_job_name(res, 0), "chief");
	TFC_TASKS(res, "worker", { 0, "worker-0.example:2222" }, { 1, "worker-1.example:2222" });
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 1);
	assert_string_equal(muster_result_rpc_layer(res), "grpc");
	tfc_assert_master(res, NULL, -1, NULL, "grpc://worker-1.example:2222");
	muster_result_free(res);
	muster_ctx_free(ctx);

	/* The same text through the environment. */
	json = tfc_fixture("python_spaced.json");
	res = tfc_resolve(NULL, json);
	free(json);
	assert_int_equal(muster_result_job_count(res), 3);
	assert_string_equal(muster_result_rpc_layer(res), "grpc");
	muster_result_free(res);
}

/* The file is read on every resolve too. */
static void file_reread(void **state)
{
	char conf[700];
	const char *path;
	muster_ctx *ctx;
	muster_result *res;
	const char *one = "{\"cluster\":{\"worker\":[\"a:1\"]}}";
	const char *two = "{\"cluster\":{\"worker\":[\"a:1\",\"b:1\"]}}";

	(void)state;
	path = tfc_write("tf_config.json", one, strlen(one));
	snprintf(conf, sizeof(conf), "file = \"%s\";", path);
	ctx = tfc_ctx(conf);
	res = tfc_resolve(ctx, NULL);
	assert_int_equal(muster_result_task_count(res, "worker"), 1);
	muster_result_free(res);
	tfc_write("tf_config.json", two, strlen(two));
	res = tfc_resolve(ctx, NULL);
	assert_int_equal(muster_result_task_count(res, "worker"), 2);
	muster_result_free(res);
	muster_ctx_free(ctx);
}

/* TF parses TF_CONFIG on every access: nothing is cached. */
static void env_reread(void **state)
{
	muster_ctx *ctx = tfc_ctx(NULL);
	muster_result *res;

	(void)state;
	res = tfc_resolve(ctx, "{\"cluster\":{\"worker\":[\"a:1\"]}}");
	assert_int_equal(muster_result_task_count(res, "worker"), 1);
	muster_result_free(res);
	res = tfc_resolve(ctx, "{\"cluster\":{\"ps\":[\"p:1\"],\"worker\":[\"a:1\",\"b:1\"]}}");
	assert_int_equal(muster_result_job_count(res), 2);
	assert_int_equal(muster_result_task_count(res, "worker"), 2);
	muster_result_free(res);
	muster_ctx_free(ctx);
}

/* No config group at all: the variable is TF_CONFIG. */
static void default_variable(void **state)
{
	const char *path = tfc_write("default.conf", "chain = ( { plugin = \"tf_config\"; } );\n",
	                             strlen("chain = ( { plugin = \"tf_config\"; } );\n"));
	muster_ctx *ctx = NULL;
	muster_result *res = NULL;
	muster_error err;

	(void)state;
	assert_int_equal(muster_ctx_open(&ctx, path, NULL, &err), 0);
	setenv(TFC_VAR, "{\"cluster\":{\"wrong\":[\"x:1\"]}}", 1);
	setenv("TF_CONFIG", "{\"cluster\":{\"worker\":[\"a:1\",\"b:1\"]}}", 1);
	assert_int_equal(muster_resolve(&res, ctx, &err), 0);
	assert_string_equal(muster_result_source(res), "tf_config");
	assert_int_equal(muster_result_task_count(res, "worker"), 2);
	muster_result_free(res);
	unsetenv("TF_CONFIG");
	assert_int_equal(muster_resolve(&res, ctx, &err), MUSTER_ENOTFOUND);
	tfc_assert_contains(err.message, "TF_CONFIG is not set");
	muster_ctx_free(ctx);
}

/* Python's json keeps the last of duplicate keys; a job keeps its first
 * position. */
static void duplicate_keys_last_wins(void **state)
{
	muster_result *res = tfc_resolve(
		NULL, "{\"cluster\":{\"worker\":5,\"ps\":[\"p:1\"],\"worker\":[\"b:1\",\"c:1\"]},"
		      "\"task\":{\"type\":\"ps\"},\"task\":{\"type\":\"worker\",\"index\":1},"
		      "\"cluster\":{\"worker\":[\"x:1\"],\"ps\":[\"p:1\"],\"worker\":[\"b:1\",\"c:1\"]}}");

	(void)state;
	assert_int_equal(muster_result_job_count(res), 2);
	assert_string_equal(muster_result_job_name(res, 0), "worker");
	assert_string_equal(muster_result_job_name(res, 1), "ps");
	TFC_TASKS(res, "worker", { 0, "b:1" }, { 1, "c:1" });
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 1);
	muster_result_free(res);
}

/* No validation of job names, as in TF; addresses only as HOST:PORT (any
 * DNS name or IP literal; a duplicate is kept); escapes are decoded. */
static void names_and_addresses_pass_through(void **state)
{
	muster_result *res = tfc_resolve(
		NULL, "{\"cluster\":{\"my job\":[\"[fd00::1]:2222\",\"[fd00::1]:2222\",\"h_3.\\u0041:3\"],"
		      "\"w\\u00f6rker\":[\"h\\u0041:1\"]},\"task\":{\"type\":\"my job\",\"index\":2}}");

	(void)state;
	TFC_TASKS(res, "my job", { 0, "[fd00::1]:2222" }, { 1, "[fd00::1]:2222" }, { 2, "h_3.A:3" });
	TFC_TASKS(res, "w\xc3\xb6rker", { 0, "hA:1" });
	tfc_assert_master(res, NULL, -1, "grpc", "grpc://h_3.A:3");
	muster_result_free(res);
}

/* Keys TF does not read are ignored, whatever they hold. */
static void unknown_keys_ignored(void **state)
{
	muster_result *res = tfc_resolve(
		NULL, "{\"cluster\":{\"worker\":[\"a:1\"]},\"extra\":[[[{\"x\":null}]]],"
		      "\"task\":{\"type\":\"worker\",\"index\":0,\"trial\":\"7\"},\"job\":{}}");

	(void)state;
	assert_int_equal(muster_result_job_count(res), 1);
	muster_result_free(res);
}

/* The plugin declares itself thread-safe: one context, many threads. */
struct thread_arg {
	muster_ctx *ctx;
	int failures;
};

static void *resolve_many(void *p)
{
	struct thread_arg *arg = p;
	int i;

	for (i = 0; i < 50; i++) {
		muster_result *res = NULL;
		muster_error err;

		if (muster_resolve(&res, arg->ctx, &err) != 0 ||
		    muster_result_task_count(res, "worker") != 3)
			arg->failures++;
		muster_result_free(res);
	}
	return NULL;
}

static void concurrent_resolves(void **state)
{
	muster_ctx *ctx = tfc_ctx(NULL);
	pthread_t threads[8];
	struct thread_arg args[8];
	int i;

	(void)state;
	setenv(TFC_VAR, normal_tf_config, 1);
	for (i = 0; i < 8; i++) {
		args[i].ctx = ctx;
		args[i].failures = 0;
		assert_int_equal(pthread_create(&threads[i], NULL, resolve_many, &args[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		assert_int_equal(pthread_join(threads[i], NULL), 0);
		assert_int_equal(args[i].failures, 0);
	}
	muster_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(normal_cluster),
		cmocka_unit_test(job_order_kept),
		cmocka_unit_test(sparse_cluster),
		cmocka_unit_test(sparse_numeric_string_keys),
		cmocka_unit_test(task_type_number),
		cmocka_unit_test(task_index_as_string),
		cmocka_unit_test(overrides_each_separately),
		cmocka_unit_test(rpc_layer_override_vs_tf_config),
		cmocka_unit_test(environment_values),
		cmocka_unit_test(empty_cluster),
		cmocka_unit_test(jobs_without_tasks),
		cmocka_unit_test(kubeflow_literal),
		cmocka_unit_test(kubeflow_sparse),
		cmocka_unit_test(sparse_cluster_legacy_key),
		cmocka_unit_test(python_spaced_file),
		cmocka_unit_test(file_reread),
		cmocka_unit_test(env_reread),
		cmocka_unit_test(default_variable),
		cmocka_unit_test(duplicate_keys_last_wins),
		cmocka_unit_test(names_and_addresses_pass_through),
		cmocka_unit_test(unknown_keys_ignored),
		cmocka_unit_test(concurrent_resolves),
	};

	return run_tap_tests(tests, tfc_group_setup, tfc_group_teardown);
}
