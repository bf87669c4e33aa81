/* `merge`: TensorFlow's UnionClusterResolver behaviours. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* A chain of stubs, each merged into the next: `a`, `b`, `c` are stub
 * config bodies (NULL to leave an entry out). */
static muster_ctx *union_of(const char *a, const char *b, const char *c)
{
	static char text[4096];
	snprintf(text, sizeof(text),
	         "chain = (\n"
	         " { plugin = \"stub\"; name = \"a\"; on_success = \"merge\"; config = { %s }; },\n"
	         " { plugin = \"stub_b\"; name = \"b\"; on_success = \"merge\"; config = { %s }; }%s%s%s\n"
	         ");",
	         a, b, c ? ",\n { plugin = \"stub\"; name = \"c\"; config = { " : "", c ? c : "",
	         c ? " }; }" : "");
	return open_text(text, NULL);
}

static void expect_union(const char *a, const char *b, const char *c, const char *want)
{
	muster_ctx *ctx = union_of(a, b, c);
	muster_result *r = resolve_ok(ctx);
	char *json = json_of(r);
	assert_string_equal(json, want);
	muster_free(json);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static void expect_conflict(const char *a, const char *b, const char *c, const char *needle)
{
	muster_ctx *ctx = union_of(a, b, c);
	muster_result *r = NULL;
	muster_error err;
	assert_int_equal(muster_resolve(&r, ctx, &err), MUSTER_ECONFLICT);
	assert_null(r);
	if (!strstr(err.message, needle))
		fail_msg("'%s' lacks '%s'", err.message, needle);
	muster_ctx_free(ctx);
}

static void disjoint_jobs_coexist_in_first_seen_order(void **state)
{
	expect_union("jobs = { worker = [\"w0:1\", \"w1:1\"]; };", "jobs = { ps = [\"p0:1\"]; };", NULL,
	             "{\"cluster\":{\"worker\":[\"w0:1\",\"w1:1\"],\"ps\":[\"p0:1\"]}}");
}

/* Two dense contributions concatenate and re-index, duplicates kept
 * (TF's GCE example: two worker groups). */
static void dense_jobs_concatenate(void **state)
{
	expect_union("jobs = { worker = [\"w0:1\", \"w1:1\"]; ps = [\"p0:1\"]; };",
	             "jobs = { worker = [\"w2:1\", \"w0:1\"]; };", NULL,
	             "{\"cluster\":{\"worker\":[\"w0:1\",\"w1:1\",\"w2:1\",\"w0:1\"],\"ps\":[\"p0:1\"]}}");
}

/* Any sparse contribution makes the job a map: united by index. */
static void sparse_jobs_unite_by_index(void **state)
{
	expect_union("jobs = { worker = [\"w0:1\", \"w1:1\"]; };",
	             "jobs = { worker = [\"-\", \"-\", \"-\", \"w3:1\"]; };", NULL,
	             "{\"cluster\":{\"worker\":{\"0\":\"w0:1\",\"1\":\"w1:1\",\"3\":\"w3:1\"}}}");
	/* A union of maps that covers 0..n-1 reads back as a list. */
	expect_union("jobs = { worker = [\"-\", \"w1:1\"]; };", "jobs = { worker = [\"w0:1\"]; };", NULL,
	             "{\"cluster\":{\"worker\":[\"w0:1\",\"w1:1\"]}}");
}

static void shared_index_in_a_map_is_a_conflict(void **state)
{
	expect_conflict("jobs = { worker = [\"-\", \"w1:1\"]; };", "jobs = { worker = [\"x0:1\", \"x1:1\"]; };", NULL,
	                "merge conflict: task worker:1 is given by both a ('w1:1') and b ('x1:1')");
}

/* Once a job was united as a map, it stays a map for later merges, even
 * if the union so far happens to be dense (TF decides per job over all
 * contributors). */
static void map_kind_is_sticky(void **state)
{
	expect_conflict("jobs = { worker = [\"-\", \"w1:1\"]; };", "jobs = { worker = [\"w0:1\"]; };",
	                "jobs = { worker = [\"c0:1\"]; };",
	                "merge conflict: task worker:0 is given by both a+b ('w0:1') and c ('c0:1')");
}

/* An empty job reads as an empty map in TF, so it unites by index. */
static void empty_job_unites_as_map(void **state)
{
	expect_union("jobs = { worker = []; };", "jobs = { worker = [\"w0:1\"]; };", NULL,
	             "{\"cluster\":{\"worker\":[\"w0:1\"]}}");
}

static void identity_comes_from_the_first_that_has_it(void **state)
{
	expect_union("jobs = { worker = [\"w0:1\"]; };",
	             "jobs = { ps = [\"p0:1\"]; }; task = { type = \"ps\"; index = 0; }; rpc_layer = \"grpc\"; environment = \"b\";",
	             "jobs = { chief = [\"c:1\"]; }; task = { type = \"chief\"; index = 0; }; rpc_layer = \"http\"; environment = \"c\";",
	             "{\"cluster\":{\"worker\":[\"w0:1\"],\"ps\":[\"p0:1\"],\"chief\":[\"c:1\"]},"
	             "\"task\":{\"type\":\"ps\",\"index\":0},\"rpc_layer\":\"grpc\",\"environment\":\"b\"}");
}

static void accelerators_follow_reindexed_tasks(void **state)
{
	muster_ctx *ctx = union_of("jobs = { worker = [\"w0:1\"]; }; accelerators = { worker = { GPU = 1; }; };",
	                           "jobs = { worker = [\"x0:1\", \"x1:1\"]; }; accelerators = { worker = { GPU = 4; }; };",
	                           NULL);
	muster_result *r = resolve_ok(ctx);
	char *s = NULL;
	assert_int_equal(muster_result_accelerators_json(&s, r, "worker", 0, NULL), 0);
	assert_string_equal(s, "{\"GPU\":1}");
	muster_free(s);
	assert_int_equal(muster_result_accelerators_json(&s, r, "worker", 2, NULL), 0);
	assert_string_equal(s, "{\"GPU\":4}");
	muster_free(s);
	assert_string_equal(muster_result_source(r), "a+b");
	muster_result_free(r);
	muster_ctx_free(ctx);
}

/* master(): a named task from the merged spec; otherwise the first
 * contributor answers, given only the rpc layer (TF's union tests). */
static void union_master(void **state)
{
	muster_ctx *ctx = union_of("jobs = { worker = [\"worker0:2222\", \"worker1:2222\"]; };",
	                           "jobs = { ps = [\"ps0:2222\"]; }; master = \"second:1\";", NULL);
	muster_result *r = resolve_ok(ctx);
	struct { const char *type; long id; const char *rpc, *want; } cases[] = {
		{ NULL, -1, NULL, "" },
		{ "worker", 1, NULL, "worker1:2222" },
		{ "worker", 1, "grpc", "grpc://worker1:2222" },
		{ "ps", 0, "grpc", "grpc://ps0:2222" },
		{ NULL, -1, "grpc", "grpc://" }, /* the first (Simple) formats its "" master */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = master_of(r, cases[i].type, cases[i].id, cases[i].rpc);
		assert_string_equal(got, cases[i].want);
		muster_free(got);
	}
	muster_result_free(r);
	muster_ctx_free(ctx);

	/* The first contributor's own master string and rules answer. */
	ctx = union_of("jobs = { worker = [\"w0:1\"]; }; master = \"first:9\"; rpc_layer = \"grpc\";",
	               "jobs = { ps = [\"p0:1\"]; };", NULL);
	r = resolve_ok(ctx);
	char *got = master_of(r, NULL, -1, NULL);
	assert_string_equal(got, "grpc://first:9");
	muster_free(got);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

/* A merge whose later entry fails keeps what was merged; a merge of three
 * returns the union of all. */
static void three_way_union(void **state)
{
	expect_union("jobs = { worker = [\"w0:1\"]; };", "jobs = { worker = [\"w1:1\"]; };",
	             "jobs = { worker = [\"w2:1\"]; ps = [\"p:1\"]; };",
	             "{\"cluster\":{\"worker\":[\"w0:1\",\"w1:1\",\"w2:1\"],\"ps\":[\"p:1\"]}}");
}

/* United by index, the tasks and their accelerators interleave: both stay
 * in order (the union is kept sorted in place). */
static void accelerators_follow_united_tasks(void **state)
{
	expect_union("jobs = { worker = [\"-\", \"w1:1\", \"-\", \"w3:1\"]; ps = [\"p0:1\"]; };"
	             " accelerators = { worker = { GPU = 1; }; ps = { TPU = 8; }; };",
	             "jobs = { worker = [\"w0:1\", \"-\", \"w2:1\"]; }; accelerators = { worker = { GPU = 2; }; };",
	             "jobs = { chief = [\"c0:1\"]; worker = [\"-\", \"-\", \"-\", \"-\", \"w4:1\"]; };"
	             " accelerators = { chief = { GPU = 4; }; worker = { GPU = 3; }; };",
	             "{\"cluster\":{\"worker\":[\"w0:1\",\"w1:1\",\"w2:1\",\"w3:1\",\"w4:1\"],"
	             "\"ps\":[\"p0:1\"],\"chief\":[\"c0:1\"]},\"accelerators\":{\"worker\":{"
	             "\"0\":{\"GPU\":2},\"1\":{\"GPU\":1},\"2\":{\"GPU\":2},\"3\":{\"GPU\":1},"
	             "\"4\":{\"GPU\":3}},\"ps\":{\"0\":{\"TPU\":8}},\"chief\":{\"0\":{\"GPU\":4}}}}");
}

static int teardown(void **state)
{
	testutil_cleanup();
	return 0;
}

/* Device ids travel with their tasks through a merge, counted as accelerators. */
static void accelerator_ids_follow_their_tasks(void **state)
{
	(void)state;
	expect_union("jobs = { worker = [\"w0:1\"]; }; accelerator_ids = { worker = { GPU = [2, 3]; }; };",
	             "jobs = { worker = [\"x0:1\"]; ps = [\"p0:1\"]; };"
	             " accelerator_ids = { worker = { GPU = [0]; }; ps = { TPU = [5]; }; };",
	             NULL,
	             "{\"cluster\":{\"worker\":[\"w0:1\",\"x0:1\"],\"ps\":[\"p0:1\"]},"
	             "\"accelerators\":{\"worker\":{\"0\":{\"GPU\":2},\"1\":{\"GPU\":1}},"
	             "\"ps\":{\"0\":{\"TPU\":1}}},"
	             "\"accelerator_ids\":{\"worker\":{\"0\":[2,3],\"1\":[0]},\"ps\":{\"0\":[5]}}}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(disjoint_jobs_coexist_in_first_seen_order, teardown),
		cmocka_unit_test_teardown(dense_jobs_concatenate, teardown),
		cmocka_unit_test_teardown(sparse_jobs_unite_by_index, teardown),
		cmocka_unit_test_teardown(shared_index_in_a_map_is_a_conflict, teardown),
		cmocka_unit_test_teardown(map_kind_is_sticky, teardown),
		cmocka_unit_test_teardown(empty_job_unites_as_map, teardown),
		cmocka_unit_test_teardown(identity_comes_from_the_first_that_has_it, teardown),
		cmocka_unit_test_teardown(accelerators_follow_reindexed_tasks, teardown),
		cmocka_unit_test_teardown(accelerators_follow_united_tasks, teardown),
		cmocka_unit_test_teardown(accelerator_ids_follow_their_tasks, teardown),
		cmocka_unit_test_teardown(union_master, teardown),
		cmocka_unit_test_teardown(three_way_union, teardown),
	};
	return run_tap_tests(tests, NULL, NULL);
}
