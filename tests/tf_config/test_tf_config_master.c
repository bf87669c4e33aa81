/*
 * tf_config: master() with TFConfigClusterResolver's rules, in its order:
 * session_master verbatim; "" for no jobs
 * or one job of padded length 1; else the task's address, each of type,
 * id and rpc layer taken from the argument when given, else the own.
 */
#include <config.h>

#include "tfc_test.h"

#include <stdio.h>
#include <string.h>

static const char *cluster_ps_worker =
	"\"cluster\": {\"ps\": [\"ps0:2222\", \"ps1:2222\"], "
	"\"worker\": [\"worker0:2222\", \"worker1:2222\", \"worker2:2222\"]}";

static muster_result *with(const char *rest)
{
	char json[1024];

	snprintf(json, sizeof(json), "{%s%s%s}", cluster_ps_worker, rest[0] ? ", " : "", rest);
	return tfc_resolve(NULL, json);
}

static void master_fails(const muster_result *res, const char *type, long id, const char *rpc,
                         const char *why)
{
	char *got = NULL;
	muster_error err;

	memset(&err, 0, sizeof(err));
	assert_int_equal(muster_result_master_url(&got, res, type, id, rpc, &err), MUSTER_ENOENT);
	assert_null(got);
	assert_int_equal(err.code, MUSTER_ENOENT);
	tfc_assert_contains(err.message, why);
}

/* TF: testAutomaticMasterRead. */
static void automatic_master(void **state)
{
	muster_result *res = with("\"task\": {\"type\": \"ps\", \"index\": 0}");

	(void)state;
	tfc_assert_master(res, NULL, -1, NULL, "ps0:2222");
	muster_result_free(res);
}

/* TF: testSpecifiedTaskTypeAndIndexMasterRead. */
static void explicit_task(void **state)
{
	muster_result *res = with("\"task\": {\"type\": \"ps\", \"index\": 0}");

	(void)state;
	tfc_assert_master(res, "worker", 1, NULL, "worker1:2222");
	/* Each argument on its own: the other comes from TF_CONFIG. */
	tfc_assert_master(res, "worker", -1, NULL, "worker0:2222");
	tfc_assert_master(res, NULL, 1, NULL, "ps1:2222");
	tfc_assert_master(res, "worker", 2, "grpc", "grpc://worker2:2222");
	muster_result_free(res);
}

/* TF: testSessionMasterRead — verbatim, arguments ignored. */
static void session_master_verbatim(void **state)
{
	muster_result *res = with("\"session_master\": \"sessionmaster:2222\", "
	                          "\"task\": {\"type\": \"ps\", \"index\": 0}, "
	                          "\"rpc_layer\": \"grpc\"");

	(void)state;
	tfc_assert_master(res, NULL, -1, NULL, "sessionmaster:2222");
	tfc_assert_master(res, "worker", 2, "grpc", "sessionmaster:2222");
	tfc_assert_master(res, "nosuchjob", 9, "", "sessionmaster:2222");
	muster_result_free(res);

	/* Even with an empty cluster. */
	res = tfc_resolve(NULL, "{\"session_master\": \"grpc://sm:1\"}");
	tfc_assert_master(res, NULL, -1, "http", "grpc://sm:1");
	muster_result_free(res);

	/* null is None: not given. */
	res = with("\"session_master\": null, \"task\": {\"type\": \"ps\", \"index\": 1}");
	tfc_assert_master(res, NULL, -1, NULL, "ps1:2222");
	muster_result_free(res);
}

/* TF: testRpcLayerRead, and the rpc argument over it. */
static void rpc_layer_rules(void **state)
{
	muster_result *res = with("\"task\": {\"type\": \"ps\", \"index\": 0}, \"rpc_layer\": \"grpc\"");

	(void)state;
	tfc_assert_master(res, NULL, -1, NULL, "grpc://ps0:2222");
	tfc_assert_master(res, NULL, -1, "grpc+verbs", "grpc+verbs://ps0:2222");
	/* "" is not None: no prefix at all. */
	tfc_assert_master(res, NULL, -1, "", "ps0:2222");
	tfc_assert_master(res, "worker", 1, "", "worker1:2222");
	muster_result_free(res);

	/* No rpc layer anywhere: a bare address. */
	res = with("\"task\": {\"type\": \"worker\", \"index\": 2}");
	tfc_assert_master(res, NULL, -1, NULL, "worker2:2222");
	tfc_assert_master(res, NULL, -1, "grpc", "grpc://worker2:2222");
	muster_result_free(res);
}

/* TF: testZeroItemsInClusterSpecMasterRead. */
static void zero_jobs(void **state)
{
	muster_result *res = tfc_resolve(NULL, "{}");

	(void)state;
	tfc_assert_master(res, NULL, -1, NULL, "");
	tfc_assert_master(res, "worker", 0, "grpc", "");
	muster_result_free(res);
}

