/* The built-in static backend, TensorFlow's SimpleClusterResolver rules
 * for master(), and the JSON / TF_CONFIG emitters on its results. */
#include <config.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define CHAIN(cfg) "chain = ( { plugin = \"static\"; config = { " cfg " }; } );\n"

static muster_result *resolve_text(const char *text, muster_ctx **ctx)
{
	*ctx = open_text(text, NULL);
	return resolve_ok(*ctx);
}

static void expect_json(const char *text, const char *expected)
{
	muster_ctx *ctx;
	muster_result *r = resolve_text(text, &ctx);
	char *json = json_of(r);
	assert_string_equal(json, expected);
	muster_free(json);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static void dense_jobs_keep_config_order(void **state)
{
	expect_json(CHAIN("jobs = { worker = [\"h1:2222\", \"h2:2222\"]; ps = [\"h3:2222\"]; };"
	                  "task = { type = \"worker\"; index = 1; }; rpc_layer = \"grpc\";"),
	            "{\"cluster\":{\"worker\":[\"h1:2222\",\"h2:2222\"],\"ps\":[\"h3:2222\"]},"
	            "\"task\":{\"type\":\"worker\",\"index\":1},\"rpc_layer\":\"grpc\"}");
}

static void sparse_and_empty_jobs_are_objects(void **state)
{
	expect_json(CHAIN("jobs = { worker = ( { index = 1; address = \"w1:2222\"; },"
	                  "{ index = 7; address = \"w7:2222\"; } ); chief = []; };"),
	            "{\"cluster\":{\"worker\":{\"1\":\"w1:2222\",\"7\":\"w7:2222\"},\"chief\":{}}}");
}

static void out_of_order_groups_sort_and_can_be_dense(void **state)
{
	expect_json(CHAIN("jobs = { worker = ( { index = 1; address = \"b:1\"; }, { index = 0; address = \"a:1\"; } ); };"),
	            "{\"cluster\":{\"worker\":[\"a:1\",\"b:1\"]}}");
}

static void strings_escape_as_go_does(void **state)
{
	/* ", \, <, >, &, a control character, U+2028, and invalid UTF-8 (in
	 * the environment: an address cannot hold them). */
	expect_json(CHAIN("jobs = { worker = [\"w:1\"]; }; environment = \"q\\\"b\\\\<>&\\x01\xe2\x80\xa8\xff\";"),
	            "{\"cluster\":{\"worker\":[\"w:1\"]},\"environment\":\"q\\\"b\\\\\\u003c\\u003e\\u0026\\u0001\\u2028\\ufffd\"}");
}

static void accelerators_per_job_and_per_task(void **state)
{
	muster_ctx *ctx;
	muster_result *r = resolve_text(
		CHAIN("jobs = { worker = [\"w0:1\", \"w1:1\"]; ps = ( { index = 0; address = \"p:1\";"
		      " accelerators = { TPU = 4; GPU = 0; }; } ); };"
		      "accelerators = { worker = { GPU = 8; TPU = 2; }; ps = { GPU = 1; }; };"
		      "task = { type = \"worker\"; index = 1; };"),
		&ctx);
	const char *kind;
	long count;
	/* Self: worker 1; kinds in name order. */
	assert_int_equal(muster_result_accelerator_at(r, NULL, -1, 0, &kind, &count), 0);
	assert_string_equal(kind, "GPU");
	assert_int_equal(count, 8);
	assert_int_equal(muster_result_accelerator_at(r, NULL, -1, 1, &kind, &count), 0);
	assert_string_equal(kind, "TPU");
	assert_int_equal(muster_result_accelerator_at(r, NULL, -1, 2, &kind, &count), MUSTER_ENOENT);
	/* The ps task's own group replaces its job's; zero counts vanish. */
	char *s = NULL;
	assert_int_equal(muster_result_accelerators_json(&s, r, "ps", 0, NULL), 0);
	assert_string_equal(s, "{\"TPU\":4}");
	muster_free(s);
	assert_int_equal(muster_result_accelerators_json(&s, r, "ps", 3, NULL), MUSTER_ENOENT);
	char *json = json_of(r);
	assert_non_null(strstr(json, "\"accelerators\":{\"worker\":{\"0\":{\"GPU\":8,\"TPU\":2},"
	                             "\"1\":{\"GPU\":8,\"TPU\":2}},\"ps\":{\"0\":{\"TPU\":4}}}"));
	muster_free(json);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static void accessors_walk_jobs_and_tasks(void **state)
{
	muster_ctx *ctx;
	muster_result *r = resolve_text(
		CHAIN("jobs = { worker = ( { index = 2; address = \"w2:1\"; } ); ps = [\"p0:1\", \"p1:1\"]; };"
		      "environment = \"cloud\";"),
		&ctx);
	assert_int_equal(muster_result_job_count(r), 2);
	assert_string_equal(muster_result_job_name(r, 1), "ps");
	assert_null(muster_result_job_name(r, 2));
	assert_int_equal(muster_result_task_count(r, "ps"), 2);
	assert_true(muster_result_job_is_dense(r, "ps"));
	assert_false(muster_result_job_is_dense(r, "worker"));
	long index;
	const char *addr;
	assert_int_equal(muster_result_task_at(r, "worker", 0, &index, &addr), 0);
	assert_int_equal(index, 2);
	assert_string_equal(addr, "w2:1");
	assert_int_equal(muster_result_task_at(r, "worker", 1, &index, &addr), MUSTER_ENOENT);
	assert_string_equal(muster_result_address(r, "ps", 1), "p1:1");
	assert_null(muster_result_address(r, "ps", 2));
	assert_null(muster_result_address(r, "nope", 0));
	assert_null(muster_result_task_type(r));
	assert_int_equal(muster_result_task_index(r), -1);
	assert_null(muster_result_rpc_layer(r));
	assert_string_equal(muster_result_environment(r), "cloud");
	assert_string_equal(muster_result_source(r), "static");
	muster_result_free(r);
	muster_ctx_free(ctx);
}

/* SimpleClusterResolver: a task's address only when both
 * type and id are given, else the stored master; `rpc or own`. */
static void simple_master_rules(void **state)
{
	muster_ctx *ctx;
	muster_result *r = resolve_text(
		CHAIN("jobs = { worker = [\"worker0:2222\", \"worker1:2222\"]; ps = [\"ps0:2222\"]; };"
		      "task = { type = \"worker\"; index = 0; };"),
		&ctx);
	struct { const char *type; long id; const char *rpc; const char *want; } cases[] = {
		{ NULL, -1, NULL, "" },
		{ "worker", 1, NULL, "worker1:2222" },
		{ "worker", 1, "grpc", "grpc://worker1:2222" },
		{ "worker", -1, NULL, "" },          /* only one of the pair: stored master */
		{ NULL, 1, "grpc", "grpc://" },      /* TF formats the empty master too */
		{ "ps", 0, "", "ps0:2222" },
		{ "ps", 4, NULL, "error -9" },
		{ "chief", 0, NULL, "error -9" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = master_of(r, cases[i].type, cases[i].id, cases[i].rpc);
		assert_string_equal(got, cases[i].want);
		muster_free(got);
	}
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static void simple_master_uses_stored_string_and_own_rpc(void **state)
{
	muster_ctx *ctx;
	muster_result *r = resolve_text(
		CHAIN("jobs = { worker = [\"w0:1\"]; }; master = \"m:2222\"; rpc_layer = \"grpc\";"), &ctx);
	char *s = master_of(r, NULL, -1, NULL);
	assert_string_equal(s, "grpc://m:2222");
	muster_free(s);
	s = master_of(r, NULL, -1, ""); /* '' or own: falls back to the own layer */
	assert_string_equal(s, "grpc://m:2222");
	muster_free(s);
	s = master_of(r, "worker", 0, "http");
	assert_string_equal(s, "http://w0:1");
	muster_free(s);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static char *tf_config_of(const char *text, const char *type, long id, unsigned flags, int *rc)
{
	muster_ctx *ctx;
	muster_result *r = resolve_text(text, &ctx);
	char *s = NULL;
	*rc = muster_result_to_tf_config(&s, r, type, id, flags, NULL);
	muster_result_free(r);
	muster_ctx_free(ctx);
	return s;
}

/* The literal expectation of the Kubeflow operator's pod_test.go. */
static void tf_config_matches_kubeflow_byte_for_byte(void **state)
{
	int rc;
	char *s = tf_config_of(
		CHAIN("jobs = { worker = [\"test-tfjob-worker-0.ns3.svc.tf.training.io:2222\"];"
		      "ps = [\"test-tfjob-ps-0.ns3.svc.tf.training.io:2222\"];"
		      "evaluator = [\"test-tfjob-evaluator-0.ns3.svc.tf.training.io:2222\"]; };"),
		"worker", 0, 0, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(s,
		"{\"cluster\":{\"evaluator\":[\"test-tfjob-evaluator-0.ns3.svc.tf.training.io:2222\"],"
		"\"ps\":[\"test-tfjob-ps-0.ns3.svc.tf.training.io:2222\"],"
		"\"worker\":[\"test-tfjob-worker-0.ns3.svc.tf.training.io:2222\"]},"
		"\"task\":{\"type\":\"worker\",\"index\":0},\"environment\":\"cloud\"}");
	muster_free(s);
}

static void tf_config_sparse_forms(void **state)
{
	const char *both = CHAIN("jobs = { worker = [\"w0:1\", \"w1:1\"]; ps = [\"p0:1\", \"p1:1\"]; chief = [\"c:1\"]; };");
	const char *no_ps = CHAIN("jobs = { worker = [\"w0:1\", \"w1:1\"]; };");
	struct { const char *cfg, *type; long id; const char *want; } cases[] = {
		{ both, "worker", 1, "{\"cluster\":{\"worker\":{\"1\":\"w1:1\"},\"ps\":[\"p0:1\",\"p1:1\"]},\"task\":{\"type\":\"worker\",\"index\":1}}" },
		{ both, "ps", 1, "{\"cluster\":{\"worker\":{},\"ps\":[\"p1:1\"]},\"task\":{\"type\":\"ps\",\"index\":1}}" },
		{ both, "chief", 0, "{\"cluster\":{\"worker\":{},\"ps\":[]},\"task\":{\"type\":\"chief\",\"index\":0}}" },
		{ no_ps, "worker", 0, "{\"cluster\":{\"worker\":{\"0\":\"w0:1\"},\"ps\":null},\"task\":{\"type\":\"worker\",\"index\":0}}" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;
		char *s = tf_config_of(cases[i].cfg, cases[i].type, cases[i].id, MUSTER_TF_CONFIG_SPARSE, &rc);
		assert_int_equal(rc, 0);
		assert_string_equal(s, cases[i].want);
		muster_free(s);
	}
}

static void tf_config_needs_a_known_task(void **state)
{
	int rc;
	const char *cfg = CHAIN("jobs = { worker = [\"w0:1\"]; };");
	assert_null(tf_config_of(cfg, NULL, -1, 0, &rc));
	assert_int_equal(rc, MUSTER_ENOENT);
	assert_null(tf_config_of(cfg, "worker", 3, 0, &rc));
	assert_int_equal(rc, MUSTER_ENOENT);
	assert_null(tf_config_of(cfg, "ps", 0, 0, &rc));
	assert_int_equal(rc, MUSTER_ENOENT);
	/* The own task is the default. */
	char *s = tf_config_of(CHAIN("jobs = { worker = [\"w0:1\"]; }; task = { type = \"worker\"; index = 0; };"),
	                       NULL, -1, 0, &rc);
	assert_string_equal(s, "{\"cluster\":{\"worker\":[\"w0:1\"]},\"task\":{\"type\":\"worker\",\"index\":0},\"environment\":\"cloud\"}");
	muster_free(s);
}

/* The first result of a watch is there at once, whatever the timeout: the
 * longest one a caller can pass is a wait without end, not an overflow. */
static void watch_next_takes_the_longest_timeout(void **state)
{
	(void)state;
	muster_ctx *ctx = open_text(CHAIN("jobs = { worker = [ \"h1:2222\" ]; };"), NULL);
	muster_watch_options o = MUSTER_WATCH_OPTIONS_INIT;
	muster_watch *w = NULL;
	muster_change *c = NULL;
	muster_error err = { 0, "" };
	assert_int_equal(muster_watch_start(&w, ctx, &o, &err), 0);
	assert_int_equal(muster_watch_next(w, LONG_MAX, &c, &err), 1);
	assert_non_null(c);
	muster_change_free(c);
	muster_watch_stop(w);
	muster_ctx_free(ctx);
}

static void expect_open_error(const char *cfg, const char *needle)
{
	muster_error err;
	assert_int_equal(open_text_fails(cfg, &err), MUSTER_ECONFIG);
	if (!strstr(err.message, needle))
		fail_msg("'%s' does not contain '%s'", err.message, needle);
}

static void bad_static_config_names_line_and_reason(void **state)
{
	expect_open_error("chain = ( { plugin = \"static\"; } );", "muster.conf:1: static(static): 'jobs' is missing");
	expect_open_error("chain = ( { plugin = \"static\"; config = {\n jobs = 3; }; } );", "muster.conf:2: static(static): 'jobs' must be a group");
	expect_open_error("chain = ( { plugin = \"static\"; config = {\n jobs = { w = [1, 2]; }; }; } );", ":2: static(static): job 'w': each task must be");
	expect_open_error("chain = ( { plugin = \"static\"; config = { jobs = { w = ( {\n index = -1; address = \"a\"; } ); }; }; } );", ":2: static(static): 'index' must be an integer from 0");
	expect_open_error("chain = ( { plugin = \"static\"; config = { jobs = { w = ( { index = 1; address = \"a:1\"; },\n { index = 1; address = \"b:1\"; } ); }; }; } );", ":2: static(static): job 'w': task 1 is given twice");
	expect_open_error("chain = ( { plugin = \"static\"; config = { jobs = { w = [\"a:1\"]; };\n accelerators = { ps = { GPU = 1; }; }; }; } );", ":2: static(static): accelerators for job 'ps'");
	expect_open_error("chain = ( { plugin = \"static\"; config = { jobs = { w = [\"a:1\"]; };\n task = { type = 1; }; }; } );", ":2: static(static): 'type' must be a string");
	expect_open_error("chain = ( { plugin = \"static\"; config = { jobs = { w = [\"a:1\"]; };\n accelerators = { w = { GPU = \"8\"; }; }; }; } );", ":2: static(static): accelerator count 'GPU'");
	/* Addresses: HOST:PORT with a valid host and a port in 1-65535, at their line. */
	expect_open_error("chain = ( { plugin = \"static\"; config = { jobs = { w = [\"h:1\",\n \"[1.2.3.4:99]:8470\"]; }; }; } );",
	                  ":2: static(static): job 'w': address \"[1.2.3.4:99]:8470\" is not HOST:PORT: what is in brackets is not an IPv6 address");
	expect_open_error("chain = ( { plugin = \"static\"; config = { jobs = { w = ( { index = 0;\n address = \"h:70000\"; } ); }; }; } );",
	                  ":2: static(static): job 'w': address \"h:70000\" is not HOST:PORT: the port is not a number from 1 to 65535");
	expect_open_error("chain = ( { plugin = \"static\"; config = { jobs = { w = [\"h\"]; }; }; } );",
	                  ":1: static(static): job 'w': address \"h\" is not HOST:PORT: no ':PORT'");
}

static int teardown(void **state)
{
	testutil_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(dense_jobs_keep_config_order, teardown),
		cmocka_unit_test_teardown(sparse_and_empty_jobs_are_objects, teardown),
		cmocka_unit_test_teardown(out_of_order_groups_sort_and_can_be_dense, teardown),
		cmocka_unit_test_teardown(strings_escape_as_go_does, teardown),
		cmocka_unit_test_teardown(accelerators_per_job_and_per_task, teardown),
		cmocka_unit_test_teardown(accessors_walk_jobs_and_tasks, teardown),
		cmocka_unit_test_teardown(simple_master_rules, teardown),
		cmocka_unit_test_teardown(simple_master_uses_stored_string_and_own_rpc, teardown),
		cmocka_unit_test_teardown(tf_config_matches_kubeflow_byte_for_byte, teardown),
		cmocka_unit_test_teardown(tf_config_sparse_forms, teardown),
		cmocka_unit_test_teardown(tf_config_needs_a_known_task, teardown),
		cmocka_unit_test_teardown(bad_static_config_names_line_and_reason, teardown),
		cmocka_unit_test_teardown(watch_next_takes_the_longest_timeout, teardown),
	};
	return run_tap_tests(tests, NULL, NULL);
}
