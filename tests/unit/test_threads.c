/* One context, 16 threads resolving at once: identical results, plugins
 * without MUSTER_PLUGIN_THREADSAFE serialised, thread-safe ones not. */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define THREADS 16
#define ROUNDS 50

struct worker {
	muster_ctx *ctx;
	char *first_json;
	int mismatches;
	int failures;
};

static void *run(void *arg)
{
	struct worker *w = arg;
	for (int i = 0; i < ROUNDS; i++) {
		muster_result *r = NULL;
		muster_error err;
		if (muster_resolve(&r, w->ctx, &err) != 0) {
			w->failures++;
			continue;
		}
		char *json = NULL;
		muster_result_to_json(&json, r, NULL);
		/* The environment reports concurrency; compare the rest. */
		char *env = json ? strstr(json, ",\"environment\"") : NULL;
		if (env)
			*env = '\0';
		if (!w->first_json)
			w->first_json = json;
		else {
			w->mismatches += strcmp(json, w->first_json) != 0;
			muster_free(json);
		}
		muster_result_free(r);
	}
	return NULL;
}

static int peak_of(muster_ctx *ctx)
{
	muster_result *r = resolve_ok(ctx);
	int peak = 0;
	sscanf(muster_result_environment(r), "peak=%d", &peak);
	muster_result_free(r);
	return peak;
}

static int hammer(const char *plugin)
{
	char text[1024];
	snprintf(text, sizeof(text),
	         "chain = ( { plugin = \"%s\"; on_success = \"merge\"; config = { sleep_ms = 2; report_concurrency = true;"
	         " jobs = { worker = [\"w0:1\", \"w1:1\"]; }; }; },"
	         " { plugin = \"static\"; config = { jobs = { ps = [\"p0:1\"]; }; task = { type = \"ps\"; index = 0; }; }; } );",
	         plugin);
	muster_ctx *ctx = open_text(text, NULL);
	pthread_t t[THREADS];
	struct worker w[THREADS];
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ ctx, NULL, 0, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, run, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(w[i].failures, 0);
		assert_int_equal(w[i].mismatches, 0);
		assert_string_equal(w[i].first_json, w[0].first_json);
		assert_string_equal(w[i].first_json,
		                    "{\"cluster\":{\"worker\":[\"w0:1\",\"w1:1\"],\"ps\":[\"p0:1\"]},"
		                    "\"task\":{\"type\":\"ps\",\"index\":0}");
	}
	for (int i = 0; i < THREADS; i++)
		muster_free(w[i].first_json);
	int peak = peak_of(ctx);
	muster_ctx_free(ctx);
	return peak;
}

static void serialised_plugin_never_overlaps(void **state)
{
	assert_int_equal(hammer("stub_serial"), 1);
}

static void thread_safe_plugin_runs_concurrently(void **state)
{
	assert_true(hammer("stub") >= 2);
}

static int teardown(void **state)
{
	testutil_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(serialised_plugin_never_overlaps, teardown),
		cmocka_unit_test_teardown(thread_safe_plugin_runs_concurrently, teardown),
	};
	return run_tap_tests(tests, NULL, NULL);
}