/* TF: testOneItemInClusterSpecMasterRead — "" even when a task is named. */
static void single_task_cluster(void **state)
{
	muster_result *res = tfc_resolve(NULL, "{\"cluster\": {\"worker\": [\"worker0:2222\"]}, "
	                                       "\"task\": {\"type\": \"worker\", \"index\": 0}, "
	                                       "\"rpc_layer\": \"grpc\"}");

	(void)state;
	tfc_assert_master(res, NULL, -1, NULL, "");
	tfc_assert_master(res, "worker", 0, "grpc", "");
	muster_result_free(res);

	/* A sparse {"0": ...} is padded length 1 too. */
	res = tfc_resolve(NULL, "{\"cluster\": {\"worker\": {\"0\": \"w0:1\"}}}");
	tfc_assert_master(res, NULL, -1, NULL, "");
	muster_result_free(res);
}

/* A sparse single job {"1": ...} has padded length 2: no shortcut. */
static void sparse_single_job_not_shortcut(void **state)
{
	muster_result *res = tfc_resolve(NULL, "{\"cluster\": {\"worker\": {\"1\": \"worker1:2222\"}}, "
	                                       "\"task\": {\"type\": \"worker\", \"index\": 1}}");

	(void)state;
	tfc_assert_master(res, NULL, -1, NULL, "worker1:2222");
	tfc_assert_master(res, NULL, -1, "grpc", "grpc://worker1:2222");
	master_fails(res, NULL, 0, NULL, "No task with index 0 in job 'worker'");
	muster_result_free(res);

	/* Two jobs of one task each: no shortcut either. */
	res = tfc_resolve(NULL, "{\"cluster\": {\"chief\": [\"c:1\"], \"worker\": [\"w:1\"]}, "
	                        "\"task\": {\"type\": \"chief\", \"index\": 0}}");
	tfc_assert_master(res, NULL, -1, NULL, "c:1");
	muster_result_free(res);
}

/* A missing task type or index is an error, as TF's ValueError. */
static void missing_task(void **state)
{
	muster_result *res = with("");

	(void)state;
	master_fails(res, NULL, -1, NULL, "No such job in cluster: None");
	master_fails(res, NULL, 0, "grpc", "No such job in cluster: None");
	master_fails(res, "worker", -1, NULL, "No task with index None in job 'worker'");
	master_fails(res, "chief", 0, NULL, "No such job in cluster: 'chief'");
	master_fails(res, "worker", 5, NULL, "No task with index 5 in job 'worker'");
	tfc_assert_master(res, "ps", 1, NULL, "ps1:2222");
	muster_result_free(res);

	/* Type known, index not. */
	res = with("\"task\": {\"type\": \"worker\"}");
	master_fails(res, NULL, -1, NULL, "No task with index None in job 'worker'");
	tfc_assert_master(res, NULL, 2, NULL, "worker2:2222");
	muster_result_free(res);
}

/* Overrides from the config feed master() as TF's constructor does. */
static void overrides_feed_master(void **state)
{
	muster_ctx *ctx = tfc_ctx("variable = \"" TFC_VAR "\"; task_type = \"worker\"; "
	                          "task_id = 2; rpc_layer = \"grpc\";");
	muster_result *res;
	char json[512];

	(void)state;
	snprintf(json, sizeof(json), "{%s, \"task\": {\"type\": \"ps\", \"index\": 0}, "
	                             "\"rpc_layer\": \"other\"}", cluster_ps_worker);
	res = tfc_resolve(ctx, json);
	tfc_assert_master(res, NULL, -1, NULL, "grpc://worker2:2222");
	tfc_assert_master(res, "ps", 1, NULL, "grpc://ps1:2222");
	/* The own index (2, from the config) with another job. */
	master_fails(res, "ps", -1, NULL, "No task with index 2 in job 'ps'");
	muster_result_free(res);
	muster_ctx_free(ctx);
}

/* The number task type names its job (testTaskTypeCastToString). */
static void number_type_and_string_index(void **state)
{
	muster_result *res = tfc_resolve(NULL, "{\"cluster\": {\"123456\": [\"a:1\", \"b:1\"], "
	                                       "\"ps\": [\"p:1\"]}, "
	                                       "\"task\": {\"type\": 123456, \"index\": \"1\"}}");

	(void)state;
	tfc_assert_master(res, NULL, -1, NULL, "b:1");
	tfc_assert_master(res, "123456", 0, "grpc", "grpc://a:1");
	muster_result_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(automatic_master),
		cmocka_unit_test(explicit_task),
		cmocka_unit_test(session_master_verbatim),
		cmocka_unit_test(rpc_layer_rules),
		cmocka_unit_test(zero_jobs),
		cmocka_unit_test(single_task_cluster),
		cmocka_unit_test(sparse_single_job_not_shortcut),
		cmocka_unit_test(missing_task),
		cmocka_unit_test(overrides_feed_master),
		cmocka_unit_test(number_type_and_string_index),
	};

	return run_tap_tests(tests, tfc_group_setup, tfc_group_teardown);
}
